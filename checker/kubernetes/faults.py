"""Faults of the operator's environment, each spending one unit of the budget F.

A counterexample found with budget F needs at most F faults; faults are never fair
(they happen finitely often). The groups, switched on in a model's `[groups]`:

* `crash`: the operator process dies between two API calls and is restarted (its
  Deployment); memory is lost, the informer cache is refilled by a LIST, and every key is
  queued again (controller-runtime's initial List enqueues every object).
* `outage`: no operator runs for a while (its pod down, or no replica holding the
  leader-election Lease); then one starts as after a crash. Its end is weakly fair.
* `failover` (failover.py): a leader paused inside a reconcile loses the Lease to
  another replica, and later resumes.
* `write_fail`: the pending write is not applied; the client returns an error and the
  reconcile returns it (rate-limited requeue).
* `write_lost`: the pending write is applied, but its response is lost (a timeout): the
  operator sees an error and returns, the rest of its computation never happens
  (client-go surfaces a timeout, the write may have happened:
  https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions).
  A controller that goes on after a failed write says so in `_write_failed`.
* `stale` (cache.py): the informer cache withholds the newest versions of an object.
* `user_delete`: a user deletes one of the objects in `USER_DELETES` (`kubectl delete`).

The operator's own faults (`OperatorFaults`: crash, outage, failed write, lost response)
read only the operator's `budget`, `pc`, `op_down`, `Pc`, `WRITES` and its hooks
`_fault` (spend the budget), `_process_exits`, `_process_starts`, `_call` and
`_write_failed`: a spec with variables of its own (the RayJob spec) takes them alone.
"""
from checker import Spec, action, fault, initial, require

from .apiserver import ApiServer
from .operator import OperatorProcess
from .state import Result


class OperatorFaults(Spec):
    def _fault(s):
        """Spend one unit of the fault budget (each fault's guard asks `budget > 0`)."""
        s.budget -= 1

    @fault(group="crash")
    def crash(s):
        """The operator dies between two calls and restarts with a fresh cache."""
        require(s.budget > 0 and s.pc is not s.Pc.IDLE)
        s._fault()
        s._process_exits()
        s._process_starts()

    @fault(group="outage")
    def outage_begin(s):
        """No operator runs: the process is down (its pod evicted, its node gone) or no
        replica holds the leader-election Lease (a lost Lease makes controller-runtime's
        manager return, and the process exits); no reconcile runs until `outage_end`."""
        require(s.budget > 0 and not s.op_down)
        s._fault()
        s._process_exits()
        s.op_down = True

    @action(group="outage", fair="weak")
    def outage_end(s):
        """An operator runs again (the Deployment restarts it, or a replica acquires the
        Lease): a new process, as after a crash."""
        require(s.op_down)
        s.op_down = False
        s._process_starts()

    @fault(group="write_fail")
    def write_fails(s):
        """The pending write is not applied: client-go returns the API server's error (a
        5xx, a timeout before the request was stored); the reconcile returns it, and
        controller-runtime requeues the key rate-limited."""
        require(s.budget > 0 and s.pc in s.WRITES)
        s._fault()
        s._write_failed()

    @fault(group="write_lost")
    def write_lost(s):
        """The pending write is applied, its response lost; the reconcile returns an error."""
        require(s.budget > 0 and s.pc in s.WRITES)
        require(s._call())                    # applied (a 409 or AlreadyExists: no change)
        s._fault()
        s._write_failed()

    def _write_failed(s):
        """What the reconcile does with an error from its pending write: it returns it."""
        s._end(Result.ERROR)


class Faults(OperatorFaults, ApiServer, OperatorProcess):
    USER_DELETES = ()           # the objects a user may delete (members of its Ref)

    @initial
    def init(s):
        """The fault budget is full."""
        s.budget = s.F

    @fault(group="user_delete")
    def user_delete(s, r: "Ref"):
        """`kubectl delete`: a deletionTimestamp while a finalizer is there, else gone."""
        require(s.budget > 0 and r in s.USER_DELETES and s.objects[r] is not None
                and not s.objects[r].deleting)
        s._fault()
        s._delete(r)
