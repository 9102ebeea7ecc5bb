"""The informer cache: it catches up by itself; a `stale` fault withholds a new version."""
from checker import action, fault, require

from .state import RayJobState
from .types import CacheSt, ClusterId, CrView, EMPTY, JobView


class InformerCache(RayJobState):
    @action(group="cache")
    def cache_catch_up_rj(s):
        """The watch delivers the withheld RayJob version."""
        require(s.rj_cache is CacheSt.BEHIND)
        s._event()
        s.rj_cache, s.rj_prev, s.rj_prev_b = CacheSt.SYNC, None, EMPTY

    @action(group="cache")
    def cache_catch_up_cluster(s, c: ClusterId):
        """The watch delivers the withheld RayCluster version."""
        require(s.cl_cache[c] is CacheSt.BEHIND)
        s._event()
        s.cl_cache[c], s.cl_prev[c] = CacheSt.SYNC, CrView.ABSENT

    @action(group="cache")
    def cache_catch_up_job(s):
        """The watch delivers the withheld Job version."""
        require(s.job_cache is CacheSt.BEHIND)
        s._event()
        s.job_cache, s.job_prev = CacheSt.SYNC, JobView.ABSENT

    @fault(group="stale")
    def stale_rj(s):
        """The RayJob's latest version, not yet observed, stays out of the cache for now."""
        require(s.budget > 0 and s.rj_cache is CacheSt.FRESH)
        s._fault()
        s.rj_cache = CacheSt.BEHIND

    @fault(group="stale")
    def stale_cluster(s, c: ClusterId):
        """A RayCluster's latest version stays out of the cache for now."""
        require(s.budget > 0 and s.cl_cache[c] is CacheSt.FRESH)
        s._fault()
        s.cl_cache[c] = CacheSt.BEHIND

    @fault(group="stale")
    def stale_job(s):
        """The submitter Job's latest version stays out of the cache for now."""
        require(s.budget > 0 and s.job_cache is CacheSt.FRESH)
        s._fault()
        s.job_cache = CacheSt.BEHIND
