"""What the symbolic engines share: goals, the unrolled path, traces, results.

A goal is a property read as "a bad state": the negation of an invariant, the witness
of a `@reachable`, a deadlock. Finding one decides the property (violated / holds);
proving none is reachable decides it the other way. Failures (`Relation.failing`) are
checked along with every goal: reaching one is a spec error, as in the explicit engine.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import time
from typing import Callable, Iterator

import z3

from ..lang.dsl import Kind
from ..lang.domains import enum_label
from ..errors import ModelError, SpecError
from ..watchdog import interrupted as stopped_by
from ..options import CheckOptions
from ..lang.bound import LIVENESS_KINDS, BoundSpec
from ..results import PropertyResult, RunResult, Stats, Verdict
from ..explicit.trace import Step, Trace
from .interrupt import answer, ctrl_c_interrupts_z3
from .relation import Relation
from .store import RelationStore

DEFAULT_DEPTH = 30


@dataclasses.dataclass
class Goal:
    name: str
    kind: Kind                  # INVARIANT, REACHABLE, STEP_INVARIANT or DEADLOCK
    where: str | None
    bad: z3.BoolRef             # the states that decide the property when reachable
    covers: str = ""            # the symbolic constants' values a proof is for
    ending: Callable[[Trace], Trace] | None = None
    """A step property's: the trace to a bad state, followed by a step that violates it."""

    def found(self, finding: tuple[Trace | None, str], how: str) -> PropertyResult:
        """The verdict when a bad state is reachable (a trace, and the symbolic constants'
        values, leading to it)."""
        trace, instance = finding
        if trace is not None and self.ending is not None:
            trace = self.ending(trace)
        verdict = Verdict.HOLDS if self.kind == Kind.REACHABLE else Verdict.VIOLATED
        what = "witness" if self.kind == Kind.REACHABLE else "counterexample"
        return PropertyResult(self.name, self.kind, verdict, f"{how} {what}{instance}", trace,
                              where=self.where)

    def excluded(self, reason: str, **extra) -> PropertyResult:
        """The verdict when no bad state is reachable (proved, for the values it covers)."""
        verdict = Verdict.VIOLATED if self.kind == Kind.REACHABLE else Verdict.HOLDS
        return _result(self, verdict, reason + self.covers, **extra)

    def unknown(self, reason: str) -> PropertyResult:
        return _result(self, Verdict.UNKNOWN, reason)


def _result(goal, verdict, reason, **extra):
    from .certificate import Proved
    cls = Proved if extra else PropertyResult
    return cls(goal.name, goal.kind, verdict, reason, where=goal.where, **extra)


def goals(rel: Relation, options: CheckOptions) -> list[Goal]:
    covers = coverage(rel.machine)
    found = [_goal(rel, p, covers) for p in safety_properties(rel.machine, options)
             if p.kind != Kind.INITIALLY]
    if options.deadlock:
        found.append(Goal("deadlock", Kind.DEADLOCK, None, rel.deadlocked(), covers))
    return found


def _goal(rel: Relation, p, covers: str) -> Goal:
    """A property as a goal: the states where it fails (for a step property, those with a
    step that violates it), or those that witness a @reachable."""
    if p.kind == Kind.STEP_INVARIANT:
        return Goal(p.name, p.kind, p.where, z3.Or(rel.step_violations(p)), covers,
                    functools.partial(_violating_step, rel, p))
    formula = rel.formula(p.fn, p.name)
    return Goal(p.name, p.kind, p.where, formula if p.kind == Kind.REACHABLE else z3.Not(formula),
                covers)


def initially(rel: Relation, p) -> PropertyResult:
    """An `@initially` property: one query, an initial state where it is false."""
    solver = z3.Solver()
    solver.add(rel.valid, rel.is_initial(rel.flat), z3.Not(rel.formula(p.fn, p.name)))
    found = answer(solver.check)
    if found != z3.sat:
        holds = found == z3.unsat
        return PropertyResult(p.name, p.kind, Verdict.HOLDS if holds else Verdict.UNKNOWN,
                              f"in every initial state{coverage(rel.machine)}" if holds else
                              f"the solver answered {found}", where=p.where)
    trace = None if rel.params else Trace([Step(rel.decode(solver.model(), rel.flat))])
    return PropertyResult(p.name, p.kind, Verdict.VIOLATED, "an initial state violates it",
                          trace, where=p.where)


def _violating_step(rel: Relation, p, trace: Trace) -> Trace:
    """`trace`, to a state with a step that violates step property `p`, and that step."""
    solver = z3.Solver()
    solver.add(rel.state_is(trace.steps[-1].state))
    for step, bad in zip(rel.steps, rel.step_violations(p)):
        if answer(solver.check, bad) == z3.sat:
            trace.steps.append(_labelled(step, rel.decode(solver.model(), step.next)))
            return trace
    raise AssertionError(f"no step violating {p.name} from the last state of its trace")


def chosen_properties(machine: BoundSpec, options: CheckOptions):
    return [p for p in machine.properties
            if options.properties is None or p.name in options.properties]


def safety_properties(machine: BoundSpec, options: CheckOptions):
    """The chosen properties a symbolic engine decides: all but liveness."""
    return [p for p in chosen_properties(machine, options) if p.kind not in LIVENESS_KINDS]


def coverage(machine: BoundSpec) -> str:
    """', for every backoff_limit >= 0': the constant values a proof holds for."""
    ranges = [name if str(r) == "any" else f"{name} {r}" for name, r in machine.symbolic.items()]
    return f", for every {' and every '.join(ranges)}" if ranges else ""


class Unrolling:
    """States x0, x1, ... of one path from an initial state, in an incremental solver."""

    def __init__(self, rel: Relation, initial: bool = True):
        self.rel, self.solver = rel, z3.Solver()
        self.states: list[list] = []
        self.which: list[z3.ArithRef] = []
        self.initial = initial
        self.extend()

    def extend(self):
        """Add one more state (and the step that reaches it)."""
        rel, k = self.rel, len(self.states)
        xs = rel.copy(str(k))
        self.solver.add(rel.rename(rel.valid, xs))
        if k == 0:
            if self.initial:
                self.solver.add(rel.rename(rel.is_initial(xs), xs))
        else:
            which = z3.Int(f"step@{k}")
            self.which.append(which)
            self.solver.add(rel.rename(rel.next(xs, which), self.states[-1]))
        self.states.append(xs)
        return xs

    @property
    def last(self) -> int:
        return len(self.states) - 1

    def at(self, formula, k: int):
        return self.rel.rename(formula, self.states[k])

    def check(self, formula):
        """Z3's answer: is a last state satisfying `formula` reachable along the path?"""
        return answer(self.solver.check, self.at(formula, self.last))

    def reaches(self, formula) -> bool:
        return self.check(formula) == z3.sat

    def finding(self) -> tuple[Trace | None, str]:
        """What the solver's last model found: the trace to the last step, labelled with
        its actions; with symbolic constants, their values instead (the states do not fit
        the model's default instance: rerun with -D to get the trace)."""
        if not self.rel.params:
            return self.trace(), ""
        model = self.solver.model()
        values = ", ".join(f"{n} = {model.eval(t, model_completion=True)}"
                           for n, t in self.rel.params.items())
        return None, f" with {values}, in {self.last} steps"

    def trace(self) -> Trace:
        """The path in the solver's last model, labelled with its actions."""
        rel, model = self.rel, self.solver.model()
        steps = [Step(rel.decode(model, self.states[0]))]
        for i in range(1, len(self.states)):
            step = rel.steps[model.eval(self.which[i - 1], model_completion=True).as_long()]
            steps.append(_labelled(step, rel.decode(model, self.states[i])))
        return Trace(steps)

    def check_failures(self):
        """Raise the spec error of a failing step taken from the last state, if reachable."""
        rel = self.rel
        if rel.failures and self.reaches(rel.failing()):
            model = self.solver.model()
            for f in rel.failures:
                if z3.is_true(model.eval(self.at(f.condition, self.last), model_completion=True)):
                    raise SpecError(f"{f.message} (from a state reachable in {self.last} "
                                    f"steps)", f.where)


def _labelled(step, code: tuple) -> Step:
    """A trace step to state `code`, labelled with the relation step that reached it."""
    b = step.binding
    return Step(code, b.name, b.kind, dict(b.param_labels), tuple(_show(c) for c in step.choices))


def _show(value) -> str:
    return enum_label(value) if isinstance(value, enum.Enum) else str(value)


class SymbolicEngine:
    """Base of bmc, kind and pdr: builds the relation, asks `decide` for the goals."""

    name = "symbolic"

    def __init__(self, machine: BoundSpec, options: CheckOptions, progress=None):
        self.machine, self.options, self.progress = machine, options, progress
        self.depth_bound = options.max_depth or DEFAULT_DEPTH

    def check(self, model_name: str = "") -> RunResult:
        """Each chosen property's verdict, as `decide` yields them; Ctrl-C leaves what was
        not decided yet unknown. Liveness is refused first: when only liveness was chosen,
        the spec is not even read."""
        m, options = self.machine, self.options
        started = time.perf_counter()
        self.deadline = started + (options.max_seconds or float("inf"))
        stats, decided, interrupted = Stats(), {}, None
        only_liveness = not options.deadlock and chosen_properties(m, options) and \
            not safety_properties(m, options)
        try:
            with ctrl_c_interrupts_z3():
                if not only_liveness:
                    store = RelationStore(m)
                    rel = self._relation(model_name, store)
                    decided.update((p.name, initially(rel, p)) for p in safety_properties(m, options)
                                   if p.kind == Kind.INITIALLY)
                    for result in self.decide(rel, goals(rel, options), stats):
                        decided[result.name] = result
                    store.save(rel)                 # with the formulas read meanwhile (a run
                                                    # cut short by Ctrl-C or an error leaves none)
        except KeyboardInterrupt as e:
            interrupted = stopped_by(e)
        results = [decided.get(r.name, r) for r in self._undecided(interrupted)]
        stats.seconds = time.perf_counter() - started
        stats.complete = all(r.verdict is not Verdict.UNKNOWN for r in results)
        constants = {**m.env, **{n: f"symbolic ({r})" for n, r in m.symbolic.items()}}
        undecided = [r.reason for r in results if r.verdict is Verdict.UNKNOWN]
        return RunResult(model_name, m.spec_cls.__name__, self.name, constants, stats, results,
                         stopped=interrupted or (undecided[0] if undecided else None))

    def _undecided(self, why: str | None) -> list[PropertyResult]:
        """Each chosen property unknown (`why`), liveness last, unknown as unsupported."""
        m, options = self.machine, self.options
        safety = [PropertyResult(p.name, p.kind, Verdict.UNKNOWN, why, where=p.where)
                  for p in safety_properties(m, options)]
        deadlock = [PropertyResult("deadlock", Kind.DEADLOCK, Verdict.UNKNOWN, why)] \
            if options.deadlock else []
        return safety + deadlock + [
            PropertyResult(p.name, p.kind, Verdict.UNKNOWN,
                           f"liveness is not supported by the {self.name} engine", where=p.where)
            for p in chosen_properties(m, options) if p.kind in LIVENESS_KINDS]

    def _relation(self, model_name: str, store: RelationStore) -> Relation:
        """The spec as formulas (from the cache, `store`, if it has them); with no initial
        state, every proof would be vacuous: an error (of the model file's [symbolic]
        values, if any, else of the spec)."""
        started = time.perf_counter()
        rel = store.relation(self.report)
        how = "read from the cache" if store.hit else "read"
        self.report(f"{self.name}: the spec as a relation of {len(rel.flat)} variables, "
                    f"{len(rel.steps)} steps and {len(rel.failures)} failure conditions, "
                    f"{how} in {time.perf_counter() - started:.0f} s")
        solver = z3.Solver()
        solver.add(rel.valid, rel.is_initial(rel.flat))
        if answer(solver.check) == z3.unsat:
            m = self.machine
            message = (f"no initial state{coverage(m)}: the spec's initial values, domains and "
                       f"constraints exclude them all, so every proof would be vacuous")
            if m.symbolic:
                raise ModelError(f"[symbolic] {message}", model_name or None)
            raise SpecError(message, m.where)
        return rel

    def report(self, message: str):
        if self.progress is not None:
            self.progress(message)

    def seconds_left(self) -> float:
        return self.deadline - time.perf_counter()

    def out_of_time(self) -> bool:
        return self.seconds_left() < 0

    def decide(self, rel: Relation, goals: list[Goal], stats: Stats) -> Iterator[PropertyResult]:
        """Each goal's verdict, yielded as soon as it is decided (so that Ctrl-C keeps it)."""
        raise NotImplementedError
