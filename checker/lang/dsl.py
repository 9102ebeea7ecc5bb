"""The spec-writer's vocabulary: `Spec`, `@action`, `@invariant`, `require`, `choose`, ...

A spec is a class whose annotated attributes are state variables (the default is the
initial value) and whose decorated methods are actions and properties. Engines never
call a spec directly: they bind it to the model's constants (`checker.lang.bound.BoundSpec`),
then run the very same functions on concrete or symbolic state.
"""
from __future__ import annotations

import contextvars
import dataclasses
import enum
import sys
from typing import Callable

from ..errors import SpecError, spec_file
from .domains import Domain, SetValue, as_scalar


class Disabled(BaseException):
    """Raised by `require(False)`: the action is not enabled here.

    A BaseException, so that a spec's own `except Exception` cannot swallow it; one that
    catches it anyway (`except BaseException`, a bare `except`) would take a disabled
    step, so the engines count them (`raised`): an action that returns with more raised
    than when it began swallowed one, a spec error.
    """

    raised = 0
    where: str | None = None           # the last refusing require()'s 'file:line'

    def __init__(self):
        Disabled.raised += 1


def swallowed(label: str) -> SpecError:
    """The error for an action that returned although `require` disabled it."""
    return SpecError(f"{label} caught the Disabled exception require() raised here (an except "
                     f"BaseException or a bare except), so a disabled step would be taken: "
                     f"let it through", Disabled.where)


CHOICE_OUTSIDE_ACTION = ("choose() or either() outside an action: a property, constraint or "
                         "condition has one value per state (write any(...) or all(...))")
"""What every engine's oracle says of a choice made outside an action."""


def enabled_in_action(name: str) -> TypeError:
    """What every engine says of `enabled(s.name)` called inside an action."""
    return TypeError(f"enabled(s.{name}) inside an action: ENABLED is a property's question "
                     f"(an action says what it needs with require)")


def require(condition) -> None:
    """Enable the running action only where `condition` holds (a guard)."""
    if not condition:
        caller = sys._getframe(1)
        while caller.f_back is not None and not spec_file(caller.f_code.co_filename):
            caller = caller.f_back                   # a reader's call: the spec's line above
        Disabled.where = f"{caller.f_code.co_filename}:{caller.f_lineno}"
        raise Disabled


class Oracle:
    """Decides `choose(...)`; each engine installs its own (explicit: replay a prefix)."""

    env: dict                          # the model's constants, for domains that read them

    def choose(self, values: list):
        raise NotImplementedError

    def values(self, domain) -> list:
        """The values `choose(domain)` ranges over (`exists` tests each)."""
        return ordered_values(domain, self.env)


class _NoOracle(Oracle):
    def choose(self, values):
        raise RuntimeError("choose() may only be called while an engine runs an action")

    values = choose


_oracle: contextvars.ContextVar[Oracle] = contextvars.ContextVar("oracle", default=_NoOracle())
"""The running engine's oracle, per context (a thread of its own starts with none)."""


def install_oracle(oracle: Oracle) -> Oracle:
    """Make `oracle` answer `choose`; returns the previous one."""
    previous = _oracle.get()
    _oracle.set(oracle)
    return previous


def choose(domain):
    """Nondeterministic choice of one value of `domain` (a domain, set or sequence).

    Every value is explored: the engine runs the action once per choice. Choosing from
    an empty collection disables the action, like TLA+'s `\\E x \\in {}`.
    """
    return _oracle.get().choose(domain)


DISJUNCTS = (True, False)


def either() -> bool:
    """A disjunction inside an action: `if either(): A  else: B` is TLA+'s `A \\/ B`.

    Both branches are explored, one successor per branch that stays enabled (a `require`
    false in a branch disables that branch only), so two branches reaching the same state
    count twice among the states generated, as TLC counts its disjuncts. More disjuncts
    chain: `if either(): A  elif either(): B  else: C`.
    """
    return choose(DISJUNCTS)


def exists(domain, pred) -> bool:
    """TLA+'s `\\E x \\in S : P(x)` as a conjunct of an action before its primed
    variables, where TLC makes one successor per witness: True once per value of `domain`
    where `pred` holds, each on a run of its own, and False (one run) where none does.

    `require(exists(S, lambda x: ...))` is the guard; the step does not get the witness
    (take it with `choose` where the step uses it). Where TLC evaluates the `\\E` as
    a formula, once (after every variable is primed, or inside IF or `~`), write
    `any(... for x in S)` instead: one successor.
    """
    witnesses = [v for v in _oracle.get().values(domain) if pred(v)]
    if not witnesses:
        return False
    choose(witnesses)
    return True


def enabled(action, **args) -> bool:
    """TLA+'s ENABLED, in a property: whether `action` (written `s.name`) has a step from
    the state `s` holds, with the arguments given (the others any)."""
    state = getattr(action, "__self__", None)
    ask = getattr(type(state), "__checker_enabled__", None)
    if ask is None:
        raise TypeError(f"enabled({action!r}): name an action of the state, as "
                        f"enabled(s.action, param=value)")
    return ask(state, action.__name__, args)


def ordered_values(domain, env) -> list:
    """The values `choose(domain)` ranges over, in a deterministic order."""
    if isinstance(domain, Domain):
        d = domain.resolve(env) if domain.lazy else domain
        try:
            return as_scalar(d, f"choose({d}): the domain").values   # a Set: its subsets
        except TypeError as e:
            raise TypeError(f"{e}; or choose from a collection") from None
    if isinstance(domain, SetValue):
        return [v for v in domain._domain.elem.values if v in domain]
    if isinstance(domain, type) and issubclass(domain, enum.Enum):
        return list(domain)
    if isinstance(domain, (set, frozenset)):
        return sorted(domain, key=repr)
    if isinstance(domain, dict):
        return list(domain)
    return list(domain)


# ---------------------------------------------------------------- decorators

class Kind(enum.StrEnum):
    """What a decorated method is, and what a result or a trace step is about. A StrEnum:
    each equals its name as model files, JSON and ITF traces write it."""

    ACTION = "action"
    FAULT = "fault"
    INVARIANT = "invariant"
    REACHABLE = "reachable"
    INITIALLY = "initially"
    EVENTUALLY = "eventually"
    LEADS_TO = "leads_to"
    EVENTUALLY_ALWAYS = "eventually_always"
    INFINITELY_OFTEN = "infinitely_often"
    CONSTRAINT = "constraint"
    TERMINAL = "terminal"
    STEP_INVARIANT = "step_invariant"
    ACTION_CONSTRAINT = "action_constraint"
    INITIAL = "initial"
    DEADLOCK = "deadlock"


@dataclasses.dataclass(frozen=True)
class Role:
    """What a decorated method is to the engine."""

    kind: Kind
    group: str | None = None  # action group the model file can switch on or off
    fair: str | None = None   # "weak" or "strong" fairness of an action (liveness)
    fair_when: Callable | None = None   # fairness only of its steps from states where this holds
    calls: str | None = None  # the actor an action calls (API server, Ray head): for diagrams


FAIRNESS = ("weak", "strong")


def _mark(kind: Kind, fn: Callable | None = None, *, group: str | None = None,
          fair: str | None = None, fair_when: Callable | None = None, calls: str | None = None):
    if fair is not None and fair not in FAIRNESS:
        raise ValueError(f"fair must be one of {FAIRNESS}, got {fair!r}")

    def wrap(f):
        taken = getattr(f, "__checker_role__", None)
        if isinstance(taken, Role):
            raise TypeError(f"{getattr(f, '__name__', f)} is already an @{taken.kind}: a method "
                            f"is one thing (@{kind} on top of @{taken.kind} would drop it)")
        f.__checker_role__ = Role(kind, group, fair, fair_when, calls)
        return f
    return wrap(fn) if fn is not None else wrap


def action(fn=None, *, group: str | None = None, fair: str | None = None,
           fair_when: Callable | None = None, calls: str | None = None):
    """A transition: `def step(s, p: Domain, ...)`; each parameter binding is one action.

    `fair="weak"`: each binding, if enabled continuously, is eventually taken;
    `fair="strong"`: if enabled infinitely often, it is taken infinitely often. As in
    TLA+, only steps that change the state count, both for enabled and for taken.
    `fair_when=pred` restricts fairness to the steps taken from states where `pred(s)`
    holds (TLA+ `WF(pred and A)`), e.g. a reconcile that is owed because the last one
    asked to be requeued. Fairness only matters to liveness properties; a model file may
    add or remove it. `calls="API server"` names the actor the step calls, so that
    counterexample diagrams draw it as a message from the action's class to that actor.
    """
    return _mark(Kind.ACTION, fn, group=group, fair=fair, fair_when=fair_when, calls=calls)


def fault(fn=None, *, group: str = "faults"):
    """An environment fault (crash, lost write, ...): an action labelled `fault` in traces."""
    return _mark(Kind.FAULT, fn, group=group)


def invariant(fn):
    """Safety: must hold in every reachable state."""
    return _mark(Kind.INVARIANT, fn)


def reachable(fn):
    """A witness must exist: some reachable state satisfies it (guards against vacuity)."""
    return _mark(Kind.REACHABLE, fn)


def eventually(fn):
    """Liveness: every fair behaviour reaches a state where it holds (TLA+ `<>P`)."""
    return _mark(Kind.EVENTUALLY, fn)


def leads_to(fn):
    """Liveness: `fn(s)` returns `(p, q)`; whenever p holds, q holds then or later (`p ~> q`)."""
    return _mark(Kind.LEADS_TO, fn)


def eventually_always(fn):
    """Liveness: every fair behaviour comes to a state from which it holds for ever
    (TLA+ `<>[]P`)."""
    return _mark(Kind.EVENTUALLY_ALWAYS, fn)


def infinitely_often(fn):
    """Liveness of steps (TLA+ `[]<><<A>>_v`): every fair behaviour takes infinitely many
    steps where `fn(s, t)` holds, `s` the state before and `t` after (`fn(s, t, step)`
    also reads the `Transition`). Write A and the change of v in it: `step.action ==
    "inc" and t.x != s.x`. Only steps that change the state are asked: a behaviour that
    ends stuttering takes none."""
    return _mark(Kind.INFINITELY_OFTEN, fn)


def initially(fn):
    """Holds in every initial state (TLA+'s `P` as a temporal formula with no `[]`: a
    state predicate TLC checks as a PROPERTY); later states are not asked."""
    return _mark(Kind.INITIALLY, fn)


def constraint(fn):
    """State constraint (TLC's CONSTRAINT): successors outside it are counted, not explored."""
    return _mark(Kind.CONSTRAINT, fn)


def step_invariant(fn):
    """Safety of every step (TLA+ `[][P]_vars`): `def p(s, t)` reads the state before
    (`s`) and after (`t`) a step; `def p(s, t, step)` also the `Transition` taken. It
    must hold on every step the search takes that changes the state (stuttering is
    allowed, as in `[][P]_vars`)."""
    return _mark(Kind.STEP_INVARIANT, fn)


def action_constraint(fn):
    """TLC's ACTION_CONSTRAINT, read like a `@step_invariant`: a step where it is false is
    counted among the states generated, as TLC counts it, but not taken."""
    return _mark(Kind.ACTION_CONSTRAINT, fn)


@dataclasses.dataclass(frozen=True)
class Transition:
    """The step a step property or action constraint is asked about: the action's name
    and its arguments by parameter name."""

    action: str
    args: dict


def terminal(fn):
    """States where it holds may have no successor without counting as a deadlock."""
    return _mark(Kind.TERMINAL, fn)


def initial(fn):
    """Sets up the initial state(s) from the defaults; `choose` here gives several."""
    return _mark(Kind.INITIAL, fn)


# ---------------------------------------------------------------- Spec

class SpecMeta(type):
    """Gives every spec class empty `__slots__`, so a typo like `s.fialed = 1` is an error."""

    def __new__(mcls, name, bases, namespace, **kw):
        namespace.setdefault("__slots__", ())
        return super().__new__(mcls, name, bases, namespace, **kw)


class Spec(metaclass=SpecMeta):
    """Base class of every spec. Subclass it; see the module docstring.

    It defines no attributes of its own, so every name is free for the spec's variables.
    """


def spec_members(cls) -> dict[str, object]:
    """Name -> attribute over the MRO, base classes first, overrides in place."""
    found: dict[str, object] = {}
    for klass in reversed(cls.__mro__):
        for name, value in vars(klass).items():
            found[name] = value
    return found
