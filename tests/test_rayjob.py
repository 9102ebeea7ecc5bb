"""The RayJob spec: every model's verdicts, each property both ways, mutants, traces."""
from __future__ import annotations

import functools
import json
import random
import re
from pathlib import Path

import pytest

from checker import Ghost, invariant, reachable
from checker.errors import SpecError
from checker.lang.domains import MapDomain
from checker.explicit.explorer import ExplicitEngine
from checker.options import CheckOptions
from checker.output.itf import from_itf, read_itf
from checker.explicit.machine import Machine
from checker.model import load_model
from checker.results import Verdict
from checker.explicit.trace import replay
from spec.rayjob import mutants
from spec.rayjob.proofs import (AtMostOnceLemmas, DriverOnceLemmas, InteractiveOnceLemmas,
                                 Lemmas, ModeLemmas, NoFaultLemmas, NoFaultModeLemmas,
                                 SidecarOnceLemmas, StaleAtMostOnceLemmas, StaleDriverOnceLemmas,
                                 StaleLemmas)
from spec.rayjob.spec import RayJob
from spec.rayjob.types import (ClusterId, Head, JStat, Legacy, Mode, Phase, Rank, Reason, Rec,
                               Rules)

ROOT = Path(__file__).resolve().parent.parent
MODEL_NAMES = ["rayjob"] + sorted(p.stem for p in (ROOT / "models/rayjob").glob("*.toml"))

# Properties the faithful spec refutes: (model, property) -> counterexample length.
# These counterexamples are checked in under examples/traces/<model>/<property>.itf.json.
TRACES = {
    ("rayjob", "p7_succeeded_not_failed"): 21,       # outage > 30 s after the submitter ended
    ("stale_F1", "p7_succeeded_not_failed"): 23,     # 409s on a stale RayJob past 30 s
    ("net_F1", "p7_succeeded_not_failed"): 23,       # chkFailStart survives 404s: timeout
    ("submitter_F2", "p7_succeeded_not_failed"): 19,  # pod deaths fail a running job (#5100)
    ("happy_F0", "p5b_no_pod_overlap"): 28,          # Retrying waits for the CR, not its pods
    ("happy_F0", "p11_effect_at_most_once"): 35,     # a retry re-runs the program
    ("head_noft_F1", "p3_driver_once_per_attempt"): 17,  # resubmit to an empty GCS
    ("http_head_F1", "p3_driver_once_per_attempt"): 19,  # HTTPMode 404 -> SubmitJob (#4824)
    ("hand_F1", "p1b_cluster_created_once_per_attempt"): 8,
    ("hand_F1", "p15c_no_stuck_missing_submitter"): 13,    # Running never re-creates the Job
    ("hand_F2", "p2b_job_created_once_per_attempt"): 12,
    ("delete_F1", "p10b_deleted_rayjob_ray_stopped"): 15,
    ("submitter_F2", "p12_single_submit_call"): 13,  # `ray job status` network error
    ("user_stop_F1", "p13_complete_implies_succeeded"): 17,  # STOPPED -> Complete
    ("suspend_stale_F2", "p17_suspended_has_no_children"): 11,  # NotFound in a stale cache
    ("subfin_delete_F3", "p10_finalizer_after_stop"): 21,   # 30 s check fakes FAILED: no StopJob
    ("subfin_delete_late_F2", "p10_finalizer_after_stop"): 19,  # the same, a late reconcile
    ("latency_F0", "p7_succeeded_not_failed"): 19,   # no fault: a reconcile 30 s late
    ("latency_F0", "p11_effect_at_most_once"): 35,   # ... retries a succeeded job
    ("sidecar_pod_F1", "p7_succeeded_not_failed"): 17,   # no gate: one container failure
    ("sidecar_restart_F2", "p7_succeeded_not_failed"): 19,   # gate: two restarts fail it
    ("sidecar_head_F1", "p7_succeeded_not_failed"): 17,  # head lost after the job succeeded
    ("rules_self_late_F1", "p10_finalizer_after_stop"): 20,  # faked FAILED -> DeleteSelf
    ("interactive_F2", "p11_effect_at_most_once"): 34,   # resumed: the user submits again
    ("submitter_final_F1", "p18_outcome_agrees_with_ray"): 13,  # #2314: Failed, not terminal
    ("user_stop_F1", "p19_complete_ran_once"): 17,       # stopped before it ran: Complete
    ("head_noft_F1", "p19_complete_ran_once"): 25,       # ran twice, then Complete
    ("head_noft_worker_F1", "p3b_one_driver_at_a_time"): 17,  # the driver outlives the head
    ("subfin_delete_late_F2", "p20_ended_attempt_ran_its_driver"): 14,  # 30 s fakes FAILED
    ("failover_F1", "p1b_cluster_created_once_per_attempt"): 24,  # ex-leader after clean-up
    ("failover_F1", "p3_driver_once_per_attempt"): 33,   # ... and the submitter's next pod
    ("failover_http_F1", "p12_single_submit_call"): 16,  # the ex-leader's SubmitJob
    ("interactive_head_F1", "p12_single_submit_call"): 12,  # the user resubmits to an empty GCS
    ("interactive_head_F1", "p3_driver_once_per_attempt"): 14,
    ("interactive_head_F1", "p7_succeeded_not_failed"): 25,  # head down past the check timeout
    ("interactive_delete_F1", "p10b_deleted_rayjob_ray_stopped"): 13,  # StopJob with no jobId
    ("interactive_hand_F1", "p12_single_submit_call"): 17,  # the RayCluster by hand: resubmit
    ("interactive_hand_F1", "p3_driver_once_per_attempt"): 19,
    ("sidecar_head_early_F1", "p3_driver_once_per_attempt"): 12,  # re-created head, same id
    ("sidecar_head_early_F1", "p12_single_submit_call"): 10,      # ... its container submits
    ("sidecar_ft_early_F1", "p12_single_submit_call"): 10,        # the same with GCS FT
    ("sidecar_prerun_F0", "p7_succeeded_not_failed"): 16,  # no fault: never Ready, deadline
    ("sidecar_late_F0", "p7_succeeded_not_failed"): 18,    # no fault: a late 30 s check
}
# The same for the models of `pytest -m slow` (their traces are replayed by the fast suite).
SLOW_TRACES = {
    ("slow/suspend_stale_F3", "p2a_job_matches_attempt"): 28,  # resumed onto the old Job
    ("slow/suspend_stale_F3", "p5a_no_cr_overlap"): 18,        # the leaked cluster of p17
    ("slow/failover_retry_F1", "p2b_job_created_once_per_attempt"): 25,  # ex-leader's create
    ("slow/failover_retry_F1", "p5a_no_cr_overlap"): 31,       # ... of a past attempt's cluster
    ("slow/suspend_stale_retry_F3", "p20_ended_attempt_ran_its_driver"): 58,  # adopted old Job
    ("slow/pairs_suspend_retry_F2", "p20_ended_attempt_ran_its_driver"): 39,  # pod death, outage
    ("slow/user_suspend_retry_F2", "p20_ended_attempt_ran_its_driver"): 41,  # cluster by hand
    ("slow/user_suspend_retry_F2", "p4_identity_stable"): 11,  # ValidationFailed from Suspended
}

# (mutant, model whose constants and groups it runs with, property it breaks, length).
KILLS = [
    (mutants.SubmitBeforeIdentity, "http_ops_F1", "p3_driver_once_per_attempt", 13),
    (mutants.ClusterNameInInitializing, "happy_F0", "p1a_one_cluster_name_per_attempt", 7),
    (mutants.PutOverwrite, "submitter_F2", "p3_driver_once_per_attempt", 15),
    (mutants.RetryingNoWait, "retry_fail_F1", "p5a_no_cr_overlap", 26),
    (mutants.NoStatusGuard, "submitter_F1", "p7_succeeded_not_failed", 20),
    (mutants.NoSubmissionId, "happy_F0", "p3_driver_once_per_attempt", 15),
    (mutants.PreFix3903, "head_noft_F1", "p15a_no_stuck_after_submitter_finished", 22),
    (mutants.RetryAllReasons, "deadline_F0", "p8_excluded_not_retried", 11),
    (mutants.StopJobFatal, "delete_F1", "p15b_no_stuck_deletion", 6),
    (mutants.NoStopOnDelete, "delete_F1", "p10_finalizer_after_stop", 6),
    (mutants.StatusUpdateNoVersion, "rayjob", "p4_identity_stable", 6),
    (mutants.RunningRecreatesJob, "hand_F1", "p2b_job_created_once_per_attempt", 13),
    (mutants.BackoffOffByOne, "happy_F0", "p6_retries_bounded", 47),
    (mutants.NoFinishedAtGuard, "happy_F0", "p16_complete_needs_submitter", 18),
    (mutants.TTLIgnored, "ttl_F0", "p9_ttl_respected", 21),
    (mutants.TTLDeletesSubmitter, "ttl_F0", "p9_ttl_respected", 24),
    (mutants.SelfDeleteIgnoresTTL, "ttl_delete_rj_F0", "p9_ttl_respected", 21),
    (mutants.Eager404Fail, "happy_F0", "p7_succeeded_not_failed", 18),
    (mutants.FailedMapsToComplete, "happy_F0", "p13b_complete_implies_stopped_or_succeeded", 19),
    (mutants.StatusUpdateNoVersion, "rayjob", "p2a_job_matches_attempt", 12),
    (mutants.SidecarHeadRecreated, "sidecar_head_F1", "p3_driver_once_per_attempt", 13),
    (mutants.SidecarMissingHeadIgnored, "sidecar_head_F1", "p15c_no_stuck_missing_submitter",
     16),
    (mutants.SidecarRestartNoStatusCheck, "sidecar_restart_F1", "p7_succeeded_not_failed", 18),
    (mutants.RulesIgnoreTTL, "rules_staged_F0", "p9_ttl_respected", 21),
    (mutants.RulesIgnoreCondition, "rules_self_late_F1", "p9_ttl_respected", 15),
    (mutants.InteractiveDrawsJobId, "interactive_F1", "p4_identity_stable", 11),
    (mutants.PreRunningDeadlineIgnored, "prerun_F0", "p15d_no_stuck_before_running", 10),
    (mutants.ValidateBeforeDeletion, "validation_F2", "p15b_no_stuck_deletion", 8),
    (mutants.SubmitterFailureFailsJob, "submitter_final_F1", "p20_ended_attempt_ran_its_driver",
     13),
    (mutants.ExLeaderUnfenced, "failover_F1", "p4_identity_stable", 6),
]


def model_path(name: str) -> Path:
    return ROOT / "models" / ("rayjob.toml" if name == "rayjob" else f"rayjob/{name}.toml")


def with_lemmas(spec_cls):
    """The spec with every lemma of spec/rayjob/proofs (proof aids, apart from the spec):
    checked with the claims, they must hold on every bounded model."""
    return type(spec_cls.__name__, (spec_cls, SidecarOnceLemmas, InteractiveOnceLemmas,
                                    StaleDriverOnceLemmas, DriverOnceLemmas,
                                    StaleAtMostOnceLemmas, AtMostOnceLemmas, StaleLemmas, Lemmas,
                                    ModeLemmas, NoFaultLemmas, NoFaultModeLemmas), {})


@functools.cache
def check(name: str):
    """The model and the result of checking it, with the lemmas (shared by the tests of one
    session; the lemmas change no claim's verdict)."""
    model = load_model(model_path(name))
    model.spec_cls = with_lemmas(model.spec_cls)
    return model, ExplicitEngine(model.machine(), model.options).check()


def verdicts(result) -> dict:
    return {p.name: p.verdict for p in result.properties}


def assert_as_expected(model, result):
    """Every claim's verdict is the one its [expect] gives, and every lemma holds."""
    found = verdicts(result)
    lemmas = {n for n in found if n.startswith("lemma_")}          # spec/rayjob/proofs/
    assert set(model.expect) == set(found) - lemmas, "every property has an [expect] verdict"
    assert found == {**model.expect, **{n: Verdict.HOLDS for n in lemmas}}


def prop(result, name):
    return next(p for p in result.properties if p.name == name)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_verdict_of_every_model_is_as_expected(name):
    model, result = check(name)
    assert not result.stopped and result.stats.distinct_states < 50_000
    assert_as_expected(model, result)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "models/rayjob/slow").glob("*.toml")))
def test_large_models(name):
    model, result = check(f"slow/{name}")
    assert not result.stopped
    assert_as_expected(model, result)



class Unretired(RayJob):
    """The spec before lingering heads were retired from the name pool."""
    def _retire(s, c):
        return False


@pytest.mark.slow
def test_retiring_unreachable_heads_keeps_the_name_pool_from_overflowing():
    """Five failing attempts with no fault: without retirement four lingering heads take
    every cluster name and the fifth reuses one still in use (s_model_bounds)."""
    model = load_model(model_path("happy_F0"))
    constants = {**model.constants, "backoff_limit": 4, "program": "FAIL", "sub_backoff_limit": 0}
    for cls, bounded in ((RayJob, Verdict.HOLDS), (Unretired, Verdict.VIOLATED)):
        result = ExplicitEngine(Machine(cls, constants, model.groups), model.options).check()
        assert not result.stopped
        assert prop(result, "s_model_bounds").verdict is bounded
        assert prop(result, "p7_succeeded_not_failed").verdict is Verdict.HOLDS


class SubmitterTimeoutOnlyRunning(RayJob):
    """The spec before issue 19: the 30 s submitter check needed the phase Running, so it
    never overwrote a Failed / SubmissionFailed just set by the submitter check."""
    def _submitter_timed_out(s, finished):
        return super()._submitter_timed_out(finished) and s.m_h.phase is Phase.RUNNING


def test_the_submitter_timeout_overwrites_a_failure_and_the_deletion_skips_stopjob():
    """C:1263-1286 has no phase guard: after a failed submitter Job it writes jobStatus
    FAILED, so the deletion skips StopJob (C:116) while the Ray job runs. With the old
    guard, claim 10 held in the same model."""
    model, faithful = check("subfin_delete_F3")
    p = prop(faithful, "p10_finalizer_after_stop")
    assert p.verdict is Verdict.VIOLATED
    machine = model.machine()
    states = [machine.plain(step.state) for step in p.trace.steps]
    assert states[-1]["finalizer_removed"] and not states[-1]["stop_attempted"]
    assert any(st["rj"] is not None and st["rj"].job_status is JStat.FAILED
               and st["rj"].reason is Reason.GRACE for st in states)
    options = CheckOptions(properties=["p10_finalizer_after_stop"])
    old = ExplicitEngine(Machine(SubmitterTimeoutOnlyRunning, model.constants, model.groups),
                         options).check()
    assert not old.stopped and prop(old, "p10_finalizer_after_stop").verdict is Verdict.HOLDS


@pytest.mark.parametrize("late,verdict", [(False, Verdict.HOLDS), (True, Verdict.VIOLATED)])
def test_a_late_reconcile_alone_fails_a_succeeded_job(late, verdict):
    """Reconcile latency is no fault: with no fault budget, a reconcile that comes 30 s
    after the submitter finished records a succeeded job as failed (claim 7) and, with
    backoffLimit 1, retries it (claim 11, the program succeeding)."""
    model = load_model(model_path("latency_F0"))
    assert model.constants["F"] == 0 and model.constants["late_reconcile"]
    constants = {**model.constants, "late_reconcile": late}
    result = ExplicitEngine(Machine(RayJob, constants, model.groups), model.options).check()
    assert not result.stopped
    assert prop(result, "p7_succeeded_not_failed").verdict is verdict
    assert prop(result, "p11_effect_at_most_once").verdict is verdict


class HeadOutlivesCR(RayJob):
    @invariant
    def no_head_without_cr(s):
        """No head pod of a RayCluster whose CR is gone."""
        return not any(not s.cl_cr[c] and s.head[c] is not Head.NONE for c in ClusterId)


@pytest.mark.parametrize("name,verdict", [("head_ft_F1", Verdict.HOLDS),
                                          ("head_noft_F1", Verdict.VIOLATED)])
def test_with_gcs_ft_a_deleted_raycluster_takes_its_head_first(name, verdict):
    """With GCS FT the Redis clean-up finalizer deletes the head and waits for it before
    the CR goes, so no head lingers and claim 5b holds; without, pods outlive the CR."""
    model, result = check(name)
    assert prop(result, "p5b_no_pod_overlap").verdict is verdict
    options = CheckOptions(properties=["no_head_without_cr"])
    lingering = ExplicitEngine(Machine(HeadOutlivesCR, model.constants, model.groups),
                               options).check()
    assert prop(lingering, "no_head_without_cr").verdict is verdict


class CallsLingeringHead(RayJob):
    """Records every submit or GetJobInfo that reaches a head whose RayCluster is gone."""
    lingering_call: Ghost[bool] = False

    def _ray_submit(s, k):
        s.lingering_call = s.lingering_call or not s.cl_cr[k.c]
        return super()._ray_submit(k)

    def _ray_get(s, k):
        s.lingering_call = s.lingering_call or (k is not None and not s.cl_cr[k.c])
        return super()._ray_get(k)

    @invariant
    def no_call_reaches_a_lingering_head(s):
        return not s.lingering_call


class ReachesLingeringHead(CallsLingeringHead):
    """The spec before issue 19: a head stayed reachable after its RayCluster was gone."""
    def _reachable(s, c):
        return s.head[c] is Head.SERVING


@pytest.mark.parametrize("cls,verdict", [(CallsLingeringHead, Verdict.HOLDS),
                                         (ReachesLingeringHead, Verdict.VIOLATED)])
def test_the_dashboard_url_dies_with_the_raycluster(cls, verdict):
    """The dashboard URL names the RayCluster's head Service, garbage-collected with it:
    no call reaches a head that outlives its CR (hand deletion of the cluster)."""
    model = load_model(model_path("hand_F1"))
    options = CheckOptions(properties=["no_call_reaches_a_lingering_head"])
    result = ExplicitEngine(Machine(cls, model.constants, model.groups), options).check()
    assert not result.stopped
    assert prop(result, "no_call_reaches_a_lingering_head").verdict is verdict


@pytest.mark.parametrize("on_worker,verdict", [(False, Verdict.HOLDS),
                                               (True, Verdict.VIOLATED)])
def test_a_driver_on_a_worker_outlives_a_head_restart_without_gcs_ft(on_worker, verdict):
    """Deviation 6: with entrypoint resources the driver runs on a worker; a head restart
    without GCS fault tolerance leaves it running, recorded nowhere, while the retried
    submitter starts the same id again: two drivers of one attempt at once."""
    model = load_model(model_path("head_noft_worker_F1"))
    assert model.constants["driver_on_worker"] and not model.constants.get("gcs_ft")
    constants = {**model.constants, "driver_on_worker": on_worker}
    options = CheckOptions(properties=["p3b_one_driver_at_a_time"])
    result = ExplicitEngine(Machine(RayJob, constants, model.groups), options).check()
    assert not result.stopped
    assert prop(result, "p3b_one_driver_at_a_time").verdict is verdict


class UnsupervisedRecords(RayJob):
    @reachable
    def w_record_without_supervisor(s):
        return any(r in (Rec.ORPHAN, Rec.STRANDED, Rec.TIMING_OUT) for r in s.kv.values())


@pytest.mark.parametrize("on_worker,found", [(False, Verdict.HOLDS), (True, Verdict.VIOLATED)])
def test_with_gcs_ft_a_driver_on_a_worker_keeps_its_record_supervised(on_worker, found):
    """With GCS fault tolerance the worker's supervisor lives on: no record is ever left
    without one (on the head, the same model reaches orphaned and stranded records)."""
    model = load_model(model_path("head_ft_F1"))
    machine = Machine(UnsupervisedRecords, {**model.constants, "driver_on_worker": on_worker},
                      model.groups)
    options = CheckOptions(properties=["w_record_without_supervisor"])
    result = ExplicitEngine(machine, options).check()
    assert prop(result, "w_record_without_supervisor").verdict is found


class EditedIntoValidationFailed(RayJob):
    @reachable
    def w_validation_failed_after_every_retry(s):
        return (s._live(Phase.VALIDATION_FAILED) and s.attempted
                and s.rj_b.failed == s.backoff_limit + 1)

    @reachable
    def w_validation_failed_between_attempts(s):
        return s._live(Phase.VALIDATION_FAILED) and s.retries > 0 and s.rj_b.cluster is None


def test_the_lemmas_hold_where_a_spec_edit_turns_an_ended_attempt_validation_failed():
    """Validation runs in every phase (C:145-162) and keeps the status: an edit turns a
    Failed RayJob that used every retry ValidationFailed (lemma_failed_counts_bounded
    said only Failed may: it fails here without the change proofs/slow/faults_edit.toml
    made), or the New after a retry, its identity cleared (claim 4 fails; its lemma
    allows it). No gate model with spec edits lets the program fail: checked here."""
    model = load_model(model_path("validation_F2"))
    constants = {**model.constants, "program": "FAIL", "backoff_limit": 1, "F": 1}
    machine = Machine(with_lemmas(EditedIntoValidationFailed), constants, model.groups)
    names = [p.name for p in machine.properties
             if p.name.startswith(("lemma_", "w_validation_failed"))]
    result = ExplicitEngine(machine, CheckOptions(properties=names)).check()
    assert {prop(result, n).verdict for n in names} == {Verdict.HOLDS}


@pytest.mark.parametrize("rejected,fix,message", [
    ({"mode": Mode.INTERACTIVE}, {"backoff_limit": 0}, "InteractiveMode rejects a positive"),
    ({"mode": Mode.SIDECAR, "sub_backoff_limit": 1}, {"sub_backoff_limit": 2},
     "SidecarMode rejects submitterConfig"),
    ({"deletion_rules": Rules.STAGED}, {"shutdown_after_finishes": False}, "mutually exclusive"),
    ({"deletion_rules": Rules.STAGED, "shutdown_after_finishes": False,
      "legacy_policy": Legacy.DELETE_CLUSTER}, {"legacy_policy": Legacy.OFF},
     "legacy onSuccess/onFailure policies are mutually exclusive"),
    ({"ttl": Rank.XLONG, "shutdown_after_finishes": False}, {"shutdown_after_finishes": True},
     "needs shutdownAfterJobFinishes")])
def test_constants_kuberay_validation_rejects_are_refused(rejected, fix, message):
    """A model may not configure a RayJob that validateRayJob rejects (the spec leaves
    ValidationFailed to a user's edit): one error at the spec line that refuses it; the
    valid neighbour is accepted."""
    options = CheckOptions(max_states=10)
    with pytest.raises(SpecError, match=message) as refused:
        ExplicitEngine(Machine(RayJob, rejected), options).check()
    assert str(refused.value).startswith(f"{ROOT / 'spec/rayjob/state.py'}:")
    assert ExplicitEngine(Machine(RayJob, {**rejected, **fix}), options).check().stopped


def test_the_default_model_is_small_and_fast():
    _, result = check("rayjob")
    assert result.stats.distinct_states < 10_000 and result.stats.seconds < 10


def test_each_model_description_gives_the_gate_baseline_state_count():
    """Readers quote the state count a description gives (README, docs): it must be the
    count the gate baseline records, slow models included, so neither drifts unnoticed."""
    baseline = json.loads((ROOT / "gate-baseline.json").read_text())
    paths = [model_path("rayjob"), *(ROOT / "models/rayjob").rglob("*.toml")]
    for path in (p for p in paths if "proofs" not in p.parts):
        key = str(path.relative_to(ROOT))
        stated = re.search(r"\(([\d,]+) states\)", load_model(path).description)
        assert stated, f"{key}: the description gives no state count"
        assert int(stated[1].replace(",", "")) == baseline[key]["distinct_states"], key


def test_every_action_fires_in_some_model():
    fired = set()
    for name in MODEL_NAMES:
        fired |= {a for a, n in check(name)[1].coverage.by_action.items() if n}
    every = {b.name for b in Machine(RayJob).all_bindings}
    assert every - fired == set()


@pytest.mark.parametrize("model,name,length", [(m, p, n) for (m, p), n in TRACES.items()] + [
    pytest.param(m, p, n, marks=pytest.mark.slow) for (m, p), n in SLOW_TRACES.items()])
def test_the_faithful_spec_refutes(model, name, length):
    p = prop(check(model)[1], name)
    assert p.verdict.value == "violated"
    assert len(p.trace.steps) - 1 == length


@pytest.mark.parametrize("mutant,model_name,name,length", KILLS,
                         ids=[f"{k[0].__name__}-{k[2]}" for k in KILLS])
def test_each_mutant_is_killed_where_the_faithful_spec_holds(mutant, model_name, name, length):
    model, faithful = check(model_name)
    assert prop(faithful, name).verdict.value == "holds"
    machine = Machine(mutant, model.constants, model.groups)
    options = CheckOptions(properties=[name], max_depth=length + 1)
    (p,) = ExplicitEngine(machine, options).check().properties
    assert p.verdict.value == "violated"
    assert len(p.trace.steps) - 1 == length


def test_every_property_holds_somewhere_and_is_refuted_somewhere():
    holds, refuted = set(), {name for _, name in TRACES} | {k[2] for k in KILLS}
    for name in MODEL_NAMES:
        for p in check(name)[1].properties:
            if p.kind == "invariant" and p.verdict.value == "holds":
                holds.add(p.name)
    invariants = {p.name for p in Machine(with_lemmas(RayJob)).properties
                  if p.kind == "invariant"}
    assert holds == invariants
    lemmas = {n for n in invariants if n.startswith("lemma_")}    # proof aids, not claims
    assert invariants - refuted - lemmas == {"s_model_bounds"}     # a sanity bound either


def test_every_witness_is_found_somewhere():
    found = set()
    for name in MODEL_NAMES:
        found |= {p.name for p in check(name)[1].properties
                  if p.kind == "reachable" and p.verdict.value == "holds"}
    assert found == {p.name for p in Machine(RayJob).properties if p.kind == "reachable"}


def random_state(machine: Machine, rng: random.Random) -> tuple:
    """Any state the variables' domains allow, reachable or not (a code per variable)."""
    def code(domain):
        if isinstance(domain, MapDomain):
            return tuple(code(domain.value) for _ in domain.keys)
        return rng.randrange(domain.size)
    return tuple(code(v.domain) for v in machine.variables)


@pytest.mark.parametrize("name", ["happy_F0", "rayjob"])      # with and without _calm
def test_every_lemma_is_defined_on_every_state(name):
    """Lemmas are checked on whatever a mutant reaches: none may raise (say, index a map
    with a cluster name that is None), each says true or false."""
    model = load_model(model_path(name))
    machine = Machine(with_lemmas(model.spec_cls), model.constants, model.groups)
    lemmas = [p for p in machine.properties if p.name.startswith("lemma_")]
    rng = random.Random(18)
    for _ in range(1500):
        machine.load(machine.scratch, random_state(machine, rng))
        for lemma in lemmas:
            machine.holds(lemma.fn, lemma.name)


def test_the_spec_has_the_claims_and_the_proof_specs_the_lemmas():
    """A reader (and `check-model models/rayjob.toml`) sees the claims, not proof aids."""
    assert not [p.name for p in Machine(RayJob).properties if p.name.startswith("lemma_")]
    common = Lemmas.__dict__ | ModeLemmas.__dict__
    no_faults = common | NoFaultLemmas.__dict__ | NoFaultModeLemmas.__dict__
    sidecar_once = (common | AtMostOnceLemmas.__dict__ | DriverOnceLemmas.__dict__
                    | SidecarOnceLemmas.__dict__)
    interactive_once = (common | AtMostOnceLemmas.__dict__ | DriverOnceLemmas.__dict__
                        | InteractiveOnceLemmas.__dict__)
    driver_once_stale = (common | AtMostOnceLemmas.__dict__ | StaleLemmas.__dict__
                         | StaleAtMostOnceLemmas.__dict__ | DriverOnceLemmas.__dict__
                         | StaleDriverOnceLemmas.__dict__)
    for name, lemmas in (("no_faults", no_faults), ("slow/no_faults_http", no_faults),
                         ("slow/no_faults_sidecar", no_faults),
                         ("slow/no_faults_interactive", no_faults),
                         ("slow/faults", common), ("slow/faults_edit", common),
                         ("slow/faults_stale", common | StaleLemmas.__dict__),
                         ("slow/one_name_stale", common | StaleLemmas.__dict__),
                         ("slow/at_most_once_stale", common | AtMostOnceLemmas.__dict__
                          | StaleLemmas.__dict__ | StaleAtMostOnceLemmas.__dict__),
                         ("slow/at_most_once", common | AtMostOnceLemmas.__dict__),
                         ("slow/driver_once", common | AtMostOnceLemmas.__dict__
                          | DriverOnceLemmas.__dict__),
                         ("slow/driver_once_sidecar", sidecar_once),
                         ("slow/driver_once_sidecar_restart", sidecar_once),
                         ("slow/driver_once_sidecar_ft", sidecar_once),
                         ("slow/submit_once_sidecar", sidecar_once),
                         ("slow/driver_once_stale", driver_once_stale),
                         ("slow/driver_once_sidecar_stale",
                          driver_once_stale | SidecarOnceLemmas.__dict__),
                         ("slow/driver_once_interactive", interactive_once),
                         ("slow/driver_once_interactive_stale",
                          driver_once_stale | InteractiveOnceLemmas.__dict__)):
        machine = load_model(ROOT / f"models/rayjob/proofs/{name}.toml").machine()
        assert {p.name for p in machine.properties if p.name.startswith("lemma_")} == \
            {n for n in lemmas if n.startswith("lemma_")}


def test_a_mutant_reaching_a_state_the_lemmas_exclude_violates_them():
    """ClusterNameInInitializing creates a cluster before its name is persisted (no
    att_cluster yet): lemma_created_name_is_the_attempts said KeyError: None."""
    machine = mutant_machine(with_lemmas(mutants.ClusterNameInInitializing), "happy_F0")
    result = ExplicitEngine(machine, CheckOptions(max_depth=8)).check()
    assert prop(result, "lemma_created_name_is_the_attempts").verdict is Verdict.VIOLATED


# Both ways in the other modes: each claim the SidecarMode and InteractiveMode proofs
# prove (models/rayjob/proofs/slow/*_sidecar.toml, *_interactive.toml) is refuted in that
# mode by a mutant: (mutant, model, constants changed, property, length). Vacuous there,
# so not listed: 2a and 2b (no submitter Job), and in InteractiveMode 8 (no retry).
SIDECAR = {"mode": "SIDECAR", "sub_backoff_limit": 2}
MODE_KILLS = [
    (mutants.ClusterNameInInitializing, "sidecar_F0", {},     # its two names per attempt:
     {"p1a_one_cluster_name_per_attempt": 7, "p1b_cluster_created_once_per_attempt": 7,
      "p5a_no_cr_overlap": 7, "s_model_bounds": 12}),  # p3 and p12 count per name (1a's)
    (mutants.SidecarHeadRecreated, "sidecar_head_F1", {}, {"p3_driver_once_per_attempt": 13,
                                                            "p12_single_submit_call": 11}),
    (mutants.SidecarHeadRecreated, "sidecar_head_F1", {"sidecar_restart": True},  # the gate's
     {"p3_driver_once_per_attempt": 15, "p12_single_submit_call": 13}),  # *_sidecar_restart
    (mutants.StatusUpdateNoVersion, "rayjob", SIDECAR, {"p4_identity_stable": 6}),
    (mutants.BackoffOffByOne, "sidecar_F0", {}, {"p6_retries_bounded": 41}),
    (mutants.Eager404Fail, "sidecar_F0", {}, {"p7_succeeded_not_failed": 17}),
    (mutants.RetryAllReasons, "deadline_F0", SIDECAR, {"p8_excluded_not_retried": 11}),
    (mutants.ClusterNameInInitializing, "interactive_F0", {},
     {"p1a_one_cluster_name_per_attempt": 7, "p1b_cluster_created_once_per_attempt": 7,
      "p5a_no_cr_overlap": 7, "s_model_bounds": 12}),
    (mutants.NoSubmissionId, "interactive_F0", {},
     {"p3_driver_once_per_attempt": 12, "p12_single_submit_call": 10}),
    (mutants.InteractiveDrawsJobId, "interactive_F0", {}, {"p4_identity_stable": 11}),
    (mutants.BackoffOffByOne, "interactive_F0", {}, {"p6_retries_bounded": 23}),
    (mutants.Eager404Fail, "interactive_F0", {}, {"p7_succeeded_not_failed": 19}),
]
# The same in the other settings: claim 3 with stale caches and no GCS fault tolerance
# (proofs/slow/driver_once_stale_noft.toml, _http_noft: suspend_stale_F2 has no head
# restart), the claims proved with spec edits (proofs/slow/faults_edit.toml,
# at_most_once_edit*.toml, driver_once_edit*.toml: validation_F2 and
# slow/user_ops_retry_F2 edit the spec; StatusUpdateNoVersion needs the latter's stale
# caches to break 2a), and with spec edits and stale caches together (the *_edit_stale*
# proofs, K8sJobMode and HTTPMode, claim 3 with GCS fault tolerance or without it and head
# restarts: slow/user_ops_retry_F2, which has neither, searched only as deep as the
# counterexample), and SidecarMode with GCS fault tolerance or stale caches
# (proofs/slow/*_sidecar_ft.toml, *_sidecar_stale*.toml): with GCS FT the re-created head
# finds its records, so the container's second submit is rejected and only claim 12
# falls, and with the gate not even that (its status check finds the record); a submit
# without `--submission-id` then records another id, and the restarted container submits
# again; with both GCS FT and stale caches (*_sidecar_ft_stale*.toml) the same, in
# sidecar_stale_F2 with GCS FT; with spec edits (*_sidecar_edit*.toml): sidecar_edit_head_F2,
# with GCS FT (*_sidecar_edit_ft*.toml) as sidecar_ft_F2, with stale caches
# (*_sidecar_edit_stale*.toml) its stale group turned on ("groups" in the changes), and
# with both (*_sidecar_edit_ft_stale*.toml).
# And with a cache two changes behind (the *_lag2 proofs): ops_all_lag2_F2, in SidecarMode
# sidecar_stale_F2 with L = 2 (with GCS FT too: *_sidecar_ft_stale*_lag2.toml). And the
# claims of the faults proofs in SidecarMode and InteractiveMode with stale caches, spec
# edits or both (proofs/slow/faults_sidecar_stale*, *_sidecar_edit*, *_interactive_stale*,
# *_interactive_edit*): sidecar_stale_F2, validation_F2 and slow/user_ops_retry_F2 in
# SidecarMode, interactive_stale_F2 and interactive_edit_stale_F2 (with L = 0, spec edits
# alone). And claims 3 and 12 with faults in InteractiveMode
# (proofs/slow/driver_once_interactive*.toml, submit_once_interactive*): a submit without
# `--submission-id` records another id, so the user finds no job of spec.jobId and submits
# again, with no fault (as in interactive_F0), under each setting's constants: GCS fault
# tolerance, stale caches, spec edits.
STALE = {"stale": True}     # a fault group turned on: "groups" in the changes
SETTING_KILLS = [
    (mutants.NoSubmissionId, "suspend_stale_F2", {}, {"p3_driver_once_per_attempt": 15}),
    (mutants.NoSubmissionId, "suspend_stale_F2", {"mode": "HTTP"},
     {"p3_driver_once_per_attempt": 17}),
    (mutants.ClusterNameInInitializing, "validation_F2", {},
     {"p1a_one_cluster_name_per_attempt": 7, "p1b_cluster_created_once_per_attempt": 7,
      "p5a_no_cr_overlap": 7}),
    (mutants.ClusterNameInInitializing, "validation_F2", {"mode": "HTTP"},
     {"p1b_cluster_created_once_per_attempt": 7}),
    (mutants.NoSubmissionId, "validation_F2", {}, {"p3_driver_once_per_attempt": 15}),
    (mutants.NoSubmissionId, "validation_F2", {"mode": "HTTP"},
     {"p3_driver_once_per_attempt": 17}),
    (mutants.StatusUpdateNoVersion, "slow/user_ops_retry_F2", {}, {"p2a_job_matches_attempt": 12}),
    (mutants.BackoffOffByOne, "validation_F2", {"program": "FAIL"}, {"p6_retries_bounded": 24}),
    (mutants.RetryAllReasons, "validation_F2", {"active_deadline": "XLONG", "backoff_limit": 1},
     {"p8_excluded_not_retried": 11}),
    (mutants.ClusterNameInInitializing, "slow/user_ops_retry_F2", {},
     {"p1a_one_cluster_name_per_attempt": 7, "p1b_cluster_created_once_per_attempt": 7}),
    (mutants.NoSubmissionId, "slow/user_ops_retry_F2", {"sub_backoff_limit": 1},
     {"p3_driver_once_per_attempt": 15}),
    (mutants.NoSubmissionId, "slow/user_ops_retry_F2", {"mode": "HTTP"},
     {"p3_driver_once_per_attempt": 17}),
    (mutants.BackoffOffByOne, "slow/user_ops_retry_F2", {"backoff_limit": 0},
     {"p6_retries_bounded": 18}),
    (mutants.RetryAllReasons, "slow/user_ops_retry_F2",
     {"active_deadline": "XLONG", "backoff_limit": 1}, {"p8_excluded_not_retried": 10}),
    (mutants.ClusterNameInInitializing, "slow/user_ops_retry_F2", {"mode": "HTTP"},
     {"p1a_one_cluster_name_per_attempt": 7, "p1b_cluster_created_once_per_attempt": 7}),
    (mutants.BackoffOffByOne, "slow/user_ops_retry_F2", {"mode": "HTTP", "backoff_limit": 0},
     {"p6_retries_bounded": 21}),
    (mutants.RetryAllReasons, "slow/user_ops_retry_F2",
     {"mode": "HTTP", "active_deadline": "XLONG", "backoff_limit": 1},
     {"p8_excluded_not_retried": 10}),
    (mutants.ClusterNameInInitializing, "sidecar_ft_F2", {},
     {"p1b_cluster_created_once_per_attempt": 7}),
    (mutants.SidecarHeadRecreated, "sidecar_ft_F2", {}, {"p12_single_submit_call": 11}),
    (mutants.ClusterNameInInitializing, "sidecar_stale_F2", {},
     {"p1a_one_cluster_name_per_attempt": 7, "p1b_cluster_created_once_per_attempt": 7}),
    (mutants.StatusUpdateNoVersion, "sidecar_stale_F2", {}, {"p4_identity_stable": 6}),
    (mutants.BackoffOffByOne, "sidecar_stale_F2", {"program": "FAIL", "backoff_limit": 0},
     {"p6_retries_bounded": 17}),
    (mutants.RetryAllReasons, "sidecar_stale_F2", {"active_deadline": "XLONG", "backoff_limit": 1},
     {"p8_excluded_not_retried": 10}),
    (mutants.SidecarHeadRecreated, "sidecar_stale_F2", {},
     {"p3_driver_once_per_attempt": 13, "p12_single_submit_call": 11}),
    (mutants.SidecarHeadRecreated, "sidecar_stale_F2", {"sidecar_restart": True},  # the gate's
     {"p3_driver_once_per_attempt": 15, "p12_single_submit_call": 13}),
    (mutants.NoSubmissionId, "sidecar_ft_F2", {"sidecar_restart": True},
     {"p3_driver_once_per_attempt": 13, "p12_single_submit_call": 11}),
    (mutants.ClusterNameInInitializing, "sidecar_stale_F2", {"gcs_ft": True},
     {"p1b_cluster_created_once_per_attempt": 7}),
    (mutants.SidecarHeadRecreated, "sidecar_stale_F2", {"gcs_ft": True},
     {"p12_single_submit_call": 11}),
    (mutants.NoSubmissionId, "sidecar_stale_F2", {"gcs_ft": True, "sidecar_restart": True},
     {"p3_driver_once_per_attempt": 13, "p12_single_submit_call": 11}),
    (mutants.ClusterNameInInitializing, "sidecar_edit_head_F2", {},
     {"p1b_cluster_created_once_per_attempt": 7}),
    (mutants.SidecarHeadRecreated, "sidecar_edit_head_F2", {},
     {"p3_driver_once_per_attempt": 13, "p12_single_submit_call": 11}),
    (mutants.SidecarHeadRecreated, "sidecar_edit_head_F2", {"sidecar_restart": True},
     {"p3_driver_once_per_attempt": 15, "p12_single_submit_call": 13}),
    (mutants.ClusterNameInInitializing, "sidecar_edit_head_F2", {"gcs_ft": True},
     {"p1b_cluster_created_once_per_attempt": 7}),
    (mutants.SidecarHeadRecreated, "sidecar_edit_head_F2", {"gcs_ft": True},
     {"p12_single_submit_call": 11}),
    (mutants.NoSubmissionId, "sidecar_edit_head_F2", {"gcs_ft": True, "sidecar_restart": True},
     {"p3_driver_once_per_attempt": 13, "p12_single_submit_call": 11}),
    (mutants.ClusterNameInInitializing, "sidecar_edit_head_F2", {"L": 1, "groups": STALE},
     {"p1b_cluster_created_once_per_attempt": 7}),
    (mutants.SidecarHeadRecreated, "sidecar_edit_head_F2", {"L": 2, "groups": STALE},
     {"p3_driver_once_per_attempt": 13, "p12_single_submit_call": 11}),
    (mutants.SidecarHeadRecreated, "sidecar_edit_head_F2",
     {"L": 2, "groups": STALE, "sidecar_restart": True},
     {"p3_driver_once_per_attempt": 15, "p12_single_submit_call": 13}),
    (mutants.ClusterNameInInitializing, "sidecar_edit_head_F2",
     {"gcs_ft": True, "L": 1, "groups": STALE}, {"p1b_cluster_created_once_per_attempt": 7}),
    (mutants.SidecarHeadRecreated, "sidecar_edit_head_F2",
     {"gcs_ft": True, "L": 2, "groups": STALE}, {"p12_single_submit_call": 11}),
    (mutants.NoSubmissionId, "sidecar_edit_head_F2",
     {"gcs_ft": True, "L": 1, "groups": STALE, "sidecar_restart": True},
     {"p3_driver_once_per_attempt": 13, "p12_single_submit_call": 11}),
    (mutants.ClusterNameInInitializing, "ops_all_lag2_F2", {},
     {"p1a_one_cluster_name_per_attempt": 7, "p1b_cluster_created_once_per_attempt": 7}),
    (mutants.ClusterNameInInitializing, "ops_all_lag2_F2", {"mode": "HTTP"},
     {"p1a_one_cluster_name_per_attempt": 7, "p1b_cluster_created_once_per_attempt": 7}),
    (mutants.StatusUpdateNoVersion, "ops_all_lag2_F2", {}, {"p4_identity_stable": 6}),
    (mutants.BackoffOffByOne, "ops_all_lag2_F2", {"backoff_limit": 0}, {"p6_retries_bounded": 26}),
    (mutants.NoSubmissionId, "ops_all_lag2_F2", {}, {"p3_driver_once_per_attempt": 15}),
    (mutants.NoSubmissionId, "ops_all_lag2_F2", {"mode": "HTTP"},
     {"p3_driver_once_per_attempt": 17}),
    (mutants.ClusterNameInInitializing, "validation_F2", SIDECAR,
     {"p1a_one_cluster_name_per_attempt": 7, "p5a_no_cr_overlap": 7}),
    (mutants.BackoffOffByOne, "validation_F2", {**SIDECAR, "program": "FAIL"},
     {"p6_retries_bounded": 21}),
    (mutants.RetryAllReasons, "validation_F2",
     {**SIDECAR, "active_deadline": "XLONG", "backoff_limit": 1}, {"p8_excluded_not_retried": 11}),
    (mutants.ClusterNameInInitializing, "slow/user_ops_retry_F2", SIDECAR,
     {"p1a_one_cluster_name_per_attempt": 7}),
    (mutants.BackoffOffByOne, "slow/user_ops_retry_F2", {**SIDECAR, "backoff_limit": 0},
     {"p6_retries_bounded": 16}),
    (mutants.RetryAllReasons, "slow/user_ops_retry_F2",
     {**SIDECAR, "active_deadline": "XLONG", "backoff_limit": 1}, {"p8_excluded_not_retried": 10}),
    (mutants.ClusterNameInInitializing, "interactive_stale_F2", {},
     {"p1a_one_cluster_name_per_attempt": 7, "p1b_cluster_created_once_per_attempt": 7}),
    (mutants.StatusUpdateNoVersion, "interactive_stale_F2", {}, {"p4_identity_stable": 6}),
    (mutants.BackoffOffByOne, "interactive_stale_F2", {}, {"p6_retries_bounded": 23}),
    (mutants.ClusterNameInInitializing, "interactive_edit_stale_F2", {"L": 0},
     {"p1a_one_cluster_name_per_attempt": 7, "p1b_cluster_created_once_per_attempt": 7,
      "p5a_no_cr_overlap": 7}),
    (mutants.BackoffOffByOne, "interactive_edit_stale_F2", {"L": 0}, {"p6_retries_bounded": 23}),
    (mutants.ClusterNameInInitializing, "interactive_edit_stale_F2", {},
     {"p1a_one_cluster_name_per_attempt": 7, "p1b_cluster_created_once_per_attempt": 7}),
    (mutants.BackoffOffByOne, "interactive_edit_stale_F2", {}, {"p6_retries_bounded": 23}),
    (mutants.NoSubmissionId, "interactive_F2", {},
     {"p3_driver_once_per_attempt": 12, "p12_single_submit_call": 10}),
    (mutants.NoSubmissionId, "interactive_head_F1", {"gcs_ft": True},
     {"p3_driver_once_per_attempt": 12, "p12_single_submit_call": 10}),
    (mutants.NoSubmissionId, "interactive_stale_F2", {},
     {"p3_driver_once_per_attempt": 12, "p12_single_submit_call": 10}),
    (mutants.NoSubmissionId, "interactive_stale_F2", {"gcs_ft": True},
     {"p3_driver_once_per_attempt": 12, "p12_single_submit_call": 10}),
    (mutants.NoSubmissionId, "interactive_edit_stale_F2", {"L": 0},
     {"p3_driver_once_per_attempt": 12, "p12_single_submit_call": 10}),
    (mutants.NoSubmissionId, "interactive_edit_stale_F2", {"L": 0, "gcs_ft": True},
     {"p3_driver_once_per_attempt": 12, "p12_single_submit_call": 10}),
    (mutants.NoSubmissionId, "interactive_edit_stale_F2", {},
     {"p3_driver_once_per_attempt": 12, "p12_single_submit_call": 10}),
    (mutants.NoSubmissionId, "interactive_edit_stale_F2", {"gcs_ft": True},
     {"p3_driver_once_per_attempt": 12, "p12_single_submit_call": 10}),
]
# The same with a cache two changes behind (the *_lag2 proofs of those modes; the GCS FT
# cases of sidecar_stale_F2 come along): the same lengths.
SETTING_KILLS += [(mutant, name, {**changes, "L": 2}, lengths)
                  for mutant, name, changes, lengths in SETTING_KILLS
                  if name in ("sidecar_stale_F2", "interactive_stale_F2",
                              "interactive_edit_stale_F2") and "L" not in changes]
# Where a setting itself refutes a claim, the faithful spec: with spec edits, a hand
# deletion of the RayCluster or the Job still refutes 1b and 2b (the *_edit* proofs leave
# it out, as at_most_once.toml does: hand_F1, hand_F2), stale caches or not; in
# SidecarMode with GCS fault tolerance, the RayCluster's deletion wipes its records, so a
# hand deletion refutes claim 3 (Initializing re-creates it, its new container submits);
# so it does in InteractiveMode (Running re-creates it, the user submits again; without GCS
# fault tolerance the faithful trace is checked in, TRACES).
SETTING_REFUTATIONS = [
    (RayJob, "slow/user_ray_retry_F2", {},
     {"p1b_cluster_created_once_per_attempt": 8, "p2b_job_created_once_per_attempt": 13}),
    (RayJob, "slow/user_ops_retry_F2", {},
     {"p1b_cluster_created_once_per_attempt": 8, "p2b_job_created_once_per_attempt": 11}),
    (RayJob, "sidecar_hand_F1", {"gcs_ft": True},
     {"p3_driver_once_per_attempt": 14, "p12_single_submit_call": 12}),
    (RayJob, "interactive_hand_F1", {"gcs_ft": True},
     {"p3_driver_once_per_attempt": 19, "p12_single_submit_call": 17}),
]


KILLS_THERE = MODE_KILLS + SETTING_KILLS + SETTING_REFUTATIONS


@pytest.mark.parametrize("mutant,model_name,changes,lengths", KILLS_THERE,
                         ids=[f"{k[0].__name__}-{k[1]}" for k in KILLS_THERE])
def test_each_claim_proved_in_a_mode_or_setting_is_refuted_there(mutant, model_name, changes,
                                                                  lengths):
    """By a mutant, or by the faithful spec where the setting with one more fault group
    refutes it: the shortest counterexamples have the lengths given."""
    model = load_model(model_path(model_name))
    constants = {k: v for k, v in changes.items() if k != "groups"}
    machine = Machine(mutant, {**model.constants, **constants},
                      {**model.groups, **changes.get("groups", {})})
    options = CheckOptions(properties=list(lengths), max_depth=max(lengths.values()))
    result = ExplicitEngine(machine, options).check()
    assert {n: len(prop(result, n).trace.steps) - 1 for n in lengths} == lengths


def test_httpmode_submits_at_most_once_without_faults_but_not_without_a_submission_id():
    """proofs/no_faults_http proves p3 and p12 in HTTPMode with no fault; without
    `--submission-id` GetJobInfo never finds the record by status.jobId, so the operator
    submits again (M6)."""
    model, faithful = check("http_happy_F0")
    assert {prop(faithful, n).verdict for n in ("p3_driver_once_per_attempt",
                                                 "p12_single_submit_call")} == {Verdict.HOLDS}
    machine = mutant_machine(mutants.NoSubmissionId, "http_happy_F0")
    result = ExplicitEngine(machine, model.options).check()
    assert len(prop(result, "p12_single_submit_call").trace.steps) - 1 == 15
    assert prop(result, "p3_driver_once_per_attempt").verdict is Verdict.VIOLATED


def test_every_mutant_is_tested():
    assert set(mutants.ALL) == {k[0] for k in KILLS} | {mutants.SuspendedRequeues}


def test_suspended_requeueing_is_an_equivalent_mutant():
    """kuberay #4443 only saved reconciles: every verdict is the same with the old code."""
    model, faithful = check("suspend_F2")
    old = ExplicitEngine(Machine(with_lemmas(mutants.SuspendedRequeues), model.constants,
                                 model.groups), model.options).check()
    assert verdicts(old) == verdicts(faithful)
    assert old.stats.distinct_states == faithful.stats.distinct_states


@pytest.mark.parametrize("model,name,length", [(m, p, n) for (m, p), n in
                                               {**TRACES, **SLOW_TRACES}.items()])
def test_checked_in_traces_replay(model, name, length):
    path = ROOT / "examples/traces" / model / f"{name}.itf.json"
    machine = load_model(model_path(model)).machine()
    trace = from_itf(machine, read_itf(path), str(path))
    assert len(trace.steps) - 1 == length
    report = replay(machine, trace)
    assert report.ok, report.message
    assert not machine.check(prop_fn(machine, name), trace.steps[-1].state, name)


def prop_fn(machine, name):
    return next(p.fn for p in machine.properties if p.name == name)


def mutant_machine(mutant, model_name):
    model = load_model(model_path(model_name))
    return Machine(mutant, model.constants, model.groups)


def mutant_trace_path(mutant, name):
    return ROOT / "examples/traces/mutants" / mutant.__name__ / f"{name}.itf.json"


@pytest.mark.parametrize("mutant,model_name,name,length", KILLS,
                         ids=[f"{k[0].__name__}-{k[2]}" for k in KILLS])
def test_checked_in_mutant_traces_replay(mutant, model_name, name, length):
    machine = mutant_machine(mutant, model_name)
    path = mutant_trace_path(mutant, name)
    trace = from_itf(machine, read_itf(path), str(path))
    assert len(trace.steps) - 1 == length
    assert replay(machine, trace).ok
    assert not machine.check(prop_fn(machine, name), trace.steps[-1].state, name)
    assert not replay(load_model(model_path(model_name)).machine(), trace).ok


def write_traces():
    """Re-create examples/traces after a change of the spec's variables:
    `PYTHONPATH=. python tests/test_rayjob.py` (writes compact ITF JSON)."""
    runs = [(load_model(model_path(m)).machine(), m, name, length, ROOT / "examples/traces" / m /
             f"{name}.itf.json") for (m, name), length in {**TRACES, **SLOW_TRACES}.items()]
    runs += [(mutant_machine(mutant, m), m, name, length, mutant_trace_path(mutant, name))
             for mutant, m, name, length in KILLS]
    for machine, model, name, length, path in runs:
        options = CheckOptions(properties=[name], max_depth=length + 1)
        (p,) = ExplicitEngine(machine, options).check().properties
        assert len(p.trace.steps) - 1 == length, (model, name, len(p.trace.steps) - 1)
        save_trace(machine, p, model, path)


def save_trace(machine, p, model, path):
    """Write the counterexample of property result `p` (found in `model`) as compact ITF."""
    from checker.output.itf import to_itf
    path.parent.mkdir(parents=True, exist_ok=True)
    data = to_itf(machine, p.trace, property=p.name, kind=p.kind, verdict="violated",
                  source=str(model_path(model).relative_to(ROOT)))
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    write_traces()
