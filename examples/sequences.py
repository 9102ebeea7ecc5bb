"""Bounded TLA+ sequences (`Seq(T)`, `Append`, `Head`, `Tail`, `Len`) for the ported specs.

The DSL has no sequence domain, so a sequence of at most `capacity` elements is a record
(NamedTuple) of `capacity` optional slots filled from the front: `<<a, b>>` with capacity
3 is `(a, b, None)`. A record is a scalar domain, so a whole queue encodes as one int and
hashes at C speed; the functions below return a new record, as TLA+'s operators return
a new sequence. A record domain enumerates all its values (at most 65,536), so keep
`(len(T) + 1) ** capacity` under that.
"""
from __future__ import annotations

from typing import NamedTuple

from checker import Option


def seq_type(name: str, elem, capacity: int) -> type:
    """The record type of sequences of `elem` (a scalar domain or record) up to `capacity`."""
    return NamedTuple(name, [(f"at{i}", Option[elem]) for i in range(1, capacity + 1)])


def empty(seq_cls: type):
    """`<< >>` of a sequence type made by `seq_type`."""
    return seq_cls._make((None,) * len(seq_cls._fields))


def length(q) -> int:
    """`Len(q)`."""
    return len(q) - q.count(None)


def head(q):
    """`Head(q)`; None for the empty sequence (where TLA+'s Head is undefined)."""
    return q[0]


def tail(q):
    """`Tail(q)`: drop the first element."""
    return q._make(q[1:] + (None,))


def append(q, x):
    """`Append(q, x)`; a sequence longer than the record's capacity is an error, not a state."""
    n = length(q)
    if n == len(q):
        raise OverflowError(f"Append to a full {type(q).__name__} (capacity {n})")
    return q._make(q[:n] + (x,) + q[n + 1:])


def remove_at(q, i: int):
    """`[j \\in 1..Len(q)-1 |-> IF j < i THEN q[j] ELSE q[j+1]]`: drop element i (1-based)."""
    return q._make(q[:i - 1] + q[i:] + (None,))
