"""The line every run ends with, and its warnings grouped: where you stand at a glance.

A run's last line starts with OK, FAIL or UNKNOWN (and the exit code agrees), so a
reader, a CI log or `tail -1` never has to read a table to know whether it passed.
"""
from __future__ import annotations

from pathlib import Path

from ..results import PropertyResult, RunResult, Verdict

NAMED = 3
"""How many failing properties or models the line names before `and N more`."""


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """'1 model', '2 models', '4,698 states', '76 properties'."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def listed(names: list[str]) -> str:
    """The first few of `names`, and how many more (`-v` shows them all)."""
    shown = ", ".join(names[:NAMED])
    return shown + (f" and {len(names) - NAMED} more" if len(names) > NAMED else "")


def outcome(failed: bool, undecided: bool) -> str:
    """The word a summary line starts with."""
    return "FAIL" if failed else "UNKNOWN" if undecided else "OK"


def run_line(result: RunResult) -> str:
    """`OK: 76 properties as expected (4,698 states, 0.7 s)`, or what differs first:
    `FAIL: 2 differ: p3 (violated in 17 steps, traces/m/p3.itf.json), ...`."""
    decided = [p for p in result.properties if p.verdict is not Verdict.UNKNOWN]
    differ = [p for p in decided if not p.as_expected]
    undecided = [p for p in result.properties if p.undecided]
    expected = len(result.properties) - len(differ) - len(undecided)
    parts = []
    if differ:
        parts.append(f"{len(differ)} differ: {listed([_differs(p) for p in differ])}")
    if undecided:
        parts.append(f"{len(undecided)} undecided: {listed([p.name for p in undecided])}")
    if expected or not parts:
        parts.append(f"{counted(expected, 'property', 'properties')} as expected" if not parts
                     else f"{expected} as expected")
    return f"{outcome(bool(differ), bool(undecided))}: {'; '.join(parts)} ({_cost(result)})"


def _differs(p: PropertyResult) -> str:
    """`p3 (violated in 17 steps, traces/...)`, or `w (violated, expected holds)`."""
    if p.trace is not None:
        return f"{p.name} ({p.verdict.value} in {steps_text(p.trace)}, {p.trace_path}{more_traces(p)})"
    return f"{p.name} ({p.verdict.value}, expected {(p.expected or Verdict.HOLDS).value})"


def steps_text(trace) -> str:
    """`17 steps`, and `(not shortest)` for a trace a simulation found."""
    return f"{len(trace.steps) - 1} steps" + (" (not shortest)" if trace.found else "")


def more_traces(p: PropertyResult) -> str:
    """` and 2 more traces` after the first trace's file, when it has company."""
    return f" and {counted(len(p.more_traces), 'more trace')}" if p.more_traces else ""


def _cost(result: RunResult) -> str:
    s = result.stats
    size = counted(s.distinct_states, "state") if s.distinct_states else result.engine
    stopped = f"; stopped: {result.stopped}" if result.stopped else ""
    return f"{size}, {s.seconds:.1f} s{stopped}"


_VERDICT_WORDS = {               # kind -> (holds, violated): what each verdict means there
    "reachable": ("reached", "not reachable"),
}


def overview(result: RunResult) -> list[str]:
    """A few lines above the summary: per kind of property, how many hold and which are
    violated (with their traces' lengths); how many actions fired; where the traces went.
    What a first run should show without a table."""
    lines = []
    for kind in dict.fromkeys(p.kind for p in result.properties):
        mine = [p for p in result.properties if p.kind == kind]
        lines.append(f"{kind:<15} " + (_deadlock(mine[0]) if kind == "deadlock" else
                                        " · ".join(_tally(kind, mine))))
    if result.coverage is not None and (result.stats.complete or result.simulation):
        dead = len(result.coverage.never_fired)
        fired = len(result.coverage.by_action) - dead
        lines.append(f"{'actions':<15} {fired} of {len(result.coverage.by_action)} fired"
                     + (f" (-v names the {dead} that never did)" if dead else ""))
    traces = [path for p in result.properties for path in (p.trace_path, *p.more_trace_paths) if path]
    if traces:
        folders = sorted({str(Path(path).parent) for path in traces})
        lines.append(f"{'traces':<15} {len(traces):,} written to {', '.join(folders)}/")
    return lines


def _tally(kind: str, mine: list[PropertyResult]) -> list[str]:
    """`25 hold`, `4 violated: p5b (30 steps), ...`, `1 unknown: p9`."""
    yes, no = _VERDICT_WORDS.get(kind, ("hold", "violated"))
    parts = []
    for word, verdict in ((yes, Verdict.HOLDS), (no, Verdict.VIOLATED), ("unknown", Verdict.UNKNOWN)):
        chosen = [p for p in mine if p.verdict is verdict]
        if chosen:
            names = "" if verdict is Verdict.HOLDS else f": {listed([_named(p) for p in chosen])}"
            parts.append(f"{len(chosen)} {word}{names}")
    return parts


def _deadlock(p: PropertyResult) -> str:
    """`none`, `found (3 steps)` or `unknown`."""
    if p.verdict is Verdict.VIOLATED:
        return "found" + (f" ({steps_text(p.trace)})" if p.trace is not None else "")
    return "none" if p.verdict is Verdict.HOLDS else "unknown"


def _named(p: PropertyResult) -> str:
    """`p7 (21 steps)`, `w (no witness)`, marked `✗` where it differs from the expectation."""
    shown = p.name + (f" ({steps_text(p.trace)})" if p.trace is not None else "")
    return shown + ("" if p.as_expected or p.verdict is Verdict.UNKNOWN else " ✗")


def next_command(result: RunResult) -> str | None:
    """What to run next: the trace of the first property that differs, else of the first
    counterexample; None where no property has a trace."""
    with_trace = [p for p in result.properties if p.trace_path]
    differ = [p for p in with_trace if not p.as_expected]
    violated = [p for p in with_trace if p.verdict is Verdict.VIOLATED]
    chosen = (differ or violated or with_trace or [None])[0]
    if chosen is None:
        return None
    what = "counterexample" if chosen.verdict is Verdict.VIOLATED else "witness"
    return (f"check-model show {chosen.trace_path}   (the {what} step by step; "
            f"--html FILE for a web page)")


def never_fired(result: RunResult) -> list[str]:
    """`action a never fired`, one line per action (`-v`). A partial search proves no
    action dead, so it names none; a simulation's walks suggest one, and say so."""
    if result.coverage is None or not (result.stats.complete or result.simulation):
        return []
    where = f" in {counted(result.simulation['walks'], 'walk')}" if result.simulation else ""
    return [f"action {name} never fired{where}" for name in result.coverage.never_fired]
