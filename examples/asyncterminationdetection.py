"""Termination detection in a ring with asynchronous messages, the abstract spec
(tlaplus/Examples specifications/ewd998/AsyncTerminationDetection.tla).

Active nodes send messages; a node receiving one becomes active; an active node may
terminate, and whoever sees every node inactive with nothing pending may detect
termination. Quiescence, `[](terminated => []terminated)`, is the step property
`[][terminated => terminated']_vars` (the module's own QuiescenceAsActionInv): a
`@step_invariant`. Terminate's `terminationDetected' \\in {terminationDetected,
terminated'}` chooses from a set, so one successor where both are the same.
`is_atd_step` is the module's Next as a formula of a step, for EWD 998, which refines
it (examples/ewd998.py).

TLC with N = 3 and StateConstraint (pending at most 3 per node): 9 initial states, 513
distinct, 4,238 generated, depth 11; Safe, Quiescence (both forms) and Live hold. With
the cfg's N = 4 (`-D N=4`): 4,097 distinct, 53,271 generated, depth 14, for TLC and here.
TypeOK is the variables' domains (pending's Nat is 0..4: StateConstraint's 3, plus the
successors it cuts).
"""
from collections.abc import Mapping

from checker import (Const, Int, Map, Spec, action, choose, constraint, initial, invariant,
                     leads_to, require, step_invariant)
from examples.steps import is_except


BOOLEAN = (False, True)


class AsyncTerminationDetection(Spec):
    N = Const(3, "nodes in the ring", min=1)
    Node = Int[0, N - 1]

    active: Map[Node, bool]
    pending: Map[Node, Int[0, 4]] = Map.fill(0)
    terminationDetected: bool

    def terminated(s):
        """terminated: every node inactive, no message pending."""
        return all(not s.active[n] and s.pending[n] == 0 for n in range(s.N))

    @initial
    def init(s):
        """Init: any activity, nothing pending, termination detected only if terminated."""
        s.active = {n: choose(BOOLEAN) for n in range(s.N)}
        s.terminationDetected = choose({False, s.terminated()})

    @action
    def terminate(s, i: Node):
        """Terminate(i): i becomes inactive, and possibly detects termination."""
        require(s.active[i])
        s.active[i] = False
        s.terminationDetected = choose({s.terminationDetected, s.terminated()})

    @action
    def send_msg(s, i: Node, j: Node):
        """SendMsg(i, j): i sends a message to j."""
        require(s.active[i])
        s.pending[j] += 1

    @action
    def rcv_msg(s, i: Node):
        """RcvMsg(i): i receives a pending message and becomes active."""
        require(s.pending[i] > 0)
        s.active[i] = True
        s.pending[i] -= 1

    @action(fair="weak")
    def detect_termination(s):
        """DetectTermination"""
        require(s.terminated())
        s.terminationDetected = True

    @constraint
    def state_constraint(s):
        """StateConstraint"""
        return all(s.pending[n] <= 3 for n in range(s.N))

    @invariant
    def safe(s):
        """Safe: termination is detected only once it holds."""
        return not s.terminationDetected or s.terminated()

    @step_invariant
    def quiescence(s, t):
        """[][terminated => terminated']_vars"""
        return not s.terminated() or t.terminated()

    @leads_to
    def live(s):
        """Live: terminated ~> terminationDetected."""
        return s.terminated(), s.terminationDetected


def is_atd_step(n: int, before: tuple[Mapping[int, bool], Mapping[int, int], bool],
                after: tuple[Mapping[int, bool], Mapping[int, int], bool]) -> bool:
    """[Next]_vars of N nodes, for a spec that refines this one (EWD 998's TDSpec):
    `before` and `after` are (active, pending, terminationDetected); a step of RcvMsg,
    Terminate, SendMsg or DetectTermination, or one leaving all three unchanged."""
    (active, pending, detected), (active2, pending2, detected2) = before, after
    nodes = range(n)
    same_activity = all(active2[m] == active[m] for m in nodes)
    same_pending = all(pending2[m] == pending[m] for m in nodes)
    terminated2 = all(not active2[m] and pending2[m] == 0 for m in nodes)
    receive = detected2 == detected and any(
        pending[i] > 0 and is_except(active, active2, nodes, i, True) and
        is_except(pending, pending2, nodes, i, pending[i] - 1) for i in nodes)
    terminate = same_pending and any(
        active[i] and is_except(active, active2, nodes, i, False) and
        detected2 in (detected, terminated2) for i in nodes)
    send = same_activity and detected2 == detected and any(
        active[i] and is_except(pending, pending2, nodes, j, pending[j] + 1)
        for i in nodes for j in nodes)
    detect = all(not active[m] and pending[m] == 0 for m in nodes) and detected2 and \
        same_activity and same_pending
    unchanged = same_activity and same_pending and detected2 == detected
    return receive or terminate or send or detect or unchanged
