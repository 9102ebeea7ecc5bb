"""Whether the bulk engine pays for a model, told from the variables' domains alone
(before numpy and z3 are imported, without reading the spec as a relation).

Reading the spec as a relation costs from a tenth of a second to several seconds, and the
bulk engine's arrays pay that back only over many states: under about a million, the
interpreter is done first. A state too wide to pack into a few words pays no better.
Both bounds come from the domains' sizes: the same answer on every machine.
"""
from __future__ import annotations

import math

from ..lang.domains import Domain, MapDomain, SetDomain

AUTO_WORDS = 4          # chosen automatically only for states of at most four words
AUTO_BITS = 20          # ... and domains whose product holds at least 2^20 states
WORD = 64               # bits a word of a packed state (`layout.py`)


def too_small_or_wide(domains: list[Domain]) -> str | None:
    """Why the bulk engine would not pay for states of these domains, or None if it would."""
    bits = state_bits(domains)
    if bits is None:
        return "a state's width is known only from its layout"
    if math.ceil(bits / WORD) > AUTO_WORDS:
        return f"a state packs into at least {math.ceil(bits / WORD)} words"
    if bits < AUTO_BITS:
        return f"at most 2^{math.ceil(bits)} states, too few to pay for the bulk engine"
    return None


def state_bits(domains: list[Domain]) -> float | None:
    """log2 of the domains' product (None if a domain's size is unknown here): a lower
    bound of a packed state's bits, since its layout tells every state apart."""
    bits = [_bits(d) for d in domains]
    return None if None in bits else sum(bits)


def _bits(d: Domain) -> float | None:
    """log2 of the domain's size; None where only the layout can tell."""
    if getattr(d, "scalar", False) and getattr(d, "size", 0) > 0:
        return math.log2(d.size)
    if isinstance(d, MapDomain) and not d.lazy:
        inner = _bits(d.value)
        return None if inner is None else len(d.keys) * inner
    if isinstance(d, SetDomain) and not d.lazy:
        return d.elem.size              # a bit a possible member
    return None
