"""Steps read as a whole on concrete states: step properties, action constraints, ENABLED.

A `@step_invariant` or `@action_constraint` reads two states at once, so each is given
its own view of the state before and after the step (spec instances decoded apart from
the scratch the actions run on). `enabled(s.action)` runs the action on a twin of the
machine, so that the scratch and the oracle of the step being taken are left alone.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..lang.bound import Binding, Property
from ..lang.dsl import Transition, enabled_in_action

if TYPE_CHECKING:
    from .machine import Machine


def view(m: Machine, st: tuple):
    """A spec instance of its own holding state `st`."""
    sc = m.state_cls.__new__(m.state_cls)
    sc._undo = []
    for v, c in zip(m.variables, st):
        setattr(sc, v.name, v.domain.decode(c, sc))
    return sc


def step_holds(m: Machine, p: Property, before, after, binding: Binding) -> bool:
    """Step property or action constraint `p` on the step `binding` takes from `before`
    to `after` (views)."""
    taken = (Transition(binding.name, dict(binding.params)),) if p.takes_step else ()
    return m.satisfies(p.fn, p.name, before, after, *taken)


def allowed(m: Machine, before, after, binding: Binding) -> bool:
    """Whether the action constraints let the step be taken."""
    return all(step_holds(m, c, before, after, binding) for c in m.action_constraints)


def within(m: Machine, state) -> bool:
    """Whether the state a view holds is inside the @constraint."""
    return all(m.satisfies(c, "constraint", state) for c in m.constraints)


class Enabled:
    """`enabled(s.name, **args)` on the explicit engine: some binding of the action, with
    these arguments, has a step from the state `s` holds."""

    def __init__(self, machine: Machine):
        self.machine = machine
        self._twin: Machine | None = None

    def __call__(self, sc, name: str, args: dict[str, Any]) -> bool:
        m = self.machine
        if m.oracle.acting:
            raise enabled_in_action(name)
        if self._twin is None:
            self._twin = type(m)(*m.bound_with)
        twin = self._twin
        st = tuple(v.domain.encode(getattr(sc, v.name)) for v in m.variables)
        base = twin.load(twin.scratch, st)
        for b in twin.bindings_of(name, args):
            for _ in twin.run(lambda s, b=b: b.fn(s, *b.args), b.label, st, base):
                return True
        return False
