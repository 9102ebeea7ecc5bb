"""A spec function recompiled from its source: what the guard splitter (`fastpath`) and
the symbolic rewriter (`symbolic/rewrite`) share. Each reads the def once as an AST,
transforms it, and compiles it back to run in a namespace of its choice.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import types


def source_def(fn) -> tuple[ast.FunctionDef, str] | None:
    """`fn`'s def as an AST, at its file's line numbers, without decorators; None where
    its source cannot be read or it closes over variables (a recompiled copy could not)."""
    if not isinstance(fn, types.FunctionType) or fn.__code__.co_freevars:
        return None
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn)
    except (OSError, TypeError):
        return None
    tree = ast.parse(textwrap.dedent("".join(lines)))
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        return None
    ast.increment_lineno(tree, first - 1)
    fdef.decorator_list = []
    return fdef, filename


def recompile(fdef: ast.FunctionDef, filename: str, namespace: dict, original) -> types.FunctionType:
    """Compile `fdef` as a function whose globals are `namespace`, with `original`'s
    defaults (annotations and defaults were evaluated with the original: copied, not redone)."""
    args = fdef.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        a.annotation = None
    args.defaults, args.kw_defaults = [], [None] * len(args.kwonlyargs)
    module = ast.fix_missing_locations(ast.Module(body=[fdef], type_ignores=[]))
    made: dict = {}
    exec(compile(module, filename, "exec"), namespace, made)
    fn = made[fdef.name]
    fn.__defaults__, fn.__kwdefaults__ = original.__defaults__, original.__kwdefaults__
    return fn
