"""Engines by name: what `[check] engine = ...` and `--engine` choose from.

Every engine takes a Machine and CheckOptions and returns a RunResult, so the CLI,
the model files and a CI gate treat them alike.
"""
from __future__ import annotations

from typing import Callable

from .explorer import CheckOptions, ExplicitEngine
from .machine import Machine
from .results import RunResult, Stats

Progress = Callable[[Stats], None]

ENGINES: dict[str, Callable[..., object]] = {
    "explicit": ExplicitEngine,
}


def run_engine(name: str, machine: Machine, options: CheckOptions, model_name: str = "",
               progress: Progress | None = None) -> RunResult:
    """Check `machine` with the engine called `name`."""
    return ENGINES[name](machine, options, progress).check(model_name)
