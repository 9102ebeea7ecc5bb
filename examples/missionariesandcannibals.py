"""The missionaries and cannibals puzzle (tlaplus/Examples specifications/
MissionariesAndCannibals/MissionariesAndCannibals.tla, Lamport 2018), action for action.

Three missionaries and three cannibals cross a river in a boat that carries one or two
people; on neither bank may the cannibals outnumber the missionaries there. A step moves
a set of people with the boat from its bank to the other: TLA+'s `\\E S \\in SUBSET
who_is_on_bank[bank_of_boat] : Move(S, bank_of_boat)` is `move`'s subset-valued
parameter `S`. The sets of people are constants the model file sets, as the cfg does.
The invariant `solution` (TLA+ `Solution`: someone is still on the east bank) is
violated, and its shortest counterexample, 11 crossings, solves the puzzle. TLC: 64
distinct states, 283 generated, depth 13 (the whole space); Solution violated in 11
steps. TypeOK is what the variables' domains say.
"""
import enum

from checker import Const, Map, Set, Spec, action, initial, invariant, require


class Person(enum.Enum):
    """The cfg's model values."""
    m1 = "m1"
    m2 = "m2"
    m3 = "m3"
    c1 = "c1"
    c2 = "c2"
    c3 = "c3"


class Bank(enum.Enum):
    E = "E"
    W = "W"


def other_bank(b):
    """OtherBank(b)"""
    return Bank.W if b == Bank.E else Bank.E


class MissionariesAndCannibals(Spec):
    Missionaries = Const(frozenset({Person.m1, Person.m2, Person.m3}), domain=Set[Person])
    Cannibals = Const(frozenset({Person.c1, Person.c2, Person.c3}), domain=Set[Person])

    bank_of_boat: Bank = Bank.E
    who_is_on_bank: Map[Bank, Set[Person]]

    @initial
    def init(s):
        """Init: the boat and everyone on the east bank."""
        s.who_is_on_bank = {Bank.E: s.Cannibals | s.Missionaries, Bank.W: frozenset()}

    def is_safe(s, people) -> bool:
        """IsSafe(S): no missionary there, or no fewer missionaries than cannibals."""
        return people <= s.Cannibals or \
            len(people & s.Cannibals) <= len(people & s.Missionaries)

    @action
    def move(s, S: Set[Person]):
        """Move(S, bank_of_boat), for S in SUBSET who_is_on_bank[bank_of_boat]."""
        b = s.bank_of_boat
        require(S <= s.who_is_on_bank[b] and len(S) in (1, 2))
        new_this_bank = s.who_is_on_bank[b] - S
        new_other_bank = s.who_is_on_bank[other_bank(b)] | S
        require(s.is_safe(new_this_bank) and s.is_safe(new_other_bank))
        s.bank_of_boat = other_bank(b)
        s.who_is_on_bank[b] = new_this_bank
        s.who_is_on_bank[other_bank(b)] = new_other_bank

    @invariant
    def solution(s):
        """Solution: the east bank is not empty (violated: the trace is a solution)."""
        return len(s.who_is_on_bank[Bank.E]) > 0
