"""SidecarMode: the submitter is a container of the head pod (C:1026-1038, J:90-212).

The RayCluster is built with the submitter container appended to the head pod, the
submission id frozen into it (C:650-656), and the head pod's restartPolicy forced to
Never. Its annotation `ray.io/disable-provisioned-head-restart` (C:1006-1008) makes the
RayCluster controller delete a head pod whose Ray container died and never re-create it
once the cluster was provisioned (§3.6): a new head would re-run the submitter on an
empty GCS. The container reaches the dashboard on 127.0.0.1 (J:95-100), so it needs no
Service: it can submit to its own head as long as that pod lives, even after its
RayCluster is gone.

Without the SidecarSubmitterRestart gate (alpha, off by default) the script is the health
wait and a blocking `ray job submit --submission-id $ID` with no status pre-check
(J:154-158): it exits 1 when the id exists or the job FAILED (OBS §4.4), 0 otherwise, and
nothing restarts it. With the gate the container restarts on failure (C:617-628) and runs
the K8sJobMode script (status pre-check, `submit --no-wait`, `logs --follow`).

Simplification: a failed container restarts at once (CrashLoopBackOff's waiting state,
in which `state.terminated` is unset, is folded into the restart).

Fairness: each step of the script is weakly fair, as the submitter pod's.
"""
from checker import action, fault, require

from .state import RayJobState
from .types import (NONTERMINAL_RECS, SIDECAR_RESTART_LIMIT, ClusterId, Exit, Head, JobId,
                    KvKey, Mode, Reason, Rec, Sidecar, SubPc, Timer)


class SidecarSubmitter(RayJobState):
    def _sidecar_starts(s, c: ClusterId, j: JobId):
        """The head pod of a RayCluster just created starts its submitter container."""
        s.sidecar[c] = Sidecar(s._sidecar_first_step(), j, Exit.RUNNING, 0)
        s.t_subfin = Timer.OFF

    def _sidecar_first_step(s) -> SubPc:
        """After the health wait: the status pre-check only with the gate (J:158)."""
        return SubPc.STATUS if s.sidecar_restart else SubPc.SUBMIT

    def _sidecar_running(s, c: ClusterId) -> bool:
        """(Tested on the mode first: other modes never read the variable, which spares
        the symbolic engines a branch per cluster.)"""
        if s.mode is not Mode.SIDECAR:
            return False
        sc = s.sidecar[c]
        return sc is not None and sc.exit is Exit.RUNNING

    def _sidecar_may_submit(s, c: ClusterId) -> bool:
        """The container of `c` runs a step that may still submit (the status check or the
        submit): one that follows a job can only exit."""
        return s._sidecar_running(c) and s.sidecar[c].pc in (SubPc.STATUS, SubPc.SUBMIT)

    def _sidecar_at(s, c: ClusterId, pc: SubPc) -> bool:
        """The container of `c` runs step `pc`, and its head serves on 127.0.0.1."""
        return s._sidecar_running(c) and s.sidecar[c].pc is pc and s._serving(s._sidecar_key(c))

    def _sidecar_key(s, c: ClusterId) -> KvKey:
        return KvKey(c, s.sidecar[c].job_id)

    @action(group="submitter", fair="weak", calls="Ray head")
    def side_status(s, c: ClusterId):
        """`ray job status $ID` (J:160-164, with the gate only): the record exists, follow
        (attaching goes through the agent); else submit."""
        require(s._sidecar_at(c, SubPc.STATUS))
        s._event()
        s._sidecar_moves(c, s._after_status_check(s._sidecar_key(c)))

    @action(group="submitter", fair="weak", calls="Ray head")
    def side_submit(s, c: ClusterId):
        """`ray job submit --submission-id $ID` (J:188-190): rejected if the id exists
        (exit 1); accepted, the CLI follows the job (blocking without the gate, `logs
        --follow` with it)."""
        require(s._sidecar_at(c, SubPc.SUBMIT))
        s._event()
        if s._ray_submit(s._sidecar_key(c)):
            s._sidecar_moves(c, SubPc.FOLLOW)
        else:
            s._sidecar_exits(c, 1)

    @action(group="submitter", fair="weak", calls="Ray head")
    def side_follow(s, c: ClusterId):
        """The job is terminal: `logs --follow` exits 0 whatever the outcome (OBS row 3); a
        blocking `ray job submit` exits 1 if it FAILED (OBS §4.4)."""
        require(s._sidecar_at(c, SubPc.FOLLOW))
        k = s._sidecar_key(c)
        require(s.kv[k] not in NONTERMINAL_RECS)
        s._event()
        failed = s.kv[k] is Rec.NONE or (s.kv[k] is Rec.FAILED and not s.sidecar_restart)
        s._sidecar_exits(c, 1 if failed else 0)

    @fault(group="pod_death")
    def side_dies(s, c: ClusterId):
        """The submitter container fails while its head lives (a WebSocket closed under
        `logs --follow`, an OOM kill of the container): exit 1 (C:620-626)."""
        require(s.budget > 0 and s._sidecar_running(c))
        s._fault()
        s._sidecar_exits(c, 1)

    def _sidecar_moves(s, c: ClusterId, pc: SubPc):
        s.sidecar[c] = s.sidecar[c]._replace(pc=pc)

    def _sidecar_exits(s, c: ClusterId, code: int):
        """Without the gate the container stays terminated; with it a failed one restarts
        (restartPolicy OnFailure), re-running the script. finishedAt (the terminated
        state's time) starts the 30 s check for the RayJob's own cluster."""
        sc = s.sidecar[c]
        if code and s.sidecar_restart:
            s.sidecar[c] = sc._replace(pc=s._sidecar_first_step(),
                                       restarts=min(sc.restarts + 1, SIDECAR_RESTART_LIMIT))
            return
        s.sidecar[c] = sc._replace(exit=Exit.ERROR if code else Exit.OK)
        if s.cl_cr[c]:
            s.t_subfin = Timer.ARMED

    def _sidecar_check(s):
        """checkSubmitterAndUpdateStatusIfNeeded, SidecarMode (C:1070-1137): no head pod is
        Failed/AppFailed ("Ray head pod not found."); a failed container is Failed (AppFailed
        if the persisted jobStatus is FAILED, else SubmissionFailed): without the gate one
        that terminated non-zero, with it one restarted at least SIDECAR_RESTART_LIMIT times
        and not terminated with 0 (checkIsRestartCountExceeded, C:1216-1232). finishedAt
        is the container's terminated time (C:1396-1406)."""
        c = s.m_b.cluster
        if s.head[c] is Head.NONE:                      # GetRayClusterHeadPod found none
            s._fail(Reason.APP_FAILED)
            s._after_submitter_check(True, False)
            return
        sc = s.sidecar[c]
        if s.sidecar_restart:
            failed = sc.restarts >= SIDECAR_RESTART_LIMIT and sc.exit is not Exit.OK
        else:
            failed = sc.exit is Exit.ERROR
        if failed:
            s._fail_submitter()
        s._after_submitter_check(failed, sc.exit is not Exit.RUNNING)
