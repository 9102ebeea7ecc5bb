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
import enum
import json
from pathlib import Path
from typing import Any

import z3

from ..errors import TraceError
from ..explorer import CheckOptions
from ..results import PropertyResult
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

    @classmethod
    def of(cls, machine, goal, invariant: z3.BoolRef, leaves: list) -> "Certificate":
        """The certificate of `goal`: `invariant`, over `leaves` (and symbolic constants)."""
        invariant = z3.simplify(invariant)
        conjuncts = invariant.children() if z3.is_and(invariant) else [invariant]
        return cls(machine.spec_cls.__name__, goal.name, goal.kind, _plain(machine.env),
                   [str(leaf) for leaf in leaves], invariant.sexpr(), str(invariant),
                   len(conjuncts))

    def to_json(self) -> dict:
        return {"format": "check-model certificate", **dataclasses.asdict(self)}

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        return path

    @classmethod
    def read(cls, path: str | Path) -> "Certificate":
        try:
            data = json.loads(Path(path).read_text())
            if data.pop("format", None) != "check-model certificate":
                raise ValueError("not a check-model certificate")
            return cls(**data)
        except (OSError, ValueError, TypeError) as e:
            raise TraceError(f"cannot read the certificate: {e}", str(path)) from None


def _args(rel) -> list:
    return rel.flat + list(rel.params.values())


def _plain(env: dict) -> dict:
    return {k: v.name if isinstance(v, enum.Enum) else v for k, v in env.items()}


def certify(cert: Certificate, machine) -> list[str]:
    """Re-check `cert` against the machine with a fresh solver; the failed obligations."""
    from .engine import goals
    if cert.spec != machine.spec_cls.__name__:
        return [f"the certificate is for spec {cert.spec}, not {machine.spec_cls.__name__}"]
    rel = Relation(machine)
    decls = {str(leaf): leaf for leaf in _args(rel)}
    unknown = [name for name in cert.leaves if name not in decls]
    if unknown:
        return [f"the certificate's variables are not the spec's: {', '.join(unknown[:5])}"]
    inv = z3.parse_smt2_string(f"(assert {cert.invariant})", decls=decls)[0]
    (goal,) = [g for g in goals(rel, CheckOptions([cert.property], deadlock=cert.property == "deadlock")) if g.name == cert.property]
    xs2 = rel.copy("next")
    obligations = {
        "initiation (Init => Inv)": z3.And(rel.valid, rel.is_initial(rel.flat), z3.Not(inv)),
        "consecution (Inv /\\ Next => Inv')": z3.And(
            rel.valid, inv, rel.next(xs2), rel.rename(rel.valid, xs2),
            z3.Not(rel.rename(inv, xs2))),
        "safety (Inv => no bad state, no failure)": z3.And(
            rel.valid, inv, z3.Or(goal.bad, rel.failing())),
    }
    failed = []
    for name, query in obligations.items():
        solver = z3.Solver()
        solver.add(query)
        if solver.check() != z3.unsat:
            failed.append(name)
    return failed
