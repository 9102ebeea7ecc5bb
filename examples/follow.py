"""`\\E` in a guard (`exists`): a waiting process other than 1 is done once some process
is done, the witness unused by the step (examples/tlc/Follow/Follow.tla with N = 3,
action for action).

The `\\E` comes before the primed variables, so TLC makes one successor per witness:
`exists` runs the step once per witness too, and the states generated are TLC's. The
same guard as `any(...)` makes one successor (fewer generated, the same states).
LeaderFirst: nobody is done before process 1. With Early (FollowEarly.cfg), a waiting
process also counts as a witness, and process 2 follows itself in two steps. TLC: 17
distinct states, 31 generated, depth 7 (run with -deadlock: all done is the end).
"""
from checker import Const, Enum, Int, Map, Spec, action, exists, invariant, require

Proc = Int[1, 3]


class Pc(Enum):
    IDLE = "idle"
    WAIT = "wait"
    DONE = "done"


class Follow(Spec):
    Early = Const(False, "a waiting process counts as a witness too (the mutant)")

    pc: Map[Proc, Pc] = Map.fill(Pc.IDLE)

    @action
    def lead(s):
        require(s.pc[1] == Pc.WAIT)
        s.pc[1] = Pc.DONE

    @action
    def wait(s, p: Proc):
        require(s.pc[p] == Pc.IDLE)
        s.pc[p] = Pc.WAIT

    @action
    def follow(s, p: Proc):
        """Follow(p): ... /\\ \\E q \\in Proc : pc[q] = "done" \\/ (Early /\\ pc[q] = "wait") /\\ ..."""
        require(p != 1 and s.pc[p] == Pc.WAIT)
        require(exists(Proc, lambda q: s.pc[q] == Pc.DONE or (s.Early and s.pc[q] == Pc.WAIT)))
        s.pc[p] = Pc.DONE

    @invariant
    def leader_first(s):
        """LeaderFirst == (\\E p \\in Proc : pc[p] = "done") => pc[1] = "done\""""
        return s.pc[1] == Pc.DONE or not any(s.pc[p] == Pc.DONE for p in Proc)
