"""The Ray head's Jobs API (dashboard head + agent JobManager, GCS internal KV).

Records live per cluster name: one map of `kv` per RayCluster slot is one GCS. A head
restart without GCS fault tolerance empties it (a new GCS epoch is an empty map, so epochs
need no counter).

Checked against a real Ray 2.60 by `check-model conform ray` (spec/ray/conformance), which
corrected two assumptions about GCS fault tolerance:
* a job still PENDING when the head restarts is not failed by the recovery: its record
  stays PENDING, `stop_job` answers False and leaves it, and only the start timeout
  (RAY_JOB_START_TIMEOUT_SECONDS, 15 min) of a JobManager's monitor fails it (STRANDED,
  TIMING_OUT, `start_timeout`); the spec used to fail it like a RUNNING one;
* the first agent-routed call after a restart creates the agent's JobManager, whose
  recovery covers every record of the GCS, not only the one the call names.
"""
from .state import RayJobState
from checker import action, require

from .types import SUPERVISED_RECS, ClusterId, Head, KvKey, PodSlot, Rec, Stray, SubPc


class RayHead(RayJobState):
    def _ray_get(s, k):
        """GET /api/jobs/<id> (JobHead.get_job_info): head-only, no recovery. None when the
        head does not answer; Rec.NONE is a 404."""
        return None if k is None else s.kv[k]

    def _ray_submit(s, k) -> bool:
        """JobManager.submit_job: `put_info(overwrite=False)` is one atomic put-if-absent;
        a new record starts PENDING with its supervisor (S14). False: rejected (500)."""
        s._count_for_attempt(s.submit_calls, s.cl_submit_calls, k.c)
        s._recover(k)
        if s.kv[k] is not Rec.NONE:
            return False
        s.kv[k] = Rec.PENDING
        return True

    def _ray_stop(s, k) -> bool:
        """JobManager.stop_job: a job whose supervisor runs is STOPPED (SIGTERM, then
        STOPPED; the program writes nothing after the stop was accepted, S15). Returns
        `stop_job`'s answer: whether there was a supervisor to stop."""
        s._recover(k)
        if s.kv[k] not in SUPERVISED_RECS:
            return False
        s.kv[k] = Rec.STOPPED
        return True

    def _recover(s, k):
        """An agent-routed call creates the agent's JobManager, whose recovery covers every
        record of the GCS (OBS §4.6, lazy recovery): a RUNNING one whose supervisor is
        gone is FAILED, a PENDING one waits for its start timeout."""
        for r in s._keys(k.c):
            s._recover_record(r)

    def _recover_record(s, r: KvKey):
        """JobManager._recover_running_jobs on one record: no supervisor, FAILED; never
        started, its start timeout runs."""
        if s.kv[r] is Rec.ORPHAN:
            s.kv[r] = Rec.FAILED
        elif s.kv[r] is Rec.STRANDED:
            s.kv[r] = Rec.TIMING_OUT

    @action(group="ray_monitor", fair="weak")
    def start_timeout(s, k: KvKey):
        """A JobManager's monitor fails a PENDING job whose supervisor is gone once
        RAY_JOB_START_TIMEOUT_SECONDS (15 min, §12.2) have passed. The abstract clock
        does not order it with the operator's deadlines: it may happen at any time."""
        require(s.kv[k] is Rec.TIMING_OUT and s._serving(k))
        s._event()
        s.kv[k] = Rec.FAILED

    def _head_stops(s, c: ClusterId, keep_records: bool, workers_stay: bool = False):
        """The head of `c` goes away: drivers on it die with it; records survive only with
        GCS fault tolerance (then, with eager recovery, RUNNING ones are FAILED at once and
        PENDING ones wait for their start timeout); every `ray job logs --follow`
        attached to it breaks; its sidecar submitter stops with it. `workers_stay`: only
        the head restarts, so drivers on worker nodes (`driver_on_worker`) live on."""
        for k in s._keys(c):
            if workers_stay and s.driver_on_worker:
                s._worker_driver_survives(k, keep_records)
            else:
                s._record_survives(k, keep_records)
        for p in PodSlot:
            s._follower_breaks(p, c)
        s.sidecar[c] = None                 # a sidecar submitter stops with its pod

    def _head_deleted(s, c: ClusterId):
        """The head pod of `c` is deleted: its GCS (job records included) goes with it."""
        s._head_stops(c, keep_records=False)
        s.head[c] = Head.NONE

    def _record_survives(s, k: KvKey, keep_records: bool):
        """What a head restart leaves of one job record (OBS §4.6): nothing without
        GCS fault tolerance; with it, the record, its supervisor gone."""
        if not keep_records:
            s.kv[k] = Rec.NONE
        elif s.kv[k] is Rec.PENDING:
            s.kv[k] = Rec.STRANDED if s.lazy_ft_recovery else Rec.TIMING_OUT
        elif s.kv[k] in SUPERVISED_RECS:
            s.kv[k] = Rec.ORPHAN if s.lazy_ft_recovery else Rec.FAILED

    def _worker_driver_survives(s, k: KvKey, keep_records: bool):
        """A head restart with the supervisor on a worker (JobManager's
        `_get_scheduling_strategy`: "DEFAULT" once entrypoint resources are set, §12.7).
        With GCS fault tolerance the worker's raylet reconnects and the detached
        supervisor lives on: its record stays supervised, and the recovery's monitor
        finds the actor alive. Without, the new GCS has no record: a running driver runs
        on, recorded nowhere (`stray`), and a supervisor that had not started its
        driver cannot record it any more (no driver)."""
        if keep_records:
            return
        if s.kv[k] in (Rec.RUNNING, Rec.WROTE) and s.stray is not Stray.RUNNING:
            s.stray = Stray.RUNNING if s.kv[k] is Rec.RUNNING else Stray.WROTE
            s.stray_att = s.cl_attempt[k.c]
        s.kv[k] = Rec.NONE

    def _follower_breaks(s, p: PodSlot, c: ClusterId):
        """A submitter pod following logs from the stopped head sees its stream break."""
        pod = s.pods[p]
        if pod is not None and pod.target is c and pod.pc is SubPc.FOLLOW:
            s.pods[p] = pod._replace(pc=SubPc.BROKEN)

    def _keys(s, c: ClusterId) -> list[KvKey]:
        """The job-record keys of cluster c's GCS, each handled by one helper call (the
        symbolic engines merge each call instead of forking over which records exist)."""
        return [k for k in s.kv if k.c is c]

    def _serving(s, k: KvKey) -> bool:
        return s.head[k.c] is Head.SERVING

    def _reachable(s, c: ClusterId) -> bool:
        """Can a call through the dashboard URL reach c's head? The URL names the head
        Service (FetchHeadServiceURL, U:1022-1054), which the RayCluster owns: the garbage
        collector deletes it with the head pod, and a terminating pod leaves the Service's
        endpoints at once, so a head lingering after its CR is served by nobody's URL (its
        driver still runs). The GC's delay is folded into the CR's deletion."""
        return s.head[c] is Head.SERVING and s.cl_cr[c]
