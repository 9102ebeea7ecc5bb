"""Progress on stderr: a live line on a terminal, plain lines in a log."""
import io
import re

from rich.console import Console

from checker.output.progress import ProgressLine, peak_memory_mb
from checker.results import Stats

STATS = Stats(distinct_states=12345, depth=17, seconds=2.0, queue=2048)
FIELDS = r"12,345 states, 6,172 states/s, depth 17, frontier 2,048, [\d,]+ MB, \d+\.\d s"


def report(terminal: bool, *updates) -> str:
    out = io.StringIO()
    err = Console(file=out, force_terminal=terminal, width=120)
    with ProgressLine(err) as progress:
        for update in updates:
            progress(update)
    return out.getvalue()


def test_a_log_gets_one_plain_line_per_report_with_every_field():
    lines = report(False, STATS, STATS, "reading the relation").splitlines()
    assert len(lines) == 3 and all(re.fullmatch(rf"  … {FIELDS}", line) for line in lines[:2])
    assert lines[2] == "  … reading the relation"
    assert "\x1b" not in "".join(lines)


def test_a_terminal_gets_one_line_redrawn_in_place_and_cleared_at_the_end():
    text = report(True, STATS, STATS)
    assert re.search(FIELDS, text) and "\n  … 12,345" not in text      # redrawn, not appended
    assert "\x1b[2K" in text                                           # erased when done
    assert text.count("\n") <= 2


def test_memory_is_the_process_peak_in_megabytes():
    assert 5 < peak_memory_mb() < 64 * 1024
