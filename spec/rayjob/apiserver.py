"""The API server and the garbage collector: what a write does once it is applied.

Counters and history ghosts are kept here, by the actor that applies the effect, whatever
response the caller then sees (a lost response still counts). The clock's timers are armed
here too, when the write that records their start time is applied.

Fairness: the garbage collector (kube-controller-manager's garbagecollector, owner
references) and the kubelet deleting a deleted object's pods are weakly fair.
"""
from checker import action, require

from checker import kubernetes

from .state import RayJobState
from .types import (EMPTY, Age, ClusterId, Head, JCond, JobObj, Kind, Phase, PodSlot, Rank, Reason,
                    SubPc, SubPod, Timer, NOT_RETRIED)

FINISHED = (Phase.COMPLETE, Phase.FAILED)


class ApiServer(RayJobState, kubernetes.ApiServer):
    def _apply_status(s, new_h, new_b):
        """A status update is applied: persist it, arm timers, record attempts."""
        old_h, old_b = s.rj, s.rj_b
        s._write_rj(new_h, new_b, own=True)
        if old_h.phase is Phase.NEW and new_h.phase is Phase.INITIALIZING:
            s._begin_attempt()
        if s.attempted and s.att_cluster is None and new_b.cluster is not None:
            s.att_cluster = new_b.cluster          # first persisted in this attempt
        if s.attempted and s.att_job is None and new_b.job_id is not None:
            s.att_job = new_b.job_id
        if old_h.phase is Phase.SUSPENDED and new_h.phase is Phase.NEW:
            s.resumed = True
        if old_h.phase is Phase.RETRYING and new_h.phase is Phase.NEW:
            s.retries = min(s.retries + 1, s.backoff_limit + 1)
        if new_h.phase in (Phase.FAILED, Phase.RETRYING) and s.attempted:
            s.att_failed[Age.CUR] = True
            if new_h.phase is Phase.RETRYING and new_h.reason in NOT_RETRIED:
                s.bad_retry_reason = True
        if new_h.phase in FINISHED and old_h.phase not in FINISHED:
            s.t_ttl = Timer.FIRED if s.ttl is Rank.OFF else Timer.ARMED      # endTime
            s._arm_rule_timers()
            if (new_h.phase is Phase.COMPLETE and new_h.reason is Reason.NONE
                    and s.job is not None and s.job.cond is JCond.NONE):
                s.complete_wo_sub = True
        if new_b.chk_fail != old_b.chk_fail:
            s.t_chk = Timer.ARMED if new_b.chk_fail else Timer.OFF
        if new_b.ray_end != old_b.ray_end:
            s.t_grace = Timer.ARMED if new_b.ray_end else Timer.OFF

    def _begin_attempt(s):
        """New -> Initializing applied: a new attempt (or incarnation), whose identity is
        the one this write persists; startTime = now re-arms the active and pre-running
        deadlines."""
        s._age_attempts()
        s.att_cluster = s.att_job = None
        if s.active_deadline is not Rank.OFF:
            s.t_active = Timer.ARMED
        if s.pre_running_deadline is not Rank.OFF:
            s.t_pre_running = Timer.ARMED

    def _apply_cluster_create(s, c):
        """Create(RayCluster) applied. A same-name cluster whose old pods still linger
        takes them over: the head restarts with an empty GCS (S11)."""
        if s.cl_attempt[c] is None and s.attempted:
            s.cl_attempt[c] = Age.CUR
            s.two_names = s.two_names or s.named
            s.named = True
        s._bump(s.cl_creates, s.cl_attempt[c])
        others = [o for o in ClusterId if o is not c]
        s.pod_overlap = s.pod_overlap or any(s.head[o] is not Head.NONE for o in others)
        s.cr_overlap = s.cr_overlap or any(s.cl_cr[o] for o in others)
        if s.head[c] is not Head.NONE:
            s._head_stops(c, keep_records=False)
        s._set_cluster(c, True, Head.STARTING)

    def _apply_job_create(s, c, j):
        """Create(Job) applied; the Job controller starts its first pod at once (S12)."""
        s._bump(s.job_creates, s._current())
        s.job_ident_bad = s.job_ident_bad or (c, j) != (s.att_cluster, s.att_job)
        s._set_job(JobObj(JCond.NONE, 0, c, j))
        s.pods[PodSlot.CUR] = SubPod(SubPc.STATUS, c, j)
        s.t_subfin = Timer.OFF

    def _remove_job(s):
        """Delete(Job, Background): the Job is gone at once, its pod lingers (S5: at most
        one lingering submitter pod is kept)."""
        s._set_job(None)
        if s.pods[PodSlot.CUR] is not None:
            s.pods[PodSlot.OLD], s.pods[PodSlot.CUR] = s.pods[PodSlot.CUR], None

    def _cr_deleted(s, c: ClusterId):
        """A RayCluster CR is deleted. Its pods are deleted in the background (§6.3), so
        its head lingers, except with GCS fault tolerance: then the RayCluster controller's
        Redis clean-up finalizer deletes the head pod, waits until it is gone, wipes the
        GCS records (a clean-up Job) and only then lets the CR go (§6.3). The CR becomes
        NotFound with no head and no records; the spec folds that wait into the deletion:
        while it lasts the CR still exists, which is what the RayJob controller sees
        anyway (a RayCluster being deleted counts as not deleted, C:798-834), and the
        terminating head no longer serves."""
        if s.gcs_ft:
            s._head_deleted(c)
        s._set_cluster(c, False, s.head[c])
        s.provisioned[c] = s.workers_suspended[c] = False

    def _remove_rj(s):
        s._write_rj(None, EMPTY)

    def _user_or_owner_delete(s):
        """Delete(RayJob): with the finalizer it only gets a deletionTimestamp."""
        if s.rj.finalizer:
            s._write_rj(s.rj._replace(deleting=True), s.rj_b)
        else:
            s._remove_rj()

    # ------------------------------------------------------------ the garbage collector
    # The library's, in one step (`_collect_orphans`, GC_IN_ONE_STEP) over RayJob's objects:
    # a RayCluster by its ClusterId, the Job and the Service by their Kind.
    garbage_collect = None      # over the controller's Ref: taken below as gc_children

    def _to_collect(s) -> list:
        """The RayJob owns its RayClusters, submitter Job and Service (ownerReferences,
        §11): once it is gone, each of them that exists, the RayClusters first."""
        exists = {**{c: s.cl_cr[c] for c in ClusterId},
                  Kind.JOB: s.job is not None, Kind.SERVICE: s.svc is not None}
        return [k for k in exists if exists[k]] if s.rj is None else []

    def _delete(s, k):
        """The garbage collector's Delete(Background) of `k`, which exists: an event; its
        pods linger."""
        s._event()
        if k is Kind.JOB:
            s._remove_job()
        elif k is Kind.SERVICE:
            s.svc = None
        else:
            s._cr_deleted(k)

    @action(group="apiserver", fair="weak")
    def gc_children(s):
        """Models the garbage collector (owner references, §11): the RayJob is gone, so its
        RayClusters, submitter Job and Service are deleted (background: pods linger)."""
        s._collect_orphans()

    @action(group="apiserver", fair="weak")
    def gc_cluster_pods(s, c: ClusterId):
        """Models background deletion of a deleted RayCluster's pods (§6.3): the head and
        its GCS (job records included) go away after the CR."""
        require(not s.cl_cr[c] and s.head[c] is not Head.NONE)
        s._event()
        s._head_deleted(c)

    @action(group="apiserver", fair="weak")
    def gc_old_pod(s):
        """Models the lingering submitter pod of a deleted Job finally being deleted."""
        require(s.pods[PodSlot.OLD] is not None)
        s._event()
        s.pods[PodSlot.OLD] = None
