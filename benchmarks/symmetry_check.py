#!/usr/bin/env python3
"""What checking a symmetry declaration costs: the example models that declare one, in
one process, one after the other.

Each model is explored with its symmetry (every orbit the search expands checked to
behave alike, `checker.explicit.symmetry.Verifier`) and with `--no-symmetry`; the time
spent inside the check is measured apart. Prints per model the distinct states of both
runs, the CPU seconds of each, the check's share of the reduced run, and the reduced
run's time over the plain one's (< 1.0x: the reduction pays for its check).

    python3 benchmarks/symmetry_check.py
    python3 benchmarks/symmetry_check.py examples/models/tcommit_symmetry.toml
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from checker.engines import run_engine  # noqa: E402
from checker.explicit import symmetry  # noqa: E402
from checker.model import load_model  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
MODELS = ["examples/models/tcommit_symmetry.toml", "examples/models/simpleallocator.toml"]
REPEAT = 20                         # runs of each, the fastest kept (they take milliseconds)


def timed_check() -> list[float]:
    """Make every Verifier add the CPU seconds it spends to the list returned."""
    spent = [0.0]
    check = symmetry.Verifier.__call__

    def timed(self, st):
        began = time.process_time()
        try:
            check(self, st)
        finally:
            spent[0] += time.process_time() - began
    symmetry.Verifier.__call__ = timed
    return spent


def fastest(model, options, spent) -> tuple[int, float, float]:
    """(distinct states, CPU seconds, of which in the check) of the fastest of REPEAT runs
    (each on a machine bound afresh: nothing remembered from the one before)."""
    best = None
    for _ in range(REPEAT):
        spent[0] = 0.0
        machine = model.machine()
        began = time.process_time()
        result = run_engine("interpreter", machine, options)
        row = (result.stats.distinct_states, time.process_time() - began, spent[0])
        best = row if best is None or row[1] < best[1] else best
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=MODELS)
    args = parser.parse_args()
    spent = timed_check()
    print(f"{'model':<40} {'distinct on/off':>15} {'cpu on s':>9} {'check s':>8} "
          f"{'share':>6} {'cpu off s':>9} {'on/off':>7}")
    for path in args.models:
        model = load_model(REPO / path)
        if not model.options.symmetry:
            raise SystemExit(f"{path} declares no symmetry")
        on = fastest(model, model.options, spent)
        off = fastest(model, dataclasses.replace(model.options, symmetry=[]), spent)
        print(f"{path:<40} {f'{on[0]:,}/{off[0]:,}':>15} {on[1]:>9.4f} {on[2]:>8.4f} "
              f"{on[2] / on[1]:>6.0%} {off[1]:>9.4f} {on[1] / off[1]:>6.2f}x", flush=True)


if __name__ == "__main__":
    main()
