"""One state's steps: the interpreter's inner loop, and the one definition of a step.

`expander(machine)` returns `expand(st, emit)`: it runs each binding the dispatch leaves
for `st` (none whose guard the model's constants make false; its guard, then its body; an action that chooses runs once per outcome) and
calls `emit(index, succ, choices, changed, loaded)` for each step, self-loops included,
in binding order. `index` is the binding's `Binding.index`, `choices` what it chose
(empty unless it chose), `changed` a bit per variable that differs from `st` (or was
written). When `loaded` is true the scratch holds `succ` for the length of the call (a
property can be read off it); otherwise emit must load `succ` itself to read it.
`expand` returns how many steps it emitted.

Outcomes are remembered. A binding reads and writes only the variables its action
names (`checker.lang.reads`), so what it does from `st` is a function of their codes:
the first state with those codes runs the spec, later ones replay the remembered
outcomes (disabled, or each successor's new codes) without loading the state. Where
the reads are not known (`writes == -1`), or a binding's outcomes are seldom met again
(under one hit in ten runs after `TRIAL` misses: a replay costs far less than a
run), it runs every time.

The search, its workers, traces, replay and conformance all take their steps from here.
"""
from __future__ import annotations

from typing import Callable

from ..errors import SPEC_FAILURES
from ..lang.dsl import Disabled
from .dispatch import Dispatch
from .fastpath import DISABLED

Emit = Callable[[int, tuple, tuple, int, bool], None]

TRIAL = 4096            # misses of a binding before its hit rate is judged
LIMIT = 1 << 18         # keys remembered per projection at most


class _Binding:
    """A binding as the inner loop runs it, with its remembered outcomes: in the table of
    its projection (the bindings of one action share theirs), under the projected codes,
    a row of outcomes by binding index."""

    __slots__ = ("index", "guard", "body", "label", "encode", "undo", "project", "patch",
                 "table", "remembering", "hits", "misses")

    def __init__(self, m, b, tables: dict | None):
        self.index, self.guard, self.body, self.label = b.index, b.guard, b.body, b.label
        self.encode, self.undo = m.codecs(b.writes)
        self.remembering = tables is not None and b.writes != -1
        self.project, self.patch = m.projection(b.writes) if self.remembering else (None, None)
        self.table = tables.setdefault(b.writes, {}) if self.remembering else None
        self.hits = self.misses = 0

    def remember(self, row: dict | None, outcomes: tuple):
        """Keep `outcomes` in `row`, or give up remembering where it does not pay."""
        self.misses += 1
        if self.misses == TRIAL and self.hits * 10 < self.misses:
            self.remembering = False
        elif row is not None:
            row[self.index] = outcomes


def expander(m, remember: bool = True) -> Callable[[tuple, Emit], int]:
    """`expand(st, emit)` for Machine `m` (see the module docstring). Its oracle must be
    installed while it runs (`dsl.install_oracle`). `remember=False` runs the spec for
    every step and dispatch: the reference the remembered outcomes are tested against."""
    sc, oracle = m.scratch, m.oracle
    load, restore = m.load, m.restore
    tables: dict | None = {} if remember else None
    bindings = [_Binding(m, b, tables) for b in m.bindings]
    never = sum(1 << at for at, b in enumerate(m.bindings)
                if b.guard is not None and m.constant(b.guard) is False)
    candidates = Dispatch([b.selectors for b in m.bindings], m.variables, never,
                          remember).candidates

    def expand(st: tuple, emit: Emit) -> int:
        base = None                                     # the scratch holds st when set
        produced = 0
        project = row = None                            # the last projection and its row:
        tried = candidates(st)                          # an action's bindings share theirs
        while tried:                                    # in binding order, lowest bit first
            low = tried & -tried
            tried ^= low
            b = bindings[low.bit_length() - 1]
            remembering = b.remembering
            if remembering:
                if b.project is not project:
                    project = b.project
                    key = project(st)
                    row = b.table.get(key)
                    if row is None and len(b.table) < LIMIT:
                        row = b.table[key] = {}
                outcomes = row.get(b.index) if row is not None else None
                if outcomes is not None:
                    b.hits += 1
                    for choices, codes, changed in outcomes:
                        emit(b.index, b.patch(st, codes) if changed else st, choices, changed, False)
                    if outcomes:
                        produced += len(outcomes)
                        base = None                     # emit may have loaded a successor
                    continue
            if base is None:
                base = load(sc, st)
            try:
                if b.guard is not None and not b.guard(sc):
                    if remembering:
                        b.remember(row, ())
                    continue
                oracle.taken = None
                try:
                    result = b.body(sc)
                except Disabled:
                    result = DISABLED
            except SPEC_FAILURES as e:
                restore(sc, base)
                raise m.error_in(b.label, e) from None
            if oracle.taken is not None:                 # it chose: run it once per choice
                restore(sc, base)
                outcomes = tuple((choices, succ, changed_between(st, succ))
                                 for choices, succ in m.run(b.body, b.label, st, base))
                for choices, succ, changed in outcomes:
                    emit(b.index, succ, choices, changed, False)
                produced += len(outcomes)
                base = None
                if remembering:
                    b.remember(row, tuple((choices, b.project(succ), changed)
                                          for choices, succ, changed in outcomes))
                continue
            if result is DISABLED:
                b.undo(sc, base)
                if remembering:
                    b.remember(row, ())
                continue
            try:
                succ = b.encode(sc, base, st)
            except Exception:
                succ = m.encode(sc, base, st, b.label)     # raises, naming the variable
            produced += 1
            changed = sc._changed
            emit(b.index, succ, (), changed, True)
            b.undo(sc, base)
            if remembering:
                b.remember(row, (((), b.project(succ), changed),))
        return produced

    expand.replayed = lambda: sum(b.hits for b in bindings)   # steps replayed so far
    return expand


def changed_between(st: tuple, succ: tuple) -> int:
    """A bit per variable whose code differs between two states."""
    return sum(1 << i for i, (a, b) in enumerate(zip(st, succ)) if a != b)
