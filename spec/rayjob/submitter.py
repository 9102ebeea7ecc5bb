"""The submitter Job (K8sJobMode): the K8s Job controller and the script of its pods.

Each pod runs (J:90-212, `bash -e`, restartPolicy Never):
    wait for /api/gcs_healthz           (S6: the guard "head serving" of the next step)
    if ! ray job status $ID; then ray job submit --no-wait --submission-id $ID ...; fi
    ray job logs --follow $ID
with the dashboard address and $ID frozen into the Job at creation (C:650-656).

Fairness: each step of a pod's script (the kubelet runs it) and the Job controller's
reaction to a pod exit (`_pod_exit`) are weakly fair; a `ray job` call waits only for
the head to serve.
"""
from checker import Int, action, fault, require

from .state import RayJobState
from .types import (ExitMode, JCond, KvKey, PodSlot, Rec, SubPc, Timer,
                    NONTERMINAL_RECS)


class Submitter(RayJobState):
    def _pod_key(s, p) -> KvKey:
        pod = s.pods[p]
        return KvKey(pod.target, pod.job_id)

    def _at(s, p, pc) -> bool:
        pod = s.pods[p]
        return pod is not None and pod.pc is pc and s._reachable(pod.target)

    def _move(s, p, pc):
        s.pods[p] = s.pods[p]._replace(pc=pc)

    @action(group="submitter", fair="weak", calls="Ray head")
    def sub_status(s, p: PodSlot):
        """`ray job status $ID` (J:160-164): exit 0 if the record exists, then follow
        (attaching goes through the agent: recovery, found by `check-model conform ray`);
        else submit."""
        require(s._at(p, SubPc.STATUS))
        s._event()
        s._move(p, s._after_status_check(s._pod_key(p)))

    def _after_status_check(s, k: KvKey) -> SubPc:
        """`if ! ray job status $ID; then submit; fi; logs --follow` (J:160-209): an
        unknown id is submitted; a known one is followed, attaching through the agent
        (which recovers the GCS's orphaned records)."""
        if s.kv[k] is Rec.NONE:
            return SubPc.SUBMIT
        s._recover(k)
        return SubPc.FOLLOW

    @fault(group="status_net")
    def status_net_error(s, p: PodSlot):
        """`ray job status` fails on a network error: the same exit 1 as for an unknown id
        (OBS row 2), so the pod submits."""
        require(s.budget > 0 and s._at(p, SubPc.STATUS))
        s._fault()
        s._move(p, SubPc.SUBMIT)

    @action(group="submitter", fair="weak", calls="Ray head")
    def sub_submit(s, p: PodSlot):
        """`ray job submit --no-wait --submission-id $ID` (J:188-190): rejected if the id
        exists (exit 1, `bash -e` ends the pod); an unreachable head also exits 1."""
        pod = s.pods[p]
        require(pod is not None and pod.pc is SubPc.SUBMIT)
        s._event()
        k = s._pod_key(p)
        if s._reachable(k.c) and s._ray_submit(k):
            s._move(p, SubPc.FOLLOW)
        else:
            s._pod_exit(p, 1)

    @action(group="submitter", fair="weak", calls="Ray head")
    def sub_follow(s, p: PodSlot):
        """`ray job logs --follow $ID`: exit 0 once the job is terminal, whatever its
        outcome (#3211); exit 1 on a 404. The call goes through the agent, which first
        recovers an orphaned record (OBS §4.6)."""
        require(s._at(p, SubPc.FOLLOW))
        k = s._pod_key(p)
        require(s.kv[k] not in NONTERMINAL_RECS or s.kv[k] is Rec.ORPHAN)
        s._event()
        s._recover(k)
        s._pod_exit(p, 1 if s.kv[k] is Rec.NONE else 0)

    @action(group="submitter", fair="weak")
    def sub_broken(s, p: PodSlot, code: Int[0, 1]):
        """`ray job logs --follow` when the head stops under it: exit 0 after a graceful
        stop, 1 after a kill (OBS row 3)."""
        pod = s.pods[p]
        require(pod is not None and pod.pc is SubPc.BROKEN)
        allowed = s.follow_exit_on_head_stop
        require(allowed is ExitMode.EITHER or (code == 1) == (allowed is ExitMode.ONE))
        s._event()
        s._pod_exit(p, code)

    @fault(group="pod_death")
    def sub_pod_dies(s, p: PodSlot):
        """Submitter pod failure (§13.4: OOM, eviction, node loss): exit 1; restartPolicy
        Never (J:224), so the Job controller decides whether to start another pod."""
        require(s.budget > 0 and s.pods[p] is not None)
        s._fault()
        s._pod_exit(p, 1)

    def _pod_exit(s, p: PodSlot, code: int):
        """The K8s Job controller: Complete on exit 0; on exit 1 a new pod, until more than
        backoffLimit pods failed (Failed). Either condition records finishedAt."""
        pod, s.pods[p] = s.pods[p], None
        if p is PodSlot.OLD:
            return
        job = s.job
        if code == 0:
            s._set_job(job._replace(cond=JCond.COMPLETE))
            s.t_subfin = Timer.ARMED
        elif job.failures + 1 > s.sub_backoff_limit:
            s._set_job(job._replace(cond=JCond.FAILED, failures=job.failures + 1))
            s.t_subfin = Timer.ARMED
        else:
            s._set_job(job._replace(failures=job.failures + 1))
            s.pods[p] = pod._replace(pc=SubPc.STATUS)
