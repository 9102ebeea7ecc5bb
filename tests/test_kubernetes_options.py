"""The library's opt-ins for a controller written the RayJob spec's way (checker/kubernetes/):
an action per API call, garbage collection in one step, and reconciles that may start
with no key queued, fair only where one is owed.

Each opt-in is a class attribute of the controller; each is checked against the default
on the tutorial's controller and the Job controller: the counts it keeps or moves, the
verdicts it keeps (a property that holds and one refuted by a known bug), and what it
changes, as a step property that holds in one mode and is refuted in the other.
"""
from __future__ import annotations

import dataclasses
import enum
import textwrap

import pytest
from click.testing import CliRunner

from checker import Int, SpecError, action, reachable, step_invariant
from checker.actors import action_info
from checker.cli import main
from checker.errors import where_defined
from checker.explicit.dispatch import NO_KEY
from checker.explicit.explorer import ExplicitEngine
from checker.explicit.machine import Machine
from checker.model import load_model
from checker.options import CheckOptions
from checker.symbolic.bmc import BMC
from checker.symbolic.relation import Relation
from conftest import ROOT, explore, verdicts
from examples.childcontroller import ChildController, Obj, Pc, Ref, Result
from examples.childcontroller_bugs import CreateBeforeSave
from examples.jobcontroller import JobController
from examples.jobcontroller_bugs import OrphanErrorNotRetried
from checker.kubernetes import CallSteps, Kubernetes, OperatorProcess, call_step, kubernetes_state
from test_failover import refuted, trace_of

JOB_FAULTS = {"crash": True, "write_lost": True, "write_fail": True, "user_delete": True,
              "cache": False}


def opted_in(spec_cls, **options):
    """`spec_cls` with the library's opt-ins `options` set on its class."""
    return type(spec_cls.__name__, (spec_cls,), dict(options))


def model_of(model: str, spec_cls=None, engine="explicit", **options):
    """A model of examples/models, of `spec_cls` if given, with the opt-ins `options` set
    on its spec."""
    m = load_model(ROOT / "examples" / "models" / f"{model}.toml")
    return dataclasses.replace(m, spec_cls=opted_in(spec_cls or m.spec_cls, **options),
                               engine=engine)


def check(model: str, spec_cls=None, **options):
    m = model_of(model, spec_cls, **options)
    return ExplicitEngine(m.machine(), m.options).check()


def counts(result) -> tuple[int, int]:
    return result.stats.distinct_states, result.stats.transitions


# ------------------------------------------------------------ an action per call
@pytest.mark.parametrize("model, bugs", [
    ("childcontroller", set()),
    ("childcontroller_create_before_save", {"one_child"}),
    ("childcontroller_failover", {"one_child", "each_name_created_once"}),
])
def test_an_action_per_call_keeps_every_count_and_verdict(model, bugs):
    default, per_call = check(model), check(model, ACTION_PER_CALL=True)
    assert counts(per_call) == counts(default)
    assert verdicts(per_call) == verdicts(default)
    assert refuted(per_call) == bugs


def test_an_action_per_call_names_each_call_in_traces_and_coverage():
    """The first draft's second child, as the tutorial shows it, with the calls named."""
    result = explore(opted_in(CreateBeforeSave, ACTION_PER_CALL=True), {"L": 0, "F": 1},
                     {"crash": True, "cache": False})
    assert trace_of(result, "one_child") == [
        "op_start", "op_add_finalizer", "op_start", "op_create_child", "crash", "op_start",
        "op_create_child"]
    fired = set(result.coverage.by_action) - set(result.coverage.never_fired)
    assert "op_call" not in result.coverage.by_action
    assert {"op_add_finalizer", "op_create_child", "op_set_ready"} <= fired


def test_the_generated_actions_are_dispatched_on_the_call_they_close_over():
    """The explicit engine tries `op_create_child` only where `pc` is that call: the
    constant its guard reads is a variable of the closure, not of its module."""
    for spec_options in ({"ACTION_PER_CALL": True}, {}):
        spec_cls = CreateBeforeSave if spec_options else step_by_step(CreateBeforeSave)
        m = model_of("childcontroller_create_before_save", spec_cls, **spec_options).machine()
        op = next(b for b in m.bindings if b.name == "op_create_child")
        assert ("pc", NO_KEY, frozenset({Pc.CREATE_CHILD})) in m.fast_paths[op.index].selectors


class WithStart(enum.Enum):
    """Calls, one named like the library's `op_start`."""
    IDLE = "idle"
    START = "start"


def _per_call_clash():
    class Clash(kubernetes_state(Ref, Obj, WithStart), Kubernetes):
        ACTION_PER_CALL = True


def _step_clash():
    class Clash(CallSteps, kubernetes_state(Ref, Obj, WithStart), Kubernetes):
        @call_step(WithStart.START)
        def _start(s):
            return True


@pytest.mark.parametrize("declare, by", [(_per_call_clash, "ACTION_PER_CALL"),
                                         (_step_clash, "@call_step")])
def test_a_call_named_like_a_member_is_an_error_where_it_is_declared(declare, by):
    with pytest.raises(SpecError, match=f"{by} names the call START op_start, "
                                        r"which is already a member") as e:
        declare()
    assert str(e.value).startswith(f"{__file__}:")


# ------------------------------------------------------------ a method per call
def _step_of(call):
    """The tutorial's call `call` and what follows it, as one method (`@call_step`)."""
    def step(s) -> bool:
        ok = super(CallSteps, s)._call()              # the controller's own, not the dispatch
        super(CallSteps, s)._after(ok)
        return ok
    step.__doc__ = f"Makes the call {call.value!r} and computes what follows it."
    calls = "API server or Ray head" if call is Pc.CREATE_CHILD else "API server"
    return call_step(call, calls=calls)(step)


def step_by_step(spec_cls):
    """`spec_cls` written as a method per call: `_step_add_finalizer`, ... (`CallSteps`)."""
    steps = {f"_step_{c.name.lower()}": _step_of(c) for c in Pc if c is not Pc.IDLE}
    return type(spec_cls.__name__, (CallSteps, spec_cls), steps)


def both_ways(model: str):
    """`model` with ACTION_PER_CALL, and written as a method per call."""
    spec_cls = load_model(ROOT / "examples" / "models" / f"{model}.toml").spec_cls
    return check(model, ACTION_PER_CALL=True), check(model, step_by_step(spec_cls))


@pytest.mark.parametrize("model, bugs", [
    ("childcontroller", set()),
    ("childcontroller_create_before_save", {"one_child"}),
])
def test_a_method_per_call_is_an_action_per_call(model, bugs):
    """The actions `@call_step` makes are those of ACTION_PER_CALL, step for step: the
    same counts, verdicts and counterexamples."""
    per_call, steps = both_ways(model)
    assert counts(steps) == counts(per_call)
    assert verdicts(steps) == verdicts(per_call)
    assert refuted(steps) == bugs
    for name in bugs:
        assert trace_of(steps, name) == trace_of(per_call, name)


def test_with_a_failover_the_ex_leaders_requeue_may_queue_the_key():
    """The ex-leader runs its step through `_call`, `_after` folded in: the library's
    failover cannot tell its requeue from its write's event, and leaves the key queued
    for the leader either way. More states (a reconcile the resync could bring anyway),
    the same verdicts."""
    per_call, steps = both_ways("childcontroller_failover")
    assert counts(steps) > counts(per_call)
    assert verdicts(steps) == verdicts(per_call)
    assert refuted(steps) == {"one_child", "each_name_created_once"}


class CountsCreates(ChildController):
    """Counts, in process memory, each child create it saw succeed (as the expectations of
    kube-controller-manager's controllers do), in what follows the call."""
    seen: Int[0, 1] = 0
    PROCESS_MEMORY = ("seen",)

    def _forget_process_memory(s):
        s.seen = 0

    def _after(s, ok: bool):
        if s.pc is Pc.CREATE_CHILD and ok:
            s.seen = 1
        super()._after(ok)

    @reachable
    def create_unseen(s):
        """A child was created and the running process never counted it."""
        return s.objects[Ref.CHILD_A] is not None and s.seen == 0 and s.pc is Pc.IDLE


def test_a_lost_response_skips_what_follows_the_call_unless_it_is_folded_into_the_step():
    """`write_lost` applies the call and ends the reconcile with its error: with `_after`
    what follows the call never runs; a `@call_step` computes it inside the call, so it
    has run when the response is lost, and whatever it wrote outside MEMORY stays."""
    only_lost = {"write_lost": True, "crash": False, "write_fail": False, "user_delete": False,
                 "stale": False, "cache": False}
    per_call, steps = (explore(cls, constants={"F": 1, "L": 0}, groups=only_lost)
                       for cls in (opted_in(CountsCreates, ACTION_PER_CALL=True),
                                   step_by_step(CountsCreates)))
    assert verdicts(per_call)["create_unseen"] == "holds"       # the count skipped: reachable
    assert verdicts(steps)["create_unseen"] == "violated"       # never: the step counted it


def test_each_call_action_says_what_its_step_says():
    spec_cls = step_by_step(CreateBeforeSave)
    assert spec_cls.op_call is None
    assert spec_cls.op_create_child.__doc__ == \
        "Makes the call 'create child' and computes what follows it."
    assert spec_cls.op_create_child.__checker_role__.calls == "API server or Ray head"
    assert spec_cls.op_set_ready.__checker_role__.calls == "API server"
    assert spec_cls.CALL_STEPS[Pc.SAVE_NAME] == "_step_save_name"
    machine = Machine(spec_cls, {"L": 0, "F": 1})
    where = action_info(machine, {"op_create_child"})["op_create_child"]["where"]
    assert where == where_defined(spec_cls._step_create_child)   # the step, not the library


def _creates_nothing(s) -> bool:
    """A mutant's step, unmarked: the reconcile ends without creating the child."""
    s._end(Result.DONE)
    return False


def test_a_step_overridden_keeps_its_action_which_runs_the_override():
    spec = step_by_step(CreateBeforeSave)
    mutant = type("CreatesNothing", (spec,), {"_step_create_child": _creates_nothing})
    faults = {"crash": True, "cache": False}
    assert refuted(explore(spec, {"L": 0, "F": 1}, faults)) == {"one_child"}
    assert refuted(explore(mutant, {"L": 0, "F": 1}, faults)) == set()


def test_a_step_on_a_class_without_call_steps_is_an_error_at_the_model(tmp_path):
    """It would make no action: one line with the step's file and line, exit 2."""
    (tmp_path / "nosteps_spec.py").write_text(textwrap.dedent("""
        from examples.childcontroller import ChildController, Pc
        from checker.kubernetes import call_step

        class NoSteps(ChildController):
            @call_step(Pc.SET_READY)
            def _set_ready(s):
                return True
    """))
    (tmp_path / "m.toml").write_text('spec = "nosteps_spec:NoSteps"\n')
    result = CliRunner().invoke(main, [str(tmp_path / "m.toml"), "-q"])
    assert result.exit_code == 2
    assert "NoSteps._set_ready is a @call_step, but NoSteps does not have CallSteps among " \
           "its bases" in result.output
    assert "nosteps_spec.py:6" in result.output          # the decorator's line
    assert "Traceback" not in result.output


# ------------------------------------------------------------ garbage collection in one step
class EveryOrphanCollected(JobController):
    """The garbage collector's step leaves no object it could collect."""
    @step_invariant
    def a_collection_leaves_no_orphan(s, t, step):
        return step.action != "garbage_collect" or not any(t._collectable(r) for r in t.Ref)


def test_one_step_collection_deletes_every_orphan_where_one_per_step_does_not():
    per_object = explore(EveryOrphanCollected, {"F": 2}, JOB_FAULTS)
    one_step = explore(opted_in(EveryOrphanCollected, GC_IN_ONE_STEP=True), {"F": 2}, JOB_FAULTS)
    assert refuted(per_object) == {"a_collection_leaves_no_orphan"}
    assert refuted(one_step) == set()


class FirstOrphanOnly(EveryOrphanCollected):
    """What the one-step collector deletes is what `_to_collect` lists (a spec keeping its
    objects elsewhere, RayJob's `gc_children`, says there): here only the first orphan."""
    def _to_collect(s):
        return super()._to_collect()[:1]


def test_the_one_step_collection_deletes_what_to_collect_lists():
    one_step = explore(opted_in(FirstOrphanOnly, GC_IN_ONE_STEP=True), {"F": 2}, JOB_FAULTS)
    assert refuted(one_step) == {"a_collection_leaves_no_orphan"}


@pytest.mark.parametrize("model, states, bugs", [
    ("jobcontroller_F2", (1183, 1171), set()),
    ("jobcontroller_no_orphan_cleanup", (314, 311), {"no_orphans"}),
    ("childcontroller_no_owner_reference", (64, 64), {"no_orphans"}),
])
def test_one_step_collection_has_fewer_states_and_the_same_verdicts(model, states, bugs):
    """The Job's two pods are collected in one step, not in either order: fewer states;
    the tutorial's controller never has two children at once: the same."""
    default, one_step = check(model), check(model, GC_IN_ONE_STEP=True)
    assert (default.stats.distinct_states, one_step.stats.distinct_states) == states
    assert verdicts(one_step) == verdicts(default)
    assert refuted(one_step) == bugs


# ------------------------------------------------------------ the work queue
class StartsOnlyQueued(JobController):
    @step_invariant
    def a_reconcile_starts_only_from_a_queued_key(s, t, step):
        return step.action != "op_start" or s.queued


def test_idle_reconciles_start_with_no_key_queued():
    """Only a step that changes the state counts: the Job controller's idle sync, on a
    stale cache, goes on to a call (the tutorial's idle reconciles end at once, no step)."""
    faults = {**JOB_FAULTS, "cache": True, "stale": True}
    assert refuted(explore(StartsOnlyQueued, {"L": 1, "F": 1}, faults)) == set()
    idle = explore(opted_in(StartsOnlyQueued, IDLE_RECONCILES=True), {"L": 1, "F": 1}, faults)
    assert refuted(idle) == {"a_reconcile_starts_only_from_a_queued_key"}
    assert trace_of(idle, "a_reconcile_starts_only_from_a_queued_key")[-1] == "op_start"


@pytest.mark.parametrize("model, bugs", [
    ("childcontroller", set()),
    ("childcontroller_patches_name", {"one_child", "child_name_kept"}),
    ("childcontroller_waits_for_children", {"no_stuck_finalizer"}),
    ("jobcontroller_F2", set()),
    ("jobcontroller_orphan_error_not_retried", {"no_orphans"}),
])
def test_idle_reconciles_add_steps_but_no_state_and_keep_every_verdict(model, bugs):
    """On these controllers a reconcile with nothing owed reaches only states a queued
    one reaches; liveness still needs an owed reconcile: the unretried error stays a bug."""
    default, idle = check(model), check(model, IDLE_RECONCILES=True)
    assert idle.stats.distinct_states == default.stats.distinct_states
    assert idle.stats.transitions > default.stats.transitions
    assert verdicts(idle) == verdicts(default)
    assert refuted(idle) == bugs


class FairEverywhere(OrphanErrorNotRetried):
    """A broken work queue: idle reconciles, each weakly fair even with nothing owed."""
    IDLE_RECONCILES = True

    @action(group="reconcile", fair="weak", calls="informer cache")
    def op_start(s):
        OperatorProcess.op_start(s)


def test_idle_reconciles_fair_everywhere_would_hide_an_unretried_error():
    """Why `op_start` is fair only where a reconcile is owed (RayJob's `_reconcile_owed`):
    an idle reconcile owed by nothing would retry the failed patch, and the bug of
    kubernetes/kubernetes#141346 would hold."""
    model = "jobcontroller_orphan_error_not_retried"
    assert refuted(check(model, IDLE_RECONCILES=True)) == {"no_orphans"}
    assert refuted(check(model, FairEverywhere)) == set()


# ------------------------------------------------------------ the symbolic engines
EVERY_OPT_IN = {"ACTION_PER_CALL": True, "GC_IN_ONE_STEP": True, "IDLE_RECONCILES": True}


def test_the_opt_ins_read_symbolically_and_bmc_finds_the_first_drafts_bug():
    """The RayJob spec's proofs run on the symbolic engines: with every opt-in on, each
    action has a feasible path, and BMC finds the second child in the shortest
    counterexample, named by call, and none in the tutorial's controller within as many
    steps and one more."""
    bad = model_of("childcontroller_create_before_save", engine="bmc", **EVERY_OPT_IN).machine()
    assert {s.binding.name for s in Relation(bad).steps} == {b.name for b in bad.bindings}
    options = CheckOptions(max_depth=7, properties=["one_child"])
    assert trace_of(BMC(bad, options).check(), "one_child") == [
        "op_start", "op_add_finalizer", "op_start", "write_lost", "op_start", "op_create_child"]
    good = model_of("childcontroller", engine="bmc", **EVERY_OPT_IN).machine()
    assert verdicts(BMC(good, options).check()) == {"one_child": "unknown"}
