"""A spec bound to a model's constants: what every engine reads.

`BoundSpec(SpecClass, constants, groups, symbolic, fairness)` resolves every domain, every
variable, every parameter binding of every enabled action, the properties and fairness.
It runs nothing: the explicit engine (`checker.explicit.machine.Machine`) adds a runtime
on concrete states, the symbolic engines (`checker.symbolic.relation`) read it on Z3 terms.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
import itertools
from typing import Any, Callable

from ..errors import SPEC_FAILURES, DomainError, SpecError, where_defined
from .domains import (Const, Domain, Fill, MarkedDomain, GroupOn, IntRange, OutOfDomain, as_domain,
                      as_scalar, resolve_value)
from .model_values import read_value
from .dsl import FAIRNESS, Kind, Role, Spec, spec_members
from .namespace import check_namespace
from .reads import state_reads
from .values import MapValue, SetValue

MISSING = object()
PROPERTY_KINDS = (Kind.INVARIANT, Kind.REACHABLE, Kind.INITIALLY, Kind.EVENTUALLY, Kind.LEADS_TO,
                  Kind.EVENTUALLY_ALWAYS)
STEP_KINDS = (Kind.STEP_INVARIANT, Kind.INFINITELY_OFTEN)     # properties of steps: fn(s, t)
LIVENESS_KINDS = (Kind.EVENTUALLY, Kind.LEADS_TO, Kind.EVENTUALLY_ALWAYS, Kind.INFINITELY_OFTEN)
MODEL_FAIRNESS = FAIRNESS + tuple(f"{f}-group" for f in FAIRNESS) + ("none",)   # [fairness] values


class BindError(Exception):
    """A constant or group the model names does not fit the spec (`key` says which)."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


@dataclasses.dataclass
class Variable:
    index: int
    name: str
    domain: Domain
    ghost: bool
    default: Any
    declared: Domain                   # as written, before the constants were bound
    bookkeeping: bool = False          # `Bookkeeping[T]`: hidden in traces unless asked


@dataclasses.dataclass
class Binding:
    """One labelled transition: an action with its parameters fixed."""

    index: int
    name: str
    kind: Kind                         # ACTION or FAULT
    group: str | None
    params: tuple[tuple[str, Any], ...]
    param_labels: tuple[tuple[str, str], ...]
    fn: Callable                       # the spec's function, fn(s, *args)
    fair: str | None = None            # "weak" / "strong" fairness of this binding
    fair_when: Callable | None = None  # ... of its steps from states where this holds
    calls: str | None = None           # the actor it calls, for diagrams
    writes: int = -1                   # a bit per variable it may write (-1: any; see `reads`)

    @property
    def args(self) -> tuple:
        return tuple(v for _, v in self.params)

    @property
    def label(self) -> str:
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in self.param_labels)})"


@dataclasses.dataclass(frozen=True)
class Fairness:
    """One fairness condition: WF or SF of the disjunction of some bindings (TLA+
    `WF_vars(A1 \\/ A2 ...)`): enabled when one member is, taken when one is."""

    kind: str                          # "weak" or "strong"
    label: str                         # a binding's label, or the action or group named
    members: frozenset[int]            # Binding.index of each member


@dataclasses.dataclass
class Property:
    name: str
    kind: Kind                         # a property kind, or ACTION_CONSTRAINT
    fn: Callable
    where: str | None
    instances: list[tuple] = dataclasses.field(default_factory=lambda: [()])
    """Parameter bindings of a liveness property (`def p(s, x: Domain)`): each must hold."""
    instance_labels: list[tuple[tuple[str, str], ...]] = dataclasses.field(default_factory=lambda: [()])
    """(parameter, value shown) of each instance, as Binding.param_labels."""
    reads: int = -1
    """A bit per state variable (by index) that it may read; -1: any (see `reads`)."""
    takes_step: bool = False
    """A step property or action constraint that is also given the `Transition` taken."""


class BoundSpec:
    """A spec with its constants fixed: variables, bindings, properties, fairness."""

    def __init__(self, spec_cls: type[Spec], constants: dict[str, Any] | None = None,
                 groups: dict[str, bool] | None = None, symbolic: dict[str, str] | None = None,
                 fairness: dict[str, str] | None = None):
        """`symbolic` names constants left free for the symbolic engines (name -> the
        constraint on it, e.g. ">= 0"), kept as the IntRange it allows with the Const's
        min and max; here they keep their default value. `fairness`
        sets the fairness of actions or groups by name ("weak", "strong" or "none")."""
        if not (isinstance(spec_cls, type) and issubclass(spec_cls, Spec)):
            raise SpecError(f"{spec_cls!r} is not a subclass of checker.Spec")
        self.spec_cls = spec_cls
        self.bound_with = (spec_cls, constants, groups, symbolic, fairness)   # to bind it again
        self.where = where_defined(spec_cls)
        members = spec_members(spec_cls)
        self.consts = {n: c for n, c in members.items() if isinstance(c, Const) and c.name == n}
        self.env = self._bind_constants(constants or {})
        self.symbolic = self._bind_symbolic(symbolic or {})
        self.variables = self._collect_variables(members)
        check_namespace(spec_cls, {v.name for v in self.variables})
        roles = {n: (m, m.__checker_role__) for n, m in members.items()
                 if callable(m) and isinstance(getattr(m, "__checker_role__", None), Role)}
        self.groups = self._bind_groups(roles, groups or {})
        self.switches = self._bind_switches(members)
        self._own_reads: dict = {}    # per function, what `state_reads` found it reads itself
        self.properties = [self._property(n, r.kind, m, members) for n, (m, r) in roles.items()
                           if r.kind in PROPERTY_KINDS] + \
                          [_on_steps(n, m) for n, (m, r) in roles.items() if r.kind in STEP_KINDS]
        self.action_constraints = [_on_steps(n, m) for n, (m, r) in roles.items()
                                   if r.kind == Kind.ACTION_CONSTRAINT]
        self.constraints = [m for m, r in roles.values() if r.kind == Kind.CONSTRAINT]
        self.terminals = [m for m, r in roles.values() if r.kind == Kind.TERMINAL]
        inits = [m for m, r in roles.values() if r.kind == Kind.INITIAL]
        if len(inits) > 1:
            raise SpecError("a spec has at most one @initial method", self.where)
        self.initializer = inits[0] if inits else None
        self.all_bindings = self._collect_bindings(roles, members)
        self.joint_fairness: list[Fairness] = []    # "weak-group" / "strong-group" of the model
        self._bind_fairness(fairness or {})
        self.bindings = [b for b in self.all_bindings if b.group is None or self.groups[b.group]]

    # ------------------------------------------------------------ binding the model

    def _bind_constants(self, given):
        env = {n: c.default for n, c in self.consts.items()}
        for name, value in given.items():
            if name not in self.consts:
                known = ", ".join(sorted(self.consts)) or "none"
                raise BindError(name, f"unknown constant {name!r} (the spec's constants: {known})")
            const = self.consts[name]
            try:
                env[name] = const.convert(value) if const.domain is None else \
                    read_value(const.domain.resolve(env), value)
            except ValueError as e:
                raise BindError(name, f"constant {name}: {e}") from None
        return env

    def _bind_symbolic(self, constraints: dict[str, str]) -> dict[str, IntRange]:
        """The values each symbolic constant may take; none at all is an error, for a
        proof over no value would hold vacuously."""
        ranges = {}
        for name, text in constraints.items():
            const = self.consts.get(name)
            if const is None or type(const.default) is not int:
                ints = ", ".join(sorted(n for n, c in self.consts.items() if type(c.default) is int))
                raise BindError(name, f"[symbolic] {name}: not an int constant of the spec (its int "
                                      f"constants: {ints or 'none'})")
            if not isinstance(text, str):
                raise BindError(name, f'[symbolic] {name}: write the constraint as a string, e.g. '
                                      f'{name} = ">= 0"')
            try:
                allowed = IntRange(const.min, const.max).meet(IntRange.parse(text))
            except ValueError as e:
                raise BindError(name, f"[symbolic] {name}: {e}") from None
            if allowed.is_empty():
                declared = IntRange(const.min, const.max)
                raise BindError(name, f'[symbolic] {name} = "{text}" allows no value' +
                                (f" (the spec declares {name} {declared})" if declared != IntRange()
                                 else ""))
            ranges[name] = allowed
        return ranges

    def _collect_variables(self, members):
        variables = []
        for klass in reversed(self.spec_cls.__mro__):
            if not (isinstance(klass, type) and issubclass(klass, Spec)):
                continue
            try:
                annotations = inspect.get_annotations(klass, eval_str=True)
            except Exception as e:
                raise SpecError(f"cannot read the annotations of {klass.__name__}: {e}",
                                where_defined(klass)) from None
            for name, annotation in annotations.items():
                if name.startswith("_") or any(v.name == name for v in variables):
                    continue
                role = annotation.role if isinstance(annotation, MarkedDomain) else None
                try:
                    declared = as_domain(annotation.inner if role else annotation)
                    domain = declared.resolve(self.env)
                except (TypeError, ValueError) as e:
                    raise SpecError(f"variable {name}: {e}", where_defined(klass)) from None
                default = members.get(name, MISSING)
                variables.append(Variable(len(variables), name, domain, role == "ghost", default,
                                          declared, role == "bookkeeping"))
        if not variables:
            raise SpecError(f"{self.spec_cls.__name__} declares no state variables", self.where)
        return variables

    def _bind_groups(self, roles, given):
        """Groups of faults are off unless the model switches them on; others are on."""
        declared = {r.group for _, r in roles.values() if r.group}
        for name, on in given.items():
            if name not in declared:
                known = ", ".join(sorted(declared)) or "none"
                raise BindError(name, f"unknown action group {name!r} (the spec's groups: {known})")
            if not isinstance(on, bool):
                raise BindError(name, f"group {name}: expected true or false, got {on!r}")
        faulty = {r.group for _, r in roles.values() if r.group and r.kind == Kind.FAULT}
        return {g: given.get(g, g not in faulty) for g in sorted(declared)}

    def _bind_switches(self, members) -> dict[str, bool]:
        """Each `GroupOn` member: whether the model switches its group on."""
        switches = {}
        for name, g in members.items():
            if isinstance(g, GroupOn) and g.name == name:
                if g.group not in self.groups:
                    known = ", ".join(self.groups) or "none"
                    raise SpecError(f"{name} = {g!r}: no action group {g.group!r} (the spec's "
                                    f"groups: {known})", g.where)
                switches[name] = self.groups[g.group]
        return switches

    def _bind_fairness(self, given):
        """Apply the model's fairness overrides; faults are never fair. "weak" or "strong"
        is the fairness of each binding named; "weak-group" or "strong-group" that of all
        of them as one action, instead of their own."""
        for name, fair in given.items():
            chosen = [b for b in self.all_bindings if name in (b.name, b.group)]
            if not chosen:
                raise BindError(name, f"fairness: no action or group named {name!r}")
            if fair not in MODEL_FAIRNESS:
                raise BindError(name, f"fairness of {name}: expected {', '.join(MODEL_FAIRNESS[:-1])} "
                                      f"or none, got {fair!r}")
            kind, _, joint = fair.partition("-")
            if kind != "none" and any(b.kind == Kind.FAULT for b in chosen):
                raise BindError(name, f"fairness of {name}: faults are never fair")
            for b in chosen:
                b.fair = kind if kind != "none" and not joint else None
            if joint:
                self.joint_fairness.append(Fairness(kind, name, frozenset(b.index for b in chosen)))

    def _parameters(self, name, fn, members) -> tuple[list[str], list[Domain]]:
        """Names and resolved domains of the parameters after `s`."""
        params = list(inspect.signature(fn).parameters)[1:]
        try:
            hints = inspect.get_annotations(fn, locals=members, eval_str=True)
            domains = [as_domain(hints[p]).resolve(self.env) for p in params]
        except (KeyError, TypeError, NameError) as e:
            raise SpecError(f"{name}: every parameter needs a finite domain annotation ({e})",
                            where_defined(fn)) from None
        try:
            return params, [as_scalar(d, f"parameter {p}") for p, d in zip(params, domains)]
        except TypeError as e:
            raise SpecError(f"{name}: {e}: a parameter takes one value (bool, an Enum, "
                            f"Int[lo, hi], Option[T], a record, a Seq, a Set (its subsets) "
                            f"or a Map (its maps))",
                            where_defined(fn)) from None

    def _property(self, name, kind, fn, members) -> Property:
        params, domains = self._parameters(name, fn, members)
        if params and kind not in LIVENESS_KINDS:
            raise SpecError(f"{name}: only liveness properties take parameters; write "
                            f"all(...) or any(...) over the domain instead", where_defined(fn))
        instances = list(itertools.product(*(d.values for d in domains)))
        labels = [tuple((p, d.show(v)) for p, d, v in zip(params, domains, combo)) for combo in instances]
        read = state_reads(fn, members, {v.name for v in self.variables}, self.spec_cls.__mro__,
                           self._own_reads)
        # one that reads nothing is evaluated everywhere (-1): no step would change it,
        # so with a bit per variable it would not be evaluated even in the initial states
        return Property(name, kind, fn, where_defined(fn), instances, labels, self._mask(read or None))

    def _mask(self, names: frozenset[str] | None) -> int:
        """A bit per variable named; -1 (every bit) for None, "not known"."""
        if names is None:
            return -1
        return sum(1 << v.index for v in self.variables if v.name in names)

    def _collect_bindings(self, roles, members):
        bindings = []
        names = {v.name for v in self.variables}
        for name, (fn, role) in roles.items():
            if role.kind not in (Kind.ACTION, Kind.FAULT):
                continue
            params, domains = self._parameters(f"action {name}", fn, members)
            writes = self._mask(state_reads(fn, members, names, self.spec_cls.__mro__,
                                            self._own_reads))   # names it, or keeps it
            for combo in itertools.product(*(d.values for d in domains)):
                bindings.append(Binding(
                    len(bindings), name, role.kind, role.group, tuple(zip(params, combo)),
                    tuple((p, d.show(v)) for p, d, v in zip(params, domains, combo)),
                    fn, role.fair, role.fair_when, role.calls, writes))
        return bindings

    # ------------------------------------------------------------ what engines share

    def bindings_of(self, name: str, args: dict) -> list[Binding]:
        """The bindings of action `name` the model switches on, with these arguments (the
        others any), for `enabled(s.name, **args)`; a ValueError says what it got wrong."""
        every = [b for b in self.all_bindings if b.name == name]
        if not every:
            raise ValueError(f"enabled(s.{name}): {name} is not an action of {self.spec_cls.__name__}")
        unknown = set(args) - {p for p, _ in every[0].params}
        if unknown:
            raise ValueError(f"enabled(s.{name}, ...): {name} has no parameter "
                             f"{', '.join(sorted(unknown))}")
        for k, v in args.items():
            if all(dict(b.params)[k] != v for b in every):
                raise ValueError(f"enabled(s.{name}, {k}={v!r}): {v!r} is not a value of "
                                 f"parameter {k}")
        return [b for b in self.bindings if b.name == name and
                all(dict(b.params)[k] == v for k, v in args.items())]

    def defaults(self, encode: Callable[[Variable, Any], Any]) -> list:
        """Each variable's default as `encode(variable, value)` gives it (MISSING where it
        has none, for the @initial method to set); one outside its domain is an error."""
        out = []
        for v in self.variables:
            value = _value_of(v.default, v.domain, self.env)
            try:
                out.append(MISSING if value is MISSING else encode(v, value))
            except (OutOfDomain, KeyError, TypeError) as e:
                raise DomainError(f"initial value of {v.name} is outside its domain "
                                  f"{v.domain}: {e}", self.where) from None
        return out

    def no_value(self, label: str, v: Variable) -> SpecError:
        """A step (or the initial state) left `v` unset."""
        return SpecError(f"{label}: variable {v.name} has no value", self.where)

    def outside(self, label: str, v: Variable, error: Exception, value: Any = MISSING) -> DomainError:
        """A step wrote `v` outside its domain."""
        shown = "" if value is MISSING else f" = {short(value)}"
        return DomainError(f"{label} wrote {v.name}{shown}, outside its domain {v.domain} "
                           f"({error})", self.where)

    # ------------------------------------------------------------ reading states

    def constant(self, fn) -> bool | None:
        """`fn`'s value in every state, where it reads no state variable under this
        model's constants (a lemma guarded by a setting the model is not in returns True
        before reading anything); None where it reads one, or fails."""
        probe = self._probe.__new__(self._probe)
        try:
            value = fn(probe)
        except _ReadsState:
            return None
        except SPEC_FAILURES:
            return None                 # evaluated state by state, it reports the error
        return value if value is True or value is False else None

    @functools.cached_property
    def _probe(self) -> type:
        """A spec instance with the constants and no state: reading a variable raises."""
        def reads(_):
            raise _ReadsState
        return type(f"{self.spec_cls.__name__}Probe", (self.spec_cls,),
                    {**{v.name: property(reads) for v in self.variables}, **self.env,
                     **self.switches, "__slots__": ()})

    def plain(self, st) -> dict[str, Any]:
        """Variable name -> immutable Python value, for traces and display."""
        return {v.name: v.domain.plain(c) for v, c in zip(self.variables, st)}



def _on_steps(name: str, fn: Callable) -> Property:
    """A step property or action constraint: `fn(s, t)` or `fn(s, t, step)`."""
    kind = fn.__checker_role__.kind
    arity = len(inspect.signature(fn).parameters)
    if arity not in (2, 3):
        raise SpecError(f"{name}: a @{kind} reads the states before and after a step, and "
                        f"optionally the step: def {name}(s, t) or def {name}(s, t, step)",
                        where_defined(fn))
    return Property(name, kind, fn, where_defined(fn), takes_step=arity == 3)


class _ReadsState(BaseException):
    """A probe read a state variable (BaseException: a spec's `except` cannot hide it)."""


def _value_of(default, domain: Domain, env: dict):
    """A variable's initial value, which may read the model's constants (`x: ... = N`)."""
    if isinstance(default, Fill):
        return Fill(resolve_value(default.value, env)).build(domain)
    return resolve_value(default, env)


def truth(value, what, fn) -> bool:
    """A property's or constraint's result as a bool: True, False or a NumPy bool, never
    a value read as one (a None from a missing `return` would read as "violated")."""
    if value is True or value is False:
        return value
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    hint = " (is a return missing?)" if value is None else ""
    raise SpecError(f"{what} returned {short(value)}, not a bool (True or False){hint}",
                    where_defined(fn))


def short(value, limit=80):
    text = repr(value)
    if isinstance(value, (MapValue, SetValue)):
        text = repr(dict(value) if isinstance(value, MapValue) else set(value))
    return text if len(text) <= limit else text[:limit - 3] + "..."
