"""Lemmas of claim 7 (no attempt whose Ray job succeeded is recorded as failed) and of the
at-most-once claims (p1b, p2b, p3, p12) without faults: what a RayJob's attempts, its submitter Job and pods and the Ray records look like
when nothing fails, so that PDR proves claim 7 for every backoffLimit
(models/rayjob/proofs/no_faults.toml; in HTTPMode slow/no_faults_http.toml).

Most hold only in that setting (`_calm`): no fault budget, no active or pre-running
deadline, K8sJobMode or HTTPMode, no GCS fault tolerance, the RayJob kept after it finishes (no
DeleteSelf), an exact cache, no late reconcile (with one, claim 7 is refuted:
models/rayjob/latency_F0.toml). Elsewhere they are trivially true; every bounded model
checks all of them. They were found by Houdini's counterexamples to induction
(checker/symbolic/pdr.py), one reading of the controller at a time.
"""
from checker import invariant

from ..state import RayJobState
from ..types import (SUBMITTER_MODES, SUPERVISED_RECS, Age, ClusterId, Exit, Head, JCond, JobId, JStat, KvKey, Mode, Pc,
                    Phase, PodSlot, Rank, Reason, Rec, Rules, SubPc, Timer, key)

ENDED = (Rec.SUCCEEDED, Rec.FAILED)           # the terminal records a run without faults leaves
SUBMITTED = tuple(r for r in Rec if r is not Rec.NONE)
STARTED = tuple(r for r in SUBMITTED if r is not Rec.PENDING)   # its driver started
IN_FLIGHT = (Phase.INITIALIZING, Phase.WAITING, Phase.RUNNING)   # Waiting: InteractiveMode's
SERVED = (Phase.WAITING, Phase.RUNNING)       # phases entered once the cluster served



def _calm_setting(s) -> bool:
    """The setting of the proof of claim 7 (see the module docstring)."""
    return (s.F == 0 and s.active_deadline is Rank.OFF and s.pre_running_deadline is Rank.OFF
            and not s.gcs_ft
            and not s.delete_rj_after_finish and s.deletion_rules is Rules.OFF and s.L == 0
            and not s.late_reconcile)


def _calm(s) -> bool:
    """That setting, with the RayJob there (lemma_calm_no_user says it always is)."""
    return _calm_setting(s) and s.rj is not None


def _open(s) -> bool:
    """The current attempt may still succeed."""
    return s.attempted and not s.att_failed[Age.CUR]


def _att_job_id(s):
    """The attempt's submission id: in InteractiveMode always spec.jobId, which the user
    may submit with before Waiting copies it into the status."""
    return JobId.JS if s.mode is Mode.INTERACTIVE else s.att_job


def _is_att(s, k):
    return k.c is s.att_cluster and k.j is _att_job_id(s)


def _att_head_gone(s) -> bool:
    """The current attempt's head went away (or never came)."""
    return s.att_cluster is not None and s.head[s.att_cluster] is Head.NONE


def _att_rec_in(s, recs) -> bool:
    """The current attempt's record is in `recs` (no lookup by a possibly absent key)."""
    return any(_is_att(s, k) and s.kv[k] in recs for k in s.kv)


def _submitter_runs(s) -> bool:
    """The attempt's submitter is still at work: its Job is active (K8sJobMode), its sidecar
    container runs (SidecarMode); HTTPMode and InteractiveMode have none (the operator or
    the user submits)."""
    if s.mode is Mode.K8S:
        return s.job is not None and s.job.cond is JCond.NONE
    if s.mode is Mode.SIDECAR:
        c = s.att_cluster
        return c is not None and s.sidecar[c] is not None and s.sidecar[c].exit is Exit.RUNNING
    return True


def _submitter_exists(s) -> bool:
    """The attempt's submitter was created: its Job (K8sJobMode), its sidecar container
    (SidecarMode, with the head pod of the attempt's cluster)."""
    if s.mode is Mode.K8S:
        return s.job is not None
    if s.mode is Mode.SIDECAR:
        return s.att_cluster is not None and s.sidecar[s.att_cluster] is not None
    return False


def _submitter_finished(s) -> bool:
    """The attempt's submitter has finished: its Job ended, or its sidecar container
    exited (or went with its head)."""
    if s.mode is Mode.K8S:
        return s.job is not None and s.job.cond is not JCond.NONE
    if s.mode is Mode.SIDECAR:
        c = s.att_cluster
        return c is not None and (s.sidecar[c] is None or s.sidecar[c].exit is not Exit.RUNNING)
    return False


def _in_flight(s):
    """The attempt is under way (Waiting: InteractiveMode's wait for the user's jobId)."""
    return s.rj.phase in IN_FLIGHT


def _dash_ready(s, h, b):
    if h is None or h.phase not in IN_FLIGHT or not b.dash:
        return True
    return b.cluster is not None and s.cl_cr[b.cluster] and s.head[b.cluster] is Head.SERVING


def _mirrors(s, h, b):
    if not b.ray_end:
        return True
    return ((h.job_status is JStat.SUCCEEDED and _att_rec_in(s, (Rec.SUCCEEDED,)))
            or (h.job_status is JStat.FAILED and _att_rec_in(s, (Rec.FAILED,))))


class NoFaultLemmas(RayJobState):
    @invariant
    def lemma_calm_no_user(s):
        """Without a fault budget the user neither suspends nor deletes, and the operator never
        crashes."""
        if not _calm_setting(s):
            return True
        if s.rj is None or s.rj.deleting or s.rj.suspend or s.op_down:
            return False
        return s.m_h is None or not (s.m_h.deleting or s.m_h.suspend)

    @invariant
    def lemma_calm_no_suspend_phases(s):
        """So Suspending and Suspended are never entered, persisted or in memory."""
        if not _calm(s):
            return True
        return all(h is None or h.phase not in (Phase.SUSPENDING, Phase.SUSPENDED) for h in (s.rj, s.m_h))

    @invariant
    def lemma_unattempted_is_pristine(s):
        """Before the first attempt nothing exists: no cluster, head, Job, record or ghost mark."""
        if not _calm(s) or s.attempted:
            return True
        return (s.rj.phase is Phase.NEW and s.job is None and s.att_cluster is None and s.att_job is None
                and not any(s.att_failed[a] or s.att_succ[a] for a in Age)
                and all(not s.cl_cr[c] and s.head[c] is Head.NONE and s.cl_attempt[c] is None for c in ClusterId)
                and all(s.kv[k] is Rec.NONE for k in s.kv))

    @invariant
    def lemma_in_flight_cluster(s):
        """Initializing and Running name a cluster that exists, or has not been created yet (then
        it has no head, Job or record)."""
        if not _calm(s) or s.rj.phase not in IN_FLIGHT:
            return True
        c = s.att_cluster
        return c is not None and (s.cl_cr[c] or (s.head[c] is Head.NONE and s.job is None
                                                 and all(s.kv[k] is Rec.NONE or k.c is not c for k in s.kv)))

    @invariant
    def lemma_calm_copy_fresh(s):
        """No other writer: the copy a reconcile holds stays current, so its status write
        applies; in InteractiveMode but for the user's edit setting spec.jobId, once."""
        if not _calm(s) or s.m_h is None:
            return True
        if s.mode is Mode.INTERACTIVE and s.m_h.job_id_set and not s.rj.job_id_set:
            return False                            # the edit is never undone
        if s.pc is Pc.IDLE or s.m_fresh:
            return True
        h, r = s.m_h, s.rj                          # stale by that edit only, an event
        return (s.mode is Mode.INTERACTIVE and r.job_id_set and not h.job_id_set
                and not s.m_clean and s.m_orig == key(r, s.rj_b)
                and (h.finalizer, h.deleting, h.suspend) == (r.finalizer, r.deleting, r.suspend))

    @invariant
    def lemma_pods_outside_flight_are_harmless(s):
        """A submitter pod outside the attempt in flight never finds a serving head without a
        terminal record: it cannot submit."""
        if not _calm(s):
            return True
        def ok(p):
            pod = s.pods[p]
            if pod is None or (p is PodSlot.CUR and _in_flight(s)):
                return True
            return s.head[pod.target] is Head.NONE or (pod.pc is not SubPc.SUBMIT and any(
                k.c is pod.target and k.j is pod.job_id and s.kv[k] in ENDED for k in s.kv))
        return ok(PodSlot.CUR) and ok(PodSlot.OLD)

    @invariant
    def lemma_job_created_then_running(s):
        """createK8sJobIfNeed is followed by the status write to Running (C:236): a persisted
        Initializing with a Job is that write pending."""
        if not _calm(s) or s.rj.phase is not Phase.INITIALIZING or s.job is None:
            return True
        return s._reconciling(Pc.STATUS_WRITE) and s.m_h.phase is Phase.RUNNING

    @invariant
    def lemma_job_healthy(s):
        """In flight no submitter pod fails (no fault, the record exists once submitted), so the
        Job never counts a failure."""
        return not _calm(s) or s.job is None or not _in_flight(s) or (s.job.failures == 0 and s.job.cond is not JCond.FAILED)

    @invariant
    def lemma_active_job_in_open_attempt(s):
        """An active submitter Job is the current attempt's, has its pod, and in flight runs
        against the attempt's serving cluster; otherwise the RayJob already finished or is
        retrying."""
        if not _calm(s) or s.job is None or s.job.cond is not JCond.NONE:
            return True
        c = s.job.target
        if (c, s.job.job_id) != (s.att_cluster, s.att_job) or s.cl_attempt[c] is not Age.CUR:
            return False
        if s.pods[PodSlot.CUR] is None:
            return False
        if s.rj.phase in (Phase.INITIALIZING, Phase.RUNNING):
            return _open(s) and s.cl_cr[c] and s.head[c] is Head.SERVING
        return s.rj.phase in (Phase.COMPLETE, Phase.FAILED, Phase.RETRYING)

    @invariant
    def lemma_finished_attempt_record_terminal(s):
        """Complete, Failed and Retrying come after the attempt's record turned terminal (or its
        head went away)."""
        if not _calm(s) or s.rj.phase not in (Phase.COMPLETE, Phase.FAILED, Phase.RETRYING):
            return True
        return _att_rec_in(s, ENDED) or _att_head_gone(s)

    @invariant
    def lemma_no_record_before_job(s):
        """Only the submitter pod submits in K8sJobMode: before the Job exists the attempt's
        cluster holds no record."""
        if (not _calm(s) or s.mode is not Mode.K8S or s.job is not None
                or s.rj.phase not in (Phase.INITIALIZING, Phase.RUNNING)):
            return True
        return all(s.kv[k] is Rec.NONE or k.c is not s.att_cluster for k in s.kv)

    @invariant
    def lemma_job_is_the_attempts(s):
        """The Job carries the identity the attempt persisted (C:650-656)."""
        return not _calm(s) or s.job is None or (s.job.target, s.job.job_id) == (s.att_cluster, s.att_job)

    @invariant
    def lemma_current_pod_runs_the_job(s):
        """The Job's pod runs the Job's frozen env."""
        pod = s.pods[PodSlot.CUR]
        return pod is None or (s.job is not None and (pod.target, pod.job_id) == (s.job.target, s.job.job_id))

    @invariant
    def lemma_pod_step_fits_record(s):
        """In flight, a pod checks or submits exactly while no record of its id exists, follows
        once one does, and never loses its head."""
        pod = s.pods[PodSlot.CUR]
        if not _calm(s) or pod is None or not _in_flight(s):
            return True
        r = s.kv[KvKey(pod.target, pod.job_id)]
        return ((pod.pc in (SubPc.STATUS, SubPc.SUBMIT)) == (r is Rec.NONE)) and pod.pc is not SubPc.BROKEN

    @invariant
    def lemma_records_die_with_head(s):
        """Without GCS fault tolerance a record lives only as long as the head that holds it, and
        only on a created cluster."""
        if not _calm(s):
            return True
        return all(s.kv[k] is Rec.NONE or (s.head[k.c] is not Head.NONE
                   and s.kv[k] not in (Rec.ORPHAN, Rec.STRANDED, Rec.TIMING_OUT, Rec.STOPPED)
                   and s.cl_attempt[k.c] is not None) for k in s.kv)

    @invariant
    def lemma_live_records_in_open_attempt(s):
        """A pending or running record is the current attempt's, which has not failed, and its
        submitter still runs (K8sJobMode: the Job is active; SidecarMode: the container)."""
        if not _calm(s):
            return True
        runs = _submitter_runs(s)
        return all(s.kv[k] not in SUPERVISED_RECS or (_is_att(s, k) and s.cl_attempt[k.c] is Age.CUR and _open(s)
                                           and runs)
                   for k in s.kv)

    @invariant
    def lemma_success_record_is_the_attempts(s):
        """A SUCCEEDED record is the current attempt's record, and the attempt is marked succeeded."""
        if not _calm(s):
            return True
        return all(s.kv[k] is not Rec.SUCCEEDED or (_is_att(s, k) and s.cl_attempt[k.c] is Age.CUR
                                                    and s.att_succ[Age.CUR])
                   for k in s.kv)

    @invariant
    def lemma_old_records_failed(s):
        """Records on clusters of earlier attempts are FAILED: those attempts failed because of
        them."""
        if not _calm(s):
            return True
        return all(s.kv[k] is Rec.NONE or s.cl_attempt[k.c] is Age.CUR or s.kv[k] is Rec.FAILED for k in s.kv)

    @invariant
    def lemma_one_record_per_cluster(s):
        """The attempt's cluster holds only the attempt's submission id."""
        if not _calm(s):
            return True
        return all(s.kv[k] is Rec.NONE or k.c is not s.att_cluster or k.j is _att_job_id(s) for k in s.kv)

    @invariant
    def lemma_success_only_current(s):
        """A succeeded attempt is never followed by another one (Complete is final here)."""
        return not _calm(s) or not (s.att_succ[Age.PREV] or s.att_succ[Age.OLD])

    @invariant
    def lemma_success_kept(s):
        """A succeeded attempt stays in flight or Complete, its record SUCCEEDED until
        Complete deletes the cluster."""
        if not _calm(s) or not s.att_succ[Age.CUR]:
            return True
        return ((_att_rec_in(s, (Rec.SUCCEEDED,)) and (_in_flight(s) or s.rj.phase is Phase.COMPLETE))
                or (s.rj.phase is Phase.COMPLETE and _att_head_gone(s)))

    @invariant
    def lemma_new_after_failure(s):
        """New after an attempt means Retrying moved it there after a failure (C:394-410)."""
        if not _calm(s):
            return True
        return s.rj.phase is not Phase.NEW or not s.attempted or s.att_failed[Age.CUR]

    @invariant
    def lemma_failed_phase_marked(s):
        """Failed and Retrying mark the attempt as failed."""
        return s.rj is None or s.rj.phase not in (Phase.FAILED, Phase.RETRYING) or not s.attempted or s.att_failed[Age.CUR]

    @invariant
    def lemma_in_flight_attempt_not_failed(s):
        """An attempt in flight (or Suspending) has not failed yet."""
        return s.rj is None or s.rj.phase not in (*IN_FLIGHT, Phase.SUSPENDING) or not s.att_failed[Age.CUR]

    @invariant
    def lemma_running_head_serves(s):
        """Running (and Waiting) implies the attempt's cluster exists and serves, with its
        dashboard URL recorded."""
        if not _calm(s) or s.rj.phase not in SERVED:
            return True
        c = s.rj_b.cluster
        return (c is not None and s.cl_cr[c] and s.head[c] is Head.SERVING and s.rj_b.dash
                and s.cl_attempt[c] is Age.CUR)

    @invariant
    def lemma_copy_head_serves(s):
        """A reconcile of Running or Waiting (or creating the Job) talks to an existing,
        serving cluster."""
        if not _calm(s) or not s._reconciling() or not (s.pc is Pc.CREATE_JOB or s.m_h.phase in SERVED):
            return True
        c = s.m_b.cluster
        return c is not None and s.cl_cr[c] and s.head[c] is Head.SERVING and s.m_b.dash

    @invariant
    def lemma_dash_means_ready(s):
        """dashboardURL is taken only from a Ready cluster (C:208-236), which stays up while in
        flight."""
        return not _calm(s) or (_dash_ready(s, s.rj, s.rj_b) and _dash_ready(s, s.m_h, s.m_b))

    @invariant
    def lemma_running_has_dash(s):
        """Running and Waiting were entered with the dashboard URL set."""
        return all(h is None or h.phase not in SERVED or b.dash
                   for h, b in ((s.rj, s.rj_b), (s.m_h, s.m_b)))

    @invariant
    def lemma_missed_job_exit_unclean(s):
        """A reconcile that read the submitter (Job or sidecar container) running before it
        finished saw that event: it cannot settle."""
        if not _calm(s) or s.pc is not Pc.GET_JOB_INFO or s.m_sub_fin:
            return True
        return not _submitter_finished(s) or not s.m_clean

    @invariant
    def lemma_no_settling_on_a_finished_job(s):
        """A clean reconcile of Running with a finished submitter writes Complete or Failed:
        it never settles there."""
        if not _calm(s) or s.rj.phase is not Phase.RUNNING:
            return True
        return not _submitter_finished(s) or not s.settled

    @invariant
    def lemma_calm_no_deletion_calls(s):
        """No deletion of the RayJob: StopJob and the finalizer removal never run."""
        return not _calm(s) or s.pc not in (Pc.DELETE_RJ, Pc.STOP_JOB, Pc.FIN_REMOVE)

    @invariant
    def lemma_no_check_failures(s):
        """The dashboard always answers and no deadline is set: no check-failure timer runs."""
        if not _calm(s):
            return True
        return not s.rj_b.chk_fail and not s.m_b.chk_fail and s.t_chk is Timer.OFF and s.t_active is Timer.OFF

    @invariant
    def lemma_subfin_off_while_job_active(s):
        """The 30 s submitter timer starts only when the Job finishes (C:1263-1286); in
        SidecarMode, without faults, when the attempt's container exits (an earlier
        attempt's RayCluster is gone by then)."""
        if s.mode is Mode.SIDECAR:
            return (not _calm(s) or not (_submitter_exists(s) and _submitter_runs(s))
                    or s.t_subfin is Timer.OFF)
        return s.job is None or s.job.cond is not JCond.NONE or s.t_subfin is Timer.OFF

    @invariant
    def lemma_subfin_not_fired_while_running(s):
        """So the 30 s check never fires while the attempt's submitter exists in flight,
        except in SidecarMode's Initializing, where a container that exits before the
        RayCluster is Ready keeps it from ever being Ready (raycluster.py): the RayJob
        stays there, and Initializing does not look at the timer."""
        if not _calm(s):
            return True
        stranded = s.mode is Mode.SIDECAR and s.rj.phase is Phase.INITIALIZING
        return (s.t_subfin is not Timer.FIRED or not _submitter_exists(s) or not _in_flight(s)
                or stranded)

    @invariant
    def lemma_finished_job_terminal_record(s):
        """`ray job logs --follow` exits only once the record is terminal, so a finished Job means
        a terminal record (or a head gone)."""
        if not _calm(s) or s.job is None or s.job.cond is JCond.NONE:
            return True
        return _att_rec_in(s, ENDED) or _att_head_gone(s)

    @invariant
    def lemma_sub_fin_read(s):
        """A reconcile that saw the submitter finished is right: a finished Job (or sidecar
        container) stays finished."""
        return not _calm(s) or not s.m_sub_fin or _submitter_finished(s)

    @invariant
    def lemma_failing_write_is_justified(s):
        """A reconcile of Initializing or Running turns the attempt Failed or Retrying only on a
        FAILED record of it: in K8sJobMode and SidecarMode after the submitter finished or by
        the grace period, in HTTPMode and InteractiveMode as soon as GetJobInfo reads it
        (C:334-349)."""
        if not _calm(s) or not s._reconciling(Pc.STATUS_WRITE) or s.m_h.phase not in (Phase.FAILED, Phase.RETRYING):
            return True
        if s.m_orig.phase in (Phase.FAILED, Phase.RETRYING):
            return True
        return (_att_rec_in(s, (Rec.FAILED,)) and not s.att_succ[Age.CUR]
                and (s.mode not in SUBMITTER_MODES or s.m_h.reason is Reason.GRACE
                     or _submitter_finished(s)))

    @invariant
    def lemma_att_cluster_fresh_or_current(s):
        """The attempt's cluster name is created by this attempt, or is still untouched."""
        if not _calm(s) or not s.attempted:
            return True
        c = s.att_cluster
        if c is None:
            return False
        return s.cl_attempt[c] is Age.CUR or (s.cl_attempt[c] is None and not s.cl_cr[c] and s.head[c] is Head.NONE
            and s.job is None and all(s.kv[k] is Rec.NONE or k.c is not c for k in s.kv))

    @invariant
    def lemma_drawn_name_unused(s):
        """initRayJobStatusIfNeed draws a name nothing uses (GenerateRayClusterName, U:369-371)."""
        if not _calm(s) or not s._reconciling(Pc.STATUS_WRITE) or s.m_orig.phase is not Phase.NEW:
            return True
        c = s.m_b.cluster
        return (c is not None and c is not s.att_cluster and not s.cl_cr[c] and s.head[c] is Head.NONE and s.cl_attempt[c] is None
                and all(s.kv[k] is Rec.NONE or k.c is not c for k in s.kv)
                and (s.job is None or s.job.target is not c))

    @invariant
    def lemma_exact_reads(s):
        """With an exact cache and one operator process a create is attempted only for an
        object that does not exist (a paused ex-leader may create it first)."""
        if s.L or s.failed_over:
            return True
        if s.pc is Pc.CREATE_CLUSTER and s.m_b.cluster is not None and s.cl_cr[s.m_b.cluster]:
            return False
        if s.pc is Pc.CREATE_JOB and s.job is not None:
            return False
        return s.pc is not Pc.CREATE_SVC or s.svc is None

    @invariant
    def lemma_running_has_job(s):
        """In K8sJobMode Running starts after the Job is created, and the Job stays until Retrying
        deletes it."""
        if not _calm(s) or s.mode is not Mode.K8S:
            return True
        running = s.rj.phase is Phase.RUNNING or (s._reconciling() and (
            s.m_orig.phase is Phase.RUNNING or s.m_h.phase is Phase.RUNNING))
        return s.job is not None or not running

    @invariant
    def lemma_ray_end_mirrors_record(s):
        """rayJobInfo.endTime (and the grace timer) is set with a terminal status copied from the
        attempt's record."""
        if not _calm(s):
            return True
        if (s.t_grace is Timer.OFF) == s.rj_b.ray_end:
            return False
        if s.rj.phase is Phase.RUNNING and not _mirrors(s, s.rj, s.rj_b):
            return False
        return not s._reconciling(Pc.STATUS_WRITE) or s.m_h.phase is not Phase.RUNNING or _mirrors(s, s.m_h, s.m_b)

    @invariant
    def lemma_initializing_never_fails(s):
        """Without a deadline Initializing only waits, creates and moves to Running (or, in
        InteractiveMode, to Waiting)."""
        if not _calm(s) or not s._reconciling(Pc.STATUS_WRITE) or s.m_orig.phase is not Phase.INITIALIZING:
            return True
        return s.m_h.phase in (Phase.INITIALIZING, Phase.WAITING, Phase.RUNNING)

    @invariant
    def lemma_completing_write_is_justified(s):
        """Running writes Complete only on the attempt's SUCCEEDED record."""
        if not _calm(s) or not s._reconciling(Pc.STATUS_WRITE) or s.m_h.phase is not Phase.COMPLETE:
            return True
        return s.m_orig.phase is not Phase.RUNNING or _att_rec_in(s, (Rec.SUCCEEDED,))

    @invariant
    def lemma_att_head_started(s):
        """After Initializing the attempt's head has served or is gone: it never restarts."""
        if not _calm(s) or not s.attempted or s.rj.phase is Phase.INITIALIZING:
            return True
        return s.att_cluster is not None and s.head[s.att_cluster] is not Head.STARTING

    @invariant
    def lemma_initializing_has_no_ray_status(s):
        """New, Initializing and Waiting carry no Ray status: initRayJobStatusIfNeed and the
        Retrying reset clear it, and Waiting asks Ray nothing (C:224-227)."""
        if not _calm(s):
            return True
        early = (Phase.NEW, Phase.INITIALIZING, Phase.WAITING)
        if s.rj.phase in early and (s.rj_b.ray_end or s.rj.job_status is not JStat.NEW
                                    or s.t_grace is not Timer.OFF):
            return False
        if not s._reconciling() or not (s.m_orig.phase in early or (s.pc is Pc.STATUS_WRITE and s.m_h.phase is Phase.NEW)):
            return True
        return not s.m_b.ray_end and s.m_h.job_status is JStat.NEW

    @invariant
    def lemma_targets_were_created(s):
        """Jobs and pods target clusters the attempts created."""
        if not _calm(s):
            return True
        return (all(s.pods[p] is None or s.cl_attempt[s.pods[p].target] is not None for p in PodSlot)
                and (s.job is None or s.cl_attempt[s.job.target] is not None))

    @invariant
    def lemma_one_record_per_cluster_everywhere(s):
        """Each cluster's GCS holds at most one submission id."""
        if not _calm(s):
            return True
        return all(s.kv[a] is Rec.NONE or s.kv[b] is Rec.NONE
                   for a in s.kv for b in s.kv if a.c is b.c and a.j is not b.j)

    @invariant
    def lemma_heads_were_created(s):
        """Every head belongs to a cluster some attempt created."""
        return not _calm(s) or all(s.head[c] is Head.NONE or s.cl_attempt[c] is not None for c in ClusterId)

    @invariant
    def lemma_lingering_pod_is_older(s):
        """A lingering submitter pod belongs to an earlier attempt than the one in flight."""
        pod = s.pods[PodSlot.OLD]
        if not _calm(s) or pod is None or not _in_flight(s):
            return True
        return s.cl_attempt[pod.target] in (Age.PREV, Age.OLD)

    # ------------------------------------------------ at most once per attempt (p1b, p2b, p3, p12)

    @invariant
    def lemma_created_cluster_stays_in_flight(s):
        """Once the attempt created its RayCluster, the cluster exists while the attempt is
        in flight: only Retrying, Complete and Failed delete it here, and Retrying starts a
        new attempt before the next create (p1b)."""
        if not _calm(s) or s.cl_creates[Age.CUR] == 0 or not _in_flight(s):
            return True
        c = s.att_cluster
        return c is not None and s.cl_cr[c] and s.cl_attempt[c] is Age.CUR

    @invariant
    def lemma_cluster_create_is_the_attempts_first(s):
        """A pending Create(RayCluster) is the attempt's first, under its persisted name
        (the cache is exact: the cluster does not exist yet)."""
        return (not _calm(s) or s.pc is not Pc.CREATE_CLUSTER
                or (s.cl_creates[Age.CUR] == 0 and s.m_b.cluster is s.att_cluster))

    @invariant
    def lemma_created_job_stays_in_flight(s):
        """Once the attempt created its submitter Job, the Job exists while the attempt is in
        flight: only Retrying deletes it here (p2b)."""
        return (not _calm(s) or s.job_creates[Age.CUR] == 0 or not _in_flight(s)
                or s.job is not None)

    @invariant
    def lemma_job_create_is_the_attempts_first(s):
        """A pending Create(Job) is the attempt's first (p2b)."""
        return not _calm(s) or s.pc is not Pc.CREATE_JOB or s.job_creates[Age.CUR] == 0

    @invariant
    def lemma_submitted_record_stays_in_flight(s):
        """Once the attempt's submitter submitted, its record exists while the attempt is in
        flight (the head holding it stays up here), so `ray job status` finds it and no
        pod submits again (p12)."""
        if not _calm(s) or s.submit_calls[Age.CUR] == 0 or not _in_flight(s):
            return True
        return _att_rec_in(s, SUBMITTED)

    @invariant
    def lemma_started_record_left_pending(s):
        """A driver starts as its record leaves PENDING; once the attempt's driver started,
        no record of the attempt's clusters is PENDING again (p3)."""
        if not _calm(s) or s.driver_starts[Age.CUR] == 0:
            return True
        return (all(s.kv[k] is not Rec.PENDING or s.cl_attempt[k.c] is not Age.CUR for k in s.kv)
                and (not _in_flight(s) or _att_rec_in(s, STARTED)))

    @invariant
    def lemma_starts_follow_submits(s):
        """A driver starts only from a submitted record: never more starts than submits."""
        return not _calm(s) or all(s.driver_starts[a] <= s.submit_calls[a] for a in Age)

    @invariant
    def lemma_http_submit_follows_404(s):
        """HTTPMode submits (SubmitJob, C:1307-1321) only in the reconcile whose GetJobInfo
        just got a 404 for the attempt's id from its serving head; with no other submitter
        and no fault, the attempt has submitted nothing yet (p12)."""
        if not _calm(s) or s.pc is not Pc.SUBMIT_JOB:
            return True
        c = s.att_cluster
        return (c is not None and s.m_b.cluster is c and s.m_b.job_id is s.att_job and s.m_b.dash
                and s.cl_cr[c] and s.head[c] is Head.SERVING and s.cl_attempt[c] is Age.CUR
                and not _att_rec_in(s, SUBMITTED) and s.submit_calls[Age.CUR] == 0)

    # ------------------------------------------------ SidecarMode's submitter (p3, p12)

    @invariant
    def lemma_sidecar_runs_for_the_open_attempt(s):
        """A sidecar container submits exactly while no record of its id exists, and
        follows once one does (like a submitter pod). One still running is the open
        attempt's, in flight, with its submission id, or follows a job that ended: without
        faults only the grace period (C:1366-1394) ends an attempt before its container
        exits."""
        if not _calm(s) or s.mode is not Mode.SIDECAR:
            return True
        def ok(c):
            sc = s.sidecar[c]
            if sc is None or sc.exit is not Exit.RUNNING:
                return True
            rec = s.kv[KvKey(c, sc.job_id)]
            current = (c is s.att_cluster and sc.job_id is s.att_job and s.cl_attempt[c] is Age.CUR
                       and _in_flight(s) and _open(s))
            return (((sc.pc in (SubPc.STATUS, SubPc.SUBMIT)) == (rec is Rec.NONE))
                    and (current or (sc.pc is SubPc.FOLLOW and rec in ENDED)))
        return all(ok(c) for c in ClusterId)
