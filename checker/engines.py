"""Engines by name: what `[check] engine = ...` and `--engine` choose from.

Every engine takes a Machine and CheckOptions and returns a RunResult, so the CLI,
the model files and a CI gate treat them alike.
"""
from __future__ import annotations

from typing import Callable

from .explorer import CheckOptions, ExplicitEngine
from .machine import Machine
from .results import RunResult, Stats

Progress = Callable[[Stats | str], None]      # statistics, or a message


def _symbolic(module: str, cls: str) -> Callable[..., object]:
    """A symbolic engine, imported (with z3) only when it is used."""
    def make(machine, options, progress=None):
        import importlib
        return getattr(importlib.import_module(f"checker.symbolic.{module}"), cls)(
            machine, options, progress)
    return make


ENGINES: dict[str, Callable[..., object]] = {
    "explicit": ExplicitEngine,
    "bmc": _symbolic("bmc", "BMC"),             # bounded model checking: counterexamples
    "kind": _symbolic("kind", "KInduction"),    # k-induction: proofs
    "pdr": _symbolic("pdr", "PDR"),             # Z3 Spacer: proofs with an invariant
}


def run_engine(name: str, machine: Machine, options: CheckOptions, model_name: str = "",
               progress: Progress | None = None) -> RunResult:
    """Check `machine` with the engine called `name`."""
    return ENGINES[name](machine, options, progress).check(model_name)
