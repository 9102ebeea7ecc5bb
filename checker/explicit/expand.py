"""One state's steps: the interpreter's inner loop, and the one definition of a step.

`expander(machine)` returns `expand(st, emit)`: it runs each binding the dispatch leaves
for `st` (never one whose guard the model's constants alone make false): its guard,
then its body; an action that chooses runs once per outcome. It calls
`emit(index, succ, choices, changed, loaded)` for each step, self-loops included, in
binding order. `index` is the binding's `Binding.index`, `choices` what it chose (empty
unless it chose), `changed` a bit per variable that differs from `st` (or was written).
When `loaded` is true the scratch holds `succ` for the length of the call (a property
can be read off it); otherwise emit must load `succ` itself to read it. `expand`
returns how many steps it emitted.

Steps are remembered per action, per what the action read. An action is deterministic:
what its bindings do from `st` depends only on the variables they read, in the order
they read them (each read decides the next). The first run of an action from a state is
traced (`Machine.traced_cls`: each variable read is logged) and its steps stored in a
tree: each node names the next variable the action read, each branch a code of it, each
leaf the steps (each binding's choices, what changed and its new codes; none where all
are disabled). A later state that agrees with a path of the tree on the variables along
it (the dispatch's, then those the action read) replays that leaf without loading the
state or running the spec. An action whose runs seldom recur (under one replay in ten
after `TRIAL` runs) stops remembering. Worker processes teach each other the paths they
learn (`expand.lessons`, `expand.learn`): each would otherwise run the spec for every
path that any worker met, and those runs are the costly part of a state.

The search, its workers, traces, replay and conformance all take their steps from here.
"""
from __future__ import annotations

from typing import Callable

from ..errors import SPEC_FAILURES
from ..lang.dsl import Disabled, swallowed
from .dispatch import Dispatch
from .fastpath import DISABLED

Emit = Callable[[int, tuple, tuple, int, bool], None]

TRIAL = 4096            # runs of an action before its replay rate is judged
LIMIT = 1 << 18         # paths remembered per action at most


class _Binding:
    """A binding as the inner loop runs it."""

    __slots__ = ("index", "guard", "guard_calls", "body", "label", "encode", "undo")

    def __init__(self, m, b):
        fast = m.fast_paths[b.index]
        self.index, self.guard, self.body, self.label = b.index, fast.guard, fast.body, b.label
        self.guard_calls = fast.guard_calls
        self.encode, self.undo = m.codecs(b.writes)


class _Action:
    """An action's bindings (a bit each, by position) and the tree of what they did.

    The tree's root is keyed by the codes of the variables the dispatch reads for the
    action (`key`, read first on every path); below it a node is a list [variable
    index, {code: node}]; a leaf is the tuple of steps, each (binding index, choices,
    written: a bit per variable changed or assigned, patch, their new codes),
    `patch(st, codes)` making the successor (`Machine.projection`). Replayed, a step
    reports as changed all it wrote."""

    __slots__ = ("name", "mask", "first", "key", "root", "paths", "hits", "misses",
                 "remembering", "forgotten", "position")

    def __init__(self, m, name: str, mask: int, first: list[int], remember: bool):
        self.name, self.mask, self.first, self.remembering = name, mask, first, remember
        self.key = m.projection(sum(1 << i for i in first))[0]
        self.root: dict = {}
        self.paths = self.hits = self.misses = 0
        self.forgotten: str | None = None         # why it stopped remembering
        self.position = 0                         # among the machine's actions

    def forget(self, why: str) -> None:
        self.remembering, self.root, self.forgotten = False, {}, why

    def remember(self, st: tuple, read: list[int], steps: tuple) -> bool:
        """Keep `steps` under the codes `st` has for the variables `read` after the
        dispatch's (in the order they were read), or give up remembering where it does
        not pay. True if kept."""
        if self.misses == TRIAL and self.hits * 10 < self.misses:
            self.forget("its runs seldom recur")
            return False
        if self.paths >= LIMIT:
            return False
        self.paths += 1
        key = self.key(st)
        node, k = self.root.get(key), 0
        if node is None:
            self.root[key] = _path(st, read, 0, steps)
            return True
        while True:
            if k >= len(read) or node[0] != read[k]:
                self.forget("it read other variables from the same values: it depends on "
                            "something besides the state (a global, randomness, set order)")
                return False
            child = node[1].get(st[node[0]])
            if child is None:
                node[1][st[node[0]]] = _path(st, read, k + 1, steps)
                return True
            node, k = child, k + 1

    def recalls(self, st: tuple) -> bool:
        """Whether a path of the tree leads to what the action does from `st`."""
        node = self.root.get(self.key(st))
        while node.__class__ is list:
            node = node[1].get(st[node[0]])
        return node is not None


def _path(st: tuple, read: list[int], k: int, steps: tuple):
    """A chain of nodes testing `read[k:]` at their codes in `st`, ending in `steps`."""
    node = steps
    for i in reversed(read[k:]):
        node = [i, {st[i]: node}]
    return node


def expander(m, remember: bool = True) -> Callable[[tuple, Emit], int]:
    """`expand(st, emit)` for Machine `m` (see the module docstring). Its oracle must be
    installed while it runs (`dsl.install_oracle`). `remember=False` runs the spec for
    every step and dispatch: the reference the remembered steps are tested against."""
    sc, oracle = m.scratch, m.oracle
    load, restore = m.load, m.restore
    plain, traced, reads, writes = m.state_cls, m.traced_cls, m.reads_log, m.writes_log
    bindings = [_Binding(m, b) for b in m.bindings]
    fast = [m.fast_paths[b.index] for b in m.bindings]
    dispatch = Dispatch([f.selectors for f in fast], m.variables,
                        sum(1 << at for at, f in enumerate(fast)
                            if f.guard is not None and m.constant(f.guard) is False), remember)
    candidates = dispatch.candidates
    actions: list[_Action] = []                     # by binding position
    for at, b in enumerate(m.bindings):
        if at and m.bindings[at - 1].name == b.name:
            actions.append(actions[-1])
        else:
            mask = sum(1 << k for k, other in enumerate(m.bindings) if other.name == b.name)
            actions.append(_Action(m, b.name, mask, dispatch.reads(mask), remember))
    distinct = list(dict.fromkeys(actions))
    for position, a in enumerate(distinct):
        a.position = position
    taught: list[tuple] = []                        # paths learnt since `lessons` last asked
    teaching = False                                # (once asked: another process listens)

    def expand(st: tuple, emit: Emit) -> int:
        base = None                                     # the scratch holds st when set
        produced = 0
        tried = candidates(st)                          # in binding order, lowest bit first
        while tried:
            a = actions[(tried & -tried).bit_length() - 1]
            mine = tried & a.mask
            tried ^= mine
            if a.remembering:
                steps = a.root.get(a.key(st))           # what it did from these codes
                while steps.__class__ is list:
                    steps = steps[1].get(st[steps[0]])
                if steps is not None:
                    a.hits += 1
                    if steps:
                        for index, choices, changed, patch, codes in steps:
                            emit(index, patch(st, codes), choices, changed, False)
                        produced += len(steps)
                        base = None                     # emit may have loaded a successor
                    continue
            if base is None:
                base = load(sc, st)
            n, base = run(a, mine, st, base, emit)
            produced += n
        return produced

    def run(a: _Action, mine: int, st: tuple, base: tuple, emit: Emit) -> tuple[int, tuple | None]:
        """Run the bindings at `mine` (`a`'s that the dispatch left) from the scratch
        holding `st` (`base`); traced, and remembered, if `a` remembers. Returns the
        steps emitted and `base`, or None when the scratch no longer holds `st`."""
        remembering, produced, taken = a.remembering, 0, []
        a.misses += 1
        if remembering:
            reads[:] = a.first
        while mine:
            low = mine & -mine
            mine ^= low
            b = bindings[low.bit_length() - 1]
            if base is None:
                base = load(sc, st)
            if remembering:
                writes.clear()
                sc.__class__ = traced
            oracle.acting = True
            try:
                if b.guard is not None and not b.guard(sc):
                    if b.guard_calls:                   # what it wrote before failing
                        b.undo(sc, base)
                    continue
                oracle.taken, refused = None, Disabled.raised
                try:
                    result = b.body(sc)
                    if Disabled.raised != refused:
                        raise swallowed(b.label)
                except Disabled:
                    result = DISABLED
            except SPEC_FAILURES as e:
                sc.__class__ = plain
                restore(sc, base)
                raise m.error_in(b.label, e) from None
            finally:
                sc.__class__ = plain
                oracle.acting = False
            if oracle.taken is not None:                # it chose: run it once per choice
                restore(sc, base)
                body = _traced(b.body, sc, traced, plain, writes) if remembering else b.body
                outcomes = []
                for choices, succ in m.run(body, b.label, st, base):
                    changed = changed_between(st, succ)
                    outcomes.append((choices, succ, changed))
                    if remembering:                     # (what this run assigned)
                        taken.append(_step(m, b.index, choices, changed, succ, writes))
                for choices, succ, changed in outcomes:
                    emit(b.index, succ, choices, changed, False)
                produced += len(outcomes)
                base = None
                continue
            if result is DISABLED:
                b.undo(sc, base)
                continue
            try:
                succ = b.encode(sc, base, st)
            except Exception:
                succ = m.encode(sc, base, st, b.label)     # raises, naming the variable
            produced += 1
            changed = sc._changed
            if remembering:
                taken.append(_step(m, b.index, (), changed, succ, writes))
            emit(b.index, succ, (), changed, True)
            b.undo(sc, base)
        if remembering:
            read, steps = list(dict.fromkeys(reads))[len(a.first):], tuple(taken)
            if a.remember(st, read, steps) and teaching:
                taught.append((a.position, st, read,
                               tuple((i, c, w, codes) for i, c, w, _, codes in steps)))
        return produced, base

    def memory() -> tuple[int, int, dict[str, str]]:
        """(replayed, run): action runs replayed and run so far; why each action that
        stopped remembering did."""
        return (sum(a.hits for a in distinct), sum(a.misses for a in distinct),
                {a.name: a.forgotten for a in distinct if a.forgotten})

    def lessons() -> list[tuple]:
        """The paths learnt since the last call (from the first call on), picklable: for
        `learn` in another process of the same machine."""
        nonlocal teaching
        teaching = True
        out = taught[:]
        taught.clear()
        return out

    def learn(paths: list[tuple]) -> None:
        """Remember the paths another process's `lessons` gave, where still unknown."""
        for position, st, read, steps in paths:
            a = distinct[position]
            if a.remembering and not a.recalls(st):
                a.remember(st, read, tuple((i, c, w, m.projection(w)[1], codes)
                                           for i, c, w, codes in steps))

    expand.memory, expand.lessons, expand.learn = memory, lessons, learn
    return expand


def _step(m, index: int, choices: tuple, changed: int, succ: tuple, written: list[int]) -> tuple:
    """A step as a leaf keeps it (see `_Action`): with the new codes of every variable it
    changed or assigned (an assignment of the value it had is a write all the same: from
    another state it may change it)."""
    written = changed | sum(1 << i for i in set(written))
    project, patch = m.projection(written)
    return index, choices, written, patch, project(succ)


def _traced(body, sc, traced, plain, writes):
    """`body` run on the scratch traced, its assignments logged afresh each run."""
    def run(state):
        writes.clear()
        sc.__class__ = traced
        try:
            return body(state)
        finally:
            sc.__class__ = plain
    return run


def changed_between(st: tuple, succ: tuple) -> int:
    """A bit per variable whose code differs between two states."""
    return sum(1 << i for i, (a, b) in enumerate(zip(st, succ)) if a != b)
