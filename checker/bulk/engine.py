"""The bulk engine: the interpreter's breadth-first search, a whole level at a time.

The spec is read once as a relation (`checker/symbolic/relation.py`: per binding, guarded
paths with their next-state leaves; per property, a formula). A BFS level is then a numpy
array of packed states (`layout.py`); each path is a few array operations over the whole
level (`vectorize.py`); duplicates go by sorting. It is the same search as the
interpreter's (`checker/explicit/explorer.py`), so it gives the same counts, verdicts and traces:
successors are ordered as the interpreter finds them (by the state they come from, then
by binding and choice), so each level lists its new states in the interpreter's order,
and the first violation found is the interpreter's.

On `--workers N` (N > 1) it runs on N threads (numpy's sorts and searches run without the
GIL, and they are most of the work). Each thread expands a slice of the level, sorts its
successors and looks them up among the visited states, which are kept sorted in N parts,
each a range of keys (`parts.py`): so a thread's sorted successors split into the parts
by binary search. Then each thread merges what the slices found new in its part (a
state may be found by two slices) and the parts' new states are merged back into the
interpreter's order.

What it does not do, the interpreter does (the registry, `checker/engines.py`, says which
options it takes): liveness (which needs the state graph: left unknown here), a state
limit (which stops mid-level), step properties, symmetry, more than one trace; and any
state that takes a failing step (a spec error or a value outside its domain) is left to
the interpreter, which reports it.
"""
from __future__ import annotations

import ctypes
import dataclasses
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np
import z3

from ..errors import SPEC_FAILURES
from ..watchdog import interrupted
from ..explicit.explorer import ExplicitEngine, Search, coverage, verdicts
from ..options import CheckOptions
from ..explicit.machine import Machine
from ..lang.bound import Binding
from ..results import RunResult, Stats, Verdict
from ..symbolic.relation import Relation
from ..symbolic.shapes import shape_of
from .layout import Layout, Unsupported
from .parts import Parts
from .vectorize import compile_terms, leaf_index, truth

CHUNK = 1 << 18         # states expanded together: bounds the memory successors take
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3      # glibc's mallopt options


class _Fallback(Exception):
    """A state takes a failing step: the interpreter finds it again and reports it."""


@dataclasses.dataclass
class _Step:
    binding: Binding
    leaves: list[int]                           # the leaves it changes
    next: Callable[[np.ndarray], list]          # their new values, for the states it is taken from


class BulkEngine:
    """Level-synchronous BFS of a Machine over packed states (see module docstring)."""

    name = "bulk"

    def __init__(self, machine: Machine, options: CheckOptions, progress=None):
        """Reads the spec as arrays; raises Unsupported where it cannot. What it accepts
        of the options is the registry's to say (`checker/engines.py`)."""
        self.machine, self.options, self.progress = machine, options, progress
        self.search = Search(machine, options)
        self.layout = Layout([shape_of(v.domain, machine.env) for v in machine.variables])
        try:
            self._compile()
        except Unsupported:
            raise
        except SPEC_FAILURES as e:      # the interpreter reports a spec's own errors
            raise Unsupported(f"the spec has no relation: {e}") from None

    def _compile(self):
        """The relation's steps, properties, constraint and terminal states as array code."""
        self.rel = rel = Relation(self.machine)
        leaves = leaf_index(rel.flat)

        def compiled(terms):
            return compile_terms(terms, self.layout, leaves)
        self.steps = []
        for s in rel.steps:
            changed = [(i, t) for i, (x, t) in enumerate(zip(rel.flat, s.next)) if not x.eq(t)]
            self.steps.append(_Step(s.binding, [i for i, _ in changed],
                                    compiled([t for _, t in changed])))
        f, m = rel.formula, self.machine
        self.decided = [(p.name, z3.Not(f(p.fn, p.name))) for p in self.search.invariants] + \
                       [(p.name, f(p.fn, p.name)) for p in self.search.reachables]
        self.constraint = compiled([rel.constraint])
        self.terminal = compiled([z3.Or([f(t, "terminal") for t in m.terminals])])
        self.level = compiled([rel.failing()] + [t for _, t in self.decided] +
                              [s.guard for s in rel.steps])

    # ------------------------------------------------------------ the search

    def check(self, model_name: str = "") -> RunResult:
        try:
            return self._check(model_name)
        except _Fallback:
            return ExplicitEngine(self.machine, self.options, self.progress, method=(
                "interpreter: a state takes a failing step, which it reports")).check(model_name)

    def _check(self, model_name: str) -> RunResult:
        m, opts = self.machine, self.options
        _reuse_freed_memory()
        stats, started = Stats(), time.perf_counter()
        deadline = started + opts.max_seconds if opts.max_seconds else float("inf")
        fired = [0] * len(m.all_bindings)
        self.levels: list[np.ndarray] = []        # each level's states, in discovery order
        self.parents: list[np.ndarray] = []       # each state's parent: its index one level up
        self.deadlock_at, stopped = None, None
        runs = m.initial_runs()
        stats.initial_states = len(runs)              # duplicates counted, as TLC does
        codes = list(dict.fromkeys(runs))
        frontier = np.concatenate([self._key(c) for c in codes])
        frontier = frontier[self._holds(self.constraint, frontier)]
        parent = np.zeros(0, np.int32)
        parts = max(1, opts.workers)
        self.parts = Parts(parts, self.layout.words)
        self.pool = ThreadPoolExecutor(parts) if parts > 1 else None
        frontier = self.parts.mixed(frontier)           # every array of states holds mixed keys
        visited = [np.sort(frontier[self.parts.of(frontier) == t]) for t in range(parts)]
        if not len(frontier):
            raise m.no_initial_state()
        stats.depth = 1
        next_report = 2.0
        try:
            while len(frontier):
                self.levels.append(frontier)
                self.parents.append(parent)
                frontier, parent, seen = self._next_level(frontier, visited, fired, stats, deadline)
                visited = self._each_part(lambda t: _merged(visited[t], seen[t]), range(parts))
                stats.distinct_states, stats.queue = sum(map(len, visited)), len(frontier)
                stats.seconds = time.perf_counter() - started
                if self.progress and stats.seconds >= next_report:
                    self.progress(stats)
                    next_report = stats.seconds + 1.0
                if len(frontier):
                    if opts.max_depth and stats.depth >= opts.max_depth:
                        self.levels.append(frontier)    # found, as the interpreter finds it,
                        self.parents.append(parent)     # but not expanded
                        self._decide(self.parts.plain(frontier), 0)
                        stopped = f"depth limit {opts.max_depth} reached"
                        break
                    stats.depth += 1
        except _OutOfTime:
            stopped = f"time limit {opts.max_seconds:g} s reached"
        except KeyboardInterrupt as e:
            stopped = interrupted(e)
        finally:
            if self.pool:
                self.pool.shutdown()
        stats.seconds = time.perf_counter() - started
        stats.distinct_states = sum(map(len, visited))
        stats.complete = stopped is None
        return RunResult(
            model=model_name, spec=m.spec_cls.__name__, engine=self.name,
            constants=dict(m.env), stats=stats,
            properties=verdicts(m, opts, self.search, self._path, self.deadlock_at, stopped,
                                {p.name: (Verdict.UNKNOWN, "liveness is not supported by the "
                                          "bulk engine", None) for p in self.search.liveness}),
            coverage=coverage(m, fired), stopped=stopped,
            method=f"bulk evaluation, {self.layout.words} word{'s' if self.layout.words > 1 else ''} "
                   f"a state{f', {parts} threads' if parts > 1 else ''}")

    def _next_level(self, frontier, visited, fired, stats, deadline):
        """The states first found from `frontier`, in the interpreter's order, the index of
        each one's parent, and the same states sorted, per part (`visited` is the states
        seen before, sorted, per part). Chunk by chunk, so that a level's successors never
        all sit in memory at once."""
        found, parents = [], []
        seen = [np.zeros(0, self.layout.dtype) for _ in visited]
        for lo in range(0, len(frontier), CHUNK):
            slices = self._successors(frontier[lo:lo + CHUNK], lo, fired, deadline)
            stats.transitions += sum(n for n, _ in slices)

            def new_in_part(t: int):
                pieces = [found[t] for _, found in slices]
                fresh, first = pieces[0] if len(pieces) == 1 else \
                    _distinct(*map(np.concatenate, zip(*pieces)), kind="stable")  # merges sorted runs
                fresh, first = _unseen(fresh, first, visited[t], seen[t])
                keep = self._holds(self.constraint, self.parts.plain(fresh))
                fresh, first = fresh[keep], first[keep]
                seen[t] = _merged(seen[t], fresh)
                order = np.argsort(first)
                return fresh[order], first[order]
            fresh, first = zip(*self._each_part(new_in_part, range(self.parts.count)))
            first = np.concatenate(first)
            order = np.argsort(first, kind="stable")        # the parts' runs, merged
            found.append(np.concatenate(fresh)[order])
            parents.append((first[order] // len(self.steps) + lo).astype(np.int32))
        return np.concatenate(found), np.concatenate(parents), seen

    def _each_part(self, work: Callable, items) -> list:
        """`work(item)` for each item, in order, on the threads if there are several."""
        if self.pool is None:
            return [work(item) for item in items]
        return list(self.pool.map(work, items))

    def _successors(self, keys: np.ndarray, offset: int, fired: list[int], deadline: float):
        """The successors of `keys` (the level's states from index `offset` on); the
        properties they decide and a deadlock among them are recorded. A slice of `keys`
        per thread; per slice, the number of successors, and per part the distinct ones,
        sorted, each with its lowest rank (see `_expand`)."""
        width = -(-len(keys) // self.parts.count)

        def from_slice(start: int):
            states = self.parts.plain(keys[start:start + width])
            enabled, firsts = self._checked(states)
            counts = [0] * len(fired)
            succ, rank = self._expand(states, enabled, counts, deadline)
            n = len(succ)
            stuck = self._deadlocked(states, rank // len(self.steps), offset + start) \
                if self.options.deadlock else None
            succ, rank = _distinct(self.parts.mixed(succ), rank + start * len(self.steps))
            bounds = self.parts.split(succ)
            return firsts, counts, n, list(zip(np.split(succ, bounds), np.split(rank, bounds))), stuck
        starts = range(0, len(keys), width)
        slices = []
        for start, (firsts, counts, n, found, stuck) in zip(
                starts, self._each_part(from_slice, starts)):
            self._record(firsts, offset + start)
            for i, count in enumerate(counts):
                fired[i] += count
            if self.deadlock_at is None:
                self.deadlock_at = stuck
            slices.append((n, found))
        return slices

    def _decide(self, keys: np.ndarray, offset: int) -> list[np.ndarray]:
        """Check states of the level, from index `offset` on (failing steps, then the
        undecided properties); return where each step is enabled."""
        enabled, firsts = self._checked(keys)
        self._record(firsts, offset)
        return enabled

    def _checked(self, keys: np.ndarray) -> tuple[list[np.ndarray], dict[str, int]]:
        """Where each step is enabled among `keys`, and the first of them deciding each
        undecided property; raises _Fallback if one takes a failing step."""
        n, values = len(keys), self.level(keys)
        if truth(values[0], n).any():
            raise _Fallback
        firsts = {}
        for (name, _), value in zip(self.decided, values[1:]):
            if name not in self.search.found:
                hits = np.flatnonzero(truth(value, n))
                if len(hits):
                    firsts[name] = int(hits[0])
        return [truth(v, n) for v in values[1 + len(self.decided):]], firsts

    def _record(self, firsts: dict[str, int], offset: int) -> None:
        """The properties decided at the level's states `offset + index`: the first wins."""
        level = len(self.levels) - 1
        for name, index in firsts.items():
            self.search.found.setdefault(name, (level, offset + index))

    def _expand(self, keys: np.ndarray, enabled: list[np.ndarray], fired: list[int],
                deadline: float):
        """Every successor of `keys`, each with its rank in the interpreter's order (by
        the state it comes from, then by binding and choice: source * steps + step)."""
        out, rank = [], []
        for j, (step, mask) in enumerate(zip(self.steps, enabled)):
            if time.perf_counter() > deadline:
                raise _OutOfTime
            idx = np.flatnonzero(mask)
            if not len(idx):
                continue
            fired[step.binding.index] += len(idx)
            sub = keys[idx]
            out.append(self.layout.updated(sub, dict(zip(step.leaves, step.next(sub)))))
            rank.append(idx * len(self.steps) + j)
        if not out:
            return np.zeros(0, self.layout.dtype), np.zeros(0, np.int64)
        return np.concatenate(out), np.concatenate(rank)

    def _holds(self, fn, keys: np.ndarray) -> np.ndarray:
        return truth(fn(keys)[0], len(keys))

    def _deadlocked(self, keys: np.ndarray, src: np.ndarray, offset: int):
        """The first of `keys` with no successor that is not terminal."""
        stuck = np.flatnonzero(np.bincount(src, minlength=len(keys)) == 0)
        if len(stuck):
            stuck = stuck[~self._holds(self.terminal, keys[stuck])]
        return (len(self.levels) - 1, offset + int(stuck[0])) if len(stuck) else None

    # ------------------------------------------------------------ states and paths

    def _key(self, code: tuple) -> np.ndarray:
        values = [z3.simplify(t) for t in self.rel.leaves_of(code)]
        return self.layout.pack([int(z3.is_true(v)) if z3.is_bool(v) else v.as_long()
                                 for v in values])

    def _path(self, found: tuple[int, int]) -> list[tuple]:
        """The states from an initial state to the `(level, index)` state, as codes."""
        level, index = found
        keys = []
        while True:
            keys.append(self.levels[level][index:index + 1])
            if level == 0:
                break
            index, level = int(self.parents[level][index]), level - 1
        path = self.parts.plain(np.concatenate(keys[::-1]))
        return [self.rel.code_of(self.layout.leaf_terms(k)) for k in path]


def _reuse_freed_memory() -> None:
    """Keep arrays of up to 32 MiB in the C heap, and freed memory for the next: by
    default glibc maps each array over 128 KiB afresh and unmaps it when freed, so that
    every level pays again for the kernel's zeroed pages (a fifth of the run's time,
    most of it system time, on TwoPhase N=9). Elsewhere than glibc, nothing changes."""
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return
    for option, value in ((M_MMAP_THRESHOLD, 32 << 20), (M_TRIM_THRESHOLD, 1 << 30),
                          (M_TOP_PAD, 256 << 20)):
        mallopt(option, value)


class _OutOfTime(Exception):
    """The time limit passed during a level."""


def _distinct(keys: np.ndarray, rank: np.ndarray, kind: str = "quicksort"):
    """The distinct `keys`, sorted, each with its lowest rank."""
    if not len(keys):
        return keys, rank
    order = np.argsort(keys, kind=kind)
    keys, rank = keys[order], rank[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[starts], np.minimum.reduceat(rank, starts)


def _unseen(keys: np.ndarray, rank: np.ndarray, *known: np.ndarray):
    """The sorted `keys`, with their ranks, that are in none of the sorted arrays `known`."""
    for sorted_keys in known:
        if len(sorted_keys) and len(keys):
            at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
            unseen = sorted_keys[at] != keys
            keys, rank = keys[unseen], rank[unseen]
    return keys, rank


def _merged(sorted_keys: np.ndarray, more: np.ndarray) -> np.ndarray:
    """Two sorted arrays (no key in both) as one."""
    return np.insert(sorted_keys, np.searchsorted(sorted_keys, more), more)
