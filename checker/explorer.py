"""The explicit-state engine: breadth-first search over every interleaving.

BFS gives the shortest counterexample for each invariant and the shortest witness for
each `@reachable`. Visited states map to their parent, so traces are rebuilt only for
the properties that need one. A limit or Ctrl-C ends the search with `unknown` for
whatever is still undecided, never with a wrong `holds`.
"""
from __future__ import annotations

import functools
import time
from typing import Callable

from .dispatch import Dispatch
from .dsl import Disabled, Kind, install_oracle
from .errors import SPEC_FAILURES
from .fastpath import DISABLED
from . import liveness
from .machine import LIVENESS_KINDS, Machine, truth
from .options import CheckOptions
from .results import Coverage, PropertyResult, RunResult, Stats, Verdict
from .store import Visited, fingerprint
from .trace import build_trace


class Search:
    """Undecided properties and what was found, while the BFS runs."""

    def __init__(self, machine: Machine, options: CheckOptions):
        chosen = machine.properties
        if options.properties is not None:
            chosen = [p for p in chosen if p.name in options.properties]
        self.invariants = [p for p in chosen if p.kind == Kind.INVARIANT]
        self.reachables = [p for p in chosen if p.kind == Kind.REACHABLE]
        self.liveness = [p for p in chosen if p.kind in LIVENESS_KINDS]
        self.found: dict[str, tuple] = {}       # property name -> state (violation / witness)

    def pending(self):
        return ([p for p in self.invariants if p.name not in self.found],
                [p for p in self.reachables if p.name not in self.found])


class ExplicitEngine:
    """Breadth-first exploration of a Machine (see module docstring)."""

    name = "explicit"

    def __init__(self, machine: Machine, options: CheckOptions,
                 progress: Callable[[Stats], None] | None = None, method: str = "interpreter"):
        """`method` says, in the result, why this engine runs the model."""
        self.machine, self.options, self.progress = machine, options, progress
        self.method = method

    def check(self, model_name: str = "") -> RunResult:
        m, opts = self.machine, self.options
        search = Search(m, opts)
        stats = Stats()
        fired = [0] * len(m.all_bindings)      # indexed by Binding.index
        # liveness reads the whole graph: its states are kept whole
        visited = Visited("exact" if search.liveness else opts.store)
        steps: dict[tuple, list] | None = {} if search.liveness else None   # for liveness
        deadlock_at = None
        stopped = None
        started = time.perf_counter()
        previous_oracle = install_oracle(m.oracle)
        try:
            deadlock_at, stopped = self._bfs(search, stats, fired, visited, steps, started)
        except KeyboardInterrupt:
            stopped = "interrupted (Ctrl-C)"
        finally:
            install_oracle(previous_oracle)
            stats.seconds = time.perf_counter() - started
            stats.distinct_states = len(visited)
        stats.complete = stopped is None
        lassos = liveness.check(m, list(visited.seen), steps, search.liveness) \
            if search.liveness and not stopped else {}
        path_of = functools.partial(visited.path, initial=m.initial_states,
                                    successors=lambda st: (s for _, _, s in m.successors(st)))
        return RunResult(
            model=model_name, spec=m.spec_cls.__name__, engine=self.name,
            constants=dict(m.env), stats=stats,
            properties=verdicts(m, opts, search, path_of, deadlock_at, stopped, lassos),
            coverage=coverage(m, fired), stopped=stopped,
            method="; ".join(filter(None, [self.method, visited.describe(stats.generated)])))

    # ------------------------------------------------------------ the search

    def _bfs(self, search, stats, fired, visited, steps, started):
        """The search; `steps`, when not None, receives per state the (binding index,
        successor) of each step that changes it, constraint or not."""
        m, opts = self.machine, self.options
        sc, oracle = m.scratch, m.oracle
        load, encode, restore = m.load, m._encode, m.restore
        constraints, terminals = m.constraints, m.terminals
        bindings = [(b.index, b.guard, b.body, b.label) for b in m.bindings]
        dispatch = Dispatch([b.selectors for b in m.bindings], m.variables)
        check_deadlock = opts.deadlock
        max_states = opts.max_states or float("inf")
        max_depth = opts.max_depth or float("inf")
        deadline = started + opts.max_seconds if opts.max_seconds else float("inf")
        next_report = started + 2.0
        invariants, reachables = search.pending()
        # true (an invariant) or false (a witness) whatever the state: nothing to check
        invariants = [p for p in invariants if m.constant(p.fn) is not True]
        reachables = [p for p in reachables if m.constant(p.fn) is not False]
        deadlock_at = None

        def admit(st, key, parent, changed):
            """Record a new state (scratch holds it) under `key`, its parent's key
            `parent`; check the pending properties that read a variable in `changed` (a
            bit per variable the step changed; a pending property read nothing else that
            changed, so its value is its parent's)."""
            nonlocal invariants, reachables
            seen[key] = parent
            for p in invariants:                         # m.holds, inlined: the hot loop
                if not p.reads & changed:
                    continue
                try:
                    ok = p.fn(sc)
                except SPEC_FAILURES as e:
                    raise m.error_in(p.name, e) from None
                if ok is not True and not truth(ok, p.name, p.fn):
                    search.found[p.name] = st
                    invariants = [q for q in invariants if q is not p]
            for p in reachables:
                if p.reads & changed and m.holds(p.fn, p.name):
                    search.found[p.name] = st
                    reachables = [q for q in reachables if q is not p]

        def consider(st, key, parent, changed):
            """A successor not seen before, held by the scratch: store it if in the constraint."""
            if constraints and not all(m.holds(c, "constraint") for c in constraints):
                return
            admit(st, key, parent, changed)
            next_level.append(st)

        seen, exact = visited.seen, visited.exact
        level = next_level = []
        for st in m.initial_states():
            stats.initial_states += 1
            key = st if exact else fingerprint(st)
            if key not in seen:
                load(sc, st)
                consider(st, key, None, EVERY_VARIABLE)
        if not level:
            raise m.no_initial_state()
        stats.depth = 1
        while level:
            next_level = []
            for n, st in enumerate(level):
                if len(seen) >= max_states:
                    return deadlock_at, f"state limit {opts.max_states} reached"
                if n & 255 == 0:
                    now = time.perf_counter()
                    if now > deadline:
                        return deadlock_at, f"time limit {opts.max_seconds:g} s reached"
                    if self.progress and now >= next_report:
                        stats.seconds, stats.distinct_states = now - started, len(seen)
                        stats.queue = len(level) - n + len(next_level)
                        self.progress(stats)
                        next_report = now + 1.0
                base = load(sc, st)
                produced = 0
                here = st if exact else fingerprint(st)
                if steps is not None:
                    taken = steps[st] = []
                tried = dispatch.candidates(st)            # in binding order, lowest bit first
                while tried:
                    low = tried & -tried
                    tried ^= low
                    index, guard, body, label = bindings[low.bit_length() - 1]
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
                    if oracle.taken is not None:         # it chose: run it once per choice
                        restore(sc, base)
                        outcomes = [succ for _, succ in m.run(body, label, st, base)]
                        produced += len(outcomes)
                        fired[index] += len(outcomes)
                        for succ in outcomes:
                            if steps is not None and succ != st:
                                taken.append((index, succ))
                            key = succ if exact else fingerprint(succ)
                            if key not in seen:
                                load(sc, succ)
                                consider(succ, key, here, changed_between(st, succ))
                        base = load(sc, st)
                        continue
                    if result is DISABLED:
                        restore(sc, base)
                        continue
                    try:
                        succ = encode(sc, base, st)
                    except Exception:
                        succ = m.encode(sc, base, st, label)   # raises, naming the variable
                    produced += 1
                    fired[index] += 1
                    if steps is not None and succ != st:
                        taken.append((index, succ))
                    if succ is not st:
                        key = succ if exact else fingerprint(succ)
                        if key not in seen:
                            consider(succ, key, here, sc._changed)
                    restore(sc, base)
                stats.transitions += produced
                if check_deadlock and produced == 0 and deadlock_at is None and \
                        not any(m.holds(t, "terminal") for t in terminals):
                    deadlock_at = st
            if next_level:
                if stats.depth >= max_depth:
                    return deadlock_at, f"depth limit {opts.max_depth} reached"
                stats.depth += 1
            if visited.compact_if_large():
                seen, exact = visited.seen, visited.exact
            level = next_level
        return deadlock_at, None


def verdicts(m: Machine, options: CheckOptions, search: Search, path_of, deadlock_at,
             stopped: str | None, lassos: dict) -> list[PropertyResult]:
    """Each chosen property's verdict once the search is over. `search.found` and
    `deadlock_at` hold the states where the search decided something, as the engine keeps
    them; `path_of(that)` is the path of states from an initial state to it."""
    results = []
    for p in search.invariants + search.reachables:
        st = search.found.get(p.name)
        if st is not None:
            verdict = Verdict.VIOLATED if p.kind == Kind.INVARIANT else Verdict.HOLDS
            reason = ("shortest counterexample" if p.kind == Kind.INVARIANT
                      else "shortest witness")
            trace = build_trace(m, path_of(st))
        elif stopped:
            verdict, reason, trace = Verdict.UNKNOWN, stopped, None
        else:
            verdict = Verdict.HOLDS if p.kind == Kind.INVARIANT else Verdict.VIOLATED
            reason = None if p.kind == Kind.INVARIANT else "no reachable state satisfies it"
            trace = None
        results.append(PropertyResult(p.name, p.kind, verdict, reason, trace, where=p.where))
    for p in search.liveness:
        verdict, reason, trace = lassos.get(p.name, (Verdict.UNKNOWN, stopped, None))
        results.append(PropertyResult(p.name, p.kind, verdict, reason, trace, where=p.where))
    if options.deadlock:
        if deadlock_at is not None:
            results.append(PropertyResult(
                "deadlock", Kind.DEADLOCK, Verdict.VIOLATED, "a state with no successor",
                build_trace(m, path_of(deadlock_at))))
        else:
            results.append(PropertyResult(
                "deadlock", Kind.DEADLOCK, Verdict.UNKNOWN if stopped else Verdict.HOLDS, stopped))
    return results


def coverage(m: Machine, fired: list[int]) -> Coverage:
    """How often each binding fired (`fired` is indexed by Binding.index)."""
    by_action: dict[str, int] = {}
    for b in m.bindings:
        by_action[b.name] = by_action.get(b.name, 0) + fired[b.index]
    return Coverage({b.label: fired[b.index] for b in m.bindings}, by_action)


EVERY_VARIABLE = -1                     # `changed` for an initial state: check everything


def changed_between(st: tuple, succ: tuple) -> int:
    """A bit per variable whose code differs between two states."""
    return sum(1 << i for i, (a, b) in enumerate(zip(st, succ)) if a != b)
