"""What the ported abstract specs share to state their Next as a formula of a step (for
the specs that refine them, whose step properties read two states)."""
from collections.abc import Iterable, Mapping


def is_except(before: Mapping, after: Mapping, keys: Iterable, key, value) -> bool:
    """after = [before EXCEPT ![key] = value], both functions over `keys`."""
    return all(after[k] == (value if k == key else before[k]) for k in keys)
