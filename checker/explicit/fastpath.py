"""Compile an action into a cheap guard and a body, without changing its meaning.

Most actions are disabled in most states, and a raised exception costs several times a
function call. So the explicit engine rewrites, once per action:

* the leading `require(c)` statements, with the plain local assignments among them
  (`pod = s.pods[p]`: no call, so no effect), into `guard(s, *params) -> bool`; the
  body redoes those assignments, so no require after one may call anything,
* every other statement-level `require(c)` of the function into
  `if not (c): return DISABLED`; the body keeps the leading assignments.

`require` inside nested helpers still raises `Disabled`, which the engine also catches.
The symbolic engine runs the original function; both readings are the same relation.
Functions whose source is unavailable or that close over variables are left as they are.
"""
from __future__ import annotations

import ast
import copy
from typing import Any

from ..errors import SpecError
from ..lang.dsl import choose, either, exists, require
from ..lang.reads import inherited
from ..lang.recompile import recompile, source_def

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
    """Each `require(cond)` statement as `if not cond: return DISABLED`; one inside a `try`
    that would catch the Disabled it raises is a spec error (as `swallowed` at run time)."""

    def __init__(self, fn_globals, filename: str):
        self.fn_globals, self.filename = fn_globals, filename
        self.catching = 0                   # enclosing try blocks that catch Disabled

    def visit_Try(self, node):
        catches = any(h.type is None or _names(h.type) & CATCH_DISABLED for h in node.handlers)
        self.catching += catches
        node.body = [self.visit(stmt) for stmt in node.body]
        self.catching -= catches
        for part in (node.handlers, node.orelse, node.finalbody):
            part[:] = [self.visit(stmt) for stmt in part]
        return node

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
        if self.catching:
            raise SpecError("this require() is inside a try that catches the Disabled exception "
                            "it raises (an except BaseException or a bare except), so a disabled "
                            "step would be taken: let it through", f"{self.filename}:{node.lineno}")
        test = ast.UnaryOp(op=ast.Not(), operand=cond)
        ret = ast.Return(value=ast.Name(id=_NAME, ctx=ast.Load()))
        return ast.copy_location(ast.If(test=test, body=[ast.copy_location(ret, node)], orelse=[]), node)


CATCH_DISABLED = {"BaseException", "Disabled"}


def _names(expr: ast.expr) -> set[str]:
    """The names an except clause's type mentions (`BaseException`, `checker.Disabled`)."""
    return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(expr)
            if isinstance(n, (ast.Name, ast.Attribute))}


def _is_plain_assignment(node, state: str) -> bool:
    """`name = expr` where evaluating `expr` can have no effect: no call of any kind."""
    return (isinstance(node, ast.Assign)
            and all(isinstance(t, ast.Name) and t.id != state for t in node.targets)
            and not has_effect(node.value))


def has_effect(expr: ast.expr) -> bool:
    """Whether evaluating `expr` may call something (and so change the state)."""
    return any(isinstance(n, EFFECTFUL) for n in ast.walk(expr))


def chooses(expr: ast.expr, fn_globals: dict) -> bool:
    """Whether `expr` calls `exists`, `either` or `choose`: the action runs once per
    outcome, as a body runs, never a guard (nor the dispatch reading it ahead)."""
    return any(isinstance(n, ast.Call) and (
        fn_globals.get(n.func.id) in CHOOSING if isinstance(n.func, ast.Name) else
        isinstance(n.func, ast.Attribute) and n.func.attr in ("exists", "either", "choose"))
        for n in ast.walk(expr))


CHOOSING = (choose, either, exists)
EFFECTFUL = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Lambda,
              ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _parse(fn) -> tuple[ast.FunctionDef, str, list[ast.stmt], list[ast.stmt]] | None:
    """(def, file, guard statements, the statements after them) of `fn`, or None where
    its source cannot be read (or it closes over variables). The guard statements are
    the leading requires with the plain assignments among them, up to the last require."""
    found = source_def(fn)
    if found is None:
        return None
    fdef, filename = found
    body = list(fdef.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]                                  # docstring
    state = fdef.args.args[0].arg if fdef.args.args else None
    end, assigned = 0, False
    for i, stmt in enumerate(body):
        cond = _is_require(stmt, fn.__globals__)
        if cond is not None:
            if assigned and has_effect(cond):    # the body would redo the assignments
                break                             # after its effect: keep it there
            if chooses(cond, fn.__globals__):    # one run per outcome: the body's runs
                break
            end = i + 1
        elif _is_plain_assignment(stmt, state):
            assigned = True
        else:
            break
    return fdef, filename, body[:end], body[end:]


class _Inline(ast.NodeTransformer):
    """Replaces, in a condition read ahead of the search, the locals a guard assigned by
    the expressions they were assigned, and a call `s.helper(args)` of a spec method
    whose body is plain assignments and one `return` by what it returns. The result is
    only ever evaluated to select bindings, never instead of the guard itself."""

    def __init__(self, assigned: dict[str, ast.expr], state: str, fn_globals: dict,
                 methods: dict[str, Any], depth: int = 0):
        self.assigned, self.state, self.fn_globals = assigned, state, fn_globals
        self.methods, self.depth = methods, depth

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.assigned:
            return copy.deepcopy(self.assigned[node.id])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == self.state and not node.keywords and self.depth < 4
                and not any(has_effect(a) for a in node.args)):
            return node
        helper = _returned_expression(self.methods.get(func.attr), self.fn_globals, self.methods,
                                      self.depth + 1)
        if helper is None or len(helper[0]) != len(node.args) + 1:
            return node
        params, expr = helper
        bound = dict(zip(params, [ast.Name(id=self.state, ctx=ast.Load()), *node.args]))
        return _Inline(bound, self.state, self.fn_globals, {}).visit(copy.deepcopy(expr))


def _returned_expression(method, fn_globals: dict, methods: dict, depth: int):
    """(parameter names, returned expression, its locals and helpers inlined) of a spec
    method made of plain assignments and one `return`; None for any other, and for one
    whose expression names a global other than the caller's (it is evaluated in the
    caller's module)."""
    parsed = _parse(method) if callable(method) else None
    if parsed is None or not parsed[0].args.args or parsed[0].args.vararg or parsed[0].args.kwonlyargs:
        return None
    fdef, _, prefix, rest = parsed
    statements = prefix + rest
    state = fdef.args.args[0].arg
    if not (statements and isinstance(statements[-1], ast.Return) and statements[-1].value
            and all(_is_plain_assignment(stmt, state) for stmt in statements[:-1])):
        return None
    assigned: dict[str, ast.expr] = {}
    for stmt in statements[:-1]:
        value = _Inline(assigned, state, fn_globals, methods, depth).visit(stmt.value)
        for target in stmt.targets:
            assigned[target.id] = value
    expr = _Inline(assigned, state, fn_globals, methods, depth).visit(statements[-1].value)
    params = [a.arg for a in fdef.args.args]
    if not _same_globals(expr, params, method.__globals__, fn_globals):
        return None
    return params, expr


_BUILTIN = object()


def leading_conditions(fn, methods: dict[str, Any], mro: tuple[type, ...] = ()
                       ) -> tuple[list[ast.expr], str | None]:
    """The conditions of `fn`'s leading requires, with the locals before each replaced by
    what they were assigned and calls of simple spec `methods` by what they return (see
    `_Inline`), and the name of its state parameter. Where the requires and plain
    assignments are followed by `super().m(args)` (an override that adds to the action it
    overrides; `mro`: the spec's classes), the leading conditions of that `m` follow, its
    arguments bound."""
    parsed = _parse(fn)
    if parsed is None or not parsed[0].args.args:
        return [], None
    fdef, _, prefix, rest = parsed
    state = fdef.args.args[0].arg
    assigned: dict[str, ast.expr] = {}
    conditions = []
    for i, stmt in enumerate(prefix + rest):
        inline = _Inline(assigned, state, fn.__globals__, methods)
        cond = _is_require(stmt, fn.__globals__) if i < len(prefix) else None
        if cond is not None:
            conditions.append(inline.visit(copy.deepcopy(cond)))
        elif _is_plain_assignment(stmt, state):
            value = inline.visit(copy.deepcopy(stmt.value))
            for target in stmt.targets:
                assigned[target.id] = value
        else:
            conditions += _inherited_conditions(fn, _super_call(stmt), assigned, state, methods, mro)
            break
    return conditions, state


def _inherited_conditions(fn, call: ast.Call | None, assigned: dict, state: str,
                          methods: dict, mro: tuple[type, ...]) -> list[ast.expr]:
    """The leading conditions of the method `call` (`super().m(args)`, or None) runs."""
    if call is None or any(has_effect(a) for a in call.args):
        return []
    method = inherited(fn, call.func.attr, mro)
    found = source_def(method)
    if found is None or len(found[0].args.args) != len(call.args) + 1 or found[0].args.vararg:
        return []
    params = [a.arg for a in found[0].args.args]
    args = [ast.Name(id=state, ctx=ast.Load()),
            *(_Inline(assigned, state, fn.__globals__, {}).visit(copy.deepcopy(a)) for a in call.args)]
    inline = _Inline(dict(zip(params, args)), state, fn.__globals__, {})
    return [inline.visit(c) for c in leading_conditions(method, methods, mro)[0]
            if _same_globals(c, params, method.__globals__, fn.__globals__)]


def _same_globals(expr: ast.expr, params: list[str], theirs: dict, ours: dict) -> bool:
    """Whether every name `expr` reads other than `params` means the same in both modules
    (a condition read from another module is evaluated in ours)."""
    names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)} - set(params)
    return all(theirs.get(n, _BUILTIN) is ours.get(n, _BUILTIN) for n in names)


def _super_call(stmt: ast.stmt) -> ast.Call | None:
    """The call of `super().m(args)` (positional arguments only) as a statement."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
            isinstance(stmt.value.func, ast.Attribute) and not stmt.value.keywords:
        inner = stmt.value.func.value
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and \
                inner.func.id == "super" and not inner.args:
            return stmt.value
    return None


def split_guard(fn):
    """(guard or None, body, calls) for `fn`; body returns DISABLED where a require fails.
    `calls`: the guard calls something, so a spec helper may have written before the
    guard failed (a lost write's `require(s._call())`): the caller undoes it."""
    parsed = _parse(fn)
    if parsed is None:
        return None, fn, False
    fdef, filename, prefix, body = parsed
    fn.__globals__[_NAME] = DISABLED
    guard = None
    calls = any(has_effect(c) for stmt in prefix
                if (c := _is_require(stmt, fn.__globals__)) is not None)
    if prefix:
        gdef = ast.FunctionDef(name=fn.__name__ + "__guard", args=copy.deepcopy(fdef.args),
                               body=_guard_body(prefix, fn.__globals__), decorator_list=[],
                               returns=None, type_comment=None)
        ast.copy_location(gdef, fdef)
        guard = recompile(gdef, filename, fn.__globals__, fn)
    assignments = [stmt for stmt in prefix if _is_require(stmt, fn.__globals__) is None]
    fdef.body = assignments + [_RewriteRequires(fn.__globals__, filename).visit(stmt) for stmt in body] \
        or [ast.Pass()]
    ast.fix_missing_locations(fdef)
    return guard, recompile(fdef, filename, fn.__globals__, fn), calls


def _guard_body(prefix: list[ast.stmt], fn_globals) -> list[ast.stmt]:
    """`return c1 and c2 ...` for requires alone; with assignments among them, each
    require in turn becomes `if not (c): return False`, then `return True`."""
    conds = [c for stmt in prefix if (c := _is_require(stmt, fn_globals)) is not None]
    if len(conds) == len(prefix):
        test = conds[0] if len(conds) == 1 else ast.BoolOp(op=ast.And(), values=conds)
        return [ast.copy_location(ast.Return(value=test), prefix[0])]
    statements = []
    for stmt in prefix:
        cond = _is_require(stmt, fn_globals)
        if cond is None:
            statements.append(copy.deepcopy(stmt))
            continue
        fail = ast.Return(value=ast.Constant(value=False))
        statements.append(ast.copy_location(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=cond),
                                                   body=[ast.copy_location(fail, stmt)],
                                                   orelse=[]), stmt))
    statements.append(ast.copy_location(ast.Return(value=ast.Constant(value=True)), prefix[-1]))
    return statements
