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

Where a controller keeps that memory and how it runs a call are two narrow hooks, so a
spec with variables of its own (the RayJob spec) takes this failover as it is:
`_leader_memory()` pairs each live memory variable with its ex-leader copy (by default
`pc`, `fresh` and the names in `MEMORY` and `PROCESS_MEMORY`, each with its `ex_` copy),
and `_ex_leader_step()` is the ex-leader's call and what follows it, on its memory. The
rest it needs is the operator's: `budget`, `F`, `Pc`, `_fault`, `_process_starts`,
`_process_exits`.

Fairness: the ex-leader's step is weakly fair (it resumes, or is killed, eventually).
"""
from checker import Spec, action, fault, require


class Failover(Spec):
    @fault(group="failover")
    def leader_failover(s):
        """The leader pauses before its next call and loses the Lease; another replica
        wins it and starts afresh. The paused one keeps its memory (`ex_*`)."""
        require(s.budget > 0 and s.pc is not s.Pc.IDLE and s.ex_pc is s.Pc.IDLE)
        s._fault()
        s._swap_leaders()                     # the ex-leader's copy was empty: now the live one is
        s._process_starts()

    @action(group="failover", fair="weak", calls="API server")
    def ex_leader_call(s, goes_on: bool):
        """The paused ex-leader resumes and makes its pending call, and computes what
        follows as the leader would; or its Lease renewal fails first and it exits
        (`goes_on` false). A reconcile it ends is its last."""
        require(s.F > 0 and s.ex_pc is not s.Pc.IDLE)  # F = 0: the symbolic engines leave it out
        if goes_on:
            s._swap_leaders()
            s._ex_leader_step()
            s._swap_leaders()
        if not goes_on or s.ex_pc is s.Pc.IDLE:
            s._swap_leaders()
            s._process_exits()
            s._swap_leaders()

    def _ex_leader_step(s):
        """The ex-leader's pending call and the computation after it, on its memory
        (swapped in): its write is a watch event for the leader, its own requeue dies
        with it."""
        ok = s._call()
        queued = s.queued
        s._after(ok)
        s.queued = queued

    def _leader_memory(s) -> tuple[tuple[str, str], ...]:
        """Each operator memory variable and the ex-leader's copy of it."""
        names = ("pc", "fresh") + s.MEMORY + s.PROCESS_MEMORY
        return tuple((name, f"ex_{name}") for name in names)

    def _swap_leaders(s):
        """Exchange the live operator memory with the ex-leader's copy."""
        for name, ex_name in s._leader_memory():
            live, paused = getattr(s, name), getattr(s, ex_name)
            setattr(s, name, paused)
            setattr(s, ex_name, live)
