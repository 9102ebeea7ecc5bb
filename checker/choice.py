"""The default engine, `explicit`: the bulk engine where it pays, else the interpreter.

The choice is a static rule, the same on every machine and made before numpy or z3 is
imported: the bulk engine must accept everything the run asks for (`checker/engines.py`),
and a state must be narrow enough to pack into a few words yet the domains' product large
enough for reading the spec as a relation to pay back (`checker/bulk/fit.py`).
"""
from __future__ import annotations

from .bulk import fit
from .engines import ENGINES, Progress, asked
from .explicit.explorer import ExplicitEngine
from .explicit.machine import Machine
from .lang.bound import BoundSpec
from .options import CheckOptions
from .results import RunResult


def why_not_bulk(spec: BoundSpec, options: CheckOptions) -> str | None:
    """None if the default engine runs `spec` in bulk, else why the interpreter."""
    refused = ENGINES["bulk"].refuses(asked(spec, options))
    if refused:
        return f"the bulk engine does not take {refused[0].value}"
    return fit.too_small_or_wide([v.domain for v in spec.variables])


class Automatic:
    """Whichever of the two explicit-state engines `why_not_bulk` picks; the result names it."""

    name = "explicit"

    def __init__(self, machine: Machine, options: CheckOptions, progress: Progress | None = None):
        self.machine, self.options, self.progress = machine, options, progress
        self.why_not = why_not_bulk(machine, options)

    def check(self, model_name: str = "") -> RunResult:
        m, options, progress = self.machine, self.options, self.progress
        if self.why_not is None:
            from .bulk.engine import BulkEngine, Unsupported      # numpy, only when it runs
            try:
                engine = BulkEngine(m, options, progress)
            except Unsupported as e:
                self.why_not = e.message
            else:
                return engine.check(model_name)
        return ExplicitEngine(m, options, progress,
                              method=f"interpreter: {self.why_not}").check(model_name)
