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

Where an object's cache lives is four narrow hooks (`_cache_st`, `_cache_lag`,
`_cache_view`, `_set_cache`: by default `cache_st[r]` and its siblings), a read's two
more (`_stored(r)`, the object as a current Get returns it, by default `objects[r]`;
`_set_fresh`, by default `fresh[r]`), and an event is `_event()`, so a spec with
variables of its own (the RayJob spec, one cache per kind of object) takes these
actions and helpers as they are.
"""
from checker import Int, Spec, action, fault, require

from .state import CacheSt

Behind = Int[1, 2]            # how many versions back a stale cache stands
Nearer = Int[0, 1]            # where a catch-up leaves it (0: current)


class CacheVersions(Spec):
    """What a write, a Get and a resync do to the cache: no action of its own, so that a
    spec whose writes keep the cache (the RayJob spec's state.py) takes these helpers
    without the actions below."""

    # Where the cache of `r` lives: `cache_st[r]`, `cache_lag[r]`, `cache_prev[r]` and
    # `cache_older[r]` (state.py); a read also sets `fresh[r]` and returns `objects[r]`.
    # A controller that keeps these elsewhere overrides these six hooks; the actions and
    # helpers below read and write the cache only through them.
    def _cache_st(s, r) -> CacheSt:
        return s.cache_st[r]

    def _cache_lag(s, r) -> int:
        return s.cache_lag[r]

    def _cache_view(s, r, back: int):
        """The view of `r` kept from `back` changes back (1 or 2)."""
        return s.cache_older[r] if back == 2 else s.cache_prev[r]

    def _set_cache(s, r, st: CacheSt, lag: int, prev=None, older=None):
        """The cache of `r` becomes `st`, `lag`, keeping the views one and two changes
        back (None: forgotten)."""
        s.cache_st[r], s.cache_lag[r], s.cache_prev[r], s.cache_older[r] = st, lag, prev, older

    def _stored(s, r):
        """The current version of `r` as a Get from a current cache returns it (None:
        NotFound)."""
        return s.objects[r]

    def _set_fresh(s, r, fresh: bool):
        """Where the operator keeps whether its copy of `r` is the current version."""
        s.fresh[r] = fresh

    def _view(s, r, obj):
        """What the controller reads of `obj`, the object `r` or None (default: all of it)."""
        return obj

    def _event(s):
        """A watch event: the informer's event handler queues the controller's key."""
        s.queued = True

    def _cache_keeps(s, r, obj):
        """`r` is about to become `obj`: the version it replaces may still be read, unless
        only fields outside the view change."""
        old = s.objects[r]
        if obj == old or s._view(r, obj) != s._view(r, old):
            s._cache_replaced(r, s._view(r, old))

    def _cache_replaced(s, r, view):
        """A write replaced the version of `r` whose view is `view`: with L > 0 the cache
        may still return it (one more version back, up to L), and the new version is not
        yet observed (FRESH), unless the cache stands behind anyway."""
        if s.L == 0:
            return
        st = s._cache_st(r)
        s._set_cache(r, st if st is CacheSt.BEHIND else CacheSt.FRESH, min(s._cache_lag(r) + 1, s.L),
                     view, s._cache_view(r, 1) if s.L == 2 else None)

    def _cache_at(s, r, lag: int):
        """The cache of `r` stands `lag` versions back (0: current and observed); the
        versions older than that are forgotten: it never returns them again."""
        kept = [s._cache_view(r, back) for back in range(1, lag + 1)]
        s._set_cache(r, CacheSt.BEHIND if lag else CacheSt.SYNC, lag, *kept)

    def _stale_view(s, r):
        """What a Get returns from a cache standing behind: the view `lag` changes back."""
        return s._cache_view(r, s._cache_lag(r))

    def _read(s, r):
        """A Get from the cache: the object's version there (None: NotFound). The
        operator's copy is fresh when it is the API server's current version."""
        if s._cache_st(r) is CacheSt.BEHIND:
            s._set_fresh(r, False)
            return s._stale_view(r)
        s._cache_at(r, 0)
        s._set_fresh(r, True)
        return s._stored(r)

    def _read_live(s, r):
        """A Get from the API server itself, not the cache (controller-runtime's
        `mgr.GetAPIReader()`, or a client made without a cache): the current version,
        whatever the cache holds, and the operator's copy is fresh. The cache is left as
        it is: nothing in it was observed."""
        s._set_fresh(r, True)
        return s._stored(r)

    def _resync(s):
        """A fresh consistent LIST (operator restart): every cache is current."""
        for r in s.Ref:
            s._cache_at(r, 0)


class InformerCache(CacheVersions):
    """The informer's own moves: catching up, and the `stale` fault."""

    @action(group="cache", fair="weak")
    def cache_catch_up(s, r: "Ref", lag: Nearer):
        """The informer delivers withheld versions of `r`: all of them, or (L = 2) the
        next one; its event handler queues the controller's key."""
        require(lag < s.L and s._cache_st(r) is CacheSt.BEHIND and lag < s._cache_lag(r))
        s._cache_at(r, lag)
        s._event()

    @fault(group="stale")
    def stale(s, r: "Ref", lag: Behind):
        """Stale informer cache: the newest versions of `r`, not yet observed, are withheld
        for now; a Get returns the one `lag` changes back."""
        require(lag <= s.L and s.budget > 0 and s._cache_st(r) is CacheSt.FRESH
                and lag <= s._cache_lag(r))
        s._fault()
        s._cache_at(r, lag)
