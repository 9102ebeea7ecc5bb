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

from ..lang.dsl import Kind, install_oracle
from ..errors import SPEC_FAILURES, CheckerError
from ..watchdog import interrupted
from . import liveness, partition
from ..lang.bound import LIVENESS_KINDS, truth
from .machine import Machine
from ..options import CheckOptions, Store
from .parallel import Partitioned, can_fork
from ..results import Coverage, PropertyResult, RunResult, Stats, Verdict
from .store import Visited, fingerprint
from .steps import allowed, step_holds, view, within
from .symmetry import NotSymmetric, Verifier, liveness_refused, symmetry_of
from .trace import build_trace, with_step


class Search:
    """Undecided properties and what was found, while the BFS runs."""

    def __init__(self, machine: Machine, options: CheckOptions):
        chosen = machine.properties
        if options.properties is not None:
            chosen = [p for p in chosen if p.name in options.properties]
        self.invariants = [p for p in chosen if p.kind == Kind.INVARIANT]
        self.reachables = [p for p in chosen if p.kind == Kind.REACHABLE]
        self.initially = [p for p in chosen if p.kind == Kind.INITIALLY]
        self.step_invariants = [p for p in chosen if p.kind == Kind.STEP_INVARIANT]
        self.liveness = [p for p in chosen if p.kind in LIVENESS_KINDS]
        self.found: dict[str, tuple] = {}       # property name -> state (violation / witness)
        self.steps_found: dict[str, tuple] = {}  # step property -> (state, binding, choices, successor)
        self.more_found: dict[str, list] = {}   # the 2nd to Kth of either, in the order found
        self.per_property = options.traces_per_property

    def record(self, name: str, found: tuple, first: dict) -> bool:
        """Keep what decides property `name` (`first` holds the first of each); whether
        it has as many traces as asked for now."""
        if name in first:
            self.more_found.setdefault(name, []).append(found)
        else:
            first[name] = found
        return 1 + len(self.more_found.get(name, ())) >= self.per_property

    def pending(self):
        return ([p for p in self.invariants if p.name not in self.found],
                [p for p in self.reachables if p.name not in self.found])


class ExplicitEngine:
    """Breadth-first exploration of a Machine (see module docstring)."""

    name = "interpreter"

    def __init__(self, machine: Machine, options: CheckOptions,
                 progress: Callable[[Stats], None] | None = None, method: str = "interpreter"):
        """`method` says, in the result, why this engine runs the model."""
        self.machine, self.options, self.progress = machine, options, progress
        self.method = method

    def check(self, model_name: str = "") -> RunResult:
        m, opts = self.machine, self.options
        self.notes: list[str] = []             # how the search ran, for the summary line
        self.split = False                     # over worker processes (each remembers apart)
        search = Search(m, opts)
        stats = Stats()
        fired = [0] * len(m.all_bindings)      # indexed by Binding.index
        symmetry = self.symmetry = self._symmetry(search)
        # liveness reads the whole graph: its states are kept whole
        visited = Visited(Store.EXACT if search.liveness else opts.store,
                          symmetry.canonical if symmetry else None)
        steps: dict[tuple, list] | None = {} if search.liveness else None   # for liveness
        deadlock_at = None
        stopped = None
        started = time.perf_counter()
        previous_oracle = install_oracle(m.oracle)
        try:
            deadlock_at, stopped = self._bfs(search, stats, fired, visited, steps, started)
        except KeyboardInterrupt as e:
            stopped = interrupted(e)
        finally:
            install_oracle(previous_oracle)
            stats.seconds = time.perf_counter() - started
            stats.distinct_states = len(visited)
        stats.complete = stopped is None
        if not self.split:
            self.notes.append(remembered_note(m))
        lassos = liveness.check(m, list(visited.seen), steps, search.liveness) \
            if search.liveness and not stopped else {}
        path_of = functools.partial(visited.path, initial=m.initial_states,
                                    successors=lambda st: (s for _, _, s in m.successors(st)))
        return RunResult(
            model=model_name, spec=m.spec_cls.__name__, engine=self.name,
            constants=dict(m.env), stats=stats,
            properties=verdicts(m, opts, search, path_of, deadlock_at, stopped, lassos),
            coverage=coverage(m, fired), stopped=stopped,
            method="; ".join(filter(None, [self.method, *self.notes,
                                           visited.describe(stats.generated)])))

    def _symmetry(self, search: Search):
        """The run's symmetry (None without)."""
        m, names = self.machine, self.options.symmetry
        if names and search.liveness:
            raise CheckerError(liveness_refused(search.liveness))
        try:
            symmetry = symmetry_of(m, names)
        except NotSymmetric as e:
            raise CheckerError(str(e)) from None
        if symmetry is None:
            return None
        self.notes.append(f"symmetry {', '.join(names)}: {symmetry.size:,} permutations")
        return symmetry

    # ------------------------------------------------------------ the search

    def _bfs(self, search, stats, fired, visited, steps, started):
        """The search, level by level; on to worker processes (`checker.explicit.parallel`) once
        a level is large enough, when the run allows it."""
        m, opts = self.machine, self.options
        deadline = started + opts.max_seconds if opts.max_seconds else float("inf")
        bfs = BreadthFirst(m, opts, search, stats, fired, visited, steps, deadline, self.progress,
                           self.symmetry)
        level = bfs.initial_level()
        parallel = (opts.workers > 1 or opts.ray) and self._parallel_allowed(search, steps, visited)
        while level:
            mask = self._split_by(level, visited) if parallel else None
            if mask is not None:
                partitioned, depth = self._partitioned(bfs), stats.depth
                self.split = True
                try:
                    return partitioned.run(level, mask, started)
                finally:
                    self.notes.append(f"{partitioned.describe()} from depth {depth}, "
                                      f"{partitioned.exchanged()}")
            stopped = bfs.run_level(level, started)
            if stopped:
                return bfs.deadlock_at, stopped
            level = bfs.take_next_level()
            if level:
                if stats.depth >= (opts.max_depth or float("inf")):
                    return bfs.deadlock_at, f"depth limit {opts.max_depth} reached"
                stats.depth += 1
            visited.compact_if_large()
        return bfs.deadlock_at, None

    def _split_by(self, level: list[tuple], visited) -> int | None:
        """The variables to hash (`partition.choose`) if the search goes to the workers at
        `level`, else None: at a level of `PARALLEL_FROM` states, or already at one of
        `SPLIT_EARLY` if the hash chosen there would have moved few of its steps (a
        smaller level may need often-changing variables to spread, and those cross all
        along the search)."""
        if len(level) < min(SPLIT_EARLY, PARALLEL_FROM):
            return None
        mask, crossing = partition.choose(self.machine, level,
                                          visited.seen if visited.exact else {},
                                          self.options.workers)
        return mask if len(level) >= PARALLEL_FROM or crossing <= SELDOM else None

    def _partitioned(self, bfs) -> Partitioned:
        if self.options.ray:
            try:
                from .ray_workers import RayPartitioned          # ray, only when asked for
            except ImportError:
                raise CheckerError("--ray needs Ray: pip install -e '.[ray]'") from None
            return RayPartitioned(bfs, self.options.workers, self.options.ray)
        return Partitioned(bfs, self.options.workers)

    def _parallel_allowed(self, search, steps, visited) -> bool:
        """Workers keep fingerprints and report no graph: say why one process runs."""
        why = ("liveness reads the whole state graph" if steps is not None else
               "more than one trace per property" if search.per_property > 1 else
               "step properties are checked in one process" if search.step_invariants else
               "--store exact" if visited.mode is Store.EXACT else
               "this platform cannot fork" if not (can_fork() or self.options.ray) else None)
        if why:
            self.notes.append(f"one process: {why}")
        return why is None


class BreadthFirst:
    """One search's state between levels (pending properties, the visited store, what was
    found) and the expansion of a level: the interpreter's hot loop. The single process
    runs every level with it; each worker process of `checker.explicit.parallel` runs its share.

    `steps`, when not None, receives per state the (binding index, successor) of each
    step that changes it, constraint or not (for liveness). Under `symmetry` each state
    expanded has its orbit checked to behave alike (`symmetry.Verifier`)."""

    def __init__(self, machine: Machine, options: CheckOptions, search: Search, stats: Stats,
                 fired: list[int], visited: Visited, steps: dict | None, deadline: float,
                 progress: Callable[[Stats], None] | None, symmetry=None):
        self.machine, self.options, self.search, self.stats = machine, options, search, stats
        self.fired, self.visited, self.steps = fired, visited, steps
        self.deadline, self.progress = deadline, progress
        self.verify = Verifier(machine, symmetry) if symmetry is not None else None
        self.next_report = time.perf_counter() + 2.0
        self.deadlock_at: tuple | None = None
        invariants, reachables = search.pending()
        # true (an invariant) or false (a witness) whatever the state: nothing to check
        self.invariants = [p for p in invariants if machine.constant(p.fn) is not True]
        self.reachables = [p for p in reachables if machine.constant(p.fn) is not False]
        self.expand = machine.expand
        self.remembered = {p.name: remembered(machine, p) for p in invariants + reachables}
        self.pending_after: dict[int, tuple] = {}   # changed bits -> what to check (`_pending`)
        self.next_level: list[tuple] = []
        self.step_invariants = list(search.step_invariants)

    def take_step(self, st, before, index, choices, succ) -> bool:
        """Whether the action constraints let a step from `st` (`before`, a view of it) be
        taken; if so, and it changes the state and ends inside the @constraint, check the
        pending step properties on it."""
        m = self.machine
        binding = m.all_bindings[index]
        after = view(m, succ)
        if not allowed(m, before, after, binding):
            return False
        if self.step_invariants and succ != st and within(m, after):
            for p in [p for p in self.step_invariants if not step_holds(m, p, before, after, binding)]:
                if self.search.record(p.name, (st, binding, choices, succ), self.search.steps_found):
                    self.step_invariants.remove(p)
        return True

    def initial_level(self) -> list[tuple]:
        m, visited = self.machine, self.visited
        for st in m.initial_runs():                 # duplicates counted, as TLC does
            self.stats.initial_states += 1
            if visited.canonical is not None:
                st = visited.canonical(st)          # the orbit's representative
            key = visited.key(st)
            if key not in visited.seen:
                m.load(m.scratch, st)
                self.consider(st, key, None, EVERY_VARIABLE)
        if not self.next_level:
            raise m.no_initial_state()
        self.stats.depth = 1
        return self.take_next_level()

    def take_next_level(self) -> list[tuple]:
        level, self.next_level = self.next_level, []
        return level

    def admit(self, st, key, parent, changed, loaded=True):
        """Record a new state under `key`, its parent's key `parent`; check the pending
        properties that read a variable in `changed` (a bit per variable the step
        changed; a pending property read nothing else that changed, so its value is its
        parent's). `loaded`: the scratch holds `st` (else it is loaded if a property has
        to be evaluated: a property's value is remembered per codes of what it reads)."""
        m = self.machine
        self.visited.seen[key] = parent
        pending = self.pending_after.get(changed)
        if pending is None:
            pending = self.pending_after[changed] = self._pending(changed)
        checks, project, passed = pending
        if project is not None:                       # states whose codes passed them all
            codes = project(st)
            if codes in passed:
                return
        for p, memo in checks:                        # m.holds, inlined: the hot loop
            if memo is not None:
                at = memo[0](st)
                value = memo[1].get(at)
                if value is not None:
                    if value is (p.kind is Kind.REACHABLE):
                        self._found(p, st)
                        project = None
                    continue
            if not loaded:
                m.load(m.scratch, st)
                loaded = True
            try:
                value = p.fn(m.scratch)
            except SPEC_FAILURES as e:
                raise m.error_in(p.name, e) from None
            if value is not True and value is not False:
                value = truth(value, p.name, p.fn)
            if memo is not None:
                memo[1][at] = value
            if value is (p.kind is Kind.REACHABLE):     # a violation, or a witness
                self._found(p, st)
                project = None
        if project is not None and len(passed) < PASSED:
            passed.add(codes)

    def _pending(self, changed: int) -> tuple:
        """The pending properties to check after a step that changed `changed`, each
        with its remembered values; the projection on all they read (None if one reads
        what the source does not tell) and the set of codes that passed them all. A
        property after its first trace is checked whatever changed: the parent may be a
        violation too."""
        every = self.search.per_property > 1
        checks = [(p, self.remembered[p.name]) for p in self.invariants + self.reachables
                  if every or p.reads & changed]
        reads = 0
        for p, _ in checks:
            reads |= p.reads
        project = None if reads == -1 or not checks else self.machine.projection(reads)[0]
        return checks, project, set()

    def _found(self, p, st):
        """`st` violates invariant `p` or witnesses reachable `p`: it is decided, and
        pending no more once it has as many traces as asked for."""
        if self.search.record(p.name, st, self.search.found):
            self.keep_pending(lambda q: q is not p)

    def keep_pending(self, keep: Callable) -> None:
        """Only the pending properties `keep(p)` accepts stay pending."""
        self.invariants = [q for q in self.invariants if keep(q)]
        self.reachables = [q for q in self.reachables if keep(q)]
        self.pending_after.clear()

    def consider(self, st, key, parent, changed, loaded=True):
        """A successor not seen before: store it if in the constraint. `loaded`: the
        scratch holds it, or under symmetry a state of its orbit (else it is loaded where
        needed)."""
        m = self.machine
        if m.constraints:
            if not loaded:
                m.load(m.scratch, st)
                loaded = True
            if not all(m.holds(c, "constraint") for c in m.constraints):
                return
        self.admit(st, key, parent, changed, loaded)
        self.next_level.append(st)

    def run_level(self, level: list[tuple], started: float, elsewhere=None) -> str | None:
        """Expand every state of `level` (new states go to `next_level`); says why the
        search must stop, or None.

        `elsewhere(key, succ, parent, changed)`, when given, says whether a new successor
        belongs to another worker (and takes it): then it is not looked up here."""
        m, opts, stats, fired, steps = self.machine, self.options, self.stats, self.fired, self.steps
        expand, consider = self.expand, self.consider
        seen, exact = self.visited.seen, self.visited.exact
        canonical = self.visited.canonical
        check_deadlock, terminals = opts.deadlock, m.terminals
        max_states = opts.max_states or float("inf")
        st = here = taken = before = None
        take_step, verify = self.take_step, self.verify

        def emit(index, succ, choices, changed, loaded):
            """One step from `st` (whose key is `here`): a state to keep if new."""
            fired[index] += 1
            if before is not None and not take_step(st, before, index, choices, succ):
                return
            if succ is st:                      # nothing written (see Machine.codecs)
                return
            if taken is not None and succ != st:    # (written, but to the same values)
                taken.append((index, succ))
            # under symmetry the orbit's representative goes on; the properties, alike on
            # the whole orbit, may be read off `succ`
            on = succ if canonical is None else canonical(succ)
            key = on if exact else fingerprint(on)
            if key not in seen and (elsewhere is None or not elsewhere(key, on, here, changed)):
                consider(on, key, here, changed, loaded)

        for n, st in enumerate(level):
            if len(seen) >= max_states:
                return f"state limit {opts.max_states} reached"
            if n & 255 == 0:
                now = time.perf_counter()
                if now > self.deadline:
                    return f"time limit {opts.max_seconds:g} s reached"
                if self.progress and now >= self.next_report:
                    stats.seconds, stats.distinct_states = now - started, len(seen)
                    stats.queue = len(level) - n + len(self.next_level)
                    self.progress(stats)
                    self.next_report = now + 1.0
            here = st if exact else fingerprint(st)
            before = view(m, st) if self.step_invariants or m.action_constraints else None
            if steps is not None:
                taken = steps[st] = []
            produced = expand(st, emit)
            stats.transitions += produced
            if verify is not None:
                verify(st)
            if check_deadlock and produced == 0 and self.deadlock_at is None and \
                    not any(m.check(t, st, "terminal") for t in terminals):
                self.deadlock_at = st
        return None


PARALLEL_FROM = 4096       # a level this large goes to the worker processes (if more than one)
SPLIT_EARLY = 2048         # ... and one this large if the hash chosen there crosses SELDOM:
SELDOM = 0.2               # at most this share of the level's steps from their parents
PASSED = 1 << 20           # codes remembered per set of pending properties as passing them all


def remembered_note(m: Machine) -> str:
    """How many action runs were replayed, and which actions stopped remembering, why."""
    replayed, run, forgotten = m.expand.memory()
    share = f"{replayed / (replayed + run):.0%}" if replayed + run else "none"
    return "; ".join([f"{share} of {replayed + run:,} action runs replayed",
                      *(f"{name} not remembered: {why}" for name, why in forgotten.items())])


def remembered(m: Machine, p) -> tuple | None:
    """(project, values) for a property whose reads are known, its value per codes of
    the variables it reads; None for the others."""
    return None if p.reads == -1 else (m.projection(p.reads)[0], {})


def verdicts(m: Machine, options: CheckOptions, search: Search, path_of, deadlock_at,
             stopped: str | None, lassos: dict) -> list[PropertyResult]:
    """Each chosen property's verdict once the search is over. `search.found` and
    `deadlock_at` hold the states where the search decided something, as the engine keeps
    them; `path_of(that)` is the path of states from an initial state to it."""
    results = [initial_verdict(m, p) for p in search.initially]
    for p in search.invariants + search.reachables:
        st = search.found.get(p.name)
        if st is not None:
            verdict = Verdict.VIOLATED if p.kind == Kind.INVARIANT else Verdict.HOLDS
            reason = ("shortest counterexample" if p.kind == Kind.INVARIANT
                      else "shortest witness") + fewer(search, p.name, stopped)
            trace = build_trace(m, path_of(st))
        elif stopped:
            verdict, reason, trace = Verdict.UNKNOWN, stopped, None
        else:
            verdict = Verdict.HOLDS if p.kind == Kind.INVARIANT else Verdict.VIOLATED
            reason = None if p.kind == Kind.INVARIANT else "no reachable state satisfies it"
            trace = None
        results.append(PropertyResult(p.name, p.kind, verdict, reason, trace, where=p.where,
                                      more_traces=[build_trace(m, path_of(more)) for more
                                                   in search.more_found.get(p.name, ())]))
    for p in search.step_invariants:
        found = search.steps_found.get(p.name)
        if found is not None:
            traces = [with_step(build_trace(m, path_of(st)), binding, choices, succ) for
                      st, binding, choices, succ in [found, *search.more_found.get(p.name, ())]]
            results.append(PropertyResult(p.name, p.kind, Verdict.VIOLATED, "shortest counterexample"
                                          + fewer(search, p.name, stopped), traces[0],
                                          where=p.where, more_traces=traces[1:]))
        else:
            results.append(PropertyResult(p.name, p.kind, Verdict.UNKNOWN if stopped else Verdict.HOLDS,
                                          stopped, where=p.where))
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


def initial_verdict(m: Machine, p) -> PropertyResult:
    """An `@initially` property on the initial states, in the order they were made: the
    first violating it is the counterexample. No search limit leaves it undecided."""
    st = next((st for st in m.initial_states() if not m.check(p.fn, st, p.name)), None)
    if st is None:
        return PropertyResult(p.name, p.kind, Verdict.HOLDS, None, where=p.where)
    return PropertyResult(p.name, p.kind, Verdict.VIOLATED, "an initial state violates it",
                          build_trace(m, [st]), where=p.where)


def fewer(search: Search, name: str, stopped: str | None) -> str:
    """What to add to a decided property's reason when it has fewer traces than asked for."""
    found = 1 + len(search.more_found.get(name, ()))
    if found >= search.per_property:
        return ""
    where = "found before the search stopped" if stopped else "exist in the explored space"
    return f"; only {found} of the {search.per_property} traces asked for {where}"


def coverage(m: Machine, fired: list[int]) -> Coverage:
    """How often each binding fired (`fired` is indexed by Binding.index)."""
    by_action: dict[str, int] = {}
    for b in m.bindings:
        by_action[b.name] = by_action.get(b.name, 0) + fired[b.index]
    return Coverage({b.label: fired[b.index] for b in m.bindings}, by_action)


EVERY_VARIABLE = -1                     # `changed` for an initial state: check everything
