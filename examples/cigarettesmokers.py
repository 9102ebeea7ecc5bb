"""The cigarette smokers problem (Patil, 1971; tlaplus/Examples
specifications/CigaretteSmokers/CigaretteSmokers.tla), action for action.

Each smoker has an endless supply of one ingredient; the dealer puts the other two on
the table, the smoker who lacks exactly those smokes, then stops and the dealer offers
again. TLC: 3 initial states (one per offer), 6 distinct states, 15 generated, depth 2.

The constants Ingredients = {matches, paper, tobacco} and Offers (every pair of them)
are fixed here, as in CigaretteSmokers.cfg: `Ingredient` and `OFFERS`.
"""
import enum
from typing import NamedTuple

from checker import Map, Set, Spec, action, choose, initial, invariant, require


class Ingredient(enum.Enum):
    MATCHES = "matches"
    PAPER = "paper"
    TOBACCO = "tobacco"


INGREDIENTS = frozenset(Ingredient)
OFFERS = [INGREDIENTS - {i} for i in Ingredient]


class Smoker(NamedTuple):
    """The record [smoking: BOOLEAN]."""
    smoking: bool


class CigaretteSmokers(Spec):
    smokers: Map[Ingredient, Smoker] = Map.fill(Smoker(smoking=False))
    dealer: Set[Ingredient]                 # an offer, or {} while someone smokes

    @initial
    def init(s):
        """Init: nobody smokes; dealer \\in Offers."""
        s.dealer = choose(OFFERS)

    @action
    def start_smoking(s):
        """startSmoking: the smoker whose ingredient completes the offer smokes."""
        require(s.dealer)
        offer = set(s.dealer)
        for r in Ingredient:
            s.smokers[r] = Smoker(smoking=offer | {r} == INGREDIENTS)
        s.dealer = frozenset()

    @action
    def stop_smoking(s):
        """stopSmoking: the smoker stops (ChooseOne: TLC fails unless exactly one smokes);
        dealer' \\in Offers."""
        require(not s.dealer)
        (r,) = [r for r in Ingredient if s.smokers[r].smoking]
        s.smokers[r] = Smoker(smoking=False)
        s.dealer = choose(OFFERS)

    @invariant
    def type_ok(s):
        """TypeOK: smokers are [smoking: BOOLEAN] records; dealer is an offer or {}."""
        return all(isinstance(v.smoking, bool) for v in s.smokers.values()) and \
            (s.dealer in OFFERS or not s.dealer)

    @invariant
    def at_most_one(s):
        """AtMostOne: at most one smoker smokes at any moment."""
        return sum(v.smoking for v in s.smokers.values()) <= 1
