"""checker: write a system's rules once as Python transition relations, then check them.

Public surface for spec writers; engines live in `checker.explicit.explorer` (explicit BFS, one
state at a time), `checker.bulk` (the same BFS a level at a time) and `checker.symbolic`.
"""
from .lang.domains import Bookkeeping, Const, Enum, GroupOn, Int, Map, Option, Set, Ghost
from .lang.sequences import Seq, append, head, tail, sub_seq
from .lang.values import FrozenMap
from .lang.dsl import (Spec, action, fault, invariant, reachable, initially, eventually, leads_to,
                  eventually_always, infinitely_often, constraint, terminal, initial, require,
                  choose, exists, Disabled, either, enabled, step_invariant, action_constraint,
                  Transition)
from .errors import CheckerError, SpecError, DomainError, ModelError, TraceError

__all__ = [
    "Bookkeeping", "Const", "Enum", "GroupOn", "Int", "Map", "Option", "Set", "Ghost", "Seq", "append", "head", "tail",
    "sub_seq", "FrozenMap",
    "Spec", "action", "fault", "invariant", "reachable", "initially", "eventually", "leads_to",
    "eventually_always", "infinitely_often", "constraint", "terminal", "initial",
    "step_invariant", "action_constraint",
    "require", "choose", "exists", "Disabled", "either", "enabled", "Transition",
    "CheckerError", "SpecError", "DomainError", "ModelError", "TraceError",
]
