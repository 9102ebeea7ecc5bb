"""The symbolic relation, cached on disk: reading RayJob's spec takes a minute or two, and
a second proof of the same spec under the same constants reads the same formulas.

An entry is keyed by everything the reading depends on: the source of every module the
spec's classes refer to (transitively, but for the standard library and installed
packages), the checker's own source (but for the engines that only take a reading:
pdr, bmc, kind, ...), Python's and Z3's versions, the spec class, the
constants (and the symbolic ones' ranges) and the groups. It holds the steps (each with
where the action constraints allow it), initial steps, failure conditions (each with the
property formula it is of, if any: a run's only once it reads that formula), constraint
and every property formula read, as SMT-LIB text over the leaves (compressed), and a
SHA-256 digest of itself: an entry that is truncated, garbled, of another key or another
layout is ignored and rebuilt, never used. Entries are written
to a temporary file and renamed into place, so concurrent runs never read half of one.

Beside the relations, `LemmaStore` keeps the candidates PDR's Houdini kept, per spec,
settings and goals: a starting point that Houdini checks again, never a verdict.

The directory is `$CHECK_MODEL_CACHE`, else `$XDG_CACHE_HOME/check-model`, else
`~/.cache/check-model`; `CHECK_MODEL_CACHE=off` turns the cache off. `check-model
certify` never uses it: a certificate is re-checked against a fresh reading.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
import sys
import tempfile
import types
import zlib
from pathlib import Path

import z3

from ..errors import LIBRARIES
from .relation import Failure, GuardedPath, Relation
from .terms import identical

FORMAT = b"check-model relation 3\n"
LEMMAS_FORMAT = "check-model lemmas 1"
_CHECKER = Path(__file__).resolve().parent.parent


def cache_dir() -> Path | None:
    """Where entries live; None when the cache is off."""
    chosen = os.environ.get("CHECK_MODEL_CACHE")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "check-model"


@dataclasses.dataclass
class Stored:
    """What a relation read, without the reading machinery (see `Relation.__init__`)."""

    steps: list
    init: list
    failures: list
    constraint: z3.BoolRef
    formulas: dict


class RelationStore:
    """The cache entry of one machine (`entry` None: no cache)."""

    def __init__(self, machine, directory: Path | None = None):
        self.machine = machine
        directory = directory if directory is not None else cache_dir()
        self.key = key_of(machine)
        self.entry = directory / "relations" / f"{self.key}.rel" if directory else None
        self.saved: tuple | None = None         # what the entry holds (sizes), once known
        self.hit = False                        # the relation came from the entry

    def relation(self, progress=None) -> Relation:
        """The machine's relation: from the entry if it is sound, else read. The engine
        stores it when its run ends (`save`), once, with the formulas read meanwhile:
        writing an entry of RayJob (printed, then parsed back to compare) costs seconds."""
        stored = self._load(progress)
        rel = Relation(self.machine, stored=stored)
        self.hit = stored is not None
        if self.hit:
            self.saved = _sizes(rel)
        return rel

    def save(self, rel: Relation):
        """Write the entry if it would hold more than it does (formulas read since)."""
        if self.entry is None or self.saved == _sizes(rel):
            return
        terms, meta = [], {"key": self.key, "leaves": _signature(rel)}
        meta["steps"] = [_step_meta(s, terms, rel) for s in rel.steps]
        meta["init"] = [_step_meta(s, terms, rel) for s in rel.init]
        meta["failures"] = [(f.message, f.where, f.origin, _term(f.condition, terms))
                            for f in rel.failures + rel.unused_failures]
        meta["constraint"] = _term(rel.constraint, terms)
        meta["formulas"] = {k: _term(f, terms) for k, f in rel.formulas.items()}
        solver = z3.Solver()
        solver.add(*terms)
        try:
            text = solver.to_smt2()
            if not _reads_back(text, terms):
                return
            payload = zlib.compress(pickle.dumps((meta, text)), 1)
        except (z3.Z3Exception, pickle.PicklingError, TypeError, AttributeError):
            return                              # not writable as an entry: no cache
        if _write(self.entry, FORMAT + hashlib.sha256(payload).hexdigest().encode() + b"\n"
                  + payload):
            self.saved = _sizes(rel)

    def _load(self, progress) -> Stored | None:
        if self.entry is None or not self.entry.is_file():
            return None
        try:
            return self._parse(self.entry.read_bytes())
        except Exception as e:                  # any bad entry: read the spec again
            if progress is not None:
                progress(f"ignored the cache entry {self.entry}: {type(e).__name__}: "
                         f"{str(e)[:100]}")
            return None

    def _parse(self, data: bytes) -> Stored:
        head, digest, payload = data[:len(FORMAT)], data[len(FORMAT):len(FORMAT) + 64], \
            data[len(FORMAT) + 65:]
        if head != FORMAT or hashlib.sha256(payload).hexdigest().encode() != digest:
            raise ValueError("not an entry of this format, or its digest does not match")
        meta, text = pickle.loads(zlib.decompress(payload))
        layout = Relation(self.machine, stored=Stored([], [], [], z3.BoolVal(True), {}))
        if meta["key"] != self.key or meta["leaves"] != _signature(layout):
            raise ValueError("another key or another layout of the state")
        parsed = z3.parse_smt2_string(text)     # declares the leaves: the same names and sorts
        terms = [parsed[i] for i in range(len(parsed))]
        bindings = self.machine.bindings
        return Stored([_step(m, terms, bindings, layout.flat) for m in meta["steps"]],
                      [_step(m, terms, bindings, layout.flat) for m in meta["init"]],
                      [Failure(_back(i, terms), message, where, origin)
                       for message, where, origin, i in meta["failures"]],
                      _back(meta["constraint"], terms),
                      {k: _back(i, terms) for k, i in meta["formulas"].items()})


class LemmaStore:
    """The candidates Houdini kept, derived once per spec and settings: which of the spec's
    lemmas (and conjuncts of them), parts of the goals and value ranges are inductive
    together. Keyed as the relation is, and by the engines' own source (which makes the
    candidates), the goals and the `[check] lemmas` patterns: any change derives them
    again. An entry is only a starting point: Houdini checks that the candidates it names
    are inductive together (one query when they are) and, where they are not, derives them
    again from every candidate, so a wrong entry can cost time (or, were it an inductive
    set smaller than the one derived, a proof) but never give a wrong verdict; a garbled
    one is ignored."""

    def __init__(self, machine, goals: list[str], patterns: list[str] | None,
                 directory: Path | None = None):
        directory = directory if directory is not None else cache_dir()
        digest = hashlib.sha256(key_of(machine).encode())
        for path in sorted(_CONSUMERS):
            digest.update(path.encode() + b"\0" + (_CHECKER / path).read_bytes() + b"\0")
        digest.update(json.dumps([goals, patterns]).encode())
        self.key = digest.hexdigest()
        self.entry = directory / "lemmas" / f"{self.key}.json" if directory else None

    def load(self) -> set[tuple] | None:
        """The candidates kept last time, or None (no entry, or not one of this key)."""
        if self.entry is None or not self.entry.is_file():
            return None
        try:
            data = json.loads(self.entry.read_text())
            if data["format"] != LEMMAS_FORMAT or data["key"] != self.key:
                return None
            kept = {tuple(c) for c in data["kept"]}
            if all(len(c) in (2, 3) and isinstance(c[0], str) for c in kept):
                return kept
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return None

    def save(self, kept: set[tuple]):
        if self.entry is not None:
            _write(self.entry, json.dumps({"format": LEMMAS_FORMAT, "key": self.key,
                                           "kept": sorted(kept, key=repr)}).encode())


def _write(entry: Path, data: bytes) -> bool:
    """Write `data` to a temporary file renamed to `entry` (concurrent runs never see half
    of one); False if it cannot be written (a cache that cannot be written is no cache)."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, entry)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        return False
    return True


def _reads_back(text: str, terms: list) -> bool:
    """`text` parses as `terms`: the same terms, or (where Z3's printer wrote one in
    another form) terms a solver proves equivalent."""
    parsed = z3.parse_smt2_string(text)
    if len(parsed) != len(terms):
        return False
    solver = z3.Solver()
    solver.set(timeout=10_000)
    for p, t in zip(parsed, terms):
        if not p.eq(t) and solver.check(p != t) != z3.unsat:
            return False
    return True


def _sizes(rel) -> tuple:
    return len(rel.steps), len(rel.failures) + len(rel.unused_failures), len(rel.formulas)


def _signature(rel) -> list[str]:
    """The leaves and symbolic constants, with their sorts."""
    return [f"{t} {t.sort()}" for t in rel.flat + list(rel.params.values())]


def _term(t, terms: list) -> int:
    """Add `t` to the terms to write (a non-Bool as `__cache<i> == t`); its index."""
    i = len(terms)
    terms.append(t if z3.is_bool(t) else z3.Const(f"__cache{i}", t.sort()) == t)
    return i


def _back(i: int, terms: list):
    """Term `i` as `_term` added it (Z3 may have swapped the sides of the equation)."""
    t, name = terms[i], f"__cache{i}"

    def ours(side):
        return z3.is_const(side) and side.decl().name() == name
    if z3.is_eq(t) and (ours(t.arg(0)) or ours(t.arg(1))):
        return t.arg(1) if ours(t.arg(0)) else t.arg(0)
    return t


def _step_meta(s: GuardedPath, terms: list, rel) -> tuple:
    """A step, each next-state leaf a term index, or None where the step leaves it as it
    was (most leaves of most steps: only what a step changes is written)."""
    which = None if s.binding is None else rel.machine.bindings.index(s.binding)
    return (which, s.binding.label if s.binding else None, s.choices, _term(s.guard, terms),
            [None if identical(t, x) else _term(t, terms) for t, x in zip(s.next, rel.flat)],
            _term(s.allowed, terms))


def _step(meta, terms: list, bindings, flat: list) -> GuardedPath:
    which, label, choices, guard, nxt, allowed = meta
    binding = None if which is None else bindings[which]
    if (binding.label if binding else None) != label:
        raise ValueError(f"step of {label}, but binding {which} is another")
    return GuardedPath(binding, choices, _back(guard, terms),
                       [x if i is None else _back(i, terms) for i, x in zip(nxt, flat)],
                       _back(allowed, terms))


def key_of(machine) -> str:
    """What the reading of `machine` depends on, hashed."""
    digest = hashlib.sha256()
    for path in sorted(_source_files(machine.spec_cls)):
        digest.update(path.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    settings = {"python": sys.version, "z3": z3.get_version_string(),
                "spec": f"{machine.spec_cls.__module__}:{machine.spec_cls.__qualname__}",
                "constants": {k: repr(v) for k, v in machine.env.items()},
                "symbolic": {k: str(r) for k, r in machine.symbolic.items()},
                "switches": machine.switches,
                "bindings": [b.label for b in machine.bindings]}
    digest.update(json.dumps(settings, sort_keys=True).encode())
    return digest.hexdigest()


# The engines that take a relation and never shape it: a change to them (a new lemma
# heuristic in PDR, say) leaves every stored reading valid.
_CONSUMERS = {f"symbolic/{name}.py" for name in ("engine", "bmc", "kind", "pdr", "cone",
                                                  "certificate")}


def _source_files(spec_cls) -> set[str]:
    """The checker's source (but the engines that only consume a relation) and that of
    every module the spec's classes refer to, transitively (names imported, modules
    imported), but for installed packages."""
    consumers = {str(_CHECKER / name) for name in _CONSUMERS}
    files = {str(p) for p in _CHECKER.rglob("*.py")}
    seen: set[str] = set()
    todo = [sys.modules[c.__module__] for c in spec_cls.__mro__ if c.__module__ in sys.modules]
    while todo:
        module = todo.pop()
        path = getattr(module, "__file__", None)
        if module.__name__ in seen or not path or str(Path(path).resolve()).startswith(LIBRARIES):
            continue
        seen.add(module.__name__)
        files.add(str(Path(path).resolve()))
        for value in list(vars(module).values()):
            name = value.__name__ if isinstance(value, types.ModuleType) else \
                getattr(value, "__module__", None)
            if isinstance(name, str) and name in sys.modules:
                todo.append(sys.modules[name])
    return files - consumers
