"""The tutorial's controller extended at the library's three seams a real controller
needs (docs/tutorial-controller.md, "Beyond the library"): another writer of its objects
as a fault of its own, reads that bypass the informer cache, and a call whose failure the
controller handles itself. Each comes with a model refuting or holding a property."""
from checker import fault, leads_to, require
from examples.childcontroller import CHILDREN, ChildController, Pc, Ref, Result
from examples.childcontroller_bugs import PatchesName


# ---------------------------------------------------------------- another writer
class RestoredWithoutStatus(ChildController):
    """Another writer replaces the parent without its status: a backup restore (Velero
    restores no status subresource), or `kubectl replace` of a manifest saved without
    it. The child name lived only in the status, so the next reconcile draws a new name
    and creates a second child (`one_child`)."""

    @fault(group="other_writer")
    def status_dropped(s):
        """The parent written back without its status, by someone other than the operator:
        its resourceVersion moves past the operator's copy and the key is queued."""
        parent = s.objects[Ref.PARENT]
        require(s.budget > 0 and parent is not None and parent.child is not None
                and not parent.deleting)
        s._fault()                               # one unit of the budget F
        s._write(Ref.PARENT, parent._replace(child=None, ready=False))


class AdoptsItsChild(RestoredWithoutStatus):
    """The fix: before drawing a name, look for a child the parent already owns (a
    List by ownerReference, here from the API server) and adopt it; the status is a
    cache of what the cluster shows, never the only record."""

    def _new_child(s):
        owned = [c for c in CHILDREN if s._read_live(c) is not None
                 and s.objects[c].owner is Ref.PARENT and not s.objects[c].deleting]
        if owned:
            s.m_child, s.pc = owned[0], Pc.SAVE_NAME
        else:
            super()._new_child()


# ---------------------------------------------------------------- live reads
class PatchesNameReadLive(PatchesName):
    """The merge-patch bug of `PatchesName`, with the parent read from the API server
    instead of the cache: no stale read, so the patch never overwrites a saved name
    (`child_name_kept` holds with a stale cache)."""

    def _read(s, r):
        return s._read_live(r)


# ------------------------------------------------- a failure handled by the controller
class BecomesReady(ChildController):
    """The tutorial's controller with one more claim: a parent that stays is
    eventually ready (its child created and the status saying so)."""

    @leads_to
    def becomes_ready(s):
        """Once the parent has its finalizer, it is eventually ready or deleted."""
        parent = s.objects[Ref.PARENT]
        ready = parent is not None and parent.ready
        return (parent is not None and parent.finalizer,
                ready or parent is None or parent.deleting)


class BestEffortReady(BecomesReady):
    """The ready flag is written best effort: a failed status update is logged and the
    reconcile returns success (`if err != nil { log.Error(err, ...); return
    ctrl.Result{}, nil }`), so nothing queues the key again and the parent stays not
    ready (`becomes_ready`)."""

    def _after(s, ok: bool):
        """An error the API server returned (here a 409) reaches `_after` as `ok`."""
        if s.pc is Pc.SET_READY and not ok:
            s._end(Result.DONE)
        else:
            super()._after(ok)

    def _write_failed(s):
        """An error of the call itself (a `write_fail` or `write_lost` fault: a 5xx, a
        timeout) reaches `_write_failed`."""
        if s.pc is Pc.SET_READY:
            s._end(Result.DONE)
        else:
            super()._write_failed()
