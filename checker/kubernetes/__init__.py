"""A reusable Kubernetes environment for modelling a controller's crash recovery.

A controller's spec declares its objects and program counter, gets the variables from
`kubernetes_state`, names its memory variables (`MEMORY`, `PROCESS_MEMORY`: a paused
ex-leader keeps its own copy), and mixes in the actors it lives among:

    state.py       the variables, over the controller's Ref (objects), Obj and Pc
    apiserver.py   create / update / delete with AlreadyExists, 409, finalizers; the GC
    cache.py       the informer cache with lag L, over the controller's view; the `stale` fault
    operator.py    one worker, a work queue, a reconcile as a sequence of API calls
    faults.py      crash, outage, failed write, lost response (OperatorFaults), user
                   deletion; the budget F
    failover.py    leader-election failover: a paused ex-leader resumes with its own memory
    properties.py  ready-made properties: no orphans, no stuck finalizer, at most one
                   create (per generation), identity kept

Three opt-ins of the controller's class write a spec the RayJob spec's way:
`ACTION_PER_CALL` and `IDLE_RECONCILES` (operator.py), `GC_IN_ONE_STEP` (apiserver.py);
so does `CallSteps` with `@call_step`, a reconcile as a method per call (operator.py).

The tutorial (docs/tutorial-controller.md) builds `examples/childcontroller.py` on it;
docs/jobcontroller.md the Kubernetes Job controller's pod tracking (`examples/jobcontroller.py`);
docs/kubernetes.md maps each piece to the Kubernetes behaviour it follows and to the
RayJob spec.
"""
from .apiserver import ApiServer
from .cache import InformerCache
from .failover import Failover
from .faults import Faults, OperatorFaults
from .operator import CallSteps, OperatorProcess, call_step
from .properties import ReadyMadeProperties
from .state import CacheSt, Result, kubernetes_state


class Kubernetes(Failover, Faults, ReadyMadeProperties):
    """Every actor of the library in one mixin (after `kubernetes_state(...)` in the bases)."""


__all__ = ["ApiServer", "CacheSt", "CallSteps", "Failover", "Faults", "InformerCache",
           "Kubernetes", "OperatorFaults", "OperatorProcess", "ReadyMadeProperties", "Result",
           "call_step", "kubernetes_state"]
