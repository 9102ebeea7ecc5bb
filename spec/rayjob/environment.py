"""Faults, the user, and the abstract clock.

Every fault and user intervention spends one unit of the single budget F, so a
counterexample found with budget F needs that many faults. Faults on an operator step
exist only where their outcome differs from the step's normal one.

Fairness: faults and user actions are never fair (they happen finitely often); an
outage ends (weakly fair: the Deployment restarts the operator, leader election picks
it); the clock is strongly fair (see `tick`).

The operator's faults (crash, outage, failed write, lost response) are the library's
(checker/kubernetes/faults.py): the process exiting and starting are the operator's
(state.py), its call the `op_<call>` step (`_call`, operator.py), and what a failed
write returns is `_write_failed` here. `crash` and `write_lost` add their ghosts.
"""
from checker import GroupOn, action, fault, require

from checker import kubernetes

from .state import RayJobState
from .types import DASHBOARD_CALLS, ClusterId, KvKey, Pc, Rank, Result, Timer, NONTERMINAL_RECS

TIMERS = ("t_subfin", "t_grace", "t_chk", "t_active", "t_pre_running", "t_ttl", "t_rule_hour",
          "t_rule_day")


class Environment(RayJobState, kubernetes.OperatorFaults):   # RayJobState's `_fault` first
    editable = GroupOn("user_edit")      # the user may make the spec invalid (user_edits_spec)

    # ------------------------------------------------------------ operator faults
    @fault(group="crash")
    def crash(s):
        """Operator crash (§13.4): the process dies between two calls; its memory is lost and
        the restarted operator starts from a fresh, consistent LIST (the library's crash;
        the ghost `crash_phase` records the persisted phase)."""
        super().crash()
        s.crash_phase = s.rj.phase if s.rj is not None else None
        s._interrupted()

    def _write_failed(s):
        """Write failure (§13.4): Reconcile returns the error (`RequeueAfter 3s, err`,
        rate-limited retry), for a write not applied and for a lost response alike."""
        s._end(Result.ERROR)

    @fault(group="write_lost")
    def write_lost(s):
        """Lost response (§13.4): the pending write is applied, but the operator sees an error
        (timeout) and returns; the rest of its computation never happens (the library's
        write_lost; the ghost `lost_create` records a lost create)."""
        creating = s.pc in (Pc.CREATE_CLUSTER, Pc.CREATE_JOB)
        super().write_lost()
        s.lost_create = s.lost_create or creating

    @fault(group="net")
    def dashboard_error(s):
        """Ray dashboard failure (§13.4): GetJobInfo / SubmitJob fail (C:321-325,
        C:1307-1321); a StopJob error is only logged (C:127-129)."""
        require(s.budget > 0 and s.pc in DASHBOARD_CALLS)
        s._fault()
        if s.pc is Pc.GET_JOB_INFO:
            s._job_info(None)
        elif s.pc is Pc.SUBMIT_JOB:
            s._submit_job(deliver=False, answer=False)
        else:
            s.stop_attempted = True
            s.pc = Pc.FIN_REMOVE                  # StopJob errors are only logged

    @fault(group="net")
    def dashboard_lost(s):
        """SubmitJob lost response (§13.4): the head accepted it, the reply is lost."""
        require(s.budget > 0 and s.pc is Pc.SUBMIT_JOB)
        require(s._submit_job(deliver=True, answer=False))
        s._fault()

    # ------------------------------------------------------------ the user
    def _user(s) -> bool:
        return s.budget > 0 and s.rj is not None and not s.rj.deleting

    @fault(group="user_delete_rj")
    def user_delete_rj(s):
        """`kubectl delete rayjob` (§7): a deletionTimestamp while the finalizer is there,
        else the RayJob is gone at once."""
        require(s._user())
        s._fault()
        s.stop_attempted = False
        s._user_or_owner_delete()

    @fault(group="user_suspend")
    def user_toggle_suspend(s):
        """The user flips spec.suspend (§9: only Initializing and Running react)."""
        require(s._user())
        s._fault()
        s._write_rj(s.rj._replace(suspend=not s.rj.suspend), s.rj_b)

    @fault(group="user_edit")
    def user_edits_spec(s):
        """The user edits the RayJob's spec into one validateRayJob rejects (C:145-162), or
        back (§3.8)."""
        require(s._user())
        s._fault()
        s._write_rj(s.rj._replace(valid=not s.rj.valid), s.rj_b)

    @fault(group="user_delete_cluster")
    def user_delete_cluster(s, c: ClusterId):
        """External deletion of the RayCluster (§13.4): the CR goes, its pods linger (with
        GCS fault tolerance the head goes first, `_cr_deleted`)."""
        require(s.budget > 0 and s.cl_cr[c])
        s._fault()
        s._cr_deleted(c)

    @fault(group="user_delete_job")
    def user_delete_job(s):
        """External deletion of the submitter Job (§13.4, background: its pod lingers)."""
        require(s.budget > 0 and s.job is not None)
        s._fault()
        s._remove_job()

    @fault(group="user_ray_stop")
    def user_ray_stop(s, k: KvKey):
        """`ray job stop` by the user (§12.5, OBS row 4): the job ends STOPPED."""
        require(s.budget > 0 and s.kv[k] in NONTERMINAL_RECS and s._serving(k))
        s._fault()
        s._ray_stop(k)

    # ------------------------------------------------------------ the clock
    def _rank(s, name) -> Rank:
        """A deadline's duration; OFF for one this configuration never arms."""
        return {"t_subfin": Rank.SHORT, "t_grace": Rank.LONG, "t_chk": Rank.LONG,
                "t_active": s.active_deadline, "t_pre_running": s.pre_running_deadline,
                "t_ttl": s.ttl, "t_rule_hour": s._rule_timer_rank("t_rule_hour"),
                "t_rule_day": s._rule_timer_rank("t_rule_day")}[name]

    @action(group="clock", fair="strong")
    def tick(s, r: Rank):
        """The clock (§13.2): time passes until every armed deadline of duration <= r has
        expired (durations C:37-41, K:284-290), so deadlines with a common start fire in
        the order of their durations. Time passes while the operator is down; while it
        is idle after a reconcile that changed nothing and saw every change (it requeues
        every 3 s); and, with `late_reconcile`, whenever no reconcile is under way: the
        work queue (controller-runtime's, one worker by default, MaxConcurrentReconciles
        at C:864-881) may hold the RayJob past a deadline although a reconcile is owed:
        other RayJobs' reconciles, each waiting up to the dashboard client's HTTP
        timeout, and the per-object exponential back-off after errors. This is normal
        operation, not a fault: it spends no budget. Without it, 30 s never pass between
        an event and the next reconcile.
        Fairness: time always passes, but this guard is off during every reconcile, so a
        polling operator disables `tick` again and again; weak fairness would let it stop
        the clock. Strong fairness says what is meant: a deadline whose time can come
        comes."""
        require(s.op_down or (s.pc is Pc.IDLE and (s.late_reconcile or s.settled)
                              and (s.stale_spans_time or not s._any_behind())))
        armed = [t for t in TIMERS
                 if s._rank(t) is not Rank.OFF and getattr(s, t) is Timer.ARMED]
        require(any(s._rank(t) is r for t in armed))
        for t in armed:
            if s._rank(t).value <= r.value:
                setattr(s, t, Timer.FIRED)
        s.settled = False
