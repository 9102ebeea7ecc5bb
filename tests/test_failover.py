"""The library's operator outage and leader-election failover (checker/kubernetes/faults.py,
failover.py), on the tutorial's controller and the Job controller.

Each semantic is checked both ways: a probe whose invariant holds on the library and a
broken library where it is refuted. The consequences are real verdicts: a property that
holds under every other fault is refuted once a paused ex-leader resumes, with the
shortest counterexample, while the others still hold.
"""
from __future__ import annotations

from click.testing import CliRunner

from checker import Ghost, action, fault, invariant, require
from checker.cli import main
from checker.explicit.explorer import ExplicitEngine
from checker.model import load_model
from conftest import ROOT, explore, verdicts
from examples.childcontroller import ChildController, Pc
from examples.jobcontroller import JobController
from checker.kubernetes import CacheSt
from test_kubernetes import ApiProbe

FAULTS = {"crash": True, "write_lost": True, "write_fail": True, "user_delete": True,
          "cache": False}


def check_model(name):
    model = load_model(ROOT / "examples" / "models" / f"{name}.toml")
    return ExplicitEngine(model.machine(), model.options).check()


def trace_of(result, name) -> list[str]:
    return [s.action for s in next(p.trace.steps for p in result.properties
                                   if p.name == name)[1:]]


def refuted(result) -> set[str]:
    return {n for n, v in verdicts(result).items() if v == "violated"}


# ------------------------------------------------------------ the failover's semantics
class FailoverProbe(ChildController):
    """Checks what a failover leaves: a new leader with no memory, a current cache and
    the key queued; the ex-leader with the paused leader's memory."""
    bad_failover: Ghost[bool] = False

    @fault(group="failover")
    def leader_failover(s):
        paused = (s.pc, s.m, s.m_child, dict(s.fresh))
        super().leader_failover()
        s.bad_failover = s.bad_failover or not (
            s.pc is Pc.IDLE and s.m is None and s.m_child is None and s.queued
            and not any(s.fresh.values())
            and all(st is CacheSt.SYNC for st in s.cache_st.values())
            and (s.ex_pc, s.ex_m, s.ex_m_child, dict(s.ex_fresh)) == paused)

    @invariant
    def a_failover_starts_a_new_leader_and_keeps_the_paused_memory(s):
        return not s.bad_failover

    @invariant
    def an_exited_ex_leader_holds_nothing(s):
        """No ex-leader: no memory of one."""
        return s.ex_pc is not Pc.IDLE or (s.ex_m is None and s.ex_m_child is None
                                          and not any(s.ex_fresh.values()))


class NewLeaderKeepsMemory(FailoverProbe):
    """A broken failover: the new leader starts with the paused one's memory."""
    def _process_starts(s):
        super()._process_starts()
        s.m, s.m_child = s.ex_m, s.ex_m_child


class ApiFailoverProbe(ApiProbe):
    """The API server's probe, its invariant now also over the ex-leader's updates."""


class ExLeaderSharesFresh(ApiFailoverProbe):
    """A broken failover: the ex-leader writes with the new leader's resourceVersions."""
    def _swap_leaders(s):
        s.pc, s.ex_pc = s.ex_pc, s.pc
        s.m, s.ex_m = s.ex_m, s.m
        s.m_child, s.ex_m_child = s.ex_m_child, s.m_child


def failover_run(spec_cls, F=1):
    return explore(spec_cls, {"F": F, "L": 0}, {**FAULTS, "failover": True})


PROBED = ("a_failover_starts_a_new_leader_and_keeps_the_paused_memory",
          "an_exited_ex_leader_holds_nothing")


def test_a_failover_starts_afresh_and_the_ex_leader_keeps_its_own_memory():
    v = verdicts(failover_run(FailoverProbe, F=2))
    assert [v[name] for name in PROBED] == ["holds", "holds"]


def test_a_new_leader_that_keeps_the_paused_memory_is_refuted():
    v = verdicts(failover_run(NewLeaderKeepsMemory))
    assert v["a_failover_starts_a_new_leader_and_keeps_the_paused_memory"] == "violated"


def test_the_ex_leaders_updates_carry_its_own_resource_version():
    """Every applied update, the ex-leader's too, was made from the stored version; an
    ex-leader that borrowed the new leader's resourceVersions would overwrite."""
    assert verdicts(failover_run(ApiFailoverProbe, F=2))[
        "updates_apply_to_the_version_read"] == "holds"
    assert verdicts(failover_run(ExLeaderSharesFresh, F=2))[
        "updates_apply_to_the_version_read"] == "violated"


# ------------------------------------------------------------ the outage
class OutageProbe(ChildController):
    @invariant
    def no_reconcile_while_down(s):
        return not (s.op_down and s.pc is not Pc.IDLE)


class ReconcilesWhileDown(OutageProbe):
    """A broken outage: the work queue is served while no operator runs."""
    @action(group="reconcile", fair="weak")
    def op_start(s):
        require(s.pc is Pc.IDLE and s.queued)
        s.queued = False
        s._reconcile()


class ComesBackWithoutRelist(JobController):
    """A broken outage: the operator that comes back neither relists nor queues."""
    @action(group="outage", fair="weak")
    def outage_end(s):
        require(s.op_down)
        s.op_down = False


OUTAGE = {"outage": True, "cache": False}


def test_no_reconcile_runs_during_an_outage():
    assert verdicts(explore(OutageProbe, {"F": 1}, OUTAGE))["no_reconcile_while_down"] == "holds"
    assert verdicts(explore(ReconcilesWhileDown, {"F": 1}, OUTAGE))[
        "no_reconcile_while_down"] == "violated"


def test_an_outage_ends_and_the_job_still_finishes():
    assert set(verdicts(explore(JobController, {"F": 1}, OUTAGE)).values()) == {"holds"}


def test_an_operator_back_from_an_outage_without_a_relist_leaves_the_job_unfinished():
    assert verdicts(explore(ComesBackWithoutRelist, {"F": 1}, OUTAGE))["job_finishes"] == "violated"


# ------------------------------------------------------------ the consequences
OTHERS = {**FAULTS, "outage": True}


def test_a_paused_ex_leader_starts_a_second_pod_of_the_job():
    """Parallelism 1 holds under a crash, an outage, a lost response, a failed write or a
    deleted Job; a failover alone breaks it in five steps: the leader decides on pod-a
    and pauses, the new leader creates pod-b, the ex-leader resumes and creates pod-a.
    Counting and cleanup still hold: the ex-leader's status updates meet a 409."""
    without = explore(JobController, {"F": 1, "BACKOFF_LIMIT": 0}, OTHERS)
    assert set(verdicts(without).values()) == {"holds"}
    result = check_model("jobcontroller_failover")
    assert refuted(result) == {"at_most_parallelism_running"}
    assert trace_of(result, "at_most_parallelism_running") == [
        "op_start", "leader_failover", "op_start", "op_call", "ex_leader_call"]


def test_a_paused_ex_leader_re_creates_the_child_of_a_deleted_parent():
    """The tutorial's controller keeps one child per parent under two faults of every
    other kind; with a failover, the ex-leader paused before its create resumes after
    the parent was deleted and its child collected, and creates the child again (an
    orphan the garbage collector then deletes: `no_orphans` still holds)."""
    without = explore(ChildController, {"F": 2, "L": 0}, OTHERS)
    assert set(verdicts(without).values()) == {"holds"}
    result = check_model("childcontroller_failover")
    assert refuted(result) == {"one_child", "each_name_created_once"}
    steps = trace_of(result, "one_child")
    assert len(steps) == 14 and steps[-1] == "ex_leader_call"
    assert {"leader_failover", "user_delete", "garbage_collect"} <= set(steps)


def test_memory_must_list_state_variables(tmp_path, monkeypatch):
    """A name in MEMORY that is no variable is a one-line error at the class."""
    (tmp_path / "typo.py").write_text(
        "from examples.childcontroller import ChildController\n\n\n"
        "class Typo(ChildController):\n"
        "    MEMORY = ('m', 'm_chlid')\n")
    (tmp_path / "typo.toml").write_text('spec = "typo:Typo"\n')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["typo.toml"])
    assert result.exit_code == 2
    assert "typo.py:4: Typo: MEMORY and PROCESS_MEMORY list state variables; 'm_chlid' " \
           "is not one" in result.output
    assert "Traceback" not in result.output
