"""A spec bound to a model's constants: variables, bindings, properties, codecs.

`compile_spec(SpecClass, constants, groups)` resolves every domain, enumerates every
parameter binding of every enabled action, and generates per-spec accessor code: the
scratch state is an instance of a subclass of the spec with one slot per variable, so
an action reads `s.x` at slot speed and may call the spec's helper methods. A state is
decoded once into that scratch; every action runs on it and is undone afterwards.
"""
from __future__ import annotations

import dataclasses
import inspect
import functools
import itertools
import types
from typing import Any, Callable, Iterator

from .domains import Const, Domain, Expr, Fill, GhostDomain, IntRange, OutOfDomain, as_domain
from .dsl import (FAIRNESS, Disabled, Kind, Oracle, Role, Spec, install_oracle, ordered_values,
                  spec_members)
from .errors import SPEC_FAILURES, DomainError, SpecError, user_frame, where_defined
from .dispatch import selectors
from .expand import expander
from .fastpath import DISABLED, leading_conditions, split_guard
from .reads import state_reads
from .values import NO_ARG, MapValue, SetValue

MISSING = object()
PROPERTY_KINDS = (Kind.INVARIANT, Kind.REACHABLE, Kind.EVENTUALLY, Kind.LEADS_TO)
LIVENESS_KINDS = (Kind.EVENTUALLY, Kind.LEADS_TO)
MODEL_FAIRNESS = FAIRNESS + tuple(f"{f}-group" for f in FAIRNESS) + ("none",)   # [fairness] values
DECODE_CACHE = 1 << 15      # decoded maps/sets kept per variable: undo leaves them as decoded


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
    guard: Callable | None             # guard(s) and body(s): the explicit engine's fast
    body: Callable                     # path, parameters baked in (see `bake`)
    fair: str | None = None            # "weak" / "strong" fairness of this binding
    fair_when: Callable | None = None  # ... of its steps from states where this holds
    calls: str | None = None           # the actor it calls, for diagrams
    selectors: tuple = ()              # its guard's tests of one location each (dispatch)
    writes: int = -1                   # a bit per variable it may write (-1: any; see `reads`)

    @property
    def args(self) -> tuple:
        return tuple(v for _, v in self.params)

    @property
    def label(self) -> str:
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in self.param_labels)})"


def bake(fn: Callable | None, args: tuple) -> Callable | None:
    """`fn` with its parameters fixed, callable as `fn(s)`.

    A copy of the function whose parameter defaults are `args` calls faster than
    `fn(s, *args)` or a functools.partial.
    """
    if fn is None or not args:
        return fn
    if fn.__defaults__ or fn.__kwdefaults__:
        return functools.partial(fn, **dict(zip(fn.__code__.co_varnames[1:], args)))
    baked = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, tuple(args), fn.__closure__)
    baked.__qualname__ = fn.__qualname__
    return baked


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
    kind: Kind                         # INVARIANT, REACHABLE, EVENTUALLY or LEADS_TO
    fn: Callable
    where: str | None
    instances: list[tuple] = dataclasses.field(default_factory=lambda: [()])
    """Parameter bindings of a liveness property (`def p(s, x: Domain)`): each must hold."""
    instance_labels: list[tuple[tuple[str, str], ...]] = dataclasses.field(default_factory=lambda: [()])
    """(parameter, value shown) of each instance, as Binding.param_labels."""
    reads: int = -1
    """A bit per state variable (by index) that it may read; -1: any (see `reads`)."""


class ExplicitOracle(Oracle):
    """Answers `choose` from a decision prefix; records what was taken for replay."""

    __slots__ = ("env", "prefix", "taken", "sizes", "shown", "cache")

    def __init__(self, env):
        self.env, self.cache = env, {}
        self.start(())

    def start(self, prefix):
        """Run the next action with decisions `prefix`; `taken` stays None until a choice."""
        self.prefix, self.taken = prefix, None

    def choose(self, domain):
        if self.taken is None:
            self.taken, self.sizes, self.shown = [], [], []
        if isinstance(domain, Domain):
            values = self.cache.get(id(domain))
            if values is None:
                values = self.cache[id(domain)] = ordered_values(domain, self.env)
        else:
            values = ordered_values(domain, self.env)
        if not values:
            raise Disabled
        k = len(self.taken)
        i = self.prefix[k] if k < len(self.prefix) else 0
        self.taken.append(i)
        self.sizes.append(len(values))
        self.shown.append(values[i])
        return values[i]

    def next_prefix(self):
        """The next decision sequence in odometer order, or None when all were run."""
        if self.taken is None:
            return None
        for j in range(len(self.taken) - 1, -1, -1):
            if self.taken[j] + 1 < self.sizes[j]:
                return tuple(self.taken[:j]) + (self.taken[j] + 1,)
        return None


class Machine:
    """A spec with its constants fixed: what every engine works from."""

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
        self.consts = {n: c for n, c in members.items() if isinstance(c, Const)}
        self.env = self._bind_constants(constants or {})
        self.symbolic = self._bind_symbolic(symbolic or {})
        self.variables = self._collect_variables(members)
        roles = {n: (m, m.__checker_role__) for n, m in members.items()
                 if callable(m) and isinstance(getattr(m, "__checker_role__", None), Role)}
        self.groups = self._bind_groups(roles, groups or {})
        self.properties = [self._property(n, r.kind, m, members) for n, (m, r) in roles.items()
                           if r.kind in PROPERTY_KINDS]
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
        self.oracle = ExplicitOracle(self.env)
        self._generate_codecs()
        self.scratch = self.state_cls.__new__(self.state_cls)
        self.scratch._undo = []

    # ------------------------------------------------------------ binding the model

    def _bind_constants(self, given):
        env = {n: c.default for n, c in self.consts.items()}
        for name, value in given.items():
            if name not in self.consts:
                known = ", ".join(sorted(self.consts)) or "none"
                raise BindError(name, f"unknown constant {name!r} (the spec's constants: {known})")
            try:
                env[name] = self.consts[name].convert(value)
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
                ghost = isinstance(annotation, GhostDomain)
                try:
                    declared = as_domain(annotation.inner if ghost else annotation)
                    domain = declared.resolve(self.env)
                except (TypeError, ValueError) as e:
                    raise SpecError(f"variable {name}: {e}", where_defined(klass)) from None
                default = members.get(name, MISSING)
                _check_default(name, default, klass)
                variables.append(Variable(len(variables), name, domain, ghost, default, declared))
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
        for p, d in zip(params, domains):
            if not d.scalar:
                raise SpecError(f"{name}: parameter {p} ranges over {d}, but a parameter takes one "
                                f"scalar value (bool, an Enum, Int[lo, hi], Option[T] or a record)",
                                where_defined(fn))
        return params, domains

    def _property(self, name, kind, fn, members) -> Property:
        params, domains = self._parameters(name, fn, members)
        if params and kind not in LIVENESS_KINDS:
            raise SpecError(f"{name}: only liveness properties take parameters; write "
                            f"all(...) or any(...) over the domain instead", where_defined(fn))
        instances = list(itertools.product(*(d.values for d in domains)))
        labels = [tuple((p, d.show(v)) for p, d, v in zip(params, domains, combo)) for combo in instances]
        read = state_reads(fn, members, {v.name for v in self.variables})
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
        variable_domains = {v.name: v.domain for v in self.variables}
        names = set(variable_domains)
        for name, (fn, role) in roles.items():
            if role.kind not in (Kind.ACTION, Kind.FAULT):
                continue
            params, domains = self._parameters(f"action {name}", fn, members)
            guard, body = split_guard(fn)
            conditions, state = leading_conditions(fn, members)
            writes = self._mask(state_reads(fn, members, names))   # names it, or keeps it
            for combo in itertools.product(*(d.values for d in domains)):
                bindings.append(Binding(
                    len(bindings), name, role.kind, role.group, tuple(zip(params, combo)),
                    tuple((p, d.show(v)) for p, d, v in zip(params, domains, combo)),
                    fn, bake(guard, combo), bake(body, combo), role.fair, role.fair_when,
                    role.calls, selectors(fn, conditions, state, dict(zip(params, combo)),
                                          variable_domains), writes))
        return bindings

    # ------------------------------------------------------------ generated codecs

    def _generate_codecs(self):
        names = [v.name for v in self.variables]
        self.state_cls = type(f"{self.spec_cls.__name__}State", (self.spec_cls,),
                              {"__slots__": tuple(names) + ("_undo", "_changed"), **self.env})
        ns: dict[str, Any] = {"CACHE": DECODE_CACHE}
        load = []
        for v in self.variables:
            i, d = v.index, v.domain
            if d.scalar:
                ns[f"T{i}"] = d.values
                load.append(f"    sc.{v.name} = T{i}[st[{i}]]")
            else:
                ns[f"D{i}"], ns[f"C{i}"] = d.decode, {}
                load.append(f"    c = st[{i}]\n"
                            f"    x = C{i}.get(c)\n"
                            f"    if x is None:\n"
                            f"        x = D{i}(c, sc)\n"
                            f"        if len(C{i}) < CACHE:\n"
                            f"            C{i}[c] = x\n"
                            f"    sc.{v.name} = x")
        src = "\n".join(["def load(sc, st):", *load, f"    return ({', '.join(f'sc.{n}' for n in names)},)"])
        exec(compile(src, f"<codecs of {self.spec_cls.__name__}>", "exec"), ns)
        self.load = ns["load"]
        self._codecs: dict[int, tuple[Callable, Callable]] = {}
        self._encode, self.restore = self.codecs(-1)

    def codecs(self, writes: int) -> tuple[Callable, Callable]:
        """`encode(sc, base, st)` and `restore(sc, base)` for steps that write only the
        variables in `writes` (a bit per variable; -1: any): the others keep their codes
        and are not reset, so a step costs its own writes, not the state's size."""
        if writes not in self._codecs:
            self._codecs[writes] = self._generate_step_codecs(
                [v for v in self.variables if writes >> v.index & 1])
        return self._codecs[writes]

    def _generate_step_codecs(self, written: list[Variable]) -> tuple[Callable, Callable]:
        ns: dict[str, Any] = {"NO_ARG": NO_ARG}
        enc, reset, parts, copied = [], [], [], 0
        for v in written:
            i = v.index
            ns[f"E{i}"] = v.domain.encode
            if v.domain.scalar:
                enc.append(f"    x = sc.{v.name}\n"
                           f"    if x is base[{i}]:\n"
                           f"        c{i} = st[{i}]\n"
                           f"    else:\n"
                           f"        c{i} = E{i}(x)\n"
                           f"        changed |= {1 << i}")
            else:
                enc.append(f"    x = sc.{v.name}\n"
                           f"    if x is base[{i}] and x._touched is None:\n"
                           f"        c{i} = st[{i}]\n"
                           f"    else:\n"
                           f"        c{i} = x.code() if x is base[{i}] else E{i}(x)\n"
                           f"        changed |= {1 << i}")
            reset.append(f"    sc.{v.name} = base[{i}]")
            if copied < i:
                parts.append(f"*st[{copied}:{i}]")
            parts.append(f"c{i}")
            copied = i + 1
        if copied < len(self.variables):
            parts.append(f"*st[{copied}:]")
        src = "\n".join([
            "def encode(sc, base, st):", "    changed = 0", *enc,
            "    sc._changed = changed",                     # a bit per variable written
            f"    return ({', '.join(parts)},) if changed else st",   # a self-loop: the state itself
            "def restore(sc, base):",
            "    undo = sc._undo",
            "    if undo:",
            "        for fn, c, k, old in reversed(undo):",
            "            fn(c, k) if old is NO_ARG else fn(c, k, old)",
            "            c._touched = None",
            "        undo.clear()",
            *reset,
        ])
        exec(compile(src, f"<codecs of {self.spec_cls.__name__}>", "exec"), ns)
        return ns["encode"], ns["restore"]

    def encode(self, sc, base, st, label):
        """The successor's code; a value outside its domain names the action and variable."""
        try:
            return self._encode(sc, base, st)
        except (OutOfDomain, KeyError, TypeError, AttributeError) as e:
            for v in self.variables:
                value = getattr(sc, v.name, MISSING)
                if value is MISSING:
                    raise SpecError(f"{label}: variable {v.name} has no value", self.where) from None
                try:
                    v.domain.encode(value)
                except (OutOfDomain, KeyError, TypeError) as err:
                    raise DomainError(f"{label} wrote {v.name} = {_short(value)}, outside its "
                                      f"domain {v.domain} ({err})", self.where) from None
            raise SpecError(f"{label}: cannot encode the state ({e})", self.where) from None

    # ------------------------------------------------------------ running actions

    def run(self, fn, label, st, base, setup=None) -> Iterator[tuple[tuple, tuple]]:
        """Every outcome of `fn(s)` from the loaded state: (choices shown, successor).

        The scratch holds `st` decoded (`base` its values) before and after; `setup`, if
        given, prepares the scratch before each run instead.
        """
        oracle, sc = self.oracle, self.scratch
        previous = install_oracle(oracle)
        prefix = ()
        try:
            while prefix is not None:
                oracle.start(prefix)
                if setup is not None:
                    setup()
                try:
                    enabled = fn(sc) is not DISABLED
                except Disabled:
                    enabled = False
                except SPEC_FAILURES as e:
                    raise self.error_in(label, e) from None
                if enabled:
                    shown = tuple(oracle.shown) if oracle.taken else ()
                    yield shown, self.encode(sc, base, st, label)
                self.restore(sc, base)
                prefix = oracle.next_prefix()
        finally:
            self.restore(sc, base)
            oracle.start(())
            install_oracle(previous)

    def error_in(self, label, e) -> SpecError:
        if isinstance(e, SpecError):
            return e
        return SpecError(f"{label} raised {type(e).__name__}: {e}", user_frame(e) or self.where)

    def successors(self, st) -> list[tuple[Binding, tuple, tuple]]:
        """(binding, choices, successor) for every enabled transition out of `st`, as
        the search takes them (`checker.expand`)."""
        steps = []
        previous = install_oracle(self.oracle)
        try:
            self._expand(st, lambda index, succ, choices, changed, loaded:
                         steps.append((self.all_bindings[index], choices, succ)))
        finally:
            install_oracle(previous)
        return steps

    @functools.cached_property
    def _expand(self):
        return expander(self)

    def initial_states(self) -> list[tuple]:
        """Every initial state: the defaults, then the @initial method with its choices."""
        sc, codes = self.scratch, []
        for v in self.variables:
            default = v.default
            if default is MISSING:
                codes.append(MISSING)
                continue
            if isinstance(default, Fill):
                default = default.build(v.domain)
            try:
                codes.append(v.domain.encode(default))
            except (OutOfDomain, KeyError, TypeError) as e:
                raise DomainError(f"initial value of {v.name} is outside its domain "
                                  f"{v.domain}: {e}", self.where) from None
        missing = [v.name for v, c in zip(self.variables, codes) if c is MISSING]
        if self.initializer is None:
            if missing:
                raise SpecError(f"no initial value for {', '.join(missing)}: give a default "
                                f"or an @initial method", self.where)
            return [tuple(codes)]

        def fresh_defaults():
            for v, c in zip(self.variables, codes):
                if c is MISSING:
                    if hasattr(sc, v.name):
                        delattr(sc, v.name)
                else:
                    setattr(sc, v.name, v.domain.decode(c, None))

        unset = tuple(MISSING for _ in self.variables)
        found = []
        for _, st in self.run(self.initializer, "initial", unset, unset, fresh_defaults):
            if st not in found:
                found.append(st)
        return found

    def no_initial_state(self) -> SpecError:
        """What to say when no initial state is left: every verdict would be vacuous."""
        cut = " inside the @constraint" if self.constraints else ""
        return SpecError(f"no initial state{cut}: every property would hold vacuously",
                         self.where)

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
                     "__slots__": ()})

    def check(self, fn, st, what) -> bool:
        """Evaluate a property or constraint on a state."""
        self.load(self.scratch, st)
        return self.holds(fn, what)

    def holds(self, fn, what) -> bool:
        """Evaluate `fn` on the scratch as it is now."""
        try:
            value = fn(self.scratch)
        except SPEC_FAILURES as e:
            raise self.error_in(what, e) from None
        return value if value is True or value is False else truth(value, what, fn)  # hot: inline

    def plain(self, st) -> dict[str, Any]:
        """Variable name -> immutable Python value, for traces and display."""
        return {v.name: v.domain.plain(c) for v, c in zip(self.variables, st)}



class _ReadsState(BaseException):
    """A probe read a state variable (BaseException: a spec's `except` cannot hide it)."""


def _check_default(name, default, klass):
    """A variable's default is a plain value: not a method of the same name (which
    replaces it in the class) nor a model constant (bound only later)."""
    if inspect.isfunction(default):
        raise SpecError(f"{name} is both a state variable and a method of {klass.__name__}: "
                        f"rename one", where_defined(default))
    value = default.value if isinstance(default, Fill) else default
    if isinstance(value, Expr):
        what = f"the constant {value.name}" if isinstance(value, Const) else "constants"
        raise SpecError(f"variable {name}: its default uses {what}, which has a value only once "
                        f"the model is bound: set it in an @initial method", where_defined(klass))


def truth(value, what, fn) -> bool:
    """A property's or constraint's result as a bool: True, False or a NumPy bool, never
    a value read as one (a None from a missing `return` would read as "violated")."""
    if value is True or value is False:
        return value
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    hint = " (is a return missing?)" if value is None else ""
    raise SpecError(f"{what} returned {_short(value)}, not a bool (True or False){hint}",
                    where_defined(fn))


def _short(value, limit=80):
    text = repr(value)
    if isinstance(value, (MapValue, SetValue)):
        text = repr(dict(value) if isinstance(value, MapValue) else set(value))
    return text if len(text) <= limit else text[:limit - 3] + "..."
