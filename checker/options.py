"""What a run checks and how far: the options every engine takes."""
from __future__ import annotations

import dataclasses
import enum


class Store(str, enum.Enum):
    """How the interpreter keeps the states it has seen (`checker/explicit/store.py`)."""

    AUTO = "auto"                   # whole, then fingerprints past 2^18 states
    EXACT = "exact"                 # whole
    FINGERPRINT = "fingerprint"     # 64-bit fingerprints from the start


@dataclasses.dataclass
class CheckOptions:
    """What to check and how far: shared by every engine."""

    properties: list[str] | None = None        # None: every property of the spec
    deadlock: bool = False
    max_states: int | None = None
    max_seconds: float | None = None
    max_depth: int | None = None
    store: Store = Store.AUTO                   # visited states
    workers: int = 1                            # processes for the explicit search's large levels
    ray: str | None = None                      # run them as Ray actors: "local" or an address
    symmetry: list[str] = dataclasses.field(default_factory=list)   # sets of interchangeable values
    traces_per_property: int = 1                # counterexamples per violated safety property
    walks: int | None = 1000                    # simulation: walks (None: until max_seconds)
    seed: int = 0                               # simulation: the walks' random numbers
    lemmas: list[str] | None = None             # pdr: patterns of the invariants Houdini may
                                                # lean on (None: every one)
