"""Remembered outcomes (`checker.explicit.expand`) against the spec run at every step.

A step's outcome is replayed from the codes of the variables its action names, and the
dispatch mask and property values likewise from theirs. These tests compare every step
out of every reachable state with the reference that runs the spec each time, and show
what happens where a read cannot be told from the source.
"""
from __future__ import annotations

import pytest

from checker import Int, Spec, action, invariant, require
from checker.explicit.expand import expander
from checker.explicit.explorer import ExplicitEngine
from checker.lang.dsl import install_oracle
from checker.explicit.machine import Machine
from checker.model import load_model
from checker.options import CheckOptions
from tests.conftest import ROOT

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
        replayed = remembered.replayed()
        steps = [steps_of(machine, remembered, st) for st in states]   # now mostly replayed
        reference = expander(machine, remember=False)
        assert steps == [steps_of(machine, reference, st) for st in states]
    finally:
        install_oracle(previous)
    assert remembered.replayed() > replayed and reference.replayed() == 0


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
