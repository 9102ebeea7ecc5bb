"""The line every run ends with, and its warnings grouped: where you stand at a glance.

A run's last line starts with OK, FAIL or UNKNOWN (and the exit code agrees), so a
reader, a CI log or `tail -1` never has to read a table to know whether it passed.
"""
from __future__ import annotations

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


def warnings(result: RunResult, each: bool = False) -> list[str]:
    """One line per kind of warning: `8 actions never fired: a, b, c and 5 more` (`each`:
    one line per action). A partial search proves no action dead, so it warns of none;
    a simulation's walks suggest one, and say so."""
    if result.coverage is None or not (result.stats.complete or result.simulation):
        return []
    dead = result.coverage.never_fired
    where = f" in {counted(result.simulation['walks'], 'walk')}" if result.simulation else ""
    if each:
        return [f"action {name} never fired{where}" for name in dead]
    return [f"{counted(len(dead), 'action')} never fired{where}: {', '.join(dead)}"] if dead else []
