"""The explicit engine's runtime for a bound spec: actions run on concrete states.

The scratch state is an instance of a generated subclass of the spec with one slot per
variable, so an action reads `s.x` at slot speed and may call the spec's helper methods.
A state is decoded once into that scratch; every action runs on it and is undone
afterwards, and per-spec codecs (generated per write set) encode what it changed.
"""
from __future__ import annotations

import dataclasses
import functools
import operator
import types
from typing import Any, Callable, Iterator

from ..errors import SPEC_FAILURES, SpecError, user_frame
from ..lang.bound import MISSING, Binding, BoundSpec, Variable, truth
from ..lang.domains import Domain, OutOfDomain
from ..lang.dsl import (CHOICE_OUTSIDE_ACTION, Disabled, Oracle, Spec, install_oracle,
                         ordered_values, spec_members, swallowed)
from ..lang.values import NO_ARG
from .dispatch import selectors, tests_of
from .expand import expander
from .fastpath import DISABLED, leading_conditions, split_guard
from .steps import Enabled, allowed, view

DECODE_CACHE = 1 << 15      # decoded maps/sets kept per variable: undo leaves them as decoded


@dataclasses.dataclass
class FastPath:
    """How the interpreter runs one binding: its guard and body with the parameters baked
    in, callable as `guard(s)` and `body(s)` (guard None: all of it is the body)."""

    guard: Callable | None
    body: Callable
    guard_calls: bool               # its guard calls code that may write, then fail
    selectors: tuple                # its guard's tests of one location each (`dispatch`)


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


class ExplicitOracle(Oracle):
    """Answers `choose` from a decision prefix; records what was taken for replay."""

    __slots__ = ("env", "prefix", "taken", "sizes", "shown", "cache", "acting")

    def __init__(self, env):
        self.env, self.cache = env, {}
        self.acting = False             # an action (or @initial) runs: it alone may choose
        self.start(())

    def start(self, prefix):
        """Run the next action with decisions `prefix`; `taken` stays None until a choice."""
        self.prefix, self.taken = prefix, None

    def choose(self, domain):
        if not self.acting:
            raise TypeError(CHOICE_OUTSIDE_ACTION)
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


class Machine(BoundSpec):
    """A bound spec with the explicit engine's runtime: each binding's fast path
    (`fast_paths`, by binding index), generated codecs, one scratch state and the oracle."""

    def __init__(self, spec_cls: type[Spec], constants: dict[str, Any] | None = None,
                 groups: dict[str, bool] | None = None, symbolic: dict[str, str] | None = None,
                 fairness: dict[str, str] | None = None):
        super().__init__(spec_cls, constants, groups, symbolic, fairness)
        self._bind_fast_paths()
        self.oracle = ExplicitOracle(self.env)
        self._generate_codecs()
        self.scratch = self.state_cls.__new__(self.state_cls)
        self.scratch._undo = []

    def _bind_fast_paths(self):
        """Each binding's guard and body (parameters baked in) and its dispatch selectors,
        by binding index."""
        members = spec_members(self.spec_cls)
        variable_domains = {v.name: v.domain for v in self.variables}
        statics = {**{n: m for n, m in members.items() if not hasattr(type(m), "__get__")
                      and not n.startswith("__") and n not in variable_domains},
                   **self.env, **self.switches}
        by_action: dict[str, tuple] = {}
        self.fast_paths: list[FastPath] = []
        for b in self.all_bindings:
            if b.name not in by_action:
                conditions, state = leading_conditions(b.fn, members, self.spec_cls.__mro__)
                by_action[b.name] = (split_guard(b.fn),
                                     tests_of(conditions, state, variable_domains, statics))
            (guard, body, guard_calls), tests = by_action[b.name]
            self.fast_paths.append(FastPath(
                bake(guard, b.args), bake(body, b.args), guard_calls,
                selectors(b.fn, tests, dict(b.params), variable_domains, statics)))

    # ------------------------------------------------------------ generated codecs

    def _generate_codecs(self):
        names = [v.name for v in self.variables]
        self.state_cls = type(f"{self.spec_cls.__name__}State", (self.spec_cls,),
                              {"__slots__": tuple(names) + ("_undo", "_changed"), **self.env, **self.switches,
                               "__checker_enabled__": Enabled(self)})
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
        self._projections: dict[int, tuple[Callable, Callable]] = {}
        self._encode, self.restore = self.codecs(-1)
        self.traced_cls, self.reads_log, self.writes_log = self._generate_tracing()

    def _generate_tracing(self) -> tuple[type, list[int], list[int]]:
        """A class the scratch can take for a while (the same layout: `sc.__class__ =`)
        in which each read of a variable appends the variable's index to the first list
        returned, each assignment to the second: what a run of an action read, in order,
        and assigned (`checker.explicit.expand`)."""
        reads: list[int] = []
        writes: list[int] = []

        def traced(i: int, slot):
            def read(sc):
                reads.append(i)
                return slot.__get__(sc)

            def write(sc, value):
                writes.append(i)
                slot.__set__(sc, value)
            return property(read, write, slot.__delete__)
        return type(f"{self.spec_cls.__name__}Traced", (self.state_cls,),
                    {"__slots__": (), **{v.name: traced(v.index, self.state_cls.__dict__[v.name])
                                         for v in self.variables}}), reads, writes

    def codecs(self, writes: int) -> tuple[Callable, Callable]:
        """`encode(sc, base, st)` and `restore(sc, base)` for steps that write only the
        variables in `writes` (a bit per variable; -1: any): the others keep their codes
        and are not reset, so a step costs its own writes, not the state's size."""
        if writes not in self._codecs:
            self._codecs[writes] = self._generate_step_codecs(
                [v for v in self.variables if writes >> v.index & 1])
        return self._codecs[writes]

    def projection(self, names: int) -> tuple[Callable, Callable]:
        """`project(st)`, the codes of the variables in `names` (a bit per variable, not
        -1), and `patch(st, codes)`, `st` with those variables set to `codes` (as
        `project` returns them): a step's outcome remembered and replayed
        (`checker.explicit.expand`)."""
        if names not in self._projections:
            self._projections[names] = self._generate_projection(names)
        return self._projections[names]

    def _generate_projection(self, names: int) -> tuple[Callable, Callable]:
        at = [v.index for v in self.variables if names >> v.index & 1]
        if not at:
            return (lambda st: None), (lambda st, codes: st)
        project = operator.itemgetter(*at)
        codes = ["codes"] if len(at) == 1 else [f"codes[{k}]" for k in range(len(at))]
        parts, copied = [], 0
        for i, code in zip(at, codes):
            if copied < i:
                parts.append(f"*st[{copied}:{i}]")
            parts.append(code)
            copied = i + 1
        if copied < len(self.variables):
            parts.append(f"*st[{copied}:]")
        ns: dict[str, Any] = {}
        exec(compile(f"def patch(st, codes):\n    return ({', '.join(parts)},)",
                     f"<projection of {self.spec_cls.__name__}>", "exec"), ns)
        return project, ns["patch"]

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
                    raise self.no_value(label, v) from None
                try:
                    v.domain.encode(value)
                except (OutOfDomain, KeyError, TypeError) as err:
                    raise self.outside(label, v, err, value) from None
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
                refused, oracle.acting = Disabled.raised, True
                try:
                    enabled = fn(sc) is not DISABLED
                    if Disabled.raised != refused:
                        raise swallowed(label)
                except Disabled:
                    enabled = False
                except SPEC_FAILURES as e:
                    raise self.error_in(label, e) from None
                finally:
                    oracle.acting = False
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
        """What `label` raised, placed at the spec line that raised it: a SpecError the
        spec raises itself (a constant it refuses) gets that line too."""
        if isinstance(e, SpecError):
            e.where = e.where or user_frame(e) or self.where
            return e
        return SpecError(f"{label} raised {type(e).__name__}: {e}", user_frame(e) or self.where)

    def successors(self, st) -> list[tuple[Binding, tuple, tuple]]:
        """(binding, choices, successor) for every enabled transition out of `st` that
        the action constraints allow, as the search takes them (`checker.explicit.expand`)."""
        steps = []
        previous = install_oracle(self.oracle)
        try:
            self.expand(st, lambda index, succ, choices, changed, loaded:
                        steps.append((self.all_bindings[index], choices, succ)))
        finally:
            install_oracle(previous)
        if self.action_constraints:
            before = view(self, st)
            steps = [(b, c, succ) for b, c, succ in steps if allowed(self, before, view(self, succ), b)]
        return steps

    @functools.cached_property
    def expand(self):
        """`expand(st, emit)`: every step out of `st` (`checker.explicit.expand`); one per
        machine, so every user of its steps shares the outcomes it remembers."""
        return expander(self)

    def initial_states(self) -> list[tuple]:
        """Every initial state once, in the order of their first run."""
        return list(dict.fromkeys(self.initial_runs()))

    def initial_runs(self) -> list[tuple]:
        """The initial state of every run of the @initial method, duplicates included:
        TLC counts each among the states generated. Without one, the defaults."""
        sc = self.scratch
        codes = self.defaults(lambda v, value: v.domain.encode(value))
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
        return [st for _, st in self.run(self.initializer, "initial", unset, unset, fresh_defaults)]

    def no_initial_state(self) -> SpecError:
        """What to say when no initial state is left: every verdict would be vacuous."""
        cut = " inside the @constraint" if self.constraints else ""
        return SpecError(f"no initial state{cut}: every property would hold vacuously",
                         self.where)

    def check(self, fn, st, what) -> bool:
        """Evaluate a property or constraint on a state."""
        self.load(self.scratch, st)
        return self.holds(fn, what)

    def holds(self, fn, what) -> bool:
        """Evaluate `fn` on the scratch as it is now."""
        return self.satisfies(fn, what, self.scratch)

    def satisfies(self, fn, what, *states) -> bool:
        """`fn(*states)`, a property or constraint read on spec instances, as a bool."""
        try:
            value = fn(*states)
        except SPEC_FAILURES as e:
            raise self.error_in(what, e) from None
        return value if value is True or value is False else truth(value, what, fn)  # hot: inline
