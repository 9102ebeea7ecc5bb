"""The coffee can problem (Gries, after Scholten; tlaplus/Examples
specifications/CoffeeCan/CoffeeCan.tla).

A can holds black and white beans. Repeatedly take two: same colour, throw both out and
put a black one in; different colours, put the white one back. Every step takes one bean
out, and the parity of the white beans never changes, so the last bean is white iff the
number of white beans was odd. The TLA+ says so with two action properties, written here
as `@step_invariant`s over the step's state before and after, and a liveness property
over ENABLED, written with `enabled(...)`.

TLC, MaxBeanCount = 100 (CoffeeCan100Beans.cfg): 5,150 distinct states, every one
initial, 20,002 generated, depth 1; every property holds (`-D MaxBeanCount=100` gives the
same here). The model file takes 10 beans: 65 distinct, 202 generated, as TLC finds.
TypeInvariant is the domain of `can`. The fairness of Spec, WF_can(Next), is the model's `[fairness] next = "weak-group"`.
"""
from typing import NamedTuple

from checker import (Const, Int, Spec, action, choose, enabled, eventually, initial, require,
                     step_invariant)


class CoffeeCan(Spec):
    MaxBeanCount = Const(100, "most beans in the can", min=1)
    Count = Int[0, MaxBeanCount]
    # Can == [black: Count, white: Count]; a call, so that it sees the constant.
    Can = NamedTuple("Can", [("black", Count), ("white", Count)])

    can: Can

    @initial
    def init(s):
        """Init: any can holding 1..MaxBeanCount beans."""
        s.can = s.Can(black=choose(s.Count), white=choose(s.Count))
        require(1 <= s.bean_count() <= s.MaxBeanCount)

    def bean_count(s):
        """BeanCount"""
        return s.can.black + s.can.white

    @action(group="next")
    def pick_same_color_white(s):
        """Two white beans out, one black bean in."""
        require(s.bean_count() > 1 and s.can.white >= 2)
        s.can = s.can._replace(black=s.can.black + 1, white=s.can.white - 2)

    @action(group="next")
    def pick_same_color_black(s):
        """Two black beans out, one black bean in."""
        require(s.bean_count() > 1 and s.can.black >= 2)
        s.can = s.can._replace(black=s.can.black - 1)

    @action(group="next")
    def pick_different_color(s):
        """One of each out, the white one back in."""
        require(s.bean_count() > 1 and s.can.black >= 1 and s.can.white >= 1)
        s.can = s.can._replace(black=s.can.black - 1)

    @action(group="next")
    def termination(s):
        """One bean left: the can stays as it is."""
        require(s.bean_count() == 1)

    @step_invariant
    def monotonic_decrease(s, t):
        """[][BeanCount' < BeanCount]_can"""
        return t.bean_count() < s.bean_count()

    @step_invariant
    def loop_invariant(s, t):
        """[][can.white % 2 = 0 <=> can'.white % 2 = 0]_can"""
        return (s.can.white % 2 == 0) == (t.can.white % 2 == 0)

    @eventually
    def eventually_terminates(s):
        """<>(ENABLED Termination)"""
        return enabled(s.termination)

    @eventually
    def termination_hypothesis(s):
        """IF can.white % 2 = 0 THEN <>(black = 1, white = 0) ELSE <>(black = 0, white = 1).
        The IF reads the initial state; loop_invariant says white's parity is the same in
        every state of a behaviour, so reading it where the bean is found is the same."""
        if s.can.white % 2 == 0:
            return s.can == s.Can(black=1, white=0)
        return s.can == s.Can(black=0, white=1)
