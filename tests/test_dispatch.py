"""Dispatch: the interpreter tries only the bindings whose first test the state passes,
and checks only the properties that read the state.

Leaving a binding out must change nothing: every model gives the same counts, verdicts,
traces and coverage with selectors as without them.
"""
from __future__ import annotations

import enum

import pytest

from checker import Const, Int, Map, Spec, action, invariant, reachable, require
from checker.dispatch import NO_KEY
from checker.explorer import ExplicitEngine
from checker.options import CheckOptions
from checker.machine import Machine
from checker.model import load_model
from conftest import ROOT
from test_bulk import observed


class Pc(enum.Enum):
    IDLE = 0
    WRITE = 1
    CALL = 2
    DONE = 3


WRITES = frozenset({Pc.WRITE, Pc.CALL})


class Steps(Spec):
    pc: Pc = Pc.IDLE
    budget: Int[0, 2] = 2
    done: Map[Int[1, 3], bool] = Map.fill(False)

    @action
    def start(s):
        require(s.pc is Pc.IDLE)
        s.pc = Pc.WRITE

    @action
    def write(s):
        require(s.budget > 0 and s.pc in WRITES)
        s.budget -= 1
        s.pc = Pc.CALL if s.pc is Pc.WRITE else Pc.DONE

    @action
    def finish(s, i: Int[1, 3]):
        require(not s.done[i] and s._ready())
        s.done[i] = True

    @action
    def reset(s):
        require(s._ready())
        s.pc = Pc.IDLE

    def _ready(s):
        return s.pc is Pc.DONE

    @invariant
    def budget_spent_when_done(s):
        return s.pc is not Pc.DONE or s.budget == 0


def selectors(machine):
    return {b.label: b.selector for b in machine.bindings}


def test_a_first_test_of_one_location_selects_the_values_it_accepts():
    found = selectors(Machine(Steps))
    assert found["start"] == ("pc", NO_KEY, frozenset({Pc.IDLE}))
    # of `budget > 0` (2 of 3 values) and `pc in WRITES` (2 of 4), the more selective
    assert found["write"] == ("pc", NO_KEY, WRITES)
    assert found["finish(i=2)"] == ("done", 2, frozenset({False}))
    assert found["reset"] is None                     # a helper call: not read ahead


def without_selectors(machine):
    for b in machine.bindings:
        b.selector = None
    return machine


@pytest.mark.parametrize("model", ["models/rayjob.toml", "examples/models/slow/lamportmutex.toml",
                                   "examples/models/alternatingbit.toml"])
def test_dispatch_changes_nothing_but_the_guards_it_skips(model):
    m = load_model(ROOT / model)
    options = m.options
    if "lamport" in model:
        options.max_depth = 12                        # its first twelve levels: ~20,000 states
    with_dispatch = ExplicitEngine(m.machine(), options).check()
    without = ExplicitEngine(without_selectors(m.machine()), options).check()
    assert observed(with_dispatch) == observed(without)
    assert with_dispatch.stats.distinct_states > 200


def test_the_small_spec_is_the_same_search_with_and_without_selectors():
    assert observed(ExplicitEngine(Machine(Steps), CheckOptions()).check()) == \
        observed(ExplicitEngine(without_selectors(Machine(Steps)), CheckOptions()).check())


class Settings(Spec):
    """Properties that read no state under some constants."""
    calm = Const(True, "a setting the lemmas are about")
    x: Int[0, 4] = 0

    @action
    def up(s):
        require(s.x < 4)
        s.x += 1

    @invariant
    def lemma_small_when_calm(s):
        if not s.calm:
            return True                                 # reads no state: constant here
        return s.x < 3

    @invariant
    def hidden_read(s):
        try:
            return s.x < 4
        except Exception:                               # must not hide the probe's read
            return True

    @reachable
    def only_when_stormy(s):
        return not s.calm and s.x == 1


def test_a_property_that_reads_no_state_is_decided_once_and_others_still_each_state():
    calm = Machine(Settings)
    assert [calm.constant(p.fn) for p in calm.properties] == [None, None, False]
    stormy = Machine(Settings, {"calm": False})
    assert [stormy.constant(p.fn) for p in stormy.properties] == [True, None, None]
    verdicts = {p.name: p.verdict.value
                for p in ExplicitEngine(stormy, CheckOptions()).check().properties}
    assert verdicts == {"lemma_small_when_calm": "holds", "hidden_read": "violated",
                        "only_when_stormy": "holds"}
    verdicts = {p.name: p.verdict.value
                for p in ExplicitEngine(calm, CheckOptions()).check().properties}
    assert verdicts == {"lemma_small_when_calm": "violated", "hidden_read": "violated",
                        "only_when_stormy": "violated"}
