"""Dispatch: the interpreter tries only the bindings whose leading tests the state
passes (read through locals and simple helpers), and checks only the properties that
read the state.

Leaving a binding out must change nothing: every model gives the same counts, verdicts,
traces and coverage with selectors as without them.
"""
from __future__ import annotations

import enum
import types

import pytest

from checker import Const, Int, Map, Spec, action, invariant, reachable, require
from checker.explicit.dispatch import NO_KEY
from checker.lang.reads import state_reads
from checker.explicit.explorer import ExplicitEngine
from checker.options import CheckOptions
from checker.explicit.machine import Machine
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
    return {b.label: machine.fast_paths[b.index].selectors for b in machine.bindings}


def test_each_leading_test_of_one_location_selects_the_values_it_accepts():
    found = selectors(Machine(Steps))
    assert found["start"] == (("pc", NO_KEY, frozenset({Pc.IDLE})),)
    # `budget > 0` and `pc in WRITES` each test one location: both select
    assert found["write"] == (("budget", NO_KEY, frozenset({1, 2})), ("pc", NO_KEY, WRITES))
    # a simple helper's returned expression is read ahead too
    assert found["finish(i=2)"] == (("done", 2, frozenset({False})),
                                    ("pc", NO_KEY, frozenset({Pc.DONE})))
    assert found["reset"] == (("pc", NO_KEY, frozenset({Pc.DONE})),)


class LibrarySteps(Steps):
    """As a library writes its actions: the controller's constants read through `s`; and
    overrides that add to the action they override, after a plain assignment."""
    Pc = Pc
    WRITES = WRITES
    stamped: bool = False

    @action
    def write(s):
        require(s.budget > 0 and s.pc in s.WRITES and s.pc is not s.Pc.IDLE)
        s.budget -= 1
        s.pc = Pc.CALL if s.pc is Pc.WRITE else Pc.DONE


class Controller(LibrarySteps):
    @action
    def write(s):
        calling = s.pc is Pc.CALL
        super().write()
        s.stamped = calling

    @action
    def finish(s, i: Int[1, 3]):
        super().finish(i)
        s.stamped = False


def test_constants_read_through_the_state_and_overrides_calling_super_select_too():
    library, controller = selectors(Machine(LibrarySteps)), selectors(Machine(Controller))
    assert library["write"] == controller["write"] == \
        (("budget", NO_KEY, frozenset({1, 2})), ("pc", NO_KEY, WRITES))
    assert controller["finish(i=2)"] == (("done", 2, frozenset({False})),
                                         ("pc", NO_KEY, frozenset({Pc.DONE})))
    assert observed(ExplicitEngine(Machine(Controller), CheckOptions()).check()) == \
        observed(ExplicitEngine(without_dispatch(Machine(Controller)), CheckOptions()).check())


class Pod(enum.Enum):
    NONE = 0
    WAIT = 1
    RUN = 2


class Locals(Spec):
    """Guards that read through locals and helpers, and one whose first line has an effect."""
    pods: Map[Int[1, 2], Pod] = Map.fill(Pod.NONE)
    calls: Int[0, 3] = 0
    first: bool = False

    @action
    def launch(s, i: Int[1, 2]):
        pod = s.pods[i]
        require(pod is Pod.NONE)
        others = s.pods[3 - i]
        require(others is not Pod.RUN and s.calls < 3)
        s.pods[i] = Pod.WAIT
        s.calls += 1

    @action
    def run(s, i: Int[1, 2]):
        require(s._waiting(i))
        s.pods[i] = Pod.RUN

    @action
    def counted(s):
        n = s._bump()                                  # a call: not part of the guard
        require(n < 3)

    @action
    def apply(s):
        require(s.calls < 2)
        before = s.calls
        require(s._bump() == before + 1)               # an effect after a local: body
        s.first = before == 0

    def _waiting(s, i):
        pod = s.pods[i]
        return pod is Pod.WAIT

    @reachable
    def applied_first(s):
        return s.first

    def _bump(s):
        s.calls = min(3, s.calls + 1)
        return s.calls


class Plain(Spec):
    """`Locals` with every guard written out: the same relation."""
    pods: Map[Int[1, 2], Pod] = Map.fill(Pod.NONE)
    calls: Int[0, 3] = 0
    first: bool = False

    @action
    def launch(s, i: Int[1, 2]):
        require(s.pods[i] is Pod.NONE and s.pods[3 - i] is not Pod.RUN and s.calls < 3)
        s.pods[i] = Pod.WAIT
        s.calls += 1

    @action
    def run(s, i: Int[1, 2]):
        require(s.pods[i] is Pod.WAIT)
        s.pods[i] = Pod.RUN

    @action
    def counted(s):
        s.calls = min(3, s.calls + 1)
        require(s.calls < 3)

    @action
    def apply(s):
        require(s.calls < 2)
        before = s.calls
        s.calls = before + 1
        s.first = before == 0

    @reachable
    def applied_first(s):
        return s.first


def test_locals_and_simple_helpers_are_read_ahead_and_effects_stay_in_the_body():
    m = Machine(Locals)
    found = selectors(m)
    assert found["launch(i=1)"] == (("pods", 1, frozenset({Pod.NONE})),
                                    ("pods", 2, frozenset({Pod.NONE, Pod.WAIT})),
                                    ("calls", NO_KEY, frozenset({0, 1, 2})))
    assert found["run(i=2)"] == (("pods", 2, frozenset({Pod.WAIT})),)
    counted = next(b for b in m.bindings if b.name == "counted")
    assert m.fast_paths[counted.index].guard is None and found["counted"] == ()
    launch = next(b for b in m.bindings if b.label == "launch(i=1)")
    assert m.fast_paths[launch.index].guard is not None
    assert observed(ExplicitEngine(m, CheckOptions()).check()) == \
        observed(ExplicitEngine(Machine(Plain), CheckOptions()).check())


def test_a_helper_whose_globals_differ_from_the_callers_is_not_read_ahead():
    class Elsewhere(Locals):
        pass
    # the same source in another module's namespace, where `Pod` is another enum
    Elsewhere._waiting = types.FunctionType(Locals._waiting.__code__,
                                            {**Locals._waiting.__globals__, "Pod": Pc})
    assert selectors(Machine(Elsewhere))["run(i=1)"] == ()


class GuardWrites(Spec):
    """A guard whose helper writes, then fails (a lost write's `require(s._call())`),
    ahead of an action that reads what it wrote."""
    tried: Int[0, 1] = 0
    marks: Map[Int[1, 2], bool] = Map.fill(False)
    done: Int[0, 1] = 0

    def _try(s) -> bool:
        s.tried = 1
        s.marks[1] = True
        return False                                    # the call failed

    @action
    def attempt(s):
        require(s._try())
        s.done = 1

    @action
    def other(s):
        require(s.tried == 0 and not s.marks[1] and s.done == 0)
        s.done = 1


def test_what_a_failing_guard_wrote_is_undone_before_the_next_binding():
    m = Machine(GuardWrites)
    guard_calls = {b.name: m.fast_paths[b.index].guard_calls for b in m.bindings}
    assert guard_calls == {"attempt": True, "other": False}
    result = ExplicitEngine(m, CheckOptions()).check()
    assert result.stats.distinct_states == 2            # `other` from the initial state
    assert result.coverage.by_action == {"attempt": 0, "other": 1}


def without_dispatch(machine):
    """The same machine trying every binding and checking every property each state."""
    for fast in machine.fast_paths:
        fast.selectors = ()
    for p in machine.properties:
        p.reads = -1
    return machine


class Reads(Spec):
    """Properties reading the state directly, through helpers, and in ways not followed."""
    x: Int[0, 3] = 0
    y: Int[0, 3] = 0

    @action
    def up_x(s):
        require(s.x < 3)
        s.x += 1

    @action
    def up_y(s):
        require(s.y < 3)
        s.y += 1

    def _total(s):
        return s._x_only() + s.y

    def _x_only(s):
        return s.x

    @invariant
    def x_small(s):
        return s._x_only() < 3

    @invariant
    def total_small(s):
        return s._total() < 5

    @invariant
    def by_name(s):
        return getattr(s, "y") < 3

    @invariant
    def by_table(s):
        return all(getattr(s, n) < 4 for n in NAMES) and hasattr(s, LABELS[s.x > 1])

    @invariant
    def by_computed_name(s):
        return getattr(s, "x" if s.x else "y"[:1]) < 3

    @invariant
    def by_static_helper(s):
        return s._below(s.y, 4)

    @staticmethod
    def _below(value, bound):
        return value < bound

    @reachable
    def y_two(s):
        return s.y == 2


NAMES = ("x", "y")
LABELS = {False: "x", True: "x"}


def test_a_property_reads_what_it_and_its_helpers_read_or_anything_when_unsure():
    m = Machine(Reads)
    x, y = (1 << v.index for v in m.variables)
    assert {p.name: p.reads for p in m.properties} == \
        {"x_small": x, "total_small": x | y, "by_name": y, "by_table": x | y,
         "by_computed_name": -1, "by_static_helper": y, "y_two": y}
    assert state_reads(Reads.x_small, {}, {"x", "y"}) is None       # helper unknown


class Timers(Spec):
    """Variables named through a table and a filtered loop, as the RayJob clock does."""
    t1: bool = False
    t2: bool = False
    other: Int[0, 1] = 0

    @action
    def fire(s):
        armed = [t for t in NAMED_TIMERS if not getattr(s, t)]
        require(armed)
        for t in armed:
            setattr(s, t, True)

    @action
    def by_format(s):
        setattr(s, f"t{s.other + 1}", False)


NAMED_TIMERS = ("t1", "t2")


class TimersAgain(Timers):
    """An override that calls the method it overrides (`super().fire()`): what that
    reads is read too."""

    @action
    def fire(s):
        s.other = 1
        super().fire()


def test_an_action_names_what_getattr_and_setattr_reach_through_known_names_only():
    m = Machine(Timers)
    t1, t2, other = (1 << v.index for v in m.variables)
    assert {b.name: b.writes for b in m.bindings} == {"fire": t1 | t2, "by_format": -1}
    again = Machine(TimersAgain)
    assert {b.name: b.writes for b in again.bindings} == {"fire": t1 | t2 | other, "by_format": -1}
    assert observed(ExplicitEngine(again, CheckOptions()).check()) == \
        observed(ExplicitEngine(without_dispatch(Machine(TimersAgain)), CheckOptions()).check())


def test_properties_are_checked_after_the_steps_that_change_what_they_read():
    """Each property is violated (or reached) only on a step of a variable its helper
    reads: skipping it there would give a wrong verdict."""
    result = ExplicitEngine(Machine(Reads), CheckOptions()).check()
    verdicts = {p.name: (p.verdict.value, len(p.trace.states) if p.trace else None)
                for p in result.properties}
    assert verdicts == {"x_small": ("violated", 4), "total_small": ("violated", 6),
                        "by_name": ("violated", 4), "by_table": ("holds", None),
                        "by_computed_name": ("violated", 4), "by_static_helper": ("holds", None),
                        "y_two": ("holds", 3)}
    assert observed(result) == observed(ExplicitEngine(without_dispatch(Machine(Reads)),
                                                       CheckOptions()).check())


@pytest.mark.parametrize("model", ["models/rayjob.toml", "examples/models/slow/lamportmutex.toml",
                                   "examples/models/alternatingbit.toml"])
def test_dispatch_changes_nothing_but_the_guards_it_skips(model):
    m = load_model(ROOT / model)
    options = m.options
    if "lamport" in model:
        options.max_depth = 12                        # its first twelve levels: ~20,000 states
    with_dispatch = ExplicitEngine(m.machine(), options).check()
    without = ExplicitEngine(without_dispatch(m.machine()), options).check()
    assert observed(with_dispatch) == observed(without)
    assert with_dispatch.stats.distinct_states > 200


def test_the_small_spec_is_the_same_search_with_and_without_dispatch():
    assert observed(ExplicitEngine(Machine(Steps), CheckOptions()).check()) == \
        observed(ExplicitEngine(without_dispatch(Machine(Steps)), CheckOptions()).check())


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
