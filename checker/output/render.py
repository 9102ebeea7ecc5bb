"""Human-readable output: the results table, coverage warnings, and traces step by step."""
from __future__ import annotations

import functools
import json
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..engines import ENGINES
from ..results import RunResult, Verdict
from .summary import counted, more_traces, never_fired, next_command, overview, run_line, steps_text

_STYLE = {Verdict.HOLDS: "green", Verdict.VIOLATED: "red", Verdict.UNKNOWN: "yellow"}


def console(stderr: bool = False) -> Console:
    """A console that keeps tables readable when output is piped (CI logs)."""
    c = Console(stderr=stderr, highlight=False)
    if not c.is_terminal:
        c = Console(stderr=stderr, highlight=False, width=160)
    return c


def fail(err: Console, e: Exception) -> None:
    """Report a user-facing error as one line and exit 2 (usage, model or spec error)."""
    err.print(f"[red]error[/]: {escape(str(e))}", soft_wrap=True)
    sys.exit(2)


def print_result(out: Console, result: RunResult, verbose: bool = False) -> None:
    """The verdicts per kind of property, coverage and where the traces went, the next
    command to try, and the summary line; `verbose` prints every verdict as a table, the
    statistics and each action that never fired instead of the overview."""
    if verbose:
        print_details(out, result)
    else:
        for line in overview(result):
            out.print(escape(line), soft_wrap=True)
    command = next_command(result)
    if command:
        out.print(f"[dim]next:[/] {escape(command)}", soft_wrap=True)
    print_summary(out, run_line(result))


def print_summary(out: Console, line: str) -> None:
    """The last line of a run, its first word coloured."""
    word, _, rest = line.partition(":")
    out.print(f"[{_OUTCOME_STYLE[word]}]{word}[/]:{escape(rest)}", soft_wrap=True)


_OUTCOME_STYLE = {"OK": "green bold", "FAIL": "red bold", "UNKNOWN": "yellow bold"}


def print_details(out: Console, result: RunResult) -> None:
    """Every verdict as a table, the statistics, and each action that never fired."""
    table = Table(title=f"{result.model or result.spec}  ({result.spec}, {result.engine} engine)",
                  title_justify="left")
    for col in ("property", "kind", "verdict", "expected"):
        table.add_column(col, no_wrap=True)
    table.add_column("trace", overflow="fold")
    for p in result.properties:
        verdict = f"[{_STYLE[p.verdict]}]{p.verdict.value}[/]"
        if not p.as_expected and p.verdict is not Verdict.UNKNOWN:
            verdict += " [red bold]✗[/]"
        trace = p.trace_path or ""
        if p.trace is not None:
            trace = f"{steps_text(p.trace)}  {trace}{more_traces(p)}"
            if p.trace.property_params:
                trace = ", ".join(f"{k}={v}" for k, v in p.trace.property_params.items()) + f": {trace}"
        elif p.reason:                         # why unknown; what a proof covers
            trace = p.reason
        table.add_row(escape(p.name), p.kind, verdict, p.expected.value if p.expected else "-",
                      escape(trace))
    out.print(table)
    s = result.stats
    if ENGINES[result.engine].counts_states:
        line = (f"{s.distinct_states:,} distinct states, {s.transitions:,} transitions, "
                f"depth {s.depth}, {s.seconds:.2f} s, {s.states_per_second:,.0f} states/s")
        if result.method:
            line += f"  ({escape(result.method)})"
    elif result.simulation is not None:
        line = (f"{result.simulation['walks']:,} walks, {s.transitions:,} steps, "
                f"{s.distinct_states:,} distinct states, longest walk {s.depth}, "
                f"{s.seconds:.2f} s  ({escape(result.method or '')})")
    else:                                      # symbolic engines count no states
        line = f"{result.engine}: depth {s.depth}, {s.seconds:.2f} s"
    out.print(line + ("" if s.complete else f"  [yellow](incomplete: {escape(result.stopped or '')})[/]"))
    for line in never_fired(result):
        out.print(f"[yellow]warning:[/] {escape(line)}")


def itf_text(value: Any) -> str:
    """Compact text for an ITF value (as `checker.output.itf.read_itf` checked it): 3, "x",
    {a, b}, {k ↦ v}, Some(3), <<a, b>>."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(itf_text(v) for v in value) + "]"
    if "#bigint" in value:                       # an object from here on
        return value["#bigint"]
    if "#unserializable" in value:
        return value["#unserializable"]
    if "#set" in value:
        return "{" + ", ".join(itf_text(v) for v in value["#set"]) + "}"
    if "#tup" in value:
        return "<<" + ", ".join(itf_text(v) for v in value["#tup"]) + ">>"
    if "#map" in value:
        return "{" + ", ".join(f"{itf_text(k)} ↦ {itf_text(v)}" for k, v in value["#map"]) + "}"
    if set(value) == {"tag", "value"}:
        inner = value["value"]
        if inner in ({}, {"#tup": []}):
            return value["tag"]
        return f"{value['tag']}({itf_text(inner)})"
    return "{" + ", ".join(f"{k}: {itf_text(v)}" for k, v in value.items()) + "}"


def itf_diff(name: str, old: Any, new: Any) -> list[str]:
    """What changed, key by key in maps and field by field in records: `pc[2]: Loop → Eat`.
    A map key on one side only is None on the other, shown as `(none)`."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        if "#map" in old and "#map" in new:
            ref = functools.partial(json.dumps, sort_keys=True)
            before, after = ({ref(k): v for k, v in m["#map"]} for m in (old, new))
            keys = {ref(k): k for k, _ in old["#map"] + new["#map"]}
            return [line for r, k in keys.items()
                    for line in itf_diff(f"{name}[{itf_text(k)}]", before.get(r), after.get(r))]
        if not any(k.startswith("#") for k in (*old, *new)) and "tag" not in old and set(old) == set(new):
            return [line for field in new for line in itf_diff(f"{name}.{field}", old[field], new[field])]
    shown = ["(none)" if v is None else itf_text(v) for v in (old, new)]
    return [f"{name}: {shown[0]} → {shown[1]}"]


def print_trace(out: Console, data: dict, bookkeeping: bool = False) -> None:
    """A table with one row per step: the action and what it changed; the spec's
    bookkeeping variables only if asked (a line says which were left out)."""
    meta = data.get("#meta", {})
    ghost = set(meta.get("ghost", []))
    hidden = [] if bookkeeping else [v for v in meta.get("bookkeeping", []) if v in data["vars"]]
    variables = [v for v in data["vars"] if v not in hidden]
    loop = data.get("loop")
    title = " ".join(x for x in (meta.get("spec"), meta.get("property"), meta.get("kind")) if x)
    table = Table(title=escape(title) or None, title_justify="left", show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("step")
    table.add_column("changes")
    previous: dict | None = None
    for i, state in enumerate(data["states"]):
        smeta = state.get("#meta", {})
        label = _step_label(smeta, "init" if i == 0 else "?")
        if loop is not None and i == loop:
            label = f"[magenta]⟲ loop starts[/] {label}"
        table.add_row(str(i), label, _changes(variables, ghost, previous, state))
        previous = state
    last = len(data["states"]) - 1
    if isinstance(loop, int) and 0 <= loop < last:       # the step that closes the cycle
        closing = meta.get("loop_step") if isinstance(meta.get("loop_step"), dict) else {}
        table.add_row("⟲", f"{_step_label(closing, 'a step')} [magenta]back to state {loop}[/]",
                      _changes(variables, ghost, previous, data["states"][loop]))
    out.print(table)
    if hidden:
        out.print(f"[dim]{counted(len(hidden), 'bookkeeping variable')} not shown (--all shows them): "
                  f"{escape(', '.join(hidden))}[/]")
    if loop is not None:
        out.print(f"[magenta]the behaviour stays in state {loop} forever (stuttering)[/]" if loop == last
                  else f"[magenta]the last state loops back to state {loop}[/]")


def step_text(smeta: dict, default: str) -> str:
    """`action(k=v) choosing ...`: a step's ITF `#meta` as plain text."""
    action = smeta.get("action", default)
    params = smeta.get("params") or {}
    label = action + (f"({', '.join(f'{k}={itf_text(v)}' for k, v in params.items())})"
                      if params else "")
    if smeta.get("choices"):
        label += f" choosing {', '.join(map(itf_text, smeta['choices']))}"
    return label


def _step_label(smeta: dict, default: str) -> str:
    """The step's text as rich markup, marked when a fault."""
    label = escape(step_text(smeta, default))
    return f"[red]fault[/] {label}" if smeta.get("kind") == "fault" else label


def _changes(variables: list, ghost: set, previous: dict | None, state: dict) -> str:
    """Every variable of the first state; then what changed, or `(no change)`."""
    rows = []
    for var in variables:
        tag = " [dim](ghost)[/]" if var in ghost else ""
        if previous is None:
            rows.append(f"{escape(var)}{tag} = {escape(itf_text(state.get(var)))}")
        else:
            rows += [escape(line) + tag for line in itf_diff(var, previous.get(var), state.get(var))]
    return "\n".join(rows) or "[dim](no change)[/]"
