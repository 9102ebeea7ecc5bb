"""Bounded model checking: unroll Next from Init, one step at a time, in one solver.

Depth k is checked before depth k+1, so the first counterexample found is a shortest
one, and its length is the explicit engine's BFS depth. No bad state up to the bound
proves nothing beyond it: those properties stay `unknown`.
"""
from __future__ import annotations

from typing import Iterator

from ..lang.dsl import Kind
from .engine import Goal, SymbolicEngine, Unrolling


def search(rel, goals: list[Goal], bound: int, engine=None, stats=None) -> Iterator[tuple]:
    """(goal, (trace, instance)) for each goal reachable within `bound` steps, as found."""
    path, found = Unrolling(rel), set()
    for k in range(bound + 1):
        if k:
            path.extend()
        if stats is not None:
            stats.depth = k
        path.check_failures()
        for g in goals:
            if g.name not in found and path.reaches(g.bad):
                found.add(g.name)
                yield g, path.finding()
        if (goals and len(found) == len(goals)) or (engine is not None and engine.out_of_time()):
            break


class BMC(SymbolicEngine):
    name = "bmc"

    def decide(self, rel, goals, stats):
        found = set()
        for g, finding in search(rel, goals, self.depth_bound, self, stats):
            found.add(g.name)
            yield g.found(finding, "shortest")
        stopped = "time limit" if self.out_of_time() else f"depth {stats.depth}"
        for g in goals:
            if g.name not in found:
                what = "witness" if g.kind == Kind.REACHABLE else "counterexample"
                yield g.unknown(f"no {what} up to {stopped}")
