"""The symbolic engines next to BFS, measured in the same run on the same machine.

* Time to the first counterexample: BMC against the explicit engine (BFS), on DieHard,
  the EagerCommit mutant of TwoPhase and a deep bug in a counter beyond BFS's reach.
* Time to proof: PDR and k-induction against exhaustive BFS, on the bounded examples
  whose invariants hold, and PDR alone where BFS cannot finish (10^12 states).

* RayJob (``--rayjob``, slow): BMC against BFS on each property the faithful spec
  refutes (the refutations of models/mutants.toml, shallowest first), and PDR on
  each claim of each proof model in models/rayjob/proofs (backoffLimit, and the fault
  budget where it is free, free) next to BFS on one bounded instance of the same model.

Each row prints both times and their ratio (BFS / symbolic; above 1, the symbolic engine
is faster). Symbolic times include reading the spec into a relation, which for RayJob is
most of it. Run ``python benchmarks/symbolic.py [--rayjob] [--limit SECONDS]``.

* Cold reads (``--read MODEL...``, alone): the time to read each model's spec into a
  relation with no relation cache (wall and CPU: on a shared machine, CPU time is the
  steadier figure), then to store it in a fresh cache and load it back: what a first
  proof pays before PDR starts (issue #20).
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from checker.explicit.explorer import ExplicitEngine  # noqa: E402
from checker.options import CheckOptions  # noqa: E402
from checker.explicit.machine import Machine  # noqa: E402
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
    return timed_machine(engine, Machine(spec, constants), prop, **options)


def timed_machine(engine, machine, props, **options):
    """(seconds, verdict, trace length) of one property, or of several checked in one run
    (their verdicts joined, no trace length)."""
    props = [props] if isinstance(props, str) else props
    started = time.perf_counter()
    result = engine(machine, CheckOptions(properties=props, **options)).check()
    seconds = time.perf_counter() - started
    if len(props) > 1:
        return seconds, "/".join(sorted({p.verdict.value for p in result.properties})), None
    (p,) = [p for p in result.properties if p.name == props[0]]
    return seconds, p.verdict.value, len(p.trace.steps) - 1 if p.trace is not None else None


def row(label, baseline, symbolic, missing="out of reach"):
    (t0, v0, n0), (t1, v1, n1) = baseline, symbolic
    ratio = f"{t0 / t1:6.2f}x" if t0 is not None else "    -  "
    shown0 = f"{t0:8.3f} s {v0:8} {n0 if n0 is not None else '':>3}" if t0 is not None else \
        f"{missing:>25}"
    print(f"{label:44} {shown0}   {t1:8.3f} s {v1:8} {n1 if n1 is not None else '':>3}   {ratio}",
          flush=True)


def rayjob(limit: float):
    from checker.model import load_model
    from checker.mutants import load_catalog
    refutations = [e for e in load_catalog(ROOT / "models/mutants.toml").entries
                   if not e.is_mutant and not e.setting and e.model.parent.name != "slow"]
    print(f"{'RayJob first counterexample (BFS vs BMC)':44} {'BFS':>25}   {'BMC':>25}   BFS/BMC")
    for e in sorted(refutations, key=lambda e: e.steps):
        machine = load_model(e.model).machine()
        row(f"{e.model_label.removeprefix('rayjob/')} {e.property}",
            timed_machine(ExplicitEngine, machine, e.property),
            timed_machine(BMC, machine, e.property, max_depth=e.steps, max_seconds=limit))


def rayjob_proofs(limit: float):
    """Time to proof per claim and setting: each claim of each proof model alone, by PDR
    over every value of its free constants, next to BFS on one bounded instance (every
    free constant 1). The first PDR row of a setting reads the spec into a relation (or
    finds it in the relation cache); the others take it from the cache."""
    from checker.model import load_model
    print(f"{'RayJob time to proof, per claim':44} {'BFS, one instance':>25}   {'PDR, all values':>25}")
    proofs_dir = ROOT / "models/rayjob/proofs"
    for path in sorted(proofs_dir.rglob("*.toml")):
        setting = str(path.relative_to(proofs_dir).with_suffix(""))
        proofs = load_model(path)
        bounded = load_model(path, {name: 1 for name in proofs.symbolic}).machine()
        for prop in proofs.options.properties:
            row(f"{setting}: {prop.split('_')[0]}",
                timed_machine(ExplicitEngine, bounded, prop, max_seconds=limit),
                timed_machine(PDR, proofs.machine(), prop, max_seconds=limit))


def cold_reads(paths: list[str]):
    """Per model: the cold read of its relation, then storing and loading it."""
    from checker.model import load_model
    from checker.symbolic.relation import Relation
    from checker.symbolic.store import RelationStore
    print(f"{'cold read of the relation':44} {'read':>9} {'CPU':>9} {'store':>7} {'load':>7}   size")
    for path in paths:
        machine = load_model(Path(path)).machine()
        started, cpu = time.perf_counter(), time.process_time()
        rel = Relation(machine)
        read, cpu = time.perf_counter() - started, time.process_time() - cpu
        with tempfile.TemporaryDirectory() as cache:
            started = time.perf_counter()
            RelationStore(machine, Path(cache)).save(rel)
            stored, started = time.perf_counter() - started, time.perf_counter()
            again = RelationStore(machine, Path(cache))
            again.relation()
            loaded = time.perf_counter() - started
        assert again.hit, f"{path}: the stored relation did not load back"
        print(f"{path:44} {read:7.1f} s {cpu:7.1f} s {stored:5.1f} s {loaded:5.1f} s   "
              f"{len(rel.flat)} variables, {len(rel.steps)} steps, {len(rel.failures)} failures",
              flush=True)


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
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rayjob", action="store_true", help="also the RayJob rows (slow)")
    parser.add_argument("--limit", type=float, default=1800, help="seconds per RayJob row")
    parser.add_argument("--read", nargs="+", metavar="MODEL",
                        help="only time the cold read of each model's relation")
    args = parser.parse_args()
    if args.read:
        cold_reads(args.read)
        sys.exit()
    main()
    if args.rayjob:
        print()
        rayjob(args.limit)
        print()
        rayjob_proofs(args.limit)
