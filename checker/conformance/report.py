"""Coverage and disagreements of a conformance run, as tables (spec allowed / real did)."""
from __future__ import annotations

import dataclasses
from typing import Hashable

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..explicit.machine import Machine
from .replay import ScenarioRun
from .scenarios import Items, Selection


@dataclasses.dataclass
class ConfigRun:
    """The scenarios of one configuration of a spec and how the real system did."""

    name: str
    machine: Machine
    selection: Selection
    items: Items
    runs: list[ScenarioRun]
    seconds: float

    @property
    def ok(self) -> bool:
        return len(self.runs) == len(self.selection.scenarios) and all(r.ok for r in self.runs)

    def exercised(self) -> set[Hashable]:
        """The items of the spec's transitions the real system was seen to take."""
        m, done = self.machine, set()
        for run in self.runs:
            for row, step in zip(run.rows[1:], run.scenario.steps):
                for x, y in row.taken:
                    done.update(self.items(step.binding, m.plain(x), m.plain(y)))
        return done & self.selection.items


def _diff(allowed: dict, observed: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in allowed.items() if observed.get(k) != v) or "(same)"


def print_report(out: Console, results: list[ConfigRun]) -> None:
    coverage = Table(title="Coverage (transition items within the depth bound)")
    for col in ("configuration", "items", "exercised", "scenarios", "steps", "seconds", "result"):
        coverage.add_column(col)
    problems = Table(title="Disagreements: spec allowed / real system did", show_lines=True)
    for col in ("configuration", "scenario", "step", "verdict", "spec allowed", "real did"):
        problems.add_column(col)
    missed = []
    for c in results:
        done = c.exercised()
        coverage.add_row(c.name, str(len(c.selection.items)), str(len(done)),
                         f"{len(c.runs)}/{len(c.selection.scenarios)}",
                         str(sum(len(r.rows) - 1 for r in c.runs)), f"{c.seconds:.0f}",
                         "[green]agrees[/]" if c.ok else "[red]DISAGREES[/]")
        missed += [(c.name, i) for i in sorted(c.selection.items - done, key=repr)]
        for n, run in enumerate(c.runs, 1):
            for k, row in enumerate(run.rows):
                if row.verdict in ("ok", "branch"):
                    continue
                allowed = "\n".join(escape(_diff(a, row.observed)) for a in row.allowed[:6])
                real = ", ".join(f"{key}={v}" for key, v in row.observed.items())
                problems.add_row(c.name, str(n), f"{k}. {escape(row.step)}", row.verdict,
                                 allowed or "nothing", escape(real))
    out.print(coverage)
    if problems.row_count:
        out.print(problems)
    else:
        out.print("[green]No disagreement[/]: every observation was one the spec allows.")
    for name, i in missed:
        out.print(f"not exercised ({escape(name)}): {escape(repr(i))}")
