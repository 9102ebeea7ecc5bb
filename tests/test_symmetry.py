"""Symmetry reduction: one state per orbit, the same verdicts and shortest-trace lengths
as without it, traces that are real paths of the spec, wrong declarations caught on
every orbit the search meets, however deep, bad declarations in a model file as one line at their line. TLC's own counts
with SYMMETRY are asserted in tests/test_oracles.py."""
from __future__ import annotations

import dataclasses
import math

import pytest
from click.testing import CliRunner

import checker.explicit.explorer
from checker import Int, Map, Spec, action, choose, invariant, require
from checker.cli import main
from checker.engines import run_engine
from checker.errors import CheckerError
from checker.explicit.machine import Machine
from checker.explicit.symmetry import NotSymmetric, Symmetry, symmetric_sets
from checker.explicit.trace import replay
from checker.model import load_model
from checker.options import CheckOptions
from checker.results import Verdict
from conftest import ROOT
from examples.simpleallocator import SimpleAllocator
from examples.tcommit import TCommit
from examples.twophase import RMState, TwoPhase

RAYJOB_POOLS = ["ClusterId", "DRAWN_JOB_IDS"]


class GreedyAllocator(SimpleAllocator):
    """A bug: every resource looks available, held or not."""

    def available(s, r) -> bool:
        return True


class HastyCommit(TCommit):
    """A bug: a prepared RM may commit before the others prepared."""

    @action
    def decide(s, rm: TCommit.RM):
        require(s.rm_state[rm] == RMState.PREPARED)
        s.rm_state[rm] = choose([RMState.COMMITTED, RMState.ABORTED])


class LateFavourite(Spec):
    """Two processes alike but in one step, which needs process 1 flagged: a flag is
    raised only after 60 ticks, beyond any sample of the first states (the noise makes
    each depth ten states wide)."""
    P = Int[1, 2]
    count: Int[0, 60] = 0
    noise: Int[0, 9] = 0
    flag: Map[P, bool] = Map.fill(False)
    bad: bool = False

    @action
    def tick(s):
        require(s.count < 60)
        s.count += 1

    @action
    def shake(s, n: Int[0, 9]):
        s.noise = n

    @action
    def raise_flag(s, p: P):
        require(s.count == 60 and not any(s.flag.values()))
        s.flag[p] = True

    @action
    def boom(s):
        require(s.flag[1])
        s.bad = True

    @invariant
    def fine(s):
        return not s.bad


class EvenHanded(LateFavourite):
    """The same with either process flagged allowed to go on: a symmetric spec."""

    @action
    def boom(s):
        require(any(s.flag.values()))
        s.bad = True


def reachable_states(machine) -> list[tuple]:
    """Every reachable state, breadth first, without symmetry."""
    found = dict.fromkeys(machine.initial_states())
    level = list(found)
    while level:
        level = [succ for st in level for _, _, succ in machine.successors(st) if succ not in found]
        found.update(dict.fromkeys(level))
    return list(found)


def check(machine, **options):
    return run_engine("interpreter", machine, CheckOptions(**options))


def verdicts(result) -> dict:
    return {p.name: (p.verdict, p.trace and len(p.trace.steps)) for p in result.properties}


def test_the_canonical_form_picks_one_state_of_each_orbit():
    machine = Machine(SimpleAllocator)
    symmetry = Symmetry(machine.variables, symmetric_sets(SimpleAllocator, ["Client", "Resource"],
                                                           machine.env))
    states = reachable_states(machine)
    assert len(states) == 400 and symmetry.size == 3 * 2 * 1 * 2
    for st in states:
        images = {symmetry.image(st, p) for p in range(symmetry.size)}
        assert symmetry.canonical(st) in images
        assert {symmetry.canonical(image) for image in images} == {symmetry.canonical(st)}
    assert len({symmetry.canonical(st) for st in states}) == 50          # TLC's count


def test_a_counterexample_under_symmetry_is_a_shortest_real_trace():
    machine = Machine(GreedyAllocator)
    plain = check(machine)
    reduced = check(machine, symmetry=["Client", "Resource"])
    assert reduced.stats.distinct_states < plain.stats.distinct_states
    assert verdicts(reduced) == verdicts(plain) == {
        "type_invariant": (Verdict.HOLDS, None), "resource_mutex": (Verdict.VIOLATED, 5)}
    trace = next(p.trace for p in reduced.properties if p.name == "resource_mutex")
    assert replay(machine, trace).ok                     # the spec's own steps, unreduced


def test_workers_share_orbits_by_their_canonical_fingerprint(monkeypatch):
    monkeypatch.setattr(checker.explicit.explorer, "PARALLEL_FROM", 1)
    machine = Machine(GreedyAllocator)
    one = check(machine, symmetry=["Client", "Resource"], store="fingerprint")
    two = check(machine, symmetry=["Client", "Resource"], workers=2)
    assert "2 worker processes" in two.method
    assert (two.stats.distinct_states, two.stats.generated, two.stats.depth) == \
        (one.stats.distinct_states, one.stats.generated, one.stats.depth)
    assert verdicts(two) == verdicts(one)


def test_rayjob_name_pools_are_interchangeable_and_add_no_reduction():
    """The spec draws the lowest unused name (spec/rayjob/operator.py), itself a symmetry
    reduction: declaring the pools symmetric finds no further orbit (the check of every
    orbit costs about a hundred times the search: one model)."""
    model = load_model(ROOT / "models/rayjob/user_stop_F1.toml")
    machine = model.machine()
    plain = run_engine("interpreter", machine, model.options)
    reduced = run_engine("interpreter", machine,
                         dataclasses.replace(model.options, symmetry=RAYJOB_POOLS))
    assert "symmetry ClusterId, DRAWN_JOB_IDS: 576 permutations" in reduced.method
    assert verdicts(reduced) == verdicts(plain)
    assert any(v is Verdict.VIOLATED for v, _ in verdicts(plain).values())
    assert reduced.stats.distinct_states == plain.stats.distinct_states
    for p in reduced.properties:
        if p.trace is not None:
            assert replay(machine, p.trace).ok, p.name


def test_symbolic_engines_ignore_symmetry():
    machine = Machine(HastyCommit)
    assert verdicts(check(machine, symmetry=["RM"]))["tc_consistent"] == (Verdict.VIOLATED, 5)
    for engine in ("bmc", "kind"):
        plain = run_engine(engine, machine, CheckOptions(max_depth=6))
        reduced = run_engine(engine, machine, CheckOptions(max_depth=6, symmetry=["RM"]))
        assert verdicts(reduced) == verdicts(plain)
        assert verdicts(plain)["tc_consistent"] == (Verdict.VIOLATED, 5)


def test_the_bulk_engine_leaves_symmetry_to_the_interpreter():
    machine = Machine(SimpleAllocator)
    result = run_engine("explicit", machine, CheckOptions(symmetry=["Client"]))
    assert result.method.startswith("interpreter: the bulk engine does not take symmetry; ")
    assert result.stats.distinct_states == 86
    with pytest.raises(CheckerError, match="the bulk engine does not take symmetry"):
        run_engine("bulk", machine, CheckOptions(symmetry=["Client"]))


# ------------------------------------------------------------ the user's mistakes

def cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def model_file(tmp_path, spec, symmetry, extra=""):
    path = tmp_path / "m.toml"
    path.write_text(f'spec = "{spec}"\n[check]\nsymmetry = {symmetry}\n{extra}\n')
    return path


@pytest.mark.parametrize("spec,constants,names,line", [
    ("examples.twophase:TwoPhase", "", '["RM"]', "twophase.py:"),        # Msg.rm is not RM
    ("examples.tcommit:TCommit", "", '["RMState"]', "tcommit.py:"),      # states are not alike
    ("examples.lamportmutex:LamportMutex", "[constants]\nN = 2\nmaxClock = 3\nMaxNat = 4",
     '["Proc"]', "lamportmutex.py:"),                                  # ties broken by p < q
])
def test_values_that_are_not_interchangeable_are_caught(tmp_path, spec, constants,
                                                                    names, line):
    result = cli(model_file(tmp_path, spec, names, constants), "-q", "--workers", "1")
    assert result.exit_code == 2
    message, = result.output.strip().splitlines()
    assert line in message and "the values are not interchangeable" in message


@pytest.mark.parametrize("options", [{}, {"workers": 2}])
def test_an_asymmetry_deep_in_the_search_is_caught_not_reduced_away(monkeypatch, options):
    monkeypatch.setattr(checker.explicit.explorer, "PARALLEL_FROM", 1)
    machine = Machine(LateFavourite)
    plain = check(machine, **options)
    assert verdicts(plain)["fine"] == (Verdict.VIOLATED, 63)          # 62 steps
    with pytest.raises(CheckerError, match="swapping 1 and 2 of P in a reachable state's "
                                           "orbit changes the successors: the values are not "
                                           "interchangeable"):
        check(machine, symmetry=["P"], **options)
    even = Machine(EvenHanded)
    reduced, plain = check(even, symmetry=["P"], **options), check(even, **options)
    assert verdicts(reduced) == verdicts(plain) == {"fine": (Verdict.VIOLATED, 63)}
    assert reduced.stats.distinct_states < plain.stats.distinct_states


@pytest.mark.parametrize("spec,symmetry,fragment,extra", [
    ("examples.tcommit:TCommit", '["Nope"]', "TCommit's code sees no 'Nope'", ""),
    ("examples.tcommit:TCommit", '["N"]', "N is not a set of interchangeable values", ""),
    ("examples.tcommit:TCommit", '["RM", "RM"]', "RM repeats values of another set", ""),
    ("examples.tcommit:TCommit", '["RM"]', "RM has fewer than two values", "[constants]\nN = 1"),
    ("examples.tcommit:TCommit", '["RM"]', "479,001,600 permutations (at most 40,320)",
     "[constants]\nN = 12"),
    ("examples.tcommit:TCommit", "[3]", "symmetry must be a list of names", ""),
    ("examples.tcommit:TCommit", '"RM"', "symmetry must be a array", ""),
    ("examples.simpleallocator:SimpleAllocator", '["SUBSETS"]',
     "SUBSETS is not a set of interchangeable values", ""),
    ("examples.diningphilosophers:DiningPhilosophers", '["Proc"]',
     "symmetry with liveness properties (nobody_starves)", ""),
])
def test_a_bad_declaration_is_one_line_at_its_line(tmp_path, spec, symmetry, fragment, extra):
    path = model_file(tmp_path, spec, symmetry, extra)
    result = cli(path, "-q", "--workers", "1")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        next(line for line in result.output.splitlines() if line.startswith(f"error: {path}:3: "))]
    assert fragment in result.output


def test_a_set_no_variable_holds_is_refused():
    machine = Machine(TCommit)
    with pytest.raises(NotSymmetric, match="no state variable holds a value of TMState"):
        Symmetry(machine.variables, symmetric_sets(TCommit, ["RM"], machine.env) +
                 symmetric_sets(TwoPhase, ["TMState"], machine.env))


def test_no_symmetry_checks_every_state(tmp_path):
    path = ROOT / "examples" / "models" / "simpleallocator.toml"
    assert "(50 states" in cli(path, "-q", "--workers", "1").output
    plain = cli(path, "-q", "--workers", "1", "--no-symmetry")
    assert plain.exit_code == 0 and "(400 states" in plain.output
    dining = model_file(tmp_path, "examples.diningphilosophers:DiningPhilosophers", '["Proc"]')
    assert cli(dining, "-q", "--workers", "1", "--no-symmetry").exit_code == 0


def test_every_permutation_of_a_pool_of_four_and_of_four_ids():
    machine = load_model(ROOT / "models" / "rayjob.toml").machine()
    sets = symmetric_sets(machine.spec_cls, RAYJOB_POOLS, machine.env)
    assert [len(s.values) for s in sets] == [4, 4]       # spec.jobId (JS) is not in the pool
    symmetry = Symmetry(machine.variables, sets)
    assert len({tuple(tuple(sorted(part.items(), key=repr)) for part in perm)
                for perm in symmetry.permutations}) == math.factorial(4) ** 2
