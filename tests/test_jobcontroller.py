"""The Job controller's pod tracking with finalizers (examples/jobcontroller.py).

The fixed controller holds every property in its models; each published bug of
examples/jobcontroller_bugs.py is refuted by the property its report describes, with
the shortest counterexample's length; the library pieces the controller added to
checker/kubernetes (a patch removing the last finalizer, process memory a crash clears) are
checked both ways.
"""
from __future__ import annotations

import pytest

from checker import Ghost, fault, invariant, reachable
from checker.explicit.explorer import ExplicitEngine
from checker.model import load_model
from conftest import ROOT, explore, verdicts
from examples.jobcontroller import PODS, JobController, Obj, Pc, Ref

PROPERTIES = {"each_pod_counted_at_most_once", "no_finished_pod_lost",
              "at_most_parallelism_running", "pool_large_enough", "job_finishes",
              "no_orphans", "finished_job_releases_its_pods"}


def check_model(name):
    model = load_model(ROOT / "examples" / "models" / f"{name}.toml")
    return ExplicitEngine(model.machine(), model.options).check()


def trace_length(result, name):
    return next(len(p.trace.steps) - 1 for p in result.properties if p.name == name)


def refuted(result) -> set[str]:
    return {n for n, v in verdicts(result).items() if v == "violated"}


@pytest.mark.parametrize("model, violated, steps", [
    ("jobcontroller", None, None),
    ("jobcontroller_F2", None, None),
    ("jobcontroller_started_twice", "at_most_parallelism_running", 5),
    ("jobcontroller_no_finalizer_expectations", "each_pod_counted_at_most_once", 14),
    ("jobcontroller_counts_despite_failed_removal", "each_pod_counted_at_most_once", 13),
    ("jobcontroller_no_orphan_cleanup", "no_orphans", 6),
    ("jobcontroller_orphan_error_not_retried", "no_orphans", 7),
])
def test_the_fixed_controller_holds_and_each_bug_is_refuted(model, violated, steps):
    result = check_model(model)
    assert set(verdicts(result)) == PROPERTIES
    assert refuted(result) == ({violated} if violated else set())
    if violated:
        assert trace_length(result, violated) == steps


def test_a_pod_is_counted_twice_only_through_a_stale_read_without_expectations():
    """#105200's counterexample: the second count follows a stale read of the pod."""
    result = check_model("jobcontroller_no_finalizer_expectations")
    steps = next(p.trace.steps for p in result.properties
                 if p.name == "each_pod_counted_at_most_once")
    assert "stale" in [s.action for s in steps]


class NoTrackingFinalizer(JobController):
    """The tracking before KEP-2307 (kubernetes/kubernetes#28486): pods carry no finalizer,
    so the terminated-pod garbage collector may remove a finished pod before it is
    counted."""
    def _call(s) -> bool:
        if s.pc is Pc.CREATE_POD:
            return s._create(s.m_pod, Obj(owner=Ref.JOB))
        return super()._call()


def test_without_the_tracking_finalizer_a_finished_pod_is_lost():
    result = explore(NoTrackingFinalizer, {"F": 0, "L": 0}, {"cache": False})
    assert "no_finished_pod_lost" in refuted(result)
    assert trace_length(result, "no_finished_pod_lost") == 4


# ------------------------------------------------------------ the library's additions
class PatchProbe(JobController):
    @invariant
    def a_deleting_pod_keeps_its_finalizer(s):
        """A pod with a deletionTimestamp is removed when its last finalizer goes."""
        return all(s.objects[p] is None or not s.objects[p].deleting or s.objects[p].finalizer
                   for p in PODS)

    @reachable
    def w_deleting_pod(s):
        """A pod holding the finalizer gets a deletionTimestamp."""
        return any(s.deleting(p) for p in PODS)


class PatchKeepsObject(PatchProbe):
    """A broken API server: a patch removing the last finalizer leaves the object."""
    def _store(s, r, obj):
        s._write(r, obj, own=True)


def test_a_patch_removing_the_last_finalizer_removes_a_deleted_object():
    v = verdicts(explore(PatchProbe, {"F": 1, "L": 0}, {"user_delete": True, "cache": False}))
    assert v["a_deleting_pod_keeps_its_finalizer"] == v["w_deleting_pod"] == "holds"


def test_a_patch_leaving_a_deleted_object_is_refuted():
    result = explore(PatchKeepsObject, {"F": 1, "L": 0}, {"user_delete": True, "cache": False})
    assert "a_deleting_pod_keeps_its_finalizer" in refuted(result)


class MemoryProbe(JobController):
    crashed_with_expectations: Ghost[bool] = False
    kept_expectations: Ghost[bool] = False

    @fault(group="crash")
    def crash(s):
        s.crashed_with_expectations = s.crashed_with_expectations or bool(s.expect_released)
        super().crash()
        s.kept_expectations = s.kept_expectations or bool(s.expect_released)

    @reachable
    def w_expectations_outlive_a_reconcile(s):
        """Between two reconciles the controller still expects a finalizer removal."""
        return s.pc is Pc.IDLE and bool(s.expect_released)

    @reachable
    def w_crash_with_expectations(s):
        """A crash strikes while an expectation is held."""
        return s.crashed_with_expectations

    @invariant
    def a_crash_clears_expectations(s):
        """After a crash the controller expects nothing."""
        return not s.kept_expectations


class CrashKeepsExpectations(MemoryProbe):
    """A broken library: the process memory survives a crash."""
    def _forget_process_memory(s):
        pass


CRASH = {"F": 1, "L": 0}, {"crash": True, "cache": False}


def test_process_memory_outlives_a_reconcile_and_a_crash_clears_it():
    """A finalizer removal is expected from the patch to the next read; a crash after the
    patch (before the count) meets it."""
    v = verdicts(explore(MemoryProbe, *CRASH))
    assert {v[n] for n in ("w_expectations_outlive_a_reconcile", "w_crash_with_expectations",
                           "a_crash_clears_expectations")} == {"holds"}


def test_process_memory_surviving_a_crash_is_refuted():
    result = explore(CrashKeepsExpectations, *CRASH)
    assert "a_crash_clears_expectations" in refuted(result)
