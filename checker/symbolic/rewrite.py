"""Recompile a spec's functions so that `is` and `match` cannot silently mislead, and
so that boolean expressions build one formula instead of forking paths.

Python evaluates `x is None` and `x is Color.RED` by identity, which a symbolic value
never has: the answer would be a silent, wrong False. Every function the symbolic
engine runs (actions, properties, the spec's helpers and the plain functions of the
spec's modules they call) is recompiled from its source with `a is b` turned into
`_sym_is(a, b)`: identity where nothing is symbolic, value equality against the
singletons None, True, False and enum members (which is what identity means there),
and an error naming the line otherwise. A `match` on a symbolic subject is an error too
(class patterns test the wrapper's type, `case None` tests identity).

Every other call goes through `_sym_call`, which follows the callee at run time: a spec
function reached by its class's name (`Base.step(s)`), through a module (`helpers.f(x)`),
a bound method of a record, or a function handed to another as an argument
(`sorted(q, key=rank)`) runs recompiled as well, never as the original, whose `is` would
silently read False. A spec function whose source cannot be recompiled (a lambda, code
made by `exec`) and that compares by identity is refused where it is called, and so is
a property or an operator method of a record class that does.

`a and b`, `a or b`, `not a`, `all(...)`, `any(...)`, `min(...)` and `max(...)` on
symbolic values become one term, `And(a, b)` and so on, rather than one path per
operand: the right operand is evaluated only for the states where Python would
evaluate it (`Explorer.guarded`). Without this, `all(x is None or ... for x in q)` over a
few fields multiplies paths into the tens of thousands. `all(P for x in S)` over a
symbolic set or sequence is one conjunct per element S may hold, rather than a path per
member or per length.
"""
from __future__ import annotations

import ast
import dis
import enum
import functools
import types
from pathlib import Path

import z3

from ..errors import spec_file, where_defined
from ..lang.recompile import recompile, source_def
from .containers import SSet
from .paths import DEAD, SymbolicError, explorer
from .sequences import SSeq
from .terms import (SBool, SEnum, SInt, SOption, Sym, Unmergeable, bool_term, eq, first_of,
                    int_term, is_symbolic)

def _singleton_valued(x) -> bool:
    """Is every value `x` may take a singleton (None, a bool, an enum member)? Then
    identity is equality."""
    if isinstance(x, SOption):
        return _singleton_valued(x.inner)
    return isinstance(x, (SBool, SEnum)) or x is None or type(x) is bool or \
        (isinstance(x, enum.Enum) and not is_symbolic(x))


def _sym_is(a, b, where):
    if not (is_symbolic(a) or is_symbolic(b)):
        return a is b
    if _singleton_valued(a) or _singleton_valued(b):
        return SBool(eq(a, b))
    raise SymbolicError("`is` between values that are symbolic here compares identity, "
                        "which a symbolic value has none of; use ==", where)


def _sym_is_not(a, b, where):
    result = _sym_is(a, b, where)
    return SBool(z3.Not(result.term)) if isinstance(result, SBool) else not result


def _sym_match(subject, where):
    if is_symbolic(subject):
        raise SymbolicError("`match` on a value that is symbolic here: class and None patterns "
                            "test identity and type, not value; use if/elif with ==", where)
    return subject


def _sym_in(x, container):
    """`x in container` as one term: a symbolic set's membership, or x equal to some item."""
    if hasattr(container, "_member"):
        return SBool(container._member(x))
    if isinstance(container, (tuple, list, set, frozenset)) and \
            (is_symbolic(x) or any(map(is_symbolic, container))):
        return SBool(z3.Or([eq(x, item) for item in _in_order(container)]))
    return x in container


def _in_order(items):
    """A set's items in an order that does not hang on PYTHONHASHSEED (an enum's hash is
    its name's), so that one spec reads to one relation, and a proof takes one time."""
    return sorted(items, key=lambda v: (type(v).__name__, repr(v))) \
        if isinstance(items, (set, frozenset)) else items


def _sym_not_in(x, container):
    return _sym_not(_sym_in(x, container))


def _sym_getitem(container, key):
    """`table[key]` of a constant dict of scalars by a symbolic key, where it is surely
    one of the keys: one if-then-else term over the items, not a path per value of the
    key (hashing it forks). Elsewhere Python's own lookup (a KeyError stays a failure)."""
    if type(container) is not dict or not isinstance(key, Sym) or not container or \
            not all(isinstance(v, _SCALARS) for v in container.values()):
        return container[key]
    options = [(eq(key, k), v) for k, v in container.items()]
    if explorer().feasible(z3.Not(z3.Or([match for match, _ in options]))):
        return container[key]
    try:
        return first_of(options)
    except Unmergeable:                 # values of kinds no term holds together
        return container[key]


_SCALARS = (type(None), bool, int, enum.Enum)     # strings: no term (a method's name)


def _sym_len(x):
    """`len` of a symbolic set is a term (its number of members), not a fork per size."""
    return x.size() if hasattr(x, "size") else len(x)


def _sym_type(*args):
    """`type(x)` of a symbolic value is the type it stands for (bool, int, its enum, or
    None's and the value's for an Option: the path forks), as `isinstance` sees through
    its `__class__`; Python's own would answer the wrapper's class."""
    if len(args) == 1 and isinstance(args[0], SOption):
        return _sym_type(args[0].unwrap())
    return args[0].__class__ if len(args) == 1 and isinstance(args[0], Sym) else type(*args)


def _sym_count(sequence, x):
    """`q.count(x)` of a tuple or list as one term."""
    if isinstance(sequence, (tuple, list)) and (is_symbolic(x) or any(map(is_symbolic, sequence))):
        return SInt(z3.Sum(z3.IntVal(0), *(z3.If(eq(item, x), 1, 0) for item in sequence)))
    return sequence.count(x)


def _sym_and(*thunks):
    return _merge(thunks, z3.And, lambda g: g)


def _sym_or(*thunks):
    return _merge(thunks, z3.Or, z3.Not)


def _merge(thunks, combine, guard_of):
    """Python's `and` / `or` over thunks; boolean symbolic operands merge into one term."""
    value = thunks[0]()
    for thunk in thunks[1:]:
        if not isinstance(value, SBool):
            if bool(value) is (combine is z3.Or):
                return value
            value = thunk()
            continue
        rest = explorer().guarded(guard_of(value.term), thunk)
        if rest is DEAD:
            return value                # only the states where `value` decides are left
        term = bool_term(rest)
        if term is None:                # not a boolean: Python picks one operand, so do we
            return value if bool(value) is (combine is z3.Or) else rest
        value = SBool(combine(value.term, term))
    return value


def _sym_not(value):
    return SBool(z3.Not(value.term)) if isinstance(value, SBool) else not value


def _sym_all(iterable):
    return _fold(iterable, z3.And, lambda terms: z3.And(terms))


def _sym_any(iterable):
    return _fold(iterable, z3.Or, lambda terms: z3.Not(z3.Or(terms)))


def _fold(iterable, combine, guard_of):
    """all / any: later items are evaluated only where the earlier ones did not decide."""
    it, terms, stop = iter(iterable), [], object()

    def truth():
        item = next(it, stop)
        if item is stop:
            return stop
        term = bool_term(item)
        return z3.BoolVal(bool(item)) if term is None else term
    while True:
        term = explorer().guarded(guard_of(terms), truth) if terms else truth()
        if term is stop or term is DEAD:
            return SBool(combine(terms)) if terms else combine is z3.And
        terms.append(term)


def _sym_all_in(collection, body):
    """`all(body(x) for x in collection)`: over a symbolic set or sequence, one term with
    a conjunct per element it may hold, not a fork per member or per length."""
    if not isinstance(collection, (SSet, SSeq)):
        return _sym_all(body(x) for x in collection)
    return _quantified(collection, body, z3.And, lambda terms: z3.And(terms))


def _sym_any_in(collection, body):
    """`any(body(x) for x in collection)`, as `_sym_all_in`."""
    if not isinstance(collection, (SSet, SSeq)):
        return _sym_any(body(x) for x in collection)
    return _quantified(collection, body, z3.Or, lambda terms: z3.Not(z3.Or(terms)))


def _quantified(collection, body, combine, undecided_by):
    """Each element's term, evaluated only where it is a member and the elements before
    it did not decide (as Python's all / any stop), counting for members only."""
    terms = []
    for x, member in collection.members():
        if z3.is_false(z3.simplify(member)):
            continue
        value = explorer().guarded(z3.And(member, undecided_by(terms)), lambda: body(x))
        if value is DEAD:
            continue                    # the path goes on where x is no member, or decided
        term = bool_term(value)
        term = z3.BoolVal(bool(value)) if term is None else term
        terms.append(z3.And(member, term) if combine is z3.Or else z3.Implies(member, term))
    return SBool(combine(terms)) if terms else combine is z3.And


def _sym_extreme(pick, builtin):
    def extreme(*args, **kw):
        values = list(args[0]) if len(args) == 1 else list(args)
        terms = [int_term(v) for v in values]
        if kw or not values or None in terms or not any(isinstance(v, SInt) for v in values):
            return builtin(*args, **kw)
        best = terms[0]
        for t in terms[1:]:
            best = z3.If(pick(t, best), t, best)
        return SInt(best)
    return extreme


_sym_min = _sym_extreme(lambda a, b: a < b, min)
_sym_max = _sym_extreme(lambda a, b: a > b, max)
_HELPERS = dict(_sym_is=_sym_is, _sym_is_not=_sym_is_not, _sym_match=_sym_match,
                _sym_in=_sym_in, _sym_not_in=_sym_not_in, _sym_len=_sym_len,
                _sym_getitem=_sym_getitem, _sym_type=_sym_type, _sym_count=_sym_count,
                _sym_and=_sym_and, _sym_or=_sym_or, _sym_not=_sym_not, _sym_all=_sym_all,
                _sym_any=_sym_any, _sym_min=_sym_min, _sym_max=_sym_max,
                _sym_all_in=_sym_all_in, _sym_any_in=_sym_any_in)
_BUILTINS = {"all": "_sym_all", "any": "_sym_any", "min": "_sym_min", "max": "_sym_max",
             "len": "_sym_len", "type": "_sym_type"}


def _quantifier(node: ast.Call) -> ast.Call | None:
    """`all(P for x in S)` / `any(...)` whose `for`s are over names, with no `if`, as
    `_sym_all_in(S, lambda x: P)` (nested, one per `for`): TLA+'s `\\A x \\in S : P`."""
    if not (isinstance(node.func, ast.Name) and node.func.id in ("all", "any") and
            len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.GeneratorExp)):
        return None
    generator = node.args[0]
    if any(loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name)
           for loop in generator.generators):
        return None
    body = generator.elt
    for loop in reversed(generator.generators):
        body = ast.Call(ast.Name(f"_sym_{node.func.id}_in", ast.Load()), [loop.iter, ast.Lambda(
            ast.arguments([], [ast.arg(loop.target.id)], None, [], [], None, []), body)], [])
    return body


def _thunk(node):
    return ast.Lambda(ast.arguments([], [], None, [], [], None, []), node)


class _Rewrite(ast.NodeTransformer):
    def __init__(self, filename):
        self.filename = filename
        self.receiver = None                # the first parameter of the def rewritten

    def visit_FunctionDef(self, node):
        if self.receiver is None and node.args.args:
            self.receiver = node.args.args[0].arg
        self.generic_visit(node)
        return node

    def _where(self, node):
        return ast.Constant(f"{self.filename}:{node.lineno}")

    _HELPER = {ast.Is: "_sym_is", ast.IsNot: "_sym_is_not", ast.In: "_sym_in",
               ast.NotIn: "_sym_not_in"}

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) > 1 and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            raise SymbolicError("chained comparison with `is`: split it so the symbolic "
                                "engines can read it", f"{self.filename}:{node.lineno}")
        if len(node.ops) > 1 or type(node.ops[0]) not in self._HELPER:
            return node
        helper = self._HELPER[type(node.ops[0])]
        args = [node.left, node.comparators[0]]
        if isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            args.append(self._where(node))
        return ast.copy_location(ast.Call(ast.Name(helper, ast.Load()), args, []), node)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        helper = "_sym_and" if isinstance(node.op, ast.And) else "_sym_or"
        return ast.copy_location(ast.Call(ast.Name(helper, ast.Load()),
                                          [_thunk(v) for v in node.values], []), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return ast.copy_location(ast.Call(ast.Name("_sym_not", ast.Load()), [node.operand], []),
                                 node)

    def visit_Call(self, node):
        self.generic_visit(node)
        quantifier = _quantifier(node)
        if quantifier is not None:
            return ast.copy_location(quantifier, node)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args \
                and self.receiver is not None:      # the parent's methods, recompiled too
            node.func.id = "_sym_super"
            node.args = [ast.Name("__class__", ast.Load()), ast.Name(self.receiver, ast.Load())]
        elif isinstance(node.func, ast.Name) and node.func.id in _BUILTINS:
            node.func = ast.copy_location(ast.Name(_BUILTINS[node.func.id], ast.Load()), node.func)
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "count" and \
                len(node.args) == 1 and not node.keywords:
            node = ast.copy_location(ast.Call(ast.Name("_sym_count", ast.Load()),
                                              [node.func.value, node.args[0]], []), node)
        if not (isinstance(node.func, ast.Name) and node.func.id.startswith("_sym_")):
            node.args.insert(0, node.func)          # the callee, followed at run time
            node.func = ast.copy_location(ast.Name("_sym_call", ast.Load()), node.func)
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load) or isinstance(node.slice, ast.Slice):
            return node
        return ast.copy_location(ast.Call(ast.Name("_sym_getitem", ast.Load()),
                                          [node.value, node.slice], []), node)

    def visit_Match(self, node):
        self.generic_visit(node)
        node.subject = ast.copy_location(ast.Call(ast.Name("_sym_match", ast.Load()),
                                                  [node.subject, self._where(node)], []), node)
        return node


class Compiler:
    """Recompiled functions, memoised; each user module gets one shadow namespace."""

    def __init__(self):
        self.done: dict[object, object] = {}
        self.shadows: dict[int, dict] = {}
        self.made: set[types.CodeType] = set()     # the code of every function recompiled

    def function(self, fn):
        """`fn` recompiled (or `fn` itself if it is not the spec's own code; a stand-in
        that refuses to run if it is, compares by identity and cannot be recompiled)."""
        if fn in self.done:
            return self.done[fn]
        self.done[fn] = fn
        if not _user_function(fn) or fn.__code__ in self.made:
            return fn
        found = source_def(fn)
        if found is None:
            made = _refused(fn) if _compares_identity(fn.__code__) else fn
        else:
            fdef, filename = found
            made = recompile(_Rewrite(filename).visit(fdef), filename,
                             self._shadow(fn.__globals__), fn)
            self.made.update(_codes(made.__code__))
        self.done[fn] = made
        for shadow in self.shadows.values():    # one built while `fn` was being read holds
            for name, value in shadow.items():  # `fn` itself (the placeholder above)
                if value is fn:
                    shadow[name] = made
        return made

    def follow(self, value):
        """A function or bound method as recompiled code calls it: recompiled too."""
        kind = type(value)
        if kind is types.FunctionType:
            return value if value.__code__ in self.made else self.function(value)
        if kind is types.MethodType and type(value.__func__) is types.FunctionType:
            made = self.follow(value.__func__)
            return value if made is value.__func__ else types.MethodType(made, value.__self__)
        return value

    def call(self, fn, /, *args, **kwargs):
        """`fn(*args, **kwargs)` in recompiled code: the callee and any function passed
        to it followed, so that no original of the spec's code runs on symbolic values."""
        follow = self.follow
        if kwargs:
            kwargs = {k: follow(v) for k, v in kwargs.items()}
        return follow(fn)(*map(follow, args), **kwargs)

    def _shadow(self, module_globals: dict) -> dict:
        """A copy of a module's namespace whose user functions are recompiled too."""
        key = id(module_globals)
        if key not in self.shadows:
            shadow = self.shadows[key] = dict(module_globals)
            shadow.update(_HELPERS, _sym_super=functools.partial(_Super, self), _sym_call=self.call)
            for name, value in module_globals.items():
                if isinstance(value, types.FunctionType):
                    shadow[name] = self.function(value)
        return self.shadows[key]

    def member(self, value):
        """A spec class attribute, with functions recompiled."""
        if isinstance(value, types.FunctionType):
            return self.function(value)
        if isinstance(value, (staticmethod, classmethod)):
            return type(value)(self.member(value.__func__))
        if isinstance(value, property):
            return property(*(f and self.member(f) for f in (value.fget, value.fset, value.fdel)))
        return value


class _Super:
    """`super()` in a recompiled method: what the class after `cls` in the receiver's
    method order defines, recompiled as well (the original would read symbolic values
    with Python's own `is` and `and`)."""

    def __init__(self, compiler: Compiler, cls: type, receiver):
        self.compiler, self.cls, self.receiver = compiler, cls, receiver

    def __getattr__(self, name):
        order = type(self.receiver).__mro__
        for klass in order[order.index(self.cls) + 1:]:
            if name in vars(klass):
                value = self.compiler.member(vars(klass)[name])
                bind = getattr(type(value), "__get__", None)
                return bind(value, self.receiver, type(self.receiver)) if bind else value
        raise AttributeError(f"'super' object has no attribute {name!r}")


def _user_function(fn) -> bool:
    return isinstance(fn, types.FunctionType) and _user_file(fn.__code__.co_filename)


@functools.lru_cache(maxsize=None)
def _user_file(filename: str) -> bool:
    path = Path(filename).resolve()
    return path.is_file() and spec_file(filename)


def _codes(code: types.CodeType):
    """`code` and the code of every def, lambda and comprehension within it."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


_IDENTITY_OPS = {dis.opmap[name] for name in ("IS_OP", "MATCH_CLASS", "MATCH_MAPPING",
                                              "MATCH_SEQUENCE", "MATCH_KEYS")}


def _compares_identity(code: types.CodeType) -> bool:
    """Does `code` (or code within it) use `is` or `match`, which read a symbolic value
    wrongly when run as Python's own?"""
    return any(i.opcode in _IDENTITY_OPS for c in _codes(code) for i in dis.get_instructions(c))


def _refused(fn):
    """A stand-in for `fn` that fails where it is called, naming `fn`'s line."""
    where = where_defined(fn)

    def refused(*args, **kwargs):
        raise SymbolicError(f"{fn.__qualname__} uses `is` or `match` and its source cannot be "
                            "recompiled (a lambda, or code made at run time), so the symbolic "
                            "engines cannot read it: make it a def", where)
    return refused


def check_record(cls: type):
    """Refuse a record class (a state's values) whose properties or operator methods use
    `is` or `match`: Python calls them on symbolic fields behind the reader's back, where
    no call of the spec's could be followed."""
    for klass in cls.__mro__:
        for name, value in vars(klass).items():
            fn = value.fget if isinstance(value, property) else value
            dunder = name.startswith("__") and name.endswith("__")
            if (isinstance(value, property) or dunder) and _user_function(fn) and \
                    _compares_identity(fn.__code__):
                raise SymbolicError(f"{cls.__name__}.{name} uses `is` or `match` on a record the "
                                    "symbolic engines read: make it a plain method or a function "
                                    "and call it", where_defined(fn))
