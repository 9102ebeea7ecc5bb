"""More than one counterexample: K traces per property, to K different end states,
shortest first, each a real path of the spec; fewer said when fewer exist."""
import json

import pytest

from checker import Int, Spec, action, either, invariant, require, step_invariant
from checker.engines import run_engine
from checker.explicit.machine import Machine
from checker.explicit.trace import replay
from checker.options import CheckOptions
from conftest import ROOT, explore
from test_cli import run

DIEHARD = ROOT / "examples" / "models" / "diehard.toml"


class Grid(Spec):
    """Walks right or up on a 3 x 3 grid: many ways to many corners."""
    x: Int[0, 2] = 0
    y: Int[0, 2] = 0

    @action
    def move(s):
        if either():                                # right
            require(s.x < 2)
            s.x += 1
        else:                                       # up
            require(s.y < 2)
            s.y += 1

    @invariant
    def near_origin(s):
        return s.x + s.y < 2

    @step_invariant
    def no_up_once_right(s, t):
        return not (s.x >= 1 and t.y > s.y)


def checked(prop, trace):
    trace.prop = prop.name
    return replay(Machine(Grid), trace).ok


@pytest.mark.parametrize("engine", ["interpreter", "simulate"])
def test_k_traces_end_in_different_states_shortest_first_and_replay(engine):
    options = CheckOptions(traces_per_property=3, walks=200 if engine == "simulate" else 1000)
    result = run_engine(engine, Machine(Grid), options)
    for p in result.properties:
        traces = [p.trace, *p.more_traces]
        assert len(traces) == 3, p.name
        lengths = [len(t.steps) for t in traces]
        assert lengths == sorted(lengths)
        ends = [tuple(s.state for s in t.steps[-2:]) if p.kind == "step_invariant"
                else t.steps[-1].state for t in traces]
        assert len(set(ends)) == 3
        assert all(checked(p, t) for t in traces), p.name
    if engine == "interpreter":                  # x + y = 2 first: three states at depth 2
        near = next(p for p in result.properties if p.name == "near_origin")
        assert [len(t.steps) - 1 for t in [near.trace, *near.more_traces]] == [2, 2, 2]


def test_fewer_traces_than_asked_for_are_said():
    result = explore(Grid, traces_per_property=5, properties=["no_up_once_right"])
    (p,) = result.properties
    # up from (1, 0), (1, 1), (2, 0) and (2, 1): the only four such steps
    assert len(p.more_traces) == 3
    assert p.reason.endswith("only 4 of the 5 traces asked for exist in the explored space")


def test_one_trace_by_default():
    (near, _) = explore(Grid).properties
    assert near.more_traces == [] and near.reason == "shortest counterexample"


def test_cli_writes_each_trace_and_lists_them_in_json(tmp_path):
    out = tmp_path / "r.json"
    result = run(DIEHARD, "--traces-per-property", 4, "--traces", tmp_path, "--json", out, "-q")
    assert result.exit_code == 0, result.output
    prop = next(p for p in json.loads(out.read_text())["properties"] if p["name"] == "not_solved")
    assert prop["traces"] == [str(tmp_path / "diehard" / "not_solved.itf.json"),
                              str(tmp_path / "diehard" / "not_solved.2.itf.json")]
    assert prop["trace_lengths"] == [6, 7]
    assert "only 2 of the 4" in prop["reason"]
    for path in prop["traces"]:
        assert run("replay", path, DIEHARD).exit_code == 0


def test_bad_or_unsupported_counts_are_one_line_errors(tmp_path):
    result = run(DIEHARD, "--traces-per-property", 0, "-q")
    assert result.exit_code == 2 and "0 is not in the range x>=1" in result.output
    model = tmp_path / "m.toml"
    model.write_text('spec = "examples.diehard:DieHard"\n[check]\ntraces_per_property = 0\n')
    result = run(model, "-q")
    assert result.exit_code == 2 and result.output.strip() == \
        f"error: {model}:3: traces_per_property must be positive, got 0"
    for engine in ("bmc", "bulk"):
        message = f"the {engine} engine does not take more than one trace per property " \
                  f"(--traces-per-property); engines that do: explicit, interpreter, simulate"
        result = run(DIEHARD, "--traces-per-property", 2, "--engine", engine, "-q")
        assert result.exit_code == 2 and message in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1
