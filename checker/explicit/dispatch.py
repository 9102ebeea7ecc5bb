"""Which bindings the interpreter tries in a state: most are ruled out by a few reads.

Most guards test state locations against constants: `s.pc is Pc.IDLE`, `s.kv[k] in
LIVE` (with `k` a parameter, fixed in each binding), `s.budget > 0`; a constant may be
read through the state too (`s.pc is not s.Pc.IDLE`, `s.pc in s.WRITES`: a library's
actions name their controller's constants so). Each such test of
one location, a whole leading `require` or one of its conjuncts, is a *selector*: its
location has a finite domain, so the values for which the test holds are known before
the search. The interpreter reads each selected location once per state and tries only
the bindings whose every selector accepts the value read, plus those without a
selector, in binding order. A binding left out would have failed its guard, so the
successors, their order and every count are the same; the guards of those tried still
run whole.
"""
from __future__ import annotations

import ast
import copy
import operator
from typing import Any

from ..lang.domains import Domain, MapDomain
from .fastpath import has_effect

NO_KEY = object()
_VALUE = "__checker_value__"
_STATIC = "__checker_static_"


def tests_of(conditions: list[ast.expr], state: str, variables: dict[str, Domain],
             statics: dict[str, Any]) -> list[tuple]:
    """The tests of one location among an action's leading requires (`conditions`, from
    `fastpath.leading_conditions`), whole or a conjunct, read once per action: each as
    (variable, its key expression compiled or None, the test compiled with the read as a
    free name). `statics`: the spec's members that are no variable, by name, with their
    values (its constants, bound, and class attributes)."""
    found = []
    for test in conditions:
        test = _Statics(state, statics).visit(copy.deepcopy(test))
        tests = [test]                        # whole, and (of `a and b`) each part
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            tests += test.values
        found += filter(None, (_one_location(one, state, variables) for one in tests))
    return found


def selectors(fn, tests: list[tuple], params: dict[str, Any], variables: dict[str, Domain],
              statics: dict[str, Any]) -> tuple[tuple, ...]:
    """(variable, key or NO_KEY, accepted values) of each location that `fn`'s `tests`
    (`tests_of`) test, `params` bound; the values accepted are those every such test
    accepts."""
    accepted: dict[tuple, frozenset] = {}
    params = {**_closed_over(fn), **params,       # a generated action's constants too
              **{_STATIC + name: value for name, value in statics.items()}}
    for name, key, check, memo in tests:
        found = _accepting(name, key, check, fn, params, variables, memo)
        if found is not None:
            place, values = found
            accepted[place] = accepted[place] & values if place in accepted else values
    return tuple((name, key, values) for (name, key), values in accepted.items())


def _one_location(test: ast.expr, state: str, variables: dict):
    """(variable, key expression compiled or None, the test compiled with the read as a
    free name) of a test that reads one location alone; else None."""
    reads = [n for n in ast.walk(test) if isinstance(n, ast.Name) and n.id == state]
    locations = _locations(test, state)
    if len({ast.dump(loc) for loc in locations}) != 1 or len(reads) != len(locations):
        return None                           # no read, several, or `s` used otherwise
    loc = locations[0]
    read, key = (loc.value, loc.slice) if isinstance(loc, ast.Subscript) else (loc, None)
    if read.attr not in variables or key is not None and has_effect(key):
        return None
    if key is not None:
        key = compile(ast.Expression(key), "<selector>", "eval")
    return read.attr, key, _replaced(test, loc), {}


def _accepting(name: str, key, check, fn, params: dict, variables: dict, memo: dict):
    """((variable, key), accepted values) of one test, `params` bound, or None. `memo`
    keeps the test's accepted values per domain and values of the names it reads: the
    bindings of an action mostly share them (a map's every key has the same domain)."""
    if key is None:
        key = NO_KEY
    else:
        try:
            key = eval(key, fn.__globals__, dict(params))
        except Exception:
            return None
    domain = variables[name]
    if key is not NO_KEY:                     # a key outside the map: the guard reports it
        domain = domain.value if isinstance(domain, MapDomain) and _has(domain.key, key) \
            else None
    if domain is None or not domain.scalar:
        return None
    try:
        at = (id(domain), id(fn.__globals__), *((n, params[n]) for n in check.co_names if n in params))
        if at in memo:
            return (name, key), memo[at]
    except TypeError:                         # a value read is unhashable: no memo
        at = None
    accepted, names = [], dict(params)
    for value in domain.values:
        names[_VALUE] = value
        try:
            verdict = bool(eval(check, fn.__globals__, names))
        except Exception:
            verdict = True                    # the guard itself will say what is wrong
        if verdict:
            accepted.append(value)
    try:
        accepted = frozenset(accepted)
    except TypeError:
        return None
    if at is not None:
        memo[at] = accepted
    return (name, key), accepted


def _closed_over(fn) -> dict[str, Any]:
    """The variables `fn` closes over, by name: a generated action's constants (the call
    of a library's `op_<call>`) are read there, not in its module."""
    cells = fn.__closure__ or ()
    return {name: cell.cell_contents for name, cell in zip(fn.__code__.co_freevars, cells)
            if name != "__class__"}


class _Statics(ast.NodeTransformer):
    """`s.X`, X a static member, as a name that `params` binds to its value."""

    def __init__(self, state: str, statics: dict[str, Any]):
        self.state, self.statics = state, statics

    def visit_Attribute(self, node):
        if _is_var(node, self.state) and node.attr in self.statics:
            return ast.copy_location(ast.Name(id=_STATIC + node.attr, ctx=ast.Load()), node)
        return self.generic_visit(node)


def _locations(test: ast.expr, state: str) -> list[ast.expr]:
    """The reads `s.var` and `s.var[...]` in `test` (outermost only)."""
    found = []

    def visit(node):
        if isinstance(node, ast.Subscript) and _is_var(node.value, state):
            found.append(node)
            return
        if _is_var(node, state):
            found.append(node)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)
    visit(test)
    return found


def _is_var(node, state) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
        node.value.id == state


def _replaced(test: ast.expr, loc: ast.expr):
    """`test` with its state read replaced by a free name, compiled."""
    target = ast.dump(loc)

    class Swap(ast.NodeTransformer):
        def visit(self, node):
            if ast.dump(node) == target:
                return ast.copy_location(ast.Name(id=_VALUE, ctx=ast.Load()), node)
            return super().visit(node)
    expr = Swap().visit(ast.parse(ast.unparse(test), mode="eval").body)
    return compile(ast.fix_missing_locations(ast.Expression(expr)), "<selector>", "eval")


def _has(domain: Domain, value) -> bool:
    try:
        return domain.scalar and value in domain.values
    except TypeError:
        return False


class Dispatch:
    """Per state, the positions (in binding order) of the bindings worth trying. Tables
    are keyed by the codes of the values (ints), read straight from the state's code:
    per location, the bindings that location does not rule out."""

    def __init__(self, selectors: list[tuple[tuple, ...]], variables: list, never: int = 0,
                 remember: bool = True):
        """`never`: a bit per binding position that no state enables (its guard is false
        under the model's constants alone): it is never tried. `remember`: keep each
        mask computed, per codes of the variables the tables read."""
        everyone = (1 << len(selectors)) - 1 & ~never
        index = {v.name: v for v in variables}
        tables: dict[tuple, tuple[int, dict[int, int]]] = {}   # place -> (selected, table)
        encoded: dict[tuple, list[int]] = {}      # accepted values' codes: bindings share them
        for i, chosen in enumerate(selectors):
            for name, key, accepted in chosen:
                var = index[name]
                if key is NO_KEY:
                    place, domain = (var.index, None), var.domain
                else:
                    place, domain = (var.index, var.domain.key.encode(key)), var.domain.value
                selected, table = tables.setdefault(place, (0, {}))
                at = (id(accepted), id(domain))
                if at not in encoded:
                    encoded[at] = [domain.encode(value) for value in accepted]
                for code in encoded[at]:
                    table[code] = table.get(code, 0) | 1 << i
                tables[place] = (selected | 1 << i, table)
        self.everyone = everyone
        self.scalars, self.entries = [], []
        for (i, j), (selected, table) in tables.items():
            others = everyone & ~selected          # bindings this location does not select
            table = {code: bits | others for code, bits in table.items()}
            if j is None:
                self.scalars.append((i, table, others))
            else:
                self.entries.append((i, j, table, others))
        read = sorted({i for i, _ in tables})
        self.read_at = [{index[name].index for name, _, _ in chosen} for chosen in selectors]
        self.project = operator.itemgetter(*read) if read else (lambda st: None)
        self.remembered: dict = {}
        self.limit = REMEMBERED if remember else 0

    def candidates(self, st: tuple) -> int:
        """A bit mask over binding positions: the bindings state `st` does not rule out.
        Remembered per codes of the variables the tables read (far fewer than states)."""
        key = self.project(st)
        mask = self.remembered.get(key)
        if mask is None:
            mask = self.everyone
            for i, table, others in self.scalars:
                mask &= table.get(st[i], others)
            for i, j, table, others in self.entries:
                mask &= table.get(st[i][j], others)
            if len(self.remembered) < self.limit:
                self.remembered[key] = mask
        return mask


    def reads(self, positions: int) -> list[int]:
        """The variables (by index, ascending) whose codes decide whether the bindings at
        `positions` (a bit each) are candidates."""
        return sorted(set().union(*(r for at, r in enumerate(self.read_at) if positions >> at & 1)))


REMEMBERED = 1 << 20        # candidate masks kept at most
