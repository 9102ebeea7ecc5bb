"""Mutants: small, realistic bugs, each a subclass of the faithful spec that changes one
actor's behaviour the way a real bug (or an old KubeRay / Ray version) did. The tests show
that some property catches each of them, with a short counterexample.
"""
from checker import action, fault, require

from .spec import RayJob
from .types import (WRITES, ClStat, Head, JobView, JStat, Kind, KvKey, Mode, Pc, Phase, PodSlot,
                    Reason, Rec, Result, SubPc, Timer)


class SubmitBeforeIdentity(RayJob):
    """M1, kuberay #756: HTTPMode submitted in Initializing with a jobId generated in
    memory, before any status write persisted it; a lost or failed status write made the
    next reconcile generate another id and submit again."""

    def _init_status(s):
        super()._init_status()
        s._set_b(job_id=None)

    def _cluster_found(s, cl_status):
        if s.mode is Mode.HTTP and (s.m_b.dash or cl_status is ClStat.READY):
            if s.m_b.job_id is None:
                s._set_b(dash=True, job_id=s._draw_job())
                s.pc = Pc.SUBMIT_JOB
                return
        super()._cluster_found(cl_status)

    def _after_submit(s, ok):
        if ok and s.m_h.phase is Phase.INITIALIZING:
            s._set(phase=Phase.RUNNING)
            s._finish()
        else:
            super()._after_submit(ok)


class ClusterNameInInitializing(RayJob):
    """M2, the bug PR #1737 fixed: the RayCluster name is generated in Initializing, in
    memory, and only persisted by a later status write; a reconcile that ends first (the
    Create's empty status is no key-field change) names and creates another cluster."""

    def _init_status(s):
        super()._init_status()
        s._set_b(cluster=None)

    def _initializing(s):
        if s.m_b.cluster is None and not (s.m_h.suspend or s.t_active is Timer.FIRED):
            s._set_b(cluster=s._draw_cluster())
        super()._initializing()


class PutOverwrite(RayJob):
    """M3: Ray's submit with `put_info(overwrite=True)`: a duplicate submission id replaces
    the record and starts the entrypoint again instead of being rejected."""

    def _ray_submit(s, k):
        s._count_for_attempt(s.submit_calls, s.cl_submit_calls, k.c)
        s.kv[k] = Rec.PENDING
        return True


class RetryingNoWait(RayJob):
    """M4, Retrying not waiting for NotFound (C:383-387 missing): the RayCluster Delete is
    fire-and-forget, its error ignored, and the identity reset in the same reconcile, so
    the next attempt starts while the old cluster may still exist."""

    @fault(group="write_fail")
    def write_fails(s):
        require(s.budget > 0 and s.pc in WRITES)
        s._fault()
        if s.pc is Pc.DELETE_CLUSTER and s.m_h.phase in (Phase.RETRYING, Phase.SUSPENDING):
            s._reset_identity()
            s._finish()
        else:
            s._end(Result.ERROR)


class NoStatusGuard(RayJob):
    """M5, kuberay #2154/#2317 (before #2579): the submitter pod always submits; a retried
    pod's duplicate submission fails and the K8s Job fails although the Ray job runs."""

    @action(group="submitter")
    def sub_status(s, p: PodSlot):
        require(s._at(p, SubPc.STATUS))
        s._event()
        s._move(p, SubPc.SUBMIT)


class NoSubmissionId(RayJob):
    """M6: `ray job submit` without `--submission-id` (J:188-190): Ray generates an id, so
    the pod follows a job that does not exist, fails, and its retry submits again."""

    def _ray_submit(s, k):
        return super()._ray_submit(KvKey(k.c, s._draw_job()))


class PreFix3903(RayJob):
    """M7, kuberay #3903/#3860 before PR #4080: no "404 and submitter finished" failure
    and no 30 s submitter-finished check; a lost Ray record leaves the RayJob Running."""

    def _record_lost(s):
        return False

    def _submitter_timed_out(s, finished):
        return False


class RetryAllReasons(RayJob):
    """M8: the backoff check retries every reason, DeadlineExceeded included (C:543-552
    missing)."""

    def _retries(s, failed):
        return s.m_h.phase is Phase.FAILED and failed < s.backoff_limit + 1


class StopJobFatal(RayJob):
    """M9, from the PR #4850 review: a StopJob error aborts the deletion instead of being
    logged; a job deleted before its submission gets 404 forever, the finalizer stays."""

    def _stop_job(s):
        if not super()._stop_job():
            s._end(Result.ERROR)
        return True


class NoStopOnDelete(RayJob):
    """M10: the deletion branch removes the finalizer without calling StopJob."""

    def _deletion(s):
        s.pc = Pc.FIN_REMOVE


class StatusUpdateNoVersion(RayJob):
    """M11: the status is written without the resourceVersion check (a patch, or a
    retry-on-conflict loop), so a reconcile that read a stale RayJob overwrites a newer
    status."""

    def _version_matches(s):
        return s.rj is not None


class RunningRecreatesJob(RayJob):
    """M12, a naive fix of liveness gap (i): Running re-creates a missing submitter Job."""

    def _submitter_check(s):
        if s.mode is Mode.K8S and s._read(Kind.JOB) is JobView.ABSENT:
            s.pc = Pc.CREATE_JOB
        else:
            super()._submitter_check()


class BackoffOffByOne(RayJob):
    """M13: retries while failed <= backoffLimit + 1, one attempt too many."""

    def _retries(s, failed):
        return super()._retries(failed - 1)


class NoFinishedAtGuard(RayJob):
    """M14, kuberay #1919: K8sJobMode takes Ray's terminal status without waiting for the
    submitter to finish."""

    def _submitter_done(s):
        return True


class TTLIgnored(RayJob):
    """M15: Complete/Failed cleans up without waiting for endTime + TTL."""

    def _ttl_expired(s):
        return True


class TTLDeletesSubmitter(RayJob):
    """M16, the documented (ray PR #50603) but not implemented behaviour: TTL clean-up
    also deletes the submitter Job."""

    def _after_cluster_delete(s):
        if s.m_h.phase in (Phase.COMPLETE, Phase.FAILED) and s.job is not None:
            s.ttl_cleanup = True
            s.pc = Pc.DELETE_JOB
        else:
            super()._after_cluster_delete()


class Eager404Fail(RayJob):
    """M17, kuberay #4027 taken as a failure: a 404 before the submitter submitted fails
    the RayJob (AppFailed) instead of requeueing."""

    def _record_lost(s):
        return True


class FailedMapsToComplete(RayJob):
    """M18: the terminal mapping treats every terminal Ray status as Complete (the FAILED
    case of C:334-349 missing), so a failed program is never retried."""

    def _map_terminal(s, status):
        s._set(phase=Phase.COMPLETE)


class SuspendedRequeues(RayJob):
    """M19, kuberay #4416 before #4443: Suspended requeues every 3 s. Benign: only the
    reconcile result differs, every verdict is the same (an equivalent mutant)."""

    def _suspended(s):
        if s.m_h.suspend:
            s._end(Result.REQUEUE)
        else:
            super()._suspended()


class SelfDeleteIgnoresTTL(RayJob):
    """M20: with DELETE_RAYJOB_CR_AFTER_JOB_FINISHES the RayJob is deleted as soon as it
    finishes: the variable is tested before the TTL (C:1519-1538 in the wrong order)."""

    def _finished(s):
        if s.shutdown_after_finishes and s.delete_rj_after_finish:
            s.pc = Pc.DELETE_RJ
        else:
            super()._finished()


class SidecarHeadRecreated(RayJob):
    """M21, kuberay #4234 ("Sidecar mode shouldn't restart head pod when head pod is
    deleted") before its fix: without `ray.io/disable-provisioned-head-restart` the
    RayCluster controller re-creates a lost head pod from the RayCluster's template even
    once the cluster is provisioned, and its submitter container submits the same id
    again, to an empty GCS."""

    def _head_after_restart(s, c, container):
        if s.mode is not Mode.SIDECAR or not s.cl_cr[c]:
            super()._head_after_restart(c, container)
            return
        s._set_cluster(c, True, Head.STARTING)
        s._sidecar_starts(c, container.job_id)


class SidecarMissingHeadIgnored(RayJob):
    """M22: SidecarMode does not fail a RayJob whose head pod is gone (C:1084-1091
    missing): GetJobInfo fails until the 300 s status-check timeout fails it for good
    (not retried), though a retry would have run the job."""

    def _sidecar_check(s):
        if s.head[s.m_b.cluster] is Head.NONE:
            s._after_submitter_check(False, False)
        else:
            super()._sidecar_check()


class SidecarRestartNoStatusCheck(RayJob):
    """M23: the SidecarSubmitterRestart gate restarts the container, but its script keeps
    the gate-less blocking submit without `ray job status` first (J:154-158 not updated):
    the restarted container's duplicate submit is rejected, it fails again, and two
    restarts fail the RayJob while its Ray job runs."""

    def _sidecar_first_step(s):
        return SubPc.SUBMIT


class RulesIgnoreTTL(RayJob):
    """M24: deletion rules run as soon as they match, their ttlSeconds ignored (the
    `nowTime.Before(deletionTime)` test of C:1425-1433 missing)."""

    def _overdue_rules(s):
        return [r for r in s._matched_rules() if not s._rule_done(r.policy)]


class RulesIgnoreCondition(RayJob):
    """M25: every deletion rule applies whatever the RayJob's status
    (isDeletionRuleMatched, C:1589-1596, missing): a DeleteSelf meant for FAILED jobs
    deletes a RayJob that succeeded."""

    def _matched_rules(s):
        return list(s._rules())


class InteractiveDrawsJobId(RayJob):
    """M26: initRayJobStatusIfNeed draws a jobId in InteractiveMode too (the mode test of
    C:895-901 missing): Waiting then replaces it with spec.jobId, within the attempt."""

    def _init_status(s):
        super()._init_status()
        if s.m_b.job_id is None:
            s._set_b(job_id=s._draw_job())


class PreRunningDeadlineIgnored(RayJob):
    """M27, kuberay #4178 before PR #4525 added preRunningDeadlineSeconds: nothing ends
    an Initializing RayJob whose head never becomes ready but suspend and the active
    deadline (set for the whole run, and never retried)."""

    def _pre_running_expired(s):
        return False


class ValidateBeforeDeletion(RayJob):
    """M28: validation before the deletion branch (C:112-139 and C:145-162 swapped): a
    RayJob whose spec became invalid can no longer be deleted, its finalizer stays."""

    def _deletion(s):
        if s.m_h.valid:
            super()._deletion()
        else:
            s._validation_failed()


class SubmitterFailureFailsJob(RayJob):
    """M29, a naive fix of kuberay #2314 (Failed with jobStatus RUNNING): a failed
    submitter also writes jobStatus FAILED, as if Ray had failed the program, so a RayJob
    whose program never started reads as run and failed (claim 20)."""

    def _fail_submitter(s):
        s._set(job_status=JStat.FAILED)
        s._fail(Reason.APP_FAILED)


class ExLeaderUnfenced(RayJob):
    """M30, two operator replicas: a paused ex-leader's RayJob writes are not fenced (a
    retry-on-conflict loop that re-reads the RayJob and re-applies the status computed
    before the failover), so its stale status overwrites the new leader's: the identity
    it drew replaces the one the new attempt persisted (claim 4)."""

    def _ex_leader_step(s):
        s.m_fresh = s.rj is not None               # the ex-leader's copy, swapped in
        super()._ex_leader_step()


ALL = [SubmitBeforeIdentity, ClusterNameInInitializing, PutOverwrite,
       RetryingNoWait, NoStatusGuard, NoSubmissionId, PreFix3903, RetryAllReasons,
       StopJobFatal, NoStopOnDelete, StatusUpdateNoVersion, RunningRecreatesJob,
       BackoffOffByOne, NoFinishedAtGuard, TTLIgnored, TTLDeletesSubmitter, Eager404Fail,
       FailedMapsToComplete, SuspendedRequeues, SelfDeleteIgnoresTTL, SidecarHeadRecreated,
       SidecarMissingHeadIgnored, SidecarRestartNoStatusCheck, RulesIgnoreTTL,
       RulesIgnoreCondition, InteractiveDrawsJobId, PreRunningDeadlineIgnored,
       ValidateBeforeDeletion, SubmitterFailureFailsJob, ExLeaderUnfenced]
