"""Liveness claims of issue 6: every RayJob finishes, clean-up always happens.

Checked under the fairness the actions declare: a reconcile is owed only where the code
requeues (`RayJobState._reconcile_owed`), every step of a started reconcile, the
Kubernetes controllers, the submitter pods, the Ray head and the user's program are
weakly fair, the clock strongly fair (`Environment.tick`), faults and the user never
(they happen finitely often). Liveness models set `track_result = true`, so that the
last reconcile result is part of the state.
"""
from checker import eventually, leads_to

from .apiserver import FINISHED
from .state import RayJobState
from .types import Phase, Policy


class Liveness(RayJobState):
    def _done(s) -> bool:
        return s.rj is not None and s.rj.phase in FINISHED

    @eventually
    def l1_reaches_complete_or_failed(s):
        """Every RayJob reaches Complete or Failed."""
        return s._done()

    @leads_to
    def l2_deleted_rayjob_removed(s):
        """A RayJob with a deletionTimestamp is eventually gone (finalizer removed)."""
        return s.rj is not None and s.rj.deleting, s.rj is None

    @leads_to
    def l3_cluster_deleted_after_ttl(s):
        """Once Complete/Failed and a clean-up that removes the RayCluster is due
        (shutdownAfterJobFinishes after endTime + TTL, or a DeleteCluster or DeleteSelf
        rule after its TTL), no RayCluster of the RayJob is left."""
        expired = s._done() and any(s._cleanup_configured(p) and s._cleanup_due(p)
                                    for p in (Policy.DELETE_CLUSTER, Policy.DELETE_SELF))
        return expired, True not in s.cl_cr.values()

    @leads_to
    def l4_retrying_reaches_new(s):
        """Retrying eventually persists New (a new attempt), or the RayJob is gone."""
        retrying = s.rj is not None and s.rj.phase is Phase.RETRYING
        return retrying, s.rj is None or s.rj.phase is Phase.NEW

    @eventually
    def l5_runs_at_least_once(s):
        """At least once: the entrypoint starts (a driver) and the RayJob is finished."""
        return max(s.driver_starts.values()) >= 1 and s._done()

    @leads_to
    def l6_suspend_honoured(s):
        """A suspend requested before the RayJob finished is eventually honoured: it is
        Suspended, finished, gone, or the request was withdrawn."""
        asked = s.rj is not None and s.rj.suspend and not s._done()
        return asked, (s.rj is None or not s.rj.suspend or s._done()
                       or s.rj.phase is Phase.SUSPENDED)
