"""The variables of a controller's Kubernetes world, declared over the controller's kinds.

A state variable's domain is fixed where its class is defined, and the first class of
the hierarchy to annotate a name decides its domain: a library class cannot leave `Ref`
(which objects exist) open for a subclass to fill in. So the library's variables come
from `kubernetes_state(Ref, Obj, Pc)`, a class made for the controller's own types:

* `Ref`, an `enum.Enum`: one member per object the controller may ever see, a kind and
  a name (for generated names, one member per name of a small pool);
* `Obj`, a record (NamedTuple): what an object holds; the library reads and writes only
  its metadata fields `finalizer: bool`, `deleting: bool` (a deletionTimestamp is set)
  and `owner: Option[Ref]` (its controller ownerReference);
* `Pc`, an `enum.Enum` with a member `IDLE`: the operator's program counter, the API
  call its reconcile makes next.

resourceVersions are not numbers: `fresh[r]` says the operator's in-memory copy of `r`
carries the API server's current resourceVersion, which is all a 409 decides.

A paused ex-leader (failover.py) keeps its own copy of the operator's memory: `ex_pc`,
`ex_fresh`, and an `ex_<name>` for each name the controller lists in `MEMORY` and
`PROCESS_MEMORY`, declared here with the domain and default of `<name>` when the
controller's class is made, so that a controller only lists the names.
"""
import enum
import inspect

from checker import Bookkeeping, Const, Enum, Ghost, Int, Map, Option, Spec, SpecError
from checker.errors import where_defined

Count = Int[0, 2]                  # saturating: 2 means "more than once"


class CacheSt(Enum):
    """What the informer cache holds of one object (cache.py)."""
    SYNC = "sync"                  # the current version, observed by the operator
    FRESH = "fresh"                # the current version, not yet observed: may be withheld
    BEHIND = "behind"              # an older version, `cache_lag` changes back


class Result(enum.Enum):
    """What a reconcile returned, as controller-runtime's Reconciler does."""
    DONE = "done"                  # `ctrl.Result{}`: nothing queued unless an event comes
    REQUEUE = "requeue"            # `Result{RequeueAfter: d}`
    ERROR = "error"                # a non-nil error: rate-limited requeue


def kubernetes_state(ref_type: type[enum.Enum], obj_type: type, pc_type: type[enum.Enum]) -> type[Spec]:
    """The API server's objects, the informer cache, the operator process and the fault
    budget, as state variables over the controller's `Ref`, `Obj` and `Pc`."""

    class KubernetesState(Spec):
        Ref = ref_type            # also what the library's action parameters (`r: "Ref"`) range over
        Pc = pc_type
        L = Const(0, "informer lag bound in versions (0: the cache is always current)",
                  min=0, max=2)
        F = Const(1, "fault budget: faults and user interventions together", min=0, max=3)
        # the API server (apiserver.py)
        objects: Map[Ref, Option[obj_type]] = Map.fill(None)      # None: NotFound
        # the informer cache (cache.py): per object its state, how far back it may stand
        # (FRESH) or stands (BEHIND), and the views one and two changes back
        # (bookkeeping: hidden in traces unless asked)
        cache_st: Bookkeeping[Map[Ref, CacheSt]] = Map.fill(CacheSt.SYNC)
        cache_lag: Bookkeeping[Map[Ref, Int[0, L]]] = Map.fill(0)
        cache_prev: Bookkeeping[Map[Ref, Option[obj_type]]] = Map.fill(None)
        cache_older: Bookkeeping[Map[Ref, Option[obj_type]]] = Map.fill(None)
        # the operator process (operator.py): volatile memory and the work queue
        pc: Pc = Pc.IDLE
        fresh: Bookkeeping[Map[Ref, bool]] = Map.fill(False)     # a 409 needs no more
        queued: bool = True                   # the object's key is in the work queue
        op_down: bool = False                 # no operator runs (fault `outage`)
        ex_pc: Pc = Pc.IDLE                   # a paused ex-leader's next call (failover.py)
        ex_fresh: Bookkeeping[Map[Ref, bool]] = Map.fill(False)
        budget: Int[0, F] = 0                 # set to F by `init` (faults.py)
        # ghosts for the ready-made properties (properties.py)
        creates: Ghost[Map[Ref, Count]] = Map.fill(0)   # applied creates of each name

        def __init_subclass__(cls, **kw):
            super().__init_subclass__(**kw)
            _declare_ex_leader_memory(cls)

    return KubernetesState


def _declare_ex_leader_memory(cls):
    """`ex_<name>`, with the domain and default of `<name>`, for each memory variable
    `cls` lists that no class before it declared an `ex_` copy of."""
    names = vars(cls).get("MEMORY", ()) + vars(cls).get("PROCESS_MEMORY", ())
    declared = [inspect.get_annotations(k, eval_str=True) for k in cls.__mro__
                if issubclass(k, Spec)]
    own = cls.__dict__.get("__annotations__")
    for name in dict.fromkeys(names):
        if any(f"ex_{name}" in a for a in declared):
            continue
        annotation = next((a[name] for a in declared if name in a), None)
        if annotation is None or name.startswith("_"):
            raise SpecError(f"{cls.__name__}: MEMORY and PROCESS_MEMORY list state variables; "
                            f"{name!r} is not one", where_defined(cls))
        if own is None:
            own = cls.__annotations__ = {}
        own[f"ex_{name}"] = annotation
        if hasattr(cls, name):
            setattr(cls, f"ex_{name}", getattr(cls, name))
