"""The informer cache: it catches up by itself; a `stale` fault withholds a new version.

Fairness: the catch-up is weakly fair (client-go's reflector delivers every watch event
eventually); a `stale` fault only delays it.
"""
from checker import action, fault, require

from .state import RayJobState
from .types import CacheSt, ClusterId, CrView, EMPTY, JobView


class InformerCache(RayJobState):
    @action(group="cache", fair="weak")
    def cache_catch_up_rj(s):
        """The informer (§2.1: reads use the cached client) delivers the withheld RayJob."""
        require(s.rj_cache is CacheSt.BEHIND)
        s._event()
        s.rj_cache, s.rj_prev, s.rj_prev_b = CacheSt.SYNC, None, EMPTY

    @action(group="cache", fair="weak")
    def cache_catch_up_cluster(s, c: ClusterId):
        """The informer delivers the withheld RayCluster version (§2.1)."""
        require(s.cl_cache[c] is CacheSt.BEHIND)
        s._event()
        s.cl_cache[c], s.cl_prev[c] = CacheSt.SYNC, CrView.ABSENT

    @action(group="cache", fair="weak")
    def cache_catch_up_job(s):
        """The informer delivers the withheld Job version (§2.1, created-by label)."""
        require(s.job_cache is CacheSt.BEHIND)
        s._event()
        s.job_cache, s.job_prev = CacheSt.SYNC, JobView.ABSENT

    @fault(group="stale")
    def stale_rj(s):
        """Stale informer cache (§13.4): the RayJob's newest version, not yet observed, is
        withheld for now (a Get returns the previous one; the status write then 409s)."""
        require(s.budget > 0 and s.rj_cache is CacheSt.FRESH)
        s._fault()
        s.rj_cache = CacheSt.BEHIND

    @fault(group="stale")
    def stale_cluster(s, c: ClusterId):
        """Stale informer cache (§13.4): a RayCluster's newest version is withheld for now
        (a Get may miss a cluster the operator just created)."""
        require(s.budget > 0 and s.cl_cache[c] is CacheSt.FRESH)
        s._fault()
        s.cl_cache[c] = CacheSt.BEHIND

    @fault(group="stale")
    def stale_job(s):
        """Stale informer cache (§13.4): the submitter Job's newest version is withheld."""
        require(s.budget > 0 and s.job_cache is CacheSt.FRESH)
        s._fault()
        s.job_cache = CacheSt.BEHIND
