"""The CI gate: re-check models, compare verdicts with `[expect]` and with a baseline.

A model *moves* when a verdict differs from its expectation, when an action that fired in
the baseline never fires (dead spec code), or when a `@reachable` witness found in the
baseline is gone (a vacuous spec). Distinct-state counts are compared with the baseline
and reported, never failed, so a reviewer sees the state space move.
"""
from __future__ import annotations

import dataclasses
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from .actors import action_info
from .lang.dsl import Kind
from .errors import CheckerError
from .files import read_text, write_text
from .matrix import Cell, is_matrix, load_matrix
from .model import Model, load_model
from . import pipeline
from .results import RunResult, Verdict
from .output.summary import counted, listed, outcome

BASELINE = "gate-baseline.json"


@dataclasses.dataclass
class ModelOutcome:
    path: Path
    model: Model | None = None
    result: RunResult | None = None
    error: str | None = None
    moved: list[str] = dataclasses.field(default_factory=list)     # failures, one line each
    notes: list[str] = dataclasses.field(default_factory=list)     # reported, not failed
    error_where: str | None = None      # file:line the error names (the spec line, often)
    actions: dict[str, dict] = dataclasses.field(default_factory=dict)
    """Action name -> its actor, calls, kind, where and doc (`checker.actors.action_info`),
    for diagrams and code flows."""
    cell: Cell | None = None            # the matrix cell checked (`path` is its matrix file)
    inputs: str | None = None           # a cell's input hash (`Cell.inputs`)
    cpu_seconds: float = 0.0            # loading and checking it, its worker processes too

    @property
    def name(self) -> str:
        """How the gate names it: the model file (`key`), and a cell's name after a #."""
        return f"{key(self.path)}#{self.cell.name}" if self.cell else key(self.path)

    @property
    def status(self) -> str:
        if self.error:
            return "error"
        if self.moved:
            return "moved"
        if self.result is not None and any(p.undecided for p in self.result.properties):
            return "unknown"
        return "ok"


SLOW_FOLDER = "slow"
"""Models in a folder of this name below a directory the gate searches are out of it."""


def discover(paths: list[Path], include_slow: bool = False) -> tuple[list[Path], list[Path]]:
    """Model files named, or found below the directories named, in a stable order; and
    the `slow/` folders left out (unless `include_slow`: a slow model named is checked)."""
    found, skipped = [], set()
    for p in paths:
        if not p.is_dir():
            found.append(p)
            continue
        for x in sorted(x for x in p.rglob("*.toml") if x.name != "mutants.toml"):
            folders = x.relative_to(p).parts[:-1]
            if SLOW_FOLDER in folders and not include_slow:
                skipped.add(p.joinpath(*folders[:folders.index(SLOW_FOLDER) + 1]))
            else:
                found.append(x)
    return found, sorted(skipped)


def expand(paths: list[Path], include_slow: bool = False) -> tuple[list[Path | Cell], list[str]]:
    """Each matrix file among `paths` replaced by its cells; and the slow cells left out
    (unless `include_slow`), by name."""
    found, skipped = [], []
    for path in paths:
        if not is_matrix(path):
            found.append(path)
            continue
        matrix = load_matrix(path)
        matrix.checked_machine()
        for cell in matrix.cells():
            if cell.slow and not include_slow:
                skipped.append(f"{key(path)}#{cell.name}")
            else:
                found.append(cell)
    return found, skipped


def check_model(target: Path | Cell, baseline: dict, trace_dir: Path | None = None) -> ModelOutcome:
    """Run one model (or matrix cell) and compare it with its expectations and its
    baseline entry."""
    cell = target if isinstance(target, Cell) else None
    out = ModelOutcome(cell.matrix.path if cell else target, cell=cell)
    started = _cpu()
    try:
        out.model = cell.model() if cell else load_model(target)
        if cell:
            out.inputs = cell.inputs(out.model)
        checked = pipeline.check(out.model, trace_dir)
    except CheckerError as e:
        out.error, out.error_where = str(e), e.where
        return out
    finally:
        out.cpu_seconds = _cpu() - started
    result = out.result = checked.result
    if result.interrupted:              # Ctrl-C stops the whole gate, not just this model
        raise KeyboardInterrupt
    out.actions = action_info(checked.machine, {b.name for b in checked.machine.all_bindings})
    for p in result.properties:
        if p.verdict is not Verdict.UNKNOWN and not p.as_expected:
            wanted = (p.expected or Verdict.HOLDS).value
            how = f" ({len(p.trace.steps) - 1}-step trace {p.trace_path or ''})".rstrip() \
                if p.trace is not None else ""
            out.moved.append(f"{p.name}: expected {wanted}, got {p.verdict.value}{how}")
    old = baseline.get(out.name)
    if old:
        fired = set(result.coverage.by_action) - set(result.coverage.never_fired)
        for action in sorted(set(old.get("fired", [])) & set(result.coverage.by_action) - fired):
            out.moved.append(f"action {action} fired in the baseline and never fires now")
        witnesses = {p.name for p in result.properties
                     if p.kind == Kind.REACHABLE and p.verdict is Verdict.HOLDS}
        for name in sorted(set(old.get("witnesses", [])) - witnesses):
            if not any(m.startswith(f"{name}:") for m in out.moved):
                out.moved.append(f"witness {name} was found in the baseline and is gone now")
        before, now = old.get("distinct_states"), result.stats.distinct_states
        if before is not None and before != now and result.stats.complete:
            out.notes.append(f"distinct states {before:,} → {now:,}")
    return out


def _cpu() -> float:
    """CPU seconds of this process and of its ended children (the search's workers)."""
    return sum(r.ru_utime + r.ru_stime for r in
               (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))


def key(path: Path) -> str:
    """How a model is named in the baseline: its path relative to the working directory."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def baseline_entry(outcome: ModelOutcome) -> dict:
    r = outcome.result
    return {
        "distinct_states": r.stats.distinct_states,
        "fired": sorted(set(r.coverage.by_action) - set(r.coverage.never_fired)),
        "witnesses": sorted(p.name for p in r.properties
                            if p.kind == Kind.REACHABLE and p.verdict is Verdict.HOLDS),
    }


def load_baseline(path: Path) -> dict:
    if not os.path.exists(path):            # never an OSError (a name too long): no baseline
        return {}
    try:
        baseline = json.loads(read_text(path, "baseline"))
    except json.JSONDecodeError as e:
        raise CheckerError(f"baseline is not valid JSON: {e.msg}", f"{path}:{e.lineno}") from None
    problem = baseline_problem(baseline)
    if problem:
        raise CheckerError(f"not a gate baseline: {problem}", str(path))
    return baseline


def baseline_problem(baseline) -> str | None:
    """What keeps `baseline` from being what `save_baseline` writes, if anything."""
    if not isinstance(baseline, dict):
        return f"expected an object of models, got {_json_type(baseline)}"
    for model, entry in baseline.items():
        if not isinstance(entry, dict):
            return (f"model {model!r}: expected an object of distinct_states, fired and "
                    f"witnesses, got {_json_type(entry)}")
        unknown = set(entry) - {"distinct_states", "fired", "witnesses"}
        if unknown:
            return f"model {model!r}: unknown field {sorted(unknown)[0]!r}"
        states = entry.get("distinct_states")
        if states is not None and (type(states) is not int or states < 0):
            return f"model {model!r}: distinct_states must be a count, got {json.dumps(states)}"
        for field in ("fired", "witnesses"):
            names = entry.get(field, [])
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                return f"model {model!r}: {field} must be a list of names, got {json.dumps(names)}"
    return None


def _json_type(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}[type(value)]


def save_baseline(path: Path, baseline: dict, outcomes: list[ModelOutcome]) -> None:
    """Record every completed explicit search (a symbolic proof has no states or coverage
    to record)."""
    for o in outcomes:
        if o.result is not None and o.result.stats.complete and o.result.coverage is not None:
            baseline[o.name] = baseline_entry(o)
    write_text(path, json.dumps(dict(sorted(baseline.items())), indent=1) + "\n")


def changed_models(models: list[Path], rev: str) -> list[Path]:
    """The models whose model file or spec package changed since `rev` (all if checker/ did)."""
    try:
        top = Path(subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                                  text=True, check=True).stdout.strip())
        names = subprocess.run(["git", "diff", "--name-only", rev, "--"], capture_output=True,
                               text=True, check=True, cwd=top).stdout.split()
        names += subprocess.run(["git", "ls-files", "--others", "--exclude-standard"],
                                capture_output=True, text=True, check=True, cwd=top).stdout.split()
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        detail = e.stderr.strip() if isinstance(e, subprocess.CalledProcessError) else str(e)
        raise CheckerError(f"--only-changed {rev}: git failed: {detail}") from None
    return touched_models(models, [top / n for n in names], top)


def touched_models(models: list[Path], changed: list[Path], root: Path) -> list[Path]:
    """The models that a change of the files `changed` may move: their own model file,
    a file of their spec's package, or (all of them) the checker/ below `root`."""
    changed_files = {p.resolve() for p in changed}
    if any(p.is_relative_to(root.resolve() / "checker") for p in changed_files):
        return models
    return [m for m in models if m.resolve() in changed_files or _spec_changed(m, changed_files)]


def _spec_changed(model_path: Path, changed: set[Path]) -> bool:
    """Did any file of the package that holds the model's spec change?"""
    try:
        spec_cls = (load_matrix(model_path).cells()[0].model() if is_matrix(model_path)
                    else load_model(model_path)).spec_cls
    except CheckerError:
        return True                  # a broken model is always worth re-checking
    module = sys.modules[spec_cls.__module__]
    source = Path(module.__file__).resolve()
    package = source.parent if source.parent.joinpath("__init__.py").exists() else source
    return any(p == source or p.is_relative_to(package) for p in changed)


_SAID = {"ok": "as expected", "moved": "moved", "unknown": "unknown",
         "error": "could not be checked"}


def summary(outcomes: list[ModelOutcome]) -> str:
    """The gate's last line: `OK: 3 models as expected (1,234 states, 2.0 s)`, or how
    many models ended how, naming those that did not end as expected."""
    if not outcomes:
        return "OK: no models to check"
    counts = {status: [o.name for o in outcomes if o.status == status] for status in _SAID}
    word = outcome(bool(counts["moved"] or counts["error"]), bool(counts["unknown"]))
    checked = [o.result.stats for o in outcomes if o.result is not None]
    cost = (f" ({counted(sum(s.distinct_states for s in checked), 'state')}, "
            f"{sum(s.seconds for s in checked):.1f} s)")
    if word == "OK":
        return f"OK: {counted(len(outcomes), 'model')} as expected{cost}"
    parts = [f"{len(names)} {_SAID[status]}" + ("" if status == "ok" else f" ({listed(names)})")
             for status, names in counts.items() if names]
    return f"{word}: {counted(len(outcomes), 'model')}: {', '.join(parts)}{cost}"


def exit_code(outcomes: list[ModelOutcome]) -> int:
    """2 a model could not be checked, 1 something moved, 3 something unknown, else 0."""
    statuses = {o.status for o in outcomes}
    for status, code in (("error", 2), ("moved", 1), ("unknown", 3)):
        if status in statuses:
            return code
    return 0
