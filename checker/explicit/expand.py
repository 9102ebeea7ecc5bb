"""One state's steps: the interpreter's inner loop, and the one definition of a step.

`expander(machine)` returns `expand(st, emit)`: it loads `st` into the machine's
scratch, runs each binding the dispatch leaves (its guard, then its body; an action that
chooses runs once per outcome) and calls `emit(index, succ, choices, changed, loaded)`
for each step, self-loops included, in binding order. `index` is the binding's
`Binding.index`, `choices` what it chose (empty unless it chose), `changed` a bit per
variable that differs from `st`. When `loaded` is true the scratch holds `succ` for the
length of the call (a property can be read off it); otherwise emit must load `succ`
itself to read it. `expand` returns how many steps it emitted.

The search, its workers, traces, replay and conformance all take their steps from here.
"""
from __future__ import annotations

from typing import Callable

from .dispatch import Dispatch
from ..lang.dsl import Disabled
from ..errors import SPEC_FAILURES
from .fastpath import DISABLED

Emit = Callable[[int, tuple, tuple, int, bool], None]


def expander(m) -> Callable[[tuple, Emit], int]:
    """`expand(st, emit)` for Machine `m` (see the module docstring). Its oracle must be
    installed while it runs (`dsl.install_oracle`)."""
    sc, oracle = m.scratch, m.oracle
    load, restore = m.load, m.restore
    bindings = [(b.index, b.guard, b.body, b.label, *m.codecs(b.writes)) for b in m.bindings]
    candidates = Dispatch([b.selectors for b in m.bindings], m.variables).candidates

    def expand(st: tuple, emit: Emit) -> int:
        base = load(sc, st)
        produced = 0
        tried = candidates(st)                          # in binding order, lowest bit first
        while tried:
            low = tried & -tried
            tried ^= low
            index, guard, body, label, encode, undo = bindings[low.bit_length() - 1]
            try:
                if guard is not None and not guard(sc):
                    continue
                oracle.taken = None
                try:
                    result = body(sc)
                except Disabled:
                    result = DISABLED
            except SPEC_FAILURES as e:
                restore(sc, base)
                raise m.error_in(label, e) from None
            if oracle.taken is not None:                 # it chose: run it once per choice
                restore(sc, base)
                outcomes = list(m.run(body, label, st, base))
                for choices, succ in outcomes:
                    emit(index, succ, choices, changed_between(st, succ), False)
                produced += len(outcomes)
                base = load(sc, st)
                continue
            if result is DISABLED:
                undo(sc, base)
                continue
            try:
                succ = encode(sc, base, st)
            except Exception:
                succ = m.encode(sc, base, st, label)       # raises, naming the variable
            produced += 1
            emit(index, succ, (), sc._changed, True)
            undo(sc, base)
        return produced

    return expand


def changed_between(st: tuple, succ: tuple) -> int:
    """A bit per variable whose code differs between two states."""
    return sum(1 << i for i, (a, b) in enumerate(zip(st, succ)) if a != b)
