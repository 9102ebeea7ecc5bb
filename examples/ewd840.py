"""Termination detection in a ring by a circulating token, Dijkstra's EWD 840
(tlaplus/Examples specifications/ewd840/EWD840.tla).

Active nodes wake others with messages and may deactivate at any time; a token travels
from node N-1 down to node 0, which detects termination when it gets the token back
white and is white and inactive itself. A node that wakes a node ahead of the token turns
black, and a black node blackens the token. The guards `tcolor = "black" \\/ color[0] =
"black"` and `~active[i] \\/ color[i] = "black" \\/ tcolor = "black"` are disjunctions, one
successor per true disjunct as TLC makes them (`either()`). The fairness WF_vars(System)
is the model's `[fairness] system = "weak-group"`.

TDSpec (`TD == INSTANCE SyncTerminationDetection`, examples/syncterminationdetection.py)
says that the algorithm refines the abstract spec with `terminationDetected` mapped to the
operator of that name. Its `[][TD!Next]_TD!vars` is the step property `td_spec`: every
step is one of the abstract spec's, or leaves `active` and `terminationDetected` as they
were. Its TD!Init is implied by the invariant TerminationDetection (`terminationDetected
=> terminated`), and its WF_vars(TD!DetectTermination) follows from the property
Liveness: the abstract DetectTermination is enabled exactly where `terminated` holds and
termination is not yet detected, and `terminated` is stable (only an active node wakes
another).

TLC 2.15 with the cfg's N = 3: 302 distinct states, 2,001 generated, depth 9 (the
tlaplus/Examples manifest records depth 10); TerminationDetection, Inv, Liveness and
TDSpec hold. TypeOK is the variables' domains.
"""
from checker import Const, Enum, Int, Map, Spec, action, choose, either, initial, invariant, \
    leads_to, require, step_invariant
from examples.syncterminationdetection import BOOLEAN, is_sync_td_step


class Color(Enum):
    WHITE = "white"
    BLACK = "black"


class EWD840(Spec):
    N = Const(3, "nodes in the ring", min=1)
    Node = Int[0, N - 1]

    active: Map[Node, bool]
    color: Map[Node, Color]
    tpos: Node
    tcolor: Color

    @initial
    def init(s):
        """Init: any activity, colours and token position; the token black."""
        s.active = {n: choose(BOOLEAN) for n in range(s.N)}
        s.color = {n: choose(Color) for n in range(s.N)}
        s.tpos = choose(s.Node)
        s.tcolor = Color.BLACK

    @action(group="system")
    def initiate_probe(s):
        """InitiateProbe: node 0, black or holding a black token, sends a white one round."""
        require(s.tpos == 0)
        if either():
            require(s.tcolor == Color.BLACK)
        else:
            require(s.color[0] == Color.BLACK)
        s.tpos = s.N - 1
        s.tcolor = Color.WHITE
        s.color[0] = Color.WHITE

    @action(group="system")
    def pass_token(s, i: Node):
        """PassToken(i), i # 0: an inactive or black node, or a black token, passes it on;
        a black node blackens it, and turns white."""
        require(i != 0 and s.tpos == i)
        if either():
            require(not s.active[i])
        elif either():
            require(s.color[i] == Color.BLACK)
        else:
            require(s.tcolor == Color.BLACK)
        s.tpos = i - 1
        if s.color[i] == Color.BLACK:
            s.tcolor = Color.BLACK
        s.color[i] = Color.WHITE

    @action
    def send_msg(s, i: Node, j: Node):
        """SendMsg(i) to j # i: j becomes active; i turns black if j is ahead of the token."""
        require(s.active[i] and j != i)
        s.active[j] = True
        if j > i:
            s.color[i] = Color.BLACK

    @action
    def deactivate(s, i: Node):
        """Deactivate(i)"""
        require(s.active[i])
        s.active[i] = False

    def terminated(s):
        """terminated: every node inactive."""
        return not any(s.active[i] for i in range(s.N))

    def termination_detected(s):
        """terminationDetected: node 0 holds a white token, and is white and inactive."""
        return s.tpos == 0 and s.tcolor == Color.WHITE and s.color[0] == Color.WHITE and \
            not s.active[0]

    @invariant
    def termination_detection(s):
        """TerminationDetection: termination is detected only once it holds."""
        return not s.termination_detected() or s.terminated()

    @invariant
    def inv(s):
        """Inv, Dijkstra's inductive invariant: P0 \\/ P1 \\/ P2."""
        p0 = all(not s.active[i] for i in range(s.tpos + 1, s.N))
        p1 = any(s.color[j] == Color.BLACK for j in range(s.tpos + 1))
        p2 = s.tcolor == Color.BLACK
        return p0 or p1 or p2

    @leads_to
    def liveness(s):
        """Liveness: terminated ~> terminationDetected."""
        return s.terminated(), s.termination_detected()

    @step_invariant
    def td_spec(s, t):
        """TDSpec's [][TD!Next]_<<active, terminationDetected>>."""
        return is_sync_td_step(s.N, (s.active, s.termination_detected()),
                               (t.active, t.termination_detected()))
