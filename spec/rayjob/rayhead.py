"""The Ray head's Jobs API (dashboard head + agent JobManager, GCS internal KV).

Records live per cluster name: one map of `kv` per RayCluster slot is one GCS. A head
restart without GCS fault tolerance empties it (a new GCS epoch is an empty map, so epochs
need no counter).
"""
from .state import RayJobState
from .types import NONTERMINAL_RECS, ClusterId, Head, KvKey, PodSlot, Rec, SubPc


class RayHead(RayJobState):
    def _ray_get(s, k):
        """GET /api/jobs/<id> (JobHead.get_job_info): head-only, no recovery. None when the
        head does not answer; Rec.NONE is a 404."""
        return None if k is None else s.kv[k]

    def _ray_submit(s, k) -> bool:
        """JobManager.submit_job: `put_info(overwrite=False)` is one atomic put-if-absent;
        a new record starts PENDING with its supervisor (S14). False: rejected (500)."""
        s._bump(s.submit_calls, s.cl_attempt[k.c])
        s._recover(k)
        if s.kv[k] is not Rec.NONE:
            return False
        s.kv[k] = Rec.PENDING
        return True

    def _ray_stop(s, k):
        """JobManager.stop_job: a non-terminal job is STOPPED (SIGTERM, then STOPPED; the
        program writes nothing after the stop was accepted, S15)."""
        s._recover(k)
        if s.kv[k] in NONTERMINAL_RECS:
            s.kv[k] = Rec.STOPPED

    def _recover(s, k):
        """An agent-routed call creates the agent's JobManager, whose recovery fails a
        record whose supervisor is gone (OBS §4.6, lazy recovery)."""
        if s.kv[k] is Rec.ORPHAN:
            s.kv[k] = Rec.FAILED

    def _head_stops(s, c: ClusterId, keep_records: bool):
        """The head of `c` goes away: drivers die with it; records survive only with GCS
        fault tolerance (then, with eager recovery, they are FAILED at once); every
        `ray job logs --follow` attached to it breaks."""
        for k in s._records(c):
            if not keep_records:
                s.kv[k] = Rec.NONE
            elif s.kv[k] in NONTERMINAL_RECS:
                s.kv[k] = Rec.ORPHAN if s.lazy_ft_recovery else Rec.FAILED
        for p in PodSlot:
            pod = s.pods[p]
            if pod is not None and pod.target is c and pod.pc is SubPc.FOLLOW:
                s.pods[p] = pod._replace(pc=SubPc.BROKEN)

    def _records(s, c):
        return [k for k, r in s.kv.items() if k.c is c and r is not Rec.NONE]

    def _serving(s, k: KvKey) -> bool:
        return s.head[k.c] is Head.SERVING
