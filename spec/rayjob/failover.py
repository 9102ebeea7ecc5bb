"""A leader-election failover: the old leader, paused in the middle of a reconcile, resumes
after a new leader took over (two operator replicas, §2).

controller-runtime's leader election (a Lease, 15 s, renewed every 2 s within 10 s) makes
one replica the leader; a replica paused longer than the lease (a stop-the-world pause, a
partition from the API server, a frozen node) loses it while it still believes it leads.
When it resumes it goes on with the reconcile it was in, call by call, until its renewal
fails and the process exits (`OnStoppedLeading`). Of its calls only the status update and
the finalizer update carry a resourceVersion (409 once anything wrote the RayJob); creates
are decided by name, deletes and the dashboard's SubmitJob / StopJob by nothing. Its reads
go to the shared informer cache (the failover models keep it current, L = 0).

The failover itself is the library's (checker/kubernetes/failover.py, docs/kubernetes.md):
this spec says where the operator's memory and its ex-leader copy are (`_leader_memory`)
and how the ex-leader's call runs (`_ex_leader_step`); the process starting and exiting
are the operator's (state.py).

Fairness: the ex-leader's steps are weakly fair (it resumes, or is killed, eventually).
"""
from checker import action, fault

from checker import kubernetes

from .state import RayJobState

# the operator's memory of a reconcile (state.py), each with the ex-leader's copy
LEADER_MEMORY = (("pc", "ex_pc"), ("m_h", "ex_h"), ("m_b", "ex_b"), ("m_orig", "ex_orig"),
                 ("m_fresh", "ex_fresh"), ("m_sub_fin", "ex_sub_fin"), ("m_cl", "ex_cl"))


class Failover(kubernetes.Failover, RayJobState):
    @fault(group="failover")
    def leader_failover(s):
        """Models controller-runtime's leader election losing the Lease (§2.2): the
        leader pauses inside a reconcile, before its next call; another replica
        wins the Lease and starts afresh (a new process: empty memory, a fresh LIST, the
        initial LIST enqueues every object). The paused one keeps its memory (`ex_*`)."""
        super().leader_failover()
        s.failed_over = True
        s._interrupted()

    @action(group="failover", fair="weak", calls="API server or Ray head")
    def ex_leader_call(s, goes_on: bool):
        """The paused ex-leader resumes (§2.2) and makes its pending call (the step the
        operator's `op_<call>` action takes, on the ex-leader's memory), or its renewal
        fails first and the process exits (`goes_on` false). After a call it goes on with
        the same reconcile only; a new reconcile would need the Lease. (Only a fault makes
        an ex-leader: with F = 0 the symbolic engines leave this action out.)"""
        super().ex_leader_call(goes_on)

    def _leader_memory(s) -> tuple[tuple[str, str], ...]:
        """RayJob's own names for the memory and its copy (`m_h` and `ex_h`, ...)."""
        return LEADER_MEMORY

    def _ex_leader_step(s):
        """The ex-leader's pending call, on its memory (swapped in). Its RayJob write makes
        the leader's copy stale (`_write_rj` clears `ex_fresh`, the leader's while
        swapped); any step of it is an event for the leader, and its own result dies
        with it."""
        result = s.last_result
        s._call()
        s._event()
        s.last_result = result
