"""Whether the bulk engine may pay for a model, told before numpy and z3 are imported.

The default engine tries bulk first (`checker/engines.py`). For a state too wide to pay,
importing the engine alone (numpy, z3: about 0.2 s) was most of the try: a lower bound of
the packed width, from the domains' sizes, turns such models away without it.
"""
from __future__ import annotations

import math

from ..lang.domains import Domain, MapDomain, SetDomain

AUTO_WORDS = 4          # chosen automatically only for states of at most four words
WORD = 64               # bits a word of a packed state (`layout.py`)


def words_at_least(domains: list[Domain]) -> int:
    """A lower bound of the words a packed state takes: its layout tells every state of
    the domains' product apart, so it needs at least log2 of their count in bits."""
    return math.ceil(sum(map(_bits, domains)) / WORD)


def _bits(d: Domain) -> float:
    if getattr(d, "scalar", False) and getattr(d, "size", 0) > 0:
        return math.log2(d.size)
    if isinstance(d, MapDomain) and not d.lazy:
        return len(d.keys) * _bits(d.value)
    if isinstance(d, SetDomain) and not d.lazy:
        return d.elem.size              # a bit a possible member
    return 0.0                          # unknown here: the layout will tell
