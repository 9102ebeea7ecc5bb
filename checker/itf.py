"""Traces as ITF JSON (Apalache ADR-015, as written by Quint), and back.

Each state's `#meta` names the step that produced it: `action`, `kind` (init, action,
fault), `params` and `choices`. Ghost variables are listed in the trace's `#meta.ghost`
so renderers can set them apart from the system's state. A lasso's trace `#meta` adds
`loop_step`, the step from the last state back to state `loop`, and, for a property with
parameters, `property_params`, the instance it refutes.
"""
from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Any

from .domains import OutOfDomain, enum_label
from .errors import TraceError
from .files import read_text, write_text
from .machine import Machine
from .trace import Step, Trace

FORMAT_URL = "https://apalache-mc.org/docs/adr/015adr-trace.html"


def to_itf(machine: Machine, trace: Trace, **meta: Any) -> dict:
    """The ITF object of `trace`; `meta` adds fields to the trace's `#meta`."""
    variables = machine.variables
    states = []
    for i, step in enumerate(trace.steps):
        state = {"#meta": {"index": i, **_step_meta(step)}}
        for v, code in zip(variables, step.state):
            state[v.name] = v.domain.to_itf(v.domain.plain(code))
        states.append(state)
    head = {
        "format": "ITF",
        "format-description": FORMAT_URL,
        "description": "Created by check-model",
        "spec": machine.spec_cls.__name__,
        "constants": {k: _plain_const(v) for k, v in machine.env.items()},
        "ghost": [v.name for v in variables if v.ghost],
        **meta,
    }
    if trace.closing is not None:
        head["loop_step"] = _step_meta(trace.closing)       # from the last state to `loop`
    if trace.property_params:
        head["property_params"] = trace.property_params
    data = {"#meta": head, "vars": [v.name for v in variables], "states": states}
    if trace.loop is not None:
        data["loop"] = trace.loop
    return data


def _step_meta(step: Step) -> dict:
    return {"action": step.action or "init", "kind": step.kind, "params": step.params,
            "choices": list(step.choices)}


def _plain_const(value):
    return enum_label(value) if isinstance(value, enum.Enum) else value


def write_itf(path: Path, machine: Machine, trace: Trace, **meta: Any) -> Path:
    return write_text(path, json.dumps(to_itf(machine, trace, **meta), indent=1) + "\n")


def read_itf(path: str | Path) -> dict:
    """Load an ITF file, checking the parts every trace must have."""
    try:
        data = json.loads(read_text(path, "trace", TraceError))
    except json.JSONDecodeError as e:
        raise TraceError(f"not valid JSON: {e.msg}", f"{path}:{e.lineno}") from None
    if not isinstance(data, dict) or not isinstance(data.get("vars"), list) \
            or not isinstance(data.get("states"), list):
        raise TraceError("not an ITF trace: needs 'vars' and 'states' lists", str(path))
    if not data["states"]:
        raise TraceError("the trace has no states", str(path))
    return data


def from_itf(machine: Machine, data: dict, source: str = "trace") -> Trace:
    """Decode an ITF object into a Trace of this machine's states (labels from #meta)."""
    names = [v.name for v in machine.variables]
    if sorted(data["vars"]) != sorted(names):
        missing = sorted(set(names) - set(data["vars"]))
        extra = sorted(set(data["vars"]) - set(names))
        raise TraceError(f"the trace's variables do not match {machine.spec_cls.__name__}: "
                         f"missing {missing}, unknown {extra}", source)
    steps = []
    for i, state in enumerate(data["states"]):
        values = {}
        for v in machine.variables:
            if v.name not in state:
                raise TraceError(f"state {i} has no value for {v.name}", source)
            try:
                values[v.name] = v.domain.encode(v.domain.from_itf(state[v.name]))
            except (OutOfDomain, KeyError, TypeError, ValueError) as e:
                raise TraceError(f"state {i}, variable {v.name}: {e}", source) from None
        code = tuple(values[n] for n in names)
        steps.append(_read_step(code, _dict(state.get("#meta")), i == 0))
    loop = data.get("loop")
    if loop is not None and not (isinstance(loop, int) and 0 <= loop < len(steps)):
        raise TraceError(f"loop index {loop!r} is outside the trace", source)
    head = _dict(data.get("#meta"))
    closing = head.get("loop_step")
    if loop is None or loop == len(steps) - 1 or not isinstance(closing, dict):
        closing = None                                  # no cycle to close, or not recorded
    return Trace(steps, loop, closing and _read_step(steps[loop].state, closing, False),
                 {k: str(v) for k, v in _dict(head.get("property_params")).items()})


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _read_step(code: tuple, meta: dict, first: bool) -> Step:
    """The step to state `code`, labelled from its `#meta` (none for the first state)."""
    action = meta.get("action")
    return Step(code, None if action in (None, "init") or first else action,
                meta.get("kind", "init" if first else "action"),
                {k: str(v) for k, v in (meta.get("params") or {}).items()},
                tuple(meta.get("choices") or ()))
