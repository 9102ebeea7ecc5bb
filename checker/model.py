"""Model files: which spec, its constants, which action groups, what to check, what to expect.

A model file is data (TOML), never Python. Every mistake in one, from a typo in a key to
a constant outside its range, is reported as `file:line: what is wrong` (exit 2).
"""
from __future__ import annotations

import dataclasses
import fnmatch
import importlib
import re
import sys
from pathlib import Path
from typing import Any

from .lang.dsl import Kind, Spec
from .errors import SPEC_FAILURES, ModelError, SpecError, user_frame
from .engines import ENGINES, Feature, refusal, refused
from .options import CheckOptions, Store
from .files import read_text, read_toml
from .explicit.machine import Machine
from .lang.bound import LIVENESS_KINDS, BindError, BoundSpec
from .results import Verdict
from .explicit.symmetry import NotSymmetric, liveness_refused, symmetry_of


_TOP = {"spec": str, "description": str, "constants": dict, "symbolic": dict, "groups": dict,
        "fairness": dict, "check": dict, "expect": dict}
_CHECK = {"engine": str, "properties": list, "deadlock": bool, "max_states": int,
          "max_seconds": (int, float), "max_depth": int, "store": str, "symmetry": list,
          "traces_per_property": int, "walks": int, "seed": int, "lemmas": list}


@dataclasses.dataclass
class Model:
    path: Path
    text: str
    spec_cls: type
    description: str
    constants: dict[str, Any]
    groups: dict[str, bool]
    fairness: dict[str, str]
    engine: str
    options: CheckOptions
    expect: dict[str, Verdict]
    symbolic: dict[str, str] = dataclasses.field(default_factory=dict)   # name -> constraint
    cell: str | None = None         # which cell of a matrix file (`checker.matrix`) this is
    flags: dict[str, str] = dataclasses.field(default_factory=dict)   # option -> the CLI flag that set it

    @property
    def name(self) -> str:
        """The folder of its traces: the file's stem, and a matrix cell's name below it."""
        return f"{self.path.stem}/{self.cell}" if self.cell else self.path.stem

    def where(self, table: str | None, key: str | None = None) -> str:
        return f"{self.path}:{locate(self.text, table, key)}"

    def set_option(self, option: str, value, flag: str) -> None:
        """Set an option of CheckOptions from the command line's `flag`."""
        setattr(self.options, option, value)
        self.flags[option] = flag

    def machine(self) -> Machine:
        """Bind the spec to this model's constants and groups, for running it."""
        return self.bound(concrete=True)

    def bound(self, concrete: bool | None = None) -> BoundSpec:
        """Bind the spec to this model's constants and groups: a Machine if `concrete`
        (by default, if the model's engine runs on concrete states), else the bound spec
        alone (what the symbolic engines read)."""
        if concrete is None:
            concrete = ENGINES[self.engine].concrete
        try:
            m = (Machine if concrete else BoundSpec)(self.spec_cls, self.constants, self.groups,
                                                     symbolic=self.symbolic, fairness=self.fairness)
        except BindError as e:
            table = next((t for t, names in (("constants", self.constants), ("groups", self.groups),
                                             ("fairness", self.fairness), ("symbolic", self.symbolic))
                          if e.key in names), None)
            raise ModelError(str(e), self.where(table, e.key)) from None
        self._check_engine(m)
        known = {p.name for p in m.properties} | {"deadlock"}
        for table, names in (("check", self.options.properties or []), ("expect", self.expect)):
            for name in names:
                if name not in known:
                    raise ModelError(f"unknown property {name!r} (the spec's properties: "
                                     f"{', '.join(sorted(known))})",
                                     self.where(table, name if table == "expect" else "properties"))
        self._check_lemmas(m)
        self._check_symmetry(m)
        if "deadlock" in self.expect and not self.options.deadlock:
            raise ModelError("[expect] deadlock needs deadlock = true in [check]",
                             self.where("expect", "deadlock"))
        return m

    def _check_lemmas(self, m: BoundSpec):
        """Each pattern of `[check] lemmas` names some invariant of the spec (a typo would
        leave a lemma out silently, and the proof would fail far from it)."""
        invariants = [p.name for p in m.properties if p.kind == Kind.INVARIANT]
        for pattern in self.options.lemmas or []:
            if not any(fnmatch.fnmatchcase(name, pattern) for name in invariants):
                raise ModelError(f"lemma pattern {pattern!r} matches no invariant of the spec "
                                 f"(its invariants: {', '.join(sorted(invariants))})",
                                 self.where("check", "lemmas"))

    def _check_engine(self, m: BoundSpec):
        """The engine takes every feature the run asks for (`checker/engines.py`)."""
        found = refused(self.engine, m, self.options)
        if found is None:
            return
        feature, why = found
        if why in self.flags:
            raise ModelError(refusal(self.engine, feature, self.flags[why]), str(self.path))
        if feature is Feature.SYMBOLIC_CONSTANTS:
            raise ModelError(refusal(self.engine, feature, f"[symbolic] {why}; set it in "
                                     f"[constants] or with -D {why}=VALUE"),
                             self.where("symbolic", why))
        prop = next((p for p in m.properties if p.name == why), None)
        raise ModelError(refusal(self.engine, feature, why),
                         prop.where if prop is not None and prop.where else
                         m.where if feature is Feature.STEP_PROPERTIES else self.where("check", why))

    def _check_symmetry(self, m: Machine):
        """The sets `[check] symmetry` names exist and hold; no liveness is checked with
        them (the explicit-state engines'; the others have no use for symmetry)."""
        if not self.options.symmetry or not ENGINES[self.engine].counts_states:
            return
        try:
            symmetry_of(m, self.options.symmetry)
        except NotSymmetric as e:
            raise ModelError(str(e), self.where("check", "symmetry")) from None
        chosen = [p for p in m.properties if p.kind in LIVENESS_KINDS and
                  (self.options.properties is None or p.name in self.options.properties)]
        if chosen:
            raise ModelError(liveness_refused(chosen), self.where("check", "symmetry"))


def locate(text: str, table: str | None, key: str | None) -> int:
    """Line number (1-based) of `key` inside `[table]` (or of the table header)."""
    lines = text.splitlines()
    current = None
    header_line = 1
    for n, line in enumerate(lines, 1):
        stripped = line.strip()
        header = re.match(r"\[\s*([^\]]+?)\s*\]\s*(#.*)?$", stripped)
        if header:
            current = header.group(1)
            if current == table:
                header_line = n
            continue
        if current == table and key is not None and \
                re.match(rf'["\']?{re.escape(key)}["\']?\s*=', stripped):
            return n
    return header_line


def load_model(path: str | Path, overrides: dict[str, Any] | None = None) -> Model:
    """Read and validate a model file; `overrides` replace constants (from the CLI)."""
    path = Path(path)
    text = read_text(path, "model file", ModelError)
    return model_from_data(path, text, read_toml(path, text, ModelError), overrides)


def model_from_data(path: Path, text: str, data: dict, overrides: dict[str, Any] | None = None,
                    cell: str | None = None) -> Model:
    """Validate a model file's tables (`data`, read from `text` at `path`), or those a
    matrix file gives one of its cells."""
    def where(table, key=None):
        return f"{path}:{locate(text, table, key)}"

    _check_keys(data, _TOP, None, where)
    if "spec" not in data:
        raise ModelError('missing key spec (e.g. spec = "examples.diehard:DieHard")', str(path))
    check = data.get("check", {})
    _check_keys(check, _CHECK, "check", where)
    engine = check.get("engine", "explicit")
    if engine not in ENGINES:
        raise ModelError(f"unknown engine {engine!r} (available: {', '.join(ENGINES)})",
                         where("check", "engine"))
    try:
        store = Store(check.get("store", Store.AUTO))
    except ValueError:
        raise ModelError(f"unknown store {check['store']!r} (available: "
                         f"{', '.join(s.value for s in Store)})", where("check", "store")) from None
    props = check.get("properties")
    if props is not None and not all(isinstance(p, str) for p in props):
        raise ModelError("properties must be a list of property names", where("check", "properties"))
    lemmas = check.get("lemmas")
    if lemmas is not None and not all(isinstance(p, str) for p in lemmas):
        raise ModelError('lemmas must be a list of invariant names or patterns (e.g. "lemma_*")',
                         where("check", "lemmas"))
    symmetry = check.get("symmetry", [])
    if not all(isinstance(name, str) for name in symmetry):
        raise ModelError("symmetry must be a list of names (an Enum, a tuple of its members, an "
                         "Int[lo, hi] of the spec)", where("check", "symmetry"))
    for key in ("max_states", "max_seconds", "max_depth", "traces_per_property", "walks"):
        if key in check and not check[key] > 0:                  # nan is not a limit either
            raise ModelError(f"{key} must be positive, got {check[key]}", where("check", key))
    expect = {}
    for name, verdict in data.get("expect", {}).items():
        try:
            expect[name] = Verdict(verdict)
        except ValueError:
            raise ModelError(f"expected verdict of {name} must be one of holds, violated, "
                             f"unknown; got {verdict!r}", where("expect", name)) from None
    groups = data.get("groups", {})
    constants = dict(data.get("constants", {}))
    constants.update(overrides or {})
    options = CheckOptions(properties=props, deadlock=check.get("deadlock", False),
                           max_states=check.get("max_states"),
                           max_seconds=check.get("max_seconds"),
                           max_depth=check.get("max_depth"), store=store, symmetry=symmetry,
                           traces_per_property=check.get("traces_per_property", 1),
                           walks=check.get("walks", 1000), seed=check.get("seed", 0),
                           lemmas=lemmas)
    spec_cls = import_spec(data["spec"], path, where(None, "spec"))
    symbolic = {k: v for k, v in data.get("symbolic", {}).items() if k not in (overrides or {})}
    return Model(path, text, spec_cls, data.get("description", ""), constants, groups,
                 data.get("fairness", {}), engine, options, expect, symbolic, cell)


def _check_keys(table: dict, schema: dict, name: str | None, where):
    for key, value in table.items():
        if key not in schema:
            allowed = ", ".join(schema)
            raise ModelError(f"unknown key {key!r}" + (f" in [{name}]" if name else "") +
                             f" (allowed: {allowed})", where(name, key))
        kinds = schema[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and kinds in (int, (int, float))):
            expected = kinds.__name__ if isinstance(kinds, type) else "number"
            expected = {"dict": "table", "list": "array", "str": "string"}.get(expected, expected)
            raise ModelError(f"{key} must be a {expected}, got {type(value).__name__} {value!r}",
                             where(name, key))


def import_spec(ref: str, model_path: Path, where: str) -> type:
    """Import 'package.module:Class', looking next to the model file's project too."""
    module_name, _, cls_name = ref.partition(":")
    if not all(part.isidentifier() for part in module_name.split(".")) or not cls_name.isidentifier():
        raise ModelError(f'spec must look like "package.module:Class", got {ref!r}', where)
    top = module_name.split(".")[0]
    for parent in model_path.resolve().parents:
        if (parent / top).is_dir() or (parent / f"{top}.py").is_file():
            if str(parent) not in sys.path:
                sys.path.insert(0, str(parent))
            break
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        raise ModelError(f"cannot import spec module {module_name!r}: {e}", where) from None
    except SpecError:
        raise
    except SyntaxError as e:
        raise SpecError(f"spec module {module_name}: syntax error: {e.msg}",
                        f"{e.filename}:{e.lineno}") from None
    except SPEC_FAILURES as e:
        if isinstance(e.__cause__, SpecError):  # Python 3.11 wraps what `__set_name__` raised
            raise e.__cause__ from None
        raise SpecError(f"importing {module_name} raised {type(e).__name__}: {e}",
                        user_frame(e) or where) from None
    found = getattr(module, cls_name, None)
    if isinstance(found, type) and issubclass(found, Spec):
        return found
    if top in sys.stdlib_module_names:
        raise ModelError(f"{module_name} is a module of Python's standard library, not a spec "
                         f"module (a module of yours of that name is shadowed by it)", where)
    if not hasattr(module, cls_name):
        raise ModelError(f"module {module_name} has no spec class {cls_name!r}", where)
    raise ModelError(f"{ref} is not a subclass of checker.Spec", where)
