"""Which state variables a property reads, found once from its source.

A pending invariant held in the state a step left (else it would not be pending), and a
pending `@reachable` was false there; a successor that agrees with that state on every
variable the property reads gives the same answer. So the interpreter evaluates a
property only after steps that changed one of its variables.

The reads are the attributes `s.x` of the property and, transitively, of the spec
methods it calls as `s.helper(...)`; `getattr(s, name)`, `hasattr` and `setattr` count
where every value `name` can take is known from the source: a string, an item of a
module-level tuple, list, set or dict of strings, or a variable bound only by `for` loops
and comprehensions over those (`for t in TIMERS: getattr(s, t)`). Static and class
methods read nothing (they have no `s`). `super().m(...)` reads what the `m` next in
the spec's MRO reads (a spec built on a library overrides its actions so). Anything else
done with `s` (passed to a function, returned, an attribute name computed otherwise, a
property's code, `super()` used otherwise, which passes it unseen) means "reads
everything": the analysis may over-approximate, never miss a read.

The explicit engine relies on it twice: a property is evaluated only after steps that
changed what it reads (and its value is remembered per codes of those variables), and
an action's encoder and undo are generated for the variables it names (`Machine.codecs`).
"""
from __future__ import annotations

import ast
import types
from typing import Any, Callable

from .recompile import source_def


def state_reads(fn: Callable, methods: dict[str, Any], names: set[str],
                mro: tuple[type, ...] = (), known: dict | None = None) -> frozenset[str] | None:
    """The state variables (among `names`) that `fn(s)` may read; None where that is not
    known from its source (then it may read any). `methods`: the spec's members; `mro`:
    its classes, for `super()`. `known`: what each function read itself, kept by a caller
    that asks about many functions of one spec, so that the helpers they share are read
    once."""
    known = {} if known is None else known
    reads: set[str] = set()
    todo, done = [fn], set()
    while todo:
        f = todo.pop()
        if f in done:
            continue                                  # recursion, or a helper met twice
        done.add(f)
        if f not in known:
            known[f] = _own_reads(f, methods, mro, names)
        if known[f] is None:
            return None
        own, calls = known[f]
        reads |= own
        todo += calls
    return frozenset(reads)


def _own_reads(fn, methods: dict, mro: tuple, names) -> tuple[set[str], list] | None:
    """The variables `fn` reads itself, and the spec functions it calls on `s` (whose
    reads are its too); None where they cannot be told."""
    found = source_def(fn)
    if found is None or not found[0].args.args:
        return None
    fdef = found[0]
    state = fdef.args.args[0].arg
    reads, calls = set(), []
    for node, parent in _with_parents(fdef):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
            inherited = _inherited(fn, node, parent, mro)
            if not isinstance(inherited, types.FunctionType):
                return None                           # `super()` passes `s` unseen
            calls.append(inherited)
            continue
        if not (isinstance(node, ast.Name) and node.id == state) or node is fdef:
            continue
        if isinstance(parent, ast.Attribute) and isinstance(node.ctx, ast.Load):
            attrs = {parent.attr}
        else:                                         # `s` itself used: getattr(s, ...)?
            attrs = _dynamic_attrs(node, parent, fdef, fn.__globals__)
            if attrs is None:
                return None
        for attr in attrs:
            if attr in names:
                reads.add(attr)
                continue
            member = methods.get(attr, _MISSING)
            if isinstance(member, types.FunctionType):
                calls.append(member)
            elif isinstance(member, (staticmethod, classmethod)):
                continue                              # no `s`: reads no state
            elif member is _MISSING or hasattr(type(member), "__get__"):
                return None                           # unknown, or a property's code
    return reads, calls


def _inherited(fn, call: ast.Call, parent, mro: tuple[type, ...]):
    """What `super().m` names in `fn`, `call` being `super()`; None for another use of
    `super` or one not found."""
    if call.args or not isinstance(parent, ast.Attribute):
        return None
    return inherited(fn, parent.attr, mro)


def inherited(fn, name: str, mro: tuple[type, ...]):
    """What `super().<name>` means in method `fn` of a class whose MRO is `mro`: the
    member of the first class after `fn`'s own that has one; None if none has, or `fn`
    uses no `super()`."""
    if "__class__" not in fn.__code__.co_freevars:
        return None
    owner = fn.__closure__[fn.__code__.co_freevars.index("__class__")].cell_contents
    after = mro[mro.index(owner) + 1:] if owner in mro else ()
    return next((vars(k)[name] for k in after if name in vars(k)), None)


def _dynamic_attrs(node, parent, fdef, globals_) -> set[str] | None:
    """The attribute names `getattr(s, e)`, `hasattr(s, e)` or `setattr(s, e, v)` may
    reach, `node` being that `s`; None for any other use of `s`, or an `e` not known."""
    if not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
            and parent.func.id in ("getattr", "hasattr", "setattr")
            and len(parent.args) >= 2 and parent.args[0] is node):
        return None
    return _Strings(fdef, globals_).of(parent.args[1])


class _Strings:
    """The strings an expression of one function may evaluate to, where the source
    says: literals, module-level containers of strings, names bound from them."""

    def __init__(self, fdef: ast.FunctionDef, globals_: dict):
        self.fdef, self.globals, self.visiting = fdef, globals_, set()

    def of(self, e) -> set[str] | None:
        """The values of `e`, each a string; None if not known."""
        if isinstance(e, ast.Constant):
            return {e.value} if isinstance(e.value, str) else None
        if isinstance(e, ast.IfExp):
            return _union(self.of(e.body), self.of(e.orelse))
        if isinstance(e, ast.Subscript):             # TABLE[key]: any of its values
            table = self._global(e.value)
            values = table.values() if isinstance(table, dict) else table
            return _all_strings(values) if isinstance(table, (dict, tuple, list)) else None
        if isinstance(e, ast.Name):
            sites = self._sites(e.id)
            if not sites:                             # a module-level string
                value = self.globals.get(e.id)
                return {value} if isinstance(value, str) else None
            if e.id in self.visiting:
                return set()                          # its other sites say the rest
            self.visiting.add(e.id)
            try:
                return _union(*(self.items(it) if kind == "for" else self.of(it)
                                for kind, it in sites))
            finally:
                self.visiting.discard(e.id)
        return None

    def items(self, e) -> set[str] | None:
        """What iterating over `e` gives, each a string; None if not known."""
        if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
            return _union(*(self.of(x) for x in e.elts))
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.of(e.elt)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and len(e.args) == 1 \
                and e.func.id in ("sorted", "list", "tuple", "reversed", "set", "frozenset"):
            return self.items(e.args[0])
        if isinstance(e, ast.Name) and self._sites(e.id):
            return _union(*(self.items(it) if kind == "is" else None
                            for kind, it in self._sites(e.id)))
        container = self._global(e)
        if isinstance(container, (dict, tuple, list, set, frozenset)):
            return _all_strings(container)            # a dict iterates over its keys
        return None

    def _global(self, e):
        """The module-level value `e` names, if it is a Name not bound in the function."""
        if isinstance(e, ast.Name) and not self._sites(e.id):
            return self.globals.get(e.id)
        return None

    def _sites(self, name: str) -> list[tuple[str, ast.AST]]:
        """Where the function binds `name`: ("for", iterable) for a loop or comprehension
        target, ("is", value) for a plain assignment; ("?", node) for anything else."""
        sites = []
        for n in ast.walk(self.fdef):
            if isinstance(n, (ast.For, ast.comprehension)) and _binds(n.target, name):
                sites.append(("for", n.iter) if isinstance(n.target, ast.Name) else ("?", n))
            elif isinstance(n, ast.Assign) and any(_binds(t, name) for t in n.targets):
                plain = len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                sites.append(("is", n.value) if plain else ("?", n))
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and \
                    _binds(n.target, name):
                sites.append(("?", n))
            elif isinstance(n, ast.arg) and n.arg == name:
                sites.append(("?", n))
            elif isinstance(n, (ast.With, ast.ExceptHandler, ast.Import, ast.ImportFrom,
                                ast.Global, ast.Nonlocal, ast.FunctionDef, ast.Lambda)) \
                    and name in _bound_names(n):
                sites.append(("?", n))
        return sites


def _binds(target, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _bound_names(n) -> set[str]:
    """Names a with, except, import, global or def statement binds."""
    if isinstance(n, ast.With):
        return {x.id for item in n.items if item.optional_vars is not None
                for x in ast.walk(item.optional_vars) if isinstance(x, ast.Name)}
    if isinstance(n, ast.ExceptHandler):
        return {n.name} if n.name else set()
    if isinstance(n, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in n.names}
    if isinstance(n, (ast.Global, ast.Nonlocal)):
        return set(n.names)
    if isinstance(n, ast.FunctionDef):
        return {n.name}
    return set()


def _all_strings(values) -> set[str] | None:
    values = set(values)
    return values if all(isinstance(v, str) for v in values) else None


def _union(*parts) -> set[str] | None:
    """Every part's strings; None if one is not known."""
    if any(p is None for p in parts):
        return None
    return set().union(*parts)


_MISSING = object()


def _with_parents(tree: ast.AST):
    """Every node below `tree` with its parent."""
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            yield child, parent
