"""The interpreter's visited store: each state seen, with the state it was reached from.

Exact at first: states are kept whole (a tuple of codes, some 500 bytes on RayJob), so
nothing can be confused. Past `FINGERPRINT_AFTER` states, or from the start when asked,
it keeps 64-bit fingerprints instead (about 90 bytes a state all in), as TLC's FPSet
does: two states with one fingerprint would be taken for one, with the probability
`collision_probability` reports (TLC's optimistic estimate, for a uniform hash). A
trace is then rebuilt by running the spec again from an initial state, choosing at
each step the successor with the next fingerprint on the path (as Stateright does).

Under symmetry (`checker.explicit.symmetry`) a state is stored under its orbit's
canonical form, so the store holds orbits, not the states the search met; a trace is
rebuilt the same way, matching canonical forms (as TLC does), and is a real path of
the spec.

The breadth-first search reads `seen` and `exact` directly: it is the hot loop.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..errors import SpecError
from ..options import Store

FINGERPRINT_AFTER = 1 << 18          # Store.AUTO: exact up to this many states


class Visited:
    """States seen -> their parent (None for an initial state), by state or fingerprint."""

    def __init__(self, mode: Store = Store.AUTO,
                 canonical: Callable[[tuple], tuple] | None = None):
        """`canonical`, under symmetry, maps a state to its orbit's representative."""
        self.mode = Store(mode)
        self.exact = self.mode is not Store.FINGERPRINT
        self.canonical = canonical
        self.seen: dict = {}
        self.kept_apart = 0              # states stored by workers, not brought back here

    def __len__(self) -> int:
        return len(self.seen) + self.kept_apart

    def key(self, st: tuple):
        if self.canonical is not None:
            st = self.canonical(st)
        return st if self.exact else fingerprint(st)

    def compact_if_large(self) -> bool:
        """In Store.AUTO mode past FINGERPRINT_AFTER states, switch to fingerprints
        (between levels). True if it switched."""
        if not (self.exact and self.mode is Store.AUTO and len(self.seen) > FINGERPRINT_AFTER):
            return False
        self.to_fingerprints()
        return True

    def to_fingerprints(self) -> None:
        """Keep fingerprints from now on (a no-op if it already does)."""
        if not self.exact:
            return
        prints = {st: fingerprint(st) for st in self.seen}   # one int object per state,
        self.seen = {prints[st]: None if parent is None else prints[parent]   # shared
                     for st, parent in self.seen.items()}
        self.exact = False

    def path(self, st: tuple, initial: Callable[[], Iterable[tuple]],
             successors: Callable[[tuple], Iterable[tuple]]) -> list[tuple]:
        """The states from an initial state to `st`, as the search reached it."""
        chain, k = [], self.key(st)
        while k is not None:
            chain.append(k)
            k = self.seen[k]
        chain.reverse()
        if self.exact and self.canonical is None:
            return chain
        path = [self._find(chain[0], initial())]
        for k in chain[1:]:
            path.append(self._find(k, successors(path[-1])))
        return path

    def _find(self, key: int, candidates: Iterable[tuple]) -> tuple:
        found = next((c for c in candidates if self.key(c) == key), None)
        if found is None:
            raise SpecError("a trace could not be rebuilt from its fingerprints (a collision, "
                            "a spec whose actions are not deterministic functions of the state, "
                            "or a symmetry it does not have): check again with --store exact "
                            "--no-symmetry")
        return found

    def collision_probability(self, generated: int) -> float | None:
        """TLC's optimistic estimate, n * (m - n) / 2^64 for n distinct states among m
        `generated`; None while exact."""
        if self.exact:
            return None
        n = len(self)
        return n * max(0, generated - n) / 2.0 ** 64

    def describe(self, generated: int) -> str | None:
        """What the run's summary says about the store, when it holds fingerprints."""
        p = self.collision_probability(generated)
        if p is None:
            return None
        return f"64-bit fingerprints, collision probability {p:.1e}"


def fingerprint(st: tuple) -> int:
    """A state's 64-bit fingerprint: Python's tuple hash of its codes (ints and tuples of
    ints, which hash the same in every run)."""
    return hash(st)
