"""How the values of each finite domain are laid out as Z3 variables ("leaves").

A state is a flat vector of leaves: a bool is a Z3 Bool, an `Int[lo, hi]` a Z3 Int, an
enum member a Z3 Int indexing its class, an `Option[T]` a Bool (is there a value?) and
T's leaves, a record its fields' leaves, a map its keys' leaves in key order, a set one
Bool per element, a `Seq[T, n]` an Int (its length) and n slots of T's leaves. A shape makes fresh leaves, views leaves as the values actions see,
flattens whatever an action wrote back into leaves, says which leaves are in the
domain, and decodes a model's leaves into a plain Python value.
"""
from __future__ import annotations

from collections.abc import Mapping

import z3

from ..lang.domains import (BoolDomain, Domain, EnumDomain, IntDomain, MapDomain, MapsDomain,
                       OptionDomain, OutOfDomain, RecordDomain, SetDomain, SubsetDomain,
                       resolve_value)
from ..lang.sequences import SeqDomain, SeqValue
from ..lang.values import FrozenMap
from .containers import SMap, SSet
from .paths import SymbolicError
from .rewrite import check_record
from .sequences import SSeq
from .terms import SBool, SEnum, SInt, SOption, Sym, bool_term, is_record


class Shape:
    width = 1

    def default(self) -> list:
        """Leaves of the domain's first value (canonical filler under an Option's None)."""
        raise NotImplementedError

    def valid(self, leaves) -> z3.BoolRef:
        return z3.BoolVal(True)


class BoolShape(Shape):
    def fresh(self, name): return [z3.Bool(name)]
    def view(self, leaves): return SBool(leaves[0])
    def default(self): return [z3.BoolVal(False)]
    def decode(self, values): return z3.is_true(values[0])

    def flatten(self, value):
        value = _plain(value)
        term = bool_term(value)
        if term is None:
            raise OutOfDomain(f"{value!r} is not a bool")
        return [term]


class IntShape(Shape):
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def fresh(self, name): return [z3.Int(name)]
    def view(self, leaves): return SInt(leaves[0])
    def default(self): return [z3.IntVal(self.lo) if isinstance(self.lo, int) else self.lo]
    def valid(self, leaves): return z3.And(self.lo <= leaves[0], leaves[0] <= self.hi)
    def decode(self, values): return values[0].as_long()

    def flatten(self, value):
        value = _plain(value)
        if isinstance(value, SInt):
            return [value.term]
        if type(value) is int:
            return [z3.IntVal(value)]
        raise OutOfDomain(f"{value!r} is not an int")


class EnumShape(Shape):
    def __init__(self, cls):
        self.cls, self.members = cls, list(cls)

    def fresh(self, name): return [z3.Int(name)]
    def view(self, leaves): return SEnum(self.cls, leaves[0])
    def default(self): return [z3.IntVal(0)]
    def valid(self, leaves): return z3.And(0 <= leaves[0], leaves[0] < len(self.members))
    def decode(self, values): return self.members[values[0].as_long()]

    def flatten(self, value):
        value = _plain(value)
        if isinstance(value, SEnum) and value.cls is self.cls:
            return [value.term]
        if type(value) is self.cls:
            return [z3.IntVal(self.members.index(value))]
        raise OutOfDomain(f"{value!r} is not a {self.cls.__name__}")


class OptionShape(Shape):
    def __init__(self, inner: Shape):
        self.inner, self.width = inner, 1 + inner.width

    def fresh(self, name): return [z3.Bool(name + "?")] + self.inner.fresh(name)
    def view(self, leaves): return SOption(leaves[0], self.inner.view(leaves[1:]))
    def default(self): return [z3.BoolVal(False)] + self.inner.default()

    def valid(self, leaves):
        rest = leaves[1:]
        return z3.And(self.inner.valid(rest),
                      z3.Implies(z3.Not(leaves[0]), _same(rest, self.inner.default())))

    def decode(self, values):
        return self.inner.decode(values[1:]) if z3.is_true(values[0]) else None

    def flatten(self, value):
        if value is None:
            return self.default()
        if isinstance(value, SOption):
            some = value.some
            return [some] + [z3.If(some, a, b) for a, b in
                             zip(self.inner.flatten(value.inner), self.inner.default())]
        return [z3.BoolVal(True)] + self.inner.flatten(value)


class RecordShape(Shape):
    def __init__(self, cls, fields: dict[str, Shape]):
        check_record(cls)
        self.cls, self.fields = cls, fields
        self.width = sum(s.width for s in fields.values())

    def _split(self, leaves):
        at = 0
        for name, shape in self.fields.items():
            yield name, shape, leaves[at:at + shape.width]
            at += shape.width

    def fresh(self, name):
        return [leaf for f, s in self.fields.items() for leaf in s.fresh(f"{name}.{f}")]

    def view(self, leaves):
        return self.cls(**{n: s.view(part) for n, s, part in self._split(leaves)})

    def default(self): return [leaf for s in self.fields.values() for leaf in s.default()]
    def valid(self, leaves): return z3.And([s.valid(p) for _, s, p in self._split(leaves)])

    def decode(self, values):
        return self.cls(**{n: s.decode(p) for n, s, p in self._split(values)})

    def flatten(self, value):
        value = _plain(value)
        if not (is_record(value) and isinstance(value, self.cls)):
            raise OutOfDomain(f"{value!r} is not a {self.cls.__name__}")
        return [leaf for n, s in self.fields.items() for leaf in s.flatten(getattr(value, n))]


class MapShape(Shape):
    def __init__(self, keys: list, labels: list[str], value: Shape, frozen: bool = False):
        """`frozen`: a map as a scalar value (a record field), decoded as a FrozenMap."""
        self.keys, self.labels, self.value, self.frozen = keys, labels, value, frozen
        self.width = len(keys) * value.width

    def _parts(self, leaves):
        w = self.value.width
        return [leaves[i * w:(i + 1) * w] for i in range(len(self.keys))]

    def fresh(self, name):
        return [leaf for label in self.labels for leaf in self.value.fresh(f"{name}[{label}]")]

    def view(self, leaves):
        return SMap({k: self.value.view(p) for k, p in zip(self.keys, self._parts(leaves))})

    def default(self): return self.value.default() * len(self.keys)
    def valid(self, leaves): return z3.And([self.value.valid(p) for p in self._parts(leaves)])

    def decode(self, values):
        decoded = {k: self.value.decode(p) for k, p in zip(self.keys, self._parts(values))}
        return FrozenMap(decoded) if self.frozen else decoded

    def flatten(self, value):
        if not isinstance(value, (SMap, Mapping)) or len(value) != len(self.keys):
            raise OutOfDomain(f"{_short(value)} is not a map over the keys {self.keys}")
        try:
            return [leaf for k in self.keys for leaf in self.value.flatten(value[k])]
        except KeyError as e:
            raise OutOfDomain(f"the map has no key {e}") from None


class SetShape(Shape):
    def __init__(self, elems: list, labels: list[str]):
        self.elems, self.labels, self.width = elems, labels, len(elems)

    def fresh(self, name): return [z3.Bool(f"{name}[{label}]") for label in self.labels]
    def view(self, leaves): return SSet(dict(zip(self.elems, leaves)))
    def default(self): return [z3.BoolVal(False)] * len(self.elems)
    def decode(self, values): return frozenset(e for e, v in zip(self.elems, values) if z3.is_true(v))

    def flatten(self, value):
        if isinstance(value, SSet):
            return [value._bits[e] for e in self.elems]
        if not isinstance(value, (set, frozenset)):
            raise OutOfDomain(f"{_short(value)} is not a set")
        extra = [e for e in value if e not in self.elems]
        if extra:
            raise OutOfDomain(f"{extra[0]!r} is not an element of the set's domain")
        return [z3.BoolVal(e in value) for e in self.elems]


class SeqShape(Shape):
    def __init__(self, elem: Shape, capacity: int):
        self.elem, self.capacity = elem, capacity
        self.width = 1 + capacity * elem.width

    def _slots(self, leaves):
        w = self.elem.width
        return [leaves[1 + i * w:1 + (i + 1) * w] for i in range(self.capacity)]

    def fresh(self, name):
        return [z3.Int(f"{name}.len")] + [leaf for i in range(self.capacity)
                                          for leaf in self.elem.fresh(f"{name}[{i + 1}]")]

    def view(self, leaves):
        return SSeq(leaves[0], [self.elem.view(p) for p in self._slots(leaves)], self.capacity)

    def default(self): return [z3.IntVal(0)] + self.elem.default() * self.capacity

    def valid(self, leaves):
        """A length in 0..n, and the slots past it the canonical filler."""
        length, filler = leaves[0], self.elem.default()
        return z3.And(0 <= length, length <= self.capacity,
                      *(z3.And(self.elem.valid(p), z3.Implies(length <= i, _same(p, filler)))
                        for i, p in enumerate(self._slots(leaves))))

    def decode(self, values):
        n = values[0].as_long()
        return SeqValue(tuple(self.elem.decode(p) for p in self._slots(values)[:n]), self.capacity)

    def flatten(self, value):
        value = _plain(value)
        if isinstance(value, SSeq):
            return [value.length] + [leaf for v in value.slots for leaf in self.elem.flatten(v)]
        if not isinstance(value, tuple) or is_record(value):
            raise OutOfDomain(f"{_short(value)} is not a sequence (a tuple)")
        if len(value) > self.capacity:
            raise OutOfDomain(f"{_short(value)} is longer than the capacity {self.capacity}")
        filler = self.elem.default() * (self.capacity - len(value))
        return [z3.IntVal(len(value))] + [leaf for v in value for leaf in self.elem.flatten(v)] + filler


def _plain(value):
    """An Option-typed value written where no Option is declared: its value, or None."""
    return value.unwrap() if isinstance(value, SOption) else value


def _same(a: list, b: list) -> z3.BoolRef:
    return z3.And([x == y for x, y in zip(a, b)])


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def shape_of(d: Domain, env: dict) -> Shape:
    """The shape of domain `d`, whose bounds may be symbolic constants of `env`."""
    if isinstance(d, BoolDomain):
        return BoolShape()
    if isinstance(d, IntDomain):
        return IntShape(*(_bound(resolve_value(b, env)) for b in (d.lo, d.hi)))
    if isinstance(d, EnumDomain):
        return EnumShape(d.cls)
    if isinstance(d, OptionDomain):
        return OptionShape(shape_of(d.inner, env))
    if isinstance(d, RecordDomain):
        return RecordShape(d.cls, {n: shape_of(f, env) for n, f in d.fields.items()})
    if isinstance(d, (MapDomain, MapsDomain)):
        maps = d if isinstance(d, MapDomain) else d.maps
        keys = _finite(maps.key, env)
        return MapShape(keys.values, [keys.show(k) for k in keys.values], shape_of(maps.value, env),
                        frozen=isinstance(d, MapsDomain))
    if isinstance(d, (SetDomain, SubsetDomain)):
        elems = _finite(d.elem, env)
        return SetShape(elems.values, [elems.show(e) for e in elems.values])
    if isinstance(d, SeqDomain):
        return SeqShape(shape_of(d.elem, env), d.capacity)
    raise SymbolicError(f"no symbolic encoding for the domain {d}")


def _bound(b):
    return b.term if isinstance(b, Sym) else b


def _finite(d: Domain, env) -> Domain:
    """A key or element domain, which must not depend on a symbolic constant."""
    try:
        return d.resolve(env)
    except TypeError:
        raise SymbolicError(f"the keys or elements {d} depend on a symbolic constant: maps and "
                            f"sets need a concrete, finite key domain") from None
