"""The engine contract and the registry: what `[check] engine = ...` and `--engine`
choose from, and what each engine accepts (docs/engines.md).

Every engine takes a bound spec and CheckOptions and returns a RunResult, so the CLI, the
model files and a CI gate treat them alike. What a run may ask beyond that, each engine
declares in its registry line as a set of `Feature`s: the model loader and the CLI refuse
what the chosen engine does not declare, before anything runs. The registry names each
engine's class by module, so that choosing and validating import neither numpy nor z3.
"""
from __future__ import annotations

import dataclasses
import enum
import importlib
from typing import Callable, ClassVar, Protocol

from .errors import CheckerError
from .lang.bound import LIVENESS_KINDS
from .lang.dsl import Kind
from .options import CheckOptions, Store
from .results import RunResult, Stats
from .watchdog import watchdog

Progress = Callable[[Stats | str], None]      # statistics, or a message


class Feature(enum.Enum):
    """What a run may ask of an engine beyond safety properties over concrete constants."""

    SYMBOLIC_CONSTANTS = "symbolic constants"
    LIVENESS = "liveness properties"                # undeclared: left unknown, never refused
    STEP_PROPERTIES = "step properties and action constraints"
    SYMMETRY = "symmetry"                           # declared where sound to ignore, too
    TRACES = "more than one trace per property"
    STATE_LIMIT = "a state limit"
    STORE = "a choice of visited-state store"
    WORKERS = "more than one worker"
    RAY = "Ray workers"
    WALKS = "walks and seeds"
    LEMMAS = "lemmas"


class Engine(Protocol):
    """What the registry's classes are: built for one run, then checked once."""

    name: ClassVar[str]             # its registry name, reported in RunResult.engine

    def __init__(self, spec, options: CheckOptions, progress: Progress | None = None): ...

    def check(self, model_name: str = "") -> RunResult: ...


@dataclasses.dataclass(frozen=True)
class Registered:
    """One engine of the registry: where its class is and what it accepts."""

    cls: str                        # "module:Class", imported only when the engine runs
    accepts: frozenset[Feature]
    concrete: bool                  # runs the spec on concrete states: given a Machine
                                    # (scratch, codecs, oracle), else the bound spec alone
    counts_states: bool             # an explicit-state search: its states are the run's size
    summary: str

    def load(self) -> type[Engine]:
        module, _, name = self.cls.partition(":")
        return getattr(importlib.import_module(module), name)

    def refuses(self, features) -> list[Feature]:
        return [f for f in features if f not in self.accepts]


F = Feature
_SEARCH = {F.STEP_PROPERTIES, F.LIVENESS, F.SYMMETRY, F.TRACES, F.STATE_LIMIT, F.STORE,
           F.WORKERS, F.RAY}
_PROOF = {F.SYMBOLIC_CONSTANTS, F.STEP_PROPERTIES, F.SYMMETRY}
ENGINES: dict[str, Registered] = {
    "explicit": Registered("checker.choice:Automatic", frozenset(_SEARCH), True, True,
                           "breadth-first: the bulk engine where it pays, else the interpreter"),
    "bulk": Registered("checker.bulk.engine:BulkEngine", frozenset({F.WORKERS}), True, True,
                       "breadth-first, a level at a time as numpy arrays"),
    "interpreter": Registered("checker.explicit.explorer:ExplicitEngine", frozenset(_SEARCH),
                              True, True, "breadth-first, one state at a time"),
    "simulate": Registered("checker.explicit.simulate:Simulator",
                           frozenset({F.STEP_PROPERTIES, F.SYMMETRY, F.TRACES, F.WALKS}), True,
                           False, "random walks: violations, never a proof"),
    "bmc": Registered("checker.symbolic.bmc:BMC", frozenset(_PROOF), False, False,
                      "bounded model checking: counterexamples"),
    "kind": Registered("checker.symbolic.kind:KInduction", frozenset(_PROOF), False, False,
                       "k-induction: proofs"),
    "pdr": Registered("checker.symbolic.pdr:PDR", frozenset({*_PROOF, F.LEMMAS}), False, False,
                      "Z3 Spacer: proofs with an invariant, certified"),
}


# The options of CheckOptions that ask for a feature, and when each does (from its value)
OPTIONS: dict[str, tuple[Feature, Callable[[object], bool]]] = {
    "symmetry": (F.SYMMETRY, bool),
    "traces_per_property": (F.TRACES, lambda k: k > 1),
    "max_states": (F.STATE_LIMIT, lambda n: n is not None),
    "store": (F.STORE, lambda mode: Store(mode) is not Store.AUTO),
    "workers": (F.WORKERS, lambda n: n > 1),
    "ray": (F.RAY, lambda address: address is not None),
    "walks": (F.WALKS, lambda n: n != CheckOptions.walks),
    "seed": (F.WALKS, lambda n: n != CheckOptions.seed),
    "lemmas": (F.LEMMAS, lambda patterns: patterns is not None),
}


def asked(spec, options: CheckOptions) -> dict[Feature, str]:
    """The features a run of `spec` (a BoundSpec) with `options` asks for, each with what
    asks for it first: an option of CheckOptions, a constant, or a property."""
    found: dict[Feature, str] = {}
    for name in spec.symbolic:
        found.setdefault(F.SYMBOLIC_CONSTANTS, name)
    for p in spec.properties:
        if options.properties is None or p.name in options.properties:
            if p.kind in LIVENESS_KINDS:
                found.setdefault(F.LIVENESS, p.name)
            elif p.kind == Kind.STEP_INVARIANT:
                found.setdefault(F.STEP_PROPERTIES, p.name)
    if spec.action_constraints:
        found.setdefault(F.STEP_PROPERTIES, "action constraint")
    for option, (feature, asks) in OPTIONS.items():
        if asks(getattr(options, option)):
            found.setdefault(feature, option)
    return found


def refused(name: str, spec, options: CheckOptions) -> tuple[Feature, str] | None:
    """The first feature the run asks for that engine `name` does not accept, and what
    asks for it; liveness is never refused (an engine that does not decide it leaves it
    unknown, saying so)."""
    engine = ENGINES[name]
    return next(((f, why) for f, why in asked(spec, options).items()
                 if f not in engine.accepts and f is not F.LIVENESS), None)


def refusal(name: str, feature: Feature, asker: str) -> str:
    """One line: what engine `name` does not take, what asked for it, and who does."""
    return f"the {name} engine does not take {feature.value} ({asker}); engines that do: " \
           f"{', '.join(n for n, e in ENGINES.items() if feature in e.accepts)}"


def run_engine(name: str, spec, options: CheckOptions, model_name: str = "",
               progress: Progress | None = None) -> RunResult:
    """Check `spec` (a Machine for an engine that runs on concrete states, else a
    BoundSpec) with the engine called `name`."""
    found = refused(name, spec, options)
    if found:
        raise CheckerError(refusal(name, *found))
    with watchdog(options.max_seconds):
        return ENGINES[name].load()(spec, options, progress).check(model_name)
