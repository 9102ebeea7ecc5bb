"""The RayJob spec: every model's verdicts, each property both ways, mutants, traces."""
from __future__ import annotations

import functools
import json
import random
import re
from pathlib import Path

import pytest

from checker import Ghost, invariant, reachable
from checker.errors import SpecError
from checker.lang.domains import MapDomain
from checker.explicit.explorer import ExplicitEngine
from checker.options import CheckOptions
from checker.output.itf import from_itf, read_itf
from checker.explicit.machine import Machine
from checker.model import import_spec, load_model
from checker.mutants import load_catalog, run_catalog
from checker.results import Verdict
from checker.explicit.trace import replay
from spec.rayjob import mutants
from spec.rayjob.proofs import (AtMostOnceLemmas, DriverOnceLemmas, InteractiveOnceLemmas,
                                 Lemmas, ModeLemmas, NoFaultLemmas, NoFaultModeLemmas,
                                 SidecarOnceLemmas, StaleAtMostOnceLemmas, StaleDriverOnceLemmas,
                                 StaleLemmas)
from spec.rayjob.spec import RayJob
from spec.rayjob.types import (ClusterId, Head, JStat, Legacy, Mode, Phase, Rank, Reason, Rec,
                               Rules)

ROOT = Path(__file__).resolve().parent.parent
MODEL_NAMES = ["rayjob"] + sorted(p.stem for p in (ROOT / "models/rayjob").glob("*.toml"))

# The catalog of refutations and mutant kills (models/mutants.toml): its RayJob entries.
CATALOG = load_catalog(ROOT / "models/mutants.toml")
ENTRIES = [e for e in CATALOG.entries if e.model.is_relative_to(ROOT / "models/rayjob")
           or e.model == ROOT / "models/rayjob.toml"]
TRACED = [e for e in ENTRIES if e.trace]      # their counterexample checked in


def model_key(entry) -> str:
    """The entry's model as MODEL_NAMES and examples/traces/ name it ("rayjob", "happy_F0")."""
    return entry.model_label.removeprefix("rayjob/")


def entry_id(entry) -> str:
    return " ".join(filter(None, (entry.name, entry.label, entry.property)))


def model_path(name: str) -> Path:
    return ROOT / "models" / ("rayjob.toml" if name == "rayjob" else f"rayjob/{name}.toml")


def with_lemmas(spec_cls):
    """The spec with every lemma of spec/rayjob/proofs (proof aids, apart from the spec):
    checked with the claims, they must hold on every bounded model."""
    return type(spec_cls.__name__, (spec_cls, SidecarOnceLemmas, InteractiveOnceLemmas,
                                    StaleDriverOnceLemmas, DriverOnceLemmas,
                                    StaleAtMostOnceLemmas, AtMostOnceLemmas, StaleLemmas, Lemmas,
                                    ModeLemmas, NoFaultLemmas, NoFaultModeLemmas), {})


@functools.cache
def check(name: str):
    """The model and the result of checking it, with the lemmas (shared by the tests of one
    session; the lemmas change no claim's verdict)."""
    model = load_model(model_path(name))
    model.spec_cls = with_lemmas(model.spec_cls)
    return model, ExplicitEngine(model.machine(), model.options).check()


def verdicts(result) -> dict:
    return {p.name: p.verdict for p in result.properties}


def assert_as_expected(model, result):
    """Every claim's verdict is the one its [expect] gives, and every lemma holds."""
    found = verdicts(result)
    lemmas = {n for n in found if n.startswith("lemma_")}          # spec/rayjob/proofs/
    assert set(model.expect) == set(found) - lemmas, "every property has an [expect] verdict"
    assert found == {**model.expect, **{n: Verdict.HOLDS for n in lemmas}}


def prop(result, name):
    return next(p for p in result.properties if p.name == name)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_verdict_of_every_model_is_as_expected(name):
    model, result = check(name)
    assert not result.stopped and result.stats.distinct_states < 50_000
    assert_as_expected(model, result)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "models/rayjob/slow").glob("*.toml")))
def test_large_models(name):
    model, result = check(f"slow/{name}")
    assert not result.stopped
    assert_as_expected(model, result)



class Unretired(RayJob):
    """The spec before lingering heads were retired from the name pool."""
    def _retire(s, c):
        return False


@pytest.mark.slow
def test_retiring_unreachable_heads_keeps_the_name_pool_from_overflowing():
    """Five failing attempts with no fault: without retirement four lingering heads take
    every cluster name and the fifth reuses one still in use (s_model_bounds)."""
    model = load_model(model_path("happy_F0"))
    constants = {**model.constants, "backoff_limit": 4, "program": "FAIL", "sub_backoff_limit": 0}
    for cls, bounded in ((RayJob, Verdict.HOLDS), (Unretired, Verdict.VIOLATED)):
        result = ExplicitEngine(Machine(cls, constants, model.groups), model.options).check()
        assert not result.stopped
        assert prop(result, "s_model_bounds").verdict is bounded
        assert prop(result, "p7_succeeded_not_failed").verdict is Verdict.HOLDS


class SubmitterTimeoutOnlyRunning(RayJob):
    """The spec before issue 19: the 30 s submitter check needed the phase Running, so it
    never overwrote a Failed / SubmissionFailed just set by the submitter check."""
    def _submitter_timed_out(s, finished):
        return super()._submitter_timed_out(finished) and s.m_h.phase is Phase.RUNNING


def test_the_submitter_timeout_overwrites_a_failure_and_the_deletion_skips_stopjob():
    """C:1263-1286 has no phase guard: after a failed submitter Job it writes jobStatus
    FAILED, so the deletion skips StopJob (C:116) while the Ray job runs. With the old
    guard, claim 10 held in the same model."""
    model, faithful = check("subfin_delete_F3")
    p = prop(faithful, "p10_finalizer_after_stop")
    assert p.verdict is Verdict.VIOLATED
    machine = model.machine()
    states = [machine.plain(step.state) for step in p.trace.steps]
    assert states[-1]["finalizer_removed"] and not states[-1]["stop_attempted"]
    assert any(st["rj"] is not None and st["rj"].job_status is JStat.FAILED
               and st["rj"].reason is Reason.GRACE for st in states)
    options = CheckOptions(properties=["p10_finalizer_after_stop"])
    old = ExplicitEngine(Machine(SubmitterTimeoutOnlyRunning, model.constants, model.groups),
                         options).check()
    assert not old.stopped and prop(old, "p10_finalizer_after_stop").verdict is Verdict.HOLDS


@pytest.mark.parametrize("late,verdict", [(False, Verdict.HOLDS), (True, Verdict.VIOLATED)])
def test_a_late_reconcile_alone_fails_a_succeeded_job(late, verdict):
    """Reconcile latency is no fault: with no fault budget, a reconcile that comes 30 s
    after the submitter finished records a succeeded job as failed (claim 7) and, with
    backoffLimit 1, retries it (claim 11, the program succeeding)."""
    model = load_model(model_path("latency_F0"))
    assert model.constants["F"] == 0 and model.constants["late_reconcile"]
    constants = {**model.constants, "late_reconcile": late}
    result = ExplicitEngine(Machine(RayJob, constants, model.groups), model.options).check()
    assert not result.stopped
    assert prop(result, "p7_succeeded_not_failed").verdict is verdict
    assert prop(result, "p11_effect_at_most_once").verdict is verdict


class HeadOutlivesCR(RayJob):
    @invariant
    def no_head_without_cr(s):
        """No head pod of a RayCluster whose CR is gone."""
        return not any(not s.cl_cr[c] and s.head[c] is not Head.NONE for c in ClusterId)


@pytest.mark.parametrize("name,verdict", [("head_ft_F1", Verdict.HOLDS),
                                          ("head_noft_F1", Verdict.VIOLATED)])
def test_with_gcs_ft_a_deleted_raycluster_takes_its_head_first(name, verdict):
    """With GCS FT the Redis clean-up finalizer deletes the head and waits for it before
    the CR goes, so no head lingers and claim 5b holds; without, pods outlive the CR."""
    model, result = check(name)
    assert prop(result, "p5b_no_pod_overlap").verdict is verdict
    options = CheckOptions(properties=["no_head_without_cr"])
    lingering = ExplicitEngine(Machine(HeadOutlivesCR, model.constants, model.groups),
                               options).check()
    assert prop(lingering, "no_head_without_cr").verdict is verdict


class CallsLingeringHead(RayJob):
    """Records every submit or GetJobInfo that reaches a head whose RayCluster is gone."""
    lingering_call: Ghost[bool] = False

    def _ray_submit(s, k):
        s.lingering_call = s.lingering_call or not s.cl_cr[k.c]
        return super()._ray_submit(k)

    def _ray_get(s, k):
        s.lingering_call = s.lingering_call or (k is not None and not s.cl_cr[k.c])
        return super()._ray_get(k)

    @invariant
    def no_call_reaches_a_lingering_head(s):
        return not s.lingering_call


class ReachesLingeringHead(CallsLingeringHead):
    """The spec before issue 19: a head stayed reachable after its RayCluster was gone."""
    def _reachable(s, c):
        return s.head[c] is Head.SERVING


@pytest.mark.parametrize("cls,verdict", [(CallsLingeringHead, Verdict.HOLDS),
                                         (ReachesLingeringHead, Verdict.VIOLATED)])
def test_the_dashboard_url_dies_with_the_raycluster(cls, verdict):
    """The dashboard URL names the RayCluster's head Service, garbage-collected with it:
    no call reaches a head that outlives its CR (hand deletion of the cluster)."""
    model = load_model(model_path("hand_F1"))
    options = CheckOptions(properties=["no_call_reaches_a_lingering_head"])
    result = ExplicitEngine(Machine(cls, model.constants, model.groups), options).check()
    assert not result.stopped
    assert prop(result, "no_call_reaches_a_lingering_head").verdict is verdict


@pytest.mark.parametrize("on_worker,verdict", [(False, Verdict.HOLDS),
                                               (True, Verdict.VIOLATED)])
def test_a_driver_on_a_worker_outlives_a_head_restart_without_gcs_ft(on_worker, verdict):
    """Deviation 6: with entrypoint resources the driver runs on a worker; a head restart
    without GCS fault tolerance leaves it running, recorded nowhere, while the retried
    submitter starts the same id again: two drivers of one attempt at once."""
    model = load_model(model_path("head_noft_worker_F1"))
    assert model.constants["driver_on_worker"] and not model.constants.get("gcs_ft")
    constants = {**model.constants, "driver_on_worker": on_worker}
    options = CheckOptions(properties=["p3b_one_driver_at_a_time"])
    result = ExplicitEngine(Machine(RayJob, constants, model.groups), options).check()
    assert not result.stopped
    assert prop(result, "p3b_one_driver_at_a_time").verdict is verdict


class UnsupervisedRecords(RayJob):
    @reachable
    def w_record_without_supervisor(s):
        return any(r in (Rec.ORPHAN, Rec.STRANDED, Rec.TIMING_OUT) for r in s.kv.values())


@pytest.mark.parametrize("on_worker,found", [(False, Verdict.HOLDS), (True, Verdict.VIOLATED)])
def test_with_gcs_ft_a_driver_on_a_worker_keeps_its_record_supervised(on_worker, found):
    """With GCS fault tolerance the worker's supervisor lives on: no record is ever left
    without one (on the head, the same model reaches orphaned and stranded records)."""
    model = load_model(model_path("head_ft_F1"))
    machine = Machine(UnsupervisedRecords, {**model.constants, "driver_on_worker": on_worker},
                      model.groups)
    options = CheckOptions(properties=["w_record_without_supervisor"])
    result = ExplicitEngine(machine, options).check()
    assert prop(result, "w_record_without_supervisor").verdict is found


class EditedIntoValidationFailed(RayJob):
    @reachable
    def w_validation_failed_after_every_retry(s):
        return (s._live(Phase.VALIDATION_FAILED) and s.attempted
                and s.rj_b.failed == s.backoff_limit + 1)

    @reachable
    def w_validation_failed_between_attempts(s):
        return s._live(Phase.VALIDATION_FAILED) and s.retries > 0 and s.rj_b.cluster is None


def test_the_lemmas_hold_where_a_spec_edit_turns_an_ended_attempt_validation_failed():
    """Validation runs in every phase (C:145-162) and keeps the status: an edit turns a
    Failed RayJob that used every retry ValidationFailed (lemma_failed_counts_bounded
    said only Failed may: it fails here without the change proofs/slow/faults_edit.toml
    made), or the New after a retry, its identity cleared (claim 4 fails; its lemma
    allows it). No gate model with spec edits lets the program fail: checked here."""
    model = load_model(model_path("validation_F2"))
    constants = {**model.constants, "program": "FAIL", "backoff_limit": 1, "F": 1}
    machine = Machine(with_lemmas(EditedIntoValidationFailed), constants, model.groups)
    names = [p.name for p in machine.properties
             if p.name.startswith(("lemma_", "w_validation_failed"))]
    result = ExplicitEngine(machine, CheckOptions(properties=names)).check()
    assert {prop(result, n).verdict for n in names} == {Verdict.HOLDS}


@pytest.mark.parametrize("rejected,fix,message", [
    ({"mode": Mode.INTERACTIVE}, {"backoff_limit": 0}, "InteractiveMode rejects a positive"),
    ({"mode": Mode.SIDECAR, "sub_backoff_limit": 1}, {"sub_backoff_limit": 2},
     "SidecarMode rejects submitterConfig"),
    ({"deletion_rules": Rules.STAGED}, {"shutdown_after_finishes": False}, "mutually exclusive"),
    ({"deletion_rules": Rules.STAGED, "shutdown_after_finishes": False,
      "legacy_policy": Legacy.DELETE_CLUSTER}, {"legacy_policy": Legacy.OFF},
     "legacy onSuccess/onFailure policies are mutually exclusive"),
    ({"ttl": Rank.XLONG, "shutdown_after_finishes": False}, {"shutdown_after_finishes": True},
     "needs shutdownAfterJobFinishes")])
def test_constants_kuberay_validation_rejects_are_refused(rejected, fix, message):
    """A model may not configure a RayJob that validateRayJob rejects (the spec leaves
    ValidationFailed to a user's edit): one error at the spec line that refuses it; the
    valid neighbour is accepted."""
    options = CheckOptions(max_states=10)
    with pytest.raises(SpecError, match=message) as refused:
        ExplicitEngine(Machine(RayJob, rejected), options).check()
    assert str(refused.value).startswith(f"{ROOT / 'spec/rayjob/state.py'}:")
    assert ExplicitEngine(Machine(RayJob, {**rejected, **fix}), options).check().stopped


def test_the_default_model_is_small_and_fast():
    _, result = check("rayjob")
    assert result.stats.distinct_states < 10_000 and result.stats.seconds < 10


def test_each_model_description_gives_the_gate_baseline_state_count():
    """Readers quote the state count a description gives (README, docs): it must be the
    count the gate baseline records, slow models included, so neither drifts unnoticed."""
    baseline = json.loads((ROOT / "gate-baseline.json").read_text())
    paths = [model_path("rayjob"), *(ROOT / "models/rayjob").rglob("*.toml")]
    for path in (p for p in paths if "proofs" not in p.parts):
        key = str(path.relative_to(ROOT))
        stated = re.search(r"\(([\d,]+) states\)", load_model(path).description)
        assert stated, f"{key}: the description gives no state count"
        assert int(stated[1].replace(",", "")) == baseline[key]["distinct_states"], key


def test_every_action_fires_in_some_model():
    fired = set()
    for name in MODEL_NAMES:
        fired |= {a for a, n in check(name)[1].coverage.by_action.items() if n}
    every = {b.name for b in Machine(RayJob).all_bindings}
    assert every - fired == set()


def runs_of(entries):
    """The entries grouped as `check-model mutants` runs them (one spec, model, setting)."""
    runs = {}
    for e in entries:
        runs.setdefault((e.spec, e.model, e.setting), []).append(e)
    return [pytest.param(run, id=entry_id(run[0]), marks=[pytest.mark.slow] * run[0].slow)
            for run in runs.values()]


@pytest.mark.parametrize("run", runs_of(ENTRIES))
def test_each_catalog_entry_is_refuted_as_the_catalog_says(run):
    """A refutation's property is violated by the faithful spec, a mutant's by the mutant
    (where the faithful spec keeps it: the model's [expect], or a proof of the setting),
    each with a shortest counterexample of the pinned length."""
    missed = [(o.entry.property, o.missed) for o in run_catalog(run) if o.missed]
    assert missed == []


def test_every_property_holds_somewhere_and_is_refuted_somewhere():
    holds, refuted = set(), {e.property for e in ENTRIES if not e.setting}
    for name in MODEL_NAMES:
        for p in check(name)[1].properties:
            if p.kind == "invariant" and p.verdict.value == "holds":
                holds.add(p.name)
    invariants = {p.name for p in Machine(with_lemmas(RayJob)).properties
                  if p.kind == "invariant"}
    assert holds == invariants
    lemmas = {n for n in invariants if n.startswith("lemma_")}    # proof aids, not claims
    assert invariants - refuted - lemmas == set()


def test_every_witness_is_found_somewhere():
    found = set()
    for name in MODEL_NAMES:
        found |= {p.name for p in check(name)[1].properties
                  if p.kind == "reachable" and p.verdict.value == "holds"}
    assert found == {p.name for p in Machine(RayJob).properties if p.kind == "reachable"}


def random_state(machine: Machine, rng: random.Random) -> tuple:
    """Any state the variables' domains allow, reachable or not (a code per variable)."""
    def code(domain):
        if isinstance(domain, MapDomain):
            return tuple(code(domain.value) for _ in domain.keys)
        return rng.randrange(domain.size)
    return tuple(code(v.domain) for v in machine.variables)


@pytest.mark.parametrize("name", ["happy_F0", "rayjob"])      # with and without _calm
def test_every_lemma_is_defined_on_every_state(name):
    """Lemmas are checked on whatever a mutant reaches: none may raise (say, index a map
    with a cluster name that is None), each says true or false."""
    model = load_model(model_path(name))
    machine = Machine(with_lemmas(model.spec_cls), model.constants, model.groups)
    lemmas = [p for p in machine.properties if p.name.startswith("lemma_")]
    rng = random.Random(18)
    for _ in range(1500):
        machine.load(machine.scratch, random_state(machine, rng))
        for lemma in lemmas:
            machine.holds(lemma.fn, lemma.name)


def test_the_spec_has_the_claims_and_the_proof_specs_the_lemmas():
    """A reader (and `check-model models/rayjob.toml`) sees the claims, not proof aids."""
    assert not [p.name for p in Machine(RayJob).properties if p.name.startswith("lemma_")]
    common = Lemmas.__dict__ | ModeLemmas.__dict__
    no_faults = common | NoFaultLemmas.__dict__ | NoFaultModeLemmas.__dict__
    sidecar_once = (common | AtMostOnceLemmas.__dict__ | DriverOnceLemmas.__dict__
                    | SidecarOnceLemmas.__dict__)
    interactive_once = (common | AtMostOnceLemmas.__dict__ | DriverOnceLemmas.__dict__
                        | InteractiveOnceLemmas.__dict__)
    driver_once_stale = (common | AtMostOnceLemmas.__dict__ | StaleLemmas.__dict__
                         | StaleAtMostOnceLemmas.__dict__ | DriverOnceLemmas.__dict__
                         | StaleDriverOnceLemmas.__dict__)
    for name, lemmas in (("no_faults", no_faults), ("slow/no_faults_http", no_faults),
                         ("slow/no_faults_sidecar", no_faults),
                         ("slow/no_faults_interactive", no_faults),
                         ("slow/faults", common), ("slow/faults_edit", common),
                         ("slow/faults_stale", common | StaleLemmas.__dict__),
                         ("slow/one_name_stale", common | StaleLemmas.__dict__),
                         ("slow/at_most_once_stale", common | AtMostOnceLemmas.__dict__
                          | StaleLemmas.__dict__ | StaleAtMostOnceLemmas.__dict__),
                         ("slow/at_most_once", common | AtMostOnceLemmas.__dict__),
                         ("slow/driver_once", common | AtMostOnceLemmas.__dict__
                          | DriverOnceLemmas.__dict__),
                         ("slow/driver_once_sidecar", sidecar_once),
                         ("slow/driver_once_sidecar_restart", sidecar_once),
                         ("slow/driver_once_sidecar_ft", sidecar_once),
                         ("slow/submit_once_sidecar", sidecar_once),
                         ("slow/driver_once_stale", driver_once_stale),
                         ("slow/driver_once_sidecar_stale",
                          driver_once_stale | SidecarOnceLemmas.__dict__),
                         ("slow/driver_once_interactive", interactive_once),
                         ("slow/driver_once_interactive_stale",
                          driver_once_stale | InteractiveOnceLemmas.__dict__)):
        machine = load_model(ROOT / f"models/rayjob/proofs/{name}.toml").machine()
        assert {p.name for p in machine.properties if p.name.startswith("lemma_")} == \
            {n for n in lemmas if n.startswith("lemma_")}


def test_a_mutant_reaching_a_state_the_lemmas_exclude_violates_them():
    """ClusterNameInInitializing creates a cluster before its name is persisted (no
    att_cluster yet): lemma_created_name_is_the_attempts said KeyError: None."""
    machine = mutant_machine(with_lemmas(mutants.ClusterNameInInitializing), "happy_F0")
    result = ExplicitEngine(machine, CheckOptions(max_depth=8)).check()
    assert prop(result, "lemma_created_name_is_the_attempts").verdict is Verdict.VIOLATED


def test_httpmode_submits_at_most_once_without_faults_but_not_without_a_submission_id():
    """proofs/no_faults_http proves p3 and p12 in HTTPMode with no fault; without
    `--submission-id` GetJobInfo never finds the record by status.jobId, so the operator
    submits again (M6)."""
    model, faithful = check("http_happy_F0")
    assert {prop(faithful, n).verdict for n in ("p3_driver_once_per_attempt",
                                                 "p12_single_submit_call")} == {Verdict.HOLDS}
    machine = mutant_machine(mutants.NoSubmissionId, "http_happy_F0")
    result = ExplicitEngine(machine, model.options).check()
    assert len(prop(result, "p12_single_submit_call").trace.steps) - 1 == 15
    assert prop(result, "p3_driver_once_per_attempt").verdict is Verdict.VIOLATED


def test_every_mutant_is_tested():
    tested = {e.spec for e in ENTRIES if e.is_mutant and not e.setting}
    assert {f"spec.rayjob.mutants:{m.__name__}" for m in mutants.ALL} == \
        tested | {"spec.rayjob.mutants:SuspendedRequeues"}


def test_suspended_requeueing_is_an_equivalent_mutant():
    """kuberay #4443 only saved reconciles: every verdict is the same with the old code."""
    model, faithful = check("suspend_F2")
    old = ExplicitEngine(Machine(with_lemmas(mutants.SuspendedRequeues), model.constants,
                                 model.groups), model.options).check()
    assert verdicts(old) == verdicts(faithful)
    assert old.stats.distinct_states == faithful.stats.distinct_states


def entry_machine(entry) -> Machine:
    model = load_model(entry.model)
    if not entry.is_mutant:
        return model.machine()
    return Machine(import_spec(entry.spec, entry.model, entry.where), model.constants,
                   model.groups)


@pytest.mark.parametrize("entry", TRACED, ids=entry_id)
def test_checked_in_traces_replay(entry):
    """Each counterexample replays to a violation in its spec; a mutant's, not in the
    faithful spec."""
    machine, path = entry_machine(entry), entry.trace
    trace = from_itf(machine, read_itf(path), str(path))
    assert len(trace.steps) - 1 == entry.steps
    report = replay(machine, trace)
    assert report.ok, report.message
    assert not machine.check(prop_fn(machine, entry.property), trace.steps[-1].state,
                             entry.property)
    if entry.is_mutant:
        assert not replay(load_model(entry.model).machine(), trace).ok


def prop_fn(machine, name):
    return next(p.fn for p in machine.properties if p.name == name)


def mutant_machine(mutant, model_name):
    model = load_model(model_path(model_name))
    return Machine(mutant, model.constants, model.groups)


def mutant_trace_path(mutant, name):
    """Where a mutant's counterexample of property `name` is checked in."""
    return ROOT / "examples/traces/mutants" / mutant.__name__ / f"{name}.itf.json"


def write_traces():
    """Re-create examples/traces after a change of the spec's variables:
    `PYTHONPATH=. python tests/test_rayjob.py` (writes compact ITF JSON)."""
    for entry in TRACED:
        machine = entry_machine(entry)
        options = CheckOptions(properties=[entry.property], max_depth=entry.steps)
        (p,) = ExplicitEngine(machine, options).check().properties
        assert len(p.trace.steps) - 1 == entry.steps, (entry_id(entry), len(p.trace.steps) - 1)
        save_trace(machine, p, model_key(entry), entry.trace)


def save_trace(machine, p, model, path):
    """Write the counterexample of property result `p` (found in `model`) as compact ITF."""
    from checker.output.itf import to_itf
    path.parent.mkdir(parents=True, exist_ok=True)
    data = to_itf(machine, p.trace, property=p.name, kind=p.kind, verdict="violated",
                  source=str(model_path(model).relative_to(ROOT)))
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    write_traces()
