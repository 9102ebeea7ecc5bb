"""Termination detection in a ring with synchronous communication, the abstract spec
that EWD 840 refines (tlaplus/Examples specifications/ewd840/SyncTerminationDetection.tla).

Active nodes wake other nodes or terminate; once every node is inactive termination may be
detected, by the terminating node or later. `is_sync_td_step` is the module's Next as a
formula of a step, `[Next]_vars`, for a spec that refines this one to check its steps
against (TLA+'s `TD!Next` through `INSTANCE`): examples/ewd840.py.

TLC with the cfg's N = 7: 129 distinct states, all initial, 3,722 generated, depth 1;
TDCorrect, Quiescence (`[](terminated => []terminated)`, here the step property
`[][terminated => terminated']_vars`) and Liveness hold. TypeOK is the variables' domains.
"""
from collections.abc import Mapping

from checker import Const, Int, Map, Spec, action, choose, initial, invariant, leads_to, \
    require, step_invariant
from examples.steps import is_except

BOOLEAN = (False, True)


class SyncTerminationDetection(Spec):
    N = Const(7, "nodes in the ring", min=1)
    Node = Int[0, N - 1]

    active: Map[Node, bool]
    terminationDetected: bool

    def terminated(s):
        """terminated: every node inactive."""
        return not any(s.active[n] for n in range(s.N))

    @initial
    def init(s):
        """Init: any activity; termination detected at once or not if every node is inactive."""
        s.active = {n: choose(BOOLEAN) for n in range(s.N)}
        s.terminationDetected = choose({False, s.terminated()})

    @action
    def terminate(s, i: Node):
        """Terminate(i): i becomes inactive, and possibly detects termination."""
        require(s.active[i])
        s.active[i] = False
        s.terminationDetected = choose({s.terminationDetected, s.terminated()})

    @action
    def wakeup(s, i: Node, j: Node):
        """Wakeup(i, j): i activates j."""
        require(s.active[i])
        s.active[j] = True

    @action(fair="weak")
    def detect_termination(s):
        """DetectTermination"""
        require(s.terminated())
        s.terminationDetected = True

    @invariant
    def td_correct(s):
        """TDCorrect: termination is detected only once it holds."""
        return not s.terminationDetected or s.terminated()

    @step_invariant
    def quiescence(s, t):
        """Quiescence: [][terminated => terminated']_vars."""
        return not s.terminated() or t.terminated()

    @leads_to
    def liveness(s):
        """Liveness: terminated ~> terminationDetected."""
        return s.terminated(), s.terminationDetected


def is_sync_td_step(n: int, before: tuple[Mapping[int, bool], bool],
                    after: tuple[Mapping[int, bool], bool]) -> bool:
    """[Next]_<<active, terminationDetected>> of N nodes: `before` and `after` are
    (active, terminationDetected); a step of Terminate, Wakeup or DetectTermination, or
    one leaving both unchanged."""
    (active, detected), (active2, detected2) = before, after
    nodes = range(n)
    same_activity = all(active2[m] == active[m] for m in nodes)
    terminated2 = not any(active2[m] for m in nodes)
    terminate = any(active[i] and is_except(active, active2, nodes, i, False) and
                    detected2 in (detected, terminated2) for i in nodes)
    wakeup = detected2 == detected and any(
        active[i] and is_except(active, active2, nodes, j, True) for i in nodes for j in nodes)
    detect = not any(active[m] for m in nodes) and detected2 and same_activity
    unchanged = detected2 == detected and same_activity
    return terminate or wakeup or detect or unchanged
