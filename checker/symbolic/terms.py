"""Symbolic scalars: Z3 terms behind the operators a spec's Python code uses.

`SBool`, `SInt`, `SEnum` and `SOption` wrap Z3 terms; records stay instances of the
spec's own NamedTuple or dataclass, with symbolic fields. Operators build terms; where
Python insists on a concrete value (`bool`, `hash`, `int`, `len`) the wrapper asks the
running explorer, which forks the path. `isinstance(x, int)` and friends see the type
the value stands for, so type invariants read the same on both engines.
"""
from __future__ import annotations

import dataclasses
import enum

import z3

from .paths import SymbolicError, explorer


class Sym:
    """A symbolic scalar value."""

    __slots__ = ()

    def __eq__(self, other):
        return SBool(eq(self, other))

    def __ne__(self, other):
        return SBool(z3.Not(eq(self, other)))

    def __hash__(self):
        return hash(self.concrete())

    def concrete(self):
        """One concrete value of this term; the run forks over all of them."""
        raise NotImplementedError

    def __float__(self):
        raise SymbolicError("float() of a symbolic value: the symbolic engines reason over integers")

    def __repr__(self):
        return f"{type(self).__name__}({self.term})"


class SBool(Sym):
    __slots__ = ("term",)

    def __init__(self, term: z3.BoolRef):
        self.term = term

    @property
    def __class__(self):
        return bool

    def eq(self, other):
        o = bool_term(other)
        return z3.BoolVal(False) if o is None else self.term == o

    def __bool__(self):
        return explorer().branch(self.term)

    concrete = __bool__

    def __and__(self, o): return SBool(z3.And(self.term, bool_term(o)))
    def __or__(self, o): return SBool(z3.Or(self.term, bool_term(o)))
    def __xor__(self, o): return SBool(z3.Xor(self.term, bool_term(o)))
    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def as_int(self) -> "SInt":
        return SInt(z3.If(self.term, 1, 0))

    def __add__(self, o): return self.as_int() + o
    def __radd__(self, o): return o + self.as_int()
    def __sub__(self, o): return self.as_int() - o
    def __rsub__(self, o): return o - self.as_int()
    def __mul__(self, o): return self.as_int() * o
    def __rmul__(self, o): return o * self.as_int()
    def __neg__(self): return -self.as_int()
    def __index__(self): return int(self.concrete())
    def __lt__(self, o): return self.as_int() < o
    def __le__(self, o): return self.as_int() <= o
    def __gt__(self, o): return self.as_int() > o
    def __ge__(self, o): return self.as_int() >= o


class SInt(Sym):
    __slots__ = ("term",)

    def __init__(self, term: z3.ArithRef):
        self.term = term

    @property
    def __class__(self):
        return int

    def eq(self, other):
        o = int_term(other)
        return z3.BoolVal(False) if o is None else self.term == o

    def concrete(self):
        return explorer().value(self.term)

    __index__ = __int__ = concrete

    def __bool__(self):
        return explorer().branch(self.term != 0)

    def __add__(self, o): return SInt(self.term + int_term(o))
    def __radd__(self, o): return SInt(int_term(o) + self.term)
    def __sub__(self, o): return SInt(self.term - int_term(o))
    def __rsub__(self, o): return SInt(int_term(o) - self.term)
    def __mul__(self, o): return SInt(self.term * int_term(o))
    def __rmul__(self, o): return SInt(int_term(o) * self.term)
    def __neg__(self): return SInt(-self.term)
    def __pos__(self): return self
    def __abs__(self): return SInt(z3.If(self.term < 0, -self.term, self.term))
    def __floordiv__(self, o): return SInt(floordiv(self.term, int_term(o)))
    def __rfloordiv__(self, o): return SInt(floordiv(int_term(o), self.term))
    def __mod__(self, o): return SInt(mod(self.term, int_term(o)))
    def __rmod__(self, o): return SInt(mod(int_term(o), self.term))
    def __lt__(self, o): return SBool(self.term < int_term(o))
    def __le__(self, o): return SBool(self.term <= int_term(o))
    def __gt__(self, o): return SBool(self.term > int_term(o))
    def __ge__(self, o): return SBool(self.term >= int_term(o))

    def __truediv__(self, o):
        raise SymbolicError("`/` on a symbolic int gives a float: use `//`")

    __rtruediv__ = __truediv__


def _is_zero(b) -> bool:
    return b == 0 if isinstance(b, int) else explorer().branch(b == 0)


def _is_positive(b) -> bool:
    return b > 0 if isinstance(b, int) else explorer().branch(b > 0)


def floordiv(a, b):
    """Python's `a // b`, which floors. Z3's `div` is Euclidean: the same only for b > 0,
    so a negative divisor divides the negated operands, floor((-a) / (-b)) = floor(a / b)."""
    if _is_zero(b):
        raise ZeroDivisionError("integer division or modulo by zero")
    return a / b if _is_positive(b) else (-a) / (-b)


def mod(a, b):
    """Python's `a % b`, with the divisor's sign: a - b * (a // b)."""
    return a - b * floordiv(a, b)


class SEnum(Sym):
    """An enum member, as a Z3 int indexing the members in definition order."""

    __slots__ = ("cls", "term")

    def __init__(self, cls: type[enum.Enum], term: z3.ArithRef):
        self.cls, self.term = cls, term

    @property
    def __class__(self):
        return self.cls

    def eq(self, other):
        if isinstance(other, SEnum) and other.cls is self.cls:
            return self.term == other.term
        if type(other) is self.cls:
            return self.term == list(self.cls).index(other)
        return z3.BoolVal(False)

    def concrete(self):
        return list(self.cls)[explorer().value(self.term)]

    def __getattr__(self, name):                # .name, .value, methods of the enum
        return getattr(self.concrete(), name)


class SOption(Sym):
    """None or a value: `some` says which; `inner` is canonical (the first value) when None."""

    __slots__ = ("some", "inner")

    def __init__(self, some: z3.BoolRef, inner):
        self.some, self.inner = some, inner

    def eq(self, other):
        if other is None:
            return z3.Not(self.some)
        if isinstance(other, SOption):
            return z3.Or(z3.And(z3.Not(self.some), z3.Not(other.some)),
                         z3.And(self.some, other.some, eq(self.inner, other.inner)))
        return z3.And(self.some, eq(self.inner, other))

    def concrete(self):
        return concrete(self.inner) if explorer().branch(self.some) else None

    def unwrap(self):
        """What Python would hold here: the value or None (the path forks)."""
        return self.inner if explorer().branch(self.some) else None

    def value(self):
        """The value, on the path where there is one; None's own error on the other."""
        value = self.unwrap()
        if value is None:
            raise AttributeError("'NoneType' object has no attribute (the Option is None here)")
        return value

    def __bool__(self):
        return explorer().branch(self.some) and bool(self.inner)

    def __getattr__(self, name):
        return getattr(self.value(), name)

    def __getitem__(self, i):
        return self.value()[i]

    def __iter__(self):
        return iter(self.value())

    def __len__(self):
        return len(self.value())

    def __repr__(self):
        return f"SOption({self.some}, {self.inner!r})"


# ---------------------------------------------------------------- helpers

def bool_term(x):
    """`x` as a Z3 Bool, or None if it is not a boolean."""
    if isinstance(x, SBool):
        return x.term
    if type(x) is bool:
        return z3.BoolVal(x)
    return None


def int_term(x):
    """`x` as a Z3 int term or Python int; SBool and bool count as 0/1, as in Python."""
    if isinstance(x, SInt):
        return x.term
    if isinstance(x, SBool):
        return x.as_int().term
    if type(x) in (int, bool):
        return int(x)
    return None


def is_record(x) -> bool:
    return (isinstance(x, tuple) and hasattr(x, "_fields")) or \
        (dataclasses.is_dataclass(x) and not isinstance(x, type))


def record_fields(x) -> list:
    if isinstance(x, tuple):
        return list(x)
    return [getattr(x, f.name) for f in dataclasses.fields(x)]


def is_symbolic(x) -> bool:
    """Does `x` hold a symbolic value anywhere (a scalar, a record field, a container)?"""
    from .containers import SMap, SSet
    from .sequences import SSeq
    if isinstance(x, (Sym, SMap, SSet, SSeq)):
        return True
    if isinstance(x, tuple) and not is_record(x):
        return any(map(is_symbolic, x))
    return is_record(x) and any(is_symbolic(f) for f in record_fields(x))


def eq(a, b) -> z3.BoolRef:
    """`a == b` as a Z3 formula, without forking (records compare field by field)."""
    from .containers import SMap, SSet
    from .sequences import SSeq
    if isinstance(b, SOption) and not isinstance(a, SOption):
        a, b = b, a                     # an Option compares with its value's type, not vice versa
    if isinstance(a, (Sym, SMap, SSet, SSeq)):
        return a.eq(b)
    if isinstance(b, (Sym, SMap, SSet, SSeq)):
        return b.eq(a)
    if is_record(a) and is_record(b) and type(a) is type(b) and (is_symbolic(a) or is_symbolic(b)):
        return z3.And([eq(x, y) for x, y in zip(record_fields(a), record_fields(b))])
    if isinstance(a, tuple) and isinstance(b, tuple) and not (is_record(a) or is_record(b)) and \
            (is_symbolic(a) or is_symbolic(b)):        # sequences, element by element
        return z3.And([eq(x, y) for x, y in zip(a, b)]) if len(a) == len(b) else z3.BoolVal(False)
    return z3.BoolVal(bool(a == b))


def concrete(x):
    """A concrete value of `x` (forking over the possibilities)."""
    if isinstance(x, Sym):
        return x.concrete()
    if is_record(x) and is_symbolic(x):
        return type(x)(*map(concrete, record_fields(x))) if isinstance(x, tuple) else \
            dataclasses.replace(x, **{f.name: concrete(getattr(x, f.name))
                                      for f in dataclasses.fields(x)})
    return x


# ---------------------------------------------------------------- if-then-else of values

class Unmergeable(Exception):
    """Two values have no common symbolic form (an int and a list, two lists, ...)."""


def identical(a: z3.AstRef, b: z3.AstRef) -> bool:
    """`a.eq(b)` without a call into Z3 (asked for every leaf of the state at every merge
    and every step): Z3 hash-conses terms, so the same term is the same address."""
    return a.ast.value == b.ast.value


def same(a, b) -> bool:
    """Are a and b the same value, term for term? Never asks the solver, never forks: a
    value that is not known to be the same counts as different."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):            # records (NamedTuples) too
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, z3.ExprRef):
        return identical(a, b)
    if isinstance(a, SOption):
        return identical(a.some, b.some) and same(a.inner, b.inner)
    if isinstance(a, (SBool, SInt, SEnum)):
        return identical(a.term, b.term) and getattr(a, "cls", None) is getattr(b, "cls", None)
    if is_record(a):
        return all(map(same, record_fields(a), record_fields(b)))
    if isinstance(a, (bool, int, str, enum.Enum, frozenset)) and not is_symbolic(a):
        return a == b
    return False


def first_of(options: list):
    """The value of the first (condition, value) whose condition holds, the last value
    where none does: one term, as Python's if/elif chain would pick it."""
    value = options[-1][1]
    for cond, v in reversed(options[:-1]):
        value = ite(cond, v, value)
    return value


def ite(cond: z3.BoolRef, a, b):
    """The value that is `a` where `cond` holds and `b` elsewhere."""
    if same(a, b):
        return a
    ta, tb = bool_term(a), bool_term(b)
    if ta is not None and tb is not None:
        return SBool(z3.If(cond, ta, tb))
    if _int_like(a) and _int_like(b):
        return SInt(z3.If(cond, _int(a), _int(b)))
    ea, eb = _enum_term(a), _enum_term(b)
    if ea is not None and eb is not None and ea[0] is eb[0]:
        return SEnum(ea[0], z3.If(cond, ea[1], eb[1]))
    if a is None or b is None or isinstance(a, SOption) or isinstance(b, SOption):
        (sa, ia), (sb, ib) = _option(a), _option(b)
        inner = ib if ia is None else ia if ib is None else ite(cond, ia, ib)
        return SOption(z3.simplify(z3.If(cond, sa, sb)), inner)
    if is_record(a) and is_record(b) and type(a) is type(b):
        fields = [ite(cond, x, y) for x, y in zip(record_fields(a), record_fields(b))]
        if isinstance(a, tuple):
            return type(a)(*fields)
        return dataclasses.replace(a, **{f.name: v for f, v in zip(dataclasses.fields(a), fields)})
    if type(a) is tuple and type(b) is tuple and len(a) == len(b):
        return tuple(ite(cond, x, y) for x, y in zip(a, b))
    raise Unmergeable


def _int_like(x) -> bool:
    return isinstance(x, SInt) or type(x) is int


def _int(x):
    return x.term if isinstance(x, SInt) else z3.IntVal(x)


def _enum_term(x):
    if isinstance(x, SEnum):
        return x.cls, x.term
    if isinstance(x, enum.Enum):
        return type(x), z3.IntVal(list(type(x)).index(x))
    return None


def _option(x) -> tuple[z3.BoolRef, object]:
    if x is None:
        return z3.BoolVal(False), None
    if isinstance(x, SOption):
        return x.some, x.inner
    return z3.BoolVal(True), x
