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

Fairness: the ex-leader's steps are weakly fair (it resumes, or is killed, eventually).
"""
from checker import action, fault, require

from .operator import CALL_STEP
from .state import RayJobState
from .types import EMPTY, ClStat, Pc, Result


class Failover(RayJobState):
    @fault(group="failover")
    def leader_failover(s):
        """Models controller-runtime's leader election losing the Lease (§2.2): the
        leader pauses inside a reconcile, before its next call; another replica
        wins the Lease and starts afresh (a new process: empty memory, a fresh LIST, the
        initial LIST enqueues every object). The paused one keeps its memory (`ex_*`)."""
        require(s.budget > 0 and s.pc is not Pc.IDLE and s.ex_pc is Pc.IDLE)
        s._fault()
        s.failed_over = True
        (s.ex_pc, s.ex_h, s.ex_b, s.ex_orig, s.ex_fresh, s.ex_sub_fin,
         s.ex_cl) = s._memory()
        s._forget()
        s._resync()
        if s.track_result:
            s.last_result = Result.ERROR

    @action(group="failover", fair="weak", calls="API server or Ray head")
    def ex_leader_call(s, goes_on: bool):
        """The paused ex-leader resumes (§2.2) and makes its pending call (the step the
        operator's `op_<call>` action takes, on the ex-leader's memory), or its renewal
        fails first and the process exits (`goes_on` false). After a call it goes on with
        the same reconcile only; a new reconcile would need the Lease. (Only a fault makes
        an ex-leader: with F = 0 the symbolic engines leave this action out.)"""
        require(s.F > 0 and s.ex_pc is not Pc.IDLE)
        s._event()
        if goes_on:
            s._ex_leader_step()
        else:
            s._ex_leader_exits()

    def _memory(s) -> tuple:
        """The operator's memory of a reconcile, in the order of the `ex_*` variables."""
        return s.pc, s.m_h, s.m_b, s.m_orig, s.m_fresh, s.m_sub_fin, s.m_cl

    def _ex_leader_step(s):
        """Run the ex-leader's pending call on its memory; the leader's is put back after.
        A RayJob write by either makes the other's copy stale."""
        rj, leader, after = (s.rj, s.rj_b), s._memory(), (s.m_clean, s.settled, s.last_result)
        (s.pc, s.m_h, s.m_b, s.m_orig, s.m_fresh, s.m_sub_fin,
         s.m_cl) = s.ex_pc, s.ex_h, s.ex_b, s.ex_orig, s.ex_fresh, s.ex_sub_fin, s.ex_cl
        getattr(s, CALL_STEP[s.pc])()
        (s.ex_pc, s.ex_h, s.ex_b, s.ex_orig, s.ex_fresh, s.ex_sub_fin,
         s.ex_cl) = s._memory()
        (s.pc, s.m_h, s.m_b, s.m_orig, s.m_fresh, s.m_sub_fin, s.m_cl) = leader
        s.m_clean, s.settled, s.last_result = after
        if (s.rj, s.rj_b) != rj:        # (every write the ex-leader makes changes the RayJob)
            s.m_fresh = False
        if s.ex_pc is Pc.IDLE:
            s._ex_leader_exits()

    def _ex_leader_exits(s):
        """Its reconcile ended, or its Lease renewal failed: the process exits."""
        s.ex_pc, s.ex_h, s.ex_b, s.ex_orig = Pc.IDLE, None, EMPTY, None
        s.ex_fresh = s.ex_sub_fin = False
        s.ex_cl = ClStat.NONE
