"""The informer cache: it catches up by itself; a `stale` fault withholds new versions.

A cache may stand a few versions back (at most L, never before the last one the operator
observed, state.py) and catches up to any later version, one watch event or several at
a time.

The actions are the library's `cache_catch_up(r, lag)` and `stale(r, lag)`
(checker/kubernetes/cache.py), one action per kind of object as before, so that traces and
the gate's "actions that fired" still say which cache moved: each calls the library's
with its kind's cache (`Kind.RAYJOB`, a RayCluster's name, `Kind.JOB`), which the
library reads and writes through the hooks of state.py. Each first checks `lag` against
the constant L, so that the symbolic engines leave out what a lag bound rules out.
Fairness: the catch-up is weakly fair (client-go's reflector delivers every watch event
eventually); a `stale` fault only delays it.
"""
from checker import action, fault

from checker import kubernetes
from checker.kubernetes.cache import Behind, Nearer

from .state import RayJobState
from .types import ClusterId, Kind


class InformerCache(RayJobState, kubernetes.InformerCache):
    cache_catch_up = stale = None   # over the controller's Ref: taken per kind below instead

    @action(group="cache", fair="weak")
    def cache_catch_up_rj(s, lag: Nearer):
        """The informer (§2.1: reads use the cached client) delivers withheld RayJob
        versions: all of them, or (L = 2) the next one."""
        super().cache_catch_up(Kind.RAYJOB, lag)

    @action(group="cache", fair="weak")
    def cache_catch_up_cluster(s, c: ClusterId, lag: Nearer):
        """The informer delivers withheld RayCluster versions (§2.1)."""
        super().cache_catch_up(c, lag)

    @action(group="cache", fair="weak")
    def cache_catch_up_job(s, lag: Nearer):
        """The informer delivers withheld Job versions (§2.1, created-by label)."""
        super().cache_catch_up(Kind.JOB, lag)

    @fault(group="stale")
    def stale_rj(s, lag: Behind):
        """Stale informer cache (§13.4): the RayJob's newest version, not yet observed, is
        withheld for now: a Get returns one `lag` versions back (the status write then
        409s)."""
        super().stale(Kind.RAYJOB, lag)

    @fault(group="stale")
    def stale_cluster(s, c: ClusterId, lag: Behind):
        """Stale informer cache (§13.4): a RayCluster's newest versions are withheld for now
        (a Get may miss a cluster the operator just created)."""
        super().stale(c, lag)

    @fault(group="stale")
    def stale_job(s, lag: Behind):
        """Stale informer cache (§13.4): the submitter Job's newest versions are withheld
        (with L = 2 a Job created and completed since the last read may read NotFound)."""
        super().stale(Kind.JOB, lag)
