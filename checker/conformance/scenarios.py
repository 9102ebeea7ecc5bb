"""Scenarios generated from a spec: walks that cover every transition item once.

A transition item is what a step must show to count as tested: `items(binding, before,
after)` over plain states returns the items of one transition (default: its label).
The items are those of every transition reachable in at most `depth` steps. A scenario
starts in the initial state and repeatedly takes the shortest path to the nearest
transition with an item not yet covered, until it would exceed `length` steps; then the
next scenario starts. Few long walks, no repeated prefixes: each step against a real
system costs seconds.
"""
from __future__ import annotations

import dataclasses
from collections import deque
from typing import Callable, Hashable, Iterable

from ..explicit.machine import Machine
from ..lang.bound import Binding

Items = Callable[[Binding, dict, dict], Iterable[Hashable]]


def label_items(binding: Binding, before: dict, after: dict) -> Iterable[Hashable]:
    return (binding.label,)


@dataclasses.dataclass(frozen=True)
class ScenarioStep:
    binding: Binding
    state: tuple                     # the spec state this step leads to


@dataclasses.dataclass
class Scenario:
    start: tuple
    steps: list[ScenarioStep]
    items: list[Hashable]            # the new items its steps cover, in order


@dataclasses.dataclass
class Selection:
    scenarios: list[Scenario]
    items: set[Hashable]             # every item within the depth, less the skipped ones
    states: int


class _Graph:
    """Successors and their items, computed once per state."""

    def __init__(self, machine: Machine, items: Items):
        self.m, self.items_of, self.memo = machine, items, {}

    def edges(self, st) -> list[tuple[Binding, tuple, frozenset]]:
        if st not in self.memo:
            before = self.m.plain(st)
            self.memo[st] = [(b, succ, frozenset(self.items_of(b, before, self.m.plain(succ))))
                             for b, _, succ in self.m.successors(st)]
        return self.memo[st]


def select(machine: Machine, depth: int, items: Items = label_items, length: int = 30,
           skip: frozenset = frozenset()) -> Selection:
    """Scenarios of at most `length` steps covering every item reachable in `depth` steps,
    except those in `skip` (covered elsewhere, e.g. by another configuration)."""
    g, start = _Graph(machine, items), machine.initial_states()[0]
    universe, seen, level = set(), {start}, [start]
    for _ in range(depth):
        nxt = []
        for st in level:
            for _, succ, its in g.edges(st):
                universe |= its
                if succ not in seen:
                    seen.add(succ)
                    nxt.append(succ)
        level = nxt
    uncovered = universe - skip
    scenarios = []
    while uncovered:
        st, steps, found = start, [], []
        while len(steps) < length and (path := _nearest(g, st, uncovered, length - len(steps))):
            for step, its in path:
                new = [i for i in sorted(its, key=repr) if i in uncovered]
                uncovered.difference_update(new)
                found += new
                steps.append(step)
            st = steps[-1].state
        if not steps:
            break                    # the rest is out of reach within `length` steps
        scenarios.append(Scenario(start, steps, found))
    return Selection(scenarios, universe - skip, len(seen))


def _nearest(g: _Graph, st, uncovered: set, limit: int) -> list[tuple[ScenarioStep, frozenset]]:
    """The shortest path (at most `limit` steps) from `st` ending in an uncovered item."""
    parent = {st: None}
    queue = deque([(st, 0)])
    while queue:
        cur, d = queue.popleft()
        if d == limit:
            continue
        for b, succ, its in g.edges(cur):
            if its & uncovered:
                path = [(ScenarioStep(b, succ), its)]
                while parent[cur] is not None:
                    prev, step, prev_its = parent[cur]
                    path.append((step, prev_its))
                    cur = prev
                return path[::-1]
            if succ not in parent:
                parent[succ] = (cur, ScenarioStep(b, succ), its)
                queue.append((succ, d + 1))
    return []
