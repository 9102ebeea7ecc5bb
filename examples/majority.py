"""The Boyer-Moore majority vote (tlaplus/Examples specifications/Majority/Majority.tla,
with the model MCMajority: Value = {A, B, C}, bound = 5), action for action.

One pass over the input sequence keeps a candidate and a counter; at the end the
candidate is the only value that may occur in more than half of the sequence. The
input is a `Seq` variable that never changes, every sequence of at most `bound` values
initially (MCMajority's `Seq <- BoundedSeq`); Next's three disjuncts exclude each
other, so they are one `if`. `correct` (Correct) and the inductive invariant `inv` (Inv)
hold; TypeOK is what the variables' domains say. TLC: 1,092 initial states, 2,733
distinct, 3,459 generated, depth 6.
"""
import enum

from checker import Const, Int, Seq, Spec, action, choose, initial, invariant, require


class Value(enum.Enum):
    A = "A"
    B = "B"
    C = "C"


class Majority(Spec):
    bound = Const(5, "the longest input sequence (MCMajority's BoundedSeq)", min=0, max=8)
    Input = Seq[Value, bound]

    seq: Input                                 # the input, never changes
    i: Int[1, bound + 1] = 1                   # the next position to check
    cand: Value                                # the candidate for a majority
    cnt: Int[0, bound] = 0                     # a lower bound on its occurrences so far

    @initial
    def init(s):
        """Init: any input sequence, any candidate."""
        s.seq = choose(s.Input)
        s.cand = choose(Value)

    @action
    def next(s):
        """Next: read seq[i]; adopt it if the count is 0, else count it for or against."""
        require(s.i <= len(s.seq))
        x = s.seq[s.i - 1]
        if s.cnt == 0:
            s.cand = x
            s.cnt = 1
        elif s.cand == x:
            s.cnt += 1
        else:
            s.cnt -= 1
        s.i += 1

    def occurrences_before(s, v, j) -> int:
        """OccurrencesBefore(v, j): how often v occurs in seq[1 .. j-1]."""
        return s.seq[:j - 1].count(v)

    @invariant
    def correct(s):
        """Correct: at the end, only cand may occur in more than half of seq."""
        return s.i <= len(s.seq) or all(
            v == s.cand for v in Value if 2 * s.occurrences_before(v, len(s.seq) + 1) > len(s.seq))

    @invariant
    def inv(s):
        """Inv: the inductive invariant of the correctness proof."""
        before = s.occurrences_before(s.cand, s.i)
        return s.cnt <= before and 2 * (before - s.cnt) <= s.i - 1 - s.cnt and \
            all(2 * s.occurrences_before(v, s.i) <= s.i - 1 - s.cnt for v in Value if v != s.cand)
