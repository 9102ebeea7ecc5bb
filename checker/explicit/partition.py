"""Which worker owns a state: a hash of the variables that seldom change.

Hashing the whole state (TLC's and Parallel Murphi's partition) sends a successor to
another worker with probability (n-1)/n, whatever the step did: on RayJob, 0.76 states
crossed per distinct state at n = 2, each pickled, held until the level's end, unpickled
and checked by its owner, and the workers' memories of steps (`checker.explicit.expand`)
each learn every path. Hashing only variables that a step seldom writes keeps most
successors with the worker that found them, as Lerda and Sisto's distributed SPIN hashes
one process's local state: a step crosses only when it changes one of them.

The variables are chosen once, when the search splits, from the level at hand: the
change rate of each (on the steps that reached that level's states from their parents)
and the balance their hash gives its states. Greedily, rarest-changing first, until the
level splits evenly over enough distinct values that later levels will too; when no
such choice beats the whole state by a clear margin, the whole state it is.
"""
from __future__ import annotations

import random

from .expand import changed_between

SAMPLE = 4096            # states of the level whose step from their parent is read
SPREAD = 32              # distinct hashed values per worker, at least, in that level
SLACK = 1.10             # the largest share at most this much over an even one
LARGEST = 4              # no value hashed holds more than this share of a worker's states
WORTH = 0.5              # beats the whole state if it crosses at most this share as often


def choose(machine, level: list[tuple], parent_of: dict, n: int) -> tuple[int, float]:
    """The variables (a bit each) to hash for `n` workers, or -1 for the whole state, and
    the share of the level's steps from their parents that changed one of them (what
    would have crossed). `parent_of` maps a state of `level` to the one it was reached
    from (the exact store)."""
    whole = (-1, (n - 1) / n)
    steps = [changed_between(parent_of[st], st) for st in _sample(level)
             if parent_of.get(st) is not None]           # a bit per variable each changed
    if n < 2 or not steps:
        return whole
    changes = [0] * len(machine.variables)
    for bits in steps:
        while bits:
            low = bits & -bits
            changes[low.bit_length() - 1] += 1
            bits ^= low
    varying = [v.index for v in machine.variables if len({st[v.index] for st in level}) > 1]
    mask = 0
    for i in sorted(varying, key=lambda i: (changes[i], i)):
        mask |= 1 << i
        if _even(machine, level, mask, n):
            crossing = sum(1 for bits in steps if bits & mask) / len(steps)
            return (mask, crossing) if crossing <= WORTH else whole
    return whole


def _sample(level: list[tuple]) -> list[tuple]:
    return level if len(level) <= SAMPLE else random.Random(0).sample(level, SAMPLE)


def _even(machine, level: list[tuple], mask: int, n: int) -> bool:
    """Whether hashing the variables in `mask` splits `level` evenly among `n` workers."""
    project = machine.projection(mask)[0]
    counts: dict = {}
    for st in level:
        codes = project(st)
        counts[codes] = counts.get(codes, 0) + 1
    if len(counts) < SPREAD * n or max(counts.values()) * LARGEST * n > len(level):
        return False
    shares = [0] * n
    for codes, count in counts.items():
        shares[hash(codes) % n] += count
    return max(shares) <= SLACK * len(level) / n


def owner(machine, mask: int, n: int):
    """`owner(st, key)`: the worker that owns state `st` (its store key `key`)."""
    if mask == -1:
        return lambda st, key: key % n
    project = machine.projection(mask)[0]
    return lambda st, key: hash(project(st)) % n
