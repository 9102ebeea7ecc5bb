"""Compile an action into a cheap guard and a body, without changing its meaning.

Most actions are disabled in most states, and a raised exception costs several times a
function call. So the explicit engine rewrites, once per action:

* the leading `require(c)` statements into `guard(s, *params) -> bool` (`c1 and c2`),
* every other statement-level `require(c)` of the function into
  `if not (c): return DISABLED`.

`require` inside nested helpers still raises `Disabled`, which the engine also catches.
The symbolic engine runs the original function; both readings are the same relation.
Functions whose source is unavailable or that close over variables are left as they are.
"""
from __future__ import annotations

import ast

from .dsl import require
from .recompile import recompile, source_def

DISABLED = object()
_NAME = "__checker_disabled__"


def _is_require(node, fn_globals) -> ast.expr | None:
    """The condition of `require(cond)` as a statement, if `node` is one."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    func = call.func
    named = (isinstance(func, ast.Name) and fn_globals.get(func.id) is require) or \
            (isinstance(func, ast.Attribute) and func.attr == "require")
    if named and len(call.args) == 1 and not call.keywords:
        return call.args[0]
    return None


class _RewriteRequires(ast.NodeTransformer):
    def __init__(self, fn_globals):
        self.fn_globals = fn_globals

    def visit_FunctionDef(self, node):      # nested functions keep their require()
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def generic_visit(self, node):
        super().generic_visit(node)
        return node

    def visit_Expr(self, node):
        cond = _is_require(node, self.fn_globals)
        if cond is None:
            return node
        test = ast.UnaryOp(op=ast.Not(), operand=cond)
        ret = ast.Return(value=ast.Name(id=_NAME, ctx=ast.Load()))
        return ast.copy_location(ast.If(test=test, body=[ast.copy_location(ret, node)], orelse=[]), node)


def _parse(fn) -> tuple[ast.FunctionDef, str, list[ast.expr], list[ast.stmt]] | None:
    """(def, file, leading require conditions, the statements after them) of `fn`, or
    None where its source cannot be read (or it closes over variables)."""
    found = source_def(fn)
    if found is None:
        return None
    fdef, filename = found
    body = list(fdef.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]                                  # docstring
    conds = []
    while body and (cond := _is_require(body[0], fn.__globals__)) is not None:
        conds.append(cond)
        body = body[1:]
    return fdef, filename, conds, body


def leading_condition(fn) -> tuple[ast.expr, str] | None:
    """The first `require(...)` condition of `fn`, with the name of its state parameter."""
    parsed = _parse(fn)
    if parsed is None or not parsed[2] or not parsed[0].args.args:
        return None
    fdef, _, conds, _ = parsed
    return conds[0], fdef.args.args[0].arg


def split_guard(fn):
    """(guard or None, body) for `fn`; body returns DISABLED where a require fails."""
    parsed = _parse(fn)
    if parsed is None:
        return None, fn
    fdef, filename, conds, body = parsed
    fn.__globals__[_NAME] = DISABLED
    guard = None
    if conds:
        test = conds[0] if len(conds) == 1 else ast.BoolOp(op=ast.And(), values=conds)
        gdef = ast.FunctionDef(name=fn.__name__ + "__guard", args=fdef.args,
                               body=[ast.Return(value=test)], decorator_list=[],
                               returns=None, type_comment=None)
        ast.copy_location(gdef, fdef)
        guard = recompile(gdef, filename, fn.__globals__, fn)
    fdef.body = [_RewriteRequires(fn.__globals__).visit(stmt) for stmt in body] or [ast.Pass()]
    ast.fix_missing_locations(fdef)
    return guard, recompile(fdef, filename, fn.__globals__, fn)
