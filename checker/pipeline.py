"""Checking one model: bind its spec, run its engine, apply its `[expect]`, write its
traces. The one path from a model to verdicts that `check-model check`, the gate and the
mutant catalog share, so they cannot drift apart.
"""
from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from typing import Callable

from .actors import action_info
from .engines import run_engine
from .errors import CheckerError
from .files import file_name
from .output.itf import write_itf
from .lang.bound import BoundSpec
from .model import Model
from .results import RunResult, Stats


@dataclasses.dataclass
class Checked:
    model: Model
    machine: BoundSpec          # a Machine where the engine ran on concrete states
    result: RunResult


def check(model: Model, trace_dir: Path | None = None,
                progress: Callable[[Stats], None] | None = None) -> Checked:
    """Check `model` as its file says; each property gets its expected verdict, and each
    trace and proof certificate is written under `trace_dir`/<model name>/ when a
    directory is given."""
    machine = model.bound()
    try:
        result = run_engine(model.engine, machine, model.options, str(model.path), progress)
    except CheckerError as e:
        e.where = e.where or str(model.path)     # an engine refusing the model: of its file
        raise
    for p in result.properties:
        p.expected = model.expect.get(p.name)
        if p.trace is not None and trace_dir is not None:
            paths = [write_trace(trace_dir / model.name / file_name(p.name, suffix), machine,
                                 trace, p, model)
                     for trace, suffix in zip([p.trace, *p.more_traces], trace_suffixes())]
            p.trace_path, p.more_trace_paths = str(paths[0]), [str(path) for path in paths[1:]]
        certificate = getattr(p, "certificate", None)      # a proof (pdr's invariant)
        if certificate is not None and trace_dir is not None:
            p.certificate_path = str(certificate.write(trace_dir, model.name))
    return Checked(model, machine, result)


def trace_suffixes():
    """`p.itf.json` for a property's first trace, then `p.2.itf.json`, `p.3.itf.json`, ..."""
    yield ".itf.json"
    yield from (f".{k}.itf.json" for k in itertools.count(2))


def write_trace(path: Path, machine: BoundSpec, trace, p, model: Model) -> Path:
    """One trace of property `p` as ITF."""
    steps = trace.steps + ([trace.closing] if trace.closing else [])
    return write_itf(path, machine, trace, property=p.name, kind=p.kind,
                     verdict=p.verdict.value, source=str(model.path),
                     actions=action_info(machine, {s.action for s in steps if s.action}))
