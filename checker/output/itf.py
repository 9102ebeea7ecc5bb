"""Traces as ITF JSON (Apalache ADR-015, as written by Quint), and back.

Each state's `#meta` names the step that produced it: `action`, `kind` (init, action,
fault), `params` and `choices`. Ghost variables are listed in the trace's `#meta.ghost`
so renderers can set them apart from the system's state, and bookkeeping variables in
`#meta.bookkeeping` so that they can hide them. A lasso's trace `#meta` adds
`loop_step`, the step from the last state back to state `loop`, and, for a property with
parameters, `property_params`, the instance it refutes. `#meta.actions` describes each
action the trace takes (actor, calls, kind, where, doc: strings) for the HTML page.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..lang.domains import OutOfDomain, enum_label
from ..lang.model_values import written
from ..errors import TraceError
from ..files import read_text, write_text
from .jsontext import indented
from ..explicit.machine import Machine
from ..explicit.trace import Step, Trace

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
        "bookkeeping": [v.name for v in variables if v.bookkeeping],
        **meta,
    }
    if trace.closing is not None:
        head["loop_step"] = _step_meta(trace.closing)       # from the last state to `loop`
    if trace.property_params:
        head["property_params"] = trace.property_params
    head.update(trace.found)
    data = {"#meta": head, "vars": [v.name for v in variables], "states": states}
    if trace.loop is not None:
        data["loop"] = trace.loop
    return data


def _step_meta(step: Step) -> dict:
    return {"action": step.action or "init", "kind": step.kind, "params": step.params,
            "choices": list(step.choices)}


def _plain_const(value):
    return written(value, enum_label)


def write_itf(path: Path, machine: Machine, trace: Trace, **meta: Any) -> Path:
    return write_text(path, indented(to_itf(machine, trace, **meta)) + "\n")


def read_itf(path: str | Path) -> dict:
    """Load an ITF file and check its whole shape here, once, so that `show` and `replay`
    can use every part without guarding it: a malformed trace is one TraceError naming
    the JSON path of what is wrong (`states[3].x`)."""
    where = str(path)
    try:
        data = json.loads(read_text(path, "trace", TraceError))
    except json.JSONDecodeError as e:
        raise TraceError(f"not valid JSON: {e.msg}", f"{where}:{e.lineno}") from None
    except (ValueError, RecursionError) as e:          # a number of 4,300+ digits; deep nesting
        what = "nested too deeply" if isinstance(e, RecursionError) else "a number is too long"
        raise TraceError(f"not valid JSON: {what}", where) from None
    try:
        check_trace(data)
    except TraceError as e:
        raise TraceError(e.message, where) from None
    return data


MAX_DEPTH = 64
"""How deep ITF values may nest: far deeper than any finite domain writes, and shallow
enough that rendering them never reaches Python's recursion limit."""


def check_trace(data: Any) -> None:
    """Raise TraceError at the first part of `data` that is not an ITF trace."""
    if not isinstance(data, dict) or "vars" not in data or "states" not in data:
        raise TraceError("not an ITF trace: needs 'vars' and 'states' lists")
    meta = _typed(data.get("#meta", {}), dict, "#meta")
    for key in ("spec", "property", "kind"):
        if key in meta:
            _text(meta[key], f"#meta.{key}")
    _names(meta.get("ghost", []), "#meta.ghost")
    _names(meta.get("bookkeeping", []), "#meta.bookkeeping")
    if "loop_step" in meta:
        _check_step(meta["loop_step"], "#meta.loop_step")
    for action, info in _typed(meta.get("actions", {}), dict, "#meta.actions").items():
        for key, value in _typed(info, dict, _member("#meta.actions", action)).items():
            _text(value, _member(_member("#meta.actions", action), key))
    for key, value in _typed(meta.get("property_params", {}), dict, "#meta.property_params").items():
        _check_value(value, _member("#meta.property_params", key))
    _names(data.get("params", []), "params")
    names = _names(data["vars"], "vars")
    states = _typed(data["states"], list, "states")
    if not states:
        raise TraceError("the trace has no states")
    for i, state in enumerate(states):
        _check_state(state, names, f"states[{i}]")
    loop = data.get("loop")
    if loop is not None and not (type(loop) is int and 0 <= loop < len(states)):
        raise TraceError(f"loop: {json.dumps(loop)} is not the index of a state "
                         f"(0 to {len(states) - 1})")


def _check_state(state: Any, names: list[str], where: str) -> None:
    _typed(state, dict, where)
    _check_step(state.get("#meta", {}), f"{where}.#meta")
    for name in names:
        if name not in state:
            raise TraceError(f"{_member(where, name)}: missing")
        _check_value(state[name], _member(where, name))


def _check_step(meta: Any, where: str) -> None:
    """A step's `#meta`: the action, its kind, parameters and choices."""
    _typed(meta, dict, where)
    for key in ("action", "kind"):
        if key in meta:
            _text(meta[key], f"{where}.{key}")
    params = _typed(meta.get("params", {}), dict, f"{where}.params")
    for key, value in params.items():
        _text(key, f"{where}.params")
        _check_value(value, _member(f"{where}.params", key))
    for i, choice in enumerate(_typed(meta.get("choices", []), list, f"{where}.choices")):
        _check_value(choice, f"{where}.choices[{i}]")


_FORMS = {"#bigint", "#tup", "#set", "#map", "#unserializable"}


def _check_value(value: Any, where: str, depth: int = 0) -> None:
    """An ITF expression: bool, integer, string, list, record, variant or a `#` form."""
    if depth > MAX_DEPTH:
        raise TraceError(f"{where}: nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        _text(value, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_value(item, f"{where}[{i}]", depth + 1)
    elif isinstance(value, dict):
        _check_object(value, where, depth)
    elif not isinstance(value, int):                    # bool is an int
        raise TraceError(f"{where}: {json.dumps(value)} is not an ITF value "
                         f"(numbers are integers, and there is no null)")


def _check_object(value: dict, where: str, depth: int) -> None:
    forms = [k for k in value if k.startswith("#")]
    if not forms:                                       # a record, or a variant
        if set(value) == {"tag", "value"}:
            _text(value["tag"], f"{where}.tag")
        for key, item in value.items():
            _text(key, where)
            _check_value(item, _member(where, key), depth + 1)
        return
    form = forms[0]
    if form not in _FORMS:
        raise TraceError(f"{where}: {form!r} is not an ITF form ({', '.join(sorted(_FORMS))})")
    if len(value) != 1:
        raise TraceError(f"{where}: {form} must be the object's only key")
    inner, at = value[form], f"{where}.{form}"
    if form in ("#bigint", "#unserializable"):
        _text(inner, at)
        if form == "#bigint" and not re.fullmatch(r"-?[0-9]+", inner):
            raise TraceError(f"{at}: {json.dumps(inner)} is not an integer")
        return
    items = _typed(inner, list, at)
    if form == "#map":
        items = [_typed(pair, list, f"{at}[{i}]") for i, pair in enumerate(items)]
        if any(len(pair) != 2 for pair in items):
            raise TraceError(f"{at}: each entry must be a [key, value] pair")
    for i, item in enumerate(items):
        _check_value(item, f"{at}[{i}]", depth + 1)


def _member(where: str, key: str) -> str:
    """The JSON path of `where`'s member `key`: `states[3].x`, or `states[3]["a b"]`."""
    return f"{where}.{key}" if re.fullmatch(r"[\w#:-]+", key, re.ASCII) else f"{where}[{json.dumps(key)}]"


_JSON_TYPES = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
               int: "a number", float: "a number", type(None): "null"}


def _typed(value: Any, kind: type, where: str) -> Any:
    if not isinstance(value, kind):
        raise TraceError(f"{where}: expected {_JSON_TYPES[kind]}, got {_JSON_TYPES[type(value)]}")
    return value


def _text(value: Any, where: str) -> str:
    """A string that can be printed: JSON's \\ud800 escapes give unpaired surrogates."""
    _typed(value, str, where)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise TraceError(f"{where}: a string holds an unpaired UTF-16 surrogate") from None
    return value


def _names(value: Any, where: str) -> list[str]:
    """A list of distinct strings (`vars`, `params`, `#meta.ghost`)."""
    seen = set()
    for i, name in enumerate(_typed(value, list, where)):
        if _text(name, f"{where}[{i}]") in seen:
            raise TraceError(f"{where}[{i}]: {name!r} is listed twice")
        seen.add(name)
    return value


def from_itf(machine: Machine, data: dict, source: str = "trace") -> Trace:
    """Decode a trace `read_itf` checked into a Trace of this machine's states (labels, and
    the property it is about, from #meta)."""
    names = [v.name for v in machine.variables]
    if sorted(data["vars"]) != sorted(names):
        missing = sorted(set(names) - set(data["vars"]))
        extra = sorted(set(data["vars"]) - set(names))
        raise TraceError(f"the trace's variables do not match {machine.spec_cls.__name__}: "
                         f"missing {missing}, unknown {extra}", source)
    prop = data.get("#meta", {}).get("property")
    if prop not in (None, "deadlock", *(p.name for p in machine.properties)):
        raise TraceError(f"#meta.property: {machine.spec_cls.__name__} has no property {prop!r}",
                         source)
    steps = []
    for i, state in enumerate(data["states"]):
        values = {}
        for v in machine.variables:
            try:
                values[v.name] = v.domain.encode(v.domain.from_itf(state[v.name]))
            except (OutOfDomain, KeyError, TypeError, ValueError) as e:
                raise TraceError(f"states[{i}].{v.name}: {e}", source) from None
        code = tuple(values[n] for n in names)
        steps.append(_read_step(code, state.get("#meta", {}), i == 0))
    loop, head = data.get("loop"), data.get("#meta", {})
    closing = head.get("loop_step")
    if loop is None or loop == len(steps) - 1 or not isinstance(closing, dict):
        closing = None                                  # no cycle to close, or not recorded
    params = head.get("property_params")
    return Trace(steps, loop, closing and _read_step(steps[loop].state, closing, False),
                 {k: str(v) for k, v in params.items()} if isinstance(params, dict) else {}, prop)


def _read_step(code: tuple, meta: dict, first: bool) -> Step:
    """The step to state `code`, labelled from its `#meta` (none for the first state)."""
    action = meta.get("action")
    return Step(code, None if action in (None, "init") or first else action,
                meta.get("kind", "init" if first else "action"),
                {k: str(v) for k, v in (meta.get("params") or {}).items()},
                tuple(meta.get("choices") or ()))
