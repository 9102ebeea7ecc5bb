"""The transaction commit protocol's specification (tlaplus/Examples
specifications/transaction_commit/TCommit.tla, Gray & Lamport), action for action.

Only the resource managers' states: each RM prepares, then all decide alike. It is the
abstract spec that TwoPhase (examples/twophase.py) refines. TLC with RM = {r1, r2, r3}:
34 distinct states, 94 generated, depth 7. The runs end in states where every RM has
decided and nothing is enabled, hence CHECK_DEADLOCK FALSE in TCommit.cfg.
"""
from checker import Const, Int, Map, Spec, action, choose, invariant, require
from examples.twophase import RMState


class TCommit(Spec):
    N = Const(3, "number of resource managers (the cfg's RM = {r1, r2, r3})", min=1)
    RM = Int[1, N]

    rm_state: Map[RM, RMState] = Map.fill(RMState.WORKING)

    def can_commit(s) -> bool:
        """canCommit: every RM is prepared or committed."""
        return all(v in (RMState.PREPARED, RMState.COMMITTED) for v in s.rm_state.values())

    def not_committed(s) -> bool:
        """notCommitted: no RM has committed."""
        return RMState.COMMITTED not in s.rm_state.values()

    @action
    def prepare(s, rm: RM):
        """Prepare(rm)"""
        require(s.rm_state[rm] == RMState.WORKING)
        s.rm_state[rm] = RMState.PREPARED

    @action
    def decide(s, rm: RM):
        """Decide(rm): commit once all RMs are prepared, or abort while none committed.

        Both disjuncts hold for a prepared RM when every RM is prepared; TLC then makes
        one successor for each, and so does `choose` over the enabled outcomes.
        """
        outcomes = []
        if s.rm_state[rm] == RMState.PREPARED and s.can_commit():
            outcomes.append(RMState.COMMITTED)
        if s.rm_state[rm] in (RMState.WORKING, RMState.PREPARED) and s.not_committed():
            outcomes.append(RMState.ABORTED)
        s.rm_state[rm] = choose(outcomes)

    @invariant
    def tc_type_ok(s):
        """TCTypeOK: rmState is a function from RM to the four RM states."""
        return all(isinstance(v, RMState) for v in s.rm_state.values())

    @invariant
    def tc_consistent(s):
        """TCConsistent: no RM has aborted while another committed."""
        states = set(s.rm_state.values())
        return not (RMState.ABORTED in states and RMState.COMMITTED in states)
