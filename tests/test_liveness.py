"""Liveness under fairness: verdicts both ways, weak vs strong, faults, lasso traces."""
import json

import pytest
from click.testing import CliRunner

from checker import Ghost, Int, Spec, action, choose, constraint, eventually, fault, leads_to, require
from checker.cli import main
from checker.output.itf import from_itf, to_itf
from checker.explicit.machine import Machine
from checker.lang.bound import BindError
from checker.explicit.trace import replay
from conftest import explore, verdicts
from examples.diningphilosophers import DiningPhilosophers


class Counter(Spec):
    x: Int[0, 3] = 0

    @action(fair="weak")
    def inc(s):
        require(s.x < 3)
        s.x += 1

    @eventually
    def reaches_three(s):
        return s.x == 3


class Bouncing(Counter):
    @action
    def back(s):
        require(s.x == 2)
        s.x = 1


def test_weak_fairness_makes_progress_and_removing_it_refutes():
    assert verdicts(explore(Counter)) == {"reaches_three": "holds"}
    unfair = explore(Counter, fairness={"inc": "none"})
    (prop,) = unfair.properties
    assert prop.verdict.value == "violated"
    assert len(prop.trace.steps) == 1 and prop.trace.loop == 0      # stutters in the start


def test_a_fair_cycle_that_avoids_the_goal_is_a_lasso():
    (prop,) = explore(Bouncing).properties
    assert prop.verdict.value == "violated"
    trace = prop.trace
    assert [s.label for s in trace.steps] == ["initial state", "inc", "inc"]
    assert trace.loop == 1                  # 1 -> 2 -> back to 1, forever
    assert replay(Machine(Bouncing), trace).ok


class Blinking(Spec):
    """`go` is enabled only every other state: weak fairness does not force it."""
    on: bool = False
    done: bool = False

    @action(fair="weak")
    def blink(s):
        require(not s.done)
        s.on = not s.on

    @action(fair="strong")
    def go(s):
        require(s.on and not s.done)
        s.done = True

    @eventually
    def finishes(s):
        return s.done


def test_strong_fairness_is_needed_when_enabledness_flickers():
    assert verdicts(explore(Blinking)) == {"finishes": "holds"}
    weak = explore(Blinking, fairness={"go": "weak"})
    assert verdicts(weak) == {"finishes": "violated"}
    assert weak.properties[0].trace.loop is not None


class Flaky(Counter):
    @fault(group="crash")
    def crash(s):
        s.x = 0


def test_faults_happen_only_finitely_often():
    result = explore(Flaky, groups={"crash": True})
    assert verdicts(result) == {"reaches_three": "holds"}


class Requests(Spec):
    Proc = Int[1, 2]
    waiting: Int[0, 3] = 0            # bit p-1: process p waits
    served: Int[0, 3] = 0

    @action(fair="weak")
    def request(s, p: Proc):
        require(not s.waiting & (1 << (p - 1)))
        s.waiting |= 1 << (p - 1)
        s.served &= ~(1 << (p - 1))

    @action(fair="weak")
    def serve(s, p: Proc):
        require(p == 1 and s.waiting & 1)       # only process 1 is ever served
        s.waiting &= ~1
        s.served |= 1

    @leads_to
    def served_after_request(s, p: Proc):
        bit = 1 << (p - 1)
        return bool(s.waiting & bit), bool(s.served & bit)


def test_parameterized_leads_to_is_checked_per_binding():
    (prop,) = explore(Requests).properties
    assert prop.verdict.value == "violated"
    last = Machine(Requests).plain(prop.trace.steps[-1].state)
    assert last["waiting"] & 2 and not last["served"] & 2       # process 2 waits forever


def test_dining_philosophers_nobody_starves_only_with_fairness():
    fair = explore(DiningPhilosophers, properties=["nobody_starves"])
    assert verdicts(fair) == {"nobody_starves": "holds"}
    unfair = explore(DiningPhilosophers, fairness={"eat": "none"}, properties=["nobody_starves"])
    assert verdicts(unfair) == {"nobody_starves": "violated"}
    trace = unfair.properties[0].trace
    machine = Machine(DiningPhilosophers, fairness={"eat": "none"})
    assert replay(machine, from_itf(machine, json.loads(json.dumps(to_itf(machine, trace))))).ok


def test_the_liveness_check_reads_the_graph_the_search_explored(monkeypatch):
    """Successors are computed once, by the search; afterwards only the states of the
    lasso are expanded again (to name its steps and check its fairness)."""
    expanded = []
    successors = Machine.successors

    def counted(self, st):
        expanded.append(st)
        return successors(self, st)
    monkeypatch.setattr(Machine, "successors", counted)
    unfair = explore(DiningPhilosophers, fairness={"eat": "none"}, properties=["nobody_starves"])
    lasso = unfair.properties[0].trace
    assert unfair.stats.distinct_states > 5 * len(lasso.states)
    assert set(expanded) <= set(lasso.states)


def test_fairness_overrides_are_checked():
    with pytest.raises(BindError, match="faults are never fair"):
        Machine(Flaky, groups={"crash": True}, fairness={"crash": "weak"})
    with pytest.raises(BindError, match="no action or group named 'nope'"):
        Machine(Counter, fairness={"nope": "weak"})
    with pytest.raises(BindError, match="expected weak, strong, weak-group, strong-group or none"):
        Machine(Counter, fairness={"inc": "sometimes"})


def test_model_file_fairness_and_the_lasso_in_show(tmp_path):
    model = tmp_path / "dp.toml"
    model.write_text('spec = "examples.diningphilosophers:DiningPhilosophers"\n'
                     '[fairness]\neat = "none"\n[check]\nproperties = ["nobody_starves"]\n'
                     '[expect]\nnobody_starves = "violated"\n')
    run = CliRunner().invoke(main, [str(model), "--traces", str(tmp_path), "-q", "-v"])
    assert run.exit_code == 0, run.output
    trace = tmp_path / "dp" / "nobody_starves.itf.json"
    assert isinstance(json.loads(trace.read_text())["loop"], int)
    shown = CliRunner().invoke(main, ["show", str(trace)])
    assert "loop starts" in shown.output and "stays in state 6 forever (stuttering)" in shown.output
    assert CliRunner().invoke(main, ["replay", str(trace), str(model)]).exit_code == 0
    model.write_text(model.read_text().replace('eat = "none"', 'eats = "none"'))
    bad = CliRunner().invoke(main, [str(model), "-q"])
    assert bad.exit_code == 2 and "dp.toml:3" in bad.output and "'eats'" in bad.output


class Poller(Spec):
    """A controller that reconciles whenever it likes, but owes a reconcile only after
    asking to be requeued: fairness applies to those reconciles alone."""
    requeue: bool = True
    done: bool = False
    budget: Int[0, 1] = 1

    def owed(s):
        return s.requeue

    @action(fair="weak", fair_when=owed)
    def reconcile(s):
        require(not s.done)
        if s.budget:                       # the first reconcile waits for an event: {}
            s.budget -= 1
            s.requeue = False
        else:
            s.done = True

    @action
    def event(s):
        require(not s.requeue and not s.done)
        s.requeue = True

    @eventually
    def finishes(s):
        return s.done


def test_fairness_can_follow_the_requeue_result():
    # After the first reconcile nothing is owed and no event is forced: it may wait forever.
    (prop,) = explore(Poller).properties
    assert prop.verdict.value == "violated"
    last = Machine(Poller).plain(prop.trace.steps[-1].state)
    assert last == {"requeue": False, "done": False, "budget": 0}
    # With the event weakly fair too, the owed reconcile finishes the job.
    assert verdicts(explore(Poller, fairness={"event": "weak"})) == {"finishes": "holds"}


class Spinning(Spec):
    """A fair cycle that never reaches the goal, after a fault switched off by default."""
    on: bool = False

    @fault(group="crash")
    def crash(s):
        s.on = False

    @action(fair="weak")
    def spin(s):
        s.on = not s.on

    @eventually
    def stops(s):
        return False


def test_a_lasso_names_its_actions_when_a_group_is_off():
    # Binding indices count every binding, those of switched-off groups too.
    (prop,) = explore(Spinning).properties
    assert [s.label for s in prop.trace.steps] == ["initial state", "spin"]
    assert prop.trace.loop == 0 and replay(Machine(Spinning), prop.trace).ok


# ---------------------------------------------------------------- fairness concerns steps
# that change the state (TLA+ <A>_v): cross-checked with TLC on the same systems.

def _sender(**fairness):
    class Sender(Spec):
        """A send that may leave the message undelivered (a step that changes nothing)."""
        delivered: bool = False

        @action(**fairness)
        def send(s):
            require(not s.delivered)
            s.delivered = choose((True, False))

        @eventually
        def arrives(s):
            return s.delivered
    return Sender


@pytest.mark.parametrize("fairness", [{"fair": "weak"}, {"fair": "strong"},
                                      {"fair": "weak", "fair_when": lambda s: True}])
def test_a_step_that_changes_nothing_neither_takes_nor_enables_a_fair_action(fairness):
    """TLC: WF_v(send) and SF_v(send) give <>delivered; staying undelivered by taking the
    do-nothing step forever is no fair behaviour."""
    assert verdicts(explore(_sender(**fairness))) == {"arrives": "holds"}


def test_without_fairness_or_when_nothing_is_owed_the_sender_stutters():
    for spec in (_sender(), _sender(fair="weak", fair_when=lambda s: False)):
        (prop,) = explore(spec).properties
        assert prop.verdict.value == "violated"
        assert (len(prop.trace.steps), prop.trace.loop) == (1, 0)
        assert replay(Machine(spec), prop.trace).ok


class Flicker(Blinking):
    """`go` does nothing unless `on`: strongly fair, it must fire when `on` recurs."""

    @action(fair="strong")
    def go(s):
        if s.on:
            s.done = True


def test_strong_fairness_ignores_the_do_nothing_steps_of_an_if():
    assert verdicts(explore(Flicker)) == {"finishes": "holds"}
    (prop,) = explore(Flicker, fairness={"go": "weak"}).properties
    assert prop.verdict.value == "violated"
    assert [s.label for s in prop.trace.steps] == ["initial state", "blink"]
    assert prop.trace.loop == 0 and prop.trace.closing.label == "blink"
    assert replay(Machine(Flicker, fairness={"go": "weak"}), prop.trace).ok


class GhostTicker(Spec):
    """`send` may change only a ghost variable: in TLA+ every variable counts."""
    delivered: bool = False
    tries: Ghost[Int[0, 1]] = 0

    @action(fair="weak")
    def send(s):
        require(not s.delivered)
        if choose((True, False)):
            s.delivered = True
        else:
            s.tries = 1 - s.tries

    @eventually
    def arrives(s):
        return s.delivered


def test_a_step_that_changes_only_a_ghost_variable_takes_the_action():
    (prop,) = explore(GhostTicker).properties
    assert prop.verdict.value == "violated"
    assert [s.label for s in prop.trace.steps] == ["initial state", "send"]
    assert prop.trace.closing.label == "send"


# ---------------------------------------------------------------- replay checks fairness

def _lasso(states, loop, closing=None):
    from checker.explicit.trace import Step, Trace
    steps = [Step(states[0])] + [Step(st) for st in states[1:]]
    return Trace(steps, loop, closing)


def test_replay_rejects_a_lasso_whose_cycle_is_not_fair(tmp_path):
    sender = Machine(_sender(fair="weak"))
    (init,) = sender.initial_states()
    report = replay(sender, _lasso([init], 0))          # stays undelivered forever
    assert not report.ok and "weakly fair send is enabled in every state" in report.message
    assert replay(Machine(_sender()), _lasso([init], 0)).ok            # not fair: it may

    flicker = Machine(Flicker)
    off, on = (tuple(c) for c in ((0, 0), (1, 0)))
    report = replay(flicker, _lasso([off, on], 0))
    assert not report.ok and "strongly fair go is enabled in state 1" in report.message
    assert replay(Machine(Flicker, fairness={"go": "weak"}), _lasso([off, on], 0)).ok

    flaky = Machine(Flaky, groups={"crash": True}, fairness={"inc": "none"})
    zero, one = (0,), (1,)
    report = replay(flaky, _lasso([zero, one], 0))      # inc, then crash back, forever
    assert not report.ok and "repeats fault crash" in report.message


def test_cli_replay_of_an_unfair_lasso_exits_1(tmp_path):
    model = tmp_path / "flicker.toml"
    model.write_text('spec = "test_liveness:Flicker"\n[fairness]\ngo = "weak"\n'
                     '[expect]\nfinishes = "violated"\n')
    assert CliRunner().invoke(main, [str(model), "--traces", str(tmp_path), "-q"]).exit_code == 0
    trace = tmp_path / "flicker" / "finishes.itf.json"
    assert CliRunner().invoke(main, ["replay", str(trace), str(model)]).exit_code == 0
    model.write_text(model.read_text().replace('"weak"', '"strong"'))
    run = CliRunner().invoke(main, ["replay", str(trace), str(model)])
    assert run.exit_code == 1 and "not fair: strongly fair go is enabled" in run.output


# ---------------------------------------------------------------- constraints and liveness

class Bounded(Spec):
    x: Int[0, 9] = 0

    @action(fair="weak")
    def inc(s):
        require(s.x < 9)
        s.x += 1

    @constraint
    def small(s):
        return s.x <= 3

    @eventually
    def seven(s):
        return s.x == 7

    @eventually
    def two(s):
        return s.x >= 2


class BoundedBouncing(Bounded):
    @action(fair="weak")
    def back(s):
        require(s.x == 2)
        s.x = 1


def test_a_property_held_only_because_fairness_leaves_the_constraint_is_unknown():
    result = {p.name: p for p in explore(Bounded).properties}
    assert result["seven"].verdict.value == "unknown"
    assert "fairness forces inc out of the @constraint" in result["seven"].reason
    assert result["two"].verdict.value == "holds"            # reached inside the constraint
    bouncing = {p.name: p for p in explore(BoundedBouncing).properties}
    assert bouncing["seven"].verdict.value == "violated"     # a fair cycle inside it
    assert replay(Machine(BoundedBouncing), bouncing["seven"].trace).ok


def test_cli_reports_the_vacuous_constraint_as_unknown(tmp_path):
    model = tmp_path / "bounded.toml"
    model.write_text('spec = "test_liveness:Bounded"\n')
    run = CliRunner().invoke(main, [str(model), "--traces", str(tmp_path), "-q", "-v"])
    assert run.exit_code == 3 and "widen it to decide" in run.output


# ---------------------------------------------------------------- group fairness

class EitherWorker(Spec):
    """`finish` or `idle` keeps the group busy: only per-binding WF forces `finish`."""
    done: bool = False
    spin: bool = False

    @action(group="work")
    def finish(s):
        require(not s.done)
        s.done = True

    @action(group="work")
    def idle(s):
        require(not s.done)
        s.spin = not s.spin

    @eventually
    def finishes(s):
        return s.done


class AlternatingWorker(Blinking):
    """`go` and `go_dark` are enabled in turn: only WF of the group as one action forces one."""

    @action(group="work")
    def go(s):
        require(s.on and not s.done)
        s.done = True

    @action(group="work")
    def go_dark(s):
        require(not s.on and not s.done)
        s.done = True


@pytest.mark.parametrize("spec,holds", [
    (EitherWorker, {"weak": True, "weak-group": False, "strong": True, "strong-group": False}),
    (AlternatingWorker, {"weak": False, "weak-group": True, "strong": True, "strong-group": True}),
])
def test_group_fairness_is_per_binding_or_of_the_group_as_one_action(spec, holds):
    """As TLC finds with WF_vars(A) /\\ WF_vars(B) against WF_vars(A \\/ B)."""
    for fair, expected in holds.items():
        (prop,) = explore(spec, fairness={"work": fair}).properties
        assert prop.verdict.value == ("holds" if expected else "violated"), fair
        if not expected:           # the lasso is fair only under the fairness that found it
            other = fair.removesuffix("-group") if "group" in fair else f"{fair}-group"
            assert replay(Machine(spec, fairness={"work": fair}), prop.trace).ok
            assert not replay(Machine(spec, fairness={"work": other}), prop.trace).ok


def test_group_fairness_in_a_model_file(tmp_path):
    model = tmp_path / "either.toml"
    model.write_text('spec = "test_liveness:EitherWorker"\n[fairness]\nwork = "weak-group"\n'
                     '[expect]\nfinishes = "violated"\n')
    assert CliRunner().invoke(main, [str(model), "--traces", str(tmp_path), "-q"]).exit_code == 0
    model.write_text(model.read_text().replace('"weak-group"', '"weak-groups"'))
    bad = CliRunner().invoke(main, [str(model), "-q"])
    assert bad.exit_code == 2 and "either.toml:3" in bad.output and "weak-group" in bad.output


# ---------------------------------------------------------------- the lasso itself

class Ring(Spec):
    """A three-state ring whose steps are all fair, declared against the ring's order."""
    x: Int[0, 3] = 0

    @action(fair="weak")
    def c(s):
        require(s.x == 2)
        s.x = 0

    @action(fair="weak")
    def b(s):
        require(s.x == 1)
        s.x = 2

    @action(fair="weak")
    def a(s):
        require(s.x == 0)
        s.x = 1

    @eventually
    def leaves(s):
        return s.x == 3


class LeavingRing(Ring):
    @action(fair="strong")
    def leave(s):
        require(s.x == 1)
        s.x = 3


def test_a_lasso_cycle_visits_each_state_once():
    assert verdicts(explore(LeavingRing)) == {"leaves": "holds"}
    (prop,) = explore(Ring).properties
    trace = prop.trace
    assert [s.label for s in trace.steps] == ["initial state", "a", "b"]
    assert trace.loop == 0 and trace.closing.label == "c"
    assert replay(Machine(Ring), trace).ok


class Star(Spec):
    """From the hub, two strongly fair spokes: a fair cycle must take both."""
    at: Int[0, 2] = 0

    @action(fair="strong")
    def out(s, spoke: Int[1, 2]):
        require(s.at == 0)
        s.at = spoke

    @action(fair="weak")
    def home(s):
        require(s.at != 0)
        s.at = 0

    @eventually
    def never(s):
        return False


def test_a_cycle_revisits_a_state_only_when_fairness_needs_it():
    (prop,) = explore(Star).properties
    trace = prop.trace
    assert [s.label for s in trace.steps] == ["initial state", "out(spoke=1)", "home", "out(spoke=2)"]
    assert trace.closing.label == "home" and replay(Machine(Star), trace).ok
    (weak,) = explore(Star, fairness={"out": "weak"}).properties     # one spoke is enough
    assert [s.label for s in weak.trace.steps] == ["initial state", "out(spoke=1)"]


class NearLoop(Spec):
    """A fair loop one step away, and a state where stuttering is fair three steps away."""
    x: Int[0, 5] = 0

    @action(fair="weak")
    def loop(s):
        require(s.x in (1, 2))
        s.x = 3 - s.x

    @action(fair="weak")
    def enter(s):
        require(s.x == 0)
        s.x = 1

    @action(fair="weak")
    def wander(s):
        require(s.x == 0 or 3 <= s.x < 5)
        s.x = 3 if s.x == 0 else s.x + 1

    @eventually
    def never(s):
        return False


def test_the_stem_is_the_shortest_into_any_fair_cycle():
    (prop,) = explore(NearLoop).properties
    assert [s.label for s in prop.trace.steps] == ["initial state", "enter", "loop"]
    assert prop.trace.loop == 1 and replay(Machine(NearLoop), prop.trace).ok


def test_a_parameterised_property_names_the_instance_it_refutes(tmp_path):
    (prop,) = explore(Requests).properties
    assert prop.trace.property_params == {"p": "2"} and prop.reason.endswith("for p=2")
    model = tmp_path / "requests.toml"
    model.write_text('spec = "test_liveness:Requests"\n[expect]\nserved_after_request = "violated"\n')
    run = CliRunner().invoke(main, [str(model), "--traces", str(tmp_path), "-q", "-v"])
    assert run.exit_code == 0 and "p=2:" in run.output
    data = json.loads((tmp_path / "requests" / "served_after_request.itf.json").read_text())
    assert data["#meta"]["property_params"] == {"p": "2"}


def test_show_prints_the_step_that_closes_the_cycle(tmp_path):
    machine = Machine(Ring)
    (prop,) = explore(Ring).properties
    path = tmp_path / "ring.itf.json"
    path.write_text(json.dumps(to_itf(machine, prop.trace)))
    shown = CliRunner().invoke(main, ["show", str(path)]).output
    assert "c back to state 0" in shown and "x: 2 → 0" in shown
    assert from_itf(machine, json.loads(path.read_text())).closing.label == "c"
    path.write_text(json.dumps(to_itf(machine, explore(Counter, fairness={"inc": "none"})
                                      .properties[0].trace)))
    assert "stays in state 0 forever" in CliRunner().invoke(main, ["show", str(path)]).output
