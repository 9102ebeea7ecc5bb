"""Lamport's two-phase commit (tlaplus/Examples TwoPhase.tla), action for action.

Resource managers (RMs) prepare or abort; the transaction manager (TM) collects
"Prepared" messages and commits only when every RM prepared. Messages are a grow-only
set, so duplication and reordering come for free. TLC: N = 3 gives 288 distinct states.
"""
import enum
from typing import NamedTuple

from checker import Const, Int, Map, Option, Set, Spec, action, invariant, require


class RMState(enum.Enum):
    WORKING = "working"
    PREPARED = "prepared"
    COMMITTED = "committed"
    ABORTED = "aborted"


class TMState(enum.Enum):
    INIT = "init"
    COMMITTED = "committed"
    ABORTED = "aborted"


class MsgType(enum.Enum):
    PREPARED = "Prepared"
    COMMIT = "Commit"
    ABORT = "Abort"


class TwoPhase(Spec):
    N = Const(3, "number of resource managers", min=1)
    RM = Int[1, N]

    class Msg(NamedTuple):
        type: MsgType
        rm: Option[Int[1, 9]]             # the sender of a Prepared message (N <= 9)

    rm_state: Map[RM, RMState] = Map.fill(RMState.WORKING)
    tm_state: TMState = TMState.INIT
    tm_prepared: Set[RM] = frozenset()
    msgs: Set[Msg] = frozenset()

    COMMIT = Msg(MsgType.COMMIT, None)
    ABORT = Msg(MsgType.ABORT, None)

    @action
    def tm_rcv_prepared(s, rm: RM):
        """TMRcvPrepared(rm)"""
        require(s.tm_state == TMState.INIT)
        require(s.Msg(MsgType.PREPARED, rm) in s.msgs)
        s.tm_prepared.add(rm)

    @action
    def tm_commit(s):
        """TMCommit"""
        require(s.tm_state == TMState.INIT)
        require(len(s.tm_prepared) == s.N)
        s.tm_state = TMState.COMMITTED
        s.msgs.add(s.COMMIT)

    @action
    def tm_abort(s):
        """TMAbort"""
        require(s.tm_state == TMState.INIT)
        s.tm_state = TMState.ABORTED
        s.msgs.add(s.ABORT)

    @action
    def rm_prepare(s, rm: RM):
        """RMPrepare(rm)"""
        require(s.rm_state[rm] == RMState.WORKING)
        s.rm_state[rm] = RMState.PREPARED
        s.msgs.add(s.Msg(MsgType.PREPARED, rm))

    @action
    def rm_choose_to_abort(s, rm: RM):
        """RMChooseToAbort(rm)"""
        require(s.rm_state[rm] == RMState.WORKING)
        s.rm_state[rm] = RMState.ABORTED

    @action
    def rm_rcv_commit_msg(s, rm: RM):
        """RMRcvCommitMsg(rm)"""
        require(s.COMMIT in s.msgs)
        s.rm_state[rm] = RMState.COMMITTED

    @action
    def rm_rcv_abort_msg(s, rm: RM):
        """RMRcvAbortMsg(rm)"""
        require(s.ABORT in s.msgs)
        s.rm_state[rm] = RMState.ABORTED

    @invariant
    def type_ok(s):
        """TPTypeOK: guaranteed by the declared domains; kept to mirror the TLA+ model."""
        return all(isinstance(v, RMState) for v in s.rm_state.values())

    @invariant
    def consistent(s):
        """TCConsistent: no RM committed while another aborted."""
        return not (any(v == RMState.COMMITTED for v in s.rm_state.values()) and
                    any(v == RMState.ABORTED for v in s.rm_state.values()))
