"""Progress of a long search on stderr: one live status line on a terminal, plain lines
(once a second, as the engines report) in a CI log or a pipe."""
from __future__ import annotations

import resource
import sys
import time

from rich.console import Console
from rich.live import Live
from rich.text import Text

from ..results import Stats


def peak_memory_mb() -> float:
    """The process's peak resident memory (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (2 ** 20 if sys.platform == "darwin" else 2 ** 10)


def status(stats: Stats, elapsed: float) -> str:
    """`12,345 states, 4,321 states/s, depth 17, frontier 2,048, 310 MB, 3.0 s`, and each
    worker's states/s when the search is split (`per worker 2,201 / 2,120`)."""
    workers = "" if not stats.workers else \
        f" (per worker {' / '.join(f'{rate:,.0f}' for rate in stats.workers)})"
    return (f"{stats.distinct_states:,} states, {stats.states_per_second:,.0f} states/s{workers}, "
            f"depth {stats.depth}, frontier {stats.queue:,}, {peak_memory_mb():,.0f} MB, "
            f"{elapsed:.1f} s")


class ProgressLine:
    """The engines' progress callback (statistics, or a symbolic engine's message), used
    as a context manager so the live line is gone before the results are printed."""

    def __init__(self, err: Console):
        self.err, self.started = err, time.monotonic()
        self.live = Live(console=err, transient=True, auto_refresh=False) if err.is_terminal else None

    def __enter__(self) -> ProgressLine:
        if self.live is not None:
            self.live.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.live is not None:
            self.live.stop()

    def __call__(self, stats: Stats | str) -> None:
        elapsed = time.monotonic() - self.started
        if isinstance(stats, str):                  # a message: kept above the live line
            self.err.print(f"  … {stats}", highlight=False, markup=False)
        elif self.live is not None:
            self.live.update(Text(f"  … {status(stats, elapsed)}", style="dim"), refresh=True)
        else:
            self.err.print(f"  … {status(stats, elapsed)}", highlight=False, markup=False)
