"""The API server and the garbage collector: what a call does once it reaches etcd.

Each helper returns whether the call succeeded, as the caller sees it when the response
arrives (faults.py may lose that response). Every applied write is a watch event: the
informer cache gets a new version (cache.py) and the controller's key is queued again
(controller-runtime watches the kinds it owns, its own writes included).

* Create by name: `AlreadyExists` (409) if an object of that kind and name exists
  (API conventions, "Idempotency": https://github.com/kubernetes/community/blob/master/
  contributors/devel/sig-architecture/api-conventions.md#idempotency).
* Update with the resourceVersion read: `Conflict` (409) if the object was written since,
  `NotFound` if it is gone (API conventions, "Concurrency Control and Consistency").
* Patch without a resourceVersion: applied to the stored version, never a 409.
* Delete: an object with finalizers only gets a deletionTimestamp; it is removed when an
  update or a patch removes the last finalizer ("Finalizers",
  https://kubernetes.io/docs/concepts/overview/working-with-objects/finalizers/).
* Garbage collection: an object whose owner is gone is deleted in the background
  ("Garbage Collection", owner references and background cascading deletion,
  https://kubernetes.io/docs/concepts/architecture/garbage-collection/). Weakly fair.
  An object per step by default; a controller's class with `GC_IN_ONE_STEP = True` has
  every orphan deleted in one step, as RayJob's `gc_children` does (fewer interleavings:
  the garbage collector's own order among a deleted owner's dependents is not modelled).
  That step is `_collect_orphans()`, over `_to_collect()` and `_delete(r)`: a spec keeping
  its objects elsewhere (the RayJob spec, whose `gc_children` it is) overrides those two.
"""
from checker import action, require

from .cache import InformerCache


class ApiServer(InformerCache):
    GC_IN_ONE_STEP = False      # opt-in: the garbage collector deletes every orphan at once

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if vars(cls).get("GC_IN_ONE_STEP") and cls.garbage_collect is ApiServer.garbage_collect:
            cls.garbage_collect = OneStepGarbageCollector.garbage_collect   # not overridden

    def _write(s, r, obj, own: bool = False):
        """Store `obj` (None: remove) under `r`. A write by anyone but the operator moves
        the resourceVersion past the operator's copy; its own write's response carries
        the new one. A paused ex-leader's copy is stale either way (failover.py)."""
        s._cache_keeps(r, obj)
        s.objects[r] = obj
        s.fresh[r] = own
        s.ex_fresh[r] = False
        s._event()

    def _create(s, r, obj) -> bool:
        """POST: False is AlreadyExists."""
        if s.objects[r] is not None:
            return False
        s._write(r, obj, own=True)
        s.creates[r] = min(s.creates[r] + 1, 2)
        return True

    def _update(s, r, obj) -> bool:
        """PUT with the resourceVersion the operator holds: False is 409 Conflict or
        NotFound. Removing the last finalizer of a deleted object removes it."""
        if s.objects[r] is None or not s.fresh[r]:
            return False
        s._store(r, obj)
        return True

    def _patch(s, r, **fields) -> bool:
        """A merge PATCH without a resourceVersion precondition: it applies to whatever
        version is stored (no 409); False is NotFound."""
        if s.objects[r] is None:
            return False
        s._store(r, s.objects[r]._replace(**fields))
        return True

    def _store(s, r, obj):
        """The operator's applied write: removing the last finalizer of a deleted object
        removes the object, by update or by patch alike."""
        s._write(r, None if obj.deleting and not obj.finalizer else obj, own=True)

    def _delete(s, r) -> bool:
        """DELETE (background propagation): False is NotFound."""
        obj = s.objects[r]
        if obj is None:
            return False
        if not obj.deleting:
            s._write(r, obj._replace(deleting=True) if obj.finalizer else None)
        return True

    def _orphaned(s, r) -> bool:
        obj = s.objects[r]
        return obj is not None and obj.owner is not None and s.objects[obj.owner] is None

    def _collectable(s, r) -> bool:
        return s._orphaned(r) and not s.objects[r].deleting

    def _to_collect(s) -> list:
        """What the garbage collector may delete now, in the order it does."""
        return [r for r in s.Ref if s._collectable(r)]

    @action(group="gc", fair="weak")
    def garbage_collect(s, r: "Ref"):
        """The garbage collector deletes an object whose owner is gone (background)."""
        require(s._collectable(r))
        s._delete(r)

    def _collect_orphans(s):
        """The garbage collector deletes every object whose owner is gone, in one step
        (background propagation: a deleted owner's dependents are deleted after it,
        https://kubernetes.io/docs/concepts/architecture/garbage-collection/); the
        dependents of those, orphaned by this step, in a later one."""
        orphans = s._to_collect()
        require(orphans)
        for r in orphans:
            s._delete(r)


class OneStepGarbageCollector:
    """What `GC_IN_ONE_STEP` puts in place of `ApiServer.garbage_collect`."""

    @action(group="gc", fair="weak")
    def garbage_collect(s):
        """The garbage collector deletes every orphan in one step (`_collect_orphans`)."""
        s._collect_orphans()
