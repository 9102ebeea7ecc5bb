"""Replay a scenario against a real system and check each observation against the spec.

Real systems are asynchronous, so the check keeps a set of spec states the system may be
in: after a step, every successor by that step's binding, closed under the spontaneous
actions (those the system takes by itself, such as a driver starting). The adapter polls
its observation until it equals the abstraction of one of them or the step's deadline
passes; the states with that abstraction are the new set. A step whose observation
matches none is a disagreement. A spontaneous step of the scenario is a wait for its
target observation: if nothing happened by the deadline it is `stuck`; when the real
system took another allowed branch, the scenario stops there without failing
(`branch`), as it does when a controlled step is not enabled after such a branch.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Protocol

from ..explicit.machine import Machine
from .scenarios import Scenario, ScenarioStep

Obs = tuple                              # an abstract observation, as sorted (key, value) pairs


class Adapter(Protocol):
    spontaneous: frozenset[str]          # action names the real system takes by itself

    def abstract(self, plain: dict) -> dict:
        """What of a spec state (plain values) can be observed on the real system."""

    def observe(self) -> dict:
        """The real system's observation, in the same keys as `abstract`."""

    def perform(self, step: ScenarioStep, ahead: list[ScenarioStep]) -> None:
        """Make the real system take `step` (`ahead`: the rest of the path); for a
        spontaneous step, at most nudge it: the check waits for it to happen."""

    def deadline(self, step: ScenarioStep) -> float:
        """Seconds to wait for the observation after `step`."""


@dataclasses.dataclass
class Row:
    step: str
    verdict: str                          # ok, differs, stuck, branch
    allowed: list[dict]                   # the observations the spec allows here
    observed: dict
    taken: list[tuple[tuple, tuple]] = dataclasses.field(default_factory=list)
    """The spec's transitions (before, after) of this step consistent with what was seen."""


@dataclasses.dataclass
class ScenarioRun:
    scenario: Scenario
    rows: list[Row]
    seconds: float

    @property
    def ok(self) -> bool:
        return all(r.verdict in ("ok", "branch") for r in self.rows)


def _key(obs: dict) -> Obs:
    return tuple(sorted(obs.items()))


class _Checker:
    def __init__(self, machine: Machine, adapter: Adapter, poll: float):
        self.m, self.a, self.poll = machine, adapter, poll
        self._abs: dict[tuple, Obs] = {}

    def abstract(self, st) -> Obs:
        if st not in self._abs:
            self._abs[st] = _key(self.a.abstract(self.m.plain(st)))
        return self._abs[st]

    def closure(self, states) -> set:
        seen, todo = set(states), list(states)
        while todo:
            for b, _, succ in self.m.successors(todo.pop()):
                if b.name in self.a.spontaneous and succ not in seen:
                    seen.add(succ)
                    todo.append(succ)
        return seen

    def wait(self, wanted: set[Obs], seconds: float) -> Obs:
        """Poll until the observation is in `wanted` or `seconds` passed; the last one."""
        end = time.monotonic() + seconds
        while True:
            obs = _key(self.a.observe())
            if obs in wanted or time.monotonic() >= end:
                return obs
            time.sleep(self.poll)

    def row(self, label, verdict, allowed, obs, taken=()) -> Row:
        return Row(label, verdict, [dict(o) for o in sorted(allowed)], dict(obs), list(taken))


def run_scenario(machine: Machine, scenario: Scenario, adapter: Adapter,
                 poll: float = 0.2) -> ScenarioRun:
    """Replay `scenario` on the real system behind `adapter`; stop at the first failure."""
    c, started = _Checker(machine, adapter, poll), time.monotonic()
    pool = c.closure({scenario.start})
    allowed = {c.abstract(x) for x in pool}
    obs = c.wait(allowed, 10.0)
    rows = [c.row("initial state", "ok" if obs in allowed else "differs", allowed, obs)]
    states = {x for x in pool if c.abstract(x) == obs}
    for i, step in enumerate(scenario.steps):
        if not states:
            break
        pool = c.closure(states)
        label = step.binding.label
        pairs = [(x, y) for x in pool for b, _, y in machine.successors(x) if b is step.binding]
        if step.binding.name in adapter.spontaneous:
            allowed = {c.abstract(x) for x in pool}
            goal = c.abstract(step.state)
            if goal not in allowed:
                rows.append(c.row(label, "branch", {goal}, c.wait(allowed, 0)))
                break
            adapter.perform(step, scenario.steps[i + 1:])
            before, obs = obs, c.wait({goal}, adapter.deadline(step))
            verdict = ("ok" if obs == goal else "differs" if obs not in allowed
                       else "stuck" if obs == before else "branch")
        else:
            if not pairs:
                rows.append(c.row(label, "branch", set(), c.wait(set(), 0)))
                break
            adapter.perform(step, scenario.steps[i + 1:])
            pool = c.closure({y for _, y in pairs})
            allowed = {c.abstract(x) for x in pool}
            obs = c.wait(allowed, adapter.deadline(step))
            verdict = "ok" if obs in allowed else "differs"
        states = {x for x in pool if c.abstract(x) == obs} if verdict == "ok" else set()
        taken = [(x, y) for x, y in pairs if c.closure({y}) & states]
        rows.append(c.row(label, verdict, allowed, obs, taken))
    return ScenarioRun(scenario, rows, time.monotonic() - started)
