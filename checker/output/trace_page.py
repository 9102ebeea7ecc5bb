"""A trace as one self-contained HTML page: `check-model show TRACE --html FILE`.

Everything the page needs is inline (its data as JSON, the script and the style from
`checker/output/web/`), so it opens from a CI artifact or a mail with no network. The work of
reading the ITF values (text, per-key and per-field changes) is done here, by the same
functions as the terminal's `show`; the script only lays the steps out and navigates.
"""
from __future__ import annotations

import html
import json
import re
from importlib import resources
from pathlib import Path

from ..actors import lane_key, lanes, step_actors
from .render import itf_diff, itf_text, step_text


def page_data(data: dict) -> dict:
    """What the page shows, from an ITF trace `checker.output.itf.read_itf` checked: the steps
    with their lanes and changes, each state's values as text, the actions' sources."""
    meta = data.get("#meta", {})
    info = meta.get("actions", {})
    states, names, loop = data["states"], data["vars"], data.get("loop")
    moves = [(s.get("#meta", {}), s) for s in states]
    closing = meta.get("loop_step") if isinstance(loop, int) and loop < len(states) - 1 else None
    if closing is not None:
        moves.append((closing, states[loop]))
    who = [step_actors(info, m.get("action"), m.get("kind", "")) for m, _ in moves]
    table = {m.get("action", "a step"): actors for (m, _), actors in zip(moves[1:], who[1:])}
    steps, previous = [], None
    for i, (smeta, state) in enumerate(moves):
        actor, calls = who[i] if i else (None, None)
        steps.append({
            "label": step_text(smeta, "a step") if i else "initial state",
            "action": smeta.get("action", "a step") if i else None,
            "fault": smeta.get("kind") == "fault",
            "lane": actor and lane_key(actor),
            "calls": calls and lane_key(calls),
            "closing": closing is not None and i == len(moves) - 1,
            "cycle": isinstance(loop, int) and i >= loop,
            "values": {v: itf_text(state[v]) for v in names},
            "changes": {} if previous is None else
                       {v: lines for v in names if (lines := itf_diff(v, previous[v], state[v]))},
        })
        previous = state
    ghosts, bookkeeping = set(meta.get("ghost", [])), set(meta.get("bookkeeping", []))
    return {
        "title": page_title(data), "verdict": meta.get("verdict"), "source": meta.get("source"),
        "loop": loop, "variables": [v for v in names if v not in ghosts | bookkeeping],
        "ghosts": [v for v in names if v in ghosts],
        "bookkeeping": [v for v in names if v in bookkeeping - ghosts],
        "lanes": [{"key": k, "name": n} for k, n in lanes(table, list(table)).items()],
        "actions": {name: {**i, "where": _where(i.get("where"))} for name, i in info.items()},
        "steps": steps,
    }


def page_title(data: dict) -> str:
    """`RayJob p3 invariant`: the spec, the property and its kind."""
    meta = data.get("#meta", {})
    return " ".join(str(meta[k]) for k in ("spec", "property", "kind") if k in meta) or "trace"


def _where(where: str | None) -> dict | None:
    """`file:line` as shown (relative to here when below it) and as a file:// link."""
    if not where:
        return None
    m = re.fullmatch(r"(.*):(\d+)", where)
    file, line = m.groups() if m else (where, "1")
    path = Path(file).resolve()
    try:
        shown = str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        shown = str(path)
    return {"text": f"{shown}:{line}", "href": path.as_uri()}


def _asset(name: str) -> str:
    return resources.files("checker.output").joinpath("web", name).read_text(encoding="utf-8")


def trace_page(data: dict) -> str:
    """The whole page for the ITF trace `data`."""
    payload = json.dumps(page_data(data), ensure_ascii=False).replace("<", "\\u003c")   # no </script>
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<title>{html.escape(page_title(data))}</title>\n"
            f"<style>{_asset('trace.css')}</style></head>\n"
            f"<body>\n<script type=\"application/json\" id=\"trace-data\">{payload}</script>\n"
            f"<script>{_asset('trace.js')}</script>\n</body></html>\n")
