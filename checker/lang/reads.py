"""Which state variables a property reads, found once from its source.

A pending invariant held in the state a step left (else it would not be pending), and a
pending `@reachable` was false there; a successor that agrees with that state on every
variable the property reads gives the same answer. So the interpreter evaluates a
property only after steps that changed one of its variables.

The reads are the attributes `s.x` of the property and, transitively, of the spec
methods it calls as `s.helper(...)`. Anything else done with `s` (passed to a function,
`getattr(s, name)`, returned, a method that is not a plain function) means "reads
everything": the analysis may over-approximate, never miss a read.
"""
from __future__ import annotations

import ast
import types
from typing import Any, Callable

from .recompile import source_def


def state_reads(fn: Callable, methods: dict[str, Any], names: set[str]) -> frozenset[str] | None:
    """The state variables (among `names`) that `fn(s)` may read; None where that is not
    known from its source (then it may read any)."""
    reads: set[str] = set()
    return frozenset(reads) if _collect(fn, methods, names, reads, set()) else None


def _collect(fn, methods, names, reads: set[str], visiting: set) -> bool:
    """Add `fn`'s reads to `reads`; False where they cannot be told."""
    if fn in visiting:
        return True                                   # recursion: its reads are being added
    visiting.add(fn)
    found = source_def(fn)
    if found is None or not found[0].args.args:
        return False
    fdef = found[0]
    state = fdef.args.args[0].arg
    for node, parent in _with_parents(fdef):
        if not (isinstance(node, ast.Name) and node.id == state) or node is fdef:
            continue
        if not isinstance(parent, ast.Attribute) or not isinstance(node.ctx, ast.Load):
            return False                              # `s` itself used: any read possible
        attr = parent.attr
        if attr in names:
            reads.add(attr)
            continue
        member = methods.get(attr, _MISSING)
        if isinstance(member, types.FunctionType):
            if not _collect(member, methods, names, reads, visiting):
                return False
        elif member is _MISSING or hasattr(type(member), "__get__"):
            return False                              # unknown, or a property's code
    return True


_MISSING = object()


def _with_parents(tree: ast.AST):
    """Every node below `tree` with its parent."""
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            yield child, parent
