"""The Z3 backend: the spec's own Python, read symbolically, agrees with the explicit engine.

Differential tests against BFS (counterexample depths, successor sets, proofs), the
known traps of reading Python symbolically, and an instance far beyond BFS.
"""
import dataclasses
import enum
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import tomllib
from pathlib import Path
from typing import NamedTuple

import pytest
import z3

from checker.symbolic.rewrite import Compiler
from checker import (Const, Int, Map, Option, Set, Spec, action, choose, constraint,
                     eventually, invariant, require)
from checker.errors import SpecError, where_defined
from checker.explicit.explorer import ExplicitEngine
from checker.options import CheckOptions
from checker.explicit.machine import Machine
from checker.model import load_model
from checker.symbolic.bmc import BMC
from checker.symbolic.certificate import Certifier, certify
from checker.symbolic.cone import Cones
from checker.symbolic.engine import goals
from checker.symbolic.kind import KInduction
from checker.symbolic.paths import PathSolver
from checker.symbolic import pdr
from checker.symbolic.pdr import PDR, _step_out
from checker.symbolic.relation import Relation
from checker.symbolic.store import LemmaStore
from checker.explicit.trace import replay
from examples.diehard import DieHard
from examples.peterson import Peterson
from examples.tcommit import TCommit
from examples.twophase import TwoPhase
from spec.rayjob import mutants
from spec.rayjob.types import Rank
from test_verdicts import EagerCommit
from conftest import interruptible
from test_cli import run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples" / "models").rglob("*.toml"))
# too large to read from an unconstrained state (over ten minutes), as RayJob: read one
# sampled state at a time (test_large_specs_read_in_sampled_states_...)
READ_IN_STATES = [p for p in EXAMPLES if p.stem.startswith("jobcontroller")]
UNCONSTRAINED = [p for p in EXAMPLES if p not in READ_IN_STATES]
SMALLER = {"hanoi": {"D": 3}, "lamportmutex": {"maxClock": 3, "MaxNat": 4}}


def machine_of(path: Path, engine="bmc") -> Machine:
    model = load_model(path, SMALLER.get(path.stem))
    model.engine = engine
    return model.machine()


def check(engine, spec_or_machine, constants=None, **options):
    m = spec_or_machine if isinstance(spec_or_machine, Machine) else Machine(spec_or_machine, constants)
    return {p.name: p for p in engine(m, CheckOptions(**options)).check().properties}


# ---------------------------------------------------------------- the seam

@pytest.mark.parametrize("path", UNCONSTRAINED, ids=lambda p: p.stem)
def test_every_action_and_property_of_every_example_reads_symbolically(path):
    m = machine_of(path)
    rel = Relation(m)
    fired = {s.binding.name for s in rel.steps}
    assert fired == {b.name for b in m.bindings}, "an action has no feasible path"
    for p in m.properties:
        if p.kind in ("invariant", "reachable"):
            rel.formula(p.fn, p.name)
        elif p.kind == "step_invariant":
            rel.step_violations(p)


# ---------------------------------------------------------------- differential: BMC vs BFS

def _explicit(m: Machine):
    return {p.name: p for p in ExplicitEngine(m, CheckOptions(deadlock=True)).check().properties}


@pytest.mark.parametrize("path", [p for p in UNCONSTRAINED
                                  if p.stem not in ("lamportmutex", "hanoi")],
                         ids=lambda p: p.stem)
def test_bmc_finds_each_violation_at_the_bfs_depth_and_none_where_bfs_proves(path):
    m = machine_of(path)
    bfs = _explicit(m)
    depth = max([len(p.trace.steps) - 1 for p in bfs.values() if p.trace] + [4])
    bmc = check(BMC, m, deadlock=True, max_depth=min(depth, 8))
    for name, p in bfs.items():
        if p.kind not in ("invariant", "deadlock", "reachable", "step_invariant"):
            continue
        if p.trace is not None and len(p.trace.steps) - 1 <= 8:
            assert bmc[name].verdict == p.verdict
            assert len(bmc[name].trace.steps) == len(p.trace.steps)
            assert replay(m, bmc[name].trace).ok
        elif p.verdict.value == "holds" and p.kind != "reachable":
            assert bmc[name].verdict.value == "unknown"


def test_diehard_bmc_counterexample_is_the_six_step_solution_and_replays(tmp_path):
    model = ROOT / "examples" / "models" / "diehard.toml"
    result = run(model, "--engine", "bmc", "--traces", tmp_path, "-q")
    assert result.exit_code == 3, result.output          # BMC alone never proves: no deadlock
    assert "no counterexample up to depth 30" in result.output
    trace = tmp_path / "diehard" / "not_solved.itf.json"
    data = json.loads(trace.read_text())
    assert len(data["states"]) == 7 and data["states"][-1]["big"] == {"#bigint": "4"}
    assert data["states"][1]["#meta"]["action"] in ("fill_big_jug", "fill_small_jug")
    assert run("replay", trace, model).exit_code == 0


def _successors(rel: Relation, code: tuple) -> set:
    """All-SAT: every x' with Next(code, x'), decoded as explicit state codes."""
    xs2 = rel.copy("next")
    solver = z3.Solver()
    solver.add(rel.state_is(code), rel.next(xs2))
    found = set()
    while solver.check() == z3.sat:
        model = solver.model()
        found.add(rel.decode(model, xs2))
        solver.add(z3.Or([a != model.eval(a, model_completion=True) for a in xs2]))
    return found


def _sampled(m: Machine, prefix: int, count: int) -> list[tuple]:
    """Every k-th state of a BFS prefix of `prefix` states: `count` reachable states."""
    states = list(m.initial_states())
    frontier = list(states)
    while frontier and len(states) < prefix:
        frontier = list(dict.fromkeys(s for st in frontier for _, _, s in m.successors(st)
                                      if s not in states))
        states += frontier
    return states[::max(1, len(states) // count)][:count]


@pytest.mark.parametrize("path", UNCONSTRAINED, ids=lambda p: p.stem)
def test_symbolic_successors_equal_explicit_successors_on_sampled_states(path):
    m = machine_of(path)
    rel = Relation(m)
    for st in _sampled(m, 40, 12):
        assert _successors(rel, st) == {s for _, _, s in m.successors(st)}


def _bfs_model(path: Path) -> bool:
    """A model file (not the mutants table, nor a matrix of them) with concrete
    constants, as BFS needs."""
    data = tomllib.loads(path.read_text())
    return "spec" in data and "symbolic" not in data and "axes" not in data


RAYJOB = sorted(p for p in (ROOT / "models").rglob("*.toml") if _bfs_model(p))


@pytest.mark.parametrize("path", [p for p in RAYJOB if p.stem == "rayjob"] + [
    pytest.param(p, marks=pytest.mark.slow) for p in RAYJOB if p.stem != "rayjob"]
    + READ_IN_STATES, ids=lambda p: p.stem)
def test_large_specs_read_in_sampled_states_give_the_explicit_successors(path):
    """The whole RayJob relation, and the Job controller's, are too large to read from an
    unconstrained state (see the README); read in one concrete state at a time, every
    action must agree exactly."""
    m = machine_of(path)
    for st in _sampled(m, 1500, 8):
        assert _successors(Relation(m, at=st), st) == {s for _, _, s in m.successors(st)}


@pytest.mark.slow
def test_rayjob_properties_proved_for_every_backoff_limit_and_refuted_on_a_mutant():
    """models/rayjob/proofs/slow/faults.toml: PDR gives the expected verdicts and a certificate
    that re-checks; with retries of every reason (M8) and a deadline, BMC refutes p8
    under the same free constants."""
    model = load_model(ROOT / "models/rayjob/proofs/slow/faults.toml")
    result = PDR(model.machine(), model.options).check()
    assert {p.name: p.verdict for p in result.properties} == model.expect
    assert certify(result.properties[0].certificate, model.machine()) == []
    mutant = Machine(mutants.RetryAllReasons, {**model.constants, "active_deadline": Rank.XLONG},
                     model.groups, symbolic=model.symbolic)
    bad = check(BMC, mutant, properties=["p8_excluded_not_retried"], max_depth=11)
    assert bad["p8_excluded_not_retried"].verdict.value == "violated"


SLOW_PROOFS = sorted(p.stem for p in (ROOT / "models/rayjob/proofs/slow").glob("*.toml")
                         if p.stem != "faults")


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_PROOFS)
def test_every_slow_rayjob_proof_proves_and_certifies(name):
    """Every proof model of models/rayjob/proofs/slow (`faults` has its test
    above) gives the verdicts it expects with PDR, for every backoffLimit (and F), and a
    certificate that re-checks. What
    each proves, in which mode and fault setting, is in README's verdict table and
    docs/symbolic.md; the refutation of each claim in each setting, by a bounded model or a
    mutant, is in models/mutants.toml (checked by tests/test_rayjob.py)."""
    model = load_model(ROOT / f"models/rayjob/proofs/slow/{name}.toml")
    result = PDR(model.machine(), model.options).check()
    assert {p.name: p.verdict for p in result.properties} == model.expect
    assert certify(result.properties[0].certificate, model.machine()) == []


# ---------------------------------------------------------------- differential: proofs vs BFS

@pytest.mark.parametrize("engine", [KInduction, PDR])
def test_proofs_agree_with_bfs_verdicts(engine):
    proved = check(engine, Peterson)["inv"]
    assert proved.verdict.value == "holds"
    assert proved.reason.startswith("1-inductive (inductive)" if engine is KInduction else
                                    f"inductive invariant of {proved.certificate.size} clauses")
    assert check(engine, DieHard)["not_solved"].verdict.value == "violated"
    bad = check(engine, EagerCommit, {"N": 3})["consistent"]
    assert bad.verdict.value == "violated" and len(bad.trace.steps) - 1 == 3
    assert check(engine, Peterson, properties=[], deadlock=True)["deadlock"].verdict.value == \
        "holds"
    stuck = check(engine, TCommit, {"N": 3}, properties=[], deadlock=True)["deadlock"]
    assert stuck.verdict.value == "violated" and len(stuck.trace.steps) - 1 == 3


def test_pdr_proves_consistency_that_kinduction_cannot_and_the_certificate_rechecks(tmp_path):
    proved = check(PDR, TwoPhase, {"N": 3})["consistent"]
    assert proved.verdict.value == "holds" and proved.certificate.size > 1
    assert check(KInduction, TwoPhase, {"N": 3}, max_depth=3)["consistent"].reason == \
        "not k-inductive up to 3"
    model = ROOT / "examples" / "models" / "tcommit.toml"
    assert run(model, "--engine", "pdr", "--traces", tmp_path, "-q").exit_code == 0
    cert = tmp_path / "tcommit" / "tc_consistent.cert.json"
    assert run("certify", cert, model).exit_code == 0
    data = json.loads(cert.read_text())
    data["invariant"] = "true"                     # true is not inductive enough for safety
    cert.write_text(json.dumps(data))
    refused = run("certify", cert, model)
    assert refused.exit_code == 1 and "safety" in refused.output


def test_tcommit_results_match_bfs_with_every_engine():
    bfs = {n: p.verdict for n, p in check(ExplicitEngine, TCommit, {"N": 3}).items()}
    assert check(PDR, TCommit, {"N": 3})["tc_consistent"].verdict == bfs["tc_consistent"]


# ---------------------------------------------------------------- beyond BFS

class WideCounters(Spec):
    """Four counters to 1000 and their running total: 1001^4 > 10^12 reachable states."""

    N = Const(1000, "counter bound", min=1)
    K = Int[1, 4]
    c: Map[K, Int[0, N]] = Map.fill(0)
    total: Int[0, 4 * N] = 0

    @action
    def bump(s, k: K):
        require(s.c[k] < s.N)
        s.c[k] += 1
        s.total += 1

    @invariant
    def total_is_the_sum(s):
        return s.total == sum(s.c.values())


class LeakyCounters(WideCounters):
    """Mutant: a bump at 7 forgets the total."""

    @action
    def bump(s, k: WideCounters.K):
        require(s.c[k] < s.N)
        if s.c[k] != 7:
            s.total += 1
        s.c[k] += 1


def test_more_than_a_billion_states_proved_by_pdr_and_a_deep_bug_found_by_bmc():
    assert check(PDR, WideCounters)["total_is_the_sum"].verdict.value == "holds"
    bad = check(BMC, LeakyCounters, max_depth=10)["total_is_the_sum"]
    assert bad.verdict.value == "violated" and len(bad.trace.steps) - 1 == 8


class Gated(Spec):
    """`level` rises only while `open`; `noise` and its action are outside its cone."""
    level: Int[0, 3] = 0
    open: bool = True
    noise: Int[0, 50] = 0

    @action
    def rise(s):
        require(s.open and s.level < 3)
        s.level += 1
        s.open = s.level < 2

    @action
    def jitter(s):
        s.noise = (s.noise + 7) % 51

    @invariant
    def level_stops_at_two(s):
        return s.level <= 2


class LeakyGate(Gated):
    """Mutant: the gate stays open, so level reaches 3."""

    @action
    def rise(s):
        require(s.open and s.level < 3)
        s.level += 1


def test_a_proof_ranges_over_the_cone_of_its_property_and_rechecks_on_the_whole_spec():
    rel = Relation(Machine(Gated))
    (goal,) = goals(rel, CheckOptions(["level_stops_at_two"]))
    part = Cones(rel).of(goal.bad)
    assert [str(leaf) for leaf in part.flat] == ["level", "open"]
    assert [s.binding.name for s in part.steps] == ["rise"]
    proved = check(PDR, Gated)["level_stops_at_two"]
    assert proved.verdict.value == "holds" and proved.certificate.leaves == ["level", "open"]
    assert certify(proved.certificate, Machine(Gated)) == []
    assert certify(proved.certificate, Machine(LeakyGate)) != []
    bad = check(PDR, LeakyGate)["level_stops_at_two"]
    assert bad.verdict.value == "violated" and len(bad.trace.steps) - 1 == 3


class GatedBelowOne(Gated):
    """A claim the gate's invariant does not imply: level reaches 1 and 2."""

    @invariant
    def level_stays_zero(s):
        return s.level == 0


def test_certificates_sharing_an_invariant_check_it_once_but_each_its_own_safety():
    """PDR's certificates of one model usually share one invariant: certify checks its
    initiation and consecution once, and each property's safety on its own."""
    machine = Machine(GatedBelowOne)
    proved = check(PDR, machine, properties=["level_stops_at_two"])["level_stops_at_two"]
    borrowed = dataclasses.replace(proved.certificate, property="level_stays_zero")
    certifier = Certifier(machine)
    assert certifier.check(proved.certificate) == []
    assert certifier.check(borrowed) == ["safety (Inv => no bad state, no failure)"]
    assert list(certifier.inductive.values()) == [[]]
    leaky = dataclasses.replace(proved.certificate, spec="LeakyGate")
    assert Certifier(Machine(LeakyGate)).check(leaky) == ["consecution (Inv /\\ Next => Inv')"]


# ---------------------------------------------------------------- symbolic constants

class Retries(Spec):
    limit = Const(1, "retries allowed", min=0)
    attempt: Int[0, limit] = 0
    done: bool = False

    @action
    def retry(s):
        require(not s.done and s.attempt < s.limit)
        s.attempt += 1

    @action
    def finish(s):
        s.done = True

    @invariant
    def bounded(s):
        return s.attempt <= s.limit


class RunawayRetries(Retries):
    """Mutant: retries without checking the limit; writing past Int[0, limit] is an error."""

    @action
    def retry(s):
        require(not s.done)
        s.attempt += 1


def test_a_symbolic_constant_is_proved_for_every_value_and_a_domain_overflow_is_an_obligation():
    assert check(PDR, Machine(Retries, symbolic={"limit": ">= 0"}))["bounded"].verdict.value == "holds"
    with pytest.raises(SpecError, match=r"retry writes a value outside its variable's domain "
                                        r"\(from a state reachable in 0 steps\)"):
        check(BMC, Machine(RunawayRetries, symbolic={"limit": ">= 0"}))


def test_pdr_proves_that_no_step_fails_with_the_properties_as_lemmas_and_the_chain_rechecks(
        monkeypatch):
    monkeypatch.setenv("CHECK_MODEL_CACHE", "off")     # each run derives its own lemmas
    proved = check(PDR, WideCounters)["total_is_the_sum"]      # total <= 4N needs the sum
    assert proved.reason == "inductive invariant of 5 clauses, over 5 of 5 leaves"
    assert certify(proved.certificate, Machine(WideCounters)) == []
    assert certify(proved.certificate, Machine(LeakyCounters)) != []
    said = []
    PDR(Machine(WideCounters), CheckOptions(), progress=said.append).check()
    assert said[0].startswith("pdr: the spec as a relation of 5 variables, 4 steps and 4 "
                              "failure conditions")
    assert said[-1] == "pdr: 5 of 5 parts inductive together with 0 of 0 parts of 0 lemmas " \
                        "(Houdini)"
    said.clear()        # `level <= 2` needs `open -> level < 2`, no candidate: Spacer's job
    PDR(Machine(Gated), CheckOptions(), progress=said.append).check()
    assert said[1:] == ["pdr: 0 of 1 parts inductive together with 0 of 0 parts of 0 lemmas "
                        "(Houdini)",
                        "pdr: level_stops_at_two is not inductive with the other candidates: "
                        "rise leads out of it (level: 2 → 3, open: true → false)",
                        "pdr: 1 of 1 parts proved after a pass with 2 s per part"]
    # `bounded` holds on every step that does not fail, but a failing one is reachable
    with pytest.raises(SpecError, match=r"retry writes a value outside its variable's domain"):
        check(PDR, Machine(RunawayRetries, symbolic={"limit": ">= 0"}))


def test_a_step_out_of_a_goal_shows_its_changes_and_what_else_the_goal_reads():
    m = Machine(Gated)
    level, is_open, noise = (v.domain.encode for v in m.variables)
    pre, post = (level(2), is_open(True), noise(5)), (level(3), is_open(False), noise(5))
    reads = 0b101                                       # level and noise
    assert _step_out(m, reads, pre, post) == "level: 2 → 3, open: true → false; with noise = 5"
    assert _step_out(m, -1, pre, post) == "level: 2 → 3, open: true → false"
    # Houdini's state may hold a value outside a domain (nothing says it may not)
    assert _step_out(m, reads, [None, *pre[1:]], post) == \
        "level: (outside its domain) → 3, open: true → false; with noise = 5"


class Mirror(Spec):
    """x and y flip together: each implication alone is not inductive, both together are."""
    x: bool = False
    y: bool = False
    n: Int[0, 1000] = 0

    @action
    def flip(s):
        s.x, s.y = not s.x, not s.y
        s.n = (s.n + 1) % 1001

    @invariant
    def x_implies_y(s):
        return not s.x or s.y

    @invariant
    def y_implies_x(s):
        return not s.y or s.x


class TornMirror(Mirror):
    """Mutant: every 7th flip leaves y behind."""

    @action
    def flip(s):
        s.x = not s.x
        if s.n != 7:
            s.y = not s.y
        s.n = (s.n + 1) % 1001


def test_houdini_proves_invariants_inductive_only_together_and_takes_unchosen_ones_as_lemmas():
    for x in (["x_implies_y", "y_implies_x"], ["x_implies_y"]):
        said = []
        result = PDR(Machine(Mirror), CheckOptions(x), progress=said.append).check()
        assert [p.verdict.value for p in result.properties] == ["holds"] * len(x)
        lemmas = 2 - len(x)
        assert said[-1] == f"pdr: {len(x)} of {len(x)} parts inductive together with " \
                           f"{lemmas} of {lemmas} parts of {lemmas} lemmas (Houdini)"
        assert certify(result.properties[0].certificate, Machine(Mirror)) == []
    assert check(KInduction, Mirror)["x_implies_y"].reason == "2-inductive"     # not alone
    torn = check(PDR, TornMirror)       # the 8th flip leaves y; the 9th, x without y
    assert [(p.verdict.value, len(p.trace.steps) - 1) for p in torn.values()] == \
        [("violated", 9), ("violated", 8)]


class Valve(Spec):
    """`level` rises only while the valve was last seen open, and only maintenance opens
    it. Without maintenance (a constant) `dry` holds, but alone it is not inductive: from
    a state where the valve was seen open it breaks. No step writes `open` then, and
    `seen` is only ever copied from it, so both keep their initial value: value ranges by
    construction, with which Houdini proves `dry`."""
    maintenance = Const(False, "the valve may be opened")
    open: bool = False
    seen: bool = False
    level: Int[0, 3] = 0

    @action
    def open_valve(s):
        require(s.maintenance)
        s.open = True

    @action
    def look(s):
        s.seen = s.open

    @action
    def flow(s):
        require(s.seen and s.level < 3)
        s.level += 1

    @invariant
    def dry(s):
        return s.level == 0


def test_houdini_takes_the_values_no_step_can_change_as_lemmas():
    said = []
    result = PDR(Machine(Valve), CheckOptions(), progress=said.append).check()
    assert result.properties[0].verdict.value == "holds"
    assert said[-1] == "pdr: 1 of 1 parts inductive together with 0 of 0 parts of 0 lemmas " \
                       "and 2 value ranges (Houdini)"
    assert certify(result.properties[0].certificate, Machine(Valve)) == []
    opened = check(PDR, Machine(Valve, constants={"maintenance": True}))["dry"]
    assert opened.verdict.value == "violated" and len(opened.trace.steps) - 1 == 3


class HalfTrueMirror(Mirror):
    """A lemma whose first conjunct is what `y_implies_x` needs, and whose second fails
    after 500 flips: Houdini keeps the first."""

    @invariant
    def x_implies_y(s):
        return (not s.x or s.y) and s.n < 500


def test_houdini_keeps_the_inductive_conjuncts_of_a_lemma_that_fails():
    said = []
    result = PDR(Machine(HalfTrueMirror), CheckOptions(["y_implies_x"]),
                 progress=said.append).check()
    assert result.properties[0].verdict.value == "holds"
    assert said[-2:] == ["pdr: 1 of 1 parts inductive together with 1 of 2 parts of 1 lemmas "
                         "(Houdini)",
                         "pdr: lemmas not inductive here, each with a step that broke it: "
                         "x_implies_y (flip)"]
    assert certify(result.properties[0].certificate, Machine(HalfTrueMirror)) == []


class FewRetries(Retries):
    @invariant
    def at_most_one_retry(s):
        return s.attempt <= 1


def test_a_counterexample_under_a_symbolic_constant_names_its_value():
    bad = check(BMC, Machine(FewRetries, symbolic={"limit": ">= 0"}))["at_most_one_retry"]
    assert bad.verdict.value == "violated" and bad.trace is None
    assert bad.reason.startswith("shortest counterexample with limit = ") and \
        bad.reason.endswith("in 2 steps")
    assert check(PDR, Machine(FewRetries, symbolic={"limit": "<= 1"}))["at_most_one_retry"] \
        .verdict.value == "holds"


def test_model_file_symbolic_constant(tmp_path):
    path = tmp_path / "m.toml"
    path.write_text('spec = "examples.diehard:DieHard"\n[symbolic]\nbig = ">= 0"\n')
    refused = run(path, "-q")
    assert refused.exit_code == 2 and "m.toml:3" in refused.output and "not an int constant" in \
        refused.output
    path.write_text('spec = "tests.test_symbolic:Retries"\n[symbolic]\nlimit = ">= 0"\n')
    explicit = run(path, "-q")
    assert explicit.exit_code == 2 and "m.toml:3" in explicit.output and \
        "the explicit engine does not take symbolic constants ([symbolic] limit; set it in " \
        "[constants] or with -D limit=VALUE)" in explicit.output
    assert run(path, "--engine", "pdr", "-q", "--traces", tmp_path).exit_code == 0


class Capped(Retries):
    limit = Const(1, "retries allowed", min=0, max=10)


def _symbolic_model(tmp_path, constraint, spec="Capped", engine="kind") -> Path:
    path = tmp_path / "m.toml"
    path.write_text(f'spec = "tests.test_symbolic:{spec}"\n[check]\nengine = "{engine}"\n'
                    f'[symbolic]\nlimit = {constraint}\n')
    return path


@pytest.mark.parametrize("engine", ["bmc", "kind", "pdr"])
@pytest.mark.parametrize("constraint", ['"<= -1"', '">= 5 and <= 1"', '">= 20"'])
def test_a_symbolic_constant_with_no_legal_value_is_an_error_not_a_vacuous_proof(
        tmp_path, constraint, engine):
    """Const(min=0, max=10) bounds the symbolic value as it bounds a concrete one."""
    refused = run(_symbolic_model(tmp_path, constraint, engine=engine), "-q")
    assert refused.exit_code == 2 and refused.output.count("\n") == 1
    assert f"m.toml:5: [symbolic] limit = {constraint} allows no value (the spec declares " \
           f"limit >= 0 and <= 10)" in refused.output


@pytest.mark.parametrize("constraint", ['">= banana"', '""', '">= 0 or <= 5"', '">= 1.5"'])
def test_an_unreadable_symbolic_constraint_is_one_line_naming_its_line(tmp_path, constraint):
    refused = run(_symbolic_model(tmp_path, constraint), "-q")
    assert refused.exit_code == 2 and refused.output.count("\n") == 1
    assert f"m.toml:5: [symbolic] limit: cannot read '{constraint[1:-1]}'" in refused.output


def test_a_proof_says_which_constant_values_it_covers(tmp_path):
    out = tmp_path / "r.json"
    result = run(_symbolic_model(tmp_path, '">= 2 and != 4"'), "-q", "-v", "--json", out)
    assert result.exit_code == 0
    covers = "for every limit >= 2 and <= 10 and != 4"
    assert f"1-inductive (inductive), {covers}" in result.output            # in the -v table
    data = json.loads(out.read_text())
    assert data["constants"] == {"limit": "symbolic (>= 2 and <= 10 and != 4)"}
    assert data["properties"][0]["reason"] == f"1-inductive (inductive), {covers}"
    proved = check(PDR, Machine(Capped, symbolic={"limit": "any"}))["bounded"]
    assert proved.reason.endswith(", for every limit >= 0 and <= 10")


class Unbounded(Spec):
    """No min: for limit < 0, Int[0, limit] is empty, and so is the set of initial states."""
    limit = Const(1)
    attempt: Int[0, limit] = 0

    @invariant
    def small(s):
        return s.attempt <= 5


class Excluded(Unbounded):
    @constraint
    def started(s):
        return s.attempt > 0


@pytest.mark.parametrize("engine", [BMC, KInduction, PDR])
def test_no_initial_state_is_an_error_not_a_vacuous_proof(tmp_path, engine):
    refused = run(_symbolic_model(tmp_path, '"<= -1"', spec="Unbounded", engine=engine.name),
                  "-q")
    assert refused.exit_code == 2 and refused.output.count("\n") == 1
    assert "m.toml: [symbolic] no initial state, for every limit <= -1: the spec's initial " \
           "values, domains and constraints exclude them all" in refused.output
    with pytest.raises(SpecError, match=": no initial state: the spec's initial values") as e:
        check(engine, Excluded)
    assert e.value.where == where_defined(Excluded)
    assert check(engine, Unbounded, max_depth=2)["small"].verdict.value != "violated"


class Finishes(Retries):
    @eventually
    def finished(s):
        return s.done


@pytest.mark.parametrize("engine", [BMC, KInduction, PDR])
def test_liveness_is_refused_before_the_spec_is_read_symbolically(engine, monkeypatch):
    def expensive(machine):
        raise AssertionError("the relation was built")
    monkeypatch.setattr("checker.symbolic.engine.Relation", expensive)
    (refused,) = engine(Machine(Finishes), CheckOptions(["finished"])).check().properties
    assert refused.verdict.value == "unknown" and \
        refused.reason == f"liveness is not supported by the {engine.name} engine"


SLOW_SPEC = """
from checker import Const, Spec, action, invariant


class Factors(Spec):
    a = Const(2)
    b = Const(2)
    done: bool = False

    @action
    def finish(s):
        s.done = True

    @invariant
    def quick(s):
        return s.a != 7 or s.b != 7 or not s.done

    @invariant
    def unfactored(s):          # Z3 must factor a 40-bit semiprime: minutes
        return s.a * s.b != 1000003 * 1000033
"""


def test_ctrl_c_ends_a_symbolic_run_at_once_with_what_was_decided(tmp_path):
    """SIGINT while Z3 is deep in a call: within a second or two, the undecided properties
    are unknown ("interrupted (Ctrl-C)"), exit 3; what was decided before stays (kind
    refutes `quick` before it gets stuck on `unfactored`); nothing on stderr but progress."""
    (tmp_path / "factors.py").write_text(SLOW_SPEC)
    (tmp_path / "m.toml").write_text('spec = "factors:Factors"\n[symbolic]\na = ">= 2"\n'
                                     'b = ">= 2"\n[expect]\nquick = "violated"\n')
    runs = {engine: subprocess.Popen(
        [sys.executable, "-c", "from checker.cli import main; main()", "m.toml", "--engine",
         engine, "--traces", "traces", "-v"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
        for engine in ("bmc", "kind", "pdr")}
    try:
        for process in runs.values():
            assert "the spec as a relation" in process.stderr.readline()
        time.sleep(1)
        for process in runs.values():
            process.send_signal(signal.SIGINT)
        signalled = time.perf_counter()
        for engine, process in runs.items():
            out, err = process.communicate(timeout=10)
            assert time.perf_counter() - signalled < 5
            assert process.returncode == 3, out + err
            assert err.strip() == "", err
            rows = {line.split()[1]: line for line in out.splitlines() if line.startswith("│")}
            assert "interrupted (Ctrl-C)" in rows["unfactored"]
            assert ("violated" if engine == "kind" else "interrupted (Ctrl-C)") in rows["quick"]
    finally:
        for process in runs.values():       # those still running when an assertion failed
            process.kill()
            process.wait()


CANCELED_PUSH = """
import os, signal, time, z3
from checker.symbolic.interrupt import ctrl_c_interrupts_z3

signal.signal(signal.SIGINT, signal.default_int_handler)
solver = z3.Solver()
try:
    with ctrl_c_interrupts_z3():
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100):            # until the watcher has interrupted Z3
            time.sleep(0.05)
            solver.push()
            solver.pop()
except KeyboardInterrupt:
    print("interrupted")
"""


def test_ctrl_c_during_a_z3_call_that_is_no_check_is_the_interrupt():
    """Z3 cancels a push (a simplification, ...) once interrupted, with an error ("push
    canceled", which RayJob's bmc met while reading the spec): after Ctrl-C it is the
    interrupt (exit 3 from the engines), not an internal error."""
    done = subprocess.run([sys.executable, "-c", CANCELED_PUSH], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.stdout.strip() == "interrupted", done.stdout + done.stderr


@pytest.fixture(scope="module")
def certificate():
    """A proof of Finishes' invariant, for every limit >= 0."""
    return check(PDR, Machine(Finishes, symbolic={"limit": ">= 0"}))["bounded"].certificate


@pytest.mark.parametrize("change, message", [
    ({"invariant": "(<= attempt"}, "the invariant is not one SMT-LIB formula over the spec's "
                                   "variables (invalid assert command, ')' expected)"),
    ({"invariant": "(<= attempt nope)"}, "(unknown constant nope)"),
    ({"invariant": "(<= attempt |no\x1cpe|)"}, "(unknown constant no\\x1cpe)"),  # one line
    ({"invariant": "(+ attempt 1)"}, "(invalid assert command, term is not Boolean)"),
    ({"invariant": "true) (assert false"}, "(2 formulas)"),
    ({"invariant": 5}, "'invariant' must be a JSON string, got 5"),
    ({"leaves": [1]}, "'leaves' must be a list of strings, got [1]"),
    ({"size": None}, "'size' must be a JSON integer, got null"),
    ({"extra": 1}, "unknown key 'extra' in the certificate"),
    ({"property": "nope"}, "the spec has no property 'nope' that a proof decides"),
    ({"property": "finished"}, "the spec has no property 'finished' that a proof decides"),
])
def test_a_malformed_certificate_is_one_line_naming_it(tmp_path, certificate, change, message):
    model = _symbolic_model(tmp_path, '">= 0"', spec="Finishes", engine="pdr")
    cert = tmp_path / "c.json"
    cert.write_text(json.dumps(certificate.to_json()))
    assert run("certify", cert, model).exit_code == 0
    cert.write_text(json.dumps({**certificate.to_json(), **change}))
    refused = run("certify", cert, model)
    assert refused.exit_code == 2 and refused.output.count("\n") == 1
    assert refused.output.startswith(f"error: {cert}: ") and message in refused.output


@pytest.mark.parametrize("content, message", [
    (b"[1, 2]", "not a check-model certificate"),
    (bytes(range(256)), "cannot read the certificate: 'utf-8' codec can't decode"),
    (b"[" * 100_000, "cannot read the certificate"),
], ids=["list", "binary", "deep"])
def test_a_certificate_that_is_no_json_object_is_one_line_naming_it(tmp_path, content, message):
    cert = tmp_path / "c.json"
    cert.write_bytes(content)
    refused = run("certify", cert, _symbolic_model(tmp_path, '">= 0"', engine="pdr"))
    assert refused.exit_code == 2 and f"error: {cert}: {message}" in refused.output


# ---------------------------------------------------------------- traps

class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Pair(NamedTuple):
    a: Int[0, 3]
    b: Int[0, 3]


class Traps(Spec):
    x: Int[-4, 4] = -3
    color: Color = Color.RED
    p: Pair = Pair(0, 0)
    q: Pair = Pair(0, 0)
    seen: Set[Int[0, 9]] = frozenset({1, 2})
    maybe: Option[Color] = Color.RED

    @action
    def identity_of_enum(s):
        require(s.color is Color.RED)           # identity of a singleton is its value
        s.color = Color.GREEN

    @action
    def floor_division(s):
        """Python floors: -3 // 2 == -2 and -3 % 2 == 1; Z3's div alone would say -1 and 1."""
        s.x = s.x // 2 + s.x % 3 - (s.x // -3)

    @action
    def table_lookup(s):
        s.x = {Color.RED: 1, Color.GREEN: -1}[s.color] + len(range(s.p.a))

    @action
    def count_members(s):
        s.x = len(s.seen) - 4

    @action
    def value_against_option(s):
        """An enum compared with an Option of enums: the Option decides (RayJob's bug)."""
        if s.color is s.maybe:
            s.maybe = None

    @action
    def types_of_values(s):
        """`type()` of a symbolic value is the type it stands for, not its wrapper's."""
        require(type(s.color) is Color and type(s.x) is int and type(s.x < 0) is bool)
        s.color = Color.GREEN if type(s.maybe) is Color else Color.RED


class IdentityOfRecords(Traps):
    @action
    def identity_of_enum(s):
        require(s.p is s.q)


class MatchOnState(Traps):
    @action
    def identity_of_enum(s):
        match s.color:
            case Color.RED:
                s.x = 0


class LoopOverSet(Traps):
    """Iterating a symbolic set decides membership of each element: 2^10 paths."""

    @action
    def count_members(s):
        s.x = min(4, sum(1 for _ in s.seen))


def test_is_on_singletons_floor_division_lookups_len_and_type_agree_with_explicit():
    m = Machine(Traps)
    rel = Relation(m)
    frontier = m.initial_states()
    for _ in range(3):
        for st in frontier:
            assert _successors(rel, st) == {s for _, _, s in m.successors(st)}
        frontier = [s for st in frontier for _, _, s in m.successors(st)]


class Parent(Spec):
    slot: Option[Int[1, 2]] = None
    x: Int[0, 2] = 0

    @action
    def fill(s):
        require(s.slot is None and s.x < 2)
        s.x += 1


class Child(Parent):
    """Overrides with `super()`: the override closes over `__class__`, and the parent's
    method it calls reads a symbolic Option with `is`; both must be read symbolically
    (before, neither was recompiled and every step silently disappeared)."""
    busy: bool = False

    @action
    def fill(s):
        require(not s.busy)
        super().fill()
        s.busy = s.x == 2


class Reached:
    """Spec code reached by no name of the spec's module: through a class."""

    @staticmethod
    def empty(slot):
        return slot is None


class ByClassName(Parent):
    """The parent's action called by its class's name, not `super()` (before, it ran as
    Python's own, its `is` read False on a symbolic Option, and the step vanished)."""

    @action
    def fill(s):
        Parent.fill(s)


class ThroughAClass(Parent):
    @action
    def fill(s):
        require(Reached.empty(s.slot) and s.x < 2)
        s.x += 1


class AsAnArgument(Parent):
    """A spec function handed to a builtin, which calls it."""

    @action
    def fill(s):
        require(all(map(Reached.empty, [s.slot])) and s.x < 2)
        s.x += 1


class Slot(NamedTuple):
    v: Option[Int[1, 2]] = None

    def empty(self):
        return self.v is None


class ARecordsMethod(Spec):
    rec: Slot = Slot()
    x: Int[0, 2] = 0

    @action
    def fill(s):
        require(s.rec.empty() and s.x < 2)
        s.x += 1


@pytest.mark.parametrize("spec", [Child, ByClassName, ThroughAClass, AsAnArgument, ARecordsMethod])
def test_spec_code_reached_other_than_by_name_reads_as_the_explicit_engine_runs_it(spec):
    """An override calling `super()`, a call by class name, through a class, a function
    handed to a builtin, a record's method: each is read recompiled, so each step is there."""
    m = Machine(spec)
    rel = Relation(m)
    frontier, seen = m.initial_states(), 0
    while frontier:
        for st in frontier:
            assert _successors(rel, st) == {s for _, _, s in m.successors(st)}
        seen += len(frontier)
        frontier = [s for st in frontier for _, _, s in m.successors(st)]
    assert seen == 3


is_empty = lambda slot: slot is None     # noqa: E731 (a lambda on purpose: no def to recompile)


class ALambda(Parent):
    @action
    def fill(s):
        require(is_empty(s.slot) and s.x < 2)
        s.x += 1


class Flagged(NamedTuple):
    v: Option[Int[1, 2]] = None

    @property
    def empty(self):
        return self.v is None


class ARecordsProperty(Spec):
    rec: Flagged = Flagged()
    x: Int[0, 2] = 0

    @action
    def fill(s):
        require(s.rec.empty and s.x < 2)
        s.x += 1


@pytest.mark.parametrize("spec, message, code", [
    (ALambda, r"<lambda> uses `is` or `match` and its source cannot be recompiled",
     is_empty.__code__),
    (ARecordsProperty, r"Flagged.empty uses `is` or `match` on a record", Flagged.empty.fget.__code__),
])
def test_spec_code_the_reader_cannot_recompile_is_refused_at_its_line(spec, message, code):
    """What would compare by identity where no call of the spec's reaches it to
    recompile is refused at its line, never read as a smaller relation."""
    with pytest.raises(SpecError, match=message) as e:
        Relation(Machine(spec))
    assert e.value.where == f"{__file__}:{code.co_firstlineno}"


class ShortCircuit(Spec):
    """A helper with a side effect in the right operand of `and` / `or`: Python runs it
    only where the left operand does not decide (RayJob's `sub_submit`)."""
    a: bool = False
    n: Int[0, 3] = 0

    @action
    def submit_if_up(s):
        if s.a and s._claim(1):
            s.n = 3

    @action
    def claim_unless_up(s):
        if s.a or s._claim(2):
            s.a = False

    @action
    def flip(s):
        s.a = not s.a

    def _claim(s, v):
        s.n = v
        return s.n == 2


def test_a_side_effect_in_a_short_circuited_operand_happens_only_where_python_runs_it():
    m = Machine(ShortCircuit)
    rel = Relation(m)
    for st in [(a, n) for a in (0, 1) for n in range(4)]:
        assert _successors(rel, st) == {s for _, _, s in m.successors(st)}


@pytest.mark.parametrize("variant, message", [
    (IdentityOfRecords, r"`is` between values that are symbolic"),
    (MatchOnState, r"`match` on a value that is symbolic"),
])
def test_identity_and_match_on_symbolic_values_are_flagged_at_the_spec_line(variant, message):
    with pytest.raises(SpecError, match=message) as e:
        Relation(Machine(variant))
    assert e.value.where.startswith(__file__ + ":")


class WideLookup(Spec):
    n: Int[0, 99] = 0

    @action
    def square(s):
        s.n = [i * i % 100 for i in range(100)][s.n]      # a list indexed by a symbolic int


def test_a_lookup_keyed_by_a_symbolic_value_forks_over_at_most_64_values():
    with pytest.raises(SpecError, match="takes more than 64 values") as e:
        Relation(Machine(WideLookup))
    assert e.value.where.startswith(__file__ + ":")


def test_a_loop_over_a_symbolic_set_is_capped_with_the_line(monkeypatch):
    import checker.symbolic.paths as paths
    monkeypatch.setattr(paths, "MAX_PATHS", 200)
    with pytest.raises(SpecError, match="more than 200 paths") as e:
        Relation(Machine(LoopOverSet))
    assert e.value.where.startswith(__file__ + ":")


# ---------------------------------------------------------------- helper calls merged

Level = Int[0, 3]


class Helpers(Spec):
    level: Map[Int[0, 3], Level] = {i: 0 for i in range(4)}
    cursor: Int[0, 4] = 0                   # 4 is one past the map's keys
    spill: Int[0, 9] = 0

    @action
    def bump_all(s):
        """Four helper calls of two paths each: one path, not 16, once merged."""
        for i in range(4):
            s._bump(i)

    def _bump(s, i):
        if s.level[i] < 3:
            s.level[i] += 1
        else:
            s.spill = min(9, s.spill + 1)

    @action
    def poke(s):
        """A read and a write at a symbolic key: one if-then-else term, not a path per key."""
        require(s.cursor < 4)
        s.level[s.cursor] = s._lowered(s.level[s.cursor])

    @staticmethod
    def _lowered(v):
        return v - 1 if v > 0 else 3

    @action
    def move(s):
        s.cursor = (s.cursor + 1) % 5

    @action
    def pick(s):
        """A helper that chooses forks the caller: each choice is its own labelled step."""
        s._reset_one()

    def _reset_one(s):
        i = choose(range(4))
        if s.level[i] > 0:
            s.level[i] = 0

    @action
    def tally(s):
        """A helper that edits a list the scratch does not hold runs in the caller's path."""
        full = []
        for i in range(4):
            s._collect(full, i)
        s.spill = len(full) + s.spill % 5

    def _collect(s, into: list, i):
        if s.level[i] == 3:
            into.append(i)


def _paths_of(rel: Relation, action_name: str) -> list:
    return [step for step in rel.steps if step.binding.name == action_name]


def test_merged_helper_calls_read_as_one_path_and_agree_with_explicit():
    m = Machine(Helpers)
    rel = Relation(m)
    assert len(_paths_of(rel, "bump_all")) == 1
    assert len(_paths_of(rel, "poke")) == 1
    picks = _paths_of(rel, "pick")                          # not merged: choice x branch
    assert len(picks) == 8 and {tuple(step.choices) for step in picks} == {(0,), (1,), (2,), (3,)}
    assert len(_paths_of(rel, "tally")) == 16               # run in the caller, forked
    for st in _sampled(m, 400, 16):
        assert _successors(rel, st) == {s for _, _, s in m.successors(st)}


class Overrun(Helpers):
    @action
    def poke(s):
        s.level[s.cursor] = s._lowered(s.level[s.cursor])


def test_a_symbolic_key_that_may_be_no_key_is_a_keyerror_where_it_is_reachable():
    with pytest.raises(SpecError, match=r"poke raised KeyError.*reachable in 4 steps"):
        check(BMC, Machine(Overrun), max_depth=6, deadlock=True)
    explicit = ExplicitEngine(Machine(Overrun), CheckOptions(deadlock=True))
    with pytest.raises(SpecError, match="KeyError"):
        explicit.check()


class NoneField(Spec):
    """Reads a field of an Option that a step leaves None."""
    pair: Option[Pair] = Pair(0, 0)

    @action
    def drop(s):
        s.pair = None

    @action
    def read(s):
        s.pair = Pair(s.pair.a, 1)       # AttributeError once dropped


def test_a_reachable_error_on_a_none_names_the_spec_line_not_the_engine():
    with pytest.raises(SpecError) as e:
        check(BMC, Machine(NoneField), max_depth=3)
    line = NoneField.read.__code__.co_firstlineno + 2
    assert "read raised AttributeError" in e.value.message and \
        e.value.where == f"{__file__}:{line}"


class CachedRead(Spec):
    """A helper returning a tuple of symbolic values from two paths (the library's `_read`)."""
    cur: Option[Pair] = Pair(0, 0)
    prev: Option[Pair] = None
    behind: bool = False
    seen: Option[Pair] = None

    @action
    def read(s):
        h, lag = s._read()
        if h is None:
            s.seen = None
            return
        s.seen = Pair(h.a, lag)

    def _read(s):
        if s.behind:
            return s.prev, 1
        s.prev = None
        return s.cur, 0

    @action
    def write(s, a: Int[0, 3]):
        s.prev, s.cur, s.behind = s.cur, (Pair(a, a) if a else None), True


def test_merging_two_paths_never_forks_the_caller_nor_invents_a_failure():
    m = Machine(CachedRead)
    rel = Relation(m)
    assert rel.failures == [] and len(_paths_of(rel, "read")) == 2     # h is None or not
    states = m.initial_states()
    for _ in range(4):
        states = list(dict.fromkeys(states + [s for st in states for _, _, s in m.successors(st)]))
    for st in states:
        assert _successors(rel, st) == {s for _, _, s in m.successors(st)}


class AgedCounters(Spec):
    """RayJob's per-attempt ghosts: a counter bumped at the key a helper returns (or None)."""
    attempted: bool = False
    creates: Map[Color, Int[0, 2]] = Map.fill(0)

    @staticmethod
    def _bump(counter, key):
        if key is not None:
            counter[key] = min(counter[key] + 1, 2)

    def _current(s):
        return Color.RED if s.attempted else None

    @action
    def start(s):
        s.attempted = True

    @action
    def create(s):
        s._bump(s.creates, s._current())


class Tagged(NamedTuple):
    tags: Set[Color] = frozenset()


class TaggedRecord(Spec):
    """A helper run with a record holding a set in the state (the Job controller's Job
    status): the merged call's memo keys the state, set included."""
    rec: Tagged = Tagged()

    def _tag(s, c: Color):
        s.rec = s.rec._replace(tags=s.rec.tags | {c})

    @action
    def tag(s, c: Color):
        require(c not in s.rec.tags)
        s._tag(c)


def test_a_helper_called_with_a_record_holding_a_set_reads_symbolically():
    m = Machine(TaggedRecord)
    rel = Relation(m)
    assert rel.failures == [] and {s.binding.name for s in rel.steps} == {
        b.name for b in m.bindings}
    for st in _sampled(m, 50, 10):
        assert _successors(rel, st) == {s for _, _, s in m.successors(st)}


def test_a_read_at_a_symbolic_key_is_the_value_stored_there():
    m = Machine(AgedCounters)
    rel = Relation(m)
    assert rel.failures == []
    for st in _sampled(m, 50, 10):
        assert _successors(rel, st) == {s for _, _, s in m.successors(st)}


def test_a_helper_another_module_imports_is_translated_in_its_own_module_too(tmp_path, monkeypatch):
    """Reading `f` (module one) first translates `is_none` (module two) while module two's
    namespace is being built: that namespace must end up with the translated helper too,
    or `g` there compares symbolic values by identity (a wrong formula, silently)."""
    (tmp_path / "helpers_two.py").write_text(textwrap.dedent("""
        def is_none(x):
            return x is None

        def g(v):
            return is_none(v)
    """))
    (tmp_path / "helpers_one.py").write_text(textwrap.dedent("""
        from helpers_two import is_none

        def f(v):
            return is_none(v)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    import helpers_one
    import helpers_two
    compiler = Compiler()
    compiler.function(helpers_one.f)
    g = compiler.function(helpers_two.g)
    assert g.__globals__["is_none"] is compiler.function(helpers_two.is_none)
    assert g.__globals__["is_none"] is not helpers_two.is_none


def test_the_path_solver_answers_as_a_fresh_solver_whatever_the_previous_checks():
    """It keeps the conditions shared with the previous check asserted: a check after a
    longer, a shorter or a diverging list of conditions must answer as a fresh solver."""
    x, y = z3.Ints("x y")
    facts = [x >= 0, y >= 0]
    a, b, c, d = x > 3, y > x, x + y < 5, y < 2
    path = PathSolver(*facts)
    for conditions in [[a], [a, b], [a, b, c], [a, b], [a, d], [a, d, b], [c], [c, d],
                       [], [a, c], [a, b, c], [b, d], [b, d, a]]:
        fresh = z3.Solver()
        fresh.add(*facts, *conditions)
        assert path.check(*conditions) == fresh.check(), conditions
    assert path.check(a, b, c) == z3.unsat and path.check(a, d) == z3.sat
    assert path.model().eval(x).as_long() > 3


SET_MEMBERSHIP = '''
import enum
from checker import Spec, action
from checker.explicit.machine import Machine
from checker.symbolic.relation import Relation
from checker.symbolic.store import LemmaStore

Phase = enum.Enum("Phase", "NEW INITIALIZING RUNNING RETRYING COMPLETE FAILED SUSPENDED")
LIVE = frozenset({Phase.NEW, Phase.INITIALIZING, Phase.RUNNING, Phase.RETRYING})

class Phases(Spec):
    phase: Phase = Phase.NEW
    live: bool = True

    @action
    def note(s):
        s.live = s.phase in LIVE

rel = Relation(Machine(Phases))
print("\\n".join(term.sexpr() for step in rel.steps for term in step.next))
'''


def test_a_spec_reads_to_the_same_relation_whatever_the_hash_seed(tmp_path):
    """`x in a_frozenset` of enums (whose order hangs on PYTHONHASHSEED) reads in one
    order: a proof's formulas, and so its time, do not change from run to run."""
    script = tmp_path / "phases.py"
    script.write_text(SET_MEMBERSHIP)

    def read(seed: str) -> str:
        return subprocess.run([sys.executable, str(script)], capture_output=True,
                              text=True, check=True, cwd=ROOT,
                              env={**os.environ, "PYTHONHASHSEED": seed,
                                   "PYTHONPATH": str(ROOT)}).stdout
    readings = {read(seed) for seed in ("1", "2", "3", "4")}
    assert len(readings) == 1 and "or" in readings.pop()


class Stage(enum.Enum):
    CUR = 1
    PREV = 2
    OLD = 3


OLDER = {Stage.CUR: Stage.PREV, Stage.PREV: Stage.OLD, Stage.OLD: Stage.OLD, None: None}
RANK = {Stage.CUR: 0, Stage.PREV: 1}                # no OLD: a KeyError there
STEP_NAME = {Stage.CUR: "_cur", Stage.PREV: "_prev", Stage.OLD: "_old"}


class Tables(Spec):
    """Constant dicts read at a symbolic key (RayJob's `OLDER[s.att]`, the library's
    `CALL_STEPS[s.pc]`)."""
    att: Option[Stage] = None
    calls: Int[0, 3] = 0

    @action
    def begin(s):
        s.att = Stage.CUR

    @action
    def age(s):
        """A table of scalars: one if-then-else term, not a path per value of `att`."""
        s.att = OLDER[s.att]

    @action
    def call(s):
        """Method names (strings, no term holds them): a path per value, as before."""
        require(s.att is not None)
        getattr(s, STEP_NAME[s.att])()

    def _cur(s):
        s.calls = 1

    def _prev(s):
        s.calls = 2

    def _old(s):
        s.calls = 3


class TablesWithGap(Tables):
    rank: Int[0, 1] = 0

    @action
    def rank_it(s):
        """A key that may be no key: the KeyError stays a failure where `att` is OLD."""
        require(s.att is not None)
        s.rank = RANK[s.att]


def test_a_constant_table_at_a_symbolic_key_is_one_term_and_agrees_with_explicit():
    m = Machine(Tables)
    rel = Relation(m)
    assert len(_paths_of(rel, "age")) == 1
    assert len(_paths_of(rel, "call")) == 3
    for st in _sampled(m, 100, 12):
        assert _successors(rel, st) == {s for _, _, s in m.successors(st)}
    gap = Machine(TablesWithGap)
    assert len(_paths_of(Relation(gap), "rank_it")) == 2    # CUR, PREV; OLD raises
    with pytest.raises(SpecError, match=r"rank_it raised KeyError.*reachable in 3 steps"):
        check(BMC, gap, max_depth=5, deadlock=True)


class Dials(Spec):
    """Two dials: `a` and `b` turn together, `c` alone. Of the lemmas, `same` is
    inductive and carries `b_bounded`; each `c_below_*` falls at its own value of `c`, so
    Houdini needs a round for each."""
    a: Int[0, 9] = 0
    b: Int[0, 9] = 0
    c: Int[0, 9] = 0

    @action
    def turn(s):
        require(s.a < 5)
        s.a, s.b = s.a + 1, s.b + 1

    @action
    def spin(s):
        require(s.c < 9)
        s.c += 1

    @invariant
    def b_bounded(s):
        return s.b <= 5

    @invariant
    def same(s):
        return s.a == s.b

    @invariant
    def c_below_3(s):
        return s.c < 3

    @invariant
    def c_below_6(s):
        return s.c < 6


def test_houdini_finds_the_same_invariant_on_its_kept_solver_and_on_fresh_ones(monkeypatch):
    """Houdini's rounds first ask one solver kept across rounds (`QUICK` seconds), then a
    fresh one: with the kept one or without, the same lemmas fall and the same proof."""
    monkeypatch.setenv("CHECK_MODEL_CACHE", "off")      # each run derives its lemmas
    said = {}
    for quick in (pdr.QUICK, 0):
        monkeypatch.setattr(pdr, "QUICK", quick)
        said[quick] = []
        result = PDR(Machine(Dials), CheckOptions(["b_bounded"]),
                     progress=said[quick].append).check()
        assert result.properties[0].verdict.value == "holds"
        assert certify(result.properties[0].certificate, Machine(Dials)) == []
    assert said[pdr.QUICK][-3:] == said[0][-3:] == [
        "pdr: 2 of 2 parts inductive together with 1 of 3 parts of 3 lemmas (Houdini)",
        "pdr: lemmas not inductive here, each with a step that broke it: c_below_3 (spin), "
        "c_below_6 (spin)",
        "pdr: lemmas of which no part is kept: c_below_3, c_below_6"]


def test_with_lemmas_named_houdinis_first_round_goes_to_a_fresh_solver(monkeypatch):
    """A model that names its lemmas expects Houdini's first round to be its last, which
    the kept solver is slow to answer: that round goes to a fresh one at once, the others
    to the kept one (on so small a spec it answers each in time); the same lemmas fall."""
    fresh = []
    made = pdr._preprocessing_solver
    monkeypatch.setattr(pdr, "_preprocessing_solver", lambda: fresh.append(1) or made())
    said = {}
    for lemmas in (None, ["same", "c_*"]):
        fresh.clear()
        said[bool(lemmas)] = []
        result = PDR(Machine(Dials), CheckOptions(["b_bounded"], lemmas=lemmas),
                     progress=said[bool(lemmas)].append).check()
        assert result.properties[0].verdict.value == "holds"
        assert len(fresh) == (1 if lemmas else 0)
    assert said[True][-2:] == said[False][-2:]


class DialsDrift(Dials):
    """Mutant: `turn` moves `b` alone, so `same` fails and `b` passes 5."""
    @action
    def turn(s):
        require(s.b < 9)
        s.b += 1


def _dials(monkeypatch, cache, spec=Dials) -> tuple:
    """(verdict, certificate, progress lines, fresh solvers made) of proving `b_bounded`
    with the caches in `cache`."""
    monkeypatch.setenv("CHECK_MODEL_CACHE", str(cache))
    fresh, said = [], []
    made = pdr._preprocessing_solver
    monkeypatch.setattr(pdr, "_preprocessing_solver", lambda: fresh.append(1) or made())
    result = PDR(Machine(spec), CheckOptions(["b_bounded"]), progress=said.append).check()
    found = result.properties[0]
    return found.verdict.value, getattr(found, "certificate", None), said, len(fresh)


def _lemma_entry(cache) -> Path:
    (entry,) = (cache / "lemmas").glob("*.json")
    return entry


def test_a_second_proof_starts_from_the_lemmas_houdini_derived_and_needs_one_query(
        tmp_path, monkeypatch):
    """The first run derives the lemmas (every invariant a candidate: `c_below_*` fall) and
    stores what Houdini kept; the second starts from that alone, reads no other lemma, and
    shows it inductive in its first round, on a fresh solver: the same proof."""
    verdict, cert, said, _ = _dials(monkeypatch, tmp_path)
    assert verdict == "holds" and "pdr: lemmas of which no part is kept: c_below_3, " \
                                  "c_below_6" in said
    kept = json.loads(_lemma_entry(tmp_path).read_text())["kept"]
    assert ["lemma", "same", 0] in kept and not any("c_below" in str(c) for c in kept)
    verdict, again, said, fresh = _dials(monkeypatch, tmp_path)
    assert verdict == "holds" and fresh == 1
    assert said[1:3] == ["pdr: Houdini starts from the 3 candidates it kept before on this "
                         "spec and these settings (the lemma cache)",
                         "pdr: 2 of 2 parts inductive together with 1 of 1 parts of 1 lemmas "
                         "(Houdini)"]
    assert again.invariant == cert.invariant
    assert certify(again, Machine(Dials)) == []


@pytest.mark.parametrize("damage", ["a lemma that falls", "an unknown lemma", "not json",
                                    "another key"])
def test_a_stale_or_garbled_lemma_entry_is_derived_again_never_trusted(tmp_path, monkeypatch,
                                                                       damage):
    """An entry whose candidates are not exactly inductive together (one falls, or names
    no candidate) is stale: Houdini starts again from every candidate and stores the
    right set; one that cannot be read, or is of another key, is no entry."""
    _dials(monkeypatch, tmp_path)
    entry = _lemma_entry(tmp_path)
    good = json.loads(entry.read_text())
    bad = dict(good)
    if damage == "a lemma that falls":
        bad["kept"] = good["kept"] + [["lemma", "c_below_3", 0]]
    elif damage == "an unknown lemma":
        bad["kept"] = good["kept"] + [["lemma", "no_such_lemma", 0]]
    elif damage == "another key":
        bad["key"] = "0" * 64
    entry.write_text("{not json" if damage == "not json" else json.dumps(bad))
    verdict, cert, said, _ = _dials(monkeypatch, tmp_path)
    assert verdict == "holds" and certify(cert, Machine(Dials)) == []
    stale = "pdr: the lemma cache's candidates are not inductive together here: Houdini " \
            "starts again from every candidate"
    assert (stale in said) == (damage in ("a lemma that falls", "an unknown lemma"))
    assert "pdr: lemmas of which no part is kept: c_below_3, c_below_6" in said
    assert json.loads(entry.read_text()) == good


def test_the_lemma_cache_is_keyed_by_the_spec_and_settings_and_a_mutant_is_refuted(
        tmp_path, monkeypatch):
    """Another spec, other goals, other constants or lemma patterns are other entries: the
    mutant beside Dials's entry derives its own and is refuted, not proved."""
    assert _dials(monkeypatch, tmp_path)[0] == "holds"
    verdict, _, said, _ = _dials(monkeypatch, tmp_path, DialsDrift)
    assert verdict == "violated" and not any("lemma cache" in line for line in said)
    keys = {LemmaStore(Machine(spec), goals_, patterns, tmp_path).key
            for spec, goals_, patterns in [(Dials, ["b_bounded"], None),
                                            (Dials, ["same"], None),
                                            (Dials, ["b_bounded"], ["same"]),
                                            (DialsDrift, ["b_bounded"], None)]}
    keys |= {LemmaStore(Machine(Retries, {"limit": n}), ["bounded"], None, tmp_path).key
             for n in (1, 2)}
    assert len(keys) == 6
    monkeypatch.setenv("CHECK_MODEL_CACHE", "off")
    assert LemmaStore(Machine(Dials), ["b_bounded"], None).entry is None


def test_the_model_names_the_lemmas_houdini_may_use_and_the_proof_needs_the_one_it_names(
        monkeypatch):
    """`b_bounded` is inductive only with `same`. With Spacer switched off (it would find
    `a == b` itself on so small a spec), the proof is Houdini's: it holds with `same`
    among the lemmas named, and is unknown without it; the invariants left out are no
    candidates, so no round is spent dropping them."""
    monkeypatch.setattr(PDR, "_prove", lambda self, rel, parts, chain: chain)
    verdicts = {}
    for lemmas in (["same"], ["c_*"]):
        said = []
        result = PDR(Machine(Dials), CheckOptions(["b_bounded"], lemmas=lemmas),
                     progress=said.append).check()
        verdicts[lemmas[0]] = result.properties[0].verdict.value
        if lemmas == ["same"]:
            assert said[1:3] == ["pdr: 2 of the spec's invariants are no candidates "
                                 "(not in [check] lemmas)",
                                 "pdr: 2 of 2 parts inductive together with 1 of 1 parts of "
                                 "1 lemmas (Houdini)"]
            assert certify(result.properties[0].certificate, Machine(Dials)) == []
    assert verdicts == {"same": "holds", "c_*": "unknown"}
