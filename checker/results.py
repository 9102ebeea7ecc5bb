"""What a check produces: verdicts, statistics, coverage; comparable and serialisable.

Engines fill these in; the CLI renders them and a CI gate compares them with the model
file's `[expect]` table. Nothing here knows how the verdicts were reached.
"""
from __future__ import annotations

import dataclasses
import enum
from typing import Any

from .lang.model_values import written


class Verdict(str, enum.Enum):
    HOLDS = "holds"           # invariant: no reachable violation; reachable: witness found
    VIOLATED = "violated"     # invariant: counterexample; reachable: no witness exists
    UNKNOWN = "unknown"       # a limit or an interrupt stopped the search first


@dataclasses.dataclass
class PropertyResult:
    name: str
    kind: str                       # invariant, reachable, deadlock
    verdict: Verdict
    reason: str | None = None       # why unknown, or what the trace shows
    trace: Any = None               # a checker.explicit.trace.Trace, for violations and witnesses
    trace_path: str | None = None
    more_traces: list = dataclasses.field(default_factory=list)    # the 2nd to Kth, by length
    more_trace_paths: list[str] = dataclasses.field(default_factory=list)
    certificate_path: str | None = None     # where a proof's certificate was written
    expected: Verdict | None = None
    where: str | None = None        # spec file:line of the property

    @property
    def undecided(self) -> bool:
        """Unknown where a decision was expected: the run was inconclusive for it."""
        return self.verdict is Verdict.UNKNOWN and self.expected is not Verdict.UNKNOWN

    @property
    def as_expected(self) -> bool:
        return self.verdict is (self.expected or Verdict.HOLDS)


@dataclasses.dataclass
class Stats:
    distinct_states: int = 0
    initial_states: int = 0         # initial states generated, duplicates included (TLC's count)
    transitions: int = 0            # successors produced, duplicates and self-loops included
    depth: int = 0
    seconds: float = 0.0
    queue: int = 0
    complete: bool = False
    workers: list[float] | None = None  # states/s of each worker (a partitioned search)
    split_seconds: float = 0.0      # wall seconds from the split to the workers' end

    @property
    def generated(self) -> int:
        """TLC's 'states generated': initial states plus every successor produced."""
        return self.initial_states + self.transitions

    @property
    def states_per_second(self) -> float:
        return self.distinct_states / self.seconds if self.seconds > 0 else 0.0


@dataclasses.dataclass
class Coverage:
    """How often each binding fired (produced a successor), in spec order."""

    fired: dict[str, int]                   # binding label -> count
    by_action: dict[str, int]               # action name -> count over its bindings

    @property
    def never_fired(self) -> list[str]:
        return [a for a, n in self.by_action.items() if n == 0]


@dataclasses.dataclass
class RunResult:
    model: str
    spec: str
    engine: str
    constants: dict[str, Any]
    stats: Stats
    properties: list[PropertyResult]
    coverage: Coverage | None = None
    stopped: str | None = None              # why the search stopped early (limit, interrupt)
    method: str | None = None               # how the engine ran, e.g. "bulk evaluation"
    simulation: dict[str, int] | None = None    # a simulation's seed, walks and depth

    @property
    def interrupted(self) -> bool:
        """Ctrl-C stopped the run (engines say so in `stopped`)."""
        return self.stopped is not None and "interrupted" in self.stopped

    @property
    def inconclusive(self) -> bool:
        return any(p.verdict is Verdict.UNKNOWN for p in self.properties)

    @property
    def exit_code(self) -> int:
        """0 all as expected, 1 something differs, 3 nothing differs but something is unknown."""
        decided = [p for p in self.properties if p.verdict is not Verdict.UNKNOWN]
        if any(not p.as_expected for p in decided):
            return 1
        if any(p.undecided for p in self.properties):
            return 3
        return 0

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "spec": self.spec,
            "engine": self.engine,
            "method": self.method,
            "constants": {k: _jsonable(v) for k, v in self.constants.items()},
            "stats": {
                "distinct_states": self.stats.distinct_states,
                "transitions": self.stats.transitions,
                "generated": self.stats.generated,
                "depth": self.stats.depth,
                "seconds": round(self.stats.seconds, 3),
                "states_per_second": round(self.stats.states_per_second),
                "complete": self.stats.complete,
                "split_seconds": round(self.stats.split_seconds, 3),
            },
            "stopped": self.stopped,
            "simulation": self.simulation,
            "properties": [{
                "name": p.name,
                "kind": p.kind,
                "verdict": p.verdict.value,
                "expected": p.expected.value if p.expected else None,
                "as_expected": p.as_expected,
                "trace": p.trace_path,
                "trace_length": len(p.trace.steps) - 1 if p.trace is not None else None,
                "traces": [path for path in [p.trace_path, *p.more_trace_paths] if path],
                "trace_lengths": [len(t.steps) - 1 for t in [p.trace, *p.more_traces] if t],
                "reason": p.reason,
                "where": p.where,
            } for p in self.properties],
            "coverage": None if self.coverage is None else {
                "actions": self.coverage.by_action,
                "bindings": self.coverage.fired,
                "never_fired": self.coverage.never_fired,
            },
        }


def _jsonable(value):
    return written(value, lambda e: e.value if isinstance(e.value, (str, int)) else e.name)
