"""Mutation testing of specs: each mutant is a spec variant with one realistic bug.

A catalog (TOML, `[[mutant]]` entries) names each mutant's class and the model it runs
in. The mutant is *killed* when a property that model's `[expect]` claims holds (as the
faithful spec's verdicts) is violated; a mutant that survives fails the command. Other
moves (a property with no `[expect]`, such as a lemma, or one expected violated that now
holds) show that the mutant changed something, but no claim caught it: they are reported
apart and kill nothing.
"""
from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from .errors import CheckerError, ModelError
from .files import read_text, read_toml
from .model import import_spec, load_model
from . import pipeline
from .results import Verdict

_KEYS = {"name", "spec", "model", "killed_by", "doc"}


@dataclasses.dataclass
class Mutant:
    name: str
    spec: str
    model: Path
    killed_by: str | None
    where: str


@dataclasses.dataclass
class MutantOutcome:
    mutant: Mutant
    killers: list[str]                      # claimed to hold, violated now
    also_moved: list[str]                   # other verdicts that moved (not kills)
    trace_length: int | None
    seconds: float
    doc: str

    @property
    def killed(self) -> bool:
        return bool(self.killers)


def load_catalog(path: Path) -> list[Mutant]:
    text = read_text(path, "mutant catalog", ModelError)
    data = read_toml(path, text, ModelError)
    entries = data.get("mutant")
    if set(data) != {"mutant"} or not isinstance(entries, list):
        raise ModelError("a mutant catalog holds only [[mutant]] tables", str(path))
    mutants = []
    for n, entry in enumerate(entries):
        where = f"{path}:{_entry_line(text, n)}"
        _check_entry(entry, where)
        mutants.append(Mutant(entry["name"], entry["spec"], (path.parent / entry["model"]),
                              entry.get("killed_by"), where))
    names = [m.name for m in mutants]
    for name in names:
        if names.count(name) > 1:
            raise ModelError(f"mutant {name!r} is listed twice", str(path))
    return mutants


def _check_entry(entry, where: str) -> None:
    """A [[mutant]] is a table of known keys, each a string, with name, spec and model."""
    if not isinstance(entry, dict):
        raise ModelError(f"a mutant must be a [[mutant]] table, got {entry!r}", where)
    unknown = set(entry) - _KEYS
    if unknown:
        raise ModelError(f"unknown key {sorted(unknown)[0]!r} in [[mutant]] "
                         f"(allowed: {', '.join(sorted(_KEYS))})", where)
    missing = {"name", "spec", "model"} - set(entry)
    if missing:
        raise ModelError(f"[[mutant]] needs {', '.join(sorted(missing))}", where)
    for key, value in entry.items():
        if not isinstance(value, str):
            raise ModelError(f"{key} must be a string, got {value!r}", where)


def _entry_line(text: str, index: int) -> int:
    hits = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[mutant]]"]
    return hits[index] if index < len(hits) else 1


def run_mutant(mutant: Mutant) -> MutantOutcome:
    """Check the mutant in its model: the claims it violates are its killers."""
    model = load_model(mutant.model)
    model.spec_cls = import_spec(mutant.spec, mutant.model, mutant.where)
    if mutant.killed_by and model.expect.get(mutant.killed_by) is not Verdict.HOLDS:
        raise ModelError(f"killed_by names {mutant.killed_by!r}, which {mutant.model.name}'s "
                         f"[expect] does not claim holds", mutant.where)
    started = time.perf_counter()
    result = pipeline.check(model).result
    if result.interrupted:              # Ctrl-C stops the catalog: no mutant survived it
        raise KeyboardInterrupt
    seconds = time.perf_counter() - started
    killers, also_moved = [], []
    for p in result.properties:
        if p.expected is Verdict.HOLDS and p.verdict is Verdict.VIOLATED:
            killers.append(p)
        elif p.verdict is not Verdict.UNKNOWN and not p.as_expected:
            also_moved.append(f"{p.name} (expected {p.expected.value})" if p.expected else p.name)
    chosen = next((p for p in killers if p.name == mutant.killed_by), killers[0] if killers else None)
    length = len(chosen.trace.steps) - 1 if chosen is not None and chosen.trace is not None else None
    doc = (model.spec_cls.__doc__ or "").strip().splitlines()
    return MutantOutcome(mutant, [p.name for p in killers], also_moved, length, seconds,
                         doc[0] if doc else "")


def run_catalog(mutants: list[Mutant], only: list[str] | None = None) -> list[MutantOutcome]:
    if only:
        known = {m.name for m in mutants}
        for name in only:
            if name not in known:
                raise CheckerError(f"unknown mutant {name!r} (catalog: {', '.join(sorted(known))})")
        mutants = [m for m in mutants if m.name in only]
    return [run_mutant(m) for m in mutants]
