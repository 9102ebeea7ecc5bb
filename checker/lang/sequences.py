"""Bounded sequences: `Seq[T, n]`, TLA+'s `Seq(T)` cut at length n, and its operators.

A sequence is a tuple (`SeqValue`, which remembers its capacity), so `len(q)`, `q[i]`,
`x in q`, `q + r` and slices are Python's own. `append`, `head`, `tail` and `sub_seq`
are TLA+'s `Append`, `Head`, `Tail` and `SubSeq`; `append` to a full sequence raises,
so the error names the spec's line that appends, not the state it would reach.

A `Seq` is scalar: all its sequences are listed once (at most `TABLE_LIMIT`), so it may
be a record field, a set element, a map key or value, an action parameter or a constant.
"""
from __future__ import annotations

from .domains import Domain, Expr, OutOfDomain, RecordDomain, as_domain, as_scalar, resolve_value

TABLE_LIMIT = RecordDomain.TABLE_LIMIT


class SeqValue(tuple):
    """A sequence read from a `Seq[T, n]`: a tuple that knows n, its capacity."""

    capacity: int | None = None

    def __new__(cls, items=(), capacity: int | None = None):
        seq = super().__new__(cls, items)
        seq.capacity = capacity
        return seq

    def __add__(self, other):
        return SeqValue(tuple(self) + tuple(other), self.capacity)

    def __radd__(self, other):
        return SeqValue(tuple(other) + tuple(self), self.capacity)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return SeqValue(tuple.__getitem__(self, i), self.capacity)
        return tuple.__getitem__(self, i)

    def __repr__(self):
        return "<<" + ", ".join(map(repr, self)) + ">>"


class SeqOverflow(OverflowError):
    """`append` to a sequence already at its capacity."""


def append(q, x):
    """TLA+'s `Append(q, x)`; past the capacity of q's `Seq[T, n]` it raises SeqOverflow."""
    capacity = getattr(q, "capacity", None)
    if capacity is not None and len(q) >= capacity:
        raise SeqOverflow(f"Append to a full sequence (capacity {capacity})")
    return q + (x,)


def head(q):
    """TLA+'s `Head(q)`: the first element; undefined (an error) on the empty sequence."""
    if len(q) == 0:
        raise IndexError("Head of the empty sequence")
    return q[0]


def tail(q):
    """TLA+'s `Tail(q)`: all but the first element; an error on the empty sequence."""
    if len(q) == 0:
        raise IndexError("Tail of the empty sequence")
    return q[1:]


def sub_seq(q, m: int, n: int):
    """TLA+'s `SubSeq(q, m, n)`: elements m..n, counted from 1 as TLA+ does (empty if n < m)."""
    if n < m:
        return q[0:0]
    if m < 1 or n > len(q):
        raise IndexError(f"SubSeq({q!r}, {m}, {n}) reaches outside 1..{len(q)}")
    return q[m - 1:n]


class SeqDomain(Domain):
    """`Seq[T, n]`: the sequences of T of length 0..n, listed shortest first."""

    def __init__(self, elem: Domain, capacity):
        self.capacity = capacity
        self.lazy = elem.lazy or isinstance(capacity, Expr)
        self.elem = elem if self.lazy else as_scalar(elem, f"Seq[{elem}, ...]: its elements")
        if self.lazy:
            return
        if type(capacity) is not int or capacity < 0:
            raise TypeError(f"Seq[{elem}, {capacity!r}] needs a capacity that is an int >= 0")
        self.size = sum(self.elem.size ** k for k in range(capacity + 1))
        if self.size > TABLE_LIMIT:
            raise TypeError(f"{self} has {self.size} sequences; at most {TABLE_LIMIT} can be listed")
        self.values = [SeqValue((), capacity)]
        for k in range(capacity):
            self.values += [SeqValue(q + (x,), capacity) for q in self.values
                            if len(q) == k for x in self.elem.values]
        self._build_index()

    def resolve(self, env):
        if not self.lazy:
            return self
        return SeqDomain(self.elem.resolve(env), resolve_value(self.capacity, env))

    def encode(self, value):
        if not isinstance(value, tuple):
            raise OutOfDomain(f"{value!r} is not a sequence (a tuple) of {self}")
        if len(value) > self.capacity:
            raise OutOfDomain(f"{value!r} has {len(value)} elements; {self} holds at most "
                              f"{self.capacity}")
        return super().encode(value)

    def __repr__(self): return f"Seq[{self.elem}, {self.capacity}]"
    def show(self, value): return "<<" + ", ".join(self.elem.show(x) for x in value) + ">>"
    def to_itf(self, value): return [self.elem.to_itf(x) for x in value]

    def from_itf(self, data):
        if not isinstance(data, list) or len(data) > self.capacity:
            raise OutOfDomain(f"expected a list of at most {self.capacity} values for {self}, "
                              f"got {data!r}")
        return SeqValue(tuple(self.elem.from_itf(x) for x in data), self.capacity)


class Seq:
    """`Seq[T, n]`: a sequence of at most n values of T (n may be a constant)."""

    def __class_getitem__(cls, args):
        elem, capacity = args
        return SeqDomain(as_domain(elem), capacity)
