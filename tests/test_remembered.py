"""Remembered steps (`checker.explicit.expand`) against the spec run at every step.

An action's steps are replayed from the codes of the variables it read (traced), the
dispatch mask and property values from those of the variables they read (from the
source). These tests compare every step out of every reachable state with the reference
that runs the spec each time.
"""
from __future__ import annotations

import pytest

from checker import Int, Spec, action, invariant, require
from checker.explicit.expand import changed_between, expander
from checker.explicit.explorer import ExplicitEngine
from checker.lang.dsl import install_oracle
from checker.explicit.machine import Machine
from checker.model import load_model
from checker.options import CheckOptions
from conftest import ROOT

MODELS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples/models").glob("*.toml")) + [
    "models/rayjob.toml", "models/rayjob/suspend_stale_F2.toml", "models/rayjob/sidecar_F0.toml",
    "models/rayjob/interactive_F1.toml"]


def steps_of(machine, expand, st) -> list[tuple]:
    out = []
    expand(st, lambda index, succ, choices, changed, loaded: out.append((index, choices, succ, changed)))
    return out


def reachable(machine, expand, limit=60_000) -> list[tuple]:
    """The reachable states in breadth-first order (up to `limit`), in the constraint."""
    order = machine.initial_states()
    seen = set(order)
    for st in order:
        for _, _, succ, _ in steps_of(machine, expand, st):
            if succ not in seen and len(order) < limit and \
                    all(machine.check(c, succ, "constraint") for c in machine.constraints):
                seen.add(succ)
                order.append(succ)
    return order


@pytest.mark.parametrize("model", MODELS)
def test_remembered_steps_are_the_steps_the_spec_takes(model):
    """Every step out of every reachable state, in order, with its choices and changed
    bits: remembered (after a whole search filled the memory) == run."""
    machine = load_model(ROOT / model).machine()
    previous = install_oracle(machine.oracle)
    try:
        remembered = expander(machine)
        states = reachable(machine, remembered)
        replayed = remembered.memory()[0]
        steps = [steps_of(machine, remembered, st) for st in states]   # now mostly replayed
        reference = expander(machine, remember=False)
        expected = [steps_of(machine, reference, st) for st in states]
    finally:
        install_oracle(previous)
    assert remembered.memory()[0] > replayed and reference.memory()[0] == 0
    assert [[step[:3] for step in out] for out in steps] == \
        [[step[:3] for step in out] for out in expected]
    # a replayed step reports as changed all it wrote: at least what differs
    assert all(changed_between(st, succ) & ~changed == 0
               for st, out in zip(states, steps) for _, _, succ, changed in out)


def test_a_process_taught_the_paths_another_learnt_replays_them_without_running_the_spec():
    """What worker processes exchange: one machine's lessons make a second machine of the
    same spec replay every step the first ran, with the same outcome."""
    model = "models/rayjob/suspend_F2.toml"
    teacher, pupil = (load_model(ROOT / model).machine() for _ in range(2))
    teach, learn = expander(teacher), expander(pupil)
    assert teach.lessons() == []                        # (asking starts the record)
    previous = install_oracle(teacher.oracle)
    try:
        states = reachable(teacher, teach, limit=3_000)
        taught = [steps_of(teacher, teach, st) for st in states]
    finally:
        install_oracle(previous)
    lessons = teach.lessons()
    assert lessons and teach.lessons() == []            # each path taught once
    learn.learn(lessons)
    previous = install_oracle(pupil.oracle)
    try:
        learnt = [steps_of(pupil, learn, st) for st in states]
    finally:
        install_oracle(previous)
    assert learn.memory()[1] == 0                       # not one run of the spec
    assert [[step[:3] for step in out] for out in learnt] == \
        [[step[:3] for step in out] for out in taught]


class Peek(Spec):
    """`bump` adds `y` through a name the analysis cannot follow: it reads `y` unseen."""
    x: Int[0, 3] = 0
    y: Int[0, 1] = 0

    @action
    def flip(s):
        require(s.y == 0)
        s.y = 1

    @action
    def bump(s):
        require(s.x < 3)
        s.x = min(3, s.x + 1 + getattr(s, y_name()))

    @invariant
    def small(s):
        return s.x < 3


def y_name() -> str:
    return "y"


def test_an_action_whose_reads_are_not_known_runs_every_time():
    """Remembered per `x` alone, bump from (x=0, y=1) would replay what it did from
    (x=0, y=0) and give x=1; it must give x=2."""
    machine = Machine(Peek)
    bump = next(b for b in machine.bindings if b.name == "bump")
    assert bump.writes == -1                            # getattr of a computed name
    result = ExplicitEngine(machine, CheckOptions(workers=1)).check()   # fills the memory
    assert result.properties[0].verdict.value == "violated"
    x, y = (v.index for v in machine.variables)
    start = tuple(1 if i == y else 0 for i in range(2))
    previous = install_oracle(machine.oracle)
    try:
        after = {b.name: succ for b, _, succ in machine.successors(start)}
    finally:
        install_oracle(previous)
    assert after["bump"][x] == machine.variables[x].domain.encode(2)


class TwoAtOnce(Spec):
    """Two invariants first violated in the same state, after states that passed both."""
    x: Int[0, 3] = 0

    @action
    def inc(s):
        require(s.x < 3)
        s.x += 1

    @invariant
    def below_two(s):
        return s.x < 2

    @invariant
    def not_two(s):
        return s.x != 2


def test_properties_violated_in_the_same_state_are_both_found_there():
    result = ExplicitEngine(Machine(TwoAtOnce), CheckOptions(workers=1)).check()
    assert {p.name: (p.verdict.value, len(p.trace.states)) for p in result.properties} == \
        {"below_two": ("violated", 3), "not_two": ("violated", 3)}


FLIP = [False]


class Fickle(Spec):
    """An action that depends on something besides the state (a global it flips)."""
    x: Int[0, 2] = 0
    y: Int[0, 2] = 0

    @action
    def step(s):
        FLIP[0] = not FLIP[0]
        if FLIP[0]:
            s.x = min(2, s.x + 1)
        else:
            s.y = min(2, s.y + 1)


def test_the_run_says_how_much_was_replayed_and_what_stopped_remembering_and_why():
    fickle = ExplicitEngine(Machine(Fickle), CheckOptions(workers=1)).check()
    assert "step not remembered: it read other variables from the same values" in fickle.method
    steady = ExplicitEngine(Machine(TwoAtOnce), CheckOptions(workers=1)).check()
    assert "0% of 3 action runs replayed" in steady.method    # x = 0, 1, 2: each new to inc
    assert "not remembered" not in steady.method
