"""Simulation: random walks for models too large to exhaust (TLC's `-simulate`).

Each walk starts in an initial state drawn at random and takes, at every step, one of
the state's steps drawn uniformly (each binding's each outcome, as the search counts
them, one chance each), until a deadlock, a state with no step left to draw, or the
depth. A step that leaves the state as it is, or that the @constraint or an action
constraint cuts, is not drawn: stuttering shows a property nothing new, and a walk would
spend itself repeating a reconcile that has nothing left to do. Invariants are checked
on every state a walk visits, step properties on every step it takes. A walk's random
numbers come from the seed and the walk's number alone, so a seed gives the same walks,
and the same traces, on any machine.

A walk proves nothing: a property not violated is `unknown`, never `holds`; a violation
is real, its trace is the walk (cycles cut out) and not the shortest one.
"""
from __future__ import annotations

import random
import time
from typing import Callable

from ..errors import CheckerError
from ..watchdog import interrupted
from ..lang.dsl import Kind, install_oracle
from ..options import CheckOptions
from ..results import PropertyResult, RunResult, Stats, Verdict
from .explorer import Search, coverage, initial_verdict
from .machine import Machine
from .steps import allowed, step_holds, view
from .trace import Step, Trace, with_step

DEPTH = 100          # steps per walk unless `max_depth` says otherwise


class Simulator:
    """Random walks over a Machine (see module docstring)."""

    name = "simulate"

    def __init__(self, machine: Machine, options: CheckOptions,
                 progress: Callable[[Stats], None] | None = None):
        if options.walks is None and not options.max_seconds:
            raise CheckerError("a simulation needs a number of walks or a time limit")
        self.machine, self.options, self.progress = machine, options, progress
        self.depth = options.max_depth or DEPTH
        self.walks = options.walks
        self.seed = options.seed

    def check(self, model_name: str = "") -> RunResult:
        m = self.machine
        walker = Walker(m, self.options, Search(m, self.options), self.depth)
        stats = Stats()
        started = time.perf_counter()
        deadline = started + self.options.max_seconds if self.options.max_seconds else float("inf")
        previous_oracle = install_oracle(m.oracle)
        stopped, walk, next_report = None, 0, started + 2.0
        try:
            while self.walks is None or walk < self.walks:
                now = time.perf_counter()
                if now > deadline:
                    stopped = f"time limit {self.options.max_seconds:g} s reached"
                    break
                if self.progress and now >= next_report:
                    stats.seconds, stats.distinct_states = now - started, len(walker.seen)
                    self.progress(stats)
                    next_report = now + 1.0
                walker.walk(random.Random(f"{self.seed}/{walk}"), walk, stats)
                walk += 1
        except KeyboardInterrupt as e:
            stopped = interrupted(e)
        finally:
            install_oracle(previous_oracle)
            stats.seconds = time.perf_counter() - started
            stats.distinct_states = len(walker.seen)
        done = f"{walk:,} random walks of depth {self.depth}, seed {self.seed}"
        return RunResult(
            model=model_name, spec=m.spec_cls.__name__, engine=self.name,
            constants=dict(m.env), stats=stats,
            properties=walker.verdicts(f"not violated in {done}", stopped),
            coverage=coverage(m, walker.fired), stopped=stopped or done,
            method=f"random walks, each step drawn uniformly among the state's steps; "
                   f"seed {self.seed}", simulation={"seed": self.seed, "walks": walk,
                                                    "depth": self.depth})


class Walker:
    """What the walks found so far, and one walk."""

    def __init__(self, m: Machine, options: CheckOptions, search: Search, depth: int):
        self.m, self.options, self.search, self.depth = m, options, search, depth
        self.per_property = options.traces_per_property
        self.invariants = search.invariants + search.reachables
        self.step_invariants = list(search.step_invariants)
        self.step_names = {p.name for p in search.step_invariants}
        self.found: dict[str, list[tuple[Trace, int]]] = {}     # property -> (trace, walk)
        self.ends: dict[str, set] = {}            # property -> the end states of its traces
        self.seen: set[tuple] = set()             # states whose invariants were checked
        self.fired = [0] * len(m.all_bindings)
        self.inside: dict[tuple, bool] = {}
        self.initial = [st for st in m.initial_states() if self._within(st)]
        if not self.initial:
            raise m.no_initial_state()

    def walk(self, rng: random.Random, number: int, stats: Stats):
        """One walk of at most `depth` steps, drawn with `rng`."""
        m = self.m
        st = self.initial[rng.randrange(len(self.initial))]
        trace = Trace([Step(st)])
        stats.initial_states += 1
        self._check_state(st, trace, number)
        for _ in range(self.depth):
            steps, produced = self._steps(st)
            if not steps:
                if produced == 0 and self.options.deadlock and \
                        not any(m.check(t, st, "terminal") for t in m.terminals):
                    self._record("deadlock", trace, number)
                return
            index, choices, succ = steps[rng.randrange(len(steps))]
            binding = m.all_bindings[index]
            self.fired[index] += 1
            stats.transitions += 1
            stats.depth = max(stats.depth, len(trace.steps))     # steps taken in this walk
            if self.step_invariants:
                before, after = view(m, st), view(m, succ)
                for p in [p for p in self.step_invariants
                          if not step_holds(m, p, before, after, binding)]:
                    violation = with_step(Trace(list(trace.steps)), binding, choices, succ)
                    self._record(p.name, violation, number)
            with_step(trace, binding, choices, succ)
            self._check_state(succ, trace, number)
            st = succ

    def _steps(self, st) -> tuple[list[tuple], int]:
        """The steps a walk may draw from `st` (index, choices, successor) and how many
        steps the spec has there, unchanging or cut ones included (0: a deadlock)."""
        m, steps = self.m, []
        produced = m.expand(st, lambda index, succ, choices, changed, loaded:
                            succ != st and steps.append((index, choices, succ)))
        if m.action_constraints:
            before = view(m, st)
            steps = [s for s in steps if allowed(m, before, view(m, s[2]), m.all_bindings[s[0]])]
        return [s for s in steps if self._within(s[2])], produced

    def _within(self, st) -> bool:
        """Whether `st` is inside the @constraint (remembered: walks meet states again)."""
        m = self.m
        if not m.constraints:
            return True
        inside = self.inside.get(st)
        if inside is None:
            inside = self.inside[st] = all(m.check(c, st, "constraint") for c in m.constraints)
        return inside

    def _check_state(self, st, trace: Trace, number: int):
        """The pending invariants and witnesses on a state the walk reached by `trace`."""
        if st in self.seen:
            return
        self.seen.add(st)
        self.m.load(self.m.scratch, st)
        for p in list(self.invariants):
            if self.m.holds(p.fn, p.name) is (p.kind is Kind.REACHABLE):
                self._record(p.name, trace, number)

    def _record(self, name: str, trace: Trace, number: int):
        """A trace of `name` found by walk `number` (left as it is: a copy is kept, its
        cycles cut out) if it ends elsewhere than those kept; the property is decided
        once it has as many as asked for."""
        if name in self.step_names:             # the violating step stays as it is
            trace = Trace(without_cycles(trace.steps[:-1]) + trace.steps[-1:])
            end = (trace.steps[-2].state, trace.steps[-1].label, trace.steps[-1].state)
        else:
            trace = Trace(without_cycles(trace.steps))
            end = trace.steps[-1].state
        trace.found = {"shortest": False, "simulation": {
            "seed": self.options.seed, "walk": number, "depth": self.depth}}
        ends = self.ends.setdefault(name, set())
        if end in ends:
            return
        ends.add(end)
        self.found.setdefault(name, []).append((trace, number))
        if len(self.found[name]) >= self.per_property:
            self.invariants = [p for p in self.invariants if p.name != name]
            self.step_invariants = [p for p in self.step_invariants if p.name != name]

    def verdicts(self, clean: str, stopped: str | None) -> list[PropertyResult]:
        """Each chosen property's verdict: violations (and witnesses) found are decided,
        the rest unknown, with `clean` saying how far the walks went."""
        s = self.search
        results = [initial_verdict(self.m, p) for p in s.initially]
        clean = f"{stopped}; {clean}" if stopped else clean
        for p in s.invariants + s.step_invariants + s.reachables:
            results.append(self._verdict(p.name, p.kind, clean, p.where))
        for p in s.liveness:
            results.append(PropertyResult(p.name, p.kind, Verdict.UNKNOWN,
                                          "liveness is not checked by a simulation",
                                          where=p.where))
        if self.options.deadlock:
            results.append(self._verdict("deadlock", Kind.DEADLOCK, clean, None))
        return results

    def _verdict(self, name: str, kind: str, clean: str, where) -> PropertyResult:
        found = sorted(self.found.get(name, []), key=lambda f: (len(f[0].steps), f[1]))
        if not found:
            return PropertyResult(name, kind, Verdict.UNKNOWN, clean.replace(
                "not violated", "no witness") if kind == Kind.REACHABLE else clean, where=where)
        (trace, walk), more = found[0], found[1:]
        verdict = Verdict.HOLDS if kind == Kind.REACHABLE else Verdict.VIOLATED
        what = "witness" if kind == Kind.REACHABLE else "counterexample"
        asked = self.per_property
        fewer = f"; only {len(found)} of the {asked} traces asked for found" \
            if len(found) < asked else ""
        return PropertyResult(name, kind, verdict, f"{what} found by simulation, not shortest "
                              f"(seed {self.options.seed}, walk {walk}){fewer}", trace,
                              where=where, more_traces=[t for t, _ in more])


def without_cycles(steps: list[Step]) -> list[Step]:
    """The path with every return to a state it had visited cut out: still a path of the
    spec from the same start to the same end, often much shorter."""
    kept: list[Step] = []
    at: dict[tuple, int] = {}
    for step in steps:
        if step.state in at:
            for dropped in kept[at[step.state] + 1:]:
                del at[dropped.state]
            del kept[at[step.state] + 1:]
        else:
            at[step.state] = len(kept)
            kept.append(step)
    return kept
