"""A spec function recompiled from its source: what the guard splitter (`fastpath`) and
the symbolic rewriter (`symbolic/rewrite`) share. Each reads the def once as an AST,
transforms it, and compiles it back to run in a namespace of its choice.
"""
from __future__ import annotations

import ast
import functools
import inspect
import textwrap
import types

from .source import function_lines


def source_def(fn) -> tuple[ast.FunctionDef, str] | None:
    """`fn`'s def as an AST, at its file's line numbers, without decorators; None where
    its source cannot be read. A fresh tree each call: the callers transform it."""
    if not isinstance(fn, types.FunctionType):
        return None
    found = _source(inspect.unwrap(fn).__code__)
    if found is None:
        return None
    text, filename = found
    fdef = ast.parse(text).body[0]
    if not isinstance(fdef, ast.FunctionDef):
        return None
    fdef.decorator_list = []
    return fdef, filename


@functools.lru_cache(maxsize=None)
def _source(code: types.CodeType) -> tuple[str, str] | None:
    """A def's dedented text, after as many empty lines as precede it in its file (so
    that its tree has the file's line numbers), and the file: read once per def, for
    binding a spec reads each of its functions for several analyses."""
    found = function_lines(code)
    if found is None:
        return None
    lines, first = found
    return "\n" * (first - 1) + textwrap.dedent("".join(lines)), inspect.getsourcefile(code)


def recompile(fdef: ast.FunctionDef, filename: str, namespace: dict, original) -> types.FunctionType:
    """Compile `fdef` as a function whose globals are `namespace`, with `original`'s
    defaults (annotations and defaults were evaluated with the original: copied, not redone)
    and its closure: a method calling `super()` closes over `__class__`, and a nested
    def over its enclosing locals; the copy reads the same cells."""
    args = fdef.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        a.annotation = None
    args.defaults, args.kw_defaults = [], [None] * len(args.kwonlyargs)
    free = original.__code__.co_freevars
    code = _compiled(fdef, filename, namespace, free)
    cells = dict(zip(free, original.__closure__ or ()))
    fn = types.FunctionType(code, namespace, code.co_name, original.__defaults__,
                            tuple(cells[name] for name in code.co_freevars))
    fn.__kwdefaults__ = original.__kwdefaults__
    return fn


def _compiled(fdef: ast.FunctionDef, filename: str, namespace: dict, free: tuple):
    """The code of `fdef`. One that closes over names is compiled inside a function that
    binds them, so that they stay free variables of the code (the caller supplies their
    cells); renamed meanwhile, so that a name in its body that happens to be its own
    (a method `sum` calling the builtin `sum`) does not become one more."""
    name = fdef.name
    if free:
        fdef.name = "__recompiled__"
        body = [ast.Assign([ast.Name(v, ast.Store())], ast.Constant(None)) for v in free]
        fdef = ast.FunctionDef("__enclosing__", ast.arguments([], [], None, [], [], None, []),
                               body + [fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], [])
    module = ast.fix_missing_locations(ast.Module(body=[fdef], type_ignores=[]))
    made: dict = {}
    exec(compile(module, filename, "exec"), namespace, made)
    if not free:
        return made[name].__code__
    return made["__enclosing__"]().__code__.replace(co_name=name, co_qualname=name)
