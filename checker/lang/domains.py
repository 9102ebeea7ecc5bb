"""Finite domains of state variables, action parameters and constants.

A domain knows its values and how to encode each as a small, hashable code: scalar
values (bool, Int[lo, hi], enum members, options, records) become ints, a map becomes
a tuple of codes and a set becomes a bitmask. States are tuples of such codes, so they
hash fast and identically in every process.

Domains may be written in terms of model constants (`Int[0, backoff_limit + 1]`); such
a domain stays lazy until `resolve(env)` is given the constants' values.
"""
from __future__ import annotations

import dataclasses
import enum
import inspect
import itertools
import operator
import re
import sys
import types
import typing
from typing import Any

from ..errors import SpecError
from .values import FrozenMap, MapValue, SetValue


class OutOfDomain(ValueError):
    """Raised by `encode` with a text saying which value missed which domain."""


# ---------------------------------------------------------------- constants

class Expr:
    """Arithmetic over constants, evaluated once the model fixes their values."""

    def __init__(self, op, *args):
        self.op, self.args = op, args

    def evaluate(self, env: dict[str, Any]):
        return self.op(*(resolve_value(a, env) for a in self.args))

    def __add__(self, o): return Expr(operator.add, self, o)
    def __radd__(self, o): return Expr(operator.add, o, self)
    def __sub__(self, o): return Expr(operator.sub, self, o)
    def __rsub__(self, o): return Expr(operator.sub, o, self)
    def __mul__(self, o): return Expr(operator.mul, self, o)
    def __rmul__(self, o): return Expr(operator.mul, o, self)
    def __floordiv__(self, o): return Expr(operator.floordiv, self, o)
    def __pow__(self, o): return Expr(operator.pow, self, o)
    def __rpow__(self, o): return Expr(operator.pow, o, self)
    def __neg__(self): return Expr(operator.neg, self)


class Const(Expr):
    """A model constant: `backoff_limit = Const(1)`; a model file may override it.

    One of a container or record type names its domain, so a model file's value can be
    read and checked: `nodes = Const(frozenset({Node.a}), domain=Set[Node])`. Inside
    actions, `s.backoff_limit` is its value; inside domain expressions in the class body
    it stands for that value until the model is bound.
    """

    def __init__(self, default, doc: str = "", *, min: int | None = None, max: int | None = None,
                 domain=None):
        super().__init__(None)
        self.default, self.doc, self.min, self.max = default, doc, min, max
        self.domain = None if domain is None else as_domain(domain)
        self.name = "?"
        try:
            if self.domain is None:
                self.convert(default)
            elif not self.domain.lazy:
                self.domain.encode(default)
        except (TypeError, ValueError) as e:
            caller = sys._getframe(1)          # the spec's line declaring the constant
            raise SpecError(f"Const({default!r}): the default {e}",
                            f"{caller.f_code.co_filename}:{caller.f_lineno}") from None

    def __set_name__(self, owner, name):
        if self.name == "?":           # a variable whose default is the constant keeps its name
            self.name = name

    def __repr__(self):
        return self.name

    def evaluate(self, env):
        return env[self.name]

    def convert(self, value):
        """Check and convert a model-file value; raises ValueError with the reason."""
        kind = type(self.default)
        if isinstance(self.default, enum.Enum):
            for member in kind:
                if value in (member.name, member.value) or value is member:
                    return member
            choices = ", ".join(repr(m.value) for m in kind)
            raise ValueError(f"expected one of {choices}, got {value!r}")
        if type(value) is not kind:
            raise ValueError(f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
        if self.min is not None and value < self.min:
            raise ValueError(f"must be >= {self.min}, got {value}")
        if self.max is not None and value > self.max:
            raise ValueError(f"must be <= {self.max}, got {value}")
        return value


class GroupOn:
    """`editable = GroupOn("user_edit")`: whether the model switches that action group on,
    as a constant (`s.editable` is True or False). A branch that only a group's action
    can make taken is then left out where the group is off, by every engine: a symbolic
    engine's states need not rule it out with a lemma."""

    def __init__(self, group: str):
        if not isinstance(group, str):
            raise TypeError(f"GroupOn({group!r}): name an action group, a string")
        self.group, self.name = group, "?"
        caller = sys._getframe(1)
        self.where = f"{caller.f_code.co_filename}:{caller.f_lineno}"

    def __set_name__(self, owner, name):
        self.name = name

    def __repr__(self):
        return f"GroupOn({self.group!r})"


def resolve_value(x, env):
    return x.evaluate(env) if isinstance(x, Expr) else x


@dataclasses.dataclass(frozen=True)
class IntRange:
    """The ints a symbolic constant may take: `low <= n <= high` (None: unbounded), `n` not
    in `excluded`. Parsed from a `[symbolic]` constraint, and met with the Const's min/max."""

    low: int | None = None
    high: int | None = None
    excluded: frozenset[int] = frozenset()

    @classmethod
    def parse(cls, text: str) -> "IntRange":
        """'>= 0', '>= 1 and <= 5', '!= 3', 'any'; raises ValueError saying what is wrong."""
        found = cls()
        if text.strip() == "any":
            return found
        for part in re.split(r"\band\b|,", text):
            bound = _BOUND.fullmatch(part)
            if not bound:
                raise ValueError(f"cannot read {part.strip()!r}; write comparisons such as "
                                 f"\">= 0\" or \">= 1 and <= 5\", or \"any\"")
            found = found.meet(_COMPARISONS[bound.group(1)](int(bound.group(2))))
        return found

    def meet(self, other: "IntRange") -> "IntRange":
        """The ints in both ranges."""
        low = max((b for b in (self.low, other.low) if b is not None), default=None)
        high = min((b for b in (self.high, other.high) if b is not None), default=None)
        excluded = frozenset(n for n in self.excluded | other.excluded
                             if (low is None or n >= low) and (high is None or n <= high))
        return IntRange(low, high, excluded)

    def is_empty(self) -> bool:
        return self.low is not None and self.high is not None and \
            self.high - self.low + 1 <= len(self.excluded)

    def conditions(self, n) -> list:
        """The comparisons that keep `n` (an int, or a solver's term) in the range."""
        return ([n >= self.low] if self.low is not None else []) + \
            ([n <= self.high] if self.high is not None else []) + \
            [n != e for e in sorted(self.excluded)]

    def __str__(self) -> str:
        if self.low is not None and self.low == self.high:
            return f"== {self.low}"
        return " and ".join([f">= {self.low}"] * (self.low is not None) +
                            [f"<= {self.high}"] * (self.high is not None) +
                            [f"!= {e}" for e in sorted(self.excluded)]) or "any"


_BOUND = re.compile(r"\s*(>=|<=|==|!=|>|<)\s*(-?\d+)\s*")
_COMPARISONS = {">=": lambda n: IntRange(low=n), ">": lambda n: IntRange(low=n + 1),
                "<=": lambda n: IntRange(high=n), "<": lambda n: IntRange(high=n - 1),
                "==": lambda n: IntRange(n, n), "!=": lambda n: IntRange(excluded=frozenset({n}))}


# ---------------------------------------------------------------- domain base

class Domain:
    """A finite set of values. Concrete domains answer `values`, `encode`, `decode`."""

    scalar = True          # scalar domains have int codes 0..size-1 and a `values` table
    lazy = False

    def resolve(self, env) -> "Domain":
        return self

    # Defaults for scalar domains; containers override.
    def encode(self, value) -> Any:
        try:
            return self._index[value]
        except (KeyError, TypeError):
            raise OutOfDomain(f"{value!r} is not in {self}") from None

    def decode(self, code, owner=None):
        return self.values[code]

    def plain(self, code):
        """The value of `code` as an immutable Python value (for traces and display)."""
        return self.values[code]

    def _build_index(self):
        self.size = len(self.values)
        self._index = {v: i for i, v in enumerate(self.values)}

    def show(self, value) -> str:
        return repr(value)

    def __iter__(self):
        return iter(self.values)


class BoolDomain(Domain):
    def __init__(self):
        self.values = [False, True]
        self.size = 2

    def encode(self, value):
        if value is True:
            return 1
        if value is False:
            return 0
        raise OutOfDomain(f"{value!r} is not a bool")

    def __repr__(self): return "bool"
    def show(self, value): return "true" if value else "false"
    def to_itf(self, value): return value

    def from_itf(self, data):
        if not isinstance(data, bool):
            raise OutOfDomain(f"expected a boolean, got {data!r}")
        return data


class IntDomain(Domain):
    """`Int[lo, hi]`: the integers lo..hi inclusive (bounds may use constants)."""

    def __init__(self, lo, hi, origin: "IntDomain | None" = None):
        self.lo, self.hi = lo, hi
        self.origin = origin or self       # as the spec wrote it (symmetry names it so)
        self.lazy = isinstance(lo, Expr) or isinstance(hi, Expr)
        if not self.lazy:
            if not (isinstance(lo, int) and isinstance(hi, int)) or lo > hi:
                raise TypeError(f"Int[{lo!r}, {hi!r}] needs int bounds with lo <= hi")
            self.values = list(range(lo, hi + 1))
            self.size = len(self.values)

    def resolve(self, env):
        if not self.lazy:
            return self
        return IntDomain(resolve_value(self.lo, env), resolve_value(self.hi, env), self.origin)

    def encode(self, value):
        if type(value) is int and self.lo <= value <= self.hi:
            return value - self.lo
        raise OutOfDomain(f"{value!r} is not in {self}")

    def __repr__(self): return f"Int[{self.lo}, {self.hi}]"
    def show(self, value): return str(value)
    def to_itf(self, value): return {"#bigint": str(value)}

    def from_itf(self, data):
        if isinstance(data, dict) and set(data) == {"#bigint"}:
            data = int(data["#bigint"])
        if type(data) is not int:
            raise OutOfDomain(f"expected an integer, got {data!r}")
        return data


class Enum(enum.Enum):
    """`enum.Enum` for specs, its members hashed by identity, in C. Members are singletons
    compared by identity, so nothing else changes; but a spec's members are map keys and
    record fields, hashed millions of times a run, and `enum.Enum.__hash__` is Python code
    (a sixth of a RayJob exploration). Plain `enum.Enum` works the same, slower."""

    __hash__ = object.__hash__


class EnumDomain(Domain):
    """An `enum.Enum` class. Members are singletons, so they are indexed by identity:
    `Enum.__hash__` runs in Python, `id` does not."""

    def __init__(self, cls: type[enum.Enum]):
        self.cls = cls
        self.values = list(cls)
        self.size = len(self.values)
        self._by_id = {id(m): i for i, m in enumerate(self.values)}

    def encode(self, value):
        try:
            return self._by_id[id(value)]
        except KeyError:
            raise OutOfDomain(f"{value!r} is not a {self.cls.__name__}") from None

    def __repr__(self): return self.cls.__name__
    def show(self, value): return enum_label(value)
    def to_itf(self, value): return enum_label(value)

    def from_itf(self, data):
        for member in self.values:
            if data in (member.name, member.value):
                return member
        raise OutOfDomain(f"{data!r} is not a {self.cls.__name__}")


def enum_label(member: enum.Enum) -> str:
    """How an enum member is written in traces: its value if a string, else its name."""
    return member.value if isinstance(member.value, str) else member.name


class OptionDomain(Domain):
    """`Option[T]`: None or a value of T (T scalar)."""

    def __init__(self, inner: Domain):
        self.lazy = inner.lazy
        self.inner = inner if self.lazy else as_scalar(inner, f"Option[{inner}]")
        if not self.lazy:
            self.values = [None] + list(self.inner.values)
            self.size = len(self.values)

    def resolve(self, env):
        return OptionDomain(self.inner.resolve(env)) if self.lazy else self

    def encode(self, value):
        return 0 if value is None else 1 + self.inner.encode(value)

    def __repr__(self): return f"Option[{self.inner}]"
    def show(self, value): return "None" if value is None else self.inner.show(value)

    def to_itf(self, value):
        if value is None:
            return {"tag": "None", "value": {"#tup": []}}
        return {"tag": "Some", "value": self.inner.to_itf(value)}

    def from_itf(self, data):
        if isinstance(data, dict) and data.get("tag") == "None":
            return None
        if isinstance(data, dict) and data.get("tag") == "Some":
            return self.inner.from_itf(data.get("value"))
        raise OutOfDomain(f"expected {{'tag': 'None'|'Some', ...}}, got {data!r}")


class RecordDomain(Domain):
    """A record: a frozen dataclass or a NamedTuple, its fields any finite domains; a
    container field holds an immutable value (a `Set` field a frozenset, a `Seq` a tuple).

    A record is scalar: all its values are listed once, so a state holds one int for it.
    NamedTuples hash and compare at C speed; prefer them for hot message types."""

    TABLE_LIMIT = 1 << 16

    def __init__(self, cls, fields: dict[str, Domain] | None = None):
        self.cls = cls
        self.fields = fields if fields is not None else {
            name: as_domain(t, owner=cls) for name, t in _record_fields(cls)}
        self.lazy = any(d.lazy for d in self.fields.values())
        if not self.lazy:
            self.fields = {name: as_scalar(d, f"record {cls.__name__}.{name}")
                           for name, d in self.fields.items()}
            self.size = 1
            for d in self.fields.values():
                self.size *= d.size
            if self.size > self.TABLE_LIMIT:
                raise TypeError(f"record {cls.__name__} has {self.size} values; at most "
                                f"{self.TABLE_LIMIT} are supported")
            combos = itertools.product(*(d.values for d in self.fields.values()))
            if issubclass(cls, tuple):      # positionally: 0.2 s less start-up on RayJob
                self.values = list(itertools.starmap(cls, combos))
            else:
                names = list(self.fields)
                self.values = [cls(**dict(zip(names, combo))) for combo in combos]
            self._build_index()

    def resolve(self, env):
        if not self.lazy:
            return self
        return RecordDomain(self.cls, {n: d.resolve(env) for n, d in self.fields.items()})

    def __repr__(self): return self.cls.__name__

    def show(self, value):
        inner = ", ".join(f"{n}={d.show(getattr(value, n))}" for n, d in self.fields.items())
        return f"{self.cls.__name__}({inner})"

    def to_itf(self, value):
        return {n: d.to_itf(getattr(value, n)) for n, d in self.fields.items()}

    def from_itf(self, data):
        if not isinstance(data, dict) or set(data) - {"#meta"} != set(self.fields):
            raise OutOfDomain(f"expected a record with fields {sorted(self.fields)}, got {data!r}")
        return self.cls(**{n: d.from_itf(data[n]) for n, d in self.fields.items()})


def _is_record(t) -> bool:
    return isinstance(t, type) and (dataclasses.is_dataclass(t) or
                                    (issubclass(t, tuple) and hasattr(t, "_fields")))


def _record_fields(cls):
    hints = inspect.get_annotations(cls, eval_str=True)
    names = cls._fields if issubclass(cls, tuple) else [f.name for f in dataclasses.fields(cls)]
    return [(name, hints[name]) for name in names]


# ---------------------------------------------------------------- containers

class MapDomain(Domain):
    """`Map[K, V]`: a total function from a scalar domain K to any domain V."""

    scalar = False

    def __init__(self, key: Domain, value: Domain):
        self.key, self.value = key, value
        self.lazy = key.lazy or value.lazy
        if not self.lazy:
            self.key = key = as_scalar(key, f"Map[{key}, ...]: its keys")
            self.keys = list(key.values)
            self.position = {k: i for i, k in enumerate(self.keys)}   # a key's place in the code

    def resolve(self, env):
        return MapDomain(self.key.resolve(env), self.value.resolve(env)) if self.lazy else self

    def __repr__(self): return f"Map[{self.key}, {self.value}]"

    def encode(self, value):
        if isinstance(value, MapValue) and value._domain is self:
            return value.code()
        try:
            if len(value) != len(self.keys):
                raise OutOfDomain(f"a {self} needs exactly the keys {self.keys}, got {value!r}")
            enc = self.value.encode
            return tuple(enc(value[k]) for k in self.keys)
        except (KeyError, TypeError):
            raise OutOfDomain(f"{value!r} is not a {self}") from None

    def decode(self, code, owner=None):
        if self.value.scalar:
            return MapValue(self, code, owner, zip(self.keys, map(self.value.values.__getitem__, code)))
        dec = self.value.decode
        return MapValue(self, code, owner, ((k, dec(c, owner)) for k, c in zip(self.keys, code)))

    def plain(self, code):
        return types.MappingProxyType({k: self.value.plain(c) for k, c in zip(self.keys, code)})

    def show(self, value):
        return "{" + ", ".join(f"{self.key.show(k)}: {self.value.show(v)}"
                               for k, v in value.items()) + "}"

    def to_itf(self, value):
        return {"#map": [[self.key.to_itf(k), self.value.to_itf(value[k])] for k in self.keys]}

    def from_itf(self, data):
        if not isinstance(data, dict) or "#map" not in data:
            raise OutOfDomain(f"expected {{'#map': [...]}} for {self}, got {data!r}")
        return {self.key.from_itf(k): self.value.from_itf(v) for k, v in data["#map"]}


class SetDomain(Domain):
    """`Set[E]`: subsets of a scalar domain E, encoded as a bitmask."""

    scalar = False
    MEMBERS_CACHE = 1 << 16

    def __init__(self, elem: Domain):
        self._members: dict[int, tuple] = {}
        self.lazy = elem.lazy
        self.elem = elem if self.lazy else as_scalar(elem, f"Set[{elem}]: its elements")

    def resolve(self, env):
        return SetDomain(self.elem.resolve(env)) if self.lazy else self

    def __repr__(self): return f"Set[{self.elem}]"

    def encode(self, value):
        if isinstance(value, SetValue) and value._domain is self:
            return value.code()
        enc = self.elem.encode
        try:
            bits = 0
            for e in value:
                bits |= 1 << enc(e)
            return bits
        except TypeError:
            raise OutOfDomain(f"{value!r} is not a {self}") from None

    def members(self, code):
        found = self._members.get(code)
        if found is None:
            values = self.elem.values
            found = tuple(values[i] for i in range(code.bit_length()) if code >> i & 1)
            if len(self._members) < self.MEMBERS_CACHE:
                self._members[code] = found
        return found

    def decode(self, code, owner=None):
        return SetValue(self, code, owner, self.members(code))

    def plain(self, code):
        return frozenset(self.members(code))

    def show(self, value):
        return "{" + ", ".join(sorted(self.elem.show(e) for e in value)) + "}"

    def to_itf(self, value):
        return {"#set": [self.elem.to_itf(e) for e in self.elem.values if e in value]}

    def from_itf(self, data):
        if not isinstance(data, dict) or "#set" not in data:
            raise OutOfDomain(f"expected {{'#set': [...]}} for {self}, got {data!r}")
        return frozenset(self.elem.from_itf(e) for e in data["#set"])


class SubsetDomain(Domain):
    """A `Set[E]` where a scalar is needed (a record field, a set's element, an action
    parameter: TLA+'s `SUBSET E`): every subset listed, as frozensets, its code the
    bitmask a `Set[E]` variable has."""

    def __init__(self, sets: SetDomain):
        self.sets, self.elem = sets, sets.elem
        self.size = 1 << sets.elem.size
        if self.size > RecordDomain.TABLE_LIMIT:
            raise TypeError(f"{sets} has {self.size} subsets; at most "
                            f"{RecordDomain.TABLE_LIMIT} can be listed")
        self.values = [frozenset(sets.members(code)) for code in range(self.size)]
        self._build_index()

    def __repr__(self): return repr(self.sets)
    def show(self, value): return self.sets.show(value)
    def to_itf(self, value): return self.sets.to_itf(value)
    def from_itf(self, data): return self.sets.from_itf(data)


class MapsDomain(Domain):
    """A `Map[K, V]` where a scalar is needed (a record field, a set's element, an action
    parameter: TLA+'s `[K -> V]` as a value): every map listed, as FrozenMaps (V scalar)."""

    def __init__(self, maps: MapDomain):
        self.maps, self.keys = maps, maps.keys
        self.value = as_scalar(maps.value, f"{maps}: its values")
        self.size = self.value.size ** len(self.keys)
        if self.size > RecordDomain.TABLE_LIMIT:
            raise TypeError(f"{maps} has {self.size} maps; at most "
                            f"{RecordDomain.TABLE_LIMIT} can be listed")
        self.values = [FrozenMap(zip(self.keys, combo))
                       for combo in itertools.product(self.value.values, repeat=len(self.keys))]
        self._build_index()

    def encode(self, value):
        if isinstance(value, dict) and not isinstance(value, FrozenMap):
            value = FrozenMap(value)
        return super().encode(value)

    def __repr__(self): return repr(self.maps)
    def show(self, value): return self.maps.show(value)
    def to_itf(self, value): return self.maps.to_itf(value)
    def from_itf(self, data): return FrozenMap(self.maps.from_itf(data))


def as_scalar(d: Domain, what: str) -> Domain:
    """`d` where one value must fit one code: a `Set[E]` becomes its listed subsets, a
    `Map[K, V]` its listed maps."""
    if d.scalar:
        return d
    if isinstance(d, SetDomain):
        return SubsetDomain(d)
    if isinstance(d, MapDomain):
        return MapsDomain(d)
    raise TypeError(f"{what} must be scalar, a Set or a Map, got {d}")


# ---------------------------------------------------------------- type syntax

class Int:
    """`Int[lo, hi]` in annotations."""

    def __class_getitem__(cls, bounds):
        lo, hi = bounds
        return IntDomain(lo, hi)


class Option:
    """`Option[T]`: None or a T."""

    def __class_getitem__(cls, inner):
        return OptionDomain(as_domain(inner))


class Set:
    """`Set[E]`: a finite set of E (E scalar)."""

    def __class_getitem__(cls, elem):
        return SetDomain(as_domain(elem))


class Fill:
    """Default for a map variable: every key maps to the same value."""

    def __init__(self, value):
        self.value = value

    def build(self, domain: MapDomain):
        return {k: self.value for k in domain.keys}


class Map:
    """`Map[K, V]`: a total function over a finite K. `Map.fill(v)` is a default."""

    def __class_getitem__(cls, kv):
        k, v = kv
        return MapDomain(as_domain(k), as_domain(v))

    fill = Fill


class MarkedDomain:
    """A variable's domain marked with what the variable is to a reader of a trace:
    `Ghost[T]` or `Bookkeeping[T]`. The engines see only `inner`."""

    def __init__(self, inner, role: str):
        self.inner, self.role = inner, role


class Ghost:
    """`Ghost[T]`: a variable the real system does not have, kept for properties."""

    def __class_getitem__(cls, inner):
        return MarkedDomain(as_domain(inner), "ghost")


class Bookkeeping:
    """`Bookkeeping[T]`: a variable of the model's machinery (an informer cache's withheld
    versions, whether the operator's copy is current): part of the state, but seldom what
    a reader of a trace looks for, so `show` and the trace page hide it unless asked."""

    def __class_getitem__(cls, inner):
        return MarkedDomain(as_domain(inner), "bookkeeping")


def as_domain(t, owner=None) -> Domain:
    """Turn an annotation (bool, an Enum, a dataclass, Int[..], Map[..], ...) into a Domain."""
    if isinstance(t, Domain):
        return t
    if t is bool:
        return BoolDomain()
    if isinstance(t, type) and issubclass(t, enum.Enum):
        return EnumDomain(t)
    if _is_record(t):
        return RecordDomain(t)
    args = typing.get_args(t)
    if typing.get_origin(t) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return OptionDomain(as_domain(rest[0]))
    where = f" (in {owner.__name__})" if owner is not None else ""
    raise TypeError(f"{t!r}{where} is not a finite domain: use bool, an Enum, a record "
                    f"(frozen dataclass or NamedTuple), Int[lo, hi], Option[T], Set[E] or Map[K, V]")
