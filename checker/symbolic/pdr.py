"""PDR / IC3 with Z3's Spacer, over constrained Horn clauses:

    Inv(x)  <-  Valid(x) /\\ Init(x)
    Inv(x') <-  Inv(x) /\\ Next(x, x') /\\ Valid(x')
    false   <-  Inv(x) /\\ (Bad(x) \\/ Fail(x))

Unsatisfiable means no bad state is reachable, and Spacer's solution for Inv is an
inductive invariant: the proof, kept as a certificate that `check-model certify`
re-checks. Satisfiable means one is reachable: BMC then finds the shortest trace.
Each goal is queried over its cone of influence (`cone`): Inv ranges over the state the
property depends on, not over the ghosts and bookkeeping of the others.
"""
from __future__ import annotations

import z3

from .bmc import search
from .certificate import Certificate
from .cone import cone
from .engine import SymbolicEngine


class PDR(SymbolicEngine):
    name = "pdr"

    def decide(self, rel, goals, stats):
        return [self._one(rel, g) for g in goals]

    def _one(self, full, goal):
        rel = cone(full, goal.bad)
        args = rel.flat + list(rel.params.values())
        inv = z3.Function("Inv", *[a.sort() for a in args], z3.BoolSort())
        xs2 = rel.copy("next")
        fp = z3.Fixedpoint()
        fp.set(engine="spacer")
        if self.options.max_seconds:
            fp.set(timeout=int(self.options.max_seconds * 1000))
        fp.register_relation(inv)
        fp.declare_var(*args, *xs2)
        fp.rule(inv(*args), z3.And(rel.valid, rel.is_initial(rel.flat)))
        fp.rule(inv(*xs2, *rel.params.values()),
                z3.And(inv(*args), rel.next(xs2), rel.rename(rel.valid, xs2)))
        try:
            answer = fp.query(z3.And(inv(*args), z3.Or(goal.bad, rel.failing())))
        except z3.Z3Exception:                      # Spacer cancels at its timeout
            return goal.unknown(f"time limit {self.options.max_seconds:g} s reached")
        if answer == z3.unsat:
            invariant = z3.substitute_vars(fp.get_cover_delta(-1, inv), *args)
            cert = Certificate.of(rel, goal, invariant)
            return goal.excluded(f"inductive invariant of {cert.size} clauses, over the cone "
                                 f"of {rel.size}", certificate=cert)
        if answer == z3.sat:
            found = search(full, [goal], self.depth_bound, self)
            if goal.name in found:
                return goal.found(found[goal.name], "shortest")
            return goal.found((None, f" beyond depth {self.depth_bound}: no trace"), "PDR: a")
        return goal.unknown(f"Spacer gave up: {fp.reason_unknown()}")
