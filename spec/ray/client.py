"""A client of one Ray head: the submitter's script run by hand, and the Python SDK.

The script's steps are the RayJob spec's `Submitter` actions (`ray job status`, `ray job
submit`, `ray job logs --follow`); here no K8s Job controller restarts the pod, so an
exit only records its code. The SDK calls (`submit_job`, `stop_job`, as KubeRay's
HTTPMode and StopJob use them) go through `RayHead`'s helpers and record the reply.
"""
import enum

from checker import Int, Option, action, require

from spec.rayjob.state import RayJobState
from spec.rayjob.types import ClusterId, JobId, KvKey, PodSlot, Rec, SubPc, SubPod

CLUSTER = ClusterId.C0                      # the one head the client talks to
IDS = (JobId.J0, JobId.J1)                  # the submission ids it uses


class Reply(enum.Enum):
    """What the last SDK call answered (HTTP status, or `stop_job`'s bool)."""
    NONE = "none"
    ACCEPTED = "200"
    REJECTED = "500 already exists"
    NOT_FOUND = "404"
    STOPPED = "stopped: true"
    NOT_STOPPED = "stopped: false"
    UNREACHABLE = "connection error"


class RayClient(RayJobState):
    reply: Reply = Reply.NONE
    script_exit: Option[Int[0, 1]] = None       # exit code of the last script run

    def _key(s, j) -> KvKey:
        require(j in IDS)
        return KvKey(CLUSTER, j)

    @action(group="client")
    def run_script(s, j: JobId):
        """Start the submitter's script for id `j` (it first waits for the head, S6)."""
        k = s._key(j)
        require(s.pods[PodSlot.CUR] is None)
        s.pods[PodSlot.CUR] = SubPod(SubPc.STATUS, k.c, k.j)
        s.script_exit = None

    def _pod_exit(s, p: PodSlot, code: int):
        """No Job controller here: the script's exit code is what the user sees."""
        s.pods[p] = None
        s.script_exit = code

    @action(group="client")
    def sdk_submit(s, j: JobId):
        """`JobSubmissionClient.submit_job(submission_id=j)`."""
        k = s._key(j)
        if not s._serving(k):
            s.reply = Reply.UNREACHABLE
        else:
            s.reply = Reply.ACCEPTED if s._ray_submit(k) else Reply.REJECTED

    @action(group="client")
    def sdk_stop(s, j: JobId):
        """`JobSubmissionClient.stop_job(j)`: the head answers 404 for an unknown id, else
        the agent's JobManager answers whether it stopped the job."""
        k = s._key(j)
        if not s._serving(k):
            s.reply = Reply.UNREACHABLE
        elif s.kv[k] is Rec.NONE:
            s.reply = Reply.NOT_FOUND
        else:
            s.reply = Reply.STOPPED if s._ray_stop(k) else Reply.NOT_STOPPED
