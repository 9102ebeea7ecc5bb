"""Towers of Hanoi (tlaplus/Examples specifications/tower_of_hanoi/Hanoi.tla, model
Hanoi.toolbox/Model_1 with D = 5 disks and N = 3 towers), action for action.

The invariant `not_solved` (TLA+ `NotSolved`: the last tower does not hold every disk)
is violated; its shortest counterexample is the solution, 2^D - 1 = 31 moves (32 states).
The full state space (checked without the invariant) has 243 distinct states, depth 32
and 913 states generated (TLC 2.09, MC.out): the initial state and 726 moves, the 186
onto an empty tower counted twice, see `move`.

TLA+ encodes a tower as a bitmask of disks (disk k is the power of two 2^(k-1)) and
needs `&` from Bits.tla. A tower here is a `Set[Disk]`, which the engine stores as the
same bitmask: `tower & disk = disk` is `disk in tower`, and `tower & (disk - 1) = 0`
says no disk smaller than `disk` is on the tower. (A bound like `Int[0, 2^D - 1]`
could not be written anyway: constant expressions have no `**`.)
"""
from checker import Const, Int, Map, Set, Spec, action, choose, initial, invariant, require


def no_smaller_disk(tower, disk) -> bool:
    """`tower & (disk - 1) = 0`: no disk smaller than `disk` is on `tower`."""
    return all(d >= disk for d in tower)


class Hanoi(Spec):
    D = Const(5, "number of disks", min=1)
    N = Const(3, "number of towers", min=2)
    Tower = Int[1, N]
    Disk = Int[1, D]                    # 1 is the smallest disk

    towers: Map[Tower, Set[Disk]]

    @initial
    def init(s):
        """Init: every disk on the first tower, the others empty."""
        s.towers = {t: set(range(1, s.D + 1)) if t == 1 else set() for t in range(1, s.N + 1)}

    @action
    def move(s, src: Tower, dst: Tower, disk: Disk):
        """Move(from, to, disk), as Next's `\\E d, idx1, idx2 : idx1 # idx2 /\\ Move(...)`.

        CanMoveTo(tower, disk) is `tower & (disk - 1) = 0 \\/ IsEmptyTower(tower)`, and
        TLC generates one successor per true disjunct, so a move onto an empty tower
        (where both hold) is generated twice: `choose` over the true disjuncts does the
        same, which is what makes the generated total 913 rather than 727.
        """
        require(src != dst)
        require(disk in s.towers[src] and no_smaller_disk(s.towers[src], disk))   # CanMoveOff
        target = s.towers[dst]
        choose([name for name, holds in (("no smaller disk", no_smaller_disk(target, disk)),
                                         ("empty tower", not target)) if holds])
        s.towers[src].discard(disk)
        s.towers[dst].add(disk)

    @invariant
    def not_solved(s):
        """NotSolved: the last tower does not hold all disks (violated: that is the puzzle)."""
        return len(s.towers[s.N]) != s.D
