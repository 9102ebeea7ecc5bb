"""InteractiveMode: the operator brings up the RayCluster and waits; the user submits (§3.7).

Initializing goes to Waiting once the RayCluster is Ready (C:224-227), with no jobId
(initRayJobStatusIfNeed leaves it empty in this mode, C:895-901). Waiting (C:237-248)
requeues until the user sets `spec.jobId`, then copies it into the status and goes
Running; it has no suspend check, so a suspend waits for the jobId. Running polls
GetJobInfo: a 404 just requeues (no submitter can have finished, C:311-318). Validation
rejects a positive backoffLimit (V:587-589): there are no retries, only suspend and
resume, which clear the status jobId and go through Waiting again, to a new RayCluster
where the user must submit again.

The user's actions are no faults and spend no budget; they are not fair (a user may
never submit) unless a model says so.
"""
from checker import action, require

from .state import RayJobState
from .types import JobId, KvKey, Mode, Phase, Reason, Rec, Result


class InteractiveMode(RayJobState):
    def _waiting(s):
        """The Waiting branch (C:237-248): the pre-running deadline, no suspend check.
        Validation rejects Waiting in any other mode (V:526-531)."""
        if s.mode is not Mode.INTERACTIVE:
            s._validation_failed()
        elif s._pre_running_expired():
            s._fail(Reason.PRE_RUNNING)
            s._finish()
        elif not s.m_h.job_id_set:
            s._end(Result.REQUEUE)
        else:
            s._set_b(job_id=JobId.JS)
            s._set(phase=Phase.RUNNING)
            s._finish()

    def _interactive_user(s) -> bool:
        return s.mode is Mode.INTERACTIVE and s.rj is not None and not s.rj.deleting

    @action(group="user_interactive")
    def user_sets_job_id(s):
        """`kubectl edit rayjob`: the user sets spec.jobId (a RayJob write, 409 for an
        operator's copy read before it)."""
        require(s._interactive_user() and not s.rj.job_id_set)
        s._event()
        s._write_rj(s.rj._replace(job_id_set=True), s.rj_b)

    @action(group="user_interactive", calls="Ray head")
    def user_submits(s):
        """`ray job submit --submission-id <spec.jobId>` by hand, to the dashboard the
        status names, when no job of that id is there yet."""
        require(s._interactive_user() and s.rj_b.dash and s._reachable(s.rj_b.cluster))
        k = KvKey(s.rj_b.cluster, JobId.JS)
        require(s.kv[k] is Rec.NONE)
        s._event()
        s._ray_submit(k)
