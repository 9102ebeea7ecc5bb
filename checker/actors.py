"""Who performs each action and whom it calls: the lanes of trace diagrams and pages.

An action's actor is the spec class that first defines it (a mutant overriding it in a
subclass is still the same component), a fault's is `faults`; `calls=` names the actor it
talks to. Names are matched loosely, so the class `ApiServer` and `calls="API server"`
are one lane, shown by the friendlier (spaced) name.
"""
from __future__ import annotations

import inspect
import re

from .lang.dsl import Kind
from .errors import where_defined
from .lang.bound import Binding, BoundSpec

FAULTS = "faults"


def actor_of(spec_cls: type, binding: Binding) -> str:
    """The class of `spec_cls`'s hierarchy that first defines the action, or `faults`."""
    if binding.kind == Kind.FAULT:
        return FAULTS
    for klass in reversed(spec_cls.__mro__):
        if binding.fn.__name__ in vars(klass):
            return klass.__name__
    return spec_cls.__name__


def lane_key(name: str) -> str:
    """What two spellings of one actor share: `ApiServer` and `API server` are `apiserver`."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def lanes(actors: dict[str, tuple[str, str | None]], used: list[str]) -> dict[str, str]:
    """Lane key -> name shown, for the actors of the actions `used`, in order of first
    appearance; a name with spaces (how `calls=` is written) wins over a class name."""
    shown: dict[str, str] = {}
    for action in used:
        for name in actors.get(action, (FAULTS, None)):
            if name:
                key = lane_key(name)
                if key not in shown or (" " in name and " " not in shown[key]):
                    shown[key] = name
    return shown


def step_actors(info: dict[str, dict], action: str | None, kind: str) -> tuple[str, str | None]:
    """Who takes a step and whom it calls, from `action_info`'s table (where an action
    is not described, as in an old trace: the spec, or faults)."""
    described = info.get(action, {})
    return (described.get("actor", FAULTS if kind == Kind.FAULT else "spec"),
            described.get("calls"))


def action_info(machine: BoundSpec, names: set[str]) -> dict[str, dict]:
    """What a trace page shows of each action in `names`: actor, calls, kind, the spec
    file:line of its definition and its docstring (each only when there is one). An
    action made from a spec's function (the library's `@call_step`) names it in
    `__checker_source__`: the page points there, not at the code that made it."""
    info = {}
    for b in machine.all_bindings:
        if b.name in names and b.name not in info:
            where = where_defined(getattr(b.fn, "__checker_source__", b.fn))
            fields = {"actor": actor_of(machine.spec_cls, b), "calls": b.calls,
                      "kind": str(b.kind), "where": where,
                      "doc": inspect.cleandoc(b.fn.__doc__ or "")}
            info[b.name] = {k: v for k, v in fields.items() if v}     # ITF has no null
    return info
