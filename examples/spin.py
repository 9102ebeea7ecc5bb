"""Infinitely often a step that changes a variable (TLA+ `[]<><<A>>_v`,
`@infinitely_often`): Inc moves x round 0, 1, 2 and Tick flips y, both weakly fair
(examples/tlc/Spin/Spin.tla, action for action).

IncMoves, `[]<><<Inc>>_x`, holds. With Wrap = 2 (SpinStuck.cfg), Inc's step from x = 2
leaves x as it is: from there on no step is an Inc step that changes x, and Tick for
ever violates it (TLC's lasso: Inc, Inc, then Tick and back). Inc's stuttering step
does not make WF(Inc) owed, as in TLA+. TLC: 6 distinct states, 13 generated, depth 4.
"""
from checker import Const, Int, Spec, action, infinitely_often


class Spin(Spec):
    Wrap = Const(0, "the value Inc gives x from 2: 0, or 2 in the mutant", min=0, max=2)

    x: Int[0, 2] = 0
    y: Int[0, 1] = 0

    @action(fair="weak")
    def inc(s):
        s.x = s.x + 1 if s.x < 2 else s.Wrap

    @action(fair="weak")
    def tick(s):
        s.y = 1 - s.y

    @infinitely_often
    def inc_moves(s, t, step):
        """IncMoves == []<><<Inc>>_x"""
        return step.action == "inc" and t.x != s.x
