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
