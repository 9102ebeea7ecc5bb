"""The catalog of refutations: each claim a spec does not keep, with its counterexample.

A catalog (TOML) holds two kinds of entry, each naming a model, a property and, where
pinned, the length of the property's shortest counterexample (`steps`):

* `[[refutation]]`: the model's own spec violates the property: a boundary of the claim
  or a bug of the system the spec describes (`upstream` names its issue, "owner/repo#N").
  The model's `[expect]` must say violated.
* `[[mutant]]`: a spec variant with one realistic bug (`spec`), killed when `property`,
  which the model's `[expect]` claims holds, is violated. A mutant that names no property
  is killed by any claim that breaks; other verdicts that move kill nothing and are
  reported apart ("also moved").

Either may run in a *setting* of its model: `constants` and `groups` tables that override
the model's, for a claim proved there (the model's `[expect]` is then not consulted).
Entries that pin `steps` are searched to that depth only, which is exact: breadth-first
search finds a shortest counterexample first, so a shorter one, or none, is a miss.
`slow = true` marks entries too slow for every run (`check-model mutants --all`).

`load_catalog` validates every entry (one `file:line` error each); a `Catalog` answers,
per property, the refutations and mutant kills it has; `run_catalog` checks them.
"""
from __future__ import annotations

import dataclasses
import fnmatch
import re
import time
from collections.abc import Iterator
from pathlib import Path

from . import pipeline
from .errors import CheckerError, ModelError
from .files import read_text, read_toml
from .lang.bound import PROPERTY_KINDS
from .lang.domains import Const
from .lang.dsl import Kind, Role, spec_members
from .model import Model, import_spec, load_model
from .results import Verdict

_COMMON = {"model": str, "property": str, "steps": int, "why": str, "upstream": str,
           "constants": dict, "groups": dict, "slow": bool, "trace": str}
_KEYS = {"refutation": _COMMON, "mutant": {"name": str, "spec": str, **_COMMON}}
_REQUIRED = {"refutation": ("model", "property", "why"), "mutant": ("name", "spec", "model")}
_UPSTREAM = re.compile(r"[\w.-]+/[\w.-]+#\d+")


@dataclasses.dataclass(frozen=True)
class Entry:
    """One refutation (`spec` None: the model's own spec) or one mutant's kill."""
    name: str | None            # the mutant's name; None for a refutation
    spec: str | None            # the mutant's class, "module:Class"
    model: Path
    model_label: str            # the model as the catalog names it, without .toml
    property: str | None        # None: a mutant killed by whichever claim breaks
    steps: int | None           # the shortest counterexample's length, where pinned
    why: str                    # one line: the claim's boundary, the bug, the setting
    upstream: str | None        # the upstream issue, "owner/repo#N"
    constants: dict             # the setting: overrides of the model's constants
    groups: dict                # ... and of its fault groups
    slow: bool
    trace: Path | None          # the counterexample, checked in (ITF)
    where: str                  # catalog file:line

    @property
    def is_mutant(self) -> bool:
        return self.spec is not None

    @property
    def label(self) -> str:
        """The model and the setting, as the lines of `check-model mutants` show them."""
        return self.model_label + (f" [{self.setting}]" if self.setting else "")

    @property
    def setting(self) -> str:
        """The overrides, as `key=value` words ("" for the model as it is)."""
        pairs = {**self.constants, **self.groups}
        return " ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                        for k, v in pairs.items())

    @property
    def upstream_url(self) -> str | None:
        """The upstream issue's page on GitHub."""
        if self.upstream is None:
            return None
        repo, number = self.upstream.split("#")
        return f"https://github.com/{repo}/issues/{number}"


@dataclasses.dataclass
class Catalog:
    """The entries of a catalog file, in file order."""
    path: Path
    entries: list[Entry]

    def refutations_of(self, prop: str) -> list[Entry]:
        """The entries where the faithful spec violates `prop`."""
        return [e for e in self.entries if not e.is_mutant and e.property == prop]

    def mutants_killed_by(self, prop: str) -> list[Entry]:
        """The mutant entries `prop` kills."""
        return [e for e in self.entries if e.is_mutant and e.property == prop]


@dataclasses.dataclass
class Outcome:
    """What checking one entry found."""
    entry: Entry
    killers: list[str]          # the properties that break as the entry says
    steps: int | None           # the length found (of the entry's property)
    missed: str | None          # why the entry is not as the catalog says; None if it is
    also_moved: list[str]       # a mutant's other moved verdicts (no kills)
    seconds: float | None       # of its run; None for the next entries sharing that run


def load_catalog(path: Path) -> Catalog:
    """The catalog at `path`, every entry checked against its model and spec."""
    text = read_text(path, "mutant catalog", ModelError)
    data = read_toml(path, text, ModelError)
    if not data or set(data) - set(_KEYS) or not all(isinstance(v, list) for v in data.values()):
        raise ModelError("a catalog holds only [[refutation]] and [[mutant]] tables", str(path))
    lines = text.splitlines()
    models: dict[Path, Model] = {}
    placed, seen = [], {}               # (line, entry), and the line of each entry's key
    for kind, tables in data.items():
        headers = [n for n, line in enumerate(lines, 1) if line.strip() == f"[[{kind}]]"]
        for index, table in enumerate(tables):
            line = headers[index] if index < len(headers) else 1
            entry = _entry(kind, table, path, lines, line, models)
            key = (entry.name, entry.model, entry.setting, entry.property)
            if key in seen:
                raise ModelError(f"the same {kind} as line {seen[key]}", entry.where)
            seen[key] = line
            placed.append((line, entry))
    return Catalog(path, [entry for _, entry in sorted(placed, key=lambda p: p[0])])


def _entry(kind: str, table, path: Path, lines: list[str], line: int,
           models: dict[Path, Model]) -> Entry:
    where = f"{path}:{line}"
    if not isinstance(table, dict):
        raise ModelError(f"a {kind} must be a [[{kind}]] table, got {table!r}", where)

    def at(key):                # the line of `key` inside this table
        end = next((n for n in range(line, len(lines)) if lines[n].strip().startswith("[")),
                   len(lines))
        found = next((n + 1 for n in range(line, end)
                      if re.match(rf"{re.escape(key)}\s*=", lines[n].strip())), line)
        return f"{path}:{found}"

    _check_shape(kind, table, where, at)
    model_path, trace = ((path.parent / table[k]).resolve() if k in table else None
                         for k in ("model", "trace"))
    if not model_path.is_file():
        raise ModelError(f"model {table['model']} does not exist", at("model"))
    if trace is not None and not trace.is_file():
        raise ModelError(f"trace {table['trace']} does not exist", at("trace"))
    if model_path not in models:
        models[model_path] = load_model(model_path)
    model = models[model_path]
    spec_cls = import_spec(table["spec"], model_path, at("spec")) if "spec" in table \
        else model.spec_cls
    _check_names(kind, table, model, spec_cls, where, at)
    doc = (spec_cls.__doc__ or "").strip().splitlines()
    return Entry(table.get("name"), table.get("spec"), model_path,
                 table["model"].removesuffix(".toml"), table.get("property"), table.get("steps"),
                 table.get("why", doc[0] if doc else ""), table.get("upstream"),
                 table.get("constants", {}), table.get("groups", {}), table.get("slow", False),
                 trace, where)


def _check_shape(kind: str, table: dict, where: str, at) -> None:
    """Known keys of the right types, the required ones there, each value well-formed."""
    keys = _KEYS[kind]
    for key, value in table.items():
        if key not in keys:
            raise ModelError(f"unknown key {key!r} in [[{kind}]] (allowed: "
                             f"{', '.join(sorted(keys))})", at(key))
        wanted = keys[key]
        if not isinstance(value, wanted) or isinstance(value, bool) and wanted is not bool:
            noun = {str: "a string", int: "a whole number", dict: "a table",
                    bool: "true or false"}[wanted]
            raise ModelError(f"{key} must be {noun}, got {value!r}", at(key))
    missing = [k for k in _REQUIRED[kind] if k not in table]
    if missing:
        raise ModelError(f"[[{kind}]] needs {', '.join(missing)}", where)
    if "steps" in table and table["steps"] < 1:
        raise ModelError(f"steps must be positive, got {table['steps']}", at("steps"))
    if "upstream" in table and not _UPSTREAM.fullmatch(table["upstream"]):
        raise ModelError(f"upstream must read owner/repo#N (e.g. ray-project/kuberay#4824), "
                         f"got {table['upstream']!r}", at("upstream"))


def _check_names(kind: str, table: dict, model: Model, spec_cls, where: str, at) -> None:
    """The spec has the property, constants and groups named; without a setting, the
    model's [expect] says what the entry needs: violated (a refutation), holds (a kill)."""
    declared = _declared(spec_cls)
    for key in ("constants", "groups"):
        for name in table.get(key, {}):
            if name not in declared[key]:
                raise ModelError(f"{spec_cls.__name__} has no {key[:-1]} {name!r} (its {key}: "
                                 f"{', '.join(sorted(declared[key])) or 'none'})", at(key))
    prop = table.get("property")
    if prop is not None and prop not in declared["properties"]:
        raise ModelError(f"{spec_cls.__name__} has no property {prop!r}", at("property"))
    in_setting = bool(table.get("constants") or table.get("groups"))
    if "trace" in table and in_setting:
        raise ModelError("a trace replays in the model as it is, not in a setting", at("trace"))
    wanted = Verdict.HOLDS if kind == "mutant" else Verdict.VIOLATED
    if prop is None and in_setting:
        raise ModelError("a mutant in a setting names the property it breaks there", where)
    if prop is not None and not in_setting and model.expect.get(prop) is not wanted:
        said = model.expect.get(prop)
        raise ModelError(f"property {prop!r}: {model.path.name}'s [expect] says "
                         f"{said.value if said else 'nothing'}, not {wanted.value}"
                         + (" (a mutant is killed by a claim the model's spec keeps)"
                            if kind == "mutant" else ""), at("property"))


def _declared(spec_cls) -> dict[str, set[str]]:
    """The names a spec declares: its properties, constants and action groups."""
    members = spec_members(spec_cls)
    roles = [(n, m.__checker_role__) for n, m in members.items()
             if callable(m) and isinstance(getattr(m, "__checker_role__", None), Role)]
    return {"properties": {n for n, r in roles
                           if r.kind in PROPERTY_KINDS or r.kind is Kind.STEP_INVARIANT},
            "constants": {n for n, c in members.items() if isinstance(c, Const) and c.name == n},
            "groups": {r.group for _, r in roles if r.group}}


def select(catalog: Catalog, only: list[str], include_slow: bool) -> list[Entry]:
    """The entries whose mutant name, model or property matches a glob of `only` (every
    entry if none), without the slow ones unless asked."""
    chosen = [e for e in catalog.entries
              if not only or any(fnmatch.fnmatchcase(word, glob) for glob in only
                                 for word in (e.name, e.model_label, e.property)
                                 if word)]
    if only and not chosen:
        raise CheckerError(f"no catalog entry matches {', '.join(only)} (a mutant's name, "
                           f"a model such as rayjob/happy_F0, or a property)")
    return [e for e in chosen if include_slow or not e.slow]


def run_catalog(entries: list[Entry]) -> Iterator[Outcome]:
    """Check `entries`, in order: entries of the same spec, model and setting share one run
    (to the deepest pinned length when all pin theirs, else the model's whole search)."""
    runs: dict[tuple, list[Entry]] = {}
    for e in entries:
        runs.setdefault(_run_key(e), []).append(e)
    done: dict[tuple, tuple] = {}
    for e in entries:
        key = _run_key(e)
        first = key not in done
        if first:
            done[key] = _check(runs[key])
        result, seconds, bounded = done[key]
        yield _outcome(e, result, seconds if first else None, bounded)


def _run_key(e: Entry) -> tuple:
    return e.spec, e.model, e.setting


def _check(entries: list[Entry]):
    first = entries[0]
    model = load_model(first.model, first.constants)
    model.groups = {**model.groups, **first.groups}
    if first.spec:
        model.spec_cls = import_spec(first.spec, first.model, first.where)
    if first.setting:
        model.expect = {}                   # the model's verdicts are not the setting's
    bounded = all(e.steps is not None for e in entries)
    if bounded:                         # only the entries' properties, as deep as they say
        model.options = dataclasses.replace(model.options,
                                            properties=sorted({e.property for e in entries}),
                                            max_depth=max(e.steps for e in entries))
    started = time.perf_counter()
    try:
        result = pipeline.check(model).result
    except ModelError as e:             # a value of the setting that the spec refuses
        if not first.setting:
            raise
        raise ModelError(e.message, first.where) from None
    if result.interrupted:              # Ctrl-C stops the catalog: no entry missed it
        raise KeyboardInterrupt
    return result, time.perf_counter() - started, bounded


def _outcome(e: Entry, result, seconds: float | None, bounded: bool) -> Outcome:
    found = {p.name: p for p in result.properties}
    claims_broken = [p.name for p in result.properties
                     if p.expected is Verdict.HOLDS and p.verdict is Verdict.VIOLATED]
    also_moved = [f"{p.name} (expected {p.expected.value})" if p.expected else p.name
                  for p in result.properties if e.is_mutant and not bounded
                  and p.name not in claims_broken
                  and p.verdict is not Verdict.UNKNOWN and not p.as_expected]
    if e.property is None:              # a mutant killed by any claim
        return Outcome(e, claims_broken, None, None if claims_broken else "survived",
                       also_moved, seconds)
    p = found[e.property]
    steps = len(p.trace.steps) - 1 if p.verdict is Verdict.VIOLATED and p.trace else None
    if p.verdict is not Verdict.VIOLATED:
        depth = f" within {e.steps} steps" if e.steps is not None else ""
        missed = f"{e.property} {p.verdict.value}{depth}"
    elif e.steps is not None and steps != e.steps:
        missed = f"{e.property}'s shortest counterexample has {steps} steps, not {e.steps}"
    else:
        missed = None
    return Outcome(e, [e.property] if missed is None else [], steps, missed,
                   [m for m in also_moved if m != e.property], seconds)
