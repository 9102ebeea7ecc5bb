"""How the bulk engine's threads share the visited states: by ranges of a mixed key.

Each thread owns one range of keys, so sorted successors split into the threads' parts
by a binary search, with no gather. A packed state's first word is not spread evenly (its
high bits are the last leaves packed, often constant), so with several parts the engine
keeps every key *mixed*: its first word multiplied by an odd constant, a bijection modulo
2**64 (Knuth's multiplicative hashing), whose high bits are spread; the leaves are read
from the plain key, after multiplying by the inverse. With one part, keys stay plain.
"""
from __future__ import annotations

import numpy as np

GOLDEN = 0x9E3779B97F4A7C15                     # odd: invertible modulo 2**64


class Parts:
    def __init__(self, count: int, words: int):
        self.count, self.words = count, words
        self._mix = np.uint64(GOLDEN if count > 1 else 1)
        self._unmix = np.uint64(pow(int(self._mix), -1, 1 << 64))
        # part t owns the first words in [bounds[t - 1], bounds[t])
        self.bounds = np.array([-(-(t << 64) // count) for t in range(1, count)], np.uint64)

    def mixed(self, keys: np.ndarray) -> np.ndarray:
        return self._times(keys, self._mix)

    def plain(self, keys: np.ndarray) -> np.ndarray:
        return self._times(keys, self._unmix)

    def of(self, keys: np.ndarray) -> np.ndarray:
        """Each (mixed) key's part."""
        return np.searchsorted(self.bounds, self._first(keys), side="right")

    def split(self, keys: np.ndarray) -> np.ndarray:
        """Where sorted (mixed) `keys` pass from one part to the next (for `np.split`)."""
        return np.searchsorted(self._first(keys), self.bounds)

    def _first(self, keys: np.ndarray) -> np.ndarray:
        return keys if self.words == 1 else keys["w0"]

    def _times(self, keys: np.ndarray, factor: np.uint64) -> np.ndarray:
        if self.count == 1:
            return keys
        if self.words == 1:
            return keys * factor
        out = keys.copy()
        out["w0"] *= factor
        return out
