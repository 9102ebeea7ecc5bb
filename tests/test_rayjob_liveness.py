"""RayJob liveness (issue 6): each claim holds under fairness and is refuted by a lasso
where it must fail (a gap of the code, a mutant, or fairness taken away)."""
from __future__ import annotations

import pytest

from checker.explicit.explorer import ExplicitEngine
from checker.options import CheckOptions
from checker.output.itf import from_itf, read_itf
from checker.explicit.machine import Machine
from checker.model import load_model
from checker.explicit.trace import replay
from spec.rayjob import mutants
from spec.rayjob.liveness import Liveness
from spec.rayjob.spec import RayJobLive
from test_rayjob import (MODEL_NAMES, ROOT, check, model_path, mutant_trace_path, prop,
                         save_trace)

LIVE_MODELS = [m for m in MODEL_NAMES if m.startswith("live_")]

# Lassos of the faithful spec: (model, property) -> (steps, loop index). Checked in under
# examples/traces/<model>/<property>.itf.json.
LASSOS = {
    ("live_unfair_F0", "l1_reaches_complete_or_failed"): (0, 0),   # no reconcile at all
    ("live_sidecar_F0", "l1_reaches_complete_or_failed"): (16, 16),  # no fault: slow workers
    ("live_unfair_F0", "l3_cluster_deleted_after_ttl"): (19, 19),
    ("live_unfair_F0", "l4_retrying_reaches_new"): (19, 19),
    ("live_unfair_F0", "l5_runs_at_least_once"): (0, 0),
    ("live_ops_F1", "l5_runs_at_least_once"): (22, 22),     # one dashboard error: 300 s of 404s
    ("live_hand_job_F1", "l1_reaches_complete_or_failed"): (14, 14),   # gap (i): error loop
    ("live_hand_job_F1", "l5_runs_at_least_once"): (14, 14),
    ("live_http_head_ft_F1", "l1_reaches_complete_or_failed"): (20, 19),  # stranded PENDING
    ("live_sidecar_F1", "l5_runs_at_least_once"): (17, 17),  # never Ready (live_sidecar_F0)
    ("live_interactive_unfair_F1", "l6_suspend_honoured"): (10, 10),  # Waiting: no suspend
    ("live_validation_F1", "l1_reaches_complete_or_failed"): (2, 2),  # ValidationFailed stays
    ("live_http_net_F1", "l5_runs_at_least_once"): (22, 22),  # a head restart before the run
}

# Real bugs that break a claim the faithful spec keeps: (mutant, model, property, steps, loop).
MUTANT_LASSOS = [
    (mutants.PreFix3903, "live_head_noft_F1", "l1_reaches_complete_or_failed", 23, 22),  # #3903
    (mutants.StopJobFatal, "live_delete_F1", "l2_deleted_rayjob_removed", 7, 6),       # #4850
    (mutants.Eager404Fail, "live_interactive_F0", "l5_runs_at_least_once", 19, 19),  # no user yet
    (mutants.PreRunningDeadlineIgnored, "live_prerun_F0", "l1_reaches_complete_or_failed", 10,
     10),                                                                             # #4178
]


def live(mutant):
    """The mutant with the liveness claims."""
    return type(mutant.__name__, (mutant, Liveness), {})


def mutant_machine(mutant, model_name) -> Machine:
    model = load_model(model_path(model_name))
    return Machine(live(mutant), model.constants, model.groups, fairness=model.fairness)


def lasso_of(machine, name):
    (p,) = ExplicitEngine(machine, CheckOptions(properties=[name])).check().properties
    return p


def trace_path(model, name):
    return ROOT / "examples/traces" / model / f"{name}.itf.json"


def assert_counterexample(machine, name, trace):
    """The lasso replays and closes its loop; the goal q never holds on the cycle, and
    after some trigger p (for `eventually`: the initial state) it never holds again."""
    assert trace.loop is not None
    report = replay(machine, trace)
    assert report.ok, report.message
    fn = next(p.fn for p in machine.properties if p.name == name)
    pair = fn if next(p.kind for p in machine.properties if p.name == name) == "leads_to" \
        else (lambda s: (True, fn(s)))
    p_at, q_at = ([machine.check(lambda s, i=i: pair(s)[i], step.state, name)
                   for step in trace.steps] for i in (0, 1))
    assert not any(q_at[trace.loop:])
    assert any(p and not any(q_at[i:]) for i, p in enumerate(p_at))


def test_liveness_models_keep_the_last_reconcile_result():
    """Without `track_result` a requeue leaves no trace and no reconcile is ever owed."""
    for name in LIVE_MODELS:
        assert load_model(model_path(name)).constants["track_result"] is True, name


@pytest.mark.parametrize("model,name", list(LASSOS))
def test_the_faithful_spec_loops(model, name):
    m, result = check(model)
    p = prop(result, name)
    assert p.verdict.value == "violated"
    assert (len(p.trace.steps) - 1, p.trace.loop) == LASSOS[model, name]
    assert_counterexample(m.machine(), name, p.trace)


@pytest.mark.parametrize("mutant,model_name,name,length,loop", MUTANT_LASSOS,
                         ids=[k[0].__name__ for k in MUTANT_LASSOS])
def test_each_mutant_loops_where_the_faithful_spec_progresses(mutant, model_name, name, length,
                                                                loop):
    assert prop(check(model_name)[1], name).verdict.value == "holds"
    machine = mutant_machine(mutant, model_name)
    p = lasso_of(machine, name)
    assert p.verdict.value == "violated"
    assert (len(p.trace.steps) - 1, p.trace.loop) == (length, loop)
    assert_counterexample(machine, name, p.trace)


def test_removing_fairness_refutes_what_held():
    """The reconcile (live_unfair_F0), and the clock: a polling operator disables `tick`
    in every reconcile, so only strong fairness lets the active deadline come."""
    for name in ("l1_reaches_complete_or_failed", "l4_retrying_reaches_new"):
        assert prop(check("live_happy_F0")[1], name).verdict.value == "holds"
        assert prop(check("live_unfair_F0")[1], name).verdict.value == "violated"
    model = load_model(model_path("live_http_head_ft_deadline_F1"))
    assert prop(check("live_http_head_ft_deadline_F1")[1],
                "l1_reaches_complete_or_failed").verdict.value == "holds"
    weak_clock = Machine(RayJobLive, model.constants, model.groups, fairness={"clock": "weak"})
    p = lasso_of(weak_clock, "l1_reaches_complete_or_failed")
    assert p.verdict.value == "violated"
    assert (len(p.trace.steps) - 1, p.trace.loop) == (20, 19)
    assert_counterexample(weak_clock, "l1_reaches_complete_or_failed", p.trace)


def test_every_liveness_claim_holds_somewhere_and_is_refuted_somewhere():
    holds, refuted = set(), {name for _, name in LASSOS} | {k[2] for k in MUTANT_LASSOS}
    for name in LIVE_MODELS:
        holds |= {p.name for p in check(name)[1].properties if p.verdict.value == "holds"}
    claims = {p.name for p in Machine(RayJobLive).properties
              if p.kind in ("eventually", "leads_to")}
    assert holds == claims and refuted == claims


@pytest.mark.parametrize("model,name", list(LASSOS))
def test_checked_in_lassos_replay(model, name):
    machine = load_model(model_path(model)).machine()
    path = trace_path(model, name)
    trace = from_itf(machine, read_itf(path), str(path))
    assert (len(trace.steps) - 1, trace.loop) == LASSOS[model, name]
    assert_counterexample(machine, name, trace)


@pytest.mark.parametrize("mutant,model_name,name,length,loop", MUTANT_LASSOS,
                         ids=[k[0].__name__ for k in MUTANT_LASSOS])
def test_checked_in_mutant_lassos_replay(mutant, model_name, name, length, loop):
    machine = mutant_machine(mutant, model_name)
    path = mutant_trace_path(mutant, name)
    trace = from_itf(machine, read_itf(path), str(path))
    assert (len(trace.steps) - 1, trace.loop) == (length, loop)
    assert_counterexample(machine, name, trace)
    assert not replay(load_model(model_path(model_name)).machine(), trace).ok


def write_traces():
    """Re-create the lassos after a change of the spec's variables:
    `PYTHONPATH=.:tests python tests/test_rayjob_liveness.py`."""
    runs = [(load_model(model_path(m)).machine(), m, name, trace_path(m, name))
            for m, name in LASSOS]
    runs += [(mutant_machine(mutant, m), m, name, mutant_trace_path(mutant, name))
             for mutant, m, name, _, _ in MUTANT_LASSOS]
    for machine, model, name, path in runs:
        save_trace(machine, lasso_of(machine, name), model, path)


if __name__ == "__main__":
    write_traces()
