"""A trace as a Mermaid sequence diagram, for the gate's Markdown summary.

One lifeline per actor (`checker.actors`: a class and its `calls=` spelling are one), a
numbered message per step, faults as notes, a lasso's cycle in a `loop` block, and a
last note where the property breaks. Lifelines get neutral ids (`a0`, `a1`, ...) and
show the actor's name as an alias, so an actor called `End` or `Note` is only text.
"""
from __future__ import annotations

import re

from ..actors import lane_key, lanes, step_actors
from ..lang.dsl import Kind
from ..explicit.trace import Step, Trace


def _text(label: str) -> str:
    """Message text Mermaid takes literally: no statement separators or entity codes."""
    return re.sub(r"[;#%]", " ", label).replace("\n", " ").strip()


def sequence(trace: Trace, info: dict[str, dict], prop: str, verdict: str) -> str:
    """The diagram of `trace` (of `prop`, found `verdict`); `info` describes its actions."""
    moves = trace.steps[1:] + ([trace.closing] if trace.closing else [])
    table = {s.action: step_actors(info, s.action, s.kind) for s in moves}
    shown = lanes(table, list(table)) or {"spec": "spec"}
    ids = {key: f"a{i}" for i, key in enumerate(shown)}
    every = f"{ids[next(iter(shown))]},{ids[list(shown)[-1]]}" if len(ids) > 1 else ids[next(iter(shown))]
    body = [f"    participant {ids[key]} as {_text(name)}" for key, name in shown.items()]
    if not moves:
        body.append(f"    Note over {every}: 0. the initial state")
    for i, step in enumerate(trace.steps[1:], 1):
        if trace.loop is not None and i == trace.loop + 1:
            body.append(f"    loop the cycle from state {trace.loop}, forever")
        body.append(_message(step, f"{i}. {_text(step.label)}", table, ids))
    if trace.closing is not None:
        body.append(_message(trace.closing, f"⟲ {_text(trace.closing.label)} back to state "
                                             f"{trace.loop}", table, ids))
    if trace.loop is not None and trace.loop < len(trace.steps) - 1:
        body.append("    end")
    elif trace.loop is not None:
        body.append(f"    Note over {every}: state {trace.loop} repeats forever (stuttering)")
    body.append(f"    Note over {every}: ✗ {_text(prop)} {verdict}")
    return "\n".join(["sequenceDiagram", *body])


def _message(step: Step, text: str, table: dict, ids: dict[str, str]) -> str:
    """A fault as a note on its actor; an action as a message to whom it calls."""
    actor, calls = table[step.action]
    source = ids[lane_key(actor)]
    if step.kind == Kind.FAULT:
        return f"    Note over {source}: ⚡ {text}"
    return f"    {source}->>{ids[lane_key(calls)] if calls else source}: {text}"
