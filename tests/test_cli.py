"""The command line: exit codes, traces on disk, and one-line errors for bad input."""
import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.cli import main

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
    import checker.cli

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug in the engine")
    monkeypatch.setattr(checker.cli, "run_engine", broken)
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
    assert "interrupted (Ctrl-C)" in result.output and "unknown" in result.output
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
                            env=env)
    deadline = time.monotonic() + 30
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
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
