"""The engine contract: an engine is one class plus one registry line, and the model loader
and the CLI refuse, in one line, whatever the run asks for that its line does not declare."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker import engines, pipeline
from checker.cli import main
from checker.engines import Feature, Registered
from checker.matrix import is_matrix
from checker.gate import discover
from checker.lang.bound import BoundSpec
from checker.lang.dsl import Kind
from checker.model import load_model
from checker.results import PropertyResult, RunResult, Stats, Verdict
from conftest import ROOT


class Toy:
    """An engine that decides nothing: every chosen invariant is unknown."""

    name = "toy"

    def __init__(self, spec, options, progress=None):
        self.spec, self.options = spec, options

    def check(self, model_name: str = "") -> RunResult:
        return RunResult(model_name, self.spec.spec_cls.__name__, self.name, dict(self.spec.env),
                         Stats(), [PropertyResult(p.name, p.kind, Verdict.UNKNOWN, "a toy")
                                   for p in self.spec.properties if p.kind == Kind.INVARIANT])


@pytest.fixture
def toy(monkeypatch):
    """The toy engine registered (accepting nothing beyond the basics), under `toy`."""
    def register(accepts=frozenset()):
        monkeypatch.setitem(engines.ENGINES, "toy",
                            Registered(f"{__name__}:Toy", accepts, False, False, "a toy"))
    register()
    return register


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def model(tmp_path: Path, spec: str, check: str = "", more: str = "") -> Path:
    path = tmp_path / "m.toml"
    path.write_text(f'spec = "{spec}"\n{more}[check]\nengine = "toy"\n{textwrap.dedent(check)}')
    return path


def test_a_registered_engine_runs_from_a_model_file_and_reports_its_own_name(
        toy, tmp_path, monkeypatch):
    """... given the bound spec alone, not a Machine, as its line does not say `concrete`."""
    given = []
    monkeypatch.setattr(Toy, "__init__", lambda self, spec, options, progress=None:
                        (given.append(type(spec)), setattr(self, "spec", spec)) and None)
    path = model(tmp_path, "examples.diehard:DieHard")
    result = run(path, "--traces", tmp_path, "-v", "--json", tmp_path / "r.json")
    assert result.exit_code == 3, result.output
    assert "(DieHard, toy engine)" in result.output
    assert '"engine": "toy"' in (tmp_path / "r.json").read_text()
    assert given == [BoundSpec]


@pytest.mark.parametrize("key, value, feature", [
    ("symmetry", '["RM"]', Feature.SYMMETRY),
    ("traces_per_property", "2", Feature.TRACES),
    ("max_states", "10", Feature.STATE_LIMIT),
    ("store", '"exact"', Feature.STORE),
    ("walks", "3", Feature.WALKS),
    ("seed", "3", Feature.WALKS),
    ("lemmas", '["tc_consistent"]', Feature.LEMMAS)])
def test_each_option_of_a_model_file_the_engine_does_not_declare_is_refused_at_its_line(
        toy, tmp_path, key, value, feature):
    path = model(tmp_path, "examples.tcommit:TCommit", f"{key} = {value}\n")
    result = run(path, "--traces", tmp_path)
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {path}:4: the toy engine does not take "
                                    f"{feature.value} ({key}); engines that do: "), result.output
    assert len(result.output.splitlines()) == 1
    toy(frozenset({feature}))                   # declared, the same option is taken
    assert run(path, "--traces", tmp_path, "-q").exit_code == 3


@pytest.mark.parametrize("flag, feature", [
    (["--workers", 2], Feature.WORKERS), (["--ray"], Feature.RAY),
    (["--store", "exact"], Feature.STORE), (["--max-states", 5], Feature.STATE_LIMIT),
    (["--traces-per-property", 2], Feature.TRACES)])
def test_each_flag_the_engine_does_not_declare_is_refused(toy, tmp_path, flag, feature):
    path = model(tmp_path, "examples.diehard:DieHard")
    result = run(path, *flag, "--traces", tmp_path)
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {path}: the toy engine does not take "
                                    f"{feature.value} ({flag[0]})"), result.output
    assert len(result.output.splitlines()) == 1


def test_what_the_spec_asks_for_is_refused_at_the_spec_line(toy, tmp_path):
    symbolic = model(tmp_path, "examples.tcommit:TCommit", more='[symbolic]\nN = ">= 1"\n')
    result = run(symbolic, "--traces", tmp_path)
    assert result.exit_code == 2 and result.output.startswith(
        f"error: {symbolic}:3: the toy engine does not take symbolic constants ([symbolic] N; "
        f"set it in [constants] or with -D N=VALUE); engines that do: bmc, kind, pdr")
    stepping = model(tmp_path, "examples.asyncterminationdetection:AsyncTerminationDetection")
    result = run(stepping, "--traces", tmp_path)
    assert result.exit_code == 2 and "examples/asyncterminationdetection.py:" in result.output
    assert "the toy engine does not take step properties and action constraints" in result.output


def test_liveness_an_engine_does_not_declare_is_left_unknown_not_refused(tmp_path):
    path = tmp_path / "m.toml"
    path.write_text('spec = "examples.diningphilosophers:DiningPhilosophers"\n')
    result = run(path, "--engine", "bmc", "--depth", 3, "--traces", tmp_path, "-v")
    assert result.exit_code == 3
    assert "liveness is not supported by the bmc engine" in result.output


CHOOSE = """
import sys
for name in ("z3", "numpy", "checker.symbolic.relation"):
    sys.modules[name] = None                    # importing any of them fails
from checker.choice import why_not_bulk
from checker.lang.bound import BoundSpec
from checker.model import load_model
for path in sys.argv[1:]:
    m = load_model(path)
    if m.engine == "explicit":
        spec = BoundSpec(m.spec_cls, m.constants, m.groups, m.symbolic, m.fairness)
        print(path, "interpreter" if why_not_bulk(spec, m.options) else "bulk")
"""


def test_the_default_engine_is_chosen_without_z3_numpy_or_the_relation_as_a_run_chooses_it():
    """Every gate model's default engine, chosen in a process that cannot import z3,
    numpy or the relation, is the engine a run of it (one level deep) reports."""
    models, _ = discover([ROOT / "models", ROOT / "examples" / "models"])
    models = [m for m in models if not is_matrix(m)]          # each cell is a model of these
    chose = subprocess.run([sys.executable, "-c", CHOOSE, *map(str, models)], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout
    static = dict(line.rsplit(" ", 1) for line in chose.splitlines())
    assert "bulk" in static.values() and "interpreter" in static.values()
    ran = {}
    for path in models:
        m = load_model(path)
        if m.engine == "explicit":
            m.options.max_depth = 1
            ran[str(path)] = pipeline.check(m).result.engine
    assert ran == static
