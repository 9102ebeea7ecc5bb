"""Helper calls read once: a helper's paths merged into one (function summaries).

Reading an action path by path multiplies paths at every `if` on symbolic state: ten
independent `if`s in the helpers an action calls give 2^10 paths, though most of them
rejoin as soon as the helper returns. So a call to a spec helper method does not fork the
caller: the helper is explored on its own (a nested `Explorer`, under the caller's path
condition), and its paths are merged where they rejoin, at the return: the scratch state
and the returned value become if-then-else terms over the paths' conditions, the
condition that some path is enabled is added to the caller's path, and the paths that
raise are kept as failures. The caller goes on with one path instead of many.

A call is merged only where that is exact: the helper changes nothing but the scratch
state (its other arguments are immutable values or the scratch's own maps and sets) and
makes no `choose` (a choice is a labelled fork of the transition). Otherwise, or when the
paths leave values of different kinds that cannot be merged, the helper runs in the
caller's path, forking it as before.
"""
from __future__ import annotations

import dataclasses
import enum
import functools

import z3

from ..lang.dsl import Disabled
from ..lang.bound import MISSING
from .containers import SMap, SSet
from .sequences import SSeq
from .paths import Explorer, SymbolicError, active_explorer, undecided
from .terms import Sym, Unmergeable, first_of, identical, record_fields, same


def merging(fn):
    """`fn` (a recompiled spec helper) whose calls inside a symbolic run are merged."""
    @functools.wraps(fn)
    def call(*args, **kw):
        ex = active_explorer()
        if ex is None or ex.scratch is None:
            return fn(*args, **kw)
        owned = ex.scratch.owned()
        if not all(x is ex.scratch.sc or id(x) in owned or _immutable(x)
                   for x in (*args, *kw.values())):
            return fn(*args, **kw)      # it may change a mutable the scratch does not hold
        return _merged_call(ex, fn, args, kw, owned)
    call.__wrapped_helper__ = fn
    return call


class Scratch:
    """The variables of one scratch state: snapshots, restores and merges them in place
    (so a caller holding a map or set of the scratch keeps seeing the current one)."""

    def __init__(self, sc, variables, shapes, memo: dict):
        self.sc, self.names, self.shapes = sc, [v.name for v in variables], shapes
        self.memo = memo            # helper call -> _Summary, shared by the relation's runs

    def owned(self) -> dict[int, tuple]:
        """The scratch's maps and sets, nested ones too: id -> where (variable, keys)."""
        found: dict[int, tuple] = {}
        for n in self.names:
            _containers(getattr(self.sc, n, None), (n,), found)
        return found

    def snapshot(self) -> list:
        return [_freeze(getattr(self.sc, n, MISSING)) for n in self.names]

    def restore(self, saved: list):
        for n, value in zip(self.names, saved):
            current = getattr(self.sc, n, MISSING)
            if not _restore_into(current, value):
                if value is MISSING:
                    if current is not MISSING:
                        delattr(self.sc, n)
                else:
                    setattr(self.sc, n, _thaw(value))

    def written_only_where(self, guard: z3.BoolRef, before: list):
        """The state as the last writes left it where `guard` holds, else `before` (the
        right operand of a merged `and` / `or` runs only where Python would run it)."""
        try:
            merged = self.merged([(guard, self.snapshot()), (None, before)])
        except Unmergeable:
            raise SymbolicError("the right operand of `and` / `or` changes the state in a way "
                                "that cannot be kept only where it runs; use an `if`") from None
        self.restore(merged)

    def merged(self, outcomes: list[tuple[z3.BoolRef, list]]) -> list:
        """One snapshot: per variable, the if-then-else of the paths' values."""
        out = []
        for i, shape in enumerate(self.shapes):
            values = [saved[i] for _, saved in outcomes]
            if all(same(v, values[0]) for v in values[1:]):
                out.append(values[0])
                continue
            if any(v is MISSING for v in values):
                raise Unmergeable
            try:
                leaves = [shape.flatten(_thaw(v)) for v in values]
            except Exception:
                raise Unmergeable from None
            merged = leaves[-1]
            for (cond, _), part in zip(reversed(outcomes[:-1]), reversed(leaves[:-1])):
                merged = [a if identical(a, b) else z3.If(cond, a, b) for a, b in zip(part, merged)]
            out.append(_freeze(shape.view(merged)))
        return out


class _Items(dict):
    """A frozen SMap's items (frozen recursively)."""


class _Bits(dict):
    """A frozen SSet's membership bits."""


# Snapshots and restores walk the whole state at every merged call: the tests below are
# on type(), not isinstance, which on a symbolic scalar that is no map calls the property
# by which it poses as a bool, int or enum (`__class__`).

def _containers(value, where: tuple, found: dict[int, tuple]):
    if type(value) is SMap:
        found[id(value)] = where
        for k, v in value._items.items():
            _containers(v, where + (k,), found)
    elif type(value) is SSet:
        found[id(value)] = where


def _freeze(value):
    kind = type(value)
    if kind is SMap:
        return _Items({k: _freeze(v) for k, v in value._items.items()})
    if kind is SSet:
        return _Bits(value._bits)
    return value


def _thaw(value):
    kind = type(value)
    if kind is _Bits:
        return SSet(dict(value))
    if kind is _Items:
        return SMap({k: _thaw(v) for k, v in value.items()})
    return value


def _restore_into(current, saved) -> bool:
    """Put `saved` into the map or set `current` in place; False if it is not one."""
    if type(current) is SSet and type(saved) is _Bits:
        current._bits.clear()
        current._bits.update(saved)
        return True
    if type(current) is SMap and type(saved) is _Items:
        items = current._items
        for k, v in saved.items():
            if not _restore_into(items.get(k), v):
                items[k] = _thaw(v)
        return True
    return False


def _immutable(x) -> bool:
    if x is None or isinstance(x, (bool, int, str, enum.Enum, Sym, z3.ExprRef)):
        return True
    if isinstance(x, (tuple, frozenset)):
        return all(map(_immutable, x))
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return x.__dataclass_params__.frozen and all(map(_immutable, record_fields(x)))
    return False


@dataclasses.dataclass
class _Summary:
    """A helper call's paths, merged: what it returns, the state it leaves, where some
    path is enabled, and where it fails (condition, exception)."""

    result: object
    after: list
    enabled: z3.BoolRef
    failures: list
    alive: tuple            # keeps the key's terms alive, so that their ids stay theirs


def _merged_call(ex: Explorer, fn, args, kw, owned: dict[int, tuple]):
    scratch = ex.scratch
    before = scratch.snapshot()
    context = ex.context + ex.conditions + ex.guards
    where = {**owned, id(scratch.sc): ()}

    def argument(x):            # the scratch's own objects by where they are in it
        return ("scratch at", *where[id(x)]) if id(x) in where else _key(x)
    arguments = (tuple(map(argument, args)), tuple((k, argument(v)) for k, v in kw.items()))
    key = (fn, arguments, _key(before), tuple(c.get_id() for c in context))
    if key not in scratch.memo:         # a replayed prefix calls it again, in the same state
        scratch.memo[key] = _summarize(ex, fn, args, kw, before, (args, kw, before, context))
    summary = scratch.memo[key]
    if summary is None:
        scratch.restore(before)
        return fn(*args, **kw)
    for condition, e in summary.failures:   # a failure is a failure of the caller's path too
        ex.failed(condition, e)
    if summary.after is None:
        scratch.restore(before)
        raise Disabled
    ex.assume(summary.enabled)
    scratch.restore(summary.after)
    return summary.result


def _summarize(ex: Explorer, fn, args, kw, before, alive) -> _Summary | None:
    """The merged paths of `fn(*args, **kw)` from the state `before`; None if unmergeable."""
    scratch = ex.scratch

    def run():
        scratch.restore(before)
        result = fn(*args, **kw)
        return result, scratch.snapshot()
    paths = list(ex.nested().explore(run, fn.__qualname__))
    if any(p.choices for p in paths):
        return None
    failures = [f for p in paths for f in p.failures] + \
        [(p.condition, p.error) for p in paths if p.error is not None]
    live = [(p.condition, p.outcome) for p in paths if p.enabled and p.error is None]
    if not live:
        return _Summary(None, None, z3.BoolVal(False), failures, alive)
    try:
        with undecided(Unmergeable):
            result = first_of([(cond, value) for cond, (value, _) in live])
            after = scratch.merged([(cond, saved) for cond, (_, saved) in live])
    except Unmergeable:
        return None
    return _Summary(result, after, z3.simplify(z3.Or([cond for cond, _ in live])), failures,
                    alive)


def _key(x):
    """A hashable key of a value: Z3 terms by address (hash-consed: equal terms share one
    while alive, and a summary keeps its key's terms alive). A key is taken of the whole
    state at every merged call, so each type's way to take one is looked up once."""
    kind = type(x)
    key_of = _KEY_OF.get(kind)
    if key_of is None:
        key_of = _KEY_OF[kind] = _key_of(kind)
    return key_of(x)


def _key_of(kind: type):
    """How to take the key of a value of type `kind`."""
    if issubclass(kind, z3.AstRef):
        return lambda x: x.ast.value
    if issubclass(kind, Sym):
        return lambda x: (kind, *(_key(getattr(x, n)) for n in kind.__slots__))
    if issubclass(kind, SSeq):
        return lambda x: (SSeq, _key(x.length), *map(_key, x.slots))
    if issubclass(kind, SSet):          # a set field of a record (state sets are frozen)
        return lambda x: (SSet, *((e, _key(b)) for e, b in x.members()))
    if issubclass(kind, dict):
        return lambda x: (kind, *((k, _key(v)) for k, v in x.items()))
    if issubclass(kind, (tuple, list)):
        return lambda x: (kind, *map(_key, x))
    if dataclasses.is_dataclass(kind):
        return lambda x: (kind, *map(_key, record_fields(x)))
    return lambda x: x


_KEY_OF: dict[type, object] = {}
