"""`check-model conform TARGET`: model-based testing of a real system against a spec.

TARGET names a module with `conform(progress) -> list[ConfigRun]`: `ray` is short for
`spec.ray.conformance`, anything with a dot is imported as given, from the current
directory first (a project's specs are its own files, not installed packages). The engine
knows nothing of the system; the target's adapter does.
"""
from __future__ import annotations

import importlib
import sys
import time

import click
from rich.markup import escape

from .conformance import print_report
from .output.render import console


@click.command()
@click.argument("target")
def conform(target):
    """Replay scenarios generated from TARGET's spec on the real system and report
    every observation the spec does not allow (exit 1), or a failure to run (exit 2)."""
    out, err = console(), console(stderr=True)
    module = target if "." in target else f"spec.{target}.conformance"
    if "" not in sys.path and "." not in sys.path:
        sys.path.insert(0, "")
    started = time.monotonic()
    try:
        results = importlib.import_module(module).conform(
            progress=lambda line: err.print(escape(line)))
    except Exception as e:      # a real system that cannot be run is a loud failure
        err.print(f"[red]error[/]: {escape(target)}: {escape(f'{type(e).__name__}: {e}')}")
        sys.exit(2)
    print_report(out, results)
    out.print(f"{time.monotonic() - started:.0f} s")
    sys.exit(0 if all(r.ok for r in results) else 1)
