"""Four classic crash-recovery bugs of the tutorial's controller, one subclass each; each
is refuted by one of the ready-made properties (docs/tutorial-controller.md)."""
from examples.childcontroller import CHILDREN, ChildController, Obj, Pc, Ref, Result


class CreateBeforeSave(ChildController):
    """The generated name lives only in memory until the child is created: a crash or a
    lost response after the create makes the next reconcile draw another name and
    create a second child (`one_child`)."""
    NAME_DRAWN_CALL = Pc.CREATE_CHILD


class PatchesName(ChildController):
    """The name is saved with a merge patch, which carries no resourceVersion: a
    reconcile that read a stale parent without a name overwrites the saved one
    (`child_name_kept`)."""
    def _save_name(s) -> bool:
        return s._patch(Ref.PARENT, child=s.m_child)


class NoOwnerReference(ChildController):
    """The child is created without an ownerReference: the garbage collector never
    deletes it (`no_orphans`)."""
    def _child(s) -> Obj:
        return Obj()


class WaitsForChildren(ChildController):
    """The finalizer is removed only once the children are gone, but the garbage
    collector deletes them only once the parent is gone: the parent never goes
    (`no_stuck_finalizer`)."""
    def _deleting(s):
        if s.all_gone(CHILDREN):
            s.pc = Pc.REMOVE_FINALIZER
        else:
            s._end(Result.REQUEUE)
