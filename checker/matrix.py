"""Matrix files: one spec checked under every combination of its settings, as data.

A matrix file is a model file (spec, shared constants, groups and fairness, `[check]`)
with `[axes]`: each axis a few named values, each value the constants and groups it sets
and a `doc` saying what it assumes (or `axes = "other.toml"`: that file's axes). Its
cells are the product of the axes, less the `exclude` patterns; each cell is one check of
every property (or of those `[check] properties` names). A property is expected to
hold in every cell but those its `refuted` patterns match (`[properties.NAME]`, with the
`hypothesis` those patterns spell out), so its hypothesis is exact on the matrix: the
gate fails when a cell inside it is refuted or one outside it is not. Cells matching a
`slow` pattern are too big for CI and run only when asked (`--all`).

A pattern is a table of axis = value (or [values]); it matches a cell whose settings
agree on every axis it names. Each cell is keyed by the hash of its inputs: its model
tables, the sources of the spec's package, and the checker's but its renderers and CLI.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import itertools
import json
import sys
from pathlib import Path
from typing import Any

from .errors import ModelError
from .files import read_text, read_toml, relative
from .model import Model, locate, model_from_data
from .results import Verdict

_TOP = {"spec": str, "description": str, "constants": dict, "groups": dict, "fairness": dict,
        "check": dict, "axes": (dict, str), "exclude": list, "slow": list, "properties": dict}
_VALUE = {"doc": str, "constants": dict, "groups": dict}
_ROW = {"hypothesis": str, "refuted": list}


def _decides_verdicts(path: Path, checker: Path) -> bool:
    """Is this checker source an input of a verdict? Not the renderers (`output/`), nor
    the command line (`cli*.py`, `__main__.py`)."""
    rel = path.relative_to(checker)
    return rel.parts[0] != "output" and not rel.name.startswith(("cli", "__main__"))


def is_matrix(path: Path) -> bool:
    """Is the TOML file at `path` a matrix file (it has `[axes]`)?"""
    try:
        return "axes" in read_toml(path, read_text(path, "model file", ModelError), ModelError)
    except ModelError:
        return False                # a broken model file: the gate reports it as one


@dataclasses.dataclass(frozen=True)
class Setting:
    """One value of an axis: what it sets and what it assumes."""
    axis: str
    name: str
    doc: str
    constants: dict
    groups: dict


@dataclasses.dataclass
class Row:
    """What a matrix claims of one property: where it is refuted, and why it holds elsewhere."""
    hypothesis: str
    refuted: list[dict[str, tuple[str, ...]]]


@dataclasses.dataclass
class Matrix:
    path: Path
    text: str
    data: dict
    axes: dict[str, dict[str, Setting]]
    rows: dict[str, Row]
    exclude: list[dict[str, tuple[str, ...]]]
    slow: list[dict[str, tuple[str, ...]]]

    def where(self, table: str | None, key: str | None = None) -> str:
        return f"{self.path}:{locate(self.text, table, key)}"

    def cells(self) -> list[Cell]:
        """Every cell, in axis order (the first axis varies slowest)."""
        found = []
        for values in itertools.product(*(axis.values() for axis in self.axes.values())):
            settings = {s.axis: s.name for s in values}
            if not any(matches(p, settings) for p in self.exclude):
                found.append(Cell(self, settings, any(matches(p, settings) for p in self.slow)))
        return found

    def checked_machine(self):
        """The spec bound to the first cell, once each `[properties]` name is one of its
        properties (before any cell runs, the error at its table)."""
        first = self.cells()[0]
        model = model_from_data(self.path, self.text, first.tables() | {"expect": {}}, cell=first.name)
        machine = model.machine()
        known = {p.name for p in machine.properties}
        for name in self.rows:
            if name not in known:
                raise ModelError(f"unknown property {name!r} (the spec's properties: "
                                 f"{', '.join(sorted(known))})", self.where(f"properties.{name}"))
        return machine

    def describe(self) -> dict:
        """What a report needs of the matrix itself: its axes, and each property's kind,
        doc, hypothesis and the cells outside it (the properties its cells check)."""
        machine = self.checked_machine()
        chosen = self.data.get("check", {}).get("properties")
        rows = {}
        for p in (p for p in machine.properties if chosen is None or p.name in chosen):
            row = self.rows.get(p.name, Row("", []))
            rows[p.name] = {"kind": str(p.kind), "doc": (inspect.getdoc(p.fn) or "").split("\n\n")[0],
                            "where": _where(p.where), "hypothesis": row.hypothesis,
                            "refuted": [{a: list(v) for a, v in pattern.items()}
                                        for pattern in row.refuted]}
        return {"description": self.data.get("description", ""), "spec": self.data["spec"],
                "constants": self.data.get("constants", {}), "groups": self.data.get("groups", {}),
                "axes": {axis: {s.name: {"doc": s.doc, "constants": s.constants, "groups": s.groups}
                                for s in values.values()} for axis, values in self.axes.items()},
                "grid": {c.name: {"settings": c.settings, "slow": c.slow} for c in self.cells()},
                "properties": rows}


@dataclasses.dataclass
class Cell:
    matrix: Matrix
    settings: dict[str, str]            # axis -> value name
    slow: bool

    @property
    def name(self) -> str:
        return "-".join(self.settings.values())

    def tables(self) -> dict:
        """The model file this cell amounts to."""
        data = self.matrix.data
        constants, groups = dict(data.get("constants", {})), dict(data.get("groups", {}))
        for axis, value in self.settings.items():
            setting = self.matrix.axes[axis][value]
            constants.update(setting.constants)
            groups.update(setting.groups)
        expect = {name: Verdict.VIOLATED.value for name, row in self.matrix.rows.items()
                  if any(matches(p, self.settings) for p in row.refuted)}
        return {"spec": data["spec"], "description": data.get("description", ""),
                "constants": constants, "groups": groups, "fairness": data.get("fairness", {}),
                "check": data.get("check", {}), "expect": expect}

    def model(self) -> Model:
        return model_from_data(self.matrix.path, self.matrix.text, self.tables(), cell=self.name)

    def inputs(self, model: Model | None = None) -> str:
        """The hash of what decides this cell's verdicts: its tables and the sources."""
        spec_cls = (model or self.model()).spec_cls
        text = json.dumps({"tables": self.tables(), "sources": _sources(_package(spec_cls))},
                          sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def _where(where: str | None) -> str | None:
    """A spec's `file:line`, the file relative to the working directory."""
    file, _, line = (where or "").rpartition(":")
    return f"{relative(file)}:{line}" if file else where


def matches(pattern: dict[str, tuple[str, ...]], settings: dict[str, str]) -> bool:
    return all(settings[axis] in values for axis, values in pattern.items())


def _package(spec_cls: type) -> Path:
    source = Path(sys.modules[spec_cls.__module__].__file__).resolve()
    return source.parent if source.parent.joinpath("__init__.py").exists() else source


@functools.cache
def _sources(spec_package: Path) -> str:
    """A digest of the spec's package and of the checker's sources that decide verdicts."""
    checker = Path(__file__).resolve().parent
    files = sorted(p for p in checker.rglob("*.py") if _decides_verdicts(p, checker))
    files += sorted(spec_package.rglob("*.py")) if spec_package.is_dir() else [spec_package]
    digest = hashlib.sha256()
    for f in files:                 # named from the package's parent: the same in any checkout
        base = checker if f.is_relative_to(checker) else spec_package
        digest.update(f"{f.relative_to(base.parent).as_posix()}\0".encode() + f.read_bytes())
    return digest.hexdigest()


def load_matrix(path: Path) -> Matrix:
    """Read and validate a matrix file; every mistake names its file and line."""
    text = read_text(path, "matrix file", ModelError)
    data = read_toml(path, text, ModelError)
    m = Matrix(path, text, data, {}, {}, [], [])
    _keys(m, data, _TOP, None)
    if "spec" not in data:
        raise ModelError('missing key spec (e.g. spec = "spec.rayjob.spec:RayJob")', str(path))
    if isinstance(data["axes"], str):               # the axes of another matrix file
        m.axes = _axes_of(m, path.parent / data["axes"])
    else:
        m.axes = _axes(m, data["axes"])
    m.exclude = [_pattern(m, p, None, "exclude") for p in data.get("exclude", [])]
    m.slow = [_pattern(m, p, None, "slow") for p in data.get("slow", [])]
    for name, row in data.get("properties", {}).items():
        table = f"properties.{name}"
        if not isinstance(row, dict):
            raise ModelError(f"property {name} must be a table (hypothesis, refuted)",
                             m.where("properties", name))
        _keys(m, row, _ROW, table)
        m.rows[name] = Row(row.get("hypothesis", ""),
                           [_pattern(m, p, table, "refuted") for p in row.get("refuted", [])])
    if not m.cells():
        raise ModelError("every cell is excluded", m.where(None, "exclude"))
    return m


def _axes_of(m: Matrix, other: Path) -> dict[str, dict[str, Setting]]:
    """The axes another matrix file declares (itself, not by naming a third)."""
    text = read_text(other, "matrix file", ModelError)
    data = read_toml(other, text, ModelError)
    if not isinstance(data.get("axes"), dict):
        raise ModelError(f"{other.name} declares no axes of its own", m.where(None, "axes"))
    return _axes(Matrix(other, text, data, {}, {}, [], []), data["axes"])


def _axes(m: Matrix, axes: dict) -> dict[str, dict[str, Setting]]:
    found = {}
    for axis, values in axes.items():
        if not isinstance(values, dict) or not values:
            raise ModelError(f"axis {axis} must be a table of named values", m.where("axes"))
        found[axis] = {}
        for name, value in values.items():
            table = f"axes.{axis}.{name}"
            if not isinstance(value, dict):
                raise ModelError(f"value {name} of axis {axis} must be a table (doc, constants, "
                                 f"groups)", m.where(f"axes.{axis}", name))
            _keys(m, value, _VALUE, table)
            found[axis][name] = Setting(axis, name, value.get("doc", ""),
                                        value.get("constants", {}), value.get("groups", {}))
    return found


def _keys(m: Matrix, table: dict, schema: dict, name: str | None):
    for key, value in table.items():
        if key not in schema:
            raise ModelError(f"unknown key {key!r}" + (f" in [{name}]" if name else "") +
                             f" (allowed: {', '.join(schema)})", m.where(name, key))
        if not isinstance(value, schema[key]):
            kind = {dict: "table", list: "array", str: "string", (dict, str): "table or a "
                    "matrix file's name"}[schema[key]]
            raise ModelError(f"{key} must be a {kind}, got {type(value).__name__} {value!r}",
                             m.where(name, key))


def _pattern(m: Matrix, pattern: Any, table: str | None, key: str) -> dict[str, tuple[str, ...]]:
    """A pattern's axes and values, each of which must exist."""
    if not isinstance(pattern, dict):
        raise ModelError(f"each {key} pattern must be a table of axis = value, got {pattern!r}",
                         m.where(table, key))
    found = {}
    for axis, values in pattern.items():
        values = (values,) if isinstance(values, str) else tuple(values)
        if axis not in m.axes:
            raise ModelError(f"{key}: unknown axis {axis!r} (the axes: {', '.join(m.axes)})",
                             m.where(table, key))
        for value in values:
            if value not in m.axes[axis]:
                raise ModelError(f"{key}: axis {axis} has no value {value!r} (its values: "
                                 f"{', '.join(m.axes[axis])})", m.where(table, key))
        found[axis] = values
    return found
