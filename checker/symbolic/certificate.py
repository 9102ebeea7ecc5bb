"""Proof certificates: the inductive invariant PDR found, and re-checking it from scratch.

A certificate names the model, the property and the leaves of the state it ranges over
(the cones of influence of the proofs it joins: often a subset of the spec's), and holds
the invariant Inv as SMT-LIB text. `check-model certify CERT MODEL` rebuilds Init and
Next from the spec with a fresh solver and checks initiation (Init => Inv), consecution
(Inv /\\ Next => Inv') and safety (Inv => no bad state, no failure): then the property
holds in every reachable state, whatever engine produced Inv.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import re
from pathlib import Path
from typing import Any

import z3

from ..errors import TraceError
from ..files import file_name
from ..lang.model_values import written
from ..options import CheckOptions
from ..results import PropertyResult
from .interrupt import answer, ctrl_c_interrupts_z3
from .relation import Relation


@dataclasses.dataclass
class Proved(PropertyResult):
    """A verdict with the proof behind it."""

    certificate: Any = None


@dataclasses.dataclass
class Certificate:
    """An inductive invariant for one property of one model, as SMT-LIB over the leaves."""

    spec: str
    property: str
    kind: str
    constants: dict
    leaves: list[str]
    invariant: str              # SMT-LIB term over the leaves
    readable: str               # the same, as Z3 prints it
    size: int                   # top-level conjuncts
    source: str | None = dataclasses.field(default=None, compare=False)   # the file read

    @classmethod
    def of(cls, machine, goal, invariant: "SharedInvariant") -> "Certificate":
        """The certificate of `goal`: the invariant PDR proved it with."""
        text, readable, size = invariant.texts
        return cls(machine.spec_cls.__name__, goal.name, goal.kind, _plain(machine.env),
                   [str(leaf) for leaf in invariant.leaves], text, readable, size)

    def to_json(self) -> dict:
        data = dataclasses.asdict(self)
        del data["source"]
        return {"format": "check-model certificate", **data}

    def write(self, trace_dir: Path, model_name: str) -> Path:
        """Write it next to the model's traces: `trace_dir/<model>/<property>.cert.json`."""
        path = trace_dir / model_name / file_name(self.property, ".cert.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        return path

    @classmethod
    def read(cls, path: str | Path) -> "Certificate":
        """The certificate in `path`; anything else there is a TraceError naming the file."""
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError, RecursionError) as e:
            raise TraceError(f"cannot read the certificate: {e}", str(path)) from None
        if not isinstance(data, dict) or data.pop("format", None) != "check-model certificate":
            raise TraceError("not a check-model certificate", str(path))
        wrong = _wrong_field(data)
        if wrong:
            raise TraceError(wrong, str(path))
        return cls(**data, source=str(path))


@dataclasses.dataclass
class SharedInvariant:
    """An invariant over `leaves` (and symbolic constants), simplified and printed once:
    PDR proves a model's properties together, so their certificates share it (six on
    proofs/no_faults, where printing it took a second or more each time)."""

    formula: z3.BoolRef
    leaves: list

    @functools.cached_property
    def texts(self) -> tuple[str, str, int]:
        """SMT-LIB text, Z3's (truncated) print of it, and its number of conjuncts."""
        formula = z3.simplify(self.formula)
        conjuncts = formula.children() if z3.is_and(formula) else [formula]
        return formula.sexpr(), str(formula), len(conjuncts)


_FIELDS = {"spec": str, "property": str, "kind": str, "constants": dict, "leaves": list,
           "invariant": str, "readable": str, "size": int}
_JSON = {str: "a JSON string", dict: "a JSON object", int: "a JSON integer",
         list: "a list of strings"}


def _wrong_field(data: dict) -> str | None:
    """What is wrong with a certificate's fields (a key unknown or missing, a wrong type)."""
    unknown = sorted(data.keys() - _FIELDS)
    if unknown:
        return f"unknown key {unknown[0]!r} in the certificate"
    for key, kind in _FIELDS.items():
        if key not in data:
            return f"the certificate has no {key!r}"
        value = data[key]
        if type(value) is not kind or (kind is list and not all(isinstance(x, str) for x in value)):
            return f"{key!r} must be {_JSON[kind]}, got {json.dumps(value)[:60]}"
    return None


def _args(rel) -> list:
    return rel.flat + list(rel.params.values())


def _plain(env: dict) -> dict:
    return {k: written(v, lambda e: e.name) for k, v in env.items()}


def _invariant(cert: Certificate, decls: dict) -> z3.BoolRef:
    """The certificate's invariant, parsed over the spec's variables."""
    try:
        formulas = z3.parse_smt2_string(f"(assert {cert.invariant})", decls=decls)
    except z3.Z3Exception as e:
        text = e.value.decode(errors="replace") if isinstance(e.value, bytes) else str(e)
        found = re.search(r'error "(?:line \d+ column \d+: )?([^"]*)"', text)
        why = found.group(1) if found else text
        why = "".join(c if c.isprintable() else repr(c)[1:-1] for c in why)    # one line
    else:
        if len(formulas) == 1:
            return formulas[0]
        why = f"{len(formulas)} formulas"
    raise TraceError(f"the invariant is not one SMT-LIB formula over the spec's variables "
                     f"({why})", cert.source)


class Certifier:
    """Re-checks certificates against one machine with fresh solvers, reading its
    relation once. PDR proves a model's properties together, so their certificates
    usually hold one invariant: its initiation and consecution are checked once."""

    def __init__(self, machine, rel: Relation | None = None):
        """`rel`: the machine's relation freshly read (never from the cache)."""
        self.machine, self.rel = machine, rel or Relation(machine)
        self.decls = {str(leaf): leaf for leaf in _args(self.rel)}
        self.inductive: dict[str, list[str]] = {}      # invariant -> its failed obligations

    def check(self, cert: Certificate) -> list[str]:
        """The obligations `cert` fails (none: the property holds in every reachable state)."""
        from .engine import goals
        rel = self.rel
        if cert.spec != self.machine.spec_cls.__name__:
            return [f"the certificate is for spec {cert.spec}, not {self.machine.spec_cls.__name__}"]
        unknown = [name for name in cert.leaves if name not in self.decls]
        if unknown:
            return [f"the certificate's variables are not the spec's: {', '.join(unknown[:5])}"]
        inv = _invariant(cert, self.decls)
        options = CheckOptions([cert.property], deadlock=cert.property == "deadlock")
        found = [g for g in goals(rel, options) if g.name == cert.property]
        if not found:
            raise TraceError(f"the spec has no property {cert.property!r} that a proof decides "
                             f"(an invariant, @reachable or deadlock)", cert.source)
        with ctrl_c_interrupts_z3():
            if cert.invariant not in self.inductive:
                self.inductive[cert.invariant] = self._inductive(inv)
            failed = list(self.inductive[cert.invariant])
            if _holds(z3.And(rel.valid, inv, z3.Or(found[0].bad, rel.failing()))):
                failed.append("safety (Inv => no bad state, no failure)")
        return failed

    def _inductive(self, inv: z3.BoolRef) -> list[str]:
        """Initiation and consecution, those that fail. Consecution goes one step at a
        time, on one solver that holds Inv: each query is a step's guard with Inv over
        its next-state terms, far smaller than the whole of Next (a third of the time on
        the RayJob proofs)."""
        rel, failed = self.rel, []
        if _holds(z3.And(rel.valid, rel.is_initial(rel.flat), z3.Not(inv))):
            failed.append("initiation (Init => Inv)")
        solver = z3.Solver()
        solver.add(rel.valid, inv)
        for i, step in enumerate(rel.steps):
            solver.push()
            solver.add(step.guard, rel.allowed(i), rel.rename(rel.valid, step.next),
                       z3.Not(rel.rename(inv, step.next)))
            outcome = answer(solver.check)
            solver.pop()
            if outcome != z3.unsat:
                return failed + ["consecution (Inv /\\ Next => Inv')"]
        return failed


def _holds(query: z3.BoolRef) -> bool:
    """Whether `query` may hold (satisfiable, or not shown otherwise)."""
    solver = z3.Solver()
    solver.add(query)
    return answer(solver.check) != z3.unsat


def certify(cert: Certificate, machine) -> list[str]:
    """Re-check one certificate against the machine (see Certifier); the failed obligations."""
    return Certifier(machine).check(cert)
