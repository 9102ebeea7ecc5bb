"""Paths through a Python function run on symbolic state: the decision oracle.

Where Python needs a concrete value (`bool(x)`, `hash(x)`, `len(s)`, `choose(...)`), the
running function asks the explorer, which answers from a decision prefix. `explore` runs
the function once per feasible decision sequence (depth-first, by replay), asking the
solver whether each new alternative is consistent with the path so far.
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import sys
from typing import Any, Callable, Iterator

import z3

from ..lang.dsl import CHOICE_OUTSIDE_ACTION, Disabled, Oracle, install_oracle
from ..errors import SPEC_FAILURES, SpecError, spec_file
from ..watchdog import raise_if_passed
from .interrupt import answer

MAX_PATHS = 20_000          # paths through one function before it counts as an explosion
MAX_VALUES = 64             # values one symbolic term may take where Python needs one


class SymbolicError(SpecError):
    """Code the symbolic engines cannot interpret (or only by an explosion of paths)."""

    def __init__(self, message: str, where: str | None = None):
        super().__init__(message, where or spec_line())


def spec_line() -> str | None:
    """'file:line' of the innermost running frame of the spec's code: its line."""
    frame = sys._getframe(1)
    while frame is not None:
        if spec_file(frame.f_code.co_filename):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return None


class PathSolver:
    """A solver for the conjunctions a path asks about. Depth-first, each check shares
    most of its conditions, in order, with the one before: they stay asserted, a scope
    each, and only those after the common prefix are popped and pushed. (Passed as
    assumptions instead, every condition would be read again at every check, and the
    solver slows down as a reading goes on: on RayJob, 36 s of checks instead of 5.)"""

    def __init__(self, *facts: z3.BoolRef):
        self.solver = z3.Solver()
        self.solver.add(*facts)
        self.held: list[int] = []       # the ids of the conditions pushed, one scope each

    def check(self, *conditions: z3.BoolRef) -> z3.CheckSatResult:
        """Are `conditions` satisfiable together (with the facts)?"""
        ids = [c.ast.value for c in conditions]     # addresses: a held term is alive, and
                                                    # equal terms share one (hash-consing)
        common = 0
        for held, new in zip(self.held, ids):
            if held != new:
                break
            common += 1
        if len(self.held) > common:
            self.solver.pop(len(self.held) - common)
        for c in conditions[common:]:
            self.solver.push()
            self.solver.add(c)
        self.held = ids
        return answer(self.solver.check)

    def model(self) -> z3.ModelRef:
        return self.solver.model()


@dataclasses.dataclass
class _Decision:
    options: list[tuple[Any, z3.BoolRef, bool]]    # (value, condition, shown as a choice)
    taken: int = 0


@dataclasses.dataclass
class Run:
    """One run: the decisions' conditions, the `choose` values, what the run gave, and
    the failures met in the right operands of `and` / `or` on the way."""

    conditions: list[z3.BoolRef]
    choices: list
    outcome: Any = None
    enabled: bool = True
    error: BaseException | None = None
    failures: list[tuple[z3.BoolRef, BaseException]] = dataclasses.field(default_factory=list)

    @property
    def condition(self) -> z3.BoolRef:
        return z3.And(self.conditions)


class Explorer(Oracle):
    """Answers decisions on symbolic values and `choose`, path by path."""

    def __init__(self, solver: PathSolver, env: dict, context: list | None = None,
                 scratch=None, acting: bool = True):
        self.solver, self.env = solver, env          # env: the constants `choose` may read
        self.acting = acting                         # an action runs: it alone may choose
        self.context = context or []                 # what the caller's path already assumes
        self.scratch = scratch                       # the state the run edits (`merge`)
        self.trail: list[_Decision] = []
        self.depth = 0
        self.conditions: list[z3.BoolRef] = []
        self.guards: list[z3.BoolRef] = []
        self.failures: list[tuple[z3.BoolRef, BaseException]] = []
        self.choices: list = []

    # ------------------------------------------------------------ decisions

    def _decide(self, options: Callable[[], list[tuple[Any, z3.BoolRef, bool]]]):
        """The value of the next decision: replayed from the trail, or the first option."""
        if self.depth == len(self.trail):
            found = options()
            if not found:
                raise _Infeasible
            self.trail.append(_Decision(found))
        decision = self.trail[self.depth]
        self.depth += 1
        value, condition, shown = decision.options[decision.taken]
        if not z3.is_true(condition):
            self.conditions.append(z3.Implies(z3.And(self.guards), condition) if self.guards
                                   else condition)
        if shown:
            self.choices.append(value)
        return value

    def feasible(self, condition: z3.BoolRef) -> bool:
        return self.solver.check(*self.context, *self.conditions, *self.guards,
                                 condition) != z3.unsat

    def assume(self, condition: z3.BoolRef):
        """Go on only where `condition` holds (a merged helper's paths are enabled)."""
        if z3.is_true(condition):
            return
        if not self.feasible(condition):
            raise _Infeasible
        self.conditions.append(z3.Implies(z3.And(self.guards), condition) if self.guards
                               else condition)

    def failed(self, condition: z3.BoolRef, e: BaseException):
        """A nested run raised where `condition` holds: a failure of this path there."""
        self.failures.append((z3.And(*self.conditions, *self.guards, condition), e))

    def nested(self) -> "Explorer":
        """An explorer for a helper called here, under this path's condition."""
        return Explorer(self.solver, self.env, self.context + self.conditions + self.guards,
                        self.scratch)

    def guarded(self, guard: z3.BoolRef, thunk: Callable[[], Any]) -> Any:
        """`thunk()` evaluated only for the states where `guard` holds (the right operand
        of `and`): its decisions bind only there, what it writes to the scratch state is
        kept only there, and if it raises (or disables the action) there, that is recorded
        and the path goes on where `guard` is false, in the state from before."""
        if not self.feasible(guard):
            return DEAD
        before = self.scratch.snapshot() if self.scratch is not None else None
        self.guards.append(guard)
        try:
            result = thunk()
        except (_Infeasible, SymbolicError):
            raise
        except (*SPEC_FAILURES, Disabled) as e:
            raise_if_passed()
            context = z3.And(*self.conditions, *self.guards)
            if not isinstance(e, Disabled):
                self.failures.append((context, e))
        else:
            if before is not None:
                self.scratch.written_only_where(guard, before)
            return result
        finally:
            self.guards.pop()
        if before is not None:
            self.scratch.restore(before)
        self.conditions.append(z3.Not(guard))
        if not self.feasible(z3.BoolVal(True)):
            raise _Infeasible
        return DEAD

    def branch(self, condition: z3.BoolRef) -> bool:
        """Python needs the truth of `condition`: each feasible side is one path."""
        def options():
            c = z3.simplify(condition)
            if z3.is_true(c) or z3.is_false(c):
                return [(z3.is_true(c), z3.BoolVal(True), False)]
            return [(v, cv, False) for v, cv in ((True, c), (False, z3.Not(c)))
                    if self.feasible(cv)]
        return self._decide(options)

    def value(self, term: z3.ExprRef) -> Any:
        """Python needs one value of `term` (an index, a hash, a length): each is a path."""
        def options():
            found, blocked = [], self.context + self.conditions + self.guards
            while self.solver.check(*blocked) == z3.sat:
                v = self.solver.model().eval(term, model_completion=True)
                if len(found) == MAX_VALUES:
                    raise SymbolicError(f"{term} takes more than {MAX_VALUES} values here, and "
                                        f"Python needs one: each would be a path of its own")
                found.append(v)
                blocked.append(term != v)
            return [(_python(v), term == v, False) for v in found]
        return self._decide(options)

    def pick(self, options: list[tuple[Any, z3.BoolRef]]) -> Any:
        """`choose` among (value, condition) pairs: each feasible one is a path."""
        return self._decide(lambda: [(v, c, True) for v, c in options
                                     if z3.is_true(c) or self.feasible(c)])

    def choose(self, domain):
        from .containers import choices_of
        if not self.acting:                          # as the interpreter's oracle says it
            raise TypeError(CHOICE_OUTSIDE_ACTION)
        options = choices_of(domain, self.env)
        if not options:
            raise Disabled
        return self.pick(options)

    def values(self, domain):
        """The members of `domain` on this path (`exists` tests each): a member of a
        symbolic set is one where the path takes its condition."""
        from .containers import choices_of
        return [v for v, c in choices_of(domain, self.env) if z3.is_true(c) or self.branch(c)]

    # ------------------------------------------------------------ running

    def explore(self, run: Callable[[], Any], what: str, where: str | None = None) -> Iterator[Run]:
        """Every feasible, enabled path of `run()`; a spec's exception ends its path as an
        error (a proof obligation: it matters only if some reachable state takes that path)."""
        self.trail = []
        previous = install_oracle(self)
        _push(self)
        try:
            for count in range(MAX_PATHS + 1):
                if count == MAX_PATHS:
                    raise SymbolicError(f"{what} has more than {MAX_PATHS} paths: a loop over a "
                                        f"symbolic set or a lookup keyed by a symbolic value "
                                        f"multiplies them", where)
                self.depth, self.conditions, self.choices, self.failures = 0, [], [], []
                path = Run(self.conditions, self.choices, failures=self.failures)
                try:
                    path.outcome = run()
                except (_Infeasible, Disabled):
                    path.enabled = False
                except SymbolicError:
                    raise
                except SPEC_FAILURES as e:              # a sys.exit in an action too
                    raise_if_passed()                   # the time limit, in a library's clothes
                    path.error = e
                if path.enabled or path.failures:
                    yield path
                del self.trail[self.depth:]
                while self.trail and self.trail[-1].taken + 1 == len(self.trail[-1].options):
                    self.trail.pop()
                if not self.trail:
                    return
                self.trail[-1].taken += 1
        finally:
            _pop()
            install_oracle(previous)


class _Infeasible(Exception):
    """No alternative of a decision is consistent with the path (a dead branch)."""


_active: contextvars.ContextVar[tuple] = contextvars.ContextVar("explorers", default=())
"""The explorers running, innermost last (and `undecided` markers), per context."""
DEAD = object()         # what `guarded` returns when the guarded world raised or is empty


def _push(running) -> None:
    _active.set((*_active.get(), running))


def _pop() -> None:
    _active.set(_active.get()[:-1])


def explorer() -> Explorer:
    active = _active.get()
    if not active:
        raise SymbolicError("a symbolic value was used outside a symbolic run")
    return active[-1]


def active_explorer() -> Explorer | None:
    active = _active.get()
    return active[-1] if active else None


@contextlib.contextmanager
def undecided(error: type[Exception]):
    """Within, a value that needs a decision raises `error` rather than forking the path
    (while paths are being merged, a fork would split the caller's path instead)."""
    _push(_Undecided(error))
    try:
        yield
    finally:
        _pop()


class _Undecided:
    def __init__(self, error: type[Exception]):
        self.error = error

    def __getattr__(self, name):
        raise self.error(f"{name} asked while values are merged")


def _python(v: z3.ExprRef):
    if z3.is_int_value(v):
        return v.as_long()
    if z3.is_true(v) or z3.is_false(v):
        return z3.is_true(v)
    raise SymbolicError(f"cannot turn {v} into a Python value")
