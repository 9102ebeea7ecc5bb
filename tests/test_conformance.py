"""Conformance of the Ray side: scenario generation and the replay check on a simulated
Ray (fast), and the real thing on a local Ray head (marker `conformance`)."""
from __future__ import annotations

import socket

import pytest
from click.testing import CliRunner
from rich.console import Console

from checker.cli import main
from checker.conformance import ConfigRun, print_report, run_scenario
from checker.explicit.machine import Machine
from spec.ray.conformance.abstraction import SPONTANEOUS, abstract, items
from spec.ray.conformance.plan import CONFIGS, LENGTH, plan
from spec.ray.client import IDS
from spec.ray.spec import CONSTANTS, GROUPS, RaySide
from spec.rayjob.program import UserProgram
from spec.rayjob.rayhead import RayHead
from spec.rayjob.types import Rec


class SimulatedRay:
    """A spec machine standing in for Ray: it takes each step by its label."""

    spontaneous = SPONTANEOUS
    abstract = staticmethod(abstract)

    def __init__(self, machine, start):
        self.m, self.st = machine, start

    def observe(self):
        return abstract(self.m.plain(self.st))

    def perform(self, step, ahead):
        label = step.binding.label
        self.st = next((s for b, _, s in self.m.successors(self.st) if b.label == label), self.st)

    def deadline(self, step):
        return 0


class PutOverwrite(RaySide):
    """Ray without put-if-absent: a second submit with the same id replaces the record."""

    def _ray_submit(s, k) -> bool:
        s.kv[k] = Rec.PENDING
        return True


class FollowerNeverEnds(SimulatedRay):
    """`ray job logs --follow` that never exits."""

    def perform(self, step, ahead):
        if step.binding.name != "sub_follow":
            super().perform(step, ahead)


def simulate(system_cls, adapter_cls=SimulatedRay) -> list[ConfigRun]:
    results = []
    for name, (m, sel) in plan().items():
        fake = Machine(system_cls, dict(CONSTANTS, gcs_ft=CONFIGS[name]), GROUPS)
        runs = [run_scenario(m, sc, adapter_cls(fake, sc.start), poll=0) for sc in sel.scenarios]
        results.append(ConfigRun(name, m, sel, items, runs, 0.0))
    return results


def test_the_ray_actors_are_the_rayjob_specs_own():
    fns = {b.name: b.fn for b in Machine(RaySide, CONSTANTS, GROUPS).bindings}
    assert fns["driver_start"] is UserProgram.driver_start
    assert RaySide._ray_submit is RayHead._ray_submit and RaySide._head_stops is RayHead._head_stops


def test_scenarios_cover_every_item_within_their_length():
    plans = plan()
    for m, sel in plans.values():
        covered = [i for sc in sel.scenarios for i in sc.items]
        assert set(covered) == sel.items and len(covered) == len(set(covered))
        assert all(len(sc.steps) <= LENGTH for sc in sel.scenarios)
    (_, noft), (_, ft) = plans.values()
    assert not noft.items & ft.items and ft.items      # FT adds what survives a restart


def test_a_faithful_system_agrees_and_exercises_every_item():
    for c in simulate(RaySide):
        assert c.ok and c.exercised() == c.selection.items, c.name


def test_a_system_without_put_if_absent_disagrees():
    results = simulate(PutOverwrite)
    bad = [row for c in results for run in c.runs for row in run.rows if row.verdict == "differs"]
    assert bad and bad[0].step.startswith(("sdk_submit", "sub_submit"))
    assert bad[0].observed["reply"] == "200" or bad[0].observed["script"] == "following"
    out = Console(record=True, width=200)
    print_report(out, results)
    assert "DISAGREES" in out.export_text()


def test_a_spontaneous_step_that_never_happens_is_stuck():
    (c, _) = simulate(RaySide, FollowerNeverEnds)
    stuck = [row for run in c.runs for row in run.rows if row.verdict == "stuck"]
    assert not c.ok and stuck and all(row.step.startswith("sub_follow") for row in stuck)


def test_conform_names_a_target_that_cannot_run():
    result = CliRunner().invoke(main, ["conform", "no_such_system"])
    assert result.exit_code == 2 and "no_such_system" in result.output


@pytest.mark.conformance
def test_a_silent_dashboard_is_an_observation_not_a_hung_run(tmp_path, monkeypatch):
    """`ray job status` hangs forever on an endpoint that accepts and never answers
    (docs/ray-observed.md row 2): every call of the adapter has a timeout."""
    from spec.ray.conformance import adapter
    from spec.ray.conformance.local import LocalRay
    monkeypatch.setattr(adapter, "CALL_TIMEOUT", 3.0)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        ray = LocalRay(tmp_path)
        ray.address = f"http://127.0.0.1:{silent.getsockname()[1]}"
        a = adapter.RayAdapter(ray, tmp_path, "silent")
        a.script_job = a.ids[IDS[0]]
        a.do_sub_status(p=None, ahead=[])
        a.do_sdk_stop(j=IDS[0], ahead=[])
    assert a.script == "status exited hang > 3 s"
    assert "Timeout" in a.reply


@pytest.mark.conformance
def test_real_ray_conforms():
    """Starts a local Ray head (and Redis): an error, never a skip, if it cannot."""
    from spec.ray.conformance import conform
    results = conform(progress=print)
    out = Console(record=True, width=200)
    print_report(out, results)
    report = out.export_text()
    print(report)
    assert all(c.ok for c in results), report
    for c in results:                       # transient states may be missed, not more
        assert len(c.exercised()) >= 0.8 * len(c.selection.items), report
