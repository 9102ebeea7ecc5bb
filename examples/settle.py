"""Eventually always (TLA+ `<>[]P`, `@eventually_always`): x climbs to 3 and stays there
while y blinks for ever (examples/tlc/Settle/Settle.tla, action for action).

Settled holds under WF(Up): every fair behaviour comes to x = 3 and keeps it, although
y never settles. With Drop (SettleDrop.cfg), x may fall back from 3 to 0, and a fair
behaviour that climbs and drops for ever violates it (TLC's lasso: three Up steps, then
Reset back to the initial state). TLC: 8 distinct states, 15 generated (17 with Drop),
depth 5.
"""
from checker import Const, Int, Spec, action, eventually_always, require


class Settle(Spec):
    Drop = Const(False, "x may fall back from 3 to 0 (the mutant)")

    x: Int[0, 3] = 0
    y: Int[0, 1] = 0

    @action(fair="weak")
    def up(s):
        """Up, weakly fair."""
        require(s.x < 3)
        s.x += 1

    @action
    def blink(s):
        s.y = 1 - s.y

    @action
    def reset(s):
        require(s.Drop and s.x == 3)
        s.x = 0

    @eventually_always
    def settled(s):
        """Settled == <>[](x = 3)"""
        return s.x == 3
