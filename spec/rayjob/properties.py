"""The properties of issue 3: invariants (at most once, identity, bounds) and witnesses.

Counters are per attempt: an attempt (ghost `attempt`) begins when the write moving the
persisted RayJob from New to Initializing is applied, which happens once per retry and
once per resume from Suspended (a resume draws a new identity too).
"""
from checker import invariant, reachable

from .apiserver import FINISHED
from .state import RayJobState
from .types import (NONTERMINAL_RECS, REC_STATUS, TERMINAL, Age, Head, JCond, JStat, KvKey, Mode,
                    Pc, Phase, Reason, Rec, Stray, Timer)


PROGRAM_ENDED = frozenset({JStat.SUCCEEDED, JStat.FAILED})   # STOPPED: stopped, not ended


class Properties(RayJobState):
    def _live(s, phase=None) -> bool:
        return s.rj is not None and (phase is None or s.rj.phase is phase)

    @invariant
    def p1a_one_cluster_name_per_attempt(s):
        """At most one RayCluster name is created per attempt."""
        return not s.two_names

    @invariant
    def p1b_cluster_created_once_per_attempt(s):
        """A RayCluster create is applied at most once per attempt."""
        return max(s.cl_creates.values()) <= 1

    @invariant
    def p2a_job_matches_attempt(s):
        """The submitter Job targets the attempt's cluster and submission id."""
        if s.job_ident_bad:
            return False
        if s._live(Phase.RUNNING) and s.mode is Mode.K8S and s.job is not None:
            return (s.job.target, s.job.job_id) == (s.rj_b.cluster, s.rj_b.job_id)
        return True

    @invariant
    def p2b_job_created_once_per_attempt(s):
        """A submitter Job create is applied at most once per attempt."""
        return max(s.job_creates.values()) <= 1

    @invariant
    def p3_driver_once_per_attempt(s):
        """The entrypoint (driver) starts at most once per attempt: counted per cluster
        name (`cl_driver_starts`), which is per attempt (one name each, claim 1a), even
        for the attempts the `OLD` bucket of `driver_starts` folds together."""
        return max(s.cl_driver_starts.values()) <= 1

    @invariant
    def p3b_one_driver_at_a_time(s):
        """No two drivers of one attempt run at the same time: with entrypoint resources
        a driver may outlive a head restart on a worker while the retried submitter
        starts the same submission id again in the new GCS."""
        return s.stray is Stray.NONE or s.stray_att is None or not any(
            r in (Rec.RUNNING, Rec.WROTE) and s.cl_attempt[k.c] is s.stray_att
            for k, r in s.kv.items())

    @invariant
    def p4_identity_stable(s):
        """Once persisted, status.rayClusterName and status.jobId change only when a new
        attempt begins."""
        if not s.attempted or not s._live() or s.rj.phase in (Phase.NEW, Phase.SUSPENDED):
            return True
        return (s.rj_b.cluster, s.rj_b.job_id) == (s.att_cluster, s.att_job)

    @invariant
    def p5a_no_cr_overlap(s):
        """No RayCluster is created while another owned RayCluster object exists."""
        return not s.cr_overlap

    @invariant
    def p5b_no_pod_overlap(s):
        """No RayCluster is created while pods of another cluster are alive."""
        return not s.pod_overlap

    @invariant
    def p6_retries_bounded(s):
        """At most backoffLimit retries, status.failed <= backoffLimit + 1."""
        return s.retries <= s.backoff_limit and s.rj_b.failed <= s.backoff_limit + 1

    @invariant
    def p7_succeeded_not_failed(s):
        """No attempt whose Ray job succeeded is recorded as a failed attempt."""
        return not any(s.att_failed[a] and s.att_succ[a] for a in Age)

    @invariant
    def p8_excluded_not_retried(s):
        """DeadlineExceeded and JobStatusCheckTimeoutExceeded are never retried."""
        return not s.bad_retry_reason

    @invariant
    def p9_ttl_respected(s):
        """Clean-up deletes the RayCluster (or, with DELETE_RAYJOB_CR_AFTER_JOB_FINISHES,
        the RayJob itself) only after endTime + TTL, and keeps the RayJob and the submitter
        Job unless that variable is set; with deletion rules, each action (DeleteWorkers,
        DeleteCluster, DeleteSelf) only when a rule matching the persisted status asks
        for it, after that rule's TTL."""
        return not s.ttl_early and not s.cleanup_overreach

    @invariant
    def p10_finalizer_after_stop(s):
        """The finalizer is removed only after StopJob was attempted for a job that had not
        ended, neither in the RayJob's status nor in Ray."""
        return not s.fin_wo_stop

    @invariant
    def p10b_deleted_rayjob_ray_stopped(s):
        """Once the RayJob is gone, no Ray job of it is still pending or running (a stray
        driver on a worker included)."""
        return s._live() or (s.stray is Stray.NONE
                             and not any(r in NONTERMINAL_RECS and s.head[k.c] is not Head.NONE
                                         for k, r in s.kv.items()))

    @invariant
    def p11_effect_at_most_once(s):
        """The program's external side effect happens at most once per RayJob."""
        return s.effects <= 1

    @invariant
    def p12_single_submit_call(s):
        """At most one submit request per attempt reaches the Ray head: counted per cluster
        name (`cl_submit_calls`) as p3 counts starts, so a suspended attempt's container
        submitting late from its lingering head counts for its own attempt."""
        return max(s.cl_submit_calls.values()) <= 1

    @invariant
    def p13_complete_implies_succeeded(s):
        """Complete implies jobStatus SUCCEEDED."""
        return not s._live(Phase.COMPLETE) or s.rj.job_status is JStat.SUCCEEDED

    @invariant
    def p13b_complete_implies_stopped_or_succeeded(s):
        """Complete implies jobStatus SUCCEEDED or STOPPED."""
        return not s._live(Phase.COMPLETE) or s.rj.job_status in (JStat.SUCCEEDED, JStat.STOPPED)

    @invariant
    def p15a_no_stuck_after_submitter_finished(s):
        """A clean reconcile after the 30 s submitter-finished check leaves Running."""
        return not (s._quiet() and s._live(Phase.RUNNING) and s.job is not None
                    and s.job.cond is not JCond.NONE and s.t_subfin is Timer.FIRED)

    @invariant
    def p15b_no_stuck_deletion(s):
        """A clean reconcile of a deleted RayJob removes its finalizer."""
        return not (s._quiet() and s._live() and s.rj.deleting)

    @invariant
    def p15c_no_stuck_missing_submitter(s):
        """A clean reconcile of a Running RayJob whose submitter is gone (K8sJobMode: its
        Job; SidecarMode: the head pod it runs in) moves on (liveness gap (i) of §13.5:
        K8sJobMode does not)."""
        return not (s._quiet() and s._live(Phase.RUNNING) and s._submitter_gone()
                    and s.t_active is Timer.OFF)

    def _submitter_gone(s) -> bool:
        if s.mode is Mode.K8S:
            return s.job is None
        return s.mode is Mode.SIDECAR and s.head[s.rj_b.cluster] is Head.NONE

    @invariant
    def p15d_no_stuck_before_running(s):
        """A clean reconcile after the pre-running deadline leaves Initializing and Waiting
        (kuberay #4178: a head that never becomes ready held a RayJob in Initializing)."""
        return not (s._quiet() and s._live() and s.rj.phase in (Phase.INITIALIZING, Phase.WAITING)
                    and s.t_pre_running is Timer.FIRED)

    def _quiet(s) -> bool:
        """The operator is idle after a reconcile that saw every change, caches current."""
        return s.settled and s.pc is Pc.IDLE and not s.op_down and not s._any_behind()

    @invariant
    def p16_complete_needs_submitter(s):
        """K8sJobMode: Complete (not by the grace period) only after the submitter finished."""
        return not s.complete_wo_sub

    @invariant
    def p17_suspended_has_no_children(s):
        """A Suspended RayJob owns no RayCluster and no submitter Job."""
        return not s._live(Phase.SUSPENDED) or (s.job is None and True not in s.cl_cr.values())

    @invariant
    def p18_outcome_agrees_with_ray(s):
        """A Complete or Failed RayJob's jobStatus is terminal and, while Ray still holds
        the record of its last attempt, is what that record says (kuberay #2314: Failed
        with jobStatus RUNNING)."""
        if not s._live() or s.rj.phase not in FINISHED:
            return True
        rec = s._last_record()
        return s.rj.job_status in TERMINAL and (rec is Rec.NONE
                                                or REC_STATUS[rec] is s.rj.job_status)

    def _last_record(s) -> Rec:
        """The Ray record of the persisted attempt, NONE if no head holds it any more."""
        c, j = s.rj_b.cluster, s.rj_b.job_id
        if c is None or j is None or s.head[c] is Head.NONE:
            return Rec.NONE
        return s.kv[KvKey(c, j)]

    @invariant
    def p19_complete_ran_once(s):
        """A Complete attempt ran its driver exactly once."""
        return not s._live(Phase.COMPLETE) or s.driver_starts[Age.CUR] == 1

    @invariant
    def p20_ended_attempt_ran_its_driver(s):
        """At least once per attempt: a Complete or Failed RayJob whose jobStatus says its
        program ended (SUCCEEDED or FAILED) started a driver in its last attempt. (A
        resubmission in the same attempt is claim 3's; a retry is a new attempt.)"""
        if not s._live() or s.rj.phase not in FINISHED:
            return True
        return s.rj.job_status not in PROGRAM_ENDED or s.driver_starts[Age.CUR] >= 1

    @invariant
    def s_model_bounds(s):
        """Sanity: the id pools and attempt ghosts were large enough."""
        return not s.id_overflow

    # ------------------------------------------------------------ witnesses (issue item 14)
    def _succeeded_after_crash_in(s, phase) -> bool:
        return (s.crash_phase is phase and s._live(Phase.COMPLETE)
                and s.rj.job_status is JStat.SUCCEEDED)

    @reachable
    def w_crash_new(s):
        return s._succeeded_after_crash_in(Phase.NEW)

    @reachable
    def w_crash_initializing(s):
        return s._succeeded_after_crash_in(Phase.INITIALIZING)

    @reachable
    def w_crash_running(s):
        return s._succeeded_after_crash_in(Phase.RUNNING)

    @reachable
    def w_crash_retrying(s):
        return s._succeeded_after_crash_in(Phase.RETRYING)

    @reachable
    def w_retry(s):
        return s.retries >= 1

    @reachable
    def w_lost_create_recovered(s):
        return s.recovered and s._live(Phase.COMPLETE)

    @reachable
    def w_ttl_cleanup(s):
        return s.ttl_cleanup

    @reachable
    def w_deletion_finishes(s):
        return s.finalizer_removed

    @reachable
    def w_resume_completes(s):
        return s.resumed and s._live(Phase.COMPLETE)

    @reachable
    def w_deadline(s):
        return s._live(Phase.FAILED) and s.rj.reason is Reason.DEADLINE
