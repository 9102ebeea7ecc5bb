"""The bulk engine is the interpreter's search: same counts, verdicts, traces, coverage.

Each model is checked by both engines and every observable is compared, so a change to
either that moves a count, a verdict, a trace state or a binding's firing count fails here.
"""
from __future__ import annotations

import dataclasses
import enum

import numpy as np
import pytest

import checker.bulk.engine
from checker import Int, Map, Spec, action, constraint, invariant, reachable, require, terminal
from checker.bulk.engine import BulkEngine
from checker.bulk.fit import WORD, state_bits
from checker.bulk.layout import Layout, Unsupported
from checker.bulk.parts import Parts
from checker.choice import why_not_bulk
from checker.engines import run_engine
from checker.errors import DomainError, SpecError
from checker.explicit.explorer import ExplicitEngine
from checker.options import CheckOptions
from checker.explicit.machine import Machine
from checker.lang.bound import LIVENESS_KINDS
from checker.model import load_model
from checker.symbolic.shapes import shape_of
from conftest import ROOT
from examples.twophase import TwoPhase

EXAMPLES = ["alternatingbit", "barrier", "cigarettesmokers", "diehard", "lock", "peterson",
            "prisoners", "tcommit", "twophase"]


def observed(result):
    s = result.stats
    return {"stats": (s.initial_states, s.distinct_states, s.generated, s.depth, s.complete),
            "verdicts": {p.name: (p.verdict, p.reason) for p in result.properties},
            "traces": {p.name: [(st.state, st.action, st.params, st.choices) for st in p.trace.steps]
                       for p in result.properties if p.trace is not None},
            "coverage": result.coverage.fired}


def both(machine: Machine, options: CheckOptions):
    interpreted = ExplicitEngine(machine, options).check()
    bulk = BulkEngine(machine, options).check()
    return observed(interpreted), observed(bulk), bulk


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_gives_the_interpreters_counts_verdicts_and_traces(name):
    model = load_model(ROOT / "examples" / "models" / f"{name}.toml")
    machine = model.machine()
    # step and liveness properties (Peterson's refinement of the lock, Prisoners' <>Done)
    # are the interpreter's alone
    options = dataclasses.replace(model.options, properties=[
        p.name for p in machine.properties
        if p.kind not in ("step_invariant", "eventually", "leads_to")])
    interpreted, bulk, result = both(machine, options)
    assert bulk == interpreted
    assert result.method.startswith("bulk evaluation")


@pytest.mark.parametrize("n", [4, 5])
def test_larger_twophase_with_deadlock_checking_is_the_same_search(n):
    interpreted, bulk, _ = both(Machine(TwoPhase, {"N": n}), CheckOptions(deadlock=True))
    assert bulk == interpreted
    assert bulk["verdicts"]["deadlock"][0].value == "holds"     # a decided RM hears it again


class Light(enum.Enum):
    RED = 0
    GREEN = 1


class Crossing(Spec):
    """Two counters and a light: a constraint, a terminal state, a witness, a violation."""
    a: Int[0, 4] = 0
    b: Int[0, 4] = 0
    light: Light = Light.RED
    seen: Map[Light, bool] = Map.fill(False)

    @action
    def step_a(s, by: Int[1, 2]):
        require(s.light is Light.GREEN and s.a + by <= 4)
        s.a += by

    @action
    def step_b(s):
        require(s.b < 4)
        s.b += 1
        s.seen[s.light] = True

    @action
    def switch(s):
        s.light = Light.GREEN if s.light is Light.RED else Light.RED

    @constraint
    def bounded(s):
        return s.a + s.b <= 6

    @terminal
    def done(s):
        return s.a == 4

    @invariant
    def not_both_high(s):
        return not (s.a >= 3 and s.b >= 3)

    @reachable
    def saw_green_b(s):
        return s.seen[Light.GREEN] and s.a == 2


def test_constraints_terminals_witnesses_and_counterexamples_agree():
    interpreted, bulk, _ = both(Machine(Crossing), CheckOptions(deadlock=True))
    assert bulk == interpreted
    assert bulk["verdicts"]["not_both_high"][0].value == "violated"
    assert bulk["verdicts"]["saw_green_b"][0].value == "holds"


class Wide(Spec):
    """280 bits of state: five words."""
    xs: Map[Int[1, 40], Int[0, 99]] = Map.fill(0)

    @action
    def bump(s, i: Int[1, 3]):
        require(s.xs[i] < 2)
        s.xs[i] += 1

    @invariant
    def sum_bounded(s):
        return sum(s.xs.values()) <= 5


@pytest.mark.parametrize("spec, constants", [(TwoPhase, {"N": 4}), (Crossing, {}), (Wide, {})])
def test_on_threads_in_small_chunks_the_bulk_engine_is_the_same_search(monkeypatch, spec, constants):
    """Three threads, each level cut into chunks of 50 states and each chunk into three
    slices and three parts: the first violation, deadlock and firing counts stay the
    interpreter's, also where a state is several words (whose first alone picks its part)."""
    monkeypatch.setattr(checker.bulk.engine, "CHUNK", 50)
    machine = Machine(spec, constants)
    interpreted = observed(ExplicitEngine(machine, CheckOptions(deadlock=True)).check())
    result = BulkEngine(machine, CheckOptions(deadlock=True, workers=3)).check()
    assert observed(result) == interpreted
    assert result.method.endswith("3 threads")


@pytest.mark.parametrize("words", [1, 3])
def test_parts_are_ranges_of_mixed_keys_that_split_sorted_keys_evenly(words):
    """Mixing is undone exactly; a sorted array splits where `of` says each key's part
    changes; and keys 0..2999 (a packed state's small values) share out evenly."""
    parts = Parts(3, words)
    dtype = np.dtype(np.uint64) if words == 1 else np.dtype([(f"w{i}", np.uint64) for i in range(words)])
    keys = np.zeros(3000, dtype)
    if words == 1:
        keys[:] = np.arange(3000)
    else:
        keys["w0"], keys["w2"] = np.arange(3000) % 1000, np.arange(3000) // 1000
    mixed = parts.mixed(keys)
    assert (mixed != keys).any() and (parts.plain(mixed) == keys).all()
    ordered = np.sort(mixed)
    pieces = np.split(ordered, parts.split(ordered))
    assert [set(parts.of(p)) for p in pieces] == [{0}, {1}, {2}]
    assert all(abs(len(p) - 1000) < 100 for p in pieces)


def test_ray_leaves_the_search_to_the_interpreters_workers_and_says_so():
    machine = Machine(TwoPhase, {"N": 3})
    assert why_not_bulk(machine, CheckOptions()) is None
    assert why_not_bulk(machine, CheckOptions(ray="local")) == \
        "the bulk engine does not take Ray workers"


def test_a_depth_limit_stops_both_at_the_same_level_with_unknown_verdicts():
    interpreted, bulk, _ = both(Machine(TwoPhase, {"N": 4}), CheckOptions(max_depth=5))
    assert bulk == interpreted
    assert bulk["stats"][-1] is False
    assert {v.value for v, _ in bulk["verdicts"].values()} == {"unknown"}


class Overflow(Spec):
    x: Int[0, 3] = 0

    @action
    def up(s):
        s.x += 1                   # leaves its domain from x = 3

    @invariant
    def small(s):
        return s.x < 10


def test_a_failing_step_is_reported_as_the_interpreter_reports_it():
    with pytest.raises(DomainError) as interpreted:
        ExplicitEngine(Machine(Overflow), CheckOptions()).check()
    with pytest.raises(DomainError) as bulk:
        BulkEngine(Machine(Overflow), CheckOptions()).check()
    assert str(bulk.value) == str(interpreted.value)
    assert "outside its domain" in str(bulk.value)


def test_states_of_several_words_need_the_bulk_engine_asked_for_by_name():
    machine, options = Machine(Wide), CheckOptions()
    automatic = run_engine("explicit", machine, options)
    assert automatic.method.startswith("interpreter: a state packs into at least 5 words; ")
    forced = run_engine("bulk", machine, options)
    assert forced.method == "bulk evaluation, 5 words a state"
    assert observed(forced) == observed(automatic)
    assert forced.stats.distinct_states == 3 ** 3
    assert forced.properties[0].verdict.value == "violated"


@pytest.mark.parametrize("model", ["models/rayjob.toml", "benchmarks/twophase9.toml",
                                   "examples/models/diningphilosophers.toml"])
def test_the_width_told_before_numpy_is_imported_bounds_the_layouts(model):
    """`fit.state_bits` turns a model away without the bulk engine's imports: it must
    never say more words than the layout takes."""
    machine = load_model(ROOT / model).machine()
    domains = [v.domain for v in machine.variables]
    layout = Layout([shape_of(d, machine.env) for d in domains])
    assert 1 <= -(-state_bits(domains) // WORD) <= layout.words
    wide = [Machine(Wide).variables[0].domain]
    assert -(-state_bits(wide) // WORD) == 5 == Layout([shape_of(wide[0], {})]).words


def test_the_automatic_choice_takes_bulk_where_it_can_and_says_why_not_elsewhere():
    assert run_engine("explicit", Machine(TwoPhase), CheckOptions()).method == \
        "bulk evaluation, 1 word a state"
    live = load_model(ROOT / "examples" / "models" / "diningphilosophers.toml")
    result = run_engine("explicit", live.machine(), live.options)
    assert result.method.startswith("interpreter: the bulk engine does not take liveness "
                                    "properties; ")
    forced = run_engine("bulk", live.machine(), live.options)
    live_verdicts = {p.name: (p.verdict.value, p.reason) for p in forced.properties
                     if p.kind in LIVENESS_KINDS}
    assert live_verdicts and set(live_verdicts.values()) == \
        {("unknown", "liveness is not supported by the bulk engine")}
    limited = dataclasses.replace(CheckOptions(), max_states=100)
    assert run_engine("explicit", Machine(TwoPhase), limited).method.startswith("interpreter")


class Excluded(Spec):
    """A constraint no initial state satisfies: nothing to explore, nothing to prove."""
    x: Int[0, 2] = 0

    @action
    def up(s):
        require(s.x < 2)
        s.x += 1

    @constraint
    def far(s):
        return s.x > 1

    @invariant
    def anything(s):
        return s.x < 1


@pytest.mark.parametrize("engine", ["interpreter", "bulk"])
def test_no_initial_state_is_an_error_never_a_vacuous_holds(engine):
    with pytest.raises(SpecError, match="no initial state inside the @constraint"):
        run_engine(engine, Machine(Excluded), CheckOptions())
