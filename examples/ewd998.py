"""Termination detection in a ring with asynchronous messages, Safra's EWD 998
(tlaplus/Examples specifications/ewd998/EWD998.tla).

EWD 840 with messages in flight: each node counts the messages it sent minus those it
received, the token sums those counters on its round, and a node that receives a
message turns black. Node 0 detects termination when the token comes back white, with
its own counter making the sum zero, and it is white and inactive. InitiateProbe's guard
is a disjunction of three conditions, one successor per true disjunct as TLC makes them
(`either()`). The fairness WF_vars(System) is the model's `[fairness] system =
"weak-group"`.

TDSpec (`TD == INSTANCE AsyncTerminationDetection`, examples/asyncterminationdetection.py)
says that the algorithm refines the abstract spec, with `active` and `pending` as they
are and `terminationDetected` the operator of that name. Its `[][TD!Next]_TD!vars` is the
step property `td_spec`: every step is one of the abstract spec's, or leaves the three
unchanged. TD!Init holds in the initial states (nothing is pending there, and the
invariant TerminationDetection says `terminationDetected => Termination`, the abstract
`terminated`), and WF_vars(TD!DetectTermination) follows from the property Liveness: the abstract DetectTermination is enabled exactly where Termination
holds and termination is not yet detected, and Termination is stable.

TLC with N = 2 and the module's StateConstraint (the cfg's N = 4 has 219 million states,
EWD998Small's N = 3 1.3 million): 32 initial states, 6,876 distinct, 33,664 generated,
depth 28; TerminationDetection, Inv, Liveness and TDSpec hold. TypeOK is the variables'
domains, wide enough for the successors the constraint cuts: a counter is at least minus
the others' (their sum is B, at least 0), the token's q a sum of counters.
"""
from typing import NamedTuple

from checker import Const, Int, Map, Spec, action, choose, constraint, either, initial, \
    invariant, leads_to, require, step_invariant
from examples.asyncterminationdetection import is_atd_step
from examples.ewd840 import Color
from examples.syncterminationdetection import BOOLEAN


class EWD998(Spec):
    N = Const(2, "nodes in the ring", min=1)
    Node = Int[0, N - 1]
    Counter = Int[-3 * N, 4]
    # Token == [pos : Node, q : Int, color : Color]; a call, so that it sees the constant.
    Token = NamedTuple("Token", [("pos", Node), ("q", Int[-3 * N * N, 12]), ("color", Color)])

    active: Map[Node, bool]
    color: Map[Node, Color]
    counter: Map[Node, Counter] = Map.fill(0)
    pending: Map[Node, Int[0, 4]] = Map.fill(0)
    token: Token

    @initial
    def init(s):
        """Init: any activity and colours, nothing sent, a black token anywhere."""
        s.active = {n: choose(BOOLEAN) for n in range(s.N)}
        s.color = {n: choose(Color) for n in range(s.N)}
        s.token = s.Token(pos=choose(s.Node), q=0, color=Color.BLACK)

    @action(group="system")
    def initiate_probe(s):
        """InitiateProbe: node 0 starts a round with a white token where the last one was
        not conclusive (a black token or node 0, or messages in flight)."""
        require(s.token.pos == 0)
        if either():
            require(s.token.color == Color.BLACK)
        elif either():
            require(s.color[0] == Color.BLACK)
        else:
            require(s.counter[0] + s.token.q > 0)
        s.token = s.Token(pos=s.N - 1, q=0, color=Color.WHITE)
        s.color[0] = Color.WHITE

    @action(group="system")
    def pass_token(s, i: Node):
        """PassToken(i), i # 0: an inactive node adds its counter to the token, blackens
        it if black itself, turns white and passes it on."""
        require(i != 0 and not s.active[i] and s.token.pos == i)
        s.token = s.Token(pos=s.token.pos - 1, q=s.token.q + s.counter[i],
                          color=Color.BLACK if s.color[i] == Color.BLACK else s.token.color)
        s.color[i] = Color.WHITE

    @action
    def send_msg(s, i: Node, j: Node):
        """SendMsg(i) to j # i: i counts the message, which is pending at j."""
        require(s.active[i] and j != i)
        s.counter[i] += 1
        s.pending[j] += 1

    @action
    def recv_msg(s, i: Node):
        """RecvMsg(i): i receives a message, counts it, turns black and becomes active."""
        require(s.pending[i] > 0)
        s.pending[i] -= 1
        s.counter[i] -= 1
        s.color[i] = Color.BLACK
        s.active[i] = True

    @action
    def deactivate(s, i: Node):
        """Deactivate(i)"""
        require(s.active[i])
        s.active[i] = False

    @constraint
    def state_constraint(s):
        """StateConstraint"""
        return all(s.counter[i] <= 3 and s.pending[i] <= 3 for i in range(s.N)) and \
            s.token.q <= 9

    def termination_detected(s):
        """terminationDetected: a white token back at node 0 with q + counter[0] = 0, node
        0 white and inactive."""
        return s.token.pos == 0 and s.token.color == Color.WHITE and \
            s.token.q + s.counter[0] == 0 and s.color[0] == Color.WHITE and not s.active[0]

    def sum(s, f, nodes) -> int:
        """Sum(f, S)"""
        return sum(f[i] for i in nodes)

    def termination(s):
        """Termination: every node inactive, no message in flight (B = 0)."""
        return not any(s.active[i] for i in range(s.N)) and s.sum(s.pending, range(s.N)) == 0

    @invariant
    def termination_detection(s):
        """TerminationDetection"""
        return not s.termination_detected() or s.termination()

    @invariant
    def inv(s):
        """Inv, Safra's inductive invariant: P0 /\\ (P1 \\/ P2 \\/ P3 \\/ P4)."""
        pos, nodes = s.token.pos, range(s.N)
        p0 = s.sum(s.pending, nodes) == s.sum(s.counter, nodes)
        p1 = all(not s.active[i] for i in range(pos + 1, s.N)) and \
            s.token.q == (0 if pos == s.N - 1 else s.sum(s.counter, range(pos + 1, s.N)))
        p2 = s.sum(s.counter, range(pos + 1)) + s.token.q > 0
        p3 = any(s.color[i] == Color.BLACK for i in range(pos + 1))
        p4 = s.token.color == Color.BLACK
        return p0 and (p1 or p2 or p3 or p4)

    @leads_to
    def liveness(s):
        """Liveness: Termination ~> terminationDetected."""
        return s.termination(), s.termination_detected()

    @step_invariant
    def td_spec(s, t):
        """TDSpec's [][TD!Next]_<<active, pending, terminationDetected>>."""
        return is_atd_step(s.N, (s.active, s.pending, s.termination_detected()),
                           (t.active, t.pending, t.termination_detected()))
