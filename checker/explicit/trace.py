"""Traces: the steps of a counterexample or witness, built from the explorer's parents.

A trace is a list of states, each with the action (and parameters and choices) that
produced it. `checker.output.itf` writes and reads them as ITF JSON; `replay` re-validates
one against a spec step by step (trace validation) and says where it first diverges, or
why a lasso's cycle is not a fair behaviour.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from ..lang.dsl import Kind
from .fairness import unfair
from .machine import Machine
from .steps import step_holds, view, within


@dataclasses.dataclass
class Step:
    state: tuple                                   # the state's code
    action: str | None = None                      # None for the initial state
    kind: str = "init"                             # init, action, fault
    params: dict[str, str] = dataclasses.field(default_factory=dict)
    choices: tuple = ()

    @property
    def label(self) -> str:
        if self.action is None:
            return "initial state"
        args = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.action}({args})" if args else self.action


@dataclasses.dataclass
class Trace:
    steps: list[Step]
    loop: int | None = None                        # index where a lasso's cycle starts
    closing: Step | None = None                    # a lasso's step from the last state back to `loop`
    property_params: dict[str, str] = dataclasses.field(default_factory=dict)
    """The parameter values of the liveness property's instance the trace refutes."""
    prop: str | None = None                        # the property it is a counterexample or witness of
    found: dict[str, Any] = dataclasses.field(default_factory=dict)
    """How a search that does not give the shortest found it (a simulation's seed and walk)."""

    @property
    def states(self) -> list[tuple]:
        return [s.state for s in self.steps]


def build_trace(machine: Machine, path: list[tuple]) -> Trace:
    """Label each step of a state path with an action that produces it."""
    steps = [Step(path[0])]
    for prev, cur in zip(path, path[1:]):
        steps.append(find_step(machine, prev, cur))
    return Trace(steps)


def with_step(trace: Trace, binding, choices: tuple, succ: tuple) -> Trace:
    """`trace` followed by one more step: `binding` (with `choices`) to state `succ`."""
    trace.steps.append(Step(succ, binding.name, binding.kind, dict(binding.param_labels),
                            tuple(_show(c) for c in choices)))
    return trace


def find_step(machine: Machine, prev: tuple, cur: tuple, action: str | None = None,
              params: dict[str, str] | None = None) -> Step:
    """The first transition from `prev` to `cur` (with the given label, if any)."""
    for b, choices, succ in machine.successors(prev):
        if succ != cur or (action is not None and b.name != action):
            continue
        shown = dict(b.param_labels)
        if params is not None and {k: str(v) for k, v in params.items()} != shown:
            continue
        return Step(cur, b.name, b.kind, shown, tuple(_show(c) for c in choices))
    raise LookupError("no transition")


def _show(value: Any) -> str:
    from ..lang.domains import enum_label
    import enum
    return enum_label(value) if isinstance(value, enum.Enum) else str(value)


def changes(machine: Machine, before: tuple | None, after: tuple) -> list[tuple[str, str, str]]:
    """(variable, old, new) for each variable that differs; all variables if `before` is None."""
    out = []
    for v, c_after in zip(machine.variables, after):
        c_before = None if before is None else before[v.index]
        if before is None or c_before != c_after:
            old = "" if before is None else v.domain.show(v.domain.plain(c_before))
            out.append((v.name, old, v.domain.show(v.domain.plain(c_after))))
    return out


@dataclasses.dataclass
class ReplayReport:
    """Outcome of re-validating a trace against a spec."""

    ok: bool
    steps_checked: int
    message: str
    diverged_at: int | None = None


def replay(machine: Machine, trace: Trace) -> ReplayReport:
    """Check that the first state is initial, each step is a transition of the spec, and
    a lasso's cycle closes and is fair, and the trace shows what it claims about its
    property (a violation, a witness)."""
    first = trace.steps[0].state
    inits = machine.initial_states()
    if first not in inits:
        return ReplayReport(False, 0, "state 0 is not an initial state of the spec: " +
                            _closest(machine, inits, first), 0)
    for i in range(1, len(trace.steps)):
        step, prev = trace.steps[i], trace.steps[i - 1].state
        try:
            find_step(machine, prev, step.state, step.action,
                      step.params if step.action is not None else None)
        except LookupError:
            label = step.label if step.action else "any action"
            candidates = [succ for b, _, succ in machine.successors(prev)
                          if step.action is None or b.name == step.action]
            if step.action is not None and not candidates:
                why = f"{label} is not enabled in state {i - 1}"
            else:
                why = f"no transition {label} leads from state {i - 1} to state {i}: " + \
                      _closest(machine, candidates, step.state)
            return ReplayReport(False, i, f"step {i}: {why}", i)
    steps = len(trace.steps) - 1
    report = _replay_cycle(machine, trace) if trace.loop is not None else \
        ReplayReport(True, steps, f"all {steps} steps are transitions of the spec")
    if not report.ok:
        return report
    if trace.prop is None:
        return ReplayReport(True, report.steps_checked,
                            f"{report.message} (the trace names no property)")
    claim, why_not = _claim(machine, trace)
    if why_not:
        return ReplayReport(False, report.steps_checked,
                            f"{report.message}, but they do not show {claim}: {why_not}")
    return ReplayReport(True, report.steps_checked, f"{report.message} and show {claim}")


def _claim(machine: Machine, trace: Trace) -> tuple[str, str | None]:
    """What the trace claims to show about its property, and why it does not (None when it
    does): a prefix of a counterexample replays step by step, yet shows nothing."""
    name, last = trace.prop, trace.steps[-1].state
    if name == "deadlock":
        if any(machine.successors(last)):
            return "a deadlock", "its last state has a successor"
        terminal = any(machine.check(t, last, "terminal") for t in machine.terminals)
        return "a deadlock", "its last state is terminal" if terminal else None
    prop = next(p for p in machine.properties if p.name == name)
    if prop.kind == Kind.INVARIANT:
        holds = machine.check(prop.fn, last, name)
        return f"{name} violated", "its last state satisfies it" if holds else None
    if prop.kind == Kind.STEP_INVARIANT:
        violates = len(trace.steps) > 1 and _last_step_violates(machine, prop, trace)
        return f"{name} violated", None if violates else "its last step does not violate it"
    if prop.kind == Kind.INITIALLY:
        holds = machine.check(prop.fn, last, name)
        return f"{name} violated", "it is not one initial state" if len(trace.steps) > 1 else \
            "its initial state satisfies it" if holds else None
    if prop.kind == Kind.REACHABLE:
        holds = machine.check(prop.fn, last, name)
        return f"a state satisfying {name}", None if holds else "its last state does not"
    return f"{name} violated", None if trace.loop is not None else \
        "it has no loop, and a liveness counterexample is a lasso"


def _last_step_violates(machine: Machine, prop, trace: Trace) -> bool:
    """Whether the trace's last step, as labelled, is one the search checks (it changes
    the state, into the @constraint) and violates step property `prop`."""
    prev, last = trace.steps[-2].state, trace.steps[-1]
    before, after = view(machine, prev), view(machine, last.state)
    return last.state != prev and within(machine, after) and any(
        not step_holds(machine, prop, before, after, b)
        for b, _, succ in machine.successors(prev)
        if succ == last.state and b.name == last.action and dict(b.param_labels) == last.params)


def _replay_cycle(machine: Machine, trace: Trace) -> ReplayReport:
    """A lasso's step back to its loop state is a transition (with the closing step's
    label, if the trace has one), and going round the cycle forever is fair."""
    n, loop, closing = len(trace.steps), trace.loop, trace.closing
    steps = n - 1
    if loop != n - 1:                                   # else: stuttering, always allowed
        steps += 1
        label = (closing.action, closing.params) if closing and closing.action else ()
        try:
            find_step(machine, trace.steps[-1].state, trace.steps[loop].state, *label)
        except LookupError:
            return ReplayReport(False, n, f"{closing.label if label else 'the loop'} back to "
                                f"state {loop} is not a transition of the spec", n)
    why = unfair(machine, [s.state for s in trace.steps[loop:]], loop)
    if why:
        return ReplayReport(False, n, f"the cycle from state {loop} is not fair: {why}", loop)
    return ReplayReport(True, steps, f"all {steps} steps are transitions of the spec, and the "
                        f"cycle from state {loop} is fair")


def _closest(machine: Machine, candidates: list[tuple], target: tuple) -> str:
    """Describe how the nearest candidate state differs from `target`."""
    if not candidates:
        return "the spec allows no state there"
    best = min(candidates, key=lambda c: sum(a != b for a, b in zip(c, target)))
    diffs = [f"{name} is {new} in the trace but {old} in the spec"
             for name, old, new in changes(machine, best, target)]
    return "; ".join(diffs)
