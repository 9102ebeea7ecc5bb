"""Traces: the steps of a counterexample or witness, built from the explorer's parents.

A trace is a list of states, each with the action (and parameters and choices) that
produced it. `checker.itf` writes and reads them as ITF JSON; `replay` re-validates
one against a spec step by step (trace validation) and says where it first diverges.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from .machine import Machine


@dataclasses.dataclass
class Step:
    state: tuple                                   # the state's code
    action: str | None = None                      # None for the initial state
    kind: str = "init"                             # init, action, fault
    params: dict[str, str] = dataclasses.field(default_factory=dict)
    choices: tuple = ()

    @property
    def label(self) -> str:
        if self.action is None:
            return "initial state"
        args = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.action}({args})" if args else self.action


@dataclasses.dataclass
class Trace:
    steps: list[Step]
    loop: int | None = None                        # index where a lasso's cycle starts

    @property
    def states(self) -> list[tuple]:
        return [s.state for s in self.steps]


def build_trace(machine: Machine, path: list[tuple]) -> Trace:
    """Label each step of a state path with an action that produces it."""
    steps = [Step(path[0])]
    for prev, cur in zip(path, path[1:]):
        steps.append(find_step(machine, prev, cur))
    return Trace(steps)


def find_step(machine: Machine, prev: tuple, cur: tuple, action: str | None = None,
              params: dict[str, str] | None = None) -> Step:
    """The first transition from `prev` to `cur` (with the given label, if any)."""
    for b, choices, succ in machine.successors(prev):
        if succ != cur or (action is not None and b.name != action):
            continue
        shown = dict(b.param_labels)
        if params is not None and {k: str(v) for k, v in params.items()} != shown:
            continue
        return Step(cur, b.name, b.kind, shown, tuple(_show(c) for c in choices))
    raise LookupError("no transition")


def _show(value: Any) -> str:
    from .domains import enum_label
    import enum
    return enum_label(value) if isinstance(value, enum.Enum) else str(value)


def changes(machine: Machine, before: tuple | None, after: tuple) -> list[tuple[str, str, str]]:
    """(variable, old, new) for each variable that differs; all variables if `before` is None."""
    out = []
    for v, c_after in zip(machine.variables, after):
        c_before = None if before is None else before[v.index]
        if before is None or c_before != c_after:
            old = "" if before is None else v.domain.show(v.domain.plain(c_before))
            out.append((v.name, old, v.domain.show(v.domain.plain(c_after))))
    return out
