"""Lemmas: facts about the operator's memory, the API server and the ghosts that make the
properties inductive, so that PDR proves them for every backoffLimit and fault budget.

They are ordinary invariants of the proof specs (spec/rayjob/proofs/__init__.py): the
tests check them on every bounded model (and on whatever states a mutant reaches, so each
is defined on every state: none indexes a map with a name that may be None or reads a
RayJob that may be absent), and the symbolic engines prove them. PDR takes them as Houdini candidates (see
checker/symbolic/pdr.py): together with the properties they are inductive, that is, no
step leads from a state satisfying all of them to one violating any. Each is a reading of
the controller's code, and says why it holds.

Those about the cluster and Job a RayJob owns hold only with an exact cache (`L == 0`):
with lag, a Get may miss an object the operator just created or deleted.
"""
from checker import invariant

from ..state import RayJobState
from ..types import (EMPTY, NOT_RETRIED, Age, CacheSt, ClStat, ClusterId, CrView, JCond,
                    JobId, JobView, Mode, Pc, Phase, PodSlot, Rank, Stray, Timer, key)

NAMED_CALLS = (Pc.CREATE_CLUSTER, Pc.CREATE_JOB, Pc.CREATE_SVC, Pc.UPDATE_SVC,
               Pc.GET_JOB_INFO, Pc.SUBMIT_JOB)

# The phases the in-memory RayJob can be in at each call before the status write: the
# phase read, unchanged (every branch that changes it ends in updateRayJobStatus).
PHASES_AT = {Pc.FIN_ADD: (Phase.NEW,), Pc.CREATE_CLUSTER: (Phase.INITIALIZING, Phase.RUNNING),
             Pc.CREATE_JOB: (Phase.INITIALIZING,), Pc.CREATE_SVC: (Phase.RUNNING,),
             Pc.UPDATE_SVC: (Phase.RUNNING,), Pc.GET_JOB_INFO: (Phase.RUNNING,),
             Pc.SUBMIT_JOB: (Phase.RUNNING,),
             Pc.DELETE_CLUSTER: (Phase.SUSPENDING, Phase.RETRYING, Phase.COMPLETE, Phase.FAILED),
             Pc.DELETE_JOB: (Phase.SUSPENDING, Phase.RETRYING),
             Pc.DELETE_RJ: (Phase.COMPLETE, Phase.FAILED),
             Pc.SUSPEND_WORKERS: (Phase.COMPLETE, Phase.FAILED)}

# The phases one reconcile may write, by the phase it read (Complete and Failed never
# write status: handleShutdownAfterJobFinishes only deletes).
WRITES_FROM = {Phase.NEW: (Phase.INITIALIZING,),
               Phase.INITIALIZING: (Phase.INITIALIZING, Phase.RUNNING, Phase.SUSPENDING,
                                    Phase.FAILED, Phase.RETRYING, Phase.WAITING),
               Phase.WAITING: (Phase.RUNNING, Phase.FAILED),
               Phase.VALIDATION_FAILED: (),
               Phase.RUNNING: (Phase.RUNNING, Phase.FAILED, Phase.COMPLETE, Phase.RETRYING,
                               Phase.SUSPENDING),
               Phase.SUSPENDING: (Phase.SUSPENDED,), Phase.RETRYING: (Phase.NEW,),
               Phase.SUSPENDED: (Phase.NEW,), Phase.COMPLETE: (), Phase.FAILED: ()}


def _named(h, b, waits_for_job_id: bool) -> bool:
    """initRayJobStatusIfNeed names the cluster and the job id together with Initializing,
    the Suspending / Retrying reset clears both with Suspended / New; dashboardURL is set
    only for a named cluster. InteractiveMode names the job id later, spec.jobId, as
    Waiting goes Running (C:237-248): none before, and Running has it."""
    if h is None:
        return True
    if h.phase is Phase.VALIDATION_FAILED:         # may be entered from any phase
        return not b.dash or b.cluster is not None
    unnamed = h.phase in (Phase.NEW, Phase.SUSPENDED)
    if waits_for_job_id:
        job_id_ok = (b.job_id is JobId.JS if h.phase is Phase.RUNNING
                     else b.job_id is None or (b.job_id is JobId.JS and h.phase not in (
                         Phase.NEW, Phase.SUSPENDED, Phase.INITIALIZING, Phase.WAITING)))
    else:
        job_id_ok = b.job_id is None if unnamed else b.job_id is not None
    return ((b.cluster is None) == unnamed and job_id_ok
            and (not b.dash or b.cluster is not None))


def _failures_counted(s, h, b) -> bool:
    """status.failed grows by one per Failed attempt (C:518-557) and a retry needs
    failed < backoffLimit + 1: only a Failed RayJob may have used them all, or one a spec
    edit then turned ValidationFailed (validation runs in every phase, C:145-162, and
    keeps the counts)."""
    return h is None or (b.failed <= s.backoff_limit + 1
                         and (h.phase in (Phase.FAILED, Phase.VALIDATION_FAILED)
                              or b.failed <= s.backoff_limit))


class Lemmas(RayJobState):
    @invariant
    def lemma_exact_caches(s):
        """With no lag (`L == 0`) every read is current: no cache is ever behind."""
        if s.L:
            return True
        return (s.rj_cache is CacheSt.SYNC and s.job_cache is CacheSt.SYNC
                and s.rj_lag == 0 and s.job_lag == 0
                and s.rj_prev is None and s.rj_prev_b == EMPTY
                and s.rj_older is None and s.rj_older_b == EMPTY
                and s.job_prev is JobView.ABSENT and s.job_older is JobView.ABSENT
                and all(s.cl_cache[c] is CacheSt.SYNC and s.cl_lag[c] == 0
                        and s.cl_prev[c] is CrView.ABSENT and s.cl_older[c] is CrView.ABSENT
                        for c in ClusterId))

    @invariant
    def lemma_an_ex_leader_needs_a_fault(s):
        """Only a failover (a fault: F > 0) leaves a paused ex-leader, or marks one."""
        return s.F > 0 or (not s.failed_over and s.ex_pc is Pc.IDLE and s.ex_h is None
                           and s.ex_b == EMPTY
                           and s.ex_orig is None and not s.ex_fresh and not s.ex_sub_fin
                           and s.ex_cl is ClStat.NONE)

    @invariant
    def lemma_strays_need_worker_drivers(s):
        """A driver outlives its GCS only on a worker node (`driver_on_worker`)."""
        return s.driver_on_worker or s.stray is Stray.NONE

    @invariant
    def lemma_idle_operator_remembers_nothing(s):
        """Reconcile's locals live from the cache read (C:89-142) to its return; between
        two reconciles, or after a crash, there are none."""
        if s.pc is Pc.IDLE:
            return (s.m_h is None and s.m_b == EMPTY and s.m_orig is None and not s.m_fresh
                    and not s.m_sub_fin and s.m_cl is ClStat.NONE)
        return s.m_h is not None and s.m_orig is not None

    @invariant
    def lemma_identity_named_outside_new_and_suspended(s):
        """Persisted or in memory, a RayJob outside New and Suspended names its cluster and
        job id; a deleted one has an empty status."""
        interactive = s.mode is Mode.INTERACTIVE
        return (_named(s.rj, s.rj_b, interactive) and _named(s.m_h, s.m_b, interactive)
                and (s.rj is not None or s.rj_b == EMPTY))

    @invariant
    def lemma_phases_and_deadlines_of_the_configuration(s):
        """Waiting is entered only in InteractiveMode, an invalid spec and ValidationFailed
        only after a user's edit (a fault of the group `user_edit`); a deadline the
        configuration does not set (pre-running, a deletion rule's) is never armed."""
        for h in (s.rj, s.rj_prev, s.rj_older, s.m_h, s.ex_h):
            if h is not None and (h.phase is Phase.WAITING and s.mode is not Mode.INTERACTIVE
                                  or not s._may_be_invalid() and (h.phase is Phase.VALIDATION_FAILED
                                                                  or not h.valid)):
                return False
        return all(s._rank(t) is not Rank.OFF or getattr(s, t) is Timer.OFF
                   for t in ("t_pre_running", "t_rule_hour", "t_rule_day"))

    @invariant
    def lemma_finalizer_before_initializing(s):
        """New adds the finalizer before it initializes the status (C:166-178); only the
        operator removes it, and only as the reconcile's last call (C:132-137), so the
        RayJob its memory holds with a finalizer still exists with it, unless a lagging
        cache (`L >= 1`) returned its deletion after it was gone. (ValidationFailed may be
        written from New, before the finalizer.)"""
        for h in (s.rj, s.m_h):
            if (h is not None and h.phase not in (Phase.NEW, Phase.VALIDATION_FAILED)
                    and not h.finalizer):
                return False
        if s.m_h is not None and s.m_h.finalizer:
            return s.rj.finalizer if s.rj is not None else s.L > 0 and s.m_h.deleting
        return True

    @invariant
    def lemma_fresh_copy_is_the_api_servers(s):
        """While the copy's resourceVersion is current, no one else wrote the RayJob since
        it was read: its metadata and the key fields it read (originalRayJobInstance,
        C:142) are the persisted ones."""
        if not s.m_fresh:
            return True
        h, r = s.m_h, s.rj
        return (r is not None and h is not None and s.m_orig == key(r, s.rj_b)
                and (h.finalizer, h.deleting, h.suspend) == (r.finalizer, r.deleting, r.suspend))

    @invariant
    def lemma_call_fits_the_phase(s):
        """Each call belongs to one branch of Reconcile (C:112-447): the deletion branch
        exactly for a RayJob read with a deletionTimestamp; the phase is the one read until
        the status write, which writes one of the phases that branch can reach. Only
        K8sJobMode creates a submitter Job, only HTTPMode submits itself."""
        if not s._reconciling():
            return True
        if s.m_h.deleting != (s.pc in (Pc.STOP_JOB, Pc.FIN_REMOVE)):
            return False
        if (s.pc is Pc.CREATE_JOB and s.mode is not Mode.K8S
                or s.pc is Pc.SUBMIT_JOB and s.mode is not Mode.HTTP):
            return False
        if s.pc is Pc.STATUS_WRITE:
            return (s.m_h.phase in WRITES_FROM[s.m_orig.phase]
                    or s.m_h.phase is Phase.VALIDATION_FAILED)      # validation, C:145-162
        if s.pc in PHASES_AT:
            return s.m_h.phase is s.m_orig.phase and s.m_h.phase in PHASES_AT[s.pc]
        return True

    @invariant
    def lemma_submitter_pods_belong_to_an_active_job(s):
        """The Job controller runs a pod only for an active Job, and fails the Job after
        more than submitterConfig.backoffLimit failed pods; only K8sJobMode has a Job."""
        job = s.job
        if s.pods[PodSlot.CUR] is not None and (job is None or job.cond is not JCond.NONE):
            return False
        if job is not None and (s.mode is not Mode.K8S or not (
                job.failures <= s.sub_backoff_limit
                or (job.cond is JCond.FAILED and job.failures == s.sub_backoff_limit + 1))):
            return False
        return True

    @invariant
    def lemma_failed_counts_bounded(s):
        """Persisted, cached or in memory, status.failed stays within backoffLimit + 1."""
        return (_failures_counted(s, s.rj, s.rj_b) and _failures_counted(s, s.m_h, s.m_b)
                and _failures_counted(s, s.rj_prev, s.rj_prev_b)
                and _failures_counted(s, s.rj_older, s.rj_older_b))

    @invariant
    def lemma_copy_counts_one_failure(s):
        """A current copy's failed is the persisted one, plus one once this reconcile
        turned it Failed (checkBackoffLimitAndUpdateStatusIfNeeded, C:518-557), and a
        retry it decided leaves room for one more."""
        if not s._reconciling() or not s.m_fresh:
            return True
        if s.pc is not Pc.STATUS_WRITE:
            return s.m_b.failed == s.rj_b.failed
        failing = s.m_h.phase in (Phase.FAILED, Phase.RETRYING)
        return (s.m_b.failed == s.rj_b.failed + failing
                and (s.m_h.phase is not Phase.RETRYING or s.m_b.failed <= s.backoff_limit))

    @invariant
    def lemma_retries_trail_failures(s):
        """Each retry (Retrying -> New) follows one counted failure: retries <= failed, and
        < failed while Failed or Retrying."""
        if s.rj is None:
            return True
        return s.retries + (s.rj.phase in (Phase.FAILED, Phase.RETRYING)) <= s.rj_b.failed

    @invariant
    def lemma_retrying_reason_is_retried(s):
        """Retrying is entered only with a reason that may be retried (C:542-555); the
        reason changes only with the phase."""
        return all(h is None or h.phase is not Phase.RETRYING or h.reason not in NOT_RETRIED
                   for h in (s.rj, s.m_h))

    @invariant
    def lemma_calls_use_the_persisted_identity(s):
        """Creates, Service updates and dashboard calls use the identity the RayJob
        persisted (only the operator's status write changes it, and that ends the
        reconcile); a current copy written back keeps it, unless it resets it or, from
        Waiting (InteractiveMode), names the job id. ValidationFailed (a spec edit) keeps
        it whatever the phase read, New and Suspended included (C:145-162)."""
        if s.pc in NAMED_CALLS:
            return s.rj is not None and (s.m_b.cluster, s.m_b.job_id) == (s.rj_b.cluster,
                                                                          s.rj_b.job_id)
        if not s._reconciling(Pc.STATUS_WRITE) or not s.m_fresh:
            return True
        if s.m_h.phase is Phase.VALIDATION_FAILED:      # the status as read (C:145-162)
            return (s.m_b.cluster, s.m_b.job_id) == (s.rj_b.cluster, s.rj_b.job_id)
        unnamed = (Phase.NEW, Phase.SUSPENDED)
        if s.m_orig.phase not in unnamed and s.m_h.phase not in unnamed:
            names_job_id = s.m_orig.phase is Phase.WAITING and s.rj_b.job_id is None
            return (s.m_b.cluster == s.rj_b.cluster
                    and (s.m_b.job_id == s.rj_b.job_id or names_job_id))
        return True

    @invariant
    def lemma_identity_stable_unless_edited_between_attempts(s):
        """Claim 4 but where a spec edit turned a RayJob between attempts (New after a
        retry, Suspended), its identity cleared, ValidationFailed: that refutes the claim
        (slow/user_suspend_retry_F2), and nothing is created after it (no branch, C:448)."""
        if (not s.attempted or s.rj is None or s.rj.phase in (Phase.NEW, Phase.SUSPENDED)
                or s.rj.phase is Phase.VALIDATION_FAILED and s.rj_b.cluster is None):
            return True
        return (s.rj_b.cluster, s.rj_b.job_id) == (s.att_cluster, s.att_job)

    @invariant
    def lemma_attempt_begun_outside_new(s):
        """A RayJob leaves New only by the write that begins an attempt, or for
        ValidationFailed, which keeps the status it read (C:145-162): until an attempt
        begins, the RayJob names no identity."""
        return s.rj is None or s.attempted or (
            s.rj.phase in (Phase.NEW, Phase.VALIDATION_FAILED)
            and s.rj_b.cluster is None and s.rj_b.job_id is None)

    @invariant
    def lemma_created_name_is_the_attempts(s):
        """Only the attempt's persisted cluster name is created in it (ghost bookkeeping of
        p1a): a name marked as created by the current attempt is att_cluster. Between
        attempts (New, Suspended, or ValidationFailed from one of them after a spec edit,
        its identity still cleared) the next name may already be drawn: when the pool
        overflowed, that may be att_cluster's (`s_model_bounds`)."""
        if s.rj is None or s.rj.phase in (Phase.NEW, Phase.SUSPENDED) or (
                s.rj.phase is Phase.VALIDATION_FAILED and s.rj_b.cluster is None):
            return True
        if s.named and (not s.attempted or s.att_cluster is None
                        or s.cl_attempt[s.att_cluster] is not Age.CUR):
            return False
        return all(s.cl_attempt[c] is not Age.CUR or c is s.att_cluster for c in ClusterId)

    @invariant
    def lemma_name_starts_count_for_its_attempt(s):
        """A driver start on a cluster name counts for the attempt that created it (both
        ghosts are bumped together, `driver_start`), and a name is drawn afresh with both
        reset: a name's starts are at most its attempt's (p3 from the attempts' counts)."""
        return all(s.cl_driver_starts[c] <= (0 if s.cl_attempt[c] is None
                                             else s.driver_starts[s.cl_attempt[c]])
                   for c in ClusterId)

    @invariant
    def lemma_name_submits_count_for_its_attempt(s):
        """The same of submit calls (`_ray_submit`): p12 from the attempts' counts."""
        return all(s.cl_submit_calls[c] <= (0 if s.cl_attempt[c] is None
                                            else s.submit_calls[s.cl_attempt[c]])
                   for c in ClusterId)

    @invariant
    def lemma_persisted_cluster_is_the_attempts(s):
        """The cluster name persisted in an attempt is the one it first persisted: only the
        Suspending / Retrying reset clears it, and the next name begins a new attempt
        (initRayJobStatusIfNeed, C:166-178)."""
        return (s.rj is None or not s.attempted or s.rj_b.cluster is None
                or s.rj_b.cluster is s.att_cluster)

    @invariant
    def lemma_children_carry_the_persisted_identity(s):
        """With an exact cache, the RayJob's RayCluster and submitter Job are those of its
        persisted identity: they are created under it, and Suspending / Retrying deletes
        both and sees them gone before it clears it (C:366-410)."""
        if s.L or s.rj is None:
            return True
        if s.job is not None and (s.job.target, s.job.job_id) != (s.rj_b.cluster,
                                                                  s.rj_b.job_id):
            return False
        return all(not s.cl_cr[c] or s.rj_b.cluster is c for c in ClusterId)

    @invariant
    def lemma_reset_only_after_children_gone(s):
        """With an exact cache, a current copy that resets the identity (Suspending /
        Retrying to Suspended / New) saw the cluster and the Job gone (C:366-410)."""
        if (s.L or not s._reconciling(Pc.STATUS_WRITE) or not s.m_fresh
                or s.m_orig.phase not in (Phase.RETRYING, Phase.SUSPENDING)
                or s.m_h.phase not in (Phase.NEW, Phase.SUSPENDED)):
            return True
        c = s.rj_b.cluster
        return (c is None or not s.cl_cr[c]) and s.job is None
