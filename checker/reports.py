"""What the gate writes for CI systems: JUnit XML, SARIF, and a Markdown PR comment.

Each violated-but-unexpected property becomes a JUnit failure, a SARIF result pointing
at the property's definition with the trace as a code flow, and a Mermaid sequence
diagram in the Markdown summary.
"""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from .dsl import Kind
from .gate import ModelOutcome, key, summary
from .results import Verdict

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _unexpected(outcome: ModelOutcome):
    return [p for p in outcome.result.properties
            if p.verdict is not Verdict.UNKNOWN and not p.as_expected] if outcome.result else []


def _steps(prop) -> list[tuple[str, str]]:
    """(kind, label) of each step after the initial state."""
    return [(s.kind, s.label) for s in prop.trace.steps[1:]] if prop.trace is not None else []


# ---------------------------------------------------------------- JUnit

def junit(outcomes: list[ModelOutcome]) -> str:
    root = ET.Element("testsuites", name="check-model gate")
    for o in outcomes:
        suite = ET.SubElement(root, "testsuite", name=key(o.path))
        cases = 0
        if o.error:
            case = ET.SubElement(suite, "testcase", classname=key(o.path), name="load")
            ET.SubElement(case, "error", message=o.error).text = o.error
            cases = 1
        if o.result:
            seconds = o.result.stats.seconds
            for p in o.result.properties:
                case = ET.SubElement(suite, "testcase", classname=key(o.path), name=p.name,
                                     time=f"{seconds:.3f}")
                cases += 1
                wanted = (p.expected or Verdict.HOLDS).value
                if p.undecided:
                    ET.SubElement(case, "skipped", message=f"unknown: {p.reason}")
                elif not p.as_expected:
                    text = "\n".join(f"{i}. {label}" for i, (_, label) in enumerate(_steps(p), 1))
                    ET.SubElement(case, "failure", message=f"expected {wanted}, got "
                                  f"{p.verdict.value}; trace {p.trace_path}").text = text
            others = [m for m in o.moved if not any(m.startswith(f"{p.name}:")
                                                    for p in o.result.properties)]
            if others:
                case = ET.SubElement(suite, "testcase", classname=key(o.path), name="coverage")
                ET.SubElement(case, "failure", message="; ".join(others)).text = "\n".join(others)
                cases += 1
        suite.set("tests", str(cases))
        suite.set("failures", str(len(suite.findall("testcase/failure"))))
        suite.set("errors", str(len(suite.findall("testcase/error"))))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


# ---------------------------------------------------------------- SARIF

def _location(where: str | None, fallback: Path) -> dict:
    uri, line = fallback, 1
    if where:
        m = re.match(r"(.*):(\d+)$", where)
        if m:
            uri, line = Path(m.group(1)), int(m.group(2))
    try:
        uri = Path(uri).resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        pass
    return {"physicalLocation": {"artifactLocation": {"uri": str(uri)},
                                 "region": {"startLine": line}}}


def sarif(outcomes: list[ModelOutcome]) -> str:
    results = []
    for o in outcomes:
        if o.error:
            results.append({"ruleId": "model-error", "level": "error",
                            "message": {"text": o.error}, "locations": [_location(None, o.path)]})
        for p in _unexpected(o):
            wanted = (p.expected or Verdict.HOLDS).value
            result = {
                "ruleId": "unexpected-verdict", "level": "error",
                "message": {"text": f"{key(o.path)}: {p.name} ({p.kind}) expected {wanted}, "
                                    f"got {p.verdict.value}"},
                "locations": [_location(p.where, o.path)],
                "properties": {"model": key(o.path), "trace": p.trace_path},
            }
            if p.trace is not None:
                result["codeFlows"] = [{"threadFlows": [{"locations": [
                    {"location": {"message": {"text": f"{i}. {label}" + (" (fault)" if kind == Kind.FAULT else "")}}}
                    for i, (kind, label) in enumerate(_steps(p), 1)]}]}]
            results.append(result)
        for line in o.moved:
            if not any(line.startswith(f"{p.name}:") for p in _unexpected(o)):
                results.append({"ruleId": "coverage-lost", "level": "error",
                                "message": {"text": f"{key(o.path)}: {line}"},
                                "locations": [_location(None, o.path)]})
    rules = [{"id": "unexpected-verdict", "shortDescription": {"text": "A property's verdict moved away from [expect]"}},
             {"id": "coverage-lost", "shortDescription": {"text": "An action stopped firing or a witness disappeared"}},
             {"id": "model-error", "shortDescription": {"text": "A model could not be checked"}}]
    doc = {"version": "2.1.0", "$schema": SARIF_SCHEMA, "runs": [{
        "tool": {"driver": {"name": "check-model", "rules": rules}}, "results": results}]}
    return json.dumps(doc, indent=1) + "\n"


# ---------------------------------------------------------------- Markdown

def _mermaid_id(name: str) -> str:
    return re.sub(r"\W", "_", name)


def mermaid(prop, actors: dict[str, tuple[str, str | None]]) -> str:
    """The trace as a sequence diagram: one participant per actor, a step as a message
    from its actor to the actor it calls (or to itself), faults as notes."""
    seen: list[str] = []
    body = []
    for step in prop.trace.steps[1:]:
        actor, target = actors.get(step.action, ("spec", None))
        for name in (actor, target):
            if name and name not in seen:
                seen.append(name)
        label = step.label.replace(";", ",").replace("#", "")
        if step.kind == Kind.FAULT:
            body.append(f"    Note over {_mermaid_id(actor)}: ⚡ {label}")
        else:
            body.append(f"    {_mermaid_id(actor)}->>{_mermaid_id(target or actor)}: {label}")
    return "\n".join(["sequenceDiagram", *(f"    participant {_mermaid_id(a)} as {a}" for a in seen),
                      *body])


def markdown(outcomes: list[ModelOutcome]) -> str:
    head = f"## check-model gate: {summary(outcomes)}"
    rows = ["| model | status | distinct states | notes |", "|---|---|---|---|"]
    for o in outcomes:
        states = f"{o.result.stats.distinct_states:,}" if o.result else "-"
        notes = "; ".join(o.moved + o.notes + ([o.error] if o.error else [])).replace("|", "\\|")
        rows.append(f"| `{key(o.path)}` | {o.status} | {states} | {notes} |")
    parts = [head, "", *rows]
    for o in outcomes:
        for p in _unexpected(o):
            if p.trace is None:
                continue
            wanted = (p.expected or Verdict.HOLDS).value
            parts += ["", f"### `{key(o.path)}`: {p.name} expected {wanted}, got {p.verdict.value}",
                      "", f"{len(p.trace.steps) - 1} steps, trace `{p.trace_path}`", "",
                      "```mermaid", mermaid(p, o.actors), "```"]
    return "\n".join(parts) + "\n"
