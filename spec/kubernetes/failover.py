"""A leader-election failover: the leader, paused inside a reconcile, loses the Lease to
another replica, and later resumes its reconcile with its own memory.

An operator run with several replicas elects a leader through a Lease (controller-runtime's
manager, `LeaderElection: true`, on client-go's tools/leaderelection: LeaseDuration 15 s,
RenewDeadline 10 s, RetryPeriod 2 s). A replica paused longer than the Lease (a
stop-the-world pause, a frozen node, a partition from the API server) loses it while
it still believes it leads: client-go says so, "This implementation does not guarantee
that only one client is acting as a leader (a.k.a. fencing)"
(https://pkg.go.dev/k8s.io/client-go/tools/leaderelection). Another replica takes the
Lease and starts afresh: empty memory, its informer cache filled by a LIST, every key
queued. The paused one resumes the call it was about to make, with its own memory (its
`pc`, its `fresh` map, the controller's `MEMORY` and `PROCESS_MEMORY`), and goes on with
that reconcile, call by call, until the reconcile ends or its Lease renewal fails first
and the process exits (`OnStoppedLeading`: controller-runtime's manager returns
"leader election lost"). Its updates carry the resourceVersion it read (409 once anyone
wrote the object), its creates are decided by name (AlreadyExists), its deletes and
patches by nothing. Its writes are watch events for the new leader; its own requeues
die with it. It never starts another reconcile (that needs the Lease).

The ex-leader's memory is kept in `ex_pc`, `ex_fresh` and `ex_<name>` (state.py); a step
of the ex-leader swaps it with the live memory, runs the controller's own `_call` and
`_after`, and swaps back. Its reads, if its `_call`/`_after` made any, would go to the
shared informer cache (failover models keep it current, L = 0).

Fairness: the ex-leader's step is weakly fair (it resumes, or is killed, eventually).
"""
from checker import action, fault, require

from .faults import Faults


class Failover(Faults):
    @fault(group="failover")
    def leader_failover(s):
        """The leader pauses before its next call and loses the Lease; another replica
        wins it and starts afresh. The paused one keeps its memory (`ex_*`)."""
        require(s.budget > 0 and s.pc is not s.Pc.IDLE and s.ex_pc is s.Pc.IDLE)
        s.budget -= 1
        s._swap_leaders()                     # the ex-leader's copy was empty: now the live one is
        s._process_starts()

    @action(group="failover", fair="weak", calls="API server")
    def ex_leader_call(s, goes_on: bool):
        """The paused ex-leader resumes and makes its pending call, and computes what
        follows as the leader would; or its Lease renewal fails first and it exits
        (`goes_on` false). A reconcile it ends is its last."""
        require(s.ex_pc is not s.Pc.IDLE)
        if goes_on:
            s._swap_leaders()
            ok = s._call()
            queued = s.queued                 # its write was a watch event for the leader
            s._after(ok)
            s.queued = queued                 # its own requeue dies with it
            s._swap_leaders()
        if not goes_on or s.ex_pc is s.Pc.IDLE:
            s._swap_leaders()
            s._process_exits()
            s._swap_leaders()

    def _swap_leaders(s):
        """Exchange the live operator memory with the ex-leader's copy."""
        for name in ("pc", "fresh") + s.MEMORY + s.PROCESS_MEMORY:
            live, paused = getattr(s, name), getattr(s, f"ex_{name}")
            setattr(s, name, paused)
            setattr(s, f"ex_{name}", live)
