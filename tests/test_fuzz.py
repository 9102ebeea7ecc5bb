"""Fuzzing every input the command line reads: model files, ITF traces, certificates,
gate baselines, mutant catalogs and the arguments themselves, random or mutated from
real ones.

The property: every run exits 0-3 and never shows a Python traceback, and every exit 2
(a user's mistake) is one line naming the file at fault, with the line where the file
has lines. Runs go through click's CliRunner in-process, on tiny specs with small
limits. The default profile ("ci") is derandomized and takes well under a minute; for a
longer, random search: `HYPOTHESIS_PROFILE=long pytest tests/test_fuzz.py`.
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import math
import os
import re
import shutil
import textwrap
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from checker.cli import main
from checker.engines import ENGINES
from test_spec_failures import SPECS           # the spec the raising code is added to

ROOT = Path(__file__).resolve().parent.parent
DIEHARD = ROOT / "examples" / "models" / "diehard.toml"
TCOMMIT = ROOT / "examples" / "models" / "tcommit.toml"
REAL_TRACES = sorted((ROOT / "examples" / "traces").rglob("*.itf.json"))
RAYJOB_TRACES = [(trace, model) for trace in REAL_TRACES        # with the model each replays in
                 for model in [ROOT / "models" / "rayjob" / f"{trace.parent.name}.toml"] if model.exists()]

for name, long in (("ci", False), ("long", True)):      # ci: the same examples every run
    settings.register_profile(name, deadline=None, derandomize=not long, report_multiple_bugs=long,
                              database=None, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.data_too_large])
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
SCALE = {"ci": 1, "long": 30}[PROFILE]


def fuzz(examples: int):
    """Settings for one fuzz test: `examples` runs in the ci profile, 30 times as many
    in the long one."""
    return settings(settings.get_profile(PROFILE), max_examples=examples * SCALE)


# ------------------------------------------------------------------ the property

def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)


def assert_answers(result, *culprits) -> None:
    """Exit 0-3 without a traceback; exit 2 is one line naming one of `culprits` (the
    files the input was written to), with `:line` when the file was not valid JSON/TOML.
    Without culprits, an exit 2 is one line, click's usage message, or the gate's table
    (a line per model, a line per error)."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code in (0, 1, 2, 3), result.output
    assert "Traceback" not in result.output, result.output
    if result.exit_code != 2 or (not culprits and ("Usage:" in result.output or
                                                   re.search(r"^error +\S", result.output, re.M))):
        return
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    if culprits:
        assert any(str(c) in lines[0] for c in culprits), lines[0]
    if "not valid JSON" in lines[0] or "not valid TOML" in lines[0]:
        assert re.search(r":\d+: ", lines[0]), lines[0]


# ------------------------------------------------------------------ inputs

def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


KEYS = st.sampled_from(["#bigint", "#set", "#map", "#tup", "#unserializable", "#meta", "tag",
                        "value", "action", "kind", "params", "choices", "property", "ghost",
                        "loop", "vars", "states", "spec", "fired", "witnesses", "invariant",
                        "leaves", "name", "model", "property"]) | st.text(max_size=6)
SCALARS = (st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
           | st.from_regex(r"-?[0-9]{1,25}", fullmatch=True))
JSON = st.recursive(st.none() | SCALARS,
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
                    max_leaves=8)
TOML_VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(KEYS, inner, max_size=3), max_leaves=6)

ITF_VALUES = st.recursive(
    st.booleans() | st.integers(-2**60, 2**60) | st.text(max_size=6)
    | st.builds(lambda n: {"#bigint": str(n)}, st.integers()),
    lambda inner: (st.lists(inner, max_size=3)
                   | st.builds(lambda xs: {"#set": xs}, st.lists(inner, max_size=3))
                   | st.builds(lambda xs: {"#tup": xs}, st.lists(inner, max_size=3))
                   | st.builds(lambda kvs: {"#map": [list(kv) for kv in kvs]},
                               st.lists(st.tuples(inner, inner), max_size=3))
                   | st.dictionaries(st.text(max_size=5).filter(lambda k: not k.startswith("#")),
                                     inner, max_size=3)
                   | st.builds(lambda tag, value: {"tag": tag, "value": value}, st.text(max_size=5), inner)),
    max_leaves=10)

# Text inserted by mutations: the syntax of JSON and TOML, escapes, bad bytes.
SNIPPETS = st.sampled_from([b"[", b"]", b"{", b"}", b'"', b",", b":", b"=", b"\n", b"[[", b"#",
                            b"\\u", b"\\ud800", b"\xff", b"\x00", b"1e999", b"-", b"null",
                            b"true", b"9" * 30]) | st.binary(max_size=8)


def nodes(doc, path=()):
    """(path, node) for every node of a JSON (or TOML) document."""
    yield path, doc
    children = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, child in children:
        yield from nodes(child, (*path, key))


def mutate_doc(data, doc, values=JSON):
    """`doc` with one to three nodes replaced by a random value, deleted, or (lists)
    cut to a prefix; the nodes near the top, where the structure is, come up often."""
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p, _ in nodes(doc) if p]
        if not paths:
            break
        path = data.draw(st.sampled_from([p for p in paths if len(p) <= 3] or paths)
                         | st.sampled_from(paths))
        *up, key = path
        parent = doc
        for part in up:
            parent = parent[part]
        op = data.draw(st.sampled_from(["replace", "delete", "prefix"]))
        if op == "replace":
            parent[key] = data.draw(values)
        elif op == "delete":
            del parent[key]
        elif isinstance(parent[key], list):
            del parent[key][data.draw(st.integers(0, len(parent[key]))):]
    return doc


def mutate_bytes(data, text: bytes) -> bytes:
    """`text` with a few slices deleted, replaced or inserted, or cut short."""
    for _ in range(data.draw(st.integers(1, 3))):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, min(len(text), start + 16)))
        op = data.draw(st.sampled_from(["delete", "replace", "insert", "truncate"]))
        if op == "truncate":
            return text[:start]
        insert = b"" if op == "delete" else data.draw(SNIPPETS)
        text = text[:start] + insert + (text[start:] if op == "insert" else text[end:])
    return text


def mutated_json(data, text: str) -> str | bytes:
    """A JSON file mutated as a document or as text, or re-encoded as UTF-16."""
    how = data.draw(st.sampled_from(["doc", "bytes", "utf-16"]))
    if how == "doc":
        return json.dumps(mutate_doc(data, json.loads(text)))
    if how == "utf-16":
        return text.encode("utf-16")
    return mutate_bytes(data, text.encode())


def toml_text(doc: dict) -> str:
    """TOML for a model file or a mutant catalog: top-level values, then a table for each
    dict, an array of tables for each list of dicts."""
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float) and not math.isfinite(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, list):
            return "[" + ", ".join(map(value, v)) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
        return json.dumps(v)

    def table(d):
        return [f"{json.dumps(k)} = {value(v)}" for k, v in d.items()]

    def is_tables(v):
        return isinstance(v, list) and v and all(isinstance(x, dict) for x in v)

    lines = table({k: v for k, v in doc.items() if not isinstance(v, dict) and not is_tables(v)})
    for k, v in doc.items():
        if isinstance(v, dict):
            lines += [f"[{json.dumps(k)}]", *table(v)]
        elif is_tables(v):
            for entry in v:
                lines += [f"[[{json.dumps(k)}]]", *table(entry)]
    return "\n".join(lines) + "\n"


def mutated_toml(data, text: str) -> str | bytes:
    """A TOML file mutated as a document or as text."""
    if data.draw(st.booleans()):
        return toml_text(mutate_doc(data, tomllib.loads(text), TOML_VALUES))
    return mutate_bytes(data, text.encode())


# ------------------------------------------------------------------ the files to start from

TINY_SPEC = """
    from checker import Const, Int, Spec, action, eventually, fault, invariant, reachable, require


    class Tiny(Spec):
        N = Const(2, "how far x counts", min=1, max=3)
        x: Int[0, N] = 0
        done: bool = False

        @action(fair="weak")
        def inc(s):
            require(s.x < s.N)
            s.x += 1

        @action
        def finish(s):
            require(s.x == s.N)
            s.done = True

        @fault(group="crash")
        def reset(s):
            s.x = 0

        @invariant
        def bounded(s):
            return s.x <= s.N

        @reachable
        def finished(s):
            return s.done

        @eventually
        def ends(s):
            return s.done
"""

TINY_MODEL = """
    description = "a spec small enough to fuzz"
    spec = "fuzz_tiny:Tiny"

    [constants]
    N = 2

    [groups]
    crash = true

    [fairness]
    inc = "weak"

    [check]
    engine = "explicit"
    properties = ["bounded", "finished", "ends"]
    deadlock = false

    [expect]
    bounded = "holds"
    finished = "holds"
    ends = "violated"
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return well_formed_inputs(tmp_path_factory.mktemp("fuzz"))


def well_formed_inputs(work: Path) -> Path:
    """`work` with the tiny spec and its model, their traces and certificates, a gate
    baseline and a mutant catalog: the well-formed inputs the fuzzers mutate."""
    (work / "fuzz_tiny.py").write_text(textwrap.dedent(TINY_SPEC))
    tiny = write(work / "tiny.toml", textwrap.dedent(TINY_MODEL))
    traces = work / "traces"
    for args in ([DIEHARD, "--engine", "pdr"], [DIEHARD], [tiny, "--engine", "pdr"], [tiny],
                 [TCOMMIT, "--engine", "pdr"]):
        assert invoke(*args, "--traces", traces, "-q").exit_code in (0, 1, 3)
    assert invoke("gate", DIEHARD, tiny, "--baseline", work / "baseline.json", "--update-baseline",
                  "--traces", traces).exit_code == 0
    write(work / "mutants.toml", toml_text({
        "refutation": [{"model": str(DIEHARD), "property": "not_solved", "steps": 6,
                        "why": "4 gallons in 6 pourings"}],
        "mutant": [{"name": "TinyToo", "spec": "fuzz_tiny:Tiny", "model": "tiny.toml"}]}))
    return work


def trace_and_model(work):
    """The traces the fuzzers replay, each with the model it replays in."""
    return [(work / "traces/diehard/not_solved.itf.json", DIEHARD),
            (work / "traces/tiny/finished.itf.json", work / "tiny.toml"),
            (work / "traces/tiny/ends.itf.json", work / "tiny.toml")]


# ------------------------------------------------------------------ traces

@fuzz(100)
@given(data=st.data())
def test_show_answers_every_mutated_trace(work, data):
    base = data.draw(st.sampled_from(REAL_TRACES + [t for t, _ in trace_and_model(work)]))
    trace = write(work / "show.itf.json", mutated_json(data, base.read_text()))
    assert_answers(invoke("show", trace), trace)


@fuzz(60)
@given(vars=st.lists(st.text(max_size=6).filter(lambda v: not v.startswith("#")), max_size=4, unique=True),
       data=st.data())
def test_show_prints_every_well_formed_trace(work, vars, data):
    states = data.draw(st.lists(st.fixed_dictionaries({v: ITF_VALUES for v in vars}),
                                min_size=1, max_size=4))
    loop = data.draw(st.none() | st.integers(0, len(states) - 1))
    trace = write(work / "random.itf.json",
                  json.dumps({"vars": vars, "states": states, "loop": loop}))
    result = invoke("show", trace)
    assert result.exit_code == 0, result.output


@fuzz(100)
@given(data=st.data())
def test_replay_answers_every_mutated_trace(work, data):
    base, model = data.draw(st.sampled_from(trace_and_model(work)))
    trace = write(work / "replay.itf.json", mutated_json(data, base.read_text()))
    assert_answers(invoke("replay", trace, model), trace)


@fuzz(20)
@given(data=st.data())
def test_replay_answers_every_mutated_rayjob_trace(work, data):
    """RayJob's records, maps, sets, options and enums, decoded from mutated values."""
    base, model = data.draw(st.sampled_from(RAYJOB_TRACES))
    trace = write(work / "rayjob.itf.json", mutated_json(data, base.read_text()))
    assert_answers(invoke("replay", trace, model), trace)


# ------------------------------------------------------------------ model files

PROPERTIES = st.sampled_from(["bounded", "finished", "ends", "deadlock", "not_solved", "nope"])
MODELS = st.fixed_dictionaries({"spec": st.sampled_from(
    ["fuzz_tiny:Tiny", "examples.diehard:DieHard", "examples.diehard", "fuzz_tiny:Nope", "nowhere:X", ""])
    | st.text(max_size=8)}, optional={
    "description": st.text(max_size=10),
    "constants": st.dictionaries(st.sampled_from(["N", "M"]), st.integers(-1, 4) | TOML_VALUES, max_size=2),
    "symbolic": st.dictionaries(st.sampled_from(["N", "x"]), st.sampled_from(
        [">= 1", "<= 3", ">= 1 and <= 2", ">= 5 and <= 1", "<= -1", "", ">= banana", ">= 0 or <= 5",
         ">= 1.5"]) | TOML_VALUES, max_size=1),
    "groups": st.dictionaries(st.sampled_from(["crash", "faults", "inc"]), st.booleans() | TOML_VALUES,
                              max_size=2),
    "fairness": st.dictionaries(st.sampled_from(["inc", "finish", "reset", "crash"]),
                                st.sampled_from(["weak", "strong", "none", "sometimes"]) | TOML_VALUES,
                                max_size=2),
    "check": st.fixed_dictionaries({}, optional={
        "engine": st.sampled_from([*ENGINES, "tlc"]), "properties": st.lists(PROPERTIES, max_size=3),
        "deadlock": st.booleans(), "max_states": st.integers(-1, 200),
        "max_seconds": st.floats(-1, 5) | st.sampled_from([math.nan, math.inf]),
        "max_depth": st.integers(-1, 20), "extra": TOML_VALUES}),
    "expect": st.dictionaries(PROPERTIES, st.sampled_from(["holds", "violated", "unknown", "maybe"])
                              | TOML_VALUES, max_size=3),
    "extra": TOML_VALUES})


@fuzz(80)
@given(data=st.data())
def test_check_answers_every_random_or_mutated_model_file(work, data):
    if data.draw(st.booleans()):
        text = toml_text(data.draw(MODELS))
    else:
        text = mutated_toml(data, data.draw(st.sampled_from([work / "tiny.toml", DIEHARD])).read_text())
    model = write(work / "fuzzed.toml", text)
    result = invoke(model, "--traces", work / "out", "--max-states", 200, "--max-seconds", 5, "-q")
    assert_answers(result, model, work / "fuzz_tiny.py")


# ------------------------------------------------------------------ certificates, baselines, catalogs

def mutated_certificate(data, text: str) -> str | bytes:
    """A certificate mutated as JSON, or in its invariant's SMT-LIB text."""
    if data.draw(st.booleans()):
        return mutated_json(data, text)
    cert = json.loads(text)
    cert["invariant"] = mutate_bytes(data, cert["invariant"].encode()).decode(errors="replace")
    return json.dumps(cert)


@fuzz(25)
@given(data=st.data())
def test_certify_answers_every_mutated_certificate(work, data):
    base, model = data.draw(st.sampled_from([          # the quickest to check first
        (work / "traces/diehard/deadlock.cert.json", DIEHARD),
        (work / "traces/tiny/bounded.cert.json", work / "tiny.toml"),
        (work / "traces/tcommit/tc_consistent.cert.json", TCOMMIT)]))
    cert = write(work / "fuzzed.cert.json", mutated_certificate(data, base.read_text()))
    assert_answers(invoke("certify", cert, model), cert)


@fuzz(50)
@given(data=st.data())
def test_gate_answers_every_mutated_baseline(work, data):
    baseline = write(work / "fuzzed-baseline.json", mutated_json(data, (work / "baseline.json").read_text()))
    result = invoke("gate", DIEHARD, work / "tiny.toml", "--baseline", baseline, "--traces", work / "out")
    assert_answers(result, baseline)


@fuzz(50)
@given(data=st.data())
def test_mutants_answers_every_mutated_catalog(work, data):
    catalog = write(work / "fuzzed-mutants.toml", mutated_toml(data, (work / "mutants.toml").read_text()))
    assert_answers(invoke("mutants", "--catalog", catalog), catalog, work, ROOT)


# ------------------------------------------------------------------ specs that raise

RAISING_SPEC = textwrap.dedent(SPECS) + """

import typing
from checker import step_invariant


class Raising(Base):
"""
RAISING = {             # where the spec raises, in the state x == AT
    "action": "@action\ndef boom(s):\n    require(s.x == AT)\n    RAISE",
    "action constraint": "@action_constraint\ndef ac(s, t):\n    if t.x == AT:\n        RAISE\n"
                         "    return True",
    "constraint": "@constraint\ndef c(s):\n    if s.x == AT:\n        RAISE\n    return True",
    "invariant": "@invariant\ndef inv(s):\n    if s.x == AT:\n        RAISE\n    return True",
    "step property": "@step_invariant\ndef step(s, t):\n    if t.x == AT:\n        RAISE\n"
                     "    return True",
}
RAISES = ["raise ValueError('no')", "typing.Dict[int]", "1 // (s.x - s.x)", "s.nope",
          "import sys; sys.exit(3)", "return 'not a bool'"]


@fuzz(40)
@given(kind=st.sampled_from(sorted(RAISING)), at=st.integers(0, 5), raises=st.sampled_from(RAISES),
       engine=st.sampled_from(sorted(ENGINES)), only=st.sampled_from([[], ["small"]]))
def test_a_spec_that_raises_is_an_error_for_every_engine_or_for_none(work, kind, at, raises, engine,
                                                                    only):
    """Each engine answers as the interpreter does: a spec error (exit 2, one line naming
    the spec file) or none, whatever the relation cache holds from the examples before;
    unless it refuses the model (the bulk engine, a step property), naming the model or
    the construct it does not take."""
    code = RAISING[kind].replace("AT", str(at)).replace("RAISE", raises)
    text = RAISING_SPEC + textwrap.indent(code, " " * 4) + "\n"
    name = f"fuzz_raising_{hashlib.sha256(text.encode()).hexdigest()[:12]}"   # one module each
    spec = write(work / f"{name}.py", text)
    model = write(work / f"{name}.toml", f'spec = "{name}:Raising"\n[check]\ndeadlock = false\n')
    args = [model, "--traces", work / "out", "-q", *[a for p in only for a in ("-p", p)]]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHECK_MODEL_CACHE", str(work / "cache"))
        reference = invoke(*args, "--engine", "interpreter")
        result = invoke(*args, "--engine", engine)
    assert_answers(reference, spec, model)
    assert_answers(result, spec, model)
    refused = f"{model}: the {engine} engine cannot run this model" in result.output or \
        f"the {engine} engine does not take" in result.output
    assert refused or (result.exit_code == 2) == (reference.exit_code == 2), \
        (reference.output, result.output)


MEANINGLESS = {         # a spec that means nothing, in the state x == AT
    "choice in a property": "@invariant\ndef vague(s):\n    return s.x != AT or either()",
    "enabled in an action": "@action\ndef peek(s):\n    require(s.x == AT and enabled(s.inc))\n"
                            "    s.x = 0",
    "enabled out of the domain": "@invariant\ndef stuck(s):\n    return s.x != AT or "
                                 "enabled(s.inc, n=9)",
    "require caught": "@action\ndef sneak(s):\n    try:\n        require(s.x == AT and s.x > 9)\n"
                      "    except BaseException:\n        pass\n    s.x = 0",
}


@fuzz(40)
@given(kind=st.sampled_from(sorted(MEANINGLESS)), at=st.integers(0, 5),
       engine=st.sampled_from(sorted(ENGINES)))
def test_a_meaningless_spec_is_an_error_for_every_engine_where_it_is_reached(work, kind, at,
                                                                            engine):
    """A trap reached (x == AT is a reachable state: 0 to 4) is a spec error, exit 2, one
    line naming the spec file, on every engine that runs the model; one never reached
    changes no answer. Never a verdict read off it."""
    code = MEANINGLESS[kind].replace("AT", str(at))
    text = RAISING_SPEC.replace("class Raising(Base):", "from checker import either, enabled\n\n\n"
                                "class Raising(Base):") + textwrap.indent(code, " " * 4) + "\n"
    name = f"fuzz_meaningless_{hashlib.sha256(text.encode()).hexdigest()[:12]}"
    spec = write(work / f"{name}.py", text)
    model = write(work / f"{name}.toml", f'spec = "{name}:Raising"\n[check]\ndeadlock = false\n')
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHECK_MODEL_CACHE", str(work / "cache"))
        result = invoke(model, "--traces", work / "out", "-q", "--engine", engine)
    assert_answers(result, spec, model)
    refused = f"the {engine} engine does not take" in result.output
    reached = at <= 4 or kind == "require caught"              # its require always refuses
    symbolic = not ENGINES[engine].concrete                    # they take a caught require
    if not refused and engine != "simulate" and not (symbolic and kind == "require caught"):
        assert (result.exit_code == 2) == reached, (kind, at, result.output)


# ------------------------------------------------------------------ arguments

FILES = ["model.toml", "tiny.toml", "trace.itf.json", "cert.json", "mutants.toml", "baseline.json",
         "missing.toml", ".", "out/new.json", "model.toml/below.json", "/proc/version/x",   # no "/": gate would search it
         "n" * 300 + ".json"]                         # a name too long for the file system
VALUES = ["0", "-1", "1", "2.5", "nan", "inf", "1e400", "N=3", "N=x", "N=", "=3", "N=[1]", "N=4",
          "not_solved", "bounded", "deadlock", "Same", "HEAD", "", "-", *ENGINES]
COMMANDS = {       # each command's positional files, and its options (None: a flag)
    "check": (1, {"--json": FILES, "--traces": FILES, "--max-states": VALUES, "--max-seconds": VALUES,
                  "--deadlock": None, "--no-deadlock": None, "-p": VALUES, "--engine": VALUES,
                  "-q": None, "-D": VALUES}),
    "show": (1, {"--html": FILES}),
    "replay": (2, {}),
    "certify": (2, {}),
    "gate": (2, {"--only-changed": VALUES, "--baseline": FILES, "--update-baseline": None,
                 "--junit": FILES, "--sarif": FILES, "--markdown": FILES, "--traces": FILES}),
    "mutants": (0, {"--catalog": FILES, "--only": VALUES}),
}


@st.composite
def command_lines(draw):
    """A command with files and options, some of them out of place or misspelt."""
    name = draw(st.sampled_from(sorted(COMMANDS)))
    files, options = COMMANDS[name]
    args = [name, *draw(st.lists(st.sampled_from(FILES), min_size=files, max_size=files))]
    for option in draw(st.lists(st.sampled_from(sorted(options)), max_size=4)) if options else []:
        args += [option] if options[option] is None else [option, draw(st.sampled_from(options[option]))]
    for _ in range(draw(st.integers(0, 2))):
        noise = draw(st.sampled_from(FILES + VALUES + ["--help", "--version", "--nope", "check"])
                     | st.text(st.characters(exclude_characters="\0"), max_size=4))  # argv has no NUL
        args.insert(draw(st.integers(0, len(args))), noise)
    if args[0] in ("check", "conform"):            # `check` is the default command
        args = args[draw(st.integers(0, 1)):] if args[0] == "check" else args[1:]
    return args or ["--help"]


def cli_inputs(work) -> Path:
    """A fresh copy of the well-formed inputs, in a directory to run commands from."""
    cwd = work / "cli"
    shutil.rmtree(cwd, ignore_errors=True)
    cwd.mkdir()
    for source, name in ((DIEHARD, "model.toml"), (work / "tiny.toml", "tiny.toml"),
                         (work / "fuzz_tiny.py", "fuzz_tiny.py"), (work / "mutants.toml", "mutants.toml"),
                         (work / "traces/diehard/not_solved.itf.json", "trace.itf.json"),
                         (work / "traces/tcommit/tc_consistent.cert.json", "cert.json"),
                         (work / "baseline.json", "baseline.json")):
        shutil.copy(source, cwd / name)
    return cwd


@fuzz(100)
@given(data=st.data())
def test_every_command_line_gets_an_answer(work, data):
    with contextlib.chdir(cli_inputs(work)):
        args = data.draw(command_lines())
        shown = {f: Path(f).read_bytes() for f in args[1:] if args[0] == "show" and Path(f).is_file()}
        assert_answers(invoke(*args))
        assert all(Path(f).read_bytes() == text for f, text in shown.items()), "show wrote its trace"
