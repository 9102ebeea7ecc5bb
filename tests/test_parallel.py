"""The search on several worker processes: the same counts, verdicts, shortest trace
lengths and coverage as one process; errors from a worker are the user's one line; a
worker that dies leaves `unknown`, never a wrong verdict."""
from __future__ import annotations

import dataclasses
import os

import pytest

import checker.explicit.explorer
from checker import Int, Spec, action, invariant, reachable
from checker.errors import SpecError
from checker.explicit.explorer import ExplicitEngine
from checker.explicit.machine import Machine
from checker.model import load_model
from checker.options import CheckOptions
from checker.results import Verdict
from checker.explicit.trace import replay
from conftest import ROOT

MODELS = [f"examples/models/{p.name}" for p in sorted((ROOT / "examples/models").glob("*.toml"))] + \
         ["models/rayjob.toml", "models/rayjob/suspend_F2.toml", "models/rayjob/live_happy_F0.toml"]
# the test's process, also for Ray's workers, which inherit the environment (not the module)
PARENT = int(os.environ.setdefault("CHECK_MODEL_TEST_PARENT", str(os.getpid())))


@pytest.fixture(autouse=True)
def parallel_from_the_first_level(monkeypatch):
    """Small models too go to the workers, right after their initial states."""
    monkeypatch.setattr(checker.explicit.explorer, "PARALLEL_FROM", 1)


def outcome(result):
    """What must not depend on the number of processes (the states on a trace may: any
    shortest counterexample is one)."""
    s = result.stats
    return {"stats": (s.initial_states, s.distinct_states, s.generated, s.depth, s.complete),
            "verdicts": {p.name: (p.verdict, p.reason, p.trace and len(p.trace.steps))
                         for p in result.properties},
            "coverage": result.coverage.fired}


def run(machine, options, workers):
    return ExplicitEngine(machine, dataclasses.replace(options, workers=workers)).check()


@pytest.mark.parametrize("path", MODELS)
def test_two_workers_search_as_one_process_does(path):
    model = load_model(ROOT / path)
    machine = model.machine()
    one = run(machine, dataclasses.replace(model.options, store="fingerprint"), 1)
    two = run(machine, model.options, 2)
    assert outcome(two) == outcome(one)
    kinds = {p.kind for p in two.properties}
    if kinds & {"eventually", "leads_to"}:
        assert "one process: liveness" in two.method
    elif "step_invariant" in kinds:
        assert "one process: step properties" in two.method
    else:
        assert "2 worker processes" in two.method
    for p in two.properties:
        if p.trace is not None and p.trace.loop is None:
            assert replay(machine, p.trace).ok, p.name


class Grid(Spec):
    """A walk on a grid: levels grow, so every depth is split between the workers."""
    x: Int[0, 12] = 0
    y: Int[0, 12] = 0

    @action
    def right(s):
        s.x = min(12, s.x + 1)

    @action
    def up(s):
        s.y = min(12, s.y + 1)

    @invariant
    def not_far(s):
        return s.x + s.y < 20

    @reachable
    def corner(s):
        return s.x == 12 and s.y == 12


class Raises(Grid):
    @action
    def jump(s):
        if s.x == 9 and s.y == 4:
            raise ZeroDivisionError("9 / 4")


class WorkerDies(Grid):
    @action
    def jump(s):
        if s.x + s.y == 10 and os.getpid() != PARENT:
            os._exit(7)


def test_a_spec_that_raises_in_a_worker_is_the_usual_error_with_its_line():
    with pytest.raises(SpecError) as e:
        run(Machine(Raises), CheckOptions(), 2)
    assert "jump raised ZeroDivisionError: 9 / 4" in str(e.value)
    assert e.value.where.endswith(f"test_parallel.py:{Raises.jump.__code__.co_firstlineno + 3}")


def test_the_grid_is_searched_alike_by_one_and_two_processes():
    one, two = (run(Machine(Grid), CheckOptions(store="fingerprint"), w) for w in (1, 2))
    assert outcome(two) == outcome(one)
    assert outcome(one)["stats"][1] == 13 * 13
    assert outcome(two)["verdicts"]["not_far"] == (Verdict.VIOLATED, "shortest counterexample", 21)


def test_a_worker_that_dies_leaves_unknown_never_a_wrong_verdict():
    result = run(Machine(WorkerDies), CheckOptions(), 2)
    assert "worker process" in result.stopped and "died (exit code 7)" in result.stopped
    verdicts = {p.name: p.verdict for p in result.properties}
    assert verdicts == {"not_far": Verdict.UNKNOWN, "corner": Verdict.UNKNOWN}
    assert result.exit_code == 3 and not result.stats.complete


class Clock:
    """A perf_counter that moves 0.3 s at each reading: every level is "long"."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 0.3
        return self.now


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_is_reported_once_a_second_across_short_levels(monkeypatch, workers):
    monkeypatch.setattr(checker.explicit.explorer.time, "perf_counter", Clock())
    said = []
    result = ExplicitEngine(Machine(Grid), CheckOptions(workers=workers, store="fingerprint"),
                            progress=said.append).check()
    assert len(said) >= 3
    assert all(s.distinct_states <= 13 * 13 for s in said)
    assert (said[-1].workers is not None) == (workers == 2)
    # the part the workers ran, which the benchmark's ceiling sets apart from the rest
    assert (result.to_json()["stats"]["split_seconds"] > 0) == (workers == 2)


def test_ctrl_c_ends_the_workers_at_once(tmp_path):
    """A caller reading the output of a search on two workers interrupted mid-level gets
    its end within 2 s: no worker is left holding the pipe (nor 3 GB of store)."""
    import signal
    import subprocess
    import sys
    import textwrap
    import time
    from conftest import interruptible

    working = tmp_path / "working"
    (tmp_path / "busy.py").write_text(textwrap.dedent(f"""
        import os, pathlib
        from checker import Int, Spec, action, invariant
        PARENT = os.getpid()

        class S(Spec):
            a: Int[0, 40] = 0
            b: Int[0, 40] = 0
            c: Int[0, 40] = 0
            d: Int[0, 40] = 0

            @action
            def step(s, which: Int[0, 3], up: bool):
                if os.getpid() != PARENT:              # a worker: levels take minutes
                    pathlib.Path({str(working)!r}).touch()
                    sum(range(20_000))
                name = "abcd"[which]
                setattr(s, name, min(40, max(0, getattr(s, name) + (1 if up else -1))))

            @invariant
            def fine(s):
                return True
    """))
    (tmp_path / "busy.toml").write_text('spec = "busy:S"\n[check]\ndeadlock = false\n')
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"}
    proc = subprocess.Popen([sys.executable, "-m", "checker", str(tmp_path / "busy.toml"),
                             "--engine", "interpreter", "--workers", "2", "-q"], cwd=tmp_path, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            preexec_fn=interruptible, start_new_session=True)
    deadline = time.monotonic() + 120
    while not working.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if not working.exists():
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail(f"no worker started within two minutes: {proc.communicate()[0]}")
    proc.send_signal(signal.SIGINT)
    try:
        output, _ = proc.communicate(timeout=2)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)                 # the workers too
        pytest.fail("the output did not end within 2 s of Ctrl-C")
    assert proc.returncode == 3, output
    assert "interrupted (Ctrl-C)" in output and "Traceback" not in output
