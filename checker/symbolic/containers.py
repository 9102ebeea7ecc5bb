"""Symbolic maps and sets over finite, concrete keys and elements.

A `Map[K, V]` is one value per key of K; a `Set[E]` one Z3 Bool per element of E. Actions
edit them in place (`m[k] = v`, `s.add(e)`, `s |= other`), exactly as the explicit engine's
MapValue and SetValue allow; a symbolic key or element either builds a term over every
candidate (membership, add, discard) or forks over its values (a map lookup).
"""
from __future__ import annotations

import enum

import z3

from ..lang.dsl import ordered_values
from .paths import explorer
from .terms import SBool, SInt, Unmergeable, concrete, eq, is_symbolic, ite


def _key(k):
    return concrete(k) if is_symbolic(k) else k


class SMap:
    """A total map over finite concrete keys; values are symbolic or concrete."""

    def __init__(self, items: dict):
        self._items = items

    def __getitem__(self, k):
        if is_symbolic(k):
            hits = self._hits(k)
            try:
                value = self._items[hits[-1][1]]
                for hit, key in reversed(hits[:-1]):
                    value = ite(hit, self._items[key], value)
                return value
            except Unmergeable:
                pass
        return self._items[_key(k)]

    def __setitem__(self, k, v):
        if is_symbolic(k):
            try:
                self._items.update({key: ite(hit, v, self._items[key])
                                    for hit, key in self._hits(k)})
                return
            except Unmergeable:
                pass
        k = _key(k)
        if k not in self._items:
            raise KeyError(f"{k!r} is not a key of this map")
        self._items[k] = v

    def _hits(self, k) -> list[tuple[z3.BoolRef, object]]:
        """(k == key, key) for each key that a symbolic `k` may be: a lookup or a write
        becomes one if-then-else term rather than a path per key. Where `k` may be no key
        at all, the path goes on only where it is one (elsewhere: KeyError, a failure)."""
        hits = [(z3.simplify(eq(k, key)), key) for key in self._items]
        hits = [(hit, key) for hit, key in hits if not z3.is_false(hit)]
        some = z3.Or([hit for hit, _ in hits])
        ex = explorer()
        if ex.feasible(z3.Not(some)):
            ex.failed(z3.Not(some), KeyError(f"{k!r} is not a key of this map"))
        ex.assume(some)
        return hits

    def get(self, k, default=None):
        return self._items.get(_key(k), default)

    def update(self, other=(), **kw):
        for k, v in dict(other, **kw).items():
            self[k] = v

    def __contains__(self, k):
        return _key(k) in self._items

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def keys(self):
        return self._items.keys()

    def values(self):
        return self._items.values()

    def items(self):
        return self._items.items()

    def eq(self, other) -> z3.BoolRef:
        if not hasattr(other, "keys") or set(other.keys()) != set(self._items):
            return z3.BoolVal(False)
        return z3.And([eq(v, other[k]) for k, v in self._items.items()])

    def __eq__(self, other):
        return SBool(self.eq(other))

    def __ne__(self, other):
        return SBool(z3.Not(self.eq(other)))

    __hash__ = None

    def __repr__(self):
        return f"SMap({self._items!r})"


def _in_place(method):
    """`s |= other` and friends: edit in place, then return the set itself."""
    def operator(self, other):
        method(self, other)
        return self
    return operator


class SSet:
    """A subset of a finite concrete universe: one Z3 Bool per element."""

    def __init__(self, bits: dict):
        self._bits = bits

    def _member(self, x) -> z3.BoolRef:
        if is_symbolic(x):
            return z3.Or([z3.And(eq(x, e), b) for e, b in self._bits.items()])
        b = self._bits.get(x) if _hashable(x) else None
        return z3.BoolVal(False) if b is None else b

    def __contains__(self, x):
        return SBool(self._member(x))

    def add(self, x):
        self._set(x, True)

    def discard(self, x):
        self._set(x, False)

    def _set(self, x, value: bool):
        if not is_symbolic(x):
            if x not in self._bits:
                raise KeyError(f"{x!r} is not in this set's element domain")
            self._bits[x] = z3.BoolVal(value)
            return
        for e, b in self._bits.items():
            hit = eq(x, e)
            self._bits[e] = z3.Or(b, hit) if value else z3.And(b, z3.Not(hit))

    def remove(self, x):
        if not SBool(self._member(x)):
            raise KeyError(x)
        self.discard(x)

    def members(self):
        """(element, membership) for every element of the universe."""
        return self._bits.items()

    def __iter__(self):
        """Loops over a symbolic set fork once per element: 2^n paths for n elements."""
        for e, b in list(self._bits.items()):
            if SBool(b):
                yield e

    def __len__(self):
        return SInt(z3.Sum([z3.If(b, 1, 0) for b in self._bits.values()])).concrete()

    def size(self) -> SInt:
        return SInt(z3.Sum([z3.If(b, 1, 0) for b in self._bits.values()]))

    def __bool__(self):
        return bool(SBool(z3.Or(list(self._bits.values()))))

    def _others(self, other) -> dict:
        """Membership of each element of this universe in `other` (a set or an SSet)."""
        if isinstance(other, SSet):
            return dict(other._bits)
        other = list(other)
        probe = SSet({x: z3.BoolVal(True) for x in other if not is_symbolic(x)})
        return {e: z3.Or([probe._member(e)] + [eq(x, e) for x in other if is_symbolic(x)])
                for e in self._bits}

    def update(self, *others):
        for other in others:
            for e, b in self._others(other).items():
                if e in self._bits:
                    self._bits[e] = z3.Or(self._bits[e], b)

    def difference_update(self, *others):
        for other in others:
            for e, b in self._others(other).items():
                if e in self._bits:
                    self._bits[e] = z3.And(self._bits[e], z3.Not(b))

    def intersection_update(self, *others):
        for other in others:
            theirs = self._others(other)
            for e in self._bits:
                self._bits[e] = z3.And(self._bits[e], theirs.get(e, z3.BoolVal(False)))

    def clear(self):
        for e in self._bits:
            self._bits[e] = z3.BoolVal(False)

    def copy(self):
        return SSet(dict(self._bits))

    def _combined(self, other, op):
        theirs = self._others(other)
        return SSet({e: op(b, theirs.get(e, z3.BoolVal(False))) for e, b in self._bits.items()})

    def __or__(self, other): return self._combined(other, lambda a, b: z3.Or(a, b))
    def __and__(self, other): return self._combined(other, lambda a, b: z3.And(a, b))
    def __sub__(self, other): return self._combined(other, lambda a, b: z3.And(a, z3.Not(b)))
    __ror__, __rand__ = __or__, __and__

    __ior__ = _in_place(update)
    __isub__ = _in_place(difference_update)
    __iand__ = _in_place(intersection_update)

    def eq(self, other) -> z3.BoolRef:
        if not isinstance(other, (SSet, set, frozenset)):
            return z3.BoolVal(False)
        theirs = self._others(other)
        extra = not isinstance(other, SSet) and any(
            not is_symbolic(x) and x not in self._bits for x in other)
        return z3.BoolVal(False) if extra else \
            z3.And([b == theirs[e] for e, b in self._bits.items()])

    def __eq__(self, other):
        return SBool(self.eq(other))

    def __ne__(self, other):
        return SBool(z3.Not(self.eq(other)))

    def issubset(self, other):
        theirs = self._others(other)
        return SBool(z3.And([z3.Implies(b, theirs[e]) for e, b in self._bits.items()]))

    def issuperset(self, other):
        theirs = self._others(other)
        extra = not isinstance(other, SSet) and any(
            not is_symbolic(x) and x not in self._bits for x in other)
        return SBool(z3.BoolVal(False) if extra else
                     z3.And([z3.Implies(theirs[e], b) for e, b in self._bits.items()]))

    __le__ = issubset
    __ge__ = issuperset
    __hash__ = None

    def __repr__(self):
        return f"SSet({self._bits!r})"


def _hashable(x) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


def choices_of(domain, env) -> list[tuple[object, z3.BoolRef]]:
    """(value, condition) for each value `choose(domain)` may take."""
    if isinstance(domain, SSet):
        return list(domain.members())
    if isinstance(domain, SMap):
        return [(k, z3.BoolVal(True)) for k in domain]
    if isinstance(domain, type) and issubclass(domain, enum.Enum):
        values = list(domain)
    else:
        values = ordered_values(domain, env)
    return [(v, z3.BoolVal(True)) for v in values]
