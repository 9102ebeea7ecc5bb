"""What the symbolic engines share: goals, the unrolled path, traces, results.

A goal is a property read as "a bad state": the negation of an invariant, the witness
of a `@reachable`, a deadlock. Finding one decides the property (violated / holds);
proving none is reachable decides it the other way. Failures (`Relation.failing`) are
checked along with every goal: reaching one is a spec error, as in the explicit engine.
"""
from __future__ import annotations

import dataclasses
import enum
import time

import z3

from ..domains import enum_label
from ..errors import SpecError
from ..explorer import CheckOptions
from ..machine import LIVENESS_KINDS, Machine
from ..results import PropertyResult, RunResult, Stats, Verdict
from ..trace import Step, Trace
from .relation import Relation

DEFAULT_DEPTH = 30


@dataclasses.dataclass
class Goal:
    name: str
    kind: str                   # invariant, reachable, deadlock
    where: str | None
    bad: z3.BoolRef             # the states that decide the property when reachable

    def found(self, finding: tuple[Trace | None, str], how: str) -> PropertyResult:
        """The verdict when a bad state is reachable (a trace, and the symbolic constants'
        values, leading to it)."""
        trace, instance = finding
        verdict = Verdict.HOLDS if self.kind == "reachable" else Verdict.VIOLATED
        what = "witness" if self.kind == "reachable" else "counterexample"
        return PropertyResult(self.name, self.kind, verdict, f"{how} {what}{instance}", trace,
                              where=self.where)

    def excluded(self, reason: str, **extra) -> PropertyResult:
        """The verdict when no bad state is reachable (proved)."""
        verdict = Verdict.VIOLATED if self.kind == "reachable" else Verdict.HOLDS
        return _result(self, verdict, reason, **extra)

    def unknown(self, reason: str) -> PropertyResult:
        return _result(self, Verdict.UNKNOWN, reason)


def _result(goal, verdict, reason, **extra):
    from .certificate import Proved
    cls = Proved if extra else PropertyResult
    return cls(goal.name, goal.kind, verdict, reason, where=goal.where, **extra)


def goals(rel: Relation, options: CheckOptions) -> list[Goal]:
    chosen = [p for p in chosen_properties(rel.machine, options) if p.kind not in LIVENESS_KINDS]
    found = [Goal(p.name, p.kind, p.where, rel.formula(p.fn, p.name) if p.kind == "reachable"
                  else z3.Not(rel.formula(p.fn, p.name))) for p in chosen]
    if options.deadlock:
        found.append(Goal("deadlock", "deadlock", None, rel.deadlocked()))
    return found


def chosen_properties(machine: Machine, options: CheckOptions):
    return [p for p in machine.properties
            if options.properties is None or p.name in options.properties]


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

    def reaches(self, formula) -> bool:
        """Is a last state satisfying `formula` reachable along the path?"""
        return self.solver.check(self.at(formula, self.last)) == z3.sat

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
            b = step.binding
            steps.append(Step(rel.decode(model, self.states[i]), b.name, b.kind,
                              dict(b.param_labels), tuple(_show(c) for c in step.choices)))
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


def _show(value) -> str:
    return enum_label(value) if isinstance(value, enum.Enum) else str(value)


class SymbolicEngine:
    """Base of bmc, kind and pdr: builds the relation, asks `decide` per goal."""

    name = "symbolic"

    def __init__(self, machine: Machine, options: CheckOptions, progress=None):
        self.machine, self.options, self.progress = machine, options, progress
        self.depth_bound = options.max_depth or DEFAULT_DEPTH

    def check(self, model_name: str = "") -> RunResult:
        started = time.perf_counter()
        self.deadline = started + (self.options.max_seconds or float("inf"))
        rel = Relation(self.machine)
        self.report(f"{self.name}: the spec as a relation of {len(rel.flat)} variables, "
                    f"{len(rel.steps)} steps and {len(rel.failures)} failure conditions "
                    f"({time.perf_counter() - started:.0f} s)")
        stats = Stats()
        results = self.decide(rel, goals(rel, self.options), stats) + [
            PropertyResult(p.name, p.kind, Verdict.UNKNOWN,
                           f"liveness is not supported by the {self.name} engine", where=p.where)
            for p in chosen_properties(self.machine, self.options) if p.kind in LIVENESS_KINDS]
        stats.seconds = time.perf_counter() - started
        stats.complete = all(r.verdict is not Verdict.UNKNOWN for r in results)
        m = self.machine
        constants = {**m.env, **{n: f"symbolic ({c})" for n, c in m.symbolic.items()}}
        undecided = [r.reason for r in results if r.verdict is Verdict.UNKNOWN]
        return RunResult(model_name, m.spec_cls.__name__, self.name, constants, stats, results,
                         stopped=undecided[0] if undecided else None)

    def report(self, message: str):
        if self.progress is not None:
            self.progress(message)

    def seconds_left(self) -> float:
        return self.deadline - time.perf_counter()

    def out_of_time(self) -> bool:
        return self.seconds_left() < 0

    def decide(self, rel: Relation, goals: list[Goal], stats: Stats) -> list[PropertyResult]:
        raise NotImplementedError
