"""A spec as formulas: Init(x), Next(x, x'), each property P(x), and what may go wrong.

Every function is the spec's own, run on symbolic state (see `paths`): the initializer
gives Init, each binding's feasible paths give the disjuncts of Next, each property its
formula. A path that raises, or writes a value outside its domain, is not a run-time
error here: it is a failure, `Fail(x)`, an error only if a reachable state takes it —
which BMC and the provers check like any other property. A failure holds only where the
explicit engine would run the code that raises: an action constraint's on the states its
step is taken from, a step property's on the steps it is asked about; a state in which
the @constraint raises is inside it, so that the engines reach it and report the error.
"""
from __future__ import annotations

import dataclasses
import functools
import types
from typing import Callable

import z3

from ..lang.bound import MISSING, Binding, BoundSpec, Property
from ..lang.bound import truth as concrete_truth
from ..lang.domains import OutOfDomain
from ..lang.dsl import Transition, enabled_in_action, spec_members
from ..errors import SpecError, user_frame, where_defined
from .merge import Scratch, merging
from .paths import Explorer, PathSolver, explorer as running_explorer
from .rewrite import Compiler
from .shapes import shape_of
from .terms import SBool, SInt, bool_term, identical


@dataclasses.dataclass
class GuardedPath:
    """One path of one binding: enabled where `guard`, leading to the leaves `next`."""

    binding: Binding | None
    choices: tuple
    guard: z3.BoolRef
    next: list
    allowed: z3.BoolRef = z3.BoolVal(True)
    """Where the action constraints let it be taken."""


@dataclasses.dataclass
class Failure:
    """A path that raises or leaves its domain: a spec error if some reachable state takes it."""

    condition: z3.BoolRef
    message: str
    where: str | None
    origin: str | None = None
    """The formula read after the spec's steps whose failure this is (a property's): a
    failure of the engines' run only once that formula is."""


class Relation:
    """The symbolic reading of a bound spec (one per engine run)."""

    def __init__(self, machine: BoundSpec, at: tuple | None = None,
                 budget: Callable[[float], None] | None = None, stored=None):
        """`at`, a state's code, reads the spec only in that one state: the same
        interpretation, without the paths other states would take (a cheap seam check).
        `budget(share)`, asked after each binding with the share of bindings read so far,
        may stop the reading (it raises). `stored` (a `store.Stored`) is what an earlier
        reading of the same spec and constants gave: the spec is not read again."""
        self.machine = m = machine
        self.params = {name: z3.Int(name) for name in m.symbolic}
        self.env = {**m.env, **{name: SInt(t) for name, t in self.params.items()}}
        self.shapes = [shape_of(v.declared if self.params else v.domain, self.env)
                       for v in m.variables]
        self.x = [s.fresh(v.name) for s, v in zip(self.shapes, m.variables)]
        self.flat = [leaf for leaves in self.x for leaf in leaves]
        self.assumptions = z3.And([c for name, allowed in m.symbolic.items()
                                   for c in allowed.conditions(self.params[name])])
        self.domains = z3.And([s.valid(leaves) for s, leaves in zip(self.shapes, self.x)])
        self.solver = PathSolver(self.domains, self.assumptions,
                                 *([self.state_is(at)] if at is not None else []))
        self._seen: set = set()
        self._memo: dict = {}
        self._origin: str | None = None                 # the property whose formula is read
        self._spec_read = stored is not None            # then formulas are read on demand
        if stored is not None:
            self.steps, self.init = stored.steps, stored.init
            self.failures = [f for f in stored.failures if f.origin is None]
            self.formulas, self.constraint = stored.formulas, stored.constraint
            self.unused_failures = [f for f in stored.failures if f.origin is not None]
        else:
            self.failures: list[Failure] = []           # this run's: of the formulas it read
            self.unused_failures: list[Failure] = []    # the cache's, of formulas not read yet
            self.formulas: dict[str, z3.BoolRef] = {}     # every formula read, by `what`
            self.steps = []
            for n, b in enumerate(m.bindings, 1):
                self.steps += self._binding_steps(b)
                if budget is not None:
                    budget(n / len(m.bindings))
            self.init = self._init()
            self.constraint = self._constraint()
            for i, step in enumerate(self.steps):
                step.allowed = self._allowed(i)
            self._spec_read = True
        self.valid = z3.And(self.domains, self.assumptions, self.constraint)

    # ------------------------------------------------------------ running the spec

    @functools.cached_property
    def compiler(self) -> Compiler:
        return Compiler()

    @functools.cached_property
    def scratch_cls(self):
        """A subclass of the spec with one slot per variable and recompiled methods."""
        spec = self.machine.spec_cls
        names = [v.name for v in self.machine.variables]
        members = {n: _merged(self.compiler.member(v)) for n, v in spec_members(spec).items()
                   if not n.startswith("__") and n not in names}
        return type(f"{spec.__name__}Symbolic", (spec,),
                    {**members, **self.env, **self.machine.switches, "__slots__": tuple(names),
                     "__checker_enabled__": self._enabled})

    def view(self, leaves_per_var=None):
        """A scratch state whose variables are views of the given leaves (default: x)."""
        sc = self.scratch_cls.__new__(self.scratch_cls)
        for v, shape, leaves in zip(self.machine.variables, self.shapes, leaves_per_var or self.x):
            setattr(sc, v.name, shape.view(leaves))
        return sc

    def _next(self, sc, label) -> list:
        """The leaves of what the action left in the scratch; outside a domain, an error."""
        leaves = []
        for v, shape in zip(self.machine.variables, self.shapes):
            value = getattr(sc, v.name, MISSING)
            if value is MISSING:
                raise self.machine.no_value(label, v)
            try:
                leaves += shape.flatten(value)
            except OutOfDomain as e:
                raise self.machine.outside(label, v, e) from None
        return leaves

    def _paths(self, fn, args, label, setup, finish, context=z3.BoolVal(True), failed=None,
               acting=True):
        """(path, finish(scratch)) for each feasible path of `fn(scratch, *args)`. A path
        that raises is a failure where `context` holds too; its condition is also added to
        `failed`, if a list is given. Only an action (`acting`) may choose."""
        fn = self.compiler.function(fn)
        explorer = Explorer(self.solver, self.env, acting=acting)

        def run():
            sc = setup()
            explorer.scratch = Scratch(sc, self.machine.variables, self.shapes, self._memo)
            outcome = fn(sc, *args)
            return finish(sc, outcome)
        for path in explorer.explore(run, label, where_defined(fn)):
            raised = [(condition, e) for condition, e in path.failures]
            if path.error is not None:
                raised.append((path.condition, path.error))
            for condition, e in raised:
                self.fail(condition if z3.is_true(context) else z3.And(context, condition),
                          *self._explain(e, label))
                if failed is not None:
                    failed.append(condition)
            if path.error is None and path.enabled:
                yield path

    def _explain(self, e: BaseException, label: str) -> tuple[str, str | None]:
        if isinstance(e, SpecError):
            return e.message, e.where
        return f"{label} raised {type(e).__name__}: {e}", user_frame(e) or self.machine.where

    def fail(self, condition, message, where):
        key = (message, condition.hash())
        if key not in self._seen and self.solver.check(condition) != z3.unsat:
            self._seen.add(key)
            self.failures.append(Failure(condition, message, where, self._origin))

    def _steps(self, fn, args, label, binding, setup):
        """Steps of one function; values outside their domains split off as failures."""
        for path in self._paths(fn, args, label, setup, lambda sc, _: self._next(sc, label)):
            cond = path.condition
            nxt = [t if identical(t, x) else z3.simplify(t) for t, x in zip(path.outcome, self.flat)]
            inside = z3.simplify(z3.And([s.valid(part) for s, part, old in
                                         zip(self.shapes, self.split(nxt), self.x)
                                         if not all(map(identical, part, old))]))
            if not z3.is_true(inside):
                self.fail(z3.And(cond, z3.Not(inside)),
                          f"{label} writes a value outside its variable's domain", self.machine.where)
            yield GuardedPath(binding, path.choices, z3.simplify(z3.And(cond, inside)), nxt)

    def _binding_steps(self, b: Binding):
        return self._steps(b.fn, b.args, b.label, b, self.view)

    def _init(self) -> list[GuardedPath]:
        """Initial states: the defaults, then the @initial method with its choices."""
        m = self.machine
        defaults = m.defaults(lambda v, value: self.shapes[v.index].flatten(value))

        def setup():
            sc = self.scratch_cls.__new__(self.scratch_cls)
            for v, shape, leaves in zip(m.variables, self.shapes, defaults):
                if leaves is not MISSING:
                    setattr(sc, v.name, shape.view(leaves))
            return sc
        if m.initializer is None:
            return [GuardedPath(None, (), z3.BoolVal(True), self._next(setup(), "initial"))]
        return list(self._steps(m.initializer, (), "initial", None, setup))

    def formula(self, fn, what, args=(), tag="", context=z3.BoolVal(True),
                raising_holds=False) -> z3.BoolRef:
        """`fn(s, *args)` (a property, constraint, ...) as a formula over x, read once
        (`tag` tells apart readings with different `args`). It fails only where `context`
        holds (where the explicit engine would run it); where it raises, it is false, or
        true if `raising_holds`. A formula the cache holds brings its failures along."""
        key = f"{what} {fn.__qualname__} {where_defined(fn)}{tag}"
        if key not in self.formulas:
            def truth(sc, outcome):
                term = bool_term(outcome)     # a concrete non-bool is a failure, as explicitly
                return z3.BoolVal(concrete_truth(outcome, what, fn)) if term is None else term
            raised: list = []
            self._origin = key if self._spec_read else None
            try:
                self.formulas[key] = z3.Or(
                    [z3.And(p.condition, p.outcome) for p in
                     self._paths(fn, args, what, self.view, truth, context, raised,
                                 acting=False)]
                    + (raised if raising_holds else []))
            finally:
                self._origin = None
        elif any(f.origin == key for f in self.unused_failures):
            self.failures += [f for f in self.unused_failures if f.origin == key]
            self.unused_failures = [f for f in self.unused_failures if f.origin != key]
        return self.formulas[key]

    def _constraint(self) -> z3.BoolRef:
        """The @constraints, each read where those before it hold (`all`, as the explicit
        engine reads them); a state where one raises is inside, to be reached."""
        held = []
        for c in self.machine.constraints:
            before = z3.And(held) if held else z3.BoolVal(True)
            held.append(self.formula(c, "constraint", context=before, raising_holds=True))
        return z3.And(held)

    def _allowed(self, i: int) -> z3.BoolRef:
        """Where the action constraints let step `i` be taken, each read where its step is
        enabled and the constraints before it allow it (`all`, as the explicit engine)."""
        held = [self.steps[i].guard]
        for c in self.machine.action_constraints:
            held.append(self.on_step(c, i, z3.And(held)))
        return z3.And(held[1:])

    def on_step(self, p: Property, i: int, context=z3.BoolVal(True)) -> z3.BoolRef:
        """Step property or action constraint `p` on step `i`, as a formula over x:
        `p.fn(s, t[, transition])` where t is the state the step leads to; it fails only
        where `context` holds."""
        step = self.steps[i]
        after = self.view(self.split(step.next))
        taken = (Transition(step.binding.name, dict(step.binding.params)),) if p.takes_step else ()
        return self.formula(p.fn, p.name, (after, *taken), f" on step {i}", context)

    def allowed(self, i: int) -> z3.BoolRef:
        """Where the action constraints let step `i` be taken."""
        return self.steps[i].allowed

    def step_violations(self, p: Property) -> list[z3.BoolRef]:
        """Per step, the states it is taken from (allowed by the action constraints, into
        the @constraint), changing the state and violating step property `p`; `p` fails
        only on such steps, as the explicit engine asks it only about them."""
        violations = []
        for i, s in enumerate(self.steps):
            asked = z3.And(s.guard, s.allowed, self.rename(self.constraint, s.next),
                           z3.Or([a != b for a, b in zip(self.flat, s.next)]))
            violations.append(z3.And(asked, z3.Not(self.on_step(p, i, asked))))
        return violations

    def _enabled(self, sc, name: str, args: dict) -> SBool:
        """`enabled(s.name, **args)` on the symbolic state `sc`: a step of such a binding
        is enabled in the state it holds. Not inside an action, as on the interpreter."""
        if running_explorer().acting:
            raise enabled_in_action(name)
        chosen = set(map(id, self.machine.bindings_of(name, args)))
        enabled = z3.Or([s.guard for s in self.steps if id(s.binding) in chosen])
        return SBool(self.rename(enabled, self._next(sc, f"enabled(s.{name})")))

    # ------------------------------------------------------------ formulas

    def split(self, flat) -> list[list]:
        out, at = [], 0
        for s in self.shapes:
            out.append(flat[at:at + s.width])
            at += s.width
        return out

    def state_is(self, code: tuple, xs=None) -> z3.BoolRef:
        """The leaves xs (default: x) hold the state whose explicit code is `code`."""
        return z3.And(_equal(xs or self.flat, self.leaves_of(code)))

    def leaves_of(self, code: tuple) -> list:
        """The leaves (Z3 values) of the state whose explicit code is `code`."""
        values = [v.domain.plain(c) for v, c in zip(self.machine.variables, code)]
        return [t for shape, value in zip(self.shapes, values) for t in shape.flatten(value)]

    def is_initial(self, xs) -> z3.BoolRef:
        return z3.Or([z3.And(s.guard, *_equal(xs, s.next)) for s in self.init])

    def next(self, xs2, which: z3.ArithRef | None = None) -> z3.BoolRef:
        """Next(x, xs2); with `which`, also which step (its index in `steps`) was taken."""
        return z3.Or([z3.And(([which == i] if which is not None else []) + [s.guard, self.allowed(i)]
                             + _equal(xs2, s.next))
                      for i, s in enumerate(self.steps)])

    def failing(self) -> z3.BoolRef:
        return z3.Or([f.condition for f in self.failures])

    def enabled(self) -> z3.BoolRef:
        return z3.Or([s.guard for s in self.steps] + [f.condition for f in self.failures])

    def deadlocked(self) -> z3.BoolRef:
        terminal = [self.formula(t, "terminal") for t in self.machine.terminals]
        return z3.And(z3.Not(self.enabled()), z3.Not(z3.Or(terminal)))

    def copy(self, tag: str) -> list:
        """Fresh leaves for another state (step `tag` of a path)."""
        return [z3.Const(f"{leaf}@{tag}", leaf.sort()) for leaf in self.flat]

    def rename(self, formula, xs):
        """`formula` over x, with x := xs."""
        pairs = list(zip(self.flat, xs))
        return z3.substitute(formula, *pairs) if pairs else formula

    def decode(self, model: z3.ModelRef, xs) -> tuple:
        """The state code (as the explicit engine encodes it) of leaves xs in `model`."""
        return self.code_of([model.eval(leaf, model_completion=True) for leaf in xs])

    def code_of(self, values: list) -> tuple:
        """The state code of leaves with these values (Z3 values)."""
        return tuple(v.domain.encode(shape.decode(part)) for v, shape, part in
                     zip(self.machine.variables, self.shapes, self.split(values)))


def _merged(member):
    """Helper methods (and static methods) of the scratch class, their calls merged."""
    if isinstance(member, types.FunctionType):
        return merging(member)
    if isinstance(member, staticmethod) and isinstance(member.__func__, types.FunctionType):
        return staticmethod(merging(member.__func__))
    return member


def _equal(xs, terms) -> list:
    return [a == b for a, b in zip(xs, terms)]
