"""The controller of docs/tutorial-controller.md: one child object per parent.

A Parent carries a finalizer and a status: the name of its child and whether the child
is ready. The child's name is generated (a random suffix, as `generateName` gives), so
it must be persisted in the parent's status *before* the child is created: otherwise a
crash or a lost response between the create and the status write makes the next
reconcile draw another name and create a second child. The environment (API server,
informer cache, operator process, faults) is the library in checker/kubernetes/.
"""
import enum
from typing import NamedTuple

from checker import Ghost, Option, invariant, leads_to, step_invariant
from checker.kubernetes import Kubernetes, Result, kubernetes_state


class Ref(enum.Enum):
    """Every object the controller may see: its parent, and a pool of child names."""
    PARENT = "parent"
    CHILD_A = "child-a"
    CHILD_B = "child-b"


CHILDREN = (Ref.CHILD_A, Ref.CHILD_B)


class Obj(NamedTuple):
    finalizer: bool = False
    deleting: bool = False
    owner: Option[Ref] = None
    child: Option[Ref] = None            # Parent status.childName
    ready: bool = False                  # Parent status.ready


class Pc(enum.Enum):
    """The API call the reconcile makes next."""
    IDLE = "idle"
    ADD_FINALIZER = "add finalizer"
    SAVE_NAME = "save name"
    CREATE_CHILD = "create child"
    SET_READY = "set ready"
    REMOVE_FINALIZER = "remove finalizer"


class ChildController(kubernetes_state(Ref, Obj, Pc), Kubernetes):
    WRITES = tuple(p for p in Pc if p is not Pc.IDLE)
    USER_DELETES = (Ref.PARENT,)
    NAME_DRAWN_CALL = Pc.SAVE_NAME       # the call that follows drawing a child name
    objects = {r: (Obj() if r is Ref.PARENT else None) for r in Ref}
    m: Option[Obj] = None                # the parent as this reconcile read it
    m_child: Option[Ref] = None          # the child name this reconcile works on
    MEMORY = ("m", "m_child")
    out_of_names: Ghost[bool] = False

    def _forget_memory(s):
        s.m = s.m_child = None

    def _reconcile(s):
        """Read the parent from the cache and decide the first call."""
        s.m = s._read(Ref.PARENT)
        if s.m is None:
            s._end(Result.DONE)
        elif s.m.deleting:
            s._deleting()
        elif not s.m.finalizer:
            s.pc = Pc.ADD_FINALIZER
        elif s.m.child is None:
            s._new_child()
        elif not s.m.ready:
            s.m_child, s.pc = s.m.child, Pc.CREATE_CHILD
        else:
            s._end(Result.DONE)

    def _deleting(s):
        """The children are the garbage collector's: only the finalizer is left to remove."""
        s.pc = Pc.REMOVE_FINALIZER

    def _new_child(s):
        """Draw a name, then make the first call with it: persist it, before anything
        is created."""
        s.m_child = s._draw_name()
        if s.m_child is None:
            s._end(Result.ERROR)
        else:
            s.pc = s.NAME_DRAWN_CALL

    def _draw_name(s):
        """A generated name: only equality is observable, so the lowest one no object, no
        status and no paused ex-leader names stands for a fresh random one."""
        stored = s.objects[Ref.PARENT]
        for c in CHILDREN:
            if (s.objects[c] is None and (stored is None or stored.child is not c)
                    and s.ex_m_child is not c):
                return c
        s.out_of_names = True
        return None

    def _call(s) -> bool:
        pc, m = s.pc, s.m
        if pc is Pc.ADD_FINALIZER:
            return s._update(Ref.PARENT, m._replace(finalizer=True))
        if pc is Pc.SAVE_NAME:
            return s._save_name()
        if pc is Pc.CREATE_CHILD:
            return s._create(s.m_child, s._child())
        if pc is Pc.SET_READY:
            return s._update(Ref.PARENT, m._replace(child=s.m_child, ready=True))
        return s._update(Ref.PARENT, m._replace(finalizer=False))

    def _child(s) -> Obj:
        """A new child, owned by the parent (a controller ownerReference)."""
        return Obj(owner=Ref.PARENT)

    def _save_name(s) -> bool:
        return s._update(Ref.PARENT, s.m._replace(child=s.m_child))

    def _after(s, ok: bool):
        """A create's AlreadyExists means the child is there: go on to the status, written
        with the resourceVersion of the parent read at the start. Any
        other failure returns the error; a successful write ends the reconcile (its own
        watch event queues the next)."""
        if s.pc is Pc.CREATE_CHILD:
            s.pc = Pc.SET_READY
        else:
            s._end(Result.DONE if ok else Result.ERROR)

    def _identity(s):
        stored = s.objects[Ref.PARENT]
        return stored.child if stored is not None else None

    @invariant
    def one_child(s):
        """At most one child is ever created for the parent, whatever fails."""
        return s.one_created_among(CHILDREN)

    @invariant
    def each_name_created_once(s):
        """No create of a child name is applied twice."""
        return s.created_at_most_once(CHILDREN)

    @step_invariant
    def child_name_kept(s, t):
        """The child name, once persisted, is never replaced by another."""
        return s.identity_kept(t)

    @invariant
    def pool_large_enough(s):
        """Two generated names suffice for the faults of the model (else it is too small)."""
        return not s.out_of_names

    @leads_to
    def no_orphans(s):
        """Once the parent is gone, its children are eventually gone."""
        return s.gone(Ref.PARENT), s.all_gone(CHILDREN)

    @leads_to
    def no_stuck_finalizer(s):
        """A deleted parent is eventually removed: its finalizer does not stay."""
        return s.deleting(Ref.PARENT), s.gone(Ref.PARENT)
