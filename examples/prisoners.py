"""The prisoners and the two switches (Car Talk puzzle; tlaplus/Examples
specifications/Prisoners/Prisoners.tla), action for action.

Every prisoner but the Counter flips switch A up at most twice; the Counter flips it
down and counts; the others' moves are flips of switch B. Once the count reaches
2 * (Cardinality(Prisoner) - 1) every prisoner has been in the room. TLC with Prisoner =
{p1, p2, p3, p4} and Counter = p1: 4 initial states (the switches start anyhow), 214
distinct states, 860 generated, depth 14.

Prisoners are numbered 1..N here and the Counter is prisoner 1 (the cfg's p1): which
prisoner counts is arbitrary, and fixing it lets OtherPrisoner be the domain 2..N.
The cfg's property Safety, `[](Done => ...)`, is an invariant and is checked as one;
Liveness, `<>Done`, holds under the spec's Fairness, weak fairness of CounterStep and of
each NonCounterStep(i): `fair="weak"` on both actions, each binding on its own.
"""
from checker import Const, Int, Map, Spec, action, choose, eventually, initial, invariant

COUNTER = 1


class Prisoners(Spec):
    N = Const(4, "number of prisoners (the cfg's p1..p4); prisoner 1 is the Counter", min=2)
    OtherPrisoner = Int[COUNTER + 1, N]          # Prisoner \ {Counter}, Prisoner = 1..N

    switch_a_up: bool
    switch_b_up: bool
    times_switched: Map[OtherPrisoner, Int[0, 2]] = Map.fill(0)
    count: Int[0, 2 * N - 1] = 0

    @initial
    def init(s):
        """Init: both switches in any position; nobody has switched or counted yet."""
        s.switch_a_up = choose((False, True))
        s.switch_b_up = choose((False, True))

    def done(s) -> bool:
        """Done: the Counter has counted two flips of switch A per other prisoner."""
        return s.count == 2 * (s.N - 1)

    @action(fair="weak")
    def counter_step(s):
        """CounterStep: switch A down and count if it is up, else flip switch B."""
        if s.switch_a_up:
            s.switch_a_up = False
            s.count += 1
        else:
            s.switch_b_up = not s.switch_b_up

    @action(fair="weak")
    def non_counter_step(s, i: OtherPrisoner):
        """NonCounterStep(i): switch A up if it is down and i did so fewer than twice,
        else flip switch B."""
        if not s.switch_a_up and s.times_switched[i] < 2:
            s.switch_a_up = True
            s.times_switched[i] += 1
        else:
            s.switch_b_up = not s.switch_b_up

    @invariant
    def type_ok(s):
        """TypeOK: switches are booleans, timesSwitched in 0..2, count in 0..2N-1."""
        return isinstance(s.switch_a_up, bool) and isinstance(s.switch_b_up, bool) and \
            all(0 <= t <= 2 for t in s.times_switched.values()) and 0 <= s.count < 2 * s.N

    @invariant
    def count_invariant(s):
        """CountInvariant: count is the number of A-flips up, less one while A is up."""
        total = sum(s.times_switched.values()) - (1 if s.switch_a_up else 0)
        return s.count in (total, total + 1)

    @invariant
    def safety(s):
        """Safety: when Done, every other prisoner has flipped switch A at least once."""
        return not s.done() or all(t > 0 for t in s.times_switched.values())

    @eventually
    def liveness(s):
        """Liveness: <>Done."""
        return s.done()
