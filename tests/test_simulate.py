"""Simulation: seeded random walks find real violations, never claim a proof, and count
every step they take per action."""
import json
from pathlib import Path

from checker import Int, Spec, action, invariant, require, step_invariant
from checker.explicit.machine import Machine
from checker.explicit.simulate import Simulator, without_cycles
from checker.explicit.trace import Step, replay
from checker.model import import_spec, load_model
from checker.options import CheckOptions
from checker.results import Verdict
from conftest import ROOT
from test_cli import run

MODELS = ROOT / "examples" / "models"


def simulate(model: str, consts=None, **options):
    m = load_model(MODELS / f"{model}.toml", consts)
    m.engine = "simulate"
    for key, value in options.items():
        setattr(m.options, key, value)
    machine = m.machine()
    return machine, Simulator(machine, m.options).check()


def labelled(trace):
    return [(s.state, s.label, s.choices) for s in trace.steps]


def test_a_seeded_simulation_finds_the_lost_update_and_the_seed_gives_the_same_trace():
    machine, first = simulate("lostupdate", walks=50, seed=7)
    _, again = simulate("lostupdate", walks=50, seed=7)
    (p,), (q,) = first.properties, again.properties
    assert p.verdict is Verdict.VIOLATED and "not shortest" in p.reason and "seed 7" in p.reason
    assert labelled(p.trace) == labelled(q.trace)
    assert p.trace.found["simulation"]["seed"] == 7
    assert replay(machine, p.trace).ok
    walk = p.trace.found["simulation"]["walk"]          # the first walks reproduce it
    _, prefix = simulate("lostupdate", walks=walk + 1, seed=7)
    assert labelled(prefix.properties[0].trace) == labelled(p.trace)


def test_a_simulation_finds_a_rayjob_mutant_on_the_remembered_steps():
    model = load_model(ROOT / "models" / "rayjob" / "happy_F0.toml")
    model.spec_cls = import_spec("spec.rayjob.mutants:ClusterNameInInitializing", model.path, "")
    model.engine, model.options.walks, model.options.seed = "simulate", 100, 0
    machine = model.machine()
    result = Simulator(machine, model.options).check()
    p = next(p for p in result.properties if p.name == "p1a_one_cluster_name_per_attempt")
    assert p.verdict is Verdict.VIOLATED and replay(machine, p.trace).ok
    replayed, run, _ = machine.expand.memory()
    assert replayed > run                    # walks meet states again: most steps replayed


def test_a_clean_simulation_never_says_holds():
    _, result = simulate("lostupdate", {"VERSIONED": True}, walks=20, max_depth=10)
    (p,) = result.properties
    assert p.verdict is Verdict.UNKNOWN
    assert p.reason == "not violated in 20 random walks of depth 10, seed 0"
    assert result.exit_code == 3 and result.stats.depth <= 10


def test_liveness_and_deadlock_stay_unknown_in_a_simulation():
    _, result = simulate("diningphilosophers", walks=5, max_depth=30)
    assert {p.name: p.verdict for p in result.properties} == dict.fromkeys(
        ["type_ok", "exclusive_access", "nobody_starves", "deadlock"], Verdict.UNKNOWN)
    live = next(p for p in result.properties if p.name == "nobody_starves")
    assert live.reason == "liveness is not checked by a simulation"


def test_coverage_counts_every_step_taken():
    _, result = simulate("diehard", walks=30, max_depth=12)
    assert sum(result.coverage.fired.values()) == result.stats.transitions == 30 * 12
    assert sum(result.coverage.by_action.values()) == result.stats.transitions


class Countdown(Spec):
    """Steps down to 0, where it is stuck; one step may jump by two."""
    n: Int[0, 4] = 4

    @action
    def down(s):
        require(s.n > 0)
        s.n -= 1

    @action
    def jump(s):
        require(s.n > 1)
        s.n -= 2

    @action
    def never(s):
        require(s.n > 4)
        s.n = 0

    @step_invariant
    def by_one(s, t):
        return s.n - t.n == 1

    @invariant
    def positive(s):
        return s.n > 0


def test_simulation_finds_step_violations_and_deadlocks_and_unfired_actions():
    machine = Machine(Countdown)
    result = Simulator(machine, CheckOptions(deadlock=True, walks=10)).check()
    verdicts = {p.name: p for p in result.properties}
    assert {n: p.verdict for n, p in verdicts.items()} == dict.fromkeys(
        ["positive", "by_one", "deadlock"], Verdict.VIOLATED)
    for p in verdicts.values():
        p.trace.prop = p.name
        assert replay(machine, p.trace).ok, p.name
    assert verdicts["by_one"].trace.steps[-1].action == "jump"
    assert result.coverage.never_fired == ["never"]


def test_without_cycles_cuts_returns_to_a_state():
    steps = [Step((0,)), Step((1,), "a"), Step((2,), "b"), Step((1,), "c"), Step((3,), "d")]
    assert [s.state for s in without_cycles(steps)] == [(0,), (1,), (3,)]
    assert [s.action for s in without_cycles(steps)] == [None, "a", "d"]


def test_cli_simulation_writes_traces_coverage_and_its_seed(tmp_path):
    out = tmp_path / "r.json"
    result = run(MODELS / "diehard.toml", "--simulate", "--walks", 300, "--depth", 20,
                 "--seed", 3, "--json", out, "--traces", tmp_path, "-q")
    assert result.exit_code == 3, result.output          # deadlock undecided
    data = json.loads(out.read_text())
    assert data["engine"] == "simulate"
    assert data["simulation"] == {"seed": 3, "walks": 300, "depth": 20}
    assert sum(data["coverage"]["bindings"].values()) == data["stats"]["transitions"]
    solved = next(p for p in data["properties"] if p["name"] == "not_solved")
    assert solved["verdict"] == "violated"
    trace = json.loads(Path(solved["trace"]).read_text())
    assert trace["#meta"]["shortest"] is False and trace["#meta"]["simulation"]["seed"] == 3
    assert run("replay", solved["trace"], MODELS / "diehard.toml").exit_code == 0


def test_a_model_file_can_choose_the_simulation(tmp_path):
    path = tmp_path / "m.toml"
    path.write_text('spec = "examples.lostupdate:Controller"\n[groups]\nfaults = true\n'
                    '[check]\nengine = "simulate"\nwalks = 30\nseed = 1\nmax_depth = 8\n'
                    '[expect]\nno_lost_update = "violated"\n')
    result = run(path, "--traces", tmp_path, "-q")
    assert result.exit_code == 0 and result.output.splitlines()[-1].startswith("OK"), result.output


def test_bad_simulation_flags_are_one_line_errors():
    for args, message in [
            (["--walks", 3], "the explicit engine does not take walks and seeds (--walks); "
                             "engines that do: simulate"),
            (["--seed", 3, "--engine", "interpreter"], "the interpreter engine does not take "
                                                        "walks and seeds (--seed)"),
            (["--simulate", "--engine", "bmc"], "--simulate runs the simulate engine"),
            (["--simulate", "--depth", 0], "0 is not in the range x>=1"),
            (["--simulate", "--walks", 0], "0 is not in the range x>=1"),
            (["--simulate", "--max-states", 10], "the simulate engine does not take a state limit"),
            (["--simulate", "--ray"], "the simulate engine does not take Ray workers (--ray)"),
            (["--simulate", "--workers", 2], "the simulate engine does not take more than one "
                                             "worker (--workers)")]:
        result = run(MODELS / "diehard.toml", *args, "-q")
        assert result.exit_code == 2 and message in result.output, (args, result.output)
