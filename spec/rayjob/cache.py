"""The informer cache: it catches up by itself; a `stale` fault withholds new versions.

A cache may stand a few versions back (at most L, never before the last one the operator
observed, state.py) and catches up to any later version, one watch event or several at
a time.

Each action first checks `lag` against the constant L, so that the symbolic engines leave
out what a lag bound rules out. Fairness: the catch-up is weakly fair (client-go's reflector delivers every watch event
eventually); a `stale` fault only delays it.
"""
from checker import Int, action, fault, require

from .state import RayJobState
from .types import CacheSt, ClusterId

Behind = Int[1, 2]            # how many versions back a stale cache stands
Nearer = Int[0, 1]            # where a catch-up leaves it (0: current)


class InformerCache(RayJobState):
    @action(group="cache", fair="weak")
    def cache_catch_up_rj(s, lag: Nearer):
        """The informer (§2.1: reads use the cached client) delivers withheld RayJob
        versions: all of them, or (L = 2) the next one."""
        require(lag < s.L and s.rj_cache is CacheSt.BEHIND and lag < s.rj_lag)
        s._event()
        s._rj_at(lag)

    @action(group="cache", fair="weak")
    def cache_catch_up_cluster(s, c: ClusterId, lag: Nearer):
        """The informer delivers withheld RayCluster versions (§2.1)."""
        require(lag < s.L and s.cl_cache[c] is CacheSt.BEHIND and lag < s.cl_lag[c])
        s._event()
        s._cl_at(c, lag)

    @action(group="cache", fair="weak")
    def cache_catch_up_job(s, lag: Nearer):
        """The informer delivers withheld Job versions (§2.1, created-by label)."""
        require(lag < s.L and s.job_cache is CacheSt.BEHIND and lag < s.job_lag)
        s._event()
        s._job_at(lag)

    @fault(group="stale")
    def stale_rj(s, lag: Behind):
        """Stale informer cache (§13.4): the RayJob's newest version, not yet observed, is
        withheld for now: a Get returns one `lag` versions back (the status write then
        409s)."""
        require(lag <= s.L and s.budget > 0 and s.rj_cache is CacheSt.FRESH
                and lag <= s.rj_lag)
        s._fault()
        s._rj_at(lag)

    @fault(group="stale")
    def stale_cluster(s, c: ClusterId, lag: Behind):
        """Stale informer cache (§13.4): a RayCluster's newest versions are withheld for now
        (a Get may miss a cluster the operator just created)."""
        require(lag <= s.L and s.budget > 0 and s.cl_cache[c] is CacheSt.FRESH
                and lag <= s.cl_lag[c])
        s._fault()
        s._cl_at(c, lag)

    @fault(group="stale")
    def stale_job(s, lag: Behind):
        """Stale informer cache (§13.4): the submitter Job's newest versions are withheld
        (with L = 2 a Job created and completed since the last read may read NotFound)."""
        require(lag <= s.L and s.budget > 0 and s.job_cache is CacheSt.FRESH
                and lag <= s.job_lag)
        s._fault()
        s._job_at(lag)
