"""The KubeRay operator: `RayJobReconciler.Reconcile` as one atomic step per external call.

`op_start` reads the RayJob from the cache and runs the local computation of the branch up
to its first API-server or dashboard call; each call's step (`@call_step`) performs that
call and the computation after it, up to the next call or the end of the reconcile, and
the library makes it the action `op_<call>` (`_create_cluster` is `op_create_cluster`).
So every call is a crash point (reference §13.3), and cache reads happen where the Go
code reads. `op_start` and the per-call actions are the library's (checker/kubernetes/
operator.py: `IDLE_RECONCILES`, over `_take_key` and `_reconcile`; `CallSteps`). The
line numbers are those of `rayjob_controller.go` (C:), `job.go` (J:) and the dashboard
client (D:) as cited in the reference.

Fairness (liveness): `op_start` is weakly fair only where a reconcile is owed
(`RayJobState._reconcile_owed`: the last Reconcile returned RequeueAfter or an error, or
a watched object changed); once started, Reconcile runs to its return, so every later
step is weakly fair (a crash or outage in between is a fault).
"""
from checker import action

from checker import kubernetes

from .state import RayJobState
from .types import (CR_STATUS, DRAWN_JOB_IDS, NONTERMINAL_RECS, NOT_RETRIED, REC_STATUS,
                    SUBMITTER_MODES, TERMINAL,
                    CacheSt, ClStat, ClusterId, CrView, Head, JobId, JobView, JStat, Kind, KvKey,
                    Legacy, Mode, Pc, Phase, Policy, Reason, Rec, Result, Rules, Timer, key)


class Operator(RayJobState, kubernetes.CallSteps):
    # ------------------------------------------------------------ in-memory edits
    def _set(s, **fields):
        s.m_h = s.m_h._replace(**fields)

    def _set_b(s, **fields):
        s.m_b = s.m_b._replace(**fields)

    def _fail(s, reason: Reason):
        s._set(phase=Phase.FAILED, reason=reason)

    # ------------------------------------------------------------ Reconcile
    # The library's `op_start` (checker/kubernetes/operator.py) with IDLE_RECONCILES: a
    # reconcile may start whenever the operator is idle, fair where `_reconcile_owed`;
    # taking the key is starting clean (`m_clean`), as RayJob keeps "owed" in
    # `settled`, `m_clean` and `last_result` rather than in `queued`. Called, not
    # inherited: the library's class would be the action's actor (the lane of trace
    # diagrams) and bring `op_call`, which RayJob names per call.
    IDLE_RECONCILES = True

    @action(group="reconcile", fair="weak", fair_when=RayJobState._reconcile_owed,
            calls="informer cache")
    def op_start(s):
        """Models Reconcile (C:89-165): read the RayJob from the informer cache (NotFound:
        return {}), the deletion branch, keep a copy of its status (C:142), validate it,
        then the branch up to its first call. The constants are valid specs (S1); only a
        user's edit (`user_edits_spec`) makes one invalid."""
        kubernetes.OperatorProcess.op_start(s)

    def _take_key(s):
        s.m_clean = True

    def _reconcile(s):
        h, b = s._read(Kind.RAYJOB)
        if h is None:
            s._end(Result.WAIT)
            return
        s.m_h, s.m_b, s.m_orig = h, b, key(h, b)
        if h.deleting:
            s._deletion()
        elif s._may_be_invalid() and not h.valid:
            s._validation_failed()
        else:
            getattr(s, BRANCH[h.phase])()

    def _may_be_invalid(s) -> bool:
        """Only a user's edit makes the spec invalid, and it spends budget: without the
        `user_edit` group or a budget the check is left out, which spares the symbolic
        engines a branch in every reconcile, and the proofs a lemma saying the spec stays
        valid."""
        return s.editable and s.F > 0

    def _validation_failed(s):
        """validateRayJob failed (C:145-162): ValidationFailed in memory, written only if
        the phase changes (W#1, no backoff check), then `{}`."""
        s._set(phase=Phase.VALIDATION_FAILED, reason=Reason.VALIDATION)
        if key(s.m_h, s.m_b) != s.m_orig:
            s.pc = Pc.STATUS_WRITE
        else:
            s._end(Result.WAIT)

    def _unknown_phase(s):
        """The default case (C:448-450): ValidationFailed has no branch, so once persisted
        it stays, even after the spec is fixed; RequeueAfter 3 s forever."""
        s._end(Result.REQUEUE)

    def _finish(s):
        """`break` out of the switch: checkBackoffLimitAndUpdateStatusIfNeeded (C:452), then
        updateRayJobStatus writes only if a key field changed (C:925-933, C:456-461)."""
        s._backoff()
        if key(s.m_h, s.m_b) != s.m_orig:
            s.pc = Pc.STATUS_WRITE
        else:
            s._end(Result.REQUEUE)

    def _backoff(s):
        """checkBackoffLimitAndUpdateStatusIfNeeded (C:518-557), in memory."""
        h, b = s.m_h, s.m_b
        failed = b.failed + (h.phase is Phase.FAILED)
        succeeded = min(1, b.succeeded + (h.job_status is JStat.SUCCEEDED
                                          and h.phase is Phase.COMPLETE))
        s._set_b(failed=failed, succeeded=succeeded)
        if s._retries(failed):
            s._set(phase=Phase.RETRYING)

    def _retries(s, failed) -> bool:
        """C:542-555: retry a Failed attempt while failed < backoffLimit + 1, unless the
        reason is DeadlineExceeded or JobStatusCheckTimeoutExceeded."""
        return (s.m_h.phase is Phase.FAILED and failed < s.backoff_limit + 1
                and s.m_h.reason not in NOT_RETRIED)

    # ------------------------------------------------------------ deletion (C:112-139)
    def _deletion(s):
        """deletionTimestamp set: StopJob unless the persisted jobStatus is terminal (C:116);
        building the dashboard client never fails here (S8)."""
        s.pc = Pc.FIN_REMOVE if s.m_h.job_status in TERMINAL else Pc.STOP_JOB

    @kubernetes.call_step(Pc.STOP_JOB, calls="Ray head")
    def _stop_job(s) -> bool:
        """Models StopJob (D:303-339) called at C:123-129: errors (404, unreachable head,
        empty dashboardURL) are only logged; then the finalizer is removed. True if the
        head accepted the request (404 and unreachable heads are errors)."""
        s.stop_attempted = True
        k = s._dashboard_key()
        reached = k is not None and s.kv[k] is not Rec.NONE
        if reached:
            s._ray_stop(k)
        s.pc = Pc.FIN_REMOVE
        return reached

    @kubernetes.call_step(Pc.FIN_REMOVE)
    def _fin_remove(s) -> bool:
        """Models r.Update removing the finalizer (C:132-137); the RayJob then disappears."""
        if not s.m_fresh:
            s._end(Result.ERROR)                       # 409 Conflict / NotFound
            return False
        if not s.stop_attempted and (s.rj.job_status not in TERMINAL or s._ray_job_running()):
            s.fin_wo_stop = True
        s._remove_rj()
        s.finalizer_removed = True
        s._end(Result.REQUEUE)
        return True

    def _ray_job_running(s) -> bool:
        """Ghost view for claim 10: the persisted attempt's Ray job has not ended (its
        record is pending or running on a head that still exists), whatever the status
        says (C:1263-1286 may have written jobStatus FAILED while it runs)."""
        c, j = s.rj_b.cluster, s.rj_b.job_id
        return (c is not None and j is not None and s.head[c] is not Head.NONE
                and s.kv[KvKey(c, j)] in NONTERMINAL_RECS)

    # ------------------------------------------------------------ New (C:166-178)
    def _new(s):
        if not s.m_h.finalizer:
            s.pc = Pc.FIN_ADD
        else:
            s._init_status()
            s._finish()

    @kubernetes.call_step(Pc.FIN_ADD)
    def _fin_add(s) -> bool:
        """Models r.Update adding ray.io/rayjob-finalizer (C:167-174); on success the copy
        takes the new resourceVersion, initRayJobStatusIfNeed runs and W#2 follows."""
        if not s.m_fresh:
            s._end(Result.ERROR)
            return False
        s._write_rj(s.rj._replace(finalizer=True), s.rj_b, own=True)
        s._set(finalizer=True)
        s._init_status()
        s._finish()
        return True

    def _init_status(s):
        """initRayJobStatusIfNeed (C:887-917): a fresh jobId (or spec.jobId) and cluster
        name, Initializing; startTime is set when the write is applied."""
        b = s.m_b
        job_id = b.job_id
        if job_id is None and s.mode is not Mode.INTERACTIVE:      # Waiting sets it (C:896)
            job_id = JobId.JS if s.spec_job_id else s._draw_job()
        cluster = b.cluster or s._draw_cluster()
        s._set_b(job_id=job_id, cluster=cluster)
        s._set(job_status=JStat.NEW, phase=Phase.INITIALIZING)

    def _draw_cluster(s) -> ClusterId:
        """GenerateRayClusterName (U:369-371): a random suffix, never seen before. Only
        equality of names is observable, so a name that nothing refers to any more is as
        good as a fresh one: the lowest such name is taken (a symmetry reduction that keeps
        the pool finite however many attempts there are). Taking the lowest makes no name
        special where the unused names are alike, their ghosts too (another would give a
        renaming of the same state); an unused name's `cl_attempt` is not reset, so the
        pool is a symmetric set for `[check] symmetry` only where they are (package
        docstring)."""
        c = s._draw(tuple(ClusterId), s._cluster_in_use)
        s.cl_attempt[c] = None                     # ghosts: the name starts afresh
        s.cl_driver_starts[c] = s.cl_submit_calls[c] = 0
        return c

    def _draw_job(s) -> JobId:
        """GenerateRayJobId (U:374-376): lowest id nothing refers to, as for cluster names."""
        return s._draw(DRAWN_JOB_IDS, s._job_id_in_use)

    def _draw(s, pool, in_use):
        """The lowest name of `pool` not in use; when every one is, the lingering heads
        nothing needs are retired first (`_retire`), which frees their names and the ids
        of their records."""
        for _ in range(2):
            for name in pool:
                if not in_use(name):
                    return name
            if not s._retire_inert():
                break
        s.id_overflow = True
        return pool[-1]

    def _cluster_in_use(s, c: ClusterId) -> bool:
        """Does any object, cache view, job record, status, memory or ghost identity name c?"""
        return (s._cluster_named(c) or s.head[c] is not Head.NONE
                or any(s.kv[k] is not Rec.NONE for k in s._keys(c)))

    def _cluster_named(s, c: ClusterId) -> bool:
        """Does anything but c's own head and GCS name c?"""
        return (c in (s.rj_b.cluster, s.rj_prev_b.cluster, s.rj_older_b.cluster, s.m_b.cluster,
                      s.att_cluster, s.svc)
                or s.ex_b.cluster is c
                or s.cl_cr[c] or s.cl_cache[c] is CacheSt.BEHIND
                or s.cl_prev[c] is not CrView.ABSENT or s.cl_older[c] is not CrView.ABSENT
                or (s.job is not None and s.job.target is c)
                or any(p is not None and p.target is c for p in s.pods.values()))

    def _retire_inert(s) -> bool:
        retired = False
        for c in ClusterId:
            retired = s._retire(c) or retired
        return retired

    def _retire(s, c: ClusterId) -> bool:
        """When every name is taken, each lingering head that nothing names, whose job
        records are all terminal and whose sidecar submitter (if any) can no longer submit
        (it exited, or follows a job that ended: it can only exit) is deleted
        now (gc_cluster_pods, which may happen at any time) so that its name can be drawn
        again. Nothing but its deletion could happen
        to it: no call reaches it, no driver runs on it (a following sidecar's exit
        changes nothing once its RayCluster is gone). Only claim 5b could see it alive
        at the next create, so that overlap is recorded here (it may flag, never hide).
        Without this, a garbage collector slower than four attempts overflows the pool.
        True if c was retired."""
        if s._cluster_named(c) or s.head[c] is Head.NONE or s._sidecar_may_submit(c):
            return False
        if any(s.kv[k] in NONTERMINAL_RECS for k in s._keys(c)):
            return False
        s._head_deleted(c)
        s.pod_overlap = True
        return True

    def _job_id_in_use(s, j: JobId) -> bool:
        return (j in (s.rj_b.job_id, s.rj_prev_b.job_id, s.rj_older_b.job_id, s.m_b.job_id,
                      s.att_job)
                or s.ex_b.job_id is j
                or (s.job is not None and s.job.job_id is j)
                or s.mode is Mode.SIDECAR and any(sc is not None and sc.job_id is j
                                                  for sc in s.sidecar.values())
                or any(p is not None and p.job_id is j for p in s.pods.values())
                or any(s.kv[k] is not Rec.NONE for k in s.kv if k.j is j))

    # ------------------------------------------------------------ Initializing (C:179-236)
    def _initializing(s):
        if s._suspend_or_deadline():
            return
        view = s._read_cluster(s.m_b.cluster)
        if view is CrView.ABSENT:
            s.pc = Pc.CREATE_CLUSTER
        else:
            s._cluster_found(CR_STATUS[view])

    def _suspend_or_deadline(s) -> bool:
        """updateStatusToSuspendingIfNeeded (C:1043-1060) and the active deadline
        (C:1234-1245), the first checks of Initializing and Running; then, before Running,
        the pre-running deadline (C:1249-1261), retried unlike the active one."""
        if s.m_h.suspend:
            s._set(phase=Phase.SUSPENDING)
        elif s.t_active is Timer.FIRED:
            s._fail(Reason.DEADLINE)
        elif s.m_h.phase is not Phase.RUNNING and s._pre_running_expired():
            s._fail(Reason.PRE_RUNNING)
        else:
            return False
        s._finish()
        return True

    def _cluster_found(s, cl_status: ClStat):
        """C:208-236 after getOrCreateRayClusterInstance: wait for Ready, take the
        dashboard URL, then (K8sJobMode) createK8sJobIfNeed, and go Running."""
        if not s.m_b.dash:
            if cl_status is not ClStat.READY:
                s._set_b(cl_status=cl_status)
                s._finish()
                return
            s._set_b(dash=True)                 # FetchHeadServiceURL (U:1022-1054)
        if s.mode is Mode.INTERACTIVE:
            s._set(phase=Phase.WAITING)         # C:224-227
            s._finish()
            return
        if s.mode is Mode.K8S and s._read(Kind.JOB) is JobView.ABSENT:
            s.pc = Pc.CREATE_JOB
            return
        s._set(phase=Phase.RUNNING)             # a found Job is not checked (C:562-583)
        s._finish()

    def _pre_running_expired(s) -> bool:
        """checkPreRunningDeadlineAndUpdateStatusIfNeeded (C:1249-1261): now >= startTime
        + preRunningDeadlineSeconds, in Initializing and Waiting."""
        return s.t_pre_running is Timer.FIRED

    @kubernetes.call_step(Pc.CREATE_CLUSTER)
    def _create_cluster(s) -> bool:
        """Models getOrCreateRayClusterInstance's Create (C:947-995, C:977): by the persisted
        name, so a repeated create gets AlreadyExists (an error, requeue)."""
        c = s.m_b.cluster
        if s.cl_cr[c]:
            s.recovered = s.recovered or s.lost_create
            s._end(Result.ERROR)
            return False
        s._apply_cluster_create(c)
        if s.mode is Mode.SIDECAR:
            s._sidecar_starts(c, s.m_b.job_id)  # the container built into the head (C:1026)
        if s.m_h.phase is Phase.INITIALIZING:
            s._cluster_found(ClStat.NONE)       # the returned object has an empty status
        else:
            s.m_cl = ClStat.NONE
            s._services()
        return True

    @kubernetes.call_step(Pc.CREATE_JOB)
    def _create_job(s) -> bool:
        """Models createNewK8sJob (C:716-756, C:748): the submitter Job named after the
        RayJob, with the dashboard address and submission id frozen into its env
        (C:650-656); then Running (C:236) and W#2."""
        if s.job is not None:
            s.recovered = s.recovered or s.lost_create
            s._end(Result.ERROR)
            return False
        s._apply_job_create(s.m_b.cluster, s.m_b.job_id)
        s._set(phase=Phase.RUNNING)
        s._finish()
        return True

    # ------------------------------------------------------------ Running (C:249-365)
    def _running(s):
        h, b = s.m_h, s.m_b
        if s._suspend_or_deadline():
            return
        if h.job_status in TERMINAL and b.ray_end and s.t_grace is Timer.FIRED:
            # checkTransitionGracePeriodAndUpdateStatusIfNeeded (C:1366-1394)
            s._set(phase=Phase.FAILED if h.job_status is JStat.FAILED else Phase.COMPLETE,
                   reason=Reason.GRACE)
            s._finish()
        elif b.chk_fail and s.t_chk is Timer.FIRED:
            s._fail(Reason.CHK_TIMEOUT)         # C:1336-1354
            s._finish()
        else:
            view = s._read_cluster(b.cluster)
            if view is CrView.ABSENT:
                s.pc = Pc.CREATE_CLUSTER        # re-created under the same name (C:267-271)
            else:
                s.m_cl = CR_STATUS[view]
                s._services()

    def _services(s):
        """reconcileServices (C:665-713): create the head Service, or repoint it."""
        if s.svc is None:
            s.pc = Pc.CREATE_SVC
        elif s.svc is not s.m_b.cluster:
            s.pc = Pc.UPDATE_SVC
        else:
            s._submitter_check()

    @kubernetes.call_step(Pc.CREATE_SVC)
    def _create_svc(s) -> bool:
        """Models the head Service Create (C:705)."""
        if s.svc is not None:
            s._end(Result.ERROR)                # AlreadyExists
            return False
        return s._write_svc()

    @kubernetes.call_step(Pc.UPDATE_SVC)
    def _update_svc(s) -> bool:
        """Models the head Service Update to the current cluster (C:693)."""
        return s._write_svc()

    def _write_svc(s) -> bool:
        """The Service now points at the attempt's cluster; on to the submitter check."""
        s.svc = s.m_b.cluster
        s.m_clean = False
        s._submitter_check()
        return True

    def _submitter_check(s):
        """checkSubmitterAndUpdateStatusIfNeeded (C:1062-1199) and the 30 s
        submitter-finished check (C:1263-1286, C:278-292), K8sJobMode and SidecarMode."""
        if s.mode is Mode.K8S:
            s._job_check()
        elif s.mode is Mode.SIDECAR:
            s._sidecar_check()
        else:
            s.pc = Pc.GET_JOB_INFO

    def _job_check(s):
        """K8sJobMode (C:1138-1199): the Job by name (NotFound is an error: it is never
        re-created in Running, C:282-284); a Job with Failed=True fails the RayJob."""
        view = s._read(Kind.JOB)
        if view is JobView.ABSENT:
            s._end(Result.ERROR)
            return
        if view is JobView.FAILED:
            s._fail_submitter()
        s._after_submitter_check(view is JobView.FAILED, view is not JobView.ACTIVE)

    def _after_submitter_check(s, failed: bool, finished: bool):
        """The 30 s check, then the failure just set, else GetJobInfo (C:286-292)."""
        if s._submitter_timed_out(finished):
            s._set(job_status=JStat.FAILED)
            s._fail(Reason.GRACE)
            s._finish()
        elif failed:
            s._finish()
        else:
            s.m_sub_fin = finished
            s.pc = Pc.GET_JOB_INFO

    def _fail_submitter(s):
        """A failed submitter fails the RayJob: AppFailed if the persisted jobStatus is
        FAILED, else SubmissionFailed (C:1183-1190, C:1104-1110)."""
        s._fail(Reason.APP_FAILED if s.m_h.job_status is JStat.FAILED
                else Reason.SUBMISSION_FAILED)

    def _submitter_timed_out(s, finished: bool) -> bool:
        """checkSubmitterFinishedTimeoutAndUpdateStatusIfNeeded (C:1263-1286): finishedAt
        + 30 s has passed. Neither Ray's answer nor the phase is looked at: a Failed /
        SubmissionFailed just set by checkSubmitterAndUpdateStatusIfNeeded is overwritten
        with jobStatus FAILED and reason JobDeploymentStatusTransitionGracePeriodExceeded,
        so a later deletion skips StopJob (C:116) although the Ray job may still run."""
        return finished and s.t_subfin is Timer.FIRED

    @kubernetes.call_step(Pc.GET_JOB_INFO, calls="Ray head")
    def _get_job_info(s):
        """Models GetJobInfo (D:154-184) and what Running does with the answer
        (C:301-365)."""
        s._job_info(s._ray_get(s._dashboard_key()))

    def _dashboard_key(s):
        """The record the dashboard URL and status.jobId name, or None if unreachable or
        unnamed: an empty jobId (InteractiveMode before the user gave spec.jobId) makes
        StopJob's request name no job, an error only logged (C:123-129)."""
        c = s.m_b.cluster
        if not s.m_b.dash or s.m_b.job_id is None or not s._reachable(c):
            return None
        return KvKey(c, s.m_b.job_id)

    def _job_info(s, rec):
        """rec None: a network error; Rec.NONE: 404; else the record's status."""
        if rec is None:
            s._check_failed()
        elif rec is Rec.NONE:
            if s.mode is Mode.HTTP:
                s.pc = Pc.SUBMIT_JOB            # reconcileHTTPModeJobNotFound (C:1307-1321)
            elif s._record_lost():
                s._fail(Reason.APP_FAILED)      # "Submitter completed but Ray job not found"
                s._finish()
            else:
                s._end(Result.REQUEUE)          # C:318
        else:
            status = REC_STATUS[rec]
            if status in TERMINAL and s._submitter_done():
                s._map_terminal(status)
            s._set(job_status=status)
            s._set_b(chk_fail=False, ray_end=status in TERMINAL, cl_status=s.m_cl)
            s._finish()

    def _map_terminal(s, status: JStat):
        """C:334-349: FAILED is Failed/AppFailed; SUCCEEDED and STOPPED are Complete."""
        if status is JStat.FAILED:
            s._fail(Reason.APP_FAILED)
        else:
            s._set(phase=Phase.COMPLETE)

    def _submitter_done(s) -> bool:
        """K8sJobMode and SidecarMode take Ray's terminal status only once the submitter
        finished (C:337-341, kuberay #1919)."""
        return s.m_sub_fin or s.mode not in SUBMITTER_MODES

    def _record_lost(s) -> bool:
        """404 after the submitter finished: the record is gone (C:311-317, #3903)."""
        return s.m_sub_fin

    def _check_failed(s):
        """A dashboard error: record jobStatusCheckFailureStartTime once (C:321-325)."""
        if s.m_b.chk_fail:
            s._end(Result.REQUEUE)
        else:
            s._set_b(chk_fail=True)
            s._finish()

    @kubernetes.call_step(Pc.SUBMIT_JOB, calls="Ray head")
    def _submit_job_http(s):
        """Models SubmitJob with submission_id = status.jobId (HTTPMode, C:1307-1321)."""
        s._submit_job(deliver=True, answer=True)

    def _submit_job(s, deliver: bool, answer: bool) -> bool:
        """`deliver`: the request reaches the head; `answer`: its reply reaches us."""
        k = s._dashboard_key()
        accepted = deliver and k is not None and s._ray_submit(k)
        s._after_submit(accepted and answer)
        return accepted

    def _after_submit(s, ok: bool):
        if not ok:
            s._check_failed()
        elif s.m_b.chk_fail:
            s._set_b(chk_fail=False)
            s._finish()
        else:
            s._end(Result.REQUEUE)

    # ------------------------------------------------------------ Suspending / Retrying
    def _suspending_or_retrying(s):
        """C:366-410: delete the RayCluster and the Job, wait until both are NotFound in
        the cache, then reset the identity and go Suspended / New. No StopJob."""
        if s._read_cluster(s.m_b.cluster) is CrView.ABSENT:
            s._delete_job_then_reset(cluster_gone=True)
        else:
            s.pc = Pc.DELETE_CLUSTER

    def _delete_job_then_reset(s, cluster_gone: bool):
        job_gone = (s.mode in (Mode.HTTP, Mode.SIDECAR)        # no submitter Job (C:760-763)
                    or s._read(Kind.JOB) is JobView.ABSENT)
        if not job_gone:
            s.pc = Pc.DELETE_JOB
        elif not cluster_gone:
            s._end(Result.REQUEUE)              # C:383-387
        else:
            s._reset_identity()
            s._finish()

    def _reset_identity(s):
        """C:394-410: clear the identity and Ray fields, keep failed/succeeded."""
        s.m_b = s.m_b._replace(job_id=None, cluster=None, dash=False, cl_status=ClStat.NONE,
                               chk_fail=False, ray_end=False)
        s._set(reason=Reason.NONE, job_status=JStat.NEW,
               phase=Phase.SUSPENDED if s.m_h.phase is Phase.SUSPENDING else Phase.NEW)

    @kubernetes.call_step(Pc.DELETE_CLUSTER)
    def _delete_cluster(s) -> bool:
        """Models deleteClusterResources' Delete (C:798-834, C:823): the CR disappears at
        once, its pods later (background deletion)."""
        c = s.m_b.cluster
        if not s.cl_cr[c]:
            s._end(Result.ERROR)                # NotFound
            return False
        s._cr_deleted(c)
        s._after_cluster_delete()
        return True

    def _after_cluster_delete(s):
        if s.m_h.phase in (Phase.COMPLETE, Phase.FAILED):
            s._ttl_cleanup_done(Policy.DELETE_CLUSTER)
            s._end(s._after_cleanup_result())
        else:
            s._delete_job_then_reset(cluster_gone=False)

    @kubernetes.call_step(Pc.DELETE_JOB)
    def _delete_job(s) -> bool:
        """Models deleteSubmitterJob's Delete with Background propagation (C:759-795)."""
        if s.job is None:
            s._end(Result.ERROR)
            return False
        s.cleanup_overreach = s.cleanup_overreach or s.m_h.phase in (Phase.COMPLETE, Phase.FAILED)
        s._remove_job()
        s._end(Result.REQUEUE)
        return True

    # ------------------------------------------------------------ Suspended (C:411-419)
    def _suspended(s):
        if s.m_h.suspend:
            s._end(Result.WAIT)
        else:
            s._set(job_status=JStat.NEW, phase=Phase.NEW)
            s._finish()

    # ------------------------------------------------------------ Complete / Failed
    def _finished(s):
        """C:420-447: the deletion rules or the legacy policies if set (deletion.py), else
        handleShutdownAfterJobFinishes (C:1515-1556); never writes status."""
        if s.deletion_rules is not Rules.OFF:
            s._apply_deletion_rules()
        elif s.legacy_policy is not Legacy.OFF:
            s._apply_legacy_policy()
        elif not s.shutdown_after_finishes:
            s._end(Result.WAIT)
        elif not s._ttl_expired():
            s._end(Result.REQUEUE)              # RequeueAfter until endTime + TTL (C:1530)
        elif s.delete_rj_after_finish:
            s.pc = Pc.DELETE_RJ
        elif s._read_cluster(s.m_b.cluster) is CrView.ABSENT:
            s._end(Result.WAIT)
        else:
            s.pc = Pc.DELETE_CLUSTER

    def _ttl_expired(s) -> bool:
        """now >= endTime + ttlSecondsAfterFinished (C:1519-1534)."""
        return s.t_ttl is Timer.FIRED

    def _ttl_cleanup_done(s, policy: Policy):
        """Ghosts of claim 9: a clean-up (the RayCluster's deletion, the RayJob's own, or
        its workers' suspension) was applied: early if its time had not come."""
        s.ttl_cleanup = True
        s.ttl_early = s.ttl_early or not s._cleanup_due(policy)

    @kubernetes.call_step(Pc.DELETE_RJ)
    def _delete_rj(s) -> bool:
        """Models r.Delete(rayJob) when DELETE_RAYJOB_CR_AFTER_JOB_FINISHES is set (C:1538)
        or by a DeleteSelf rule (C:1573)."""
        s.cleanup_overreach = s.cleanup_overreach or not s._cleanup_configured(Policy.DELETE_SELF)
        s._ttl_cleanup_done(Policy.DELETE_SELF)
        s._user_or_owner_delete()
        s._end(Result.WAIT)
        return True

    # ------------------------------------------------------------ the status write
    @kubernetes.call_step(Pc.STATUS_WRITE)
    def _status_write(s) -> bool:
        """Models updateRayJobStatus' r.Status().Update (C:919-945): a full PUT carrying the
        copy's resourceVersion, 409 if stale; endTime set when entering Complete/Failed."""
        if not s._version_matches():
            s._end(Result.ERROR)
            return False
        h = s.m_h
        s._apply_status(s.rj._replace(phase=h.phase, job_status=h.job_status, reason=h.reason),
                        s.m_b)
        s._end(Result.WAIT if h.phase is Phase.VALIDATION_FAILED else Result.REQUEUE)
        return True

    def _version_matches(s) -> bool:
        """The update carries the copy's resourceVersion: 409 if stale, NotFound if gone."""
        return s.m_fresh and s.rj is not None


BRANCH = {Phase.NEW: "_new", Phase.INITIALIZING: "_initializing", Phase.RUNNING: "_running",
          Phase.SUSPENDING: "_suspending_or_retrying", Phase.RETRYING: "_suspending_or_retrying",
          Phase.SUSPENDED: "_suspended", Phase.COMPLETE: "_finished", Phase.FAILED: "_finished",
          Phase.WAITING: "_waiting", Phase.VALIDATION_FAILED: "_unknown_phase"}

