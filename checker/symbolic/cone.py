"""The cone of influence of a goal: the leaves it reads, and all that can change them.

A proof about one property needs only the state that property depends on: the leaves
its formula reads, and, closed under the transition relation, the leaves read by the
guard, the action constraints and the new value of every step that changes one of them.
A step that changes none of them is a stutter of the cone and is left out. The cone's reachable states are
exactly the projections of the spec's, so a proof over it is a proof of the property;
RayJob's ghost counters of the other properties, and much of its bookkeeping, drop out.

The model's state constraints prune paths whatever leaves they read: they seed every
cone. Failures (a step that raises or leaves its domain) are a goal of their own, with
their own cone (see `pdr`).
"""
from __future__ import annotations

import copy
import dataclasses

import z3

from .terms import identical


class Cones:
    """Cones of influence in one relation (what all cones share is computed once)."""

    def __init__(self, rel):
        self.rel = rel
        self.reads = _Reads({leaf.get_id(): i for i, leaf in enumerate(rel.flat)})
        self.domains = conjuncts(z3.And(rel.domains, rel.constraint))
        self.changes = [[i for i, (new, old) in enumerate(zip(s.next, rel.flat))
                         if not identical(new, old)] for s in rel.steps]

    def of(self, formula: z3.BoolRef):
        """The relation projected on the cone of `formula`: a shallow copy whose leaves,
        steps and initial steps are the cone's, so that its next, is_initial, copy and
        rename read the cone alone. (Its states are projections: decode and state_is are
        not for it.)"""
        rel, reads = self.rel, self.reads
        keep = reads(formula) | reads(rel.constraint)
        while True:
            grown = set(keep)
            for c in self.domains:
                if reads(c) & grown:
                    grown |= reads(c)
            for s, changed in zip(rel.steps, self.changes):
                hit = [i for i in changed if i in grown]
                if hit:
                    grown |= reads(s.guard) | reads(s.allowed)
                    for i in hit:
                        grown |= reads(s.next[i])
            if grown == keep:
                break
            keep = grown
        kept = sorted(keep)
        part = copy.copy(rel)
        part.flat = [rel.flat[i] for i in kept]
        part.steps = [_project(s, kept) for s, changed in zip(rel.steps, self.changes)
                      if keep.intersection(changed)]
        part.init = [_project(s, kept) for s in rel.init]
        part.valid = z3.And([c for c in self.domains if reads(c) <= keep] + [rel.assumptions])
        part.within = lambda f: reads(f) <= keep            # does f read the cone alone?
        part.shapes = part.x = None
        part.size = f"{len(part.flat)} of {len(rel.flat)} leaves, " \
                    f"{len(part.steps)} of {len(rel.steps)} steps"
        return part


def _project(step, kept: list[int]):
    return dataclasses.replace(step, next=[step.next[i] for i in kept])


class _Reads:
    """The leaf indices a term reads (memoized per sub-term: the terms share a lot)."""

    def __init__(self, index: dict[int, int]):
        self.index, self.memo = index, {}

    def __call__(self, term) -> frozenset:
        stack = [term]
        while stack:                        # post-order, without Python's recursion limit
            t = stack[-1]
            if t.get_id() in self.memo:
                stack.pop()
                continue
            pending = [c for c in t.children() if c.get_id() not in self.memo]
            if pending:
                stack += pending
                continue
            stack.pop()
            own = self.index.get(t.get_id())
            self.memo[t.get_id()] = frozenset([] if own is None else [own]).union(
                *(self.memo[c.get_id()] for c in t.children()))
        return self.memo[term.get_id()]


def conjuncts(formula) -> list:
    """The top-level conjuncts of `formula`, simplified (none for True)."""
    formula = z3.simplify(formula)
    if z3.is_and(formula):
        return [c for part in formula.children() for c in conjuncts(part)]
    return [] if z3.is_true(formula) else [formula]
