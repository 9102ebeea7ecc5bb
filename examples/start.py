"""A property of the initial state only (TLA+'s `P` as a temporal formula with no `[]`,
`@initially`): examples/tlc/Start/Start.tla, action for action.

Doubled, `y = 2 * x`, is listed as a PROPERTY of Spec: TLC checks it in the initial
states only, where it holds (as an invariant it would not: Next moves x alone). With
Extra = {4} (StartExtra.cfg), y may also start at 4, and the initial state x = 0, y = 4
violates it. TLC: 15 distinct states, 18 generated, depth 5.
"""
from checker import Const, Int, Set, Spec, action, choose, initial, initially

Y = Int[0, 8]


class Start(Spec):
    Extra = Const(frozenset(), "other values y may start at (the mutant: {4})", domain=Set[Y])

    x: Int[0, 4]
    y: Y

    @initial
    def init(s):
        """Init == x \\in 0..2 /\\ y \\in {2 * x} \\cup Extra"""
        s.x = choose(range(3))
        s.y = choose({2 * s.x} | s.Extra)

    @action
    def next(s):
        s.x = (s.x + 1) % 5

    @initially
    def doubled(s):
        """Doubled == y = 2 * x"""
        return s.y == 2 * s.x
