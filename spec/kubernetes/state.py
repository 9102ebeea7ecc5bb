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
"""
import enum

from checker import Const, Ghost, Int, Map, Option, Spec

Count = Int[0, 2]                  # saturating: 2 means "more than once"


class CacheSt(enum.Enum):
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
        cache_st: Map[Ref, CacheSt] = Map.fill(CacheSt.SYNC)
        cache_lag: Map[Ref, Int[0, L]] = Map.fill(0)
        cache_prev: Map[Ref, Option[obj_type]] = Map.fill(None)
        cache_older: Map[Ref, Option[obj_type]] = Map.fill(None)
        # the operator process (operator.py): volatile memory and the work queue
        pc: Pc = Pc.IDLE
        fresh: Map[Ref, bool] = Map.fill(False)
        queued: bool = True                   # the object's key is in the work queue
        budget: Int[0, F] = 0                 # set to F by `init` (faults.py)
        # ghosts for the ready-made properties (properties.py)
        creates: Ghost[Map[Ref, Count]] = Map.fill(0)   # applied creates of each name

    return KubernetesState
