"""What the gate writes for CI systems: JUnit XML, SARIF, and a Markdown summary.

Each verdict that moved becomes a JUnit failure, a SARIF result at the property's
definition with the trace as a code flow through the actions' definitions, and a Mermaid
sequence diagram in the Markdown summary. Each is checked against what its consumer
really accepts (tests/test_reports.py: the SARIF 2.1.0 schema, Jenkins' JUnit schema,
Mermaid itself).
"""
from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

from ..lang.dsl import Kind
from ..gate import ModelOutcome, key, summary
from .mermaid import sequence
from ..results import PropertyResult, Verdict

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
COMMENT_LIMIT = 65_536
"""GitHub's limit on a pull-request comment and on a job summary, in characters."""


def _unexpected(outcome: ModelOutcome) -> list[PropertyResult]:
    return [p for p in outcome.result.properties
            if p.verdict is not Verdict.UNKNOWN and not p.as_expected] if outcome.result else []


def _coverage_lost(outcome: ModelOutcome) -> list[str]:
    """The moves that are no verdict: an action that stopped firing, a witness gone."""
    names = {p.name for p in outcome.result.properties} if outcome.result else set()
    return [m for m in outcome.moved if m.split(":")[0] not in names]


def _version() -> str:
    try:
        return metadata.version("check-model")
    except metadata.PackageNotFoundError:
        return "0.0.0"


def _homepage() -> str | None:
    """The first `[project.urls]` address the installed package declares."""
    try:
        urls = metadata.metadata("check-model").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    return urls[0].partition(", ")[2] or None if urls else None


# ---------------------------------------------------------------- JUnit

def junit(outcomes: list[ModelOutcome]) -> str:
    """One suite per model (its time, tests, failures, errors, skipped); the classname is
    the model's path with dots, which Jenkins splits into package and class; lemmas
    (invariants no `[expect]` claims) are a class of their own."""
    root = ET.Element("testsuites", name="check-model gate")
    for o in outcomes:
        suite = ET.SubElement(root, "testsuite", name=o.name,
                              time=f"{o.result.stats.seconds:.3f}" if o.result else "0")
        model = re.sub(r"\.toml$", "", key(o.path)).replace("/", ".").replace("\\", ".") + \
            (f".{o.cell.name}" if o.cell else "")
        if o.error:
            case = ET.SubElement(suite, "testcase", classname=model, name="load")
            ET.SubElement(case, "error", message=o.error, type="model-error").text = o.error
        for p in o.result.properties if o.result else []:
            lemma = p.expected is None and p.kind == Kind.INVARIANT
            classname = f"{model}.lemmas" if lemma else model
            case = ET.SubElement(suite, "testcase", classname=classname, name=p.name)
            wanted = (p.expected or Verdict.HOLDS).value
            if p.undecided:
                ET.SubElement(case, "skipped", message=f"unknown: {p.reason}")
            elif not p.as_expected:
                steps = p.trace.steps[1:] if p.trace is not None else []
                ET.SubElement(case, "failure", type="unexpected-verdict",
                              message=f"expected {wanted}, got {p.verdict.value}"
                                      + (f"; trace {p.trace_path}" if p.trace_path else "")
                              ).text = "\n".join(f"{i}. {s.label}" for i, s in enumerate(steps, 1))
        lost = _coverage_lost(o)
        if lost:
            case = ET.SubElement(suite, "testcase", classname=model, name="coverage")
            ET.SubElement(case, "failure", type="coverage-lost",
                          message="; ".join(lost)).text = "\n".join(lost)
        for count, tag in (("tests", "testcase"), ("failures", "testcase/failure"),
                           ("errors", "testcase/error"), ("skipped", "testcase/skipped")):
            suite.set(count, str(len(suite.findall(tag))))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


# ---------------------------------------------------------------- SARIF

_RULES = [
    ("unexpected-verdict", "A property's verdict moved away from [expect]",
     "The model file's [expect] table says what each property's verdict must be; this "
     "run found another. An invariant expected to hold was violated (the code flow is "
     "the counterexample, step by step), or a witness or a violation that was expected "
     "is gone.",
     "Read the trace with `check-model show TRACE --html page.html`. If the spec is "
     "right and the new verdict is what you meant, update [expect] in the model file."),
    ("coverage-lost", "An action stopped firing or a witness disappeared",
     "The gate baseline recorded this action firing (or this witness found) on the "
     "model; now it never does. Dead spec code or a vacuous property passes every "
     "invariant for the wrong reason.",
     "Check the action's guard; if the change is intended, record it with "
     "`check-model gate --update-baseline`."),
    ("model-error", "A model could not be checked",
     "Loading the model file, binding its spec or running an action failed; the "
     "message names the file and line.",
     "Fix the line named; `check-model MODEL` reproduces the error."),
]


def _location(where: str | None, fallback: Path, message: str | None = None) -> dict:
    """A physical location at `where` (`file:line`, or a file), else line 1 of `fallback`,
    relative to the working directory when below it (as code scanning expects)."""
    uri, line = Path(where or fallback), 1
    m = re.match(r"(.*):(\d+)$", where or "")
    if m:
        uri, line = Path(m.group(1)), int(m.group(2))
    try:
        uri = uri.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        pass
    location = {"physicalLocation": {"artifactLocation": {"uri": uri.as_posix()},
                                     "region": {"startLine": line}}}
    if message:
        location["message"] = {"text": message}
    return location


def _fingerprint(*parts: str) -> dict:
    """Tells results at one location apart (one property failing in several models)."""
    return {"checkModel/v1": hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]}


def _code_flow(o: ModelOutcome, p: PropertyResult) -> dict:
    """The trace: the initial state at the property, then each step at its action's
    definition (and a lasso's step back into its cycle)."""
    flow = [{"location": _location(p.where, o.path, "0. initial state")}]
    for i, step in enumerate(p.trace.steps[1:], 1):
        fault = " (fault)" if step.kind == Kind.FAULT else ""
        flow.append({"location": _location(o.actions.get(step.action, {}).get("where"), o.path,
                                           f"{i}. {step.label}{fault}")})
    if p.trace.closing is not None:
        flow.append({"location": _location(o.actions.get(p.trace.closing.action, {}).get("where"),
                                           o.path, f"{p.trace.closing.label}: back to state "
                                                   f"{p.trace.loop}, forever")})
    return {"threadFlows": [{"locations": flow}]}


def _results(o: ModelOutcome) -> list[dict]:
    model = o.name
    found = []
    if o.error:
        found.append({"ruleId": "model-error", "level": "error", "message": {"text": o.error},
                      "locations": [_location(o.error_where, o.path)],
                      "partialFingerprints": _fingerprint("model-error", model)})
    for p in _unexpected(o):
        wanted = (p.expected or Verdict.HOLDS).value
        result = {
            "ruleId": "unexpected-verdict", "level": "error",
            "message": {"text": f"{model}: {p.name} ({p.kind}) expected {wanted}, "
                                f"got {p.verdict.value}"},
            "locations": [_location(p.where, o.path)],
            "partialFingerprints": _fingerprint("unexpected-verdict", model, p.name),
            "properties": {"model": model, "trace": p.trace_path},
        }
        if p.trace is not None:
            result["codeFlows"] = [_code_flow(o, p)]
        found.append(result)
    for line in _coverage_lost(o):
        found.append({"ruleId": "coverage-lost", "level": "error",
                      "message": {"text": f"{model}: {line}"},
                      "locations": [_location(None, o.path)],
                      "partialFingerprints": _fingerprint("coverage-lost", model, line)})
    return found


def sarif(outcomes: list[ModelOutcome]) -> str:
    rules = [{"id": rule, "name": re.sub(r"-(\w)", lambda m: m.group(1).upper(), rule.title()),
              "shortDescription": {"text": short}, "fullDescription": {"text": full},
              "help": {"text": help_text}, "defaultConfiguration": {"level": "error"}}
             for rule, short, full, help_text in _RULES]
    driver = {"name": "check-model", "version": _version(), "semanticVersion": _version(),
              "rules": rules}
    if _homepage():
        driver["informationUri"] = _homepage()
    doc = {"version": "2.1.0", "$schema": SARIF_SCHEMA, "runs": [{
        "tool": {"driver": driver}, "results": [r for o in outcomes for r in _results(o)]}]}
    return json.dumps(doc, indent=1) + "\n"


# ---------------------------------------------------------------- Markdown

def markdown(outcomes: list[ModelOutcome], limit: int = COMMENT_LIMIT) -> str:
    """The summary table, then a diagram per moved verdict while they fit in `limit`
    characters (GitHub's); the rest are named, their traces in the artifact."""
    text = f"## check-model gate: {summary(outcomes)}\n\n" \
           "| model | status | distinct states | notes |\n|---|---|---|---|\n"
    rows = sorted(outcomes, key=lambda o: o.status == "ok")      # what moved first
    for i, o in enumerate(rows):
        states = f"{o.result.stats.distinct_states:,}" if o.result else "-"
        notes = "; ".join(o.moved + o.notes + ([o.error] if o.error else [])).replace("|", "\\|")
        row = f"| `{o.name}` | {o.status} | {states} | {notes} |\n"
        if len(text) + len(row) > limit // 2:
            text += f"| {len(rows) - i} more models | | | in the artifact |\n"
            break
        text += row
    left_out = []
    for o in outcomes:
        for p in _unexpected(o):
            wanted = (p.expected or Verdict.HOLDS).value
            title = f"`{o.name}`: {p.name} expected {wanted}, got {p.verdict.value}"
            if p.trace is None:
                continue
            part = "\n".join(["", f"### {title}", "", f"{len(p.trace.steps) - 1} steps, trace "
                              f"`{p.trace_path}`", "", "```mermaid",
                              sequence(p.trace, o.actions, p.name, p.verdict.value), "```"]) + "\n"
            if len(text) + len(part) + 200 * (len(left_out) + 1) > limit:
                left_out.append(title)
            else:
                text += part
    if left_out:
        text += f"\n### {len(left_out)} more moved, their traces in the artifact\n\n" + \
                "".join(f"- {t}\n" for t in left_out)
    return text[:limit]
