"""The symbolic engines next to BFS, measured in the same run on the same machine.

* Time to the first counterexample: BMC against the explicit engine (BFS), on DieHard,
  the EagerCommit mutant of TwoPhase and a deep bug in a counter beyond BFS's reach.
* Time to proof: PDR and k-induction against exhaustive BFS, on the bounded examples
  whose invariants hold, and PDR alone where BFS cannot finish (10^12 states).

Each row prints both times and their ratio (BFS / symbolic; above 1, the symbolic engine
is faster). Run ``python benchmarks/symbolic.py``. RayJob rows are missing: reading the
whole RayJob relation symbolically does not finish yet (see the README).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from checker.explorer import CheckOptions, ExplicitEngine  # noqa: E402
from checker.machine import Machine  # noqa: E402
from checker.symbolic.bmc import BMC  # noqa: E402
from checker.symbolic.kind import KInduction  # noqa: E402
from checker.symbolic.pdr import PDR  # noqa: E402
from examples.diehard import DieHard  # noqa: E402
from examples.peterson import Peterson  # noqa: E402
from examples.tcommit import TCommit  # noqa: E402
from examples.twophase import TwoPhase  # noqa: E402
from test_symbolic import LeakyCounters, WideCounters  # noqa: E402
from test_verdicts import EagerCommit  # noqa: E402


def timed(engine, spec, constants, prop, **options):
    """(seconds, verdict, trace length) of one property with one engine."""
    started = time.perf_counter()
    opts = CheckOptions(properties=[prop], **options)
    result = engine(Machine(spec, constants), opts).check()
    (p,) = [p for p in result.properties if p.name == prop]
    steps = len(p.trace.steps) - 1 if p.trace is not None else None
    return time.perf_counter() - started, p.verdict.value, steps


def row(label, baseline, symbolic):
    (t0, v0, n0), (t1, v1, n1) = baseline, symbolic
    ratio = f"{t0 / t1:6.2f}x" if t0 is not None else "    -  "
    shown0 = f"{t0:8.3f} s {v0:8} {n0 if n0 is not None else '':>3}" if t0 is not None else \
        f"{'out of reach':>25}"
    print(f"{label:44} {shown0}   {t1:8.3f} s {v1:8} {n1 if n1 is not None else '':>3}   {ratio}")


def main():
    print(f"{'first counterexample (BFS vs BMC)':44} {'BFS':>25}   {'BMC':>25}   BFS/BMC")
    for label, spec, consts, prop in [
        ("DieHard not_solved", DieHard, None, "not_solved"),
        ("TwoPhase N=3 EagerCommit consistent", EagerCommit, {"N": 3}, "consistent"),
        ("TwoPhase N=5 EagerCommit consistent", EagerCommit, {"N": 5}, "consistent"),
    ]:
        row(label, timed(ExplicitEngine, spec, consts, prop), timed(BMC, spec, consts, prop))
    row("LeakyCounters (10^12 states) total", (None, None, None),
        timed(BMC, LeakyCounters, None, "total_is_the_sum", max_depth=10))
    print()
    print(f"{'time to proof (BFS vs PDR, k-induction)':44} {'BFS':>25}   {'PDR / kind':>25}   ratio")
    for label, spec, consts, prop in [
        ("Peterson inv", Peterson, None, "inv"),
        ("TCommit N=3 tc_consistent", TCommit, {"N": 3}, "tc_consistent"),
        ("TwoPhase N=3 consistent", TwoPhase, {"N": 3}, "consistent"),
        ("TwoPhase N=5 consistent", TwoPhase, {"N": 5}, "consistent"),
    ]:
        bfs = timed(ExplicitEngine, spec, consts, prop)
        row(label + " [pdr]", bfs, timed(PDR, spec, consts, prop, max_seconds=60))
        row(label + " [kind]", bfs, timed(KInduction, spec, consts, prop, max_depth=6,
                                          max_seconds=60))
    row("WideCounters (10^12 states) [pdr]", (None, None, None),
        timed(PDR, WideCounters, None, "total_is_the_sum"))


if __name__ == "__main__":
    main()
