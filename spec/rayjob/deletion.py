"""deletionStrategy: what a finished RayJob deletes, and when (§8, §8.1).

The feature gate RayJobDeletionPolicy is Beta and on by default (F:107); the rules act
when `spec.deletionStrategy` is set, and exclude `shutdownAfterJobFinishes` (V:771-773).
`handleDeletionRules` (C:1413-1468) runs in Complete and Failed, which never write the
status: a rule matches the *persisted* jobStatus or jobDeploymentStatus
(`isDeletionRuleMatched`, C:1589-1596), is overdue once endTime + its ttlSeconds has
passed, and is skipped if its action is already done (`isDeletionActionCompleted`,
C:1599-1656: no RayCluster, or every worker group suspended). Of the overdue rules only
the most destructive runs (DeleteSelf > DeleteCluster > DeleteWorkers, C:1685-1700): one
action per reconcile, then a requeue for the next pending rule (C:1460-1467).

A rule matching jobStatus FAILED also matches the FAILED that the 30 s submitter check
writes while the Ray job may still run (C:1263-1286, §3.3): DeleteSelf then deletes the
RayJob, whose deletion skips StopJob because that jobStatus is terminal (C:116).

The legacy onSuccess/onFailure policies (`handleLegacyDeletionPolicy`, C:1471-1512, checked
before shutdownAfterJobFinishes at C:434-442) pick onSuccess for the persisted jobStatus
SUCCEEDED and onFailure for FAILED; any other jobStatus (New, PENDING, RUNNING: a deadline,
a submitter failure; STOPPED) returns `{}` and nothing is ever deleted. Otherwise they act
after endTime + ttlSecondsAfterFinished, once (`executeDeletionPolicy`, C:1560-1587).

Simplifications: rules come as the presets of `Rules`, the legacy policies as one policy
for both fields (`Legacy`); the worker groups' `suspend` is read current (an Update on a
stale copy would only get 409 and be repeated).
"""
from checker import kubernetes

from .state import RayJobState
from .types import (IMPACT, LEGACY_POLICY, CrView, JStat, Legacy, Pc, Phase, Policy, Rank, Result,
                    Rule, Rules, Timer)

RULE_SETS = {
    Rules.OFF: (),
    Rules.STAGED: tuple(Rule(policy, phase, ttl) for phase in (Phase.COMPLETE, Phase.FAILED)
                        for policy, ttl in ((Policy.DELETE_WORKERS, Rank.OFF),
                                            (Policy.DELETE_CLUSTER, Rank.XLONG),
                                            (Policy.DELETE_SELF, Rank.DAY))),
    Rules.SELF_ON_FAILED: (Rule(Policy.DELETE_SELF, JStat.FAILED, Rank.OFF),
                           Rule(Policy.DELETE_CLUSTER, JStat.SUCCEEDED, Rank.OFF)),
}
LEGACY_STATUSES = (JStat.SUCCEEDED, JStat.FAILED)       # C:1475-1483
RULE_TIMERS = {Rank.XLONG: "t_rule_hour", Rank.DAY: "t_rule_day"}
POLICY_CALL = {Policy.DELETE_WORKERS: Pc.SUSPEND_WORKERS, Policy.DELETE_CLUSTER: Pc.DELETE_CLUSTER,
               Policy.DELETE_SELF: Pc.DELETE_RJ}


def matches(rule: Rule, h) -> bool:
    """isDeletionRuleMatched (C:1589-1596)."""
    return rule.when in (h.job_status, h.phase)


class DeletionRules(RayJobState, kubernetes.CallSteps):
    def _rules(s) -> tuple:
        return RULE_SETS[s.deletion_rules]

    def _arm_rule_timers(s):
        """endTime is set: each rule TTL longer than 0 starts."""
        for rule in s._rules():
            if rule.ttl is not Rank.OFF:
                setattr(s, RULE_TIMERS[rule.ttl], Timer.ARMED)

    def _rule_timer_rank(s, timer: str) -> Rank:
        """The TTL this rule set times with `timer`, OFF if none does."""
        return next((r.ttl for r in s._rules() if RULE_TIMERS.get(r.ttl) == timer), Rank.OFF)

    def _rule_due(s, rule: Rule) -> bool:
        """now >= endTime + ttlSeconds (C:1425-1433)."""
        return rule.ttl is Rank.OFF or getattr(s, RULE_TIMERS[rule.ttl]) is Timer.FIRED

    def _matched_rules(s) -> list:
        return [rule for rule in s._rules() if matches(rule, s.m_h)]

    def _apply_deletion_rules(s):
        """handleDeletionRules (C:1413-1468): run the most destructive overdue rule whose
        action is not done yet, if any; requeue while a matched rule is not yet due."""
        overdue = s._overdue_rules()
        if overdue:
            s.pc = POLICY_CALL[max((r.policy for r in overdue), key=IMPACT.get)]
        else:
            s._end(s._after_cleanup_result())

    def _overdue_rules(s) -> list:
        return [r for r in s._matched_rules() if s._rule_due(r) and not s._rule_done(r.policy)]

    def _rule_done(s, policy: Policy) -> bool:
        """isDeletionActionCompleted (C:1599-1656): the RayCluster is NotFound in the cache
        (or, for DeleteWorkers, its worker groups are suspended); DeleteSelf never is."""
        if policy is Policy.DELETE_SELF:
            return False
        view = s._read_cluster(s.m_b.cluster)
        return view is CrView.ABSENT or (policy is Policy.DELETE_WORKERS
                                         and s.workers_suspended[s.m_b.cluster])

    def _after_cleanup_result(s) -> Result:
        """RequeueAfter while a matched rule is not yet due (C:1460-1464), else {}."""
        pending = any(not s._rule_due(r) for r in s._matched_rules())
        return Result.REQUEUE if pending else Result.WAIT

    @kubernetes.call_step(Pc.SUSPEND_WORKERS)
    def _suspend_workers(s) -> bool:
        """Models suspendWorkerGroups' r.Update (C:836-861) for a DeleteWorkers rule:
        every worker group of the RayCluster gets suspend=true (NotFound: an error)."""
        c = s.m_b.cluster
        if not s.cl_cr[c]:
            s._end(Result.ERROR)
            return False
        s.workers_suspended[c] = True
        s.m_clean = False
        s._ttl_cleanup_done(Policy.DELETE_WORKERS)
        s._end(s._after_cleanup_result())
        return True

    # ------------------------------------------------------------ legacy onSuccess/onFailure
    def _apply_legacy_policy(s):
        """handleLegacyDeletionPolicy (C:1471-1512): only a persisted jobStatus SUCCEEDED or
        FAILED selects a policy, else `{}`; RequeueAfter until endTime + TTL; then
        executeDeletionPolicy (C:1560-1587): DeleteCluster deletes a RayCluster that is
        still there (deleteClusterResources), DeleteWorkers suspends its worker groups,
        DeleteSelf deletes the RayJob."""
        policy = LEGACY_POLICY[s.legacy_policy]
        if not s._legacy_selects_policy():
            s._end(Result.WAIT)
        elif not s._ttl_expired():
            s._end(Result.REQUEUE)
        elif policy is Policy.DELETE_SELF or not s._rule_done(policy):
            s.pc = POLICY_CALL[policy]
        else:
            s._end(Result.WAIT)

    def _legacy_selects_policy(s) -> bool:
        """The switch on the persisted jobStatus (C:1475-1483): onSuccess for SUCCEEDED,
        onFailure for FAILED, none otherwise."""
        return s.m_h.job_status in LEGACY_STATUSES

    # ------------------------------------------------------------ ghosts of claim 9
    def _cleanup_configured(s, policy: Policy) -> bool:
        """Does the configuration ask for this clean-up of the RayJob as persisted? The
        legacy policies as the user reads them: onSuccess for Complete, onFailure for
        Failed (KubeRay goes by the jobStatus instead, which claim l3 tells apart)."""
        if s.legacy_policy is not Legacy.OFF:
            return policy is LEGACY_POLICY[s.legacy_policy]
        if s.deletion_rules is Rules.OFF:
            deletes_self = policy is Policy.DELETE_SELF
            return (s.shutdown_after_finishes and policy is not Policy.DELETE_WORKERS
                    and deletes_self == s.delete_rj_after_finish)
        return any(r.policy is policy for r in s._rules() if matches(r, s.rj))

    def _cleanup_due(s, policy: Policy) -> bool:
        """Has the time come for it (endTime + the TTL of a rule asking for it)?"""
        if s.deletion_rules is Rules.OFF:            # shutdown or the legacy policies
            return s.t_ttl is Timer.FIRED
        return any(r.policy is policy and s._rule_due(r) for r in s._rules() if matches(r, s.rj))
