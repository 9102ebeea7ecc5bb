"""Lemmas of claims 3 and 12 with faults in SidecarMode: no attempt's driver starts twice,
and one submit call per attempt reaches the head, for every backoffLimit and fault budget
(models/rayjob/proofs/slow/driver_once_sidecar*.toml, submit_once_sidecar.toml).

In SidecarMode the only submitter of a cluster name is the container of its head pod,
which carries the id frozen into it at the create, and a head pod is never re-created
(`ray.io/disable-provisioned-head-restart`): the name's GCS holds at most that one record,
created by the container's first accepted submit, and it stays as long as the container
(both go with the pod). So a driver starts on a name at most once. They hold with one
operator process, an exact cache, no hand deletion of the RayCluster (Initializing re-creates
it under the same name, `sidecar_hand_F1`; a paused ex-leader's create does too,
`sidecar_failover_F1`) and no GCS fault tolerance (its records outlive the lost head);
claim 12's also without a suspend or the SidecarSubmitterRestart gate (`_submits_once`).
Elsewhere, and in the other modes, they are trivially true; every bounded model checks
them. Each was found by a counterexample to induction that Houdini printed (`check-model
MODEL -v`).
"""
from checker import GroupOn, invariant

from ..state import RayJobState
from ..types import Age, ClusterId, Exit, JStat, KvKey, Mode, Pc, Phase, PodSlot, Rec, SubPc


class SidecarOnceLemmas(RayJobState):
    hand_deletes_cluster = GroupOn("user_delete_cluster")
    suspends = GroupOn("user_suspend")

    def _one_sidecar_per_name(s) -> bool:
        """The setting of the module docstring (the pools sufficing too)."""
        return (s.mode is Mode.SIDECAR and not s.failed_over and not s.hand_deletes_cluster
                and not s.gcs_ft and not s.L and not s.id_overflow)

    def _own_record(s, c: ClusterId) -> Rec:
        """The record of the id frozen into c's container (c has one)."""
        return s.kv[KvKey(c, s.sidecar[c].job_id)]

    def _container_at(s, c: ClusterId, pc: SubPc) -> bool:
        sc = s.sidecar[c]
        return sc is not None and sc.exit is Exit.RUNNING and sc.pc is pc

    @invariant
    def lemma_sidecar_mode_has_no_submitter_job(s):
        """SidecarMode creates no submitter Job (createK8sJobIfNeed is K8sJobMode's), so no
        submitter pod runs either, lingering or not."""
        return s.mode is not Mode.SIDECAR or (
            s.job is None and all(s.pods[p] is None for p in PodSlot))

    @invariant
    def lemma_records_are_the_sidecars(s):
        """A name's GCS holds only the record of its container's id: only the container
        submits to it (on 127.0.0.1, J:95-100), and the record goes with the head pod,
        which takes the container with it (`_head_stops`)."""
        return not s._one_sidecar_per_name() or all(
            s.kv[k] is Rec.NONE or (s.sidecar[k.c] is not None and k.j is s.sidecar[k.c].job_id)
            for k in s.kv)

    @invariant
    def lemma_sidecar_submits_before_any_start(s):
        """A container at `ray job submit` has no record yet (its first step, or the
        status check found none) and no driver started on its name: the name was created
        once, with its ghosts reset when it was drawn (p3)."""
        return not s._one_sidecar_per_name() or all(
            not s._container_at(c, SubPc.SUBMIT)
            or (s._own_record(c) is Rec.NONE and s.cl_driver_starts[c] == 0)
            for c in ClusterId)

    @invariant
    def lemma_restarted_sidecar_checks_a_record_or_none_started(s):
        """With the SidecarSubmitterRestart gate a container restarts at `ray job status`:
        either its record exists (it will follow it), or no driver started on its name."""
        return not s._one_sidecar_per_name() or all(
            not s._container_at(c, SubPc.STATUS)
            or s._own_record(c) is not Rec.NONE or s.cl_driver_starts[c] == 0
            for c in ClusterId)

    @invariant
    def lemma_following_sidecar_has_its_record(s):
        """A container follows a job it submitted or found: the record exists until the
        head pod, and the container, go."""
        return not s._one_sidecar_per_name() or all(
            not s._container_at(c, SubPc.FOLLOW) or s._own_record(c) is not Rec.NONE for c in ClusterId)

    @invariant
    def lemma_started_sidecar_name_has_no_pending_record(s):
        """Once a driver started on a name, its record is past PENDING (p3)."""
        return not s._one_sidecar_per_name() or all(
            s.cl_driver_starts[k.c] == 0 or s.kv[k] is not Rec.PENDING for k in s.kv)

    def _submits_once(s) -> bool:
        """The setting of claim 12 (models/rayjob/proofs/slow/submit_once_sidecar.toml): no
        suspend, no SidecarSubmitterRestart gate. Then an attempt ends only once its
        container can no longer submit (it exited, its head is gone, or its record exists),
        so every submit counts for the current attempt. A suspend ends an attempt whose
        container has not submitted yet; on the lingering head it submits later, and the
        ghost `submit_calls`, folding the older attempts together, counts two
        (`slow/sidecar_suspend_retry_F2`)."""
        return s._one_sidecar_per_name() and not s.suspends and not s.sidecar_restart

    def _none_at_submit(s) -> bool:
        return not any(s._container_at(c, SubPc.SUBMIT) for c in ClusterId)

    @invariant
    def lemma_no_status_check_without_the_gate(s):
        """Without the gate the script has no `ray job status` (J:154-158) and a failed
        container is not restarted: no container is ever at that step."""
        return s.mode is not Mode.SIDECAR or s.sidecar_restart or not any(
            s._container_at(c, SubPc.STATUS) for c in ClusterId)

    @invariant
    def lemma_submitting_sidecar_is_the_current_attempts_first(s):
        """A container at `ray job submit` belongs to the current attempt, which has
        submitted nothing yet: its only submitter is that container (p12)."""
        return not s._submits_once() or all(
            not s._container_at(c, SubPc.SUBMIT)
            or (c is s.att_cluster and s.cl_attempt[c] is Age.CUR
                and s.submit_calls[Age.CUR] == 0)
            for c in ClusterId)

    @invariant
    def lemma_no_job_status_before_the_submit(s):
        """While the attempt's container has not submitted, no record of its id exists, so
        GetJobInfo has read none: the jobStatus the attempt began with (New) stands,
        persisted and in memory."""
        if not s._submits_once() or s._none_at_submit():
            return True
        return all(h is None or h.job_status is JStat.NEW for h in (s.rj, s.m_h))

    @invariant
    def lemma_submits_follow_a_create(s):
        """A submit counts for the attempt that created the name it reaches: an attempt
        that submitted created its RayCluster (so a pending create finds no submit)."""
        return not s._submits_once() or all(
            s.submit_calls[a] == 0 or s.cl_creates[a] >= 1 for a in Age)

    @invariant
    def lemma_no_suspend_without_the_user(s):
        """Only the user sets spec.suspend (`user_toggle_suspend`, of the group left out)."""
        return not s._submits_once() or all(h is None or not h.suspend for h in (s.rj, s.m_h))

    @invariant
    def lemma_attempt_ends_after_its_submit(s):
        """A RayJob leaves Initializing and Running for a new attempt (Retrying, New) only
        once its container can no longer submit: SubmissionFailed needs it exited,
        AppFailed its head gone or its record FAILED, the grace period its exit; a
        JobStatusCheckTimeoutExceeded is Failed for good. Persisted or being written."""
        if not s._submits_once() or s._none_at_submit():
            return True
        ongoing = (Phase.INITIALIZING, Phase.RUNNING, Phase.FAILED, Phase.COMPLETE)
        return ((s.rj is None or s.rj.phase in ongoing)
                and (not s._reconciling(Pc.STATUS_WRITE) or s.m_h.phase in ongoing))

    @invariant
    def lemma_finished_sidecar_stays_past_the_submit(s):
        """A reconcile that saw the container finished (its 404 then reads the record as
        lost, AppFailed) saw it exit at its submitter check, just before GetJobInfo, and
        without the gate it never runs again."""
        return not s._submits_once() or not s.m_sub_fin or (
            s.pc in (Pc.GET_JOB_INFO, Pc.STATUS_WRITE) and s._none_at_submit())

    @invariant
    def lemma_initializing_has_no_job_status(s):
        """initRayJobStatusIfNeed begins the attempt with jobStatus New (C:887-917), and
        only Running reads Ray's (GetJobInfo)."""
        return not s._submits_once() or all(
            h is None or h.phase is not Phase.INITIALIZING or h.job_status is JStat.NEW
            for h in (s.rj, s.m_h))

    @invariant
    def lemma_existing_cluster_is_the_current_attempts(s):
        """A RayCluster that exists was created by the current attempt: an attempt begins
        only from New or Suspended, once Retrying or Suspending saw its cluster gone."""
        return not s._submits_once() or all(
            not s.cl_cr[c] or s.cl_attempt[c] is Age.CUR for c in ClusterId)

    @invariant
    def lemma_running_attempt_created_its_cluster(s):
        """Initializing goes Running only once its RayCluster is Ready (C:208-236): a
        Running attempt created it, so Running never creates one (p12: nor starts a new
        container)."""
        return not s._submits_once() or all(
            h is None or h.phase is not Phase.RUNNING or s.cl_creates[Age.CUR] >= 1
            for h in (s.rj, s.m_h))
