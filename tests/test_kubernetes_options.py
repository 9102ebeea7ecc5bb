"""The library's opt-ins for a controller written the RayJob spec's way (spec/kubernetes/):
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

import pytest

from checker import SpecError, action, step_invariant
from checker.explicit.explorer import ExplicitEngine
from checker.model import load_model
from checker.options import CheckOptions
from checker.symbolic.bmc import BMC
from checker.symbolic.relation import Relation
from conftest import ROOT, explore, verdicts
from examples.childcontroller import Obj, Ref
from examples.childcontroller_bugs import CreateBeforeSave
from examples.jobcontroller import JobController
from examples.jobcontroller_bugs import OrphanErrorNotRetried
from spec.kubernetes import Kubernetes, OperatorProcess, kubernetes_state
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


def test_a_call_named_like_a_member_is_an_error_at_the_class():
    class Pc(enum.Enum):
        IDLE = "idle"
        START = "start"              # op_start is the library's

    with pytest.raises(SpecError, match=r"ACTION_PER_CALL names the call START op_start, "
                                        r"which is already a member") as e:
        class Clash(kubernetes_state(Ref, Obj, Pc), Kubernetes):
            ACTION_PER_CALL = True
    assert str(e.value).startswith(f"{__file__}:")


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
