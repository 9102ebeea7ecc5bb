"""Fairness as TLA+ reads it, shared by the liveness check and `replay`.

WF_v(A) and SF_v(A) concern only `<A>_v` steps: steps of A that change the state. Every
variable counts, ghost variables too (TLA+ has no ghosts). So a binding whose only steps
from a state leave it unchanged is not enabled there, and such a step does not take it;
behaviours may still stutter. A step takes every fair binding that can make it (TLA+
speaks of states, not labels), except from a state where the binding's `fair_when` is
false. Faults happen only finitely often, so a cycle never repeats one.
"""
from __future__ import annotations

from typing import Iterator

from ..lang.dsl import Kind
from ..lang.bound import Binding, Fairness
from .machine import Machine


def conditions(machine: Machine) -> list[Fairness]:
    """The fairness conditions on the bindings switched on: each fair binding's own, then
    the model's joint ones ("weak-group", "strong-group")."""
    on = {b.index for b in machine.bindings}
    own = [Fairness(b.fair, b.label, frozenset({b.index})) for b in machine.bindings if b.fair]
    joint = [Fairness(f.kind, f.label, f.members & on) for f in machine.joint_fairness]
    return own + [f for f in joint if f.members]


def by_binding(conds: list[Fairness]) -> dict[int, tuple[int, ...]]:
    """Binding index -> the conditions (indices into `conds`) it belongs to."""
    out: dict[int, tuple[int, ...]] = {}
    for k, cond in enumerate(conds):
        for b in cond.members:
            out[b] = out.get(b, ()) + (k,)
    return out


def moves(machine: Machine, st: tuple) -> Iterator[tuple[Binding, tuple, bool]]:
    """(binding, successor, owed) for each step from `st` that changes it; `owed`: the
    binding's `fair_when` holds in `st`, so the step counts for its fairness."""
    return owed_steps(machine, st, [(b, succ) for b, _, succ in machine.successors(st)
                                    if succ != st])


def owed_steps(machine: Machine, st: tuple, steps: list[tuple[Binding, tuple]]) \
        -> Iterator[tuple[Binding, tuple, bool]]:
    """`steps` from `st` (binding, successor), each with whether it is owed (see `moves`)."""
    owed: dict = {}                       # fair_when -> its value in st, each evaluated once
    for b, succ in steps:
        when = b.fair_when
        if when is not None and when not in owed:
            owed[when] = machine.check(when, st, f"fair_when of {b.name}")
        yield b, succ, when is None or owed[when]


def unfair(machine: Machine, cycle: list[tuple], first: int = 0) -> str | None:
    """Why going round `cycle` forever is not a fair behaviour, or None when it is.

    `cycle` lists states; the last steps back to the first (one state: stuttering there);
    `first` is the index of its first state in the trace, for the message.
    """
    conds = conditions(machine)
    of = by_binding(conds)
    enabled_at: list[set[int]] = []
    taken: set[int] = set()
    for i, st in enumerate(cycle):
        after = cycle[(i + 1) % len(cycle)]
        on, makers = set(), []
        for b, succ, owed in moves(machine, st):
            counted = of.get(b.index, ()) if owed else ()
            on.update(counted)
            if succ == after:
                makers.append(b)
                taken.update(counted)
        if makers and all(b.kind == Kind.FAULT for b in makers):
            return (f"the cycle repeats fault {makers[0].label} (from state {first + i}): faults "
                    f"happen only finitely often")
        enabled_at.append(on)
    for k, cond in enumerate(conds):
        where = [first + i for i, on in enumerate(enabled_at) if k in on]
        if k in taken or not where:
            continue
        if cond.kind == "weak" and len(where) == len(cycle):
            return f"weakly fair {cond.label} is enabled in every state of the cycle but never taken"
        if cond.kind == "strong":
            return f"strongly fair {cond.label} is enabled in state {where[0]} of the cycle but never taken"
    return None
