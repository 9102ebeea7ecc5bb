"""The Die Hard jug puzzle (tlaplus/Examples DieHard.tla), action for action.

With a 3- and a 5-gallon jug, measure exactly 4 gallons. The invariant `not_solved`
(TLA+ `NotSolved`, big # 4) is violated; its shortest counterexample is the solution:
6 steps. The full state space has 16 states, depth 8 (TLC).
"""
from checker import Int, Spec, action, invariant


class DieHard(Spec):
    small: Int[0, 3] = 0
    big: Int[0, 5] = 0

    @action
    def fill_small_jug(s):
        """FillSmallJug"""
        s.small = 3

    @action
    def fill_big_jug(s):
        """FillBigJug"""
        s.big = 5

    @action
    def empty_small_jug(s):
        """EmptySmallJug"""
        s.small = 0

    @action
    def empty_big_jug(s):
        """EmptyBigJug"""
        s.big = 0

    @action
    def small_to_big(s):
        """SmallToBig: pour until the small jug is empty or the big one full."""
        moved = min(s.small, 5 - s.big)
        s.small -= moved
        s.big += moved

    @action
    def big_to_small(s):
        """BigToSmall"""
        moved = min(s.big, 3 - s.small)
        s.big -= moved
        s.small += moved

    @invariant
    def not_solved(s):
        """NotSolved: the big jug never holds 4 gallons (violated: that is the puzzle)."""
        return s.big != 4
