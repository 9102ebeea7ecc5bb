"""Engines by name: what `[check] engine = ...` and `--engine` choose from.

Every engine takes a Machine and CheckOptions and returns a RunResult, so the CLI,
the model files and a CI gate treat them alike.
"""
from __future__ import annotations

from typing import Callable

from .bulk.fit import AUTO_WORDS, words_at_least
from .explicit.explorer import ExplicitEngine
from .errors import CheckerError
from .options import CheckOptions
from .explicit.machine import Machine
from .explicit.simulate import Simulator
from .results import RunResult, Stats
from .watchdog import watchdog

Progress = Callable[[Stats | str], None]      # statistics, or a message


def _lazy(module: str, cls: str) -> Callable[..., object]:
    """An engine imported (with z3 or numpy) only when it is used."""
    def make(machine, options, progress=None):
        import importlib
        return getattr(importlib.import_module(module), cls)(machine, options, progress)
    return make


def _explicit(machine, options, progress=None):
    """The bulk engine where it pays (small states, a relation read in two seconds), else
    the interpreter; the same search either way."""
    words = words_at_least([v.domain for v in machine.variables])
    if words > AUTO_WORDS:                                # told without importing numpy
        return ExplicitEngine(machine, options, progress,
                              method=f"interpreter: a state packs into at least {words} words")
    from .bulk.engine import BulkEngine, Unsupported      # numpy, only when it runs
    try:
        return BulkEngine(machine, options, progress, automatic=True)
    except Unsupported as e:
        return ExplicitEngine(machine, options, progress, method=f"interpreter: {e.message}")


EXPLICIT = ("explicit", "bulk", "interpreter")     # explicit-state: they count states
CONCRETE = (*EXPLICIT, "simulate")                  # they run on concrete states

ENGINES: dict[str, Callable[..., object]] = {
    "explicit": _explicit,                      # breadth-first: the bulk engine or the interpreter
    "bulk": _lazy("checker.bulk.engine", "BulkEngine"),  # ... forced: levels as numpy arrays
    "interpreter": ExplicitEngine,              # ... forced: one state at a time
    "simulate": Simulator,                      # random walks: violations, never a proof
    "bmc": _lazy("checker.symbolic.bmc", "BMC"),             # bounded model checking: counterexamples
    "kind": _lazy("checker.symbolic.kind", "KInduction"),    # k-induction: proofs
    "pdr": _lazy("checker.symbolic.pdr", "PDR"),             # Z3 Spacer: proofs with an invariant
}


def run_engine(name: str, machine: Machine, options: CheckOptions, model_name: str = "",
               progress: Progress | None = None) -> RunResult:
    """Check `machine` with the engine called `name`."""
    if options.traces_per_property > 1 and name not in CONCRETE:
        raise CheckerError(f"the {name} engine gives one trace per property: more than one "
                           f"(traces_per_property = {options.traces_per_property}) needs the "
                           f"explicit engine or a simulation")
    with watchdog(options.max_seconds):
        return ENGINES[name](machine, options, progress).check(model_name)
