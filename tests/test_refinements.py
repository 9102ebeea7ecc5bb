"""The ports that refine another spec (EWD 840 and EWD 998 their termination detection
specs, Peterson's algorithm the lock, the lock with auxiliary variables Peterson's
algorithm) and those specs, mutated: each property refuted, with the counterexample TLC
gives on the same mutation of the original module (TLC 2.15, `-workers 1`, the model's
constants; a step property is TLC's action property). Their unmutated figures are in
tests/test_oracles.py; the TLC runs are described in examples/tlc/README.md.

A refinement's step property reads the abstract spec's Next as a formula of a step
(`is_sync_td_step`, `is_atd_step`, `is_lock_step`, `is_peterson_step`): that formula must
be exactly the abstract port's steps, or the refinement checked would not be the one
TLA+'s INSTANCE checks.
"""
import functools

import pytest

from checker import action, require
from checker.explicit.explorer import ExplicitEngine
from checker.explicit.machine import Machine
from checker.explicit.trace import replay
from checker.options import CheckOptions
from checker.symbolic.bmc import BMC
from examples.asyncterminationdetection import AsyncTerminationDetection, is_atd_step
from examples.ewd840 import EWD840, Color
from examples.ewd998 import EWD998
from examples.lock import Label, Lock, is_lock_step
from examples.lockhs import LockHS, Stutter
from examples.peterson import Label as PetersonLabel, Peterson, is_peterson_step
from examples.syncterminationdetection import SyncTerminationDetection, is_sync_td_step


def _reachable(m: Machine) -> list[tuple]:
    """Every reachable state inside the @constraint, in BFS order."""
    states = list(m.initial_states())
    for st in states:
        states += [succ for _, _, succ in m.successors(st) if succ not in states and
                   all(m.check(c, succ, "constraint") for c in m.constraints)]
    return states


ABSTRACT = [
    (SyncTerminationDetection, {"N": 3}, functools.partial(is_sync_td_step, 3),
     ("active", "terminationDetected")),
    (AsyncTerminationDetection, {"N": 2}, functools.partial(is_atd_step, 2),
     ("active", "pending", "terminationDetected")),
    (Lock, {}, is_lock_step, ("pc", "lock")),
    (Peterson, {}, is_peterson_step, ("pc", "c", "turn")),
]


@pytest.mark.parametrize("spec,constants,is_step,variables", ABSTRACT,
                         ids=[a[0].__name__ for a in ABSTRACT])
def test_the_step_formula_is_the_abstract_specs_next_or_a_stutter(spec, constants, is_step,
                                                                   variables):
    m = Machine(spec, constants)
    states = _reachable(m)
    for st in states:
        steps = {succ for _, _, succ in m.successors(st)} | {st}
        before = tuple(m.plain(st)[v] for v in variables)
        for other in states:
            after = tuple(m.plain(other)[v] for v in variables)
            assert is_step(before, after) == (other in steps), (st, other)


# ---------------------------------------------------------------- the mutants

class EWD840NeverBlack(EWD840):
    """SendMsg leaves the sender's colour: a message against the token goes unnoticed."""

    @action
    def send_msg(s, i: EWD840.Node, j: EWD840.Node):
        require(s.active[i] and j != i)
        s.active[j] = True


class EWD840IdleSends(EWD840):
    """SendMsg without `active[i]`: an inactive node wakes another."""

    @action
    def send_msg(s, i: EWD840.Node, j: EWD840.Node):
        require(j != i)
        s.active[j] = True
        if j > i:
            s.color[i] = Color.BLACK


class SyncDetectsEarly(SyncTerminationDetection):
    """DetectTermination without `terminated`."""

    @action(fair="weak")
    def detect_termination(s):
        s.terminationDetected = True


class SyncIdleWakes(SyncTerminationDetection):
    """Wakeup without `active[i]`."""

    @action
    def wakeup(s, i: SyncTerminationDetection.Node, j: SyncTerminationDetection.Node):
        s.active[j] = True


class EWD998ReceiverStaysWhite(EWD998):
    """RecvMsg leaves the receiver's colour: the token misses a message received behind it."""

    @action
    def recv_msg(s, i: EWD998.Node):
        require(s.pending[i] > 0)
        s.pending[i] -= 1
        s.counter[i] -= 1
        s.active[i] = True


class EWD998ReceiverStaysIdle(EWD998):
    """RecvMsg leaves the receiver's activity: a message is consumed by an idle node."""

    @action
    def recv_msg(s, i: EWD998.Node):
        require(s.pending[i] > 0)
        s.pending[i] -= 1
        s.counter[i] -= 1
        s.color[i] = Color.BLACK


class LockGrabbed(Lock):
    """l1 without `lock = 1`: the lock is taken even when held."""

    @action
    def l1(s, p: Lock.ProcSet):
        require(s.pc[p] == Label.L1)
        s.lock = 0
        s.pc[p] = Label.CS


class PetersonNoWait(Peterson):
    """a3 without its await."""

    @action
    def a3(s, p: Peterson.ProcSet):
        require(s.pc[p] == PetersonLabel.A3)
        s.pc[p] = PetersonLabel.CS


class LockHSNoHistory(LockHS):
    """l1HS never records h_turn."""

    @action
    def l1(s, p: Lock.ProcSet):
        s.post_stutter(p)


class LockHSAnyContext(LockHS):
    """Stuttering.tla's PostStutter before the module's modification: any process may
    take the stuttering steps of another, and record h_turn for itself."""

    def post_stutter(s, p: int):
        if s.stutter is None:
            Lock.l1(s, p)
            s.stutter = Stutter(id=Label.L1, ctxt=p, val=2)
        else:
            require(s.stutter.id == Label.L1)
            s.stutter_step()


class LockHSStutterReleases(LockHS):
    """The stuttering steps free the lock: they are no longer stuttering steps of the lock."""

    def stutter_step(s):
        s.lock = 1
        super().stutter_step()


# mutant, constants, property, steps of TLC's counterexample (TLC run on the mutated module)
SAFETY_MUTANTS = [
    (EWD840NeverBlack, {"N": 3}, "termination_detection", 5),
    (EWD840NeverBlack, {"N": 3}, "inv", 3),
    (EWD840IdleSends, {"N": 3}, "td_spec", 1),
    (SyncDetectsEarly, {"N": 3}, "td_correct", 1),
    (SyncIdleWakes, {"N": 3}, "quiescence", 1),
    (EWD998ReceiverStaysWhite, {"N": 2}, "termination_detection", 7),
    (EWD998ReceiverStaysWhite, {"N": 2}, "inv", 6),
    (EWD998ReceiverStaysIdle, {"N": 2}, "td_spec", 2),
    (LockGrabbed, {}, "lock_inv", 4),
    (PetersonNoWait, {}, "l_spec", 8),
    (LockHSNoHistory, {}, "inv_hs", 3),
    (LockHSNoHistory, {}, "p_spec", 3),
    (LockHSAnyContext, {}, "p_spec", 3),
    (LockHSStutterReleases, {}, "lock_spec", 3),
]


# BMC needs a few seconds for these: the slow suite
BMC_SLOW = {("PetersonNoWait", "l_spec"), ("LockHSNoHistory", "p_spec"),
            ("LockHSAnyContext", "p_spec")}


@pytest.mark.parametrize("spec,constants,name,steps,engine", [
    pytest.param(*mutant, engine, id=f"{mutant[0].__name__}-{mutant[2]}-{engine.__name__}",
                 marks=[pytest.mark.slow] if engine is BMC and
                 (mutant[0].__name__, mutant[2]) in BMC_SLOW else [])
    for mutant in SAFETY_MUTANTS for engine in (ExplicitEngine, BMC)])
def test_a_mutated_port_violates_the_property_as_tlc_finds(spec, constants, name, steps, engine):
    """The BFS and BMC both find TLC's counterexample length (BMC bounded by it)."""
    m = Machine(spec, constants)
    [result] = engine(m, CheckOptions(properties=[name], max_depth=steps)).check().properties
    assert result.verdict.value == "violated"
    assert len(result.trace.steps) - 1 == steps
    result.trace.prop = name
    assert replay(m, result.trace).ok
    assert not replay(Machine(spec.__mro__[1], constants), result.trace).ok


# spec, constants, the fairness its model gives (TLC: the property fails without it)
FAIR = [
    (EWD840, {"N": 3}, {"system": "weak-group"}),
    (SyncTerminationDetection, {"N": 3}, {"detect_termination": "weak"}),
    (EWD998, {"N": 2}, {"system": "weak-group"}),
]


@pytest.mark.parametrize("spec,constants,fairness", FAIR, ids=[f[0].__name__ for f in FAIR])
def test_liveness_holds_with_the_fairness_of_spec_and_fails_without_it(spec, constants,
                                                                       fairness):
    options = CheckOptions(properties=["liveness"])
    [fair] = ExplicitEngine(Machine(spec, constants, fairness=fairness), options).check().properties
    assert fair.verdict.value == "holds"
    unfair = Machine(spec, constants, fairness={name: "none" for name in fairness})
    [result] = ExplicitEngine(unfair, options).check().properties
    assert result.verdict.value == "violated" and result.trace.loop is not None
    result.trace.prop = "liveness"
    assert replay(unfair, result.trace).ok
