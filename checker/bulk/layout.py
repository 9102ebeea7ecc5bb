"""How the bulk engine packs a state into 64-bit words.

Each leaf of the symbolic reading (`checker/symbolic/shapes.py`: a bool, a bounded int, an
enum index, an option's flag, a set's member bit, a sequence's length, ...) gets a bit field of its own, wide
enough for its range, holding its value minus the range's lower bound. No field straddles
two words, so a leaf is one shift and one mask away. Packed states are exact: two states
are equal exactly when their words are.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import z3

from ..errors import CheckerError
from ..symbolic.shapes import (BoolShape, EnumShape, IntShape, MapShape, OptionShape,
                               RecordShape, SeqShape, SetShape, Shape)
from .fit import WORD


class Unsupported(CheckerError):
    """The bulk engine cannot run this model (`message` says why); the interpreter can."""

    def __str__(self) -> str:
        refusal = f"the bulk engine cannot run this model: {self.message} (the interpreter can)"
        return f"{self.where}: {refusal}" if self.where else refusal


@dataclasses.dataclass(frozen=True)
class Field:
    word: int
    shift: int
    bits: int
    lo: int
    boolean: bool

    @property
    def mask(self) -> int:
        return ((1 << self.bits) - 1) << self.shift


def leaf_ranges(shape: Shape) -> list[tuple[int, int, bool]]:
    """(lowest, highest, is a bool) of each leaf of `shape`, in leaf order."""
    if isinstance(shape, (BoolShape, SetShape)):
        return [(0, 1, True)] * shape.width
    if isinstance(shape, EnumShape):
        return [(0, len(shape.members) - 1, False)]
    if isinstance(shape, IntShape):
        if not (isinstance(shape.lo, int) and isinstance(shape.hi, int)):
            raise Unsupported("an int range depends on a symbolic constant")
        return [(shape.lo, shape.hi, False)]
    if isinstance(shape, OptionShape):
        return [(0, 1, True)] + leaf_ranges(shape.inner)
    if isinstance(shape, RecordShape):
        return [r for s in shape.fields.values() for r in leaf_ranges(s)]
    if isinstance(shape, MapShape):
        return leaf_ranges(shape.value) * len(shape.keys)
    if isinstance(shape, SeqShape):
        return [(0, shape.capacity, False)] + leaf_ranges(shape.elem) * shape.capacity
    raise Unsupported(f"no packed layout for {type(shape).__name__}")


class Layout:
    """Bit fields for the leaves of `shapes`, filled word by word."""

    def __init__(self, shapes: list[Shape]):
        self.shapes = shapes
        self.fields: list[Field] = []
        word, used = 0, 0
        for lo, hi, boolean in (r for s in shapes for r in leaf_ranges(s)):
            bits = max(1, (hi - lo).bit_length())
            if bits > WORD:
                raise Unsupported(f"a leaf ranges over {hi - lo + 1} values")
            if used + bits > WORD:
                word, used = word + 1, 0
            self.fields.append(Field(word, used, bits, lo, boolean))
            used += bits
        self.words = word + 1 if self.fields else 1
        self.dtype = np.dtype(np.uint64) if self.words == 1 else \
            np.dtype([(f"w{i}", np.uint64) for i in range(self.words)])

    # ------------------------------------------------------------ arrays of states

    def word(self, keys: np.ndarray, i: int) -> np.ndarray:
        return keys if self.words == 1 else keys[f"w{i}"]

    def column(self, keys: np.ndarray, leaf: int) -> np.ndarray:
        """Leaf `leaf` of every state in `keys`: bools as bool, others as int64."""
        f = self.fields[leaf]
        raw = (self.word(keys, f.word) >> np.uint64(f.shift)) & np.uint64((1 << f.bits) - 1)
        if f.boolean:
            return raw.astype(bool)
        return raw.astype(np.int64) + f.lo if f.lo else raw.astype(np.int64)

    def assemble(self, words: list[np.ndarray]) -> np.ndarray:
        if self.words == 1:
            return words[0]
        keys = np.empty(len(words[0]), self.dtype)
        for i, w in enumerate(words):
            keys[f"w{i}"] = w
        return keys

    def updated(self, keys: np.ndarray, changes: dict[int, np.ndarray | int | bool]) -> np.ndarray:
        """`keys` with the leaves in `changes` (leaf index -> new values) replaced."""
        words = [self.word(keys, i) for i in range(self.words)]
        touched: dict[int, list[int]] = {}
        for leaf in changes:
            touched.setdefault(self.fields[leaf].word, []).append(leaf)
        for i, leaves in touched.items():
            clear = ~np.uint64(sum(self.fields[leaf].mask for leaf in leaves))
            w = words[i] & clear
            for leaf in leaves:
                f = self.fields[leaf]
                value = np.asarray(changes[leaf])
                w = w | ((value.astype(np.int64) - f.lo).astype(np.uint64) << np.uint64(f.shift))
            words[i] = w
        return self.assemble(words)

    # ------------------------------------------------------------ one state

    def pack(self, values: list[int]) -> np.ndarray:
        """The key (a one-element array) of the state whose leaves are `values`."""
        words = [0] * self.words
        for f, v in zip(self.fields, values):
            words[f.word] |= (int(v) - f.lo) << f.shift
        return self.assemble([np.array([w], np.uint64) for w in words])

    def values(self, key) -> list[int]:
        """The leaves of one packed state."""
        words = [int(key)] if self.words == 1 else [int(key[f"w{i}"]) for i in range(self.words)]
        return [((words[f.word] >> f.shift) & ((1 << f.bits) - 1)) + f.lo for f in self.fields]

    def leaf_terms(self, key) -> list[z3.ExprRef]:
        """One packed state's leaves as Z3 values (what the shapes decode)."""
        return [z3.BoolVal(bool(v)) if f.boolean else z3.IntVal(v)
                for f, v in zip(self.fields, self.values(key))]
