"""Liveness under fairness: verdicts both ways, weak vs strong, faults, lasso traces."""
import json

import pytest
from click.testing import CliRunner

from checker import Int, Spec, action, eventually, fault, leads_to, require
from checker.cli import main
from checker.itf import from_itf, to_itf
from checker.machine import BindError, Machine
from checker.trace import replay
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


def test_fairness_overrides_are_checked():
    with pytest.raises(BindError, match="faults are never fair"):
        Machine(Flaky, groups={"crash": True}, fairness={"crash": "weak"})
    with pytest.raises(BindError, match="no action or group named 'nope'"):
        Machine(Counter, fairness={"nope": "weak"})
    with pytest.raises(BindError, match="expected weak, strong or none"):
        Machine(Counter, fairness={"inc": "sometimes"})


def test_model_file_fairness_and_the_lasso_in_show(tmp_path):
    model = tmp_path / "dp.toml"
    model.write_text('spec = "examples.diningphilosophers:DiningPhilosophers"\n'
                     '[fairness]\neat = "none"\n[check]\nproperties = ["nobody_starves"]\n'
                     '[expect]\nnobody_starves = "violated"\n')
    run = CliRunner().invoke(main, [str(model), "--traces", str(tmp_path), "-q"])
    assert run.exit_code == 0, run.output
    trace = tmp_path / "dp" / "nobody_starves.itf.json"
    assert isinstance(json.loads(trace.read_text())["loop"], int)
    shown = CliRunner().invoke(main, ["show", str(trace)])
    assert "loop starts" in shown.output and "the last state loops back" in shown.output
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
