"""The command line: exit codes, traces on disk, and one-line errors for bad input."""
import json
import os
import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.cli import main
from conftest import interruptible

DIEHARD = Path(__file__).resolve().parent.parent / "examples" / "models" / "diehard.toml"


def run(*args, cwd=None):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def model(tmp_path, body, name="m.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def test_check_writes_json_and_a_replayable_trace(tmp_path):
    out = tmp_path / "result.json"
    result = run(DIEHARD, "--json", out, "--traces", tmp_path / "traces", "-q")
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["stats"]["distinct_states"] == 16 and data["stats"]["depth"] == 8
    prop = next(p for p in data["properties"] if p["name"] == "not_solved")
    assert prop["verdict"] == "violated" and prop["expected"] == "violated"
    assert prop["trace_length"] == 6
    trace = Path(prop["trace"])
    assert run("replay", trace, DIEHARD).exit_code == 0
    shown = run("show", trace)
    assert shown.exit_code == 0 and "big: 5 → 4" in shown.output


def test_tampered_trace_diverges_at_the_step(tmp_path):
    run(DIEHARD, "--traces", tmp_path, "-q")
    trace = tmp_path / "diehard" / "not_solved.itf.json"
    data = json.loads(trace.read_text())
    data["states"][3]["small"] = {"#bigint": "1"}
    trace.write_text(json.dumps(data))
    result = run("replay", trace, DIEHARD)
    assert result.exit_code == 1
    assert "step 3" in result.output and "small is 1 in the trace but 0 in the spec" in result.output


def test_unexpected_verdict_exits_1(tmp_path):
    path = model(tmp_path, """
        spec = "examples.diehard:DieHard"
        [expect]
        not_solved = "holds"
    """)
    result = run(path, "--traces", tmp_path, "-q")
    assert result.exit_code == 1


def test_limit_hit_exits_3(tmp_path):
    path = model(tmp_path, """
        spec = "examples.twophase:TwoPhase"
        [check]
        max_states = 20
    """)
    result = run(path, "--traces", tmp_path, "-q")
    assert result.exit_code == 3
    assert "state limit 20 reached" in result.output


def test_constant_override_from_the_command_line(tmp_path):
    from conftest import explore
    from examples.twophase import TwoPhase
    path = model(tmp_path, 'spec = "examples.twophase:TwoPhase"\n')
    out = tmp_path / "r.json"
    assert run(path, "-D", "N=2", "--json", out, "-q").exit_code == 0
    data = json.loads(out.read_text())
    assert data["constants"]["N"] == 2
    assert data["stats"]["distinct_states"] == explore(TwoPhase, {"N": 2}).stats.distinct_states
    assert data["stats"]["distinct_states"] < 288


BAD_MODELS = [
    ('spec = "examples.diehard:DieHard"\nfoo = 1\n', 2, "unknown key 'foo'"),
    ('spec = "examples.diehard:DieHard"\n[check]\ndeadlok = true\n', 3, "unknown key 'deadlok' in [check]"),
    ('spec = "examples.diehard:DieHard"\n[check]\nmax_states = "many"\n', 3, "max_states must be a int"),
    ('spec = "examples.diehard:DieHard"\n[expect]\nnot_solvd = "violated"\n', 3, "unknown property 'not_solvd'"),
    ('spec = "examples.diehard:DieHard"\n[expect]\nnot_solved = "broken"\n', 3, "must be one of holds"),
    ('spec = "examples.twophase:TwoPhase"\n[constants]\nN = 0\n', 3, "constant N: must be >= 1"),
    ('spec = "examples.twophase:TwoPhase"\n[constants]\nM = 3\n', 3, "unknown constant 'M'"),
    ('spec = "examples.twophase:TwoPhase"\n[groups]\nfaults = false\n', 3, "unknown action group 'faults'"),
    ('spec = "examples.nowhere:X"\n', 1, "cannot import spec module 'examples.nowhere'"),
    ('spec = "examples.diehard:Nope"\n', 1, "has no spec class 'Nope'"),
    ('spec = "examples.diehard"\n', 1, 'spec must look like "package.module:Class"'),
    ('spec = "examples.diehard:DieHard"\n[check\n', 2, "not valid TOML"),
    ('[check]\ndeadlock = true\n', None, "missing key spec"),
    ('spec = "examples.diehard:DieHard"\n[check]\nmax_seconds = nan\n', 3, "max_seconds must be positive, got nan"),
    ('spec = "examples.diehard:DieHard"\n[check]\nengine = "pdr"\nlemmas = ["not_solvd*"]\n', 4,
     "lemma pattern 'not_solvd*' matches no invariant of the spec"),
    ('spec = "examples.diehard:DieHard"\n[check]\nlemmas = ["not_solved"]\n', 3,
     "the explicit engine does not take lemmas (lemmas); engines that do: pdr"),
    ('spec = "examples.diehard:DieHard"\n[check]\nengine = "pdr"\nlemmas = [1]\n', 4,
     "lemmas must be a list of invariant names or patterns"),
    ('description = "relative"\nspec = ".diehard:DieHard"\n', 2, 'spec must look like "package.module:Class"'),
    ('description = "stdlib"\nspec = "json:JSONDecoder"\n', 2, "json is a module of Python's standard library"),
    ('description = "not a spec"\nspec = "examples.diehard:invariant"\n', 2, "is not a subclass of checker.Spec"),
]


@pytest.mark.parametrize("text, line, message", BAD_MODELS)
def test_bad_model_files_give_one_line_with_file_and_line(tmp_path, text, line, message):
    path = model(tmp_path, text)
    result = run(path, "-q")
    assert result.exit_code == 2
    (error,) = [l for l in result.output.splitlines() if l.strip()]
    assert message in error
    assert f"{path}:{line}:" in error if line else str(path) in error


def test_the_lemmas_a_model_names_are_the_only_ones_pdr_tries(tmp_path):
    """`[check] lemmas` reaches PDR's Houdini, which says how many invariants it left out;
    another engine chosen on the command line takes no lemmas and says so."""
    path = model(tmp_path, """
        spec = "examples.twophase:TwoPhase"
        [check]
        engine = "pdr"
        properties = ["consistent"]
        lemmas = ["consistent"]
    """)
    result = run(path, "--traces", tmp_path)
    assert result.exit_code == 0, result.output
    assert "pdr: 1 of the spec's invariants are no candidates (not in [check] lemmas)" in \
        result.output
    other = run(path, "--engine", "explicit", "--traces", tmp_path, "-q")
    assert other.exit_code == 2 and other.output == \
        f"error: {path}:6: the explicit engine does not take lemmas (lemmas); engines that do: pdr\n"


def test_a_spec_that_raises_points_at_the_spec_line(tmp_path):
    (tmp_path / "broken_spec.py").write_text(textwrap.dedent("""
        from checker import Int, Spec, action

        class Broken(Spec):
            x: Int[0, 1] = 0

            @action
            def divide(s):
                s.x = 1 // s.x
    """))
    path = model(tmp_path, 'spec = "broken_spec:Broken"\n')
    result = run(path, "-q")
    assert result.exit_code == 2
    assert "divide raised ZeroDivisionError" in result.output
    assert "broken_spec.py:9" in result.output


def test_a_spec_module_that_gets_the_standard_library_to_raise_points_at_its_own_line(tmp_path):
    path = spec_module(tmp_path, "typing_misused", """
        import typing
        from checker import Int, Spec

        Pairs = typing.Dict[int]


        class S(Spec):
            x: Int[0, 1] = 0
    """)
    error = one_error_line(run(path, "-q"))
    assert error.startswith(f"error: {tmp_path / 'typing_misused.py'}:5: importing typing_misused "
                            f"raised TypeError: Too few arguments for typing.Dict"), error


def test_a_spec_module_whose_import_runs_the_cli_names_the_model_file_not_click(tmp_path):
    """Importing checker.__main__ runs check-model itself, which exits; neither run's error
    names click's code, where the exit was raised."""
    import subprocess
    import sys
    path = model(tmp_path, 'spec = "checker.__main__:S"\n')
    done = subprocess.run([sys.executable, "-m", "checker", str(path), "-q"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(DIEHARD.parents[2])})
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == \
        f"error: {path}:1: importing checker.__main__ raised SystemExit: 2", done.stderr
    assert "click" not in done.stderr


def test_missing_files_are_usage_errors(tmp_path):
    assert run(tmp_path / "absent.toml").exit_code == 2
    assert run("show", tmp_path / "absent.itf.json").exit_code == 2
    bad = tmp_path / "bad.itf.json"
    bad.write_text("{}")
    result = run("show", bad)
    assert result.exit_code == 2 and "not an ITF trace" in result.output


def spec_module(tmp_path, name, body):
    """A spec module `name` next to a model file `name.toml` whose spec is `name:S`."""
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    return model(tmp_path, f'spec = "{name}:S"\n', f"{name}.toml")


def one_error_line(result) -> str:
    (line,) = [l for l in result.output.splitlines() if l.strip()]
    return line


def test_an_internal_error_is_one_line_exit_4_with_its_traceback_saved(tmp_path, monkeypatch):
    import tempfile
    import checker.pipeline

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug in the engine")
    monkeypatch.setattr(checker.pipeline, "run_engine", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = run(DIEHARD, "-q", "--traces", tmp_path)
    assert result.exit_code == 4
    line = one_error_line(result)
    assert "internal error: ZeroDivisionError: a bug in the engine" in line
    assert "please report" in line
    (saved,) = tmp_path.glob("check-model-*.txt")
    assert str(saved) in line
    assert "Traceback" in saved.read_text() and "def broken" not in result.output


STOPS_AT_ONCE = """
    from checker import Int, Spec, action, invariant

    class S(Spec):
        x: Int[0, 3] = 0

        @action
        def inc(s):
            raise KeyboardInterrupt          # what Ctrl-C raises

        @action
        def later(s):
            s.x = 3

        @invariant
        def small(s):
            return s.x < 3
"""


def test_ctrl_c_during_the_search_is_unknown_exit_3_without_dead_action_warnings(tmp_path):
    path = spec_module(tmp_path, "ctrl_c_search", STOPS_AT_ONCE)
    result = run(path, "-q", "--traces", tmp_path)
    assert result.exit_code == 3
    assert "interrupted (Ctrl-C)" in result.output and result.output.splitlines()[-1].startswith("UNKNOWN")
    assert "never fired" not in result.output


def test_ctrl_c_during_start_up_is_unknown_exit_3(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    started = tmp_path / "started"
    path = spec_module(tmp_path, "slow_start", f"""
        import pathlib, time
        pathlib.Path({str(started)!r}).touch()
        time.sleep(60)
    """)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    command = [sys.executable, "-c", "from checker.cli import main; main()", str(path)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, preexec_fn=interruptible)
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if not started.exists():
        proc.kill()
        proc.wait()
        pytest.fail("the spec's module was not imported within a minute")
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 3, output
    assert "interrupted (Ctrl-C)" in output
    assert "Aborted" not in output and "Traceback" not in output


def test_ctrl_c_stops_the_gate_and_the_mutants_with_exit_3(tmp_path):
    path = spec_module(tmp_path, "ctrl_c_gate", STOPS_AT_ONCE)
    result = run("gate", path, "--baseline", tmp_path / "baseline.json", "--traces", tmp_path)
    assert result.exit_code == 3 and "interrupted (Ctrl-C)" in result.output
    catalog = tmp_path / "mutants.toml"
    catalog.write_text(f'[[mutant]]\nname = "M"\nspec = "ctrl_c_gate:S"\nmodel = "{path.name}"\n')
    result = run("mutants", "--catalog", catalog)
    assert result.exit_code == 3 and "interrupted (Ctrl-C)" in result.output
    assert "SURVIVED" not in result.output


@pytest.mark.parametrize("where, body", [
    ("import", """
        import sys
        sys.exit(0)                          # exits
    """),
    ("action", """
        import sys
        from checker import Int, Spec, action

        class S(Spec):
            x: Int[0, 1] = 0

            @action
            def leave(s):
                sys.exit(0)                  # exits
    """),
    ("invariant", """
        from checker import Int, Spec, invariant

        class S(Spec):
            x: Int[0, 1] = 0

            @invariant
            def leave(s):
                raise SystemExit("bye")      # exits
    """),
])
def test_sys_exit_in_a_spec_is_a_spec_error_at_its_line(tmp_path, where, body):
    name = f"exits_in_{where}"
    path = spec_module(tmp_path, name, body)
    result = run(path, "-q", "--traces", tmp_path)
    assert result.exit_code == 2
    line = one_error_line(result)
    exit_line = next(n for n, l in enumerate(textwrap.dedent(body).splitlines(), 1) if "# exits" in l)
    assert f"{name}.py:{exit_line}:" in line and "SystemExit" in line


UNDECODABLE = {"utf-16": 'spec = "examples.diehard:DieHard"\n'.encode("utf-16"),
               "binary": bytes(range(256))}


@pytest.mark.parametrize("content", UNDECODABLE.values(), ids=UNDECODABLE)
def test_undecodable_input_files_are_one_line_naming_the_file(tmp_path, content):
    bad = tmp_path / "bad.file"
    bad.write_bytes(content)
    for args in ([bad, "-q"], ["show", bad], ["replay", bad, DIEHARD],
                 ["gate", DIEHARD, "--baseline", bad, "--traces", tmp_path],
                 ["mutants", "--catalog", bad]):
        result = run(*args)
        assert result.exit_code == 2, args
        line = one_error_line(result)
        assert line.startswith(f"error: {bad}: cannot read") and "not UTF-8" in line, args


def test_a_very_long_property_name_gets_a_short_trace_file_name(tmp_path):
    name = "p" * 300
    path = spec_module(tmp_path, "long_names", f"""
        from checker import Int, Spec, action, invariant

        class S(Spec):
            x: Int[0, 1] = 0

            @action
            def up(s):
                s.x = 1

            @invariant
            def {name}(s):
                return s.x == 0

            @invariant
            def {name}q(s):
                return s.x == 0
    """)
    out = tmp_path / "r.json"
    result = run(path, "-q", "--traces", tmp_path / "traces", "--json", out)
    assert result.exit_code == 1, result.output
    traces = {p["name"]: Path(p["trace"]) for p in json.loads(out.read_text())["properties"]}
    assert len(set(traces.values())) == 2                  # two names, two files
    for trace in traces.values():
        assert trace.exists() and len(trace.name) < 120 and trace.name.startswith("p" * 80)
        assert run("replay", trace, path).exit_code == 0


@pytest.mark.parametrize("args", [
    ["--traces", "{file}/traces"], ["--json", "{file}/r.json"],
    ["gate", "--junit", "{file}/j.xml"], ["gate", "--sarif", "{file}/s.json"],
    ["gate", "--markdown", "{file}/m.md"], ["gate", "--traces", "{file}/traces"],
])
def test_outputs_under_a_regular_file_are_refused_before_the_run(tmp_path, args):
    file = tmp_path / "a-file"
    file.write_text("")
    command = args[:1] if args[0] == "gate" else []
    options = [a.format(file=file) for a in args[len(command):]]
    extra = ["--baseline", tmp_path / "b.json"] if command else ["-q"]
    result = run(*command, DIEHARD, *options, *extra)
    assert result.exit_code == 2
    line = one_error_line(result)
    assert line == f"error: {options[1]}: cannot write here: {file} is not a directory"


def test_a_spec_module_with_a_syntax_error_is_located_in_it(tmp_path):
    path = spec_module(tmp_path, "bad_syntax", """
        from checker import Spec

        class S(Spec):
            x: int = = 0
    """)
    result = run(path, "-q")
    assert result.exit_code == 2
    line = one_error_line(result)
    assert f"{tmp_path / 'bad_syntax.py'}:5:" in line and "syntax error" in line
    assert "frozen" not in line


def test_max_seconds_nan_from_the_command_line_is_refused(tmp_path):
    result = run(DIEHARD, "--max-seconds", "nan", "--traces", tmp_path)
    assert result.exit_code == 2 and "nan is not a number of seconds" in result.output


def diehard_trace(tmp_path):
    """The checked counterexample of DieHard's not_solved, as ITF JSON."""
    run(DIEHARD, "--traces", tmp_path, "-q")
    return tmp_path / "diehard" / "not_solved.itf.json"


def assert_one_error(result, path, message):
    assert result.exit_code == 2, result.output
    error = one_error_line(result)
    assert f"{path}: " in error and message in error, error


DEEP = json.loads("[" * 100 + "]" * 100)

MALFORMED_TRACES = [      # (where in DieHard's trace, the wrong value, the message)
    (["#meta"], [], "#meta: expected an object, got a list"),
    (["#meta", "ghost"], [[]], "#meta.ghost[0]: expected a string, got a list"),
    (["params"], "N", "params: expected a list, got a string"),
    (["vars", 1], 5, "vars[1]: expected a string, got a number"),
    (["vars", 1], "small", "vars[1]: 'small' is listed twice"),
    (["states"], {}, "states: expected a list, got an object"),
    (["states", 2], None, "states[2]: expected an object, got null"),
    (["states", 2, "#meta"], "x", "states[2].#meta: expected an object, got a string"),
    (["states", 2, "#meta", "params"], [], "states[2].#meta.params: expected an object, got a list"),
    (["states", 2, "#meta", "choices"], 5, "states[2].#meta.choices: expected a list, got a number"),
    (["states", 2, "#meta", "action"], None, "states[2].#meta.action: expected a string, got null"),
    (["states", 2, "#meta", "action"], "\ud800", "states[2].#meta.action: a string holds an unpaired"),
    (["loop"], 7, "loop: 7 is not the index of a state (0 to 6)"),
    (["loop"], "1", 'loop: "1" is not the index of a state'),
    (["states", 2, "big"], {"#bigint": 5}, "states[2].big.#bigint: expected a string, got a number"),
    (["states", 2, "big"], {"#bigint": "4.0"}, 'states[2].big.#bigint: "4.0" is not an integer'),
    (["states", 2, "big"], {"#set": 5}, "states[2].big.#set: expected a list, got a number"),
    (["states", 2, "big"], {"#map": [[1]]}, "states[2].big.#map: each entry must be a [key, value] pair"),
    (["states", 2, "big"], {"#map": [5]}, "states[2].big.#map[0]: expected a list, got a number"),
    (["states", 2, "big"], {"#tup": {}}, "states[2].big.#tup: expected a list, got an object"),
    (["states", 2, "big"], {"#set": [], "x": 1}, "states[2].big: #set must be the object's only key"),
    (["states", 2, "big"], {"#sets": []}, "states[2].big: '#sets' is not an ITF form"),
    (["states", 2, "big"], {"tag": 5, "value": {}}, "states[2].big.tag: expected a string, got a number"),
    (["states", 2, "big"], 1.5, "states[2].big: 1.5 is not an ITF value"),
    (["states", 2, "big"], None, "states[2].big: null is not an ITF value"),
    (["states", 2, "big"], {"a\x85b": None}, 'states[2].big["a\\u0085b"]: null is not an ITF value'),
    (["states", 2, "big"], DEEP, "nested more than 64 levels deep"),
]


@pytest.mark.parametrize("command", ["show", "replay"])
@pytest.mark.parametrize("where, value, message", MALFORMED_TRACES,
                         ids=[f"{'.'.join(map(str, w))}={json.dumps(v)[:20]}" for w, v, _ in MALFORMED_TRACES])
def test_a_malformed_trace_gives_one_line_with_its_json_path(tmp_path, command, where, value, message):
    trace = diehard_trace(tmp_path)
    data = json.loads(trace.read_text())
    *parents, key = where
    target = data
    for part in parents:
        target = target[part]
    target[key] = value
    trace.write_text(json.dumps(data))
    assert_one_error(run(command, trace, *([DIEHARD] if command == "replay" else [])), trace, message)


UNREADABLE_TRACES = [
    ("[" * 100_000, "not valid JSON: nested too deeply"),
    ('{"vars": [], "states": [' + "1" * 5000 + "]}", "not valid JSON: a number is too long"),
    (b"\x89PNG\r\n\x1a\n\x00", "not UTF-8 text (byte 0 is 0x89)"),
    ('{"vars": [], "states": [{}]}'.encode("utf-16"), "not UTF-8 text"),
    ('{"vars": ["x"], "states": [{}]}', "states[0].x: missing"),
    ('{"vars": [], "states": []}', "the trace has no states"),
]


@pytest.mark.parametrize("command", ["show", "replay"])
@pytest.mark.parametrize("content, message", UNREADABLE_TRACES, ids=[m for _, m in UNREADABLE_TRACES])
def test_an_unreadable_trace_gives_one_line(tmp_path, command, content, message):
    trace = tmp_path / "t.itf.json"
    (trace.write_bytes if isinstance(content, bytes) else trace.write_text)(content)
    assert_one_error(run(command, trace, *([DIEHARD] if command == "replay" else [])), trace, message)


def test_show_prints_trace_text_as_text_not_markup(tmp_path):
    trace = diehard_trace(tmp_path)
    data = json.loads(trace.read_text())
    data["#meta"]["spec"] = "[/]"
    trace.write_text(json.dumps(data))
    shown = run("show", trace)
    assert shown.exit_code == 0 and "[/] not_solved invariant" in shown.output


def test_replay_of_a_counterexample_prefix_does_not_show_the_violation(tmp_path):
    trace = diehard_trace(tmp_path)
    full = run("replay", trace, DIEHARD)
    assert full.exit_code == 0 and "6 steps are transitions of the spec and show not_solved violated" \
        in full.output
    data = json.loads(trace.read_text())
    data["states"] = data["states"][:3]
    trace.write_text(json.dumps(data))
    prefix = run("replay", trace, DIEHARD)
    assert prefix.exit_code == 1
    assert "not shown" in prefix.output and "all 2 steps are transitions of the spec, but they do " \
        "not show not_solved violated: its last state satisfies it" in prefix.output


def test_replay_names_a_property_the_spec_lacks(tmp_path):
    trace = diehard_trace(tmp_path)
    data = json.loads(trace.read_text())
    data["#meta"]["property"] = "solved"
    trace.write_text(json.dumps(data))
    assert_one_error(run("replay", trace, DIEHARD), trace, "#meta.property: DieHard has no property 'solved'")


UP = """
    from checker import Int, Spec, action, reachable, require

    class Up(Spec):
        x: Int[0, 2] = 0

        @action
        def inc(s):
            require(s.x < 2)
            s.x += 1

        @reachable
        def two(s):
            return s.x == 2
"""


@pytest.mark.parametrize("name, claim, why_not", [
    ("two", "a state satisfying two", "its last state does not"),
    ("deadlock", "a deadlock", "its last state has a successor"),
])
def test_replay_of_a_witness_or_deadlock_prefix_does_not_show_it(tmp_path, name, claim, why_not):
    (tmp_path / "up_spec.py").write_text(textwrap.dedent(UP))
    path = model(tmp_path, 'spec = "up_spec:Up"\n[check]\ndeadlock = true\n'
                           '[expect]\ntwo = "holds"\ndeadlock = "violated"\n')
    assert run(path, "--traces", tmp_path, "-q").exit_code == 0
    trace = tmp_path / "m" / f"{name}.itf.json"
    assert run("replay", trace, path).exit_code == 0
    data = json.loads(trace.read_text())
    data["states"] = data["states"][:-1]
    trace.write_text(json.dumps(data))
    prefix = run("replay", trace, path)
    assert prefix.exit_code == 1 and f"do not show {claim}: {why_not}" in prefix.output


def test_replay_of_a_lasso_without_its_loop_does_not_show_the_violation(tmp_path):
    path = model(tmp_path, 'spec = "examples.diningphilosophers:DiningPhilosophers"\n'
                           '[fairness]\neat = "none"\n[check]\nproperties = ["nobody_starves"]\n')
    run(path, "--traces", tmp_path, "-q")
    trace = tmp_path / "m" / "nobody_starves.itf.json"
    data = json.loads(trace.read_text())
    del data["loop"]
    trace.write_text(json.dumps(data))
    result = run("replay", trace, path)
    assert result.exit_code == 1 and "it has no loop" in result.output


def test_show_names_map_keys_that_appear_or_disappear(tmp_path):
    trace = tmp_path / "t.itf.json"
    trace.write_text(json.dumps({"vars": ["m"], "states": [
        {"m": {"#map": [["a", 1], ["b", 2]]}}, {"m": {"#map": [["b", 3], ["c", 4]]}}]}))
    shown = run("show", trace)
    assert shown.exit_code == 0
    assert "m[a]: 1 → (none)" in shown.output and "m[b]: 2 → 3" in shown.output \
        and "m[c]: (none) → 4" in shown.output


def last_line(result) -> str:
    return result.output.strip().splitlines()[-1]


def untimed(line: str) -> str:
    """A result line without its seconds, which a loaded machine moves (0.0 s, 0.1 s)."""
    return re.sub(r"\d+\.\d s\)$", "s)", line)


def test_a_run_as_expected_ends_with_one_ok_line_and_its_cost(tmp_path):
    result = run(DIEHARD, "--traces", tmp_path, "-q")
    assert re.fullmatch(r"OK: 2 properties as expected \(16 states, \d+\.\d s\)", last_line(result))
    assert "┃" not in result.output                   # the table is for -v


def test_a_differing_verdict_is_named_with_its_trace_on_the_last_line(tmp_path):
    path = model(tmp_path, """
        spec = "examples.diehard:DieHard"
        [expect]
        not_solved = "holds"
    """)
    result = run(path, "--traces", tmp_path, "-q")
    trace = tmp_path / "m" / "not_solved.itf.json"
    assert last_line(result).startswith(f"FAIL: 1 differ: not_solved (violated in 6 steps, {trace}) "
                                        f"(16 states, ")


def test_an_undecided_run_ends_unknown_and_says_why_the_search_stopped(tmp_path):
    path = model(tmp_path, """
        spec = "examples.twophase:TwoPhase"
        [check]
        max_states = 20
    """)
    line = last_line(run(path, "--traces", tmp_path, "-q"))
    assert line.startswith("UNKNOWN: 2 undecided: type_ok, consistent (")
    assert line.endswith("stopped: state limit 20 reached)")


DEAD = """
    from checker.lang.dsl import Spec, action, invariant, require
    from checker.lang.domains import Int

    class Dead(Spec):
        x: Int[0, 2] = 0

        @action
        def up(s):
            require(s.x < 2)
            s.x += 1

        @action
        def never_a(s):
            require(s.x > 5)

        @action
        def never_b(s):
            require(s.x < 0)

        @invariant
        def small(s):
            return s.x < 3
"""


def test_coverage_is_one_line_and_verbose_names_each_action_that_never_fired(tmp_path, monkeypatch):
    (tmp_path / "dead_spec.py").write_text(textwrap.dedent(DEAD))
    monkeypatch.syspath_prepend(tmp_path)
    path = model(tmp_path, 'spec = "dead_spec:Dead"\n')
    brief = run(path, "--traces", tmp_path, "-q")
    assert [l for l in brief.output.splitlines() if l.startswith("actions")] == \
        ["actions         1 of 3 fired (-v names the 2 that never did)"]
    assert "never fired" not in brief.output
    verbose = run(path, "--traces", tmp_path, "-q", "-v")
    assert [l for l in verbose.output.splitlines() if "never fired" in l] == \
        ["warning: action never_a never fired", "warning: action never_b never fired"]
    assert "┃ property" in verbose.output and "3 distinct states" in verbose.output
    assert untimed(last_line(verbose)) == untimed(last_line(brief))


def test_the_readme_tutorial_ends_as_the_readme_says(tmp_path, monkeypatch):
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    tutorial = readme[readme.index("## Tutorial"):readme.index("## Your own controller")]
    model_text = re.search(r"```toml\n(.*?)```", tutorial, re.S).group(1)
    said = re.search(r"```\n(FAIL: .*)\n```", tutorial).group(1)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lostupdate.toml").write_text(model_text)
    result = run("lostupdate.toml")
    assert result.exit_code == 1
    assert untimed(last_line(result)) == untimed(said)
    fixed = run("lostupdate.toml", "-D", "VERSIONED=true")
    assert fixed.exit_code == 0 and last_line(fixed).startswith("OK: 1 property as expected")
