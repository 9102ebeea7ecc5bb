"""k-induction: a property is k-inductive if no k+1 consecutive distinct states, the
first k good, end in a bad one; with no counterexample of length < k+1 from Init it
then holds in every reachable state.

The base case is BMC (`search`); the step case is a second incremental solver over a
path that starts anywhere, constrained to be loop-free so that k grows to completeness.
"""
from __future__ import annotations

import z3

from .bmc import search
from .engine import SymbolicEngine, Unrolling


class KInduction(SymbolicEngine):
    name = "kind"

    def decide(self, rel, goals, stats):
        for g in goals:
            yield self._one(rel, g, stats)

    def _one(self, rel, goal, stats):
        bad = z3.Or(goal.bad, rel.failing())
        step = Unrolling(rel, initial=False)
        for k in range(1, self.depth_bound + 1):
            for _, finding in search(rel, [goal], k - 1, self):
                return goal.found(finding, "shortest")
            step.solver.add(step.at(z3.Not(bad), k - 1))
            xs = step.extend()
            step.solver.add(z3.And([z3.Or([a != b for a, b in zip(xs, ys)])
                                    for ys in step.states[:-1]]))
            stats.depth = max(stats.depth, k)
            if step.check(bad) == z3.unsat:
                return goal.excluded(f"{k}-inductive" + ("" if k > 1 else " (inductive)"))
            if self.out_of_time():
                return goal.unknown(f"time limit, not k-inductive up to {k}")
        return goal.unknown(f"not k-inductive up to {self.depth_bound}")
