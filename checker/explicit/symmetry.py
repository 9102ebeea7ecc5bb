"""Symmetry reduction, as TLC's SYMMETRY: one state stored per orbit.

A model file may name sets of interchangeable values (`[check] symmetry = ["Client"]`):
an Enum the spec's code sees, a tuple of some of one Enum's members, or an `Int[lo, hi]`
the spec names and uses only as identities. Permuting the values of each set (every set
at once: the product of their permutation groups) maps a state to one of its orbit; the
search stores each state under its orbit's canonical form and expands that form, one
state per orbit. That the permutations are symmetries of the spec (its actions and
properties treat the values alike) is the user's claim, as with TLC, but not taken on
trust: `Verifier` checks it on every orbit the search expands, and a claim that fails
stops the search with a spec error.

The canonical form is TLC's kind: the least image of the state under the permutations,
comparing variable by variable (those that hold one set's values first, then the
others; a variable's codes as Python orders them). Any form that picks one state of each
orbit reaches the same orbits, so the distinct-state counts are TLC's. Permutations are
pruned as the comparison goes: only those reaching the least prefix so far go on, each
set's on its own while the variables compared hold values of one set.
"""
from __future__ import annotations

import array
import dataclasses
import enum
import itertools
import math
import operator
import sys
from typing import Any, Callable

from ..errors import SPEC_FAILURES, SpecError
from ..lang.dsl import Kind
from ..lang.domains import (Domain, EnumDomain, IntDomain, MapDomain, OptionDomain,
                            RecordDomain, SetDomain)
from .steps import step_holds, view

MAX_PERMUTATIONS = 40320         # 8!: beyond this, canonical forms cost more than they save
MEMORY = 1 << 16                 # canonical forms remembered


class NotSymmetric(ValueError):
    """A model's symmetry names something that is not a set of interchangeable values."""


@dataclasses.dataclass(frozen=True)
class SymmetricSet:
    """Values a model declares interchangeable, and which scalar domains hold them."""

    name: str
    values: tuple
    holds: Callable[[Domain], bool]          # does a scalar domain draw from these values?


def symmetric_sets(spec_cls: type, names: list[str], env: dict[str, Any]) -> list[SymmetricSet]:
    """The sets `names` gives, with the model's constants `env`; raises NotSymmetric
    saying what is wrong."""
    found, taken = [], set()
    for name in names:
        target = _visible(spec_cls, name)
        if target is None:
            raise NotSymmetric(f"symmetry: {spec_cls.__name__}'s code sees no {name!r} (name an "
                               f"attribute of the spec class or of a module defining it)")
        one = _symmetric_set(name, target, env)
        values = {(type(v), v) for v in one.values}
        if taken & values or len(one.values) < 2:
            raise NotSymmetric(f"symmetry: {name} " + ("repeats values of another set" if
                                                       taken & values else "has fewer than two values"))
        taken |= values
        found.append(one)
    return found


def _visible(spec_cls: type, name: str):
    """What `name` is in the spec class or in the module of a class it inherits from."""
    if hasattr(spec_cls, name):
        return getattr(spec_cls, name)
    for cls in spec_cls.__mro__:
        module = sys.modules.get(cls.__module__)
        if module is not None and name in vars(module):
            return vars(module)[name]
    return None


def _symmetric_set(name: str, target, env) -> SymmetricSet:
    if isinstance(target, type) and issubclass(target, enum.Enum):
        return SymmetricSet(name, tuple(target),
                            lambda d: isinstance(d, EnumDomain) and d.cls is target)
    if isinstance(target, (tuple, list, frozenset, set)) and target and \
            all(isinstance(v, enum.Enum) for v in target) and len({type(v) for v in target}) == 1:
        cls = type(next(iter(target)))
        return SymmetricSet(name, tuple(m for m in cls if m in target),
                            lambda d: isinstance(d, EnumDomain) and d.cls is cls)
    if isinstance(target, IntDomain):
        return SymmetricSet(name, tuple(target.resolve(env).values),
                            lambda d: isinstance(d, IntDomain) and d.origin is target)
    raise NotSymmetric(f"symmetry: {name} is not a set of interchangeable values (name an Enum, "
                       f"a tuple of one Enum's members or an Int[lo, hi] of the spec), got "
                       f"{type(target).__name__} {target!r:.60}")


class Symmetry:
    """The canonical form of states of `variables` (with `.index`, `.domain`) under every
    permutation of each of `sets` (see the module docstring)."""

    def __init__(self, variables, sets: list[SymmetricSet]):
        self.sets = sets
        self.size = math.prod(math.factorial(len(s.values)) for s in sets)
        if self.size > MAX_PERMUTATIONS:
            raise NotSymmetric(f"symmetry: {self.size:,} permutations (at most "
                               f"{MAX_PERMUTATIONS:,}): declare fewer or smaller sets")
        per_set = [[dict(zip(s.values, image)) for image in itertools.permutations(s.values)]
                   for s in sets]
        self.permutations = list(itertools.product(*per_set))    # the identity first
        self.single = [[i * _stride(per_set, k) for i in range(len(per_set[k]))]
                       for k in range(len(sets))]          # set k's permutations alone
        self._imagers: dict[int, tuple[Callable, int] | None] = {}
        self._memory: dict[tuple, tuple] = {}
        self._index: dict[tuple, int] | None = None      # permutation -> its index (`then`)
        parts = [(v.index, self._imager(v.domain)) for v in variables]
        parts = [(i, f, sets_used) for i, (f, sets_used) in
                 ((i, x) for i, x in parts if x is not None)]
        held = 0
        for _, _, sets_used in parts:
            held |= sets_used
        unheld = [s.name for k, s in enumerate(sets) if not held >> k & 1]
        if unheld:
            raise NotSymmetric(f"symmetry: no state variable holds a value of {', '.join(unheld)}")
        self.parts = sorted(parts, key=lambda part: bin(part[2]).count("1") > 1)

    def canonical(self, st: tuple) -> tuple:
        """The least image of `st` under the permutations (remembered for the last
        MEMORY states asked about: a search meets most states several times)."""
        found = self._memory.get(st)
        if found is None:
            if len(self._memory) >= MEMORY:
                self._memory.clear()
            found = self._memory[st] = self._least_image(st)
        return found

    def _least_image(self, st: tuple) -> tuple:
        out = list(st)
        alone = [list(s) for s in self.single]       # each set's permutations still in
        candidates = None                            # ... until a variable mixes sets
        for i, image, sets_used in self.parts:
            code = st[i]
            if candidates is None:
                if sets_used & (sets_used - 1):      # holds values of two sets or more
                    candidates = [sum(c) for c in itertools.product(*alone)]
                else:
                    k = sets_used.bit_length() - 1
                    images = [image(code, p) for p in alone[k]]
                    out[i] = least = min(images)
                    alone[k] = [p for p, c in zip(alone[k], images) if c == least]
                    continue
            if len(candidates) == 1:
                out[i] = image(code, candidates[0])
                continue
            images = [image(code, p) for p in candidates]
            out[i] = least = min(images)
            candidates = [p for p, c in zip(candidates, images) if c == least]
        least = tuple(out)
        return st if least == st else least          # one object where the store keeps both

    def image(self, st: tuple, p: int) -> tuple:
        """`st` under permutation `p` (an index into `permutations`)."""
        out = list(st)
        for i, image, _ in self.parts:
            out[i] = image(st[i], p)
        return tuple(out)

    def then(self, p: int, q: int) -> int:
        """The permutation that applies `p`, then `q` (indices into `permutations`)."""
        if self._index is None:
            self._index = {self._key(perm): i for i, perm in enumerate(self.permutations)}
        first, second = self.permutations[p], self.permutations[q]
        return self._index[self._key([{v: second[k][w] for v, w in part.items()}
                                      for k, part in enumerate(first)])]

    def _key(self, perm) -> tuple:
        return tuple(tuple(part[v] for v in s.values) for s, part in zip(self.sets, perm))

    def swaps(self) -> list[tuple[str, Any, Any, int]]:
        """(set name, a, b, permutation index) for each swap of neighbouring values of
        a set: together they generate every permutation."""
        found = []
        for k, s in enumerate(self.sets):
            for a, b in zip(s.values, s.values[1:]):
                p = next(p for p in self.single[k]
                         if {v: w for v, w in self.permutations[p][k].items() if v != w} == {a: b, b: a})
                found.append((s.name, a, b, p))
        return found

    # ------------------------------------------------------------ images of codes

    def _imager(self, d: Domain) -> tuple[Callable, int] | None:
        """(`f(code, p)`: the code of permutation p's image of the value coded `code` in
        `d`, a bit per set whose values `d` holds); None where `d` holds none."""
        if id(d) not in self._imagers:
            self._imagers[id(d)] = self._scalar_imager(d) if d.scalar else \
                self._map_imager(d) if isinstance(d, MapDomain) else self._set_imager(d)
        return self._imagers[id(d)]

    def _scalar_imager(self, d: Domain) -> tuple[Callable, int] | None:
        found = self._value_permuter(d)
        if found is None:
            return None
        permute, sets_used = found
        rows: dict[int, array.array] = {}      # code -> its image under each permutation

        def image(code, p):
            row = rows.get(code)
            if row is None:
                value = d.values[code]
                row = rows[code] = array.array("l", [d.encode(permute(value, perm))
                                                     for perm in self.permutations])
            return row[p]
        return image, sets_used

    def _value_permuter(self, d: Domain) -> tuple[Callable, int] | None:
        """(`permute(value, perm)` for a scalar domain, its sets), or None."""
        for k, s in enumerate(self.sets):
            if s.holds(d):
                return (lambda value, perm: perm[k].get(value, value)), 1 << k
        if isinstance(d, OptionDomain):
            inner = self._value_permuter(d.inner)
            if inner is not None:
                permute, sets_used = inner
                return (lambda value, perm: None if value is None else permute(value, perm)), sets_used
        if isinstance(d, RecordDomain):
            fields = {n: f for n, f in ((n, self._value_permuter(fd)) for n, fd in d.fields.items())
                      if f is not None}
            if fields:
                sets_used = 0
                for _, used in fields.values():
                    sets_used |= used
                return (lambda value, perm: _replaced(value, {
                    n: permute(getattr(value, n), perm) for n, (permute, _) in fields.items()})), sets_used
        return None

    def _map_imager(self, d: MapDomain) -> tuple[Callable, int] | None:
        key, value = self._scalar_imager(d.key), self._imager(d.value)
        if key is None and value is None:
            return None
        sets_used = (key[1] if key else 0) | (value[1] if value else 0)
        positions = range(len(d.keys))
        if key is None:                      # values move, keys stay
            permute = value[0]
            return (lambda code, p: tuple([permute(c, p) for c in code])), sets_used
        # gather[p](code): the values in the order p puts their keys in
        gather = [operator.itemgetter(*sorted(positions, key=lambda j: key[0](j, p)), positions[-1])
                  for p in range(self.size)]
        if value is None:
            return (lambda code, p: gather[p](code)[:-1]), sets_used
        permute = value[0]
        return (lambda code, p: tuple([permute(c, p) for c in gather[p](code)[:-1]])), sets_used

    def _set_imager(self, d: SetDomain) -> tuple[Callable, int] | None:
        elem = self._scalar_imager(d.elem)
        if elem is None:
            return None
        permute = elem[0]

        def image(code, p):
            bits, i = 0, 0
            while code:
                if code & 1:
                    bits |= 1 << permute(i, p)
                code >>= 1
                i += 1
            return bits
        return image, elem[1]


def _stride(per_set: list[list], k: int) -> int:
    """How far apart, in `permutations` (a product), two permutations of set k are."""
    stride = 1
    for perms in per_set[k + 1:]:
        stride *= len(perms)
    return stride


def _replaced(record, changes: dict):
    """A record (NamedTuple or frozen dataclass) with some fields changed."""
    if hasattr(record, "_replace"):
        return record._replace(**changes)
    return dataclasses.replace(record, **changes)


def symmetry_of(machine, names: list[str]) -> Symmetry | None:
    """The symmetry a run declares (`[check] symmetry`), None for none; raises
    NotSymmetric."""
    if not names:
        return None
    return Symmetry(machine.variables, symmetric_sets(machine.spec_cls, names, machine.env))


def liveness_refused(properties) -> str:
    """Why a run with symmetry does not check liveness properties."""
    return (f"symmetry with liveness properties ({', '.join(p.name for p in properties)}): "
            f"a lasso of the reduced graph need not be one of the spec (TLC is unsound "
            f"there); check them with --no-symmetry or leave them out (-p)")


class Verifier:
    """The user's claim checked where the reduction relies on it: each state the search
    expands (its orbit's representative) stands for every state of its orbit, reachable
    ones included, so each of those must behave alike: the same successors up to
    symmetry, the same invariants, `@reachable`s, constraints and terminal conditions,
    and the same step properties on each step. Checked on every orbit the search meets,
    the reduced search reaches exactly the orbits of the reachable states (a proof for
    this run, not a sample); it costs an expansion of each other state of each orbit."""

    def __init__(self, machine, symmetry: Symmetry):
        self.machine, self.symmetry = machine, symmetry
        self.properties = [p.fn for p in machine.properties
                           if p.kind in (Kind.INVARIANT, Kind.REACHABLE)]
        self.steps = [p for p in machine.properties if p.kind == Kind.STEP_INVARIANT]
        self.swaps = symmetry.swaps()

    def __call__(self, st: tuple) -> None:
        """Raise a SpecError if some state of `st`'s orbit behaves otherwise than `st`."""
        mine = None
        for image, p, how in self._orbit(st):
            if mine is None:
                mine = Behaviour(self, st)
            what = mine.differs(Behaviour(self, image), p)
            if what:
                raise SpecError(f"symmetry {', '.join(s.name for s in self.symmetry.sets)}: "
                                f"{how} in a reachable state's orbit changes {what}: the values "
                                f"are not interchangeable", self.machine.where)

    def _orbit(self, st: tuple):
        """(state, the permutation from `st` to it, how) for every other state of `st`'s
        orbit, closing `st` under the swaps of neighbouring values (they generate the
        group)."""
        found, todo = {st: (0, "")}, [st]
        while todo:
            here = todo.pop()
            p, how = found[here]
            for name, a, b, swap in self.swaps:
                image = self.symmetry.image(here, swap)
                if image not in found:
                    found[image] = q, more = self.symmetry.then(p, swap), \
                        (f"{how}, then " if how else "") + f"swapping {_shown(a)} and {_shown(b)} of {name}"
                    todo.append(image)
                    yield image, q, more


class Behaviour:
    """What the reduction assumes alike on an orbit, of one state: its steps (successor,
    step properties) and the values of its properties, constraints and terminal
    conditions; or the failure the state raises."""

    def __init__(self, verifier: Verifier, st: tuple):
        m = self.machine = verifier.machine
        self.symmetry, self._canonical = verifier.symmetry, None
        self.failure = self.steps = self.values = None
        try:
            steps = m.successors(st)
            before = view(m, st) if verifier.steps else None
            self.steps = frozenset((succ, tuple(step_holds(m, p, before, view(m, succ), b)
                                                for p in verifier.steps))
                                   for b, _, succ in steps)
            m.load(m.scratch, st)
            self.values = ([m.holds(fn, "property") for fn in verifier.properties],
                           [m.holds(c, "constraint") for c in m.constraints],
                           [m.holds(t, "terminal") for t in m.terminals])
        except SPEC_FAILURES as e:
            self.failure = f"{type(e).__name__}: {e}"

    def differs(self, other: "Behaviour", p: int) -> str | None:
        """What differs in `other`, a state this one's permutation `p` gives; None if
        nothing does (the successors the very images of these, or else the same up to
        symmetry)."""
        if self.failure or other.failure:
            return None if self.failure == other.failure else "the successors"
        if self.values != other.values:
            return "the properties"
        image = self.symmetry.image
        if other.steps == {(image(succ, p), values) for succ, values in self.steps} or \
                other.canonical() == self.canonical():
            return None
        return "the successors"

    def canonical(self) -> frozenset:
        if self._canonical is None:
            canonical = self.symmetry.canonical
            self._canonical = frozenset((canonical(succ), values) for succ, values in self.steps)
        return self._canonical


def _shown(value) -> str:
    return value.name if isinstance(value, enum.Enum) else repr(value)
