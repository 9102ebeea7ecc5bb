"""Every variable of the RayJob spec, its constants, and the helpers all actors share.

The informer cache is represented by lag, not by resourceVersions: per object a state
SYNC / FRESH / BEHIND, a lag count and the L views before the current one. Its moves are
the library's (checker/kubernetes/cache.py), on these variables through the hooks of "where
the caches live" below. A write moves
the object's cache to FRESH (current, but not yet observed: a `stale` fault may still
withhold it), keeping the view it replaced as the previous one and counting one more
earlier view the cache may still return, up to L. A `stale` fault makes the cache stand
at any of those (BEHIND, `lag` versions back); it catches up by itself, to any later
one; a read of FRESH makes it SYNC. So a read returns any version not older than the
last one the operator observed and at most L changes behind: what a lagging informer
can return (docs/design.md, "What a lagging cache returns"). L = 0 is a cache that is
always current.
"""
from checker import Bookkeeping, Const, Ghost, Int, Map, Option, SpecError, initial
from checker.kubernetes.cache import CacheVersions

from .types import (BACKOFF_LIMIT, EMPTY, NEW_RJ, OLDER, Age, CacheSt, ClStat, ClusterId, CrView,
                    ExitMode, Head, JobId, JobObj, JobView, JCond, Key, Kind, KvKey, Legacy, Mode,
                    Outcome, Pc, Phase, PodSlot, Rank, Rec, Result, RJBody, RJHead, Rules, Sidecar,
                    Sink, Stray, SubPod, Timer, SIDECAR_RESTART_LIMIT, WRITES)

Count = Int[0, 2]            # saturating: 2 means "more than once"


class RayJobState(CacheVersions):
    # ------------------------------------------------------------ constants
    mode = Const(Mode.K8S, "spec.submissionMode")
    backoff_limit = BACKOFF_LIMIT           # declared with RJBody.failed, whose domain it bounds
    sidecar_restart = Const(False, "feature gate SidecarSubmitterRestart (alpha, off by "
                                   "default, F:111): the sidecar submitter restarts on failure")
    sub_backoff_limit = Const(2, "submitterConfig.backoffLimit (KubeRay default 2)", min=0, max=2)
    shutdown_after_finishes = Const(True, "spec.shutdownAfterJobFinishes")
    ttl = Const(Rank.OFF, "ttlSecondsAfterFinished: OFF is 0 (clean up at once)")
    delete_rj_after_finish = Const(False, "env DELETE_RAYJOB_CR_AFTER_JOB_FINISHES")
    deletion_rules = Const(Rules.OFF, "spec.deletionStrategy.deletionRules (feature gate "
                                      "RayJobDeletionPolicy, on by default)")
    legacy_policy = Const(Legacy.OFF, "spec.deletionStrategy.onSuccess/onFailure (legacy; "
                                      "feature gate RayJobDeletionPolicy)")
    gcs_ft = Const(False, "GCS fault tolerance (Redis): job records survive a head restart")
    driver_on_worker = Const(False, "entrypoint_num_cpus / entrypoint_resources (or "
                                    "RAY_JOB_ALLOW_DRIVER_ON_WORKER_NODES): the job supervisor "
                                    "and its driver run on a worker node, not on the head")
    lazy_ft_recovery = Const(True, "Ray 2.60: an orphaned RUNNING record turns FAILED only "
                                   "on an agent-routed call (OBS §4.6)")
    follow_exit_on_head_stop = Const(ExitMode.EITHER, "`ray job logs --follow` exit code "
                                                      "when the head stops (OBS row 3)")
    spec_job_id = Const(False, "spec.jobId is set from the start (InteractiveMode: the user "
                               "may set it later)")
    active_deadline = Const(Rank.OFF, "spec.activeDeadlineSeconds")
    pre_running_deadline = Const(Rank.OFF, "spec.preRunningDeadlineSeconds")
    program = Const(Outcome.SUCCEED, "how the user's program ends")
    sink = Const(Sink.APPEND, "the program's external sink")
    L = Const(0, "informer lag bound in versions (0: the cache is always current)",
              min=0, max=2)
    F = Const(1, "total budget of faults and user interventions", min=0, max=3)
    stale_spans_time = Const(True, "may 30 s pass while a cache is behind")
    late_reconcile = Const(False, "may a reconcile owed come after a deadline passed (one "
                                  "worker, back-off, slow dashboard calls): not a fault")
    track_result = Const(False, "keep the last reconcile result (for liveness)")

    # ------------------------------------------------------------ API server
    rj: Option[RJHead] = NEW_RJ                  # None: the RayJob is gone
    rj_b: RJBody = EMPTY
    cl_cr: Map[ClusterId, bool] = Map.fill(False)          # RayCluster objects
    head: Map[ClusterId, Head] = Map.fill(Head.NONE)       # their head pods (may linger)
    provisioned: Map[ClusterId, bool] = Map.fill(False)    # SidecarMode: every pod was Ready
    workers_suspended: Map[ClusterId, bool] = Map.fill(False)   # by a DeleteWorkers rule
    job: Option[JobObj] = None                   # the submitter Job, named after the RayJob
    pods: Map[PodSlot, Option[SubPod]] = Map.fill(None)
    svc: Option[ClusterId] = None                # the RayJob head Service's selector
    sidecar: Map[ClusterId, Option[Sidecar]] = Map.fill(None)   # each head pod's submitter
    # ------------------------------------------------------------ Ray
    kv: Map[KvKey, Rec] = Map.fill(Rec.NONE)     # job records, per cluster GCS
    stray: Stray = Stray.NONE                    # a driver whose GCS forgot it (on a worker)
    # ------------------------------------------------------------ informer cache
    # per object: its state, how many earlier views it may return (FRESH) or how far
    # back it stands (BEHIND), the view one change back and the one two changes back
    # (bookkeeping: traces show it only when asked)
    rj_cache: Bookkeeping[CacheSt] = CacheSt.SYNC
    rj_lag: Bookkeeping[Int[0, L]] = 0
    rj_prev: Bookkeeping[Option[RJHead]] = None
    rj_prev_b: Bookkeeping[RJBody] = EMPTY
    rj_older: Bookkeeping[Option[RJHead]] = None
    rj_older_b: Bookkeeping[RJBody] = EMPTY
    cl_cache: Bookkeeping[Map[ClusterId, CacheSt]] = Map.fill(CacheSt.SYNC)
    cl_lag: Bookkeeping[Map[ClusterId, Int[0, L]]] = Map.fill(0)
    cl_prev: Bookkeeping[Map[ClusterId, CrView]] = Map.fill(CrView.ABSENT)
    cl_older: Bookkeeping[Map[ClusterId, CrView]] = Map.fill(CrView.ABSENT)
    job_cache: Bookkeeping[CacheSt] = CacheSt.SYNC
    job_lag: Bookkeeping[Int[0, L]] = 0
    job_prev: Bookkeeping[JobView] = JobView.ABSENT
    job_older: Bookkeeping[JobView] = JobView.ABSENT
    # ------------------------------------------------------------ operator memory
    Pc = Pc                                      # its type and its write calls, for the
    WRITES = WRITES                              # library's faults and failover
    pc: Pc = Pc.IDLE
    m_h: Option[RJHead] = None                   # the in-memory RayJob
    m_b: RJBody = EMPTY
    m_orig: Option[Key] = None                   # key fields of originalRayJobInstance
    m_fresh: Bookkeeping[bool] = False                        # its resourceVersion is the API server's
    m_sub_fin: bool = False                      # submitter finishedAt != nil (step 7)
    m_cl: ClStat = ClStat.NONE                   # cluster status read in Running
    m_clean: bool = False                        # nothing changed since this reconcile began
    op_down: bool = False
    # ------------------------------------------------------------ a paused ex-leader (failover.py)
    ex_pc: Pc = Pc.IDLE                          # its next call; IDLE: there is none
    ex_h: Option[RJHead] = None                  # its memory, as the operator's above
    ex_b: RJBody = EMPTY
    ex_orig: Option[Key] = None
    ex_fresh: Bookkeeping[bool] = False
    ex_sub_fin: bool = False
    ex_cl: ClStat = ClStat.NONE
    last_result: Result = Result.NONE
    # ------------------------------------------------------------ clock and faults
    t_subfin: Timer = Timer.OFF                  # Job finishedAt + 30 s
    t_grace: Timer = Timer.OFF                   # rayJobInfo.endTime + 300 s
    t_chk: Timer = Timer.OFF                     # jobStatusCheckFailureStartTime + 300 s
    t_active: Timer = Timer.OFF                  # startTime + activeDeadlineSeconds
    t_pre_running: Timer = Timer.OFF             # startTime + preRunningDeadlineSeconds
    t_ttl: Timer = Timer.OFF                     # endTime + ttlSecondsAfterFinished
    t_rule_hour: Timer = Timer.OFF               # endTime + a deletion rule's 1 h
    t_rule_day: Timer = Timer.OFF                # endTime + a deletion rule's 1 d
    settled: bool = False                        # the last reconcile changed nothing and saw
                                                 # every change: the operator waits
    budget: Int[0, F] = 0                        # set to F by `init`

    # ------------------------------------------------------------ ghosts
    attempted: Ghost[bool] = False               # an attempt has begun
    att_cluster: Ghost[Option[ClusterId]] = None     # the identity it persisted first
    att_job: Ghost[Option[JobId]] = None
    cl_attempt: Ghost[Map[ClusterId, Option[Age]]] = Map.fill(None)  # which attempt created it
    stray_att: Ghost[Option[Age]] = None         # the attempt of the stray driver
    named: Ghost[bool] = False                   # the current attempt has created a name
    two_names: Ghost[bool] = False               # some attempt created two
    cl_creates: Ghost[Map[Age, Count]] = Map.fill(0)
    job_creates: Ghost[Map[Age, Count]] = Map.fill(0)
    driver_starts: Ghost[Map[Age, Count]] = Map.fill(0)
    # claim 3 counts driver starts per cluster name, not per `Age`: each attempt creates
    # one name (claim 1a) and a name is drawn afresh with its count reset, so a name's
    # count is its attempt's, exactly, where the `OLD` bucket merges all older attempts
    cl_driver_starts: Ghost[Map[ClusterId, Count]] = Map.fill(0)
    submit_calls: Ghost[Map[Age, Count]] = Map.fill(0)      # read by the no-fault lemmas only
    # claim 12 likewise: a suspended attempt's sidecar container submits late from its
    # lingering head, and the `OLD` bucket would add it to another older attempt's submit
    cl_submit_calls: Ghost[Map[ClusterId, Count]] = Map.fill(0)
    att_failed: Ghost[Map[Age, bool]] = Map.fill(False)
    att_succ: Ghost[Map[Age, bool]] = Map.fill(False)
    retries: Ghost[Int[0, backoff_limit + 1]] = 0
    effects: Ghost[Count] = 0
    job_ident_bad: Ghost[bool] = False
    pod_overlap: Ghost[bool] = False
    cr_overlap: Ghost[bool] = False
    bad_retry_reason: Ghost[bool] = False
    ttl_early: Ghost[bool] = False
    cleanup_overreach: Ghost[bool] = False
    fin_wo_stop: Ghost[bool] = False
    complete_wo_sub: Ghost[bool] = False
    id_overflow: Ghost[bool] = False
    stop_attempted: Ghost[bool] = False
    crash_phase: Ghost[Option[Phase]] = None     # persisted phase at the last crash
    lost_create: Ghost[bool] = False
    recovered: Ghost[bool] = False               # AlreadyExists after a lost create
    ttl_cleanup: Ghost[bool] = False
    finalizer_removed: Ghost[bool] = False       # a deletion went through the finalizer
    resumed: Ghost[bool] = False
    failed_over: Ghost[bool] = False             # a leader-election failover happened

    @initial
    def init(s):
        """A new RayJob, nothing else; the fault budget is full. Rejects constants that
        KubeRay's validation rejects (V:547-549, V:591-602, V:753-773), so ValidationFailed is never
        entered."""
        if s.ttl is not Rank.OFF and not s.shutdown_after_finishes:
            raise SpecError("ttlSecondsAfterFinished needs shutdownAfterJobFinishes (V:753-755)")
        if s.deletion_rules is not Rules.OFF and s.shutdown_after_finishes:
            raise SpecError("deletionRules and shutdownAfterJobFinishes are mutually "
                            "exclusive (V:771-773)")
        if s.deletion_rules is not Rules.OFF and s.legacy_policy is not Legacy.OFF:
            raise SpecError("deletionRules and the legacy onSuccess/onFailure policies are "
                            "mutually exclusive (V:774-776)")
        if s.mode is Mode.INTERACTIVE and s.backoff_limit > 0:
            raise SpecError("InteractiveMode rejects a positive backoffLimit (V:587-589)")
        s.rj = s.rj._replace(job_id_set=s.spec_job_id)
        if s.mode is Mode.SIDECAR and s.sub_backoff_limit != SIDECAR_RESTART_LIMIT:
            raise SpecError("SidecarMode rejects submitterConfig (V:595-597): its restart "
                            "limit is 2")
        s.budget = s.F

    # ------------------------------------------------------------ what objects look like
    def _cl_view(s, c) -> CrView:
        """A RayCluster's `state` is Ready from the first time every pod was Ready, and
        never reset (raycluster.py); outside SidecarMode that is while its head serves
        (S4)."""
        if not s.cl_cr[c]:
            return CrView.ABSENT
        ready = s.provisioned[c] if s._provisioning_split() else s.head[c] is Head.SERVING
        return CrView.READY if ready else CrView.NOT_READY

    def _provisioning_split(s) -> bool:
        """Is Ready a step of its own (SidecarMode), or the head serving (S4)?"""
        return s.mode is Mode.SIDECAR

    def _head_lost(s, c) -> bool:
        """SidecarMode: c's head pod is gone for good, its RayCluster provisioned."""
        return (s.mode is Mode.SIDECAR and s.cl_cr[c] and s.provisioned[c]
                and s.head[c] is Head.NONE)

    def _job_view(s) -> JobView:
        if s.job is None:
            return JobView.ABSENT
        return {JCond.NONE: JobView.ACTIVE, JCond.COMPLETE: JobView.COMPLETE,
                JCond.FAILED: JobView.FAILED}[s.job.cond]

    # ------------------------------------------------------------ writes (API server side)
    def _write_rj(s, h, b, own: bool = False):
        """Apply a RayJob write; any write but the operator's own moves the resourceVersion
        past the operator's in-memory copy (its next write gets 409)."""
        s.m_clean = False
        s._cache_replaced(Kind.RAYJOB, (s.rj, s.rj_b))
        s.rj, s.rj_b = h, b
        if not own:
            s.m_fresh = False
        s.ex_fresh = False                        # a paused ex-leader's copy (failover.py)

    def _set_cluster(s, c, cr: bool, head: Head):
        """A write of the RayCluster `c` or its head pod: a new cache version only where
        the operator's view of it changes."""
        s.m_clean = False
        old = s._cl_view(c)
        s.cl_cr[c], s.head[c] = cr, head
        s._cluster_view_moved(c, old)

    def _cluster_view_moved(s, c, old: CrView):
        """The RayCluster `c` changed: a new cache version if the operator's view did."""
        s.m_clean = False
        if s._cl_view(c) is not old:
            s._cache_replaced(c, old)

    def _set_job(s, job):
        s.m_clean = False
        old = s._job_view()
        s.job = job
        if s._job_view() is not old:
            s._cache_replaced(Kind.JOB, old)

    # ------------------------------------------------------------ where the caches live
    # The library's informer cache (checker/kubernetes/cache.py: `_cache_at`, `_cache_replaced`,
    # the actions of cache.py) reads and writes the cache of the RayJob (`Kind.RAYJOB`),
    # of a RayCluster (its `ClusterId`) and of the Job (`Kind.JOB`) through these hooks.
    # A forgotten view (None) is kept as the view of no object: (None, EMPTY), ABSENT.
    def _cache_st(s, k) -> CacheSt:
        return s.rj_cache if k is Kind.RAYJOB else s.job_cache if k is Kind.JOB else s.cl_cache[k]

    def _cache_lag(s, k) -> int:
        return s.rj_lag if k is Kind.RAYJOB else s.job_lag if k is Kind.JOB else s.cl_lag[k]

    def _cache_view(s, k, back: int):
        if k is Kind.RAYJOB:
            return (s.rj_older, s.rj_older_b) if back == 2 else (s.rj_prev, s.rj_prev_b)
        if k is Kind.JOB:
            return s.job_older if back == 2 else s.job_prev
        return s.cl_older[k] if back == 2 else s.cl_prev[k]

    def _set_cache(s, k, st: CacheSt, lag: int, prev=None, older=None):
        if k is Kind.RAYJOB:
            s.rj_cache, s.rj_lag = st, lag
            s.rj_prev, s.rj_prev_b = (None, EMPTY) if prev is None else prev
            s.rj_older, s.rj_older_b = (None, EMPTY) if older is None else older
        elif k is Kind.JOB:
            s.job_cache, s.job_lag = st, lag
            s.job_prev = JobView.ABSENT if prev is None else prev
            s.job_older = JobView.ABSENT if older is None else older
        else:
            s.cl_cache[k], s.cl_lag[k] = st, lag
            s.cl_prev[k] = CrView.ABSENT if prev is None else prev
            s.cl_older[k] = CrView.ABSENT if older is None else older

    # ------------------------------------------------------------ reads (operator side)
    # A Get is the library's `_read(k)`: what a current cache returns is the RayJob
    # (`(rj, rj_b)`) or the view of the RayCluster or Job; the operator keeps whether its
    # copy is current for the RayJob only (`m_fresh`): it writes no other object with a
    # resourceVersion (its creates go by name, its deletes are unconditional).
    def _stored(s, k):
        if k is Kind.RAYJOB:
            return s.rj, s.rj_b
        if k is Kind.JOB:
            return s._job_view()
        return s._cl_view(k)

    def _set_fresh(s, k, fresh: bool):
        if k is Kind.RAYJOB:
            s.m_fresh = fresh

    def _read_cluster(s, c) -> CrView:
        """A Get of the RayCluster named `c` (None: no name persisted yet, NotFound)."""
        if c is None:
            return CrView.ABSENT
        return s._read(c)

    def _resync(s):
        """A fresh consistent LIST (operator restart): every cache is current."""
        for k in (Kind.RAYJOB, Kind.JOB, *ClusterId):
            s._cache_at(k, 0)

    def _any_behind(s) -> bool:
        return (s.rj_cache is CacheSt.BEHIND or s.job_cache is CacheSt.BEHIND
                or CacheSt.BEHIND in s.cl_cache.values())

    # ------------------------------------------------------------ operator memory
    def _forget(s):
        """Operator memory is volatile: cleared when a reconcile ends or the operator dies."""
        s.pc, s.m_h, s.m_b, s.m_orig = Pc.IDLE, None, EMPTY, None
        s.m_fresh = s.m_sub_fin = False
        s.m_cl = ClStat.NONE

    def _process_exits(s):
        """The operator process dies (a crash, an outage, an ex-leader's exit): its memory
        is gone, and the next reconcile is owed before time may pass (`_event`)."""
        s._event()
        s._forget()

    def _process_starts(s):
        """A new operator process: its informer cache filled by a LIST, current; the
        initial LIST enqueues the RayJob, so a reconcile is owed."""
        s._event()
        s._resync()

    def _interrupted(s):
        """The reconcile under way died with its process (a crash, a failover): for
        liveness it counts as one that returned an error (`_reconcile_owed`)."""
        if s.track_result:
            s.last_result = Result.ERROR

    def _end(s, result: Result):
        """The reconcile returns `result`. If it wrote nothing and nothing else moved
        meanwhile, it reached a fixpoint: only time can change what the next one does."""
        s._forget()
        s.settled = s.m_clean
        s.m_clean = False
        if s.track_result:
            s.last_result = result

    def _reconcile_owed(s) -> bool:
        """Fairness of `op_start` (controller-runtime's work queue): a reconcile is owed
        after one that returned RequeueAfter or an error (rate-limited requeue), or when a
        watched object changed since the last one ended: SetupWithManager watches the
        RayJob and its RayClusters, Services and Jobs without predicates (C:864-881), so
        the operator's own writes count. A `{}` result with nothing changed owes nothing.
        Needs `track_result`. `settled` also turns false on unwatched events (pods, Ray)
        and when time passes (`tick`); that over-approximation is harmless here: every
        branch returning `{}` (RayJob gone, Suspended, Complete/Failed without more
        clean-up) returns `{}` again unless a watched object changed. (It would hide a
        mutant that returns `{}` where a deadline is pending instead of RequeueAfter.)"""
        return s.last_result in (Result.REQUEUE, Result.ERROR) or not s.settled

    def _reconciling(s, *at) -> bool:
        """A reconcile is under way (at one of the calls `at`, if given) with the RayJob it
        read in memory, as lemma_idle_operator_remembers_nothing says it always is: the
        lemmas read that memory only then, so that each is defined on every state."""
        return (s.pc is not Pc.IDLE and (not at or s.pc in at)
                and s.m_h is not None and s.m_orig is not None)

    # ------------------------------------------------------------ events and faults
    def _event(s):
        """Another actor moved: the next reconcile is owed before time may pass."""
        s.settled = s.m_clean = False

    def _fault(s):
        """Spend one unit of the fault budget (guard `budget > 0` in the action)."""
        s.budget -= 1
        s._event()

    # ------------------------------------------------------------ ghost helpers
    @staticmethod
    def _bump(counter, key):
        """One more at `key` (an Age or a cluster name; None: no attempt, nothing to
        count), saturating at 2: the claims only tell once from more than once."""
        if key is not None:
            counter[key] = min(counter[key] + 1, 2)

    def _count_for_attempt(s, per_attempt, per_name, c: ClusterId):
        """One more at the attempt that created the name `c` and at `c` itself (a name no
        attempt created counts for none)."""
        s._bump(per_attempt, s.cl_attempt[c])
        s._bump(per_name, None if s.cl_attempt[c] is None else c)

    def _current(s) -> Age | None:
        return Age.CUR if s.attempted else None

    def _age_attempts(s):
        """A new attempt begins: the current one becomes the previous one, the previous
        one joins the older ones (its counts folded into theirs by max)."""
        for c in ClusterId:
            s.cl_attempt[c] = OLDER[s.cl_attempt[c]]
        s.stray_att = OLDER[s.stray_att]
        for counter in (s.cl_creates, s.job_creates, s.driver_starts, s.submit_calls):
            counter[Age.OLD] = max(counter[Age.OLD], counter[Age.PREV])
            counter[Age.PREV], counter[Age.CUR] = counter[Age.CUR], 0
        for mark in (s.att_failed, s.att_succ):
            mark[Age.OLD] = mark[Age.OLD] or mark[Age.PREV]
            mark[Age.PREV], mark[Age.CUR] = mark[Age.CUR], False
        s.attempted, s.named = True, False
