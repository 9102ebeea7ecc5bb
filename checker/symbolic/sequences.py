"""Symbolic bounded sequences: a `Seq[T, n]` is a length and n slots.

Length, membership, equality and writing back build terms; anything that needs the
elements as a Python tuple (indexing, iteration, `append`, `+`) forks once over the
length the state may have, so an action that never reads a sequence's elements never
forks on it.
"""
from __future__ import annotations

import z3

from ..lang.sequences import SeqValue
from .terms import SBool, SInt, eq


class SSeq:
    """A sequence whose length is a Z3 Int; its first `length` slots are its elements."""

    def __init__(self, length: z3.ArithRef, slots: list, capacity: int):
        self.length, self.slots, self.capacity = length, slots, capacity

    def elements(self) -> SeqValue:
        """The tuple of its elements, on a path that fixes its length (not cached: a
        helper's paths, merged, share this object but not their decisions)."""
        return SeqValue(self.slots[:SInt(self.length).concrete()], self.capacity)

    def members(self) -> list[tuple[object, z3.BoolRef]]:
        """(slot, whether the sequence reaches it) for each slot: `all` / `any` over it."""
        return [(slot, i < self.length) for i, slot in enumerate(self.slots)]

    def size(self) -> SInt:
        return SInt(self.length)

    def _member(self, x) -> z3.BoolRef:
        return z3.Or([z3.And(i < self.length, eq(x, slot)) for i, slot in enumerate(self.slots)])

    def __contains__(self, x):
        return SBool(self._member(x))

    def eq(self, other) -> z3.BoolRef:
        if isinstance(other, SSeq):
            return z3.And(self.length == other.length,
                          *(z3.Implies(i < self.length, eq(a, b))
                            for i, (a, b) in enumerate(zip(self.slots, other.slots))))
        if not isinstance(other, tuple) or len(other) > self.capacity:
            return z3.BoolVal(False)
        return z3.And(self.length == len(other), *(eq(a, b) for a, b in zip(self.slots, other)))

    def __eq__(self, other):
        return SBool(self.eq(other))

    def __ne__(self, other):
        return SBool(z3.Not(self.eq(other)))

    __hash__ = None

    def __len__(self): return len(self.elements())
    def __bool__(self): return bool(self.elements())
    def __iter__(self): return iter(self.elements())
    def __getitem__(self, i): return self.elements()[i]
    def __add__(self, other): return self.elements() + other
    def __radd__(self, other): return other + self.elements()

    def count(self, x):
        return SInt(z3.Sum(z3.IntVal(0), *(z3.If(z3.And(i < self.length, eq(x, slot)), 1, 0)
                                           for i, slot in enumerate(self.slots))))

    def index(self, x): return self.elements().index(x)

    def __repr__(self):
        return f"SSeq({self.length}, {self.slots!r})"
