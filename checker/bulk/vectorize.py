"""Z3 terms over the leaves, compiled into numpy code that evaluates a whole batch.

The symbolic reading turns every guard, every next-state leaf and every property into a
Z3 term over the current state's leaves. Here a list of such terms becomes one Python
function over an array of packed states: one numpy operation per term node, shared
subterms computed once, no Z3 call at run time. Terms use few operators (and, or, not,
if, comparisons, + - *); any other makes the model unsupported, and the interpreter runs
it instead.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import z3

from .layout import Layout, Unsupported

_CALL = {
    z3.Z3_OP_NOT: "np.logical_not", z3.Z3_OP_ITE: "np.where", z3.Z3_OP_UMINUS: "np.negative",
    z3.Z3_OP_XOR: "np.logical_xor", z3.Z3_OP_EQ: "np.equal", z3.Z3_OP_IFF: "np.equal",
    z3.Z3_OP_LE: "np.less_equal", z3.Z3_OP_LT: "np.less", z3.Z3_OP_GE: "np.greater_equal",
    z3.Z3_OP_GT: "np.greater",
    z3.Z3_OP_IDIV: "np.floor_divide",     # Z3's div and mod agree with these for the
    z3.Z3_OP_MOD: "np.mod",               # positive divisors the specs use
}
_FOLD = {z3.Z3_OP_AND: ("np.logical_and", "True"), z3.Z3_OP_OR: ("np.logical_or", "False"),
         z3.Z3_OP_ADD: ("np.add", "0"), z3.Z3_OP_SUB: ("np.subtract", None),
         z3.Z3_OP_MUL: ("np.multiply", "1")}


class _Writer:
    """Emits one assignment per distinct term node; returns the name holding each term."""

    def __init__(self, leaves: dict[int, int]):
        self.leaves, self.lines, self.names = leaves, [], {}

    def name(self, term: z3.ExprRef) -> str:
        stack = [term]
        while stack:
            t = stack[-1]
            if t.get_id() in self.names:
                stack.pop()
                continue
            kids = t.children()
            pending = [k for k in kids if k.get_id() not in self.names]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            self.names[t.get_id()] = self._emit(t, [self.names[k.get_id()] for k in kids])
        return self.names[term.get_id()]

    def _emit(self, t: z3.ExprRef, args: list[str]) -> str:
        kind = t.decl().kind()
        if kind == z3.Z3_OP_TRUE:
            return "True"
        if kind == z3.Z3_OP_FALSE:
            return "False"
        if kind == z3.Z3_OP_ANUM:
            return str(t.as_long())
        if kind == z3.Z3_OP_UNINTERPRETED and not args:
            leaf = self.leaves.get(t.get_id())
            if leaf is None:
                raise Unsupported(f"a term reads {t}, which is not a state variable")
            return self._assign(f"column(keys, {leaf})")
        if kind in _FOLD:
            fn, empty = _FOLD[kind]
            if not args:
                return empty
            expr = args[0]
            for a in args[1:]:
                expr = self._assign(f"{fn}({expr}, {a})")
            return expr
        if kind == z3.Z3_OP_IMPLIES:
            return self._assign(f"np.logical_or(np.logical_not({args[0]}), {args[1]})")
        if kind == z3.Z3_OP_DISTINCT:
            pairs = [f"np.not_equal({a}, {b})" for i, a in enumerate(args) for b in args[i + 1:]]
            return self._assign(" & ".join(f"np.asarray({p})" for p in pairs))
        if kind in _CALL:
            return self._assign(f"{_CALL[kind]}({', '.join(args)})")
        raise Unsupported(f"no array form for the operator {t.decl().name()}")

    def _assign(self, expr: str) -> str:
        name = f"v{len(self.lines)}"
        self.lines.append(f"    {name} = {expr}")
        return name


def compile_terms(terms: list[z3.ExprRef], layout: Layout,
                  leaves: dict[int, int]) -> Callable[[np.ndarray], list]:
    """A function of an array of packed states giving the value of each term: an array,
    or a scalar where the term reads no leaf."""
    writer = _Writer(leaves)
    results = [writer.name(t) for t in terms]
    # np.where computes both sides: a side it does not select may divide by zero
    source = "\n".join(["def evaluate(keys):", "  with np.errstate(all='ignore'):",
                        *writer.lines, f"    return [{', '.join(results)}]"])
    namespace = {"np": np, "column": layout.column}
    exec(compile(source, "<bulk terms>", "exec"), namespace)
    return namespace["evaluate"]


def truth(value, n: int) -> np.ndarray:
    """A bool term's value as one bool for each of `n` states."""
    return np.full(n, bool(value)) if np.ndim(value) == 0 else value


def leaf_index(flat: list[z3.ExprRef]) -> dict[int, int]:
    """Z3 id of each leaf -> its index in the layout."""
    return {leaf.get_id(): i for i, leaf in enumerate(flat)}
