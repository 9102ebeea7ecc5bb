"""The results file: every matrix cell's verdicts, keyed by the hash of its inputs.

The gate writes it (`--results`); `check-model report` renders the report from it alone.
Each matrix is stored with what a report needs of it (axes, each property's doc and
hypothesis, `Matrix.describe`) and its cells: settings, inputs, status, states, CPU, and
per property the verdict, the expected verdict, a trace's steps and path, a proof's
certificate (each relative to the directory the traces went to), or why it is unknown. A cell whose inputs changed since is *stale*: its
entry is dropped when the file is written again, never shown as current.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import CheckerError
from ..files import read_text, write_text
from ..gate import ModelOutcome, key
from ..matrix import Cell, Matrix
from ..results import Verdict

VERSION = 1


def load_results(path: Path) -> dict:
    """The results file at `path`, or an empty one if there is none yet."""
    if not path.exists():
        return {"version": VERSION, "matrices": {}}
    try:
        results = json.loads(read_text(path, "results file"))
    except json.JSONDecodeError as e:
        raise CheckerError(f"results file is not valid JSON: {e.msg}", f"{path}:{e.lineno}") from None
    if not isinstance(results, dict) or results.get("version") != VERSION or \
            not isinstance(results.get("matrices"), dict):
        raise CheckerError(f"not a results file of version {VERSION} (write one with "
                           f"`check-model report --refresh`)", str(path))
    return results


def cell_entry(o: ModelOutcome, cell: Cell, trace_dir: Path) -> dict:
    """One cell's outcome, as the results file stores it (its files relative to the
    `trace_dir` they were written below)."""
    entry = {"settings": cell.settings, "slow": cell.slow, "inputs": o.inputs,
             "status": o.status, "error": o.error, "cpu": round(o.cpu_seconds, 1)}
    if o.result is None:
        return entry
    r = o.result
    entry |= {"engine": r.engine, "states": r.stats.distinct_states, "complete": r.stats.complete,
              "properties": {p.name: _verdict(p, trace_dir) for p in r.properties}}
    return entry


def _verdict(p, trace_dir: Path) -> dict:
    """A property's verdict and expected verdict, and what there is of its trace's steps
    and file, its certificate, why it is unknown."""
    found = {"verdict": p.verdict.value, "expected": (p.expected or Verdict.HOLDS).value,
             "steps": len(p.trace.steps) - 1 if p.trace is not None else None,
             "trace": _below(p.trace_path, trace_dir),
             "certificate": _below(p.certificate_path, trace_dir),
             "reason": p.reason if p.undecided else None}
    return {k: v for k, v in found.items() if v is not None}


def _below(path: str | None, trace_dir: Path) -> str | None:
    return Path(path).resolve().relative_to(trace_dir.resolve()).as_posix() if path else None


def merged(results: dict, matrices: list[Matrix], outcomes: list[ModelOutcome],
           trace_dir: Path) -> dict:
    """`results` with each matrix's description renewed, the cells of `outcomes` in, and
    every other cell kept only while its inputs are unchanged."""
    fresh = {(key(o.path), o.cell.name): cell_entry(o, o.cell, trace_dir) for o in outcomes if o.cell}
    out = dict(results, matrices=dict(results["matrices"]))
    for m in matrices:
        old = results["matrices"].get(key(m.path), {}).get("cells", {})
        cells = {}
        for cell in m.cells():
            entry = fresh.get((key(m.path), cell.name))
            if entry is None and cell.name in old and old[cell.name].get("inputs") == cell.inputs():
                entry = old[cell.name]
            if entry is not None:
                cells[cell.name] = entry
        out["matrices"][key(m.path)] = m.describe() | {"cells": cells}
    out["matrices"] = dict(sorted(out["matrices"].items()))
    return out


def stale(results: dict, m: Matrix) -> list[Cell]:
    """The cells of `m` the results file has no current entry for."""
    old = results["matrices"].get(key(m.path), {}).get("cells", {})
    return [c for c in m.cells() if old.get(c.name, {}).get("inputs") != c.inputs()]


def results_text(results: dict) -> str:
    return json.dumps(results, indent=1, sort_keys=False) + "\n"


def save_results(path: Path, results: dict) -> None:
    write_text(path, results_text(results))

