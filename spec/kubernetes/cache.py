"""The informer cache: the operator reads objects from it, not from the API server.

A read returns any version of the object not older than the last one the operator
observed and at most L changes behind the API server: what client-go's shared informer
can return, its reflector applying watch events in order, some time after the write
(https://pkg.go.dev/k8s.io/client-go/tools/cache; controller-runtime's default client
reads from it: https://pkg.go.dev/sigs.k8s.io/controller-runtime/pkg/client). After a
restart the cache is filled by a fresh LIST: current.

A write makes the new version FRESH (current, not yet observed) and keeps the version it
replaced as one the cache may still return; a `stale` fault makes the cache stand `lag`
versions back; it catches up by itself (weakly fair: the reflector delivers every
event, and the event handler queues the key again); reading a FRESH object observes it (SYNC).

A controller reads only part of an object, its view (`_view(r, obj)`, by default all of
it): a write that changes the object but not the view is no new version for the cache,
since the controller could not tell the two apart. The older versions are kept as
views: a stale read returns only the view (a read of the current version is whole, so
an update made from it keeps the other fields; one made from a stale read is a 409).
"""
from checker import Int, Spec, action, fault, require

from .state import CacheSt

Behind = Int[1, 2]            # how many versions back a stale cache stands
Nearer = Int[0, 1]            # where a catch-up leaves it (0: current)


class InformerCache(Spec):
    def _view(s, r, obj):
        """What the controller reads of `obj`, the object `r` or None (default: all of it)."""
        return obj

    def _cache_keeps(s, r, obj):
        """`r` is about to become `obj`: the version it replaces may still be read, unless
        only fields outside the view change."""
        old = s.objects[r]
        if s.L == 0 or (obj != old and s._view(r, obj) == s._view(r, old)):
            return
        if s.L == 2:
            s.cache_older[r] = s.cache_prev[r]
        s.cache_prev[r] = s._view(r, old)
        if s.cache_st[r] is not CacheSt.BEHIND:
            s.cache_st[r] = CacheSt.FRESH
        s.cache_lag[r] = min(s.cache_lag[r] + 1, s.L)

    def _cache_at(s, r, lag: int):
        """The cache of `r` stands `lag` versions back (0: current and observed); the
        versions older than that are forgotten: it never returns them again."""
        s.cache_st[r] = CacheSt.BEHIND if lag else CacheSt.SYNC
        s.cache_lag[r] = lag
        if lag == 0:
            s.cache_prev[r] = None
        if lag < 2:
            s.cache_older[r] = None

    def _read(s, r):
        """A Get from the cache: the object's version there (None: NotFound). The
        operator's copy is fresh when it is the API server's current version."""
        if s.cache_st[r] is CacheSt.BEHIND:
            s.fresh[r] = False
            return s.cache_older[r] if s.cache_lag[r] == 2 else s.cache_prev[r]
        s._cache_at(r, 0)
        s.fresh[r] = True
        return s.objects[r]

    def _resync(s):
        """A fresh consistent LIST (operator restart): every cache is current."""
        for r in s.Ref:
            s._cache_at(r, 0)

    @action(group="cache", fair="weak")
    def cache_catch_up(s, r: "Ref", lag: Nearer):
        """The informer delivers withheld versions of `r`: all of them, or (L = 2) the
        next one; its event handler queues the controller's key."""
        require(lag < s.L and s.cache_st[r] is CacheSt.BEHIND and lag < s.cache_lag[r])
        s._cache_at(r, lag)
        s.queued = True

    @fault(group="stale")
    def stale(s, r: "Ref", lag: Behind):
        """Stale informer cache: the newest versions of `r`, not yet observed, are withheld
        for now; a Get returns the one `lag` changes back."""
        require(lag <= s.L and s.budget > 0 and s.cache_st[r] is CacheSt.FRESH
                and lag <= s.cache_lag[r])
        s._fault()
        s._cache_at(r, lag)
