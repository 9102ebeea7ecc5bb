"""The moving cat puzzle (tlaplus/Examples specifications/Moving_Cat_Puzzle/Cat.tla).

Boxes 1..N stand in a line and a cat hides in one. Every night she moves to an adjacent
box; every morning you may inspect one box. Inspecting 2, 3, ..., N-1, then N-1 again and
back down to 2 (and so on) finds her. The TLA+ `Next` is one action, the conjunction of
Move_Cat and Observe_Box, each a disjunction: here one action `next`, each disjunction
an `if either(): ... else: ...`, one successor per disjunct as TLC makes them.

TLC: with N = 6 (CatEvenBoxes.cfg) 48 distinct states, all initial, 128 generated, depth
1; with N = 5 (CatOddBoxes.cfg) 30 distinct, 78 generated. Victory (`<>(observed_box =
cat_box)`) holds under WF_cat_box(Move_Cat): every `next` step moves the cat, so that is
weak fairness of `next`. TypeOK is the variables' domains.
"""
from checker import Const, Enum, Int, Spec, action, choose, either, eventually, initial, require


class Direction(Enum):
    LEFT = "left"
    RIGHT = "right"


class Cat(Spec):
    Number_Of_Boxes = Const(6, "boxes in the line", min=3)
    Boxes = Int[1, Number_Of_Boxes]
    Observed_Boxes = Int[2, Number_Of_Boxes - 1]

    cat_box: Boxes
    observed_box: Observed_Boxes
    direction: Direction

    @initial
    def init(s):
        """Init: the cat in any box, the inspection at any inner box, either way."""
        s.cat_box = choose(s.Boxes)
        s.observed_box = choose(s.Observed_Boxes)
        s.direction = choose(Direction)

    def move_cat(s):
        """Move_Cat: \\/ cat_box' = cat_box + 1 \\/ cat_box' = cat_box - 1, in Boxes."""
        box = s.cat_box + 1 if either() else s.cat_box - 1
        require(1 <= box <= s.Number_Of_Boxes)
        s.cat_box = box

    def observe_box(s):
        """Observe_Box: the next inner box in the direction, or at the end turn round."""
        next_box = s.observed_box + 1 if s.direction == Direction.RIGHT else s.observed_box - 1
        inner = 2 <= next_box <= s.Number_Of_Boxes - 1
        if either():
            require(inner)
            s.observed_box = next_box
        else:
            require(not inner)
            s.direction = Direction.LEFT if s.direction == Direction.RIGHT else Direction.RIGHT

    @action(fair="weak")
    def next(s):
        """Next: Move_Cat /\\ Observe_Box."""
        s.move_cat()
        s.observe_box()

    @eventually
    def victory(s):
        """Victory: the cat is found."""
        return s.observed_box == s.cat_box
