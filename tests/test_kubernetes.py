"""The Kubernetes environment library (checker/kubernetes/) on the tutorial's controller.

Each semantic of the library is checked both ways: a probe (a subclass recording what
the library's calls return) whose invariant holds on the library, and a broken library
where the same invariant is refuted with a counterexample. The ready-made properties
hold on the faithful controller and are refuted on each bug of examples/childcontroller_bugs.py.
"""
from __future__ import annotations

import re
import shlex

import pytest
from click.testing import CliRunner

from checker import Ghost, Int, Map, Option, action, fault, invariant, reachable, require
from checker.cli import main
from checker.model import load_model
from checker.explicit.explorer import ExplicitEngine
from conftest import ROOT, explore, verdicts
from examples.childcontroller import ChildController, Obj, Pc, Ref
from examples.childcontroller_bugs import CreateBeforeSave
from checker.kubernetes import CacheSt

ALL_FAULTS = {"crash": True, "write_lost": True, "write_fail": True, "user_delete": True,
              "stale": True}
Version = Int[0, 15]


def run(spec_cls, L=1, F=2, groups=ALL_FAULTS, **options):
    return explore(spec_cls, {"L": L, "F": F}, groups, **options)


def trace_length(result, name):
    return next(len(p.trace.steps) - 1 for p in result.properties if p.name == name)


# ------------------------------------------------------------ the API server
class ApiProbe(ChildController):
    already_exists: Ghost[bool] = False       # a create answered AlreadyExists
    conflict: Ghost[bool] = False             # an update of an existing object got 409
    applied_stale: Ghost[bool] = False        # an update based on an old version applied

    def _create(s, r, obj) -> bool:
        exists = s.objects[r] is not None
        ok = super()._create(r, obj)
        s.already_exists = s.already_exists or (exists and not ok)
        return ok

    def _update(s, r, obj) -> bool:
        stored = s.objects[r]
        ok = super()._update(r, obj)
        s.conflict = s.conflict or (stored is not None and not ok)
        s.applied_stale = s.applied_stale or (ok and s.m != stored)
        return ok

    @reachable
    def w_already_exists(s):
        """A retried create (after a lost response) meets its own object."""
        return s.already_exists

    @reachable
    def w_conflict(s):
        """A write by someone else, or a stale read, makes the operator's update a 409."""
        return s.conflict

    @invariant
    def updates_apply_to_the_version_read(s):
        """Optimistic concurrency: an applied update was made from the stored version."""
        return not s.applied_stale

    @invariant
    def a_deleting_object_keeps_its_finalizer(s):
        """Removing the last finalizer of a deleted object removes the object."""
        return all(o is None or not o.deleting or o.finalizer for o in s.objects.values())

    @reachable
    def w_deleting_with_finalizer(s):
        """A delete of an object with a finalizer only sets its deletionTimestamp."""
        return s.deleting(Ref.PARENT)

    @reachable
    def w_child_outlives_its_owner_for_a_while(s):
        """Background deletion: the garbage collector comes after the owner is gone."""
        return s.gone(Ref.PARENT) and not s.all_gone((Ref.CHILD_A, Ref.CHILD_B))


class NoConflictCheck(ApiProbe):
    """A broken API server: an update with a stale resourceVersion is applied."""
    def _update(s, r, obj) -> bool:
        s.fresh[r] = True
        return super()._update(r, obj)


class FinalizerRemovalKeepsObject(ApiProbe):
    """A broken API server: removing the last finalizer does not remove a deleted object."""
    def _update(s, r, obj) -> bool:
        if s.objects[r] is None or not s.fresh[r]:
            return False
        s._write(r, obj, own=True)
        return True


def test_api_server_semantics_hold_and_each_is_reachable():
    v = verdicts(run(ApiProbe))
    assert v == {name: "holds" for name in v}


@pytest.mark.parametrize("broken, refuted", [
    (NoConflictCheck, "updates_apply_to_the_version_read"),
    (FinalizerRemovalKeepsObject, "a_deleting_object_keeps_its_finalizer"),
])
def test_a_broken_api_server_is_refuted(broken, refuted):
    result = run(broken)
    assert verdicts(result)[refuted] == "violated"
    assert trace_length(result, refuted) > 0


# ------------------------------------------------------------ the informer cache
class CacheProbe(ChildController):
    """Numbers the parent's versions to check what each read returns."""
    version: Ghost[Version] = 0               # writes of the parent so far
    observed: Ghost[Version] = 0              # the newest version a read returned
    went_back: Ghost[bool] = False            # a read returned a version before `observed`
    too_far: Ghost[bool] = False              # a read returned a version more than L back
    read_behind: Ghost[bool] = False          # a read returned an older version

    def _write(s, r, obj, own=False):
        super()._write(r, obj, own)
        if r is Ref.PARENT:
            s.version = min(s.version + 1, 15)

    def _read(s, r):
        back = s.cache_lag[r] if s.cache_st[r] is CacheSt.BEHIND else 0
        if r is Ref.PARENT:
            read = s.version - back
            s.went_back = s.went_back or read < s.observed
            s.too_far = s.too_far or back > s.L
            s.read_behind = s.read_behind or back > 0
            s.observed = max(s.observed, read)
        return super()._read(r)

    @invariant
    def never_older_than_observed(s):
        """A read never goes back past a version the operator has read."""
        return not s.went_back

    @invariant
    def at_most_L_behind(s):
        """A read is at most L changes behind the API server."""
        return not s.too_far

    @reachable
    def w_read_behind(s):
        """With L > 0 a read may return an older version."""
        return s.read_behind


class ReadLeavesOldVersions(CacheProbe):
    """A broken cache: reading a new version does not retire the older ones, so a stale
    fault may still go back past what the operator has read."""
    def _read(s, r):
        kept = s.cache_st[r], s.cache_lag[r], s.cache_prev[r], s.cache_older[r]
        obj = super()._read(r)
        s.cache_st[r], s.cache_lag[r], s.cache_prev[r], s.cache_older[r] = kept
        return obj


@pytest.mark.parametrize("L", [1, 2])
def test_a_read_is_never_older_than_observed_and_at_most_L_behind(L):
    assert set(verdicts(run(CacheProbe, L=L)).values()) == {"holds"}


def test_with_L_0_every_read_is_current():
    v = verdicts(run(CacheProbe, L=0))
    assert v["w_read_behind"] == "violated" and v["at_most_L_behind"] == "holds"


def test_a_cache_going_back_past_an_observed_version_is_refuted():
    result = run(ReadLeavesOldVersions, L=1)
    assert verdicts(result)["never_older_than_observed"] == "violated"


class DefaultCacheWatched(ChildController):
    @invariant
    def default_cache_unmoved(s):
        """The library's own cache variables stay as they start."""
        return (all(st is CacheSt.SYNC for st in s.cache_st.values())
                and all(v is None for v in (*s.cache_prev.values(), *s.cache_older.values())))


class CacheElsewhere(DefaultCacheWatched):
    """The cache kept in variables of the controller's own, as the RayJob spec keeps its
    per kind, through the four hooks."""
    own_st: Map[Ref, CacheSt] = Map.fill(CacheSt.SYNC)
    own_lag: Map[Ref, Int[0, 2]] = Map.fill(0)
    own_prev: Map[Ref, Option[Obj]] = Map.fill(None)
    own_older: Map[Ref, Option[Obj]] = Map.fill(None)

    def _cache_st(s, r):
        return s.own_st[r]

    def _cache_lag(s, r):
        return s.own_lag[r]

    def _cache_view(s, r, back):
        return s.own_older[r] if back == 2 else s.own_prev[r]

    def _set_cache(s, r, st, lag, prev=None, older=None):
        s.own_st[r], s.own_lag[r], s.own_prev[r], s.own_older[r] = st, lag, prev, older


@pytest.mark.parametrize("L", [1, 2])
def test_the_library_keeps_the_cache_only_where_its_hooks_say(L):
    """Kept elsewhere, the cache moves as before: the same states and verdicts, and the
    library's own variables, which it moves by default, are never touched."""
    default, elsewhere = run(DefaultCacheWatched, L=L), run(CacheElsewhere, L=L)
    assert verdicts(default)["default_cache_unmoved"] == "violated"
    assert verdicts(elsewhere) == {**verdicts(default), "default_cache_unmoved": "holds"}
    assert elsewhere.stats.distinct_states == default.stats.distinct_states


# ------------------------------------------------------------ the operator process
class CrashProbe(ChildController):
    crashed_mid_reconcile: Ghost[bool] = False     # a crash struck with memory held
    kept_memory: Ghost[bool] = False               # something survived a crash

    @fault(group="crash")
    def crash(s):
        s.crashed_mid_reconcile = s.crashed_mid_reconcile or s.m is not None
        super().crash()
        s.kept_memory = s.kept_memory or not (
            s.pc is Pc.IDLE and s.m is None and s.m_child is None and s.queued
            and not any(s.fresh.values())
            and all(st is CacheSt.SYNC for st in s.cache_st.values()))

    @reachable
    def w_crash_mid_reconcile(s):
        """A crash strikes while a reconcile holds the parent in memory."""
        return s.crashed_mid_reconcile

    @invariant
    def a_crash_clears_memory(s):
        """After a crash: no memory, a current cache, the key queued."""
        return not s.kept_memory


class CrashKeepsDrawnName(CrashProbe):
    """A broken controller whose memory survives a crash (`_forget_memory` keeps the
    drawn name)."""
    def _forget_memory(s):
        s.m = None


def test_a_crash_clears_memory_refills_the_cache_and_queues_the_key():
    assert set(verdicts(run(CrashProbe)).values()) == {"holds"}


def test_memory_surviving_a_crash_is_refuted():
    assert verdicts(run(CrashKeepsDrawnName))["a_crash_clears_memory"] == "violated"


def test_without_faults_one_reconcile_per_event_reaches_a_ready_child_and_stops():
    """No fault: one line of 9 states (four reconciles: finalizer, name, child and ready,
    nothing to do), after which the work queue is empty."""
    result = run(ChildController, F=0, groups={})
    assert set(verdicts(result).values()) == {"holds"}
    assert result.stats.distinct_states == result.stats.transitions + 1 == 9


# ------------------------------------------------------------ ready-made properties
def check_model(name):
    model = load_model(ROOT / "examples" / "models" / f"{name}.toml")
    return ExplicitEngine(model.machine(), model.options).check()


@pytest.mark.parametrize("model, refuted, steps", [
    ("childcontroller", {}, None),
    ("childcontroller_create_before_save", {"one_child"}, 6),
    ("childcontroller_patches_name", {"child_name_kept", "one_child"}, 7),
    ("childcontroller_no_owner_reference", {"no_orphans"}, 11),
    ("childcontroller_waits_for_children", {"no_stuck_finalizer"}, 9),
])
def test_ready_made_properties_hold_on_the_controller_and_catch_each_bug(model, refuted, steps):
    result = check_model(model)
    assert {n for n, v in verdicts(result).items() if v == "violated"} == set(refuted)
    assert {n for n, v in verdicts(result).items() if v != "violated"} == {
        "one_child", "each_name_created_once", "child_name_kept", "pool_large_enough",
        "no_orphans", "no_stuck_finalizer"} - set(refuted)
    if steps:
        first = min(refuted, key=lambda n: trace_length(result, n))
        assert trace_length(result, first) == steps


@pytest.mark.parametrize("model, refuted, steps", [
    ("childcontroller_restored_without_status", {"one_child"}, 12),   # another writer
    ("childcontroller_adopts_its_child", set(), None),                # ... and the fix
    ("childcontroller_patches_name_read_live", set(), None),  # childcontroller_patches_name, read live
    ("childcontroller_becomes_ready", set(), None),           # a failed write returned: retried
    ("childcontroller_best_effort_ready", {"becomes_ready"}, 9),      # ... swallowed: stuck
])
def test_each_seam_of_the_tutorial_holds_or_refutes_what_it_says(model, refuted, steps):
    result = check_model(model)
    assert {n for n, v in verdicts(result).items() if v == "violated"} == refuted
    for name in refuted:
        assert trace_length(result, name) == steps


# ------------------------------------------------------------ the tutorial
TUTORIAL = ROOT / "docs" / "tutorial-controller.md"
CLAIMS = {
    "check-model examples/models/childcontroller_create_before_save.toml -v": [
        "│ one_child              │ invariant      │ violated │ violated │ 6 steps  "
        "traces/childcontroller_create_before_save/one_child.itf.json │",
        "OK: 6 properties as expected (34 states, "],
    "check-model show traces/childcontroller_create_before_save/one_child.itf.json": [
        "│ 3 │ op_start         │ pc: idle → create child", "│ 4 │ fault write_lost │",
        "m_child: Some(child-a) → None", "m_child: None → Some(child-b)",
        "│ 6 │ op_call          │ objects[child-b]: None → Some({"],
    "check-model examples/models/childcontroller.toml": [
        "OK: 6 properties as expected (237 states, "],
    "check-model examples/models/childcontroller_patches_name.toml": [
        "OK: 6 properties as expected (90 states, "],
    "check-model examples/models/childcontroller_restored_without_status.toml -v": [
        "│ one_child              │ invariant      │ violated │ violated │ 12 steps  "
        "traces/childcontroller_restored_without_status/one_child.itf.json │"],
    "check-model examples/models/childcontroller_patches_name_read_live.toml": [
        "OK: 6 properties as expected (74 states, "],
    "check-model examples/models/childcontroller_best_effort_ready.toml -v": [
        "│ becomes_ready          │ leads_to       │ violated │ violated │ 9 steps  "
        "traces/childcontroller_best_effort_ready/becomes_ready.itf.json │"],
}


def tutorial_commands() -> list[str]:
    text = TUTORIAL.read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_the_tutorial_shows_exactly_the_commands_this_test_runs():
    assert tutorial_commands() == list(CLAIMS)


def test_every_command_of_the_tutorial_prints_what_the_tutorial_claims(tmp_path, monkeypatch):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    text = TUTORIAL.read_text()
    for command, claims in CLAIMS.items():
        result = CliRunner().invoke(main, shlex.split(command)[1:], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        for claim in claims:
            assert claim in result.output, (command, claim)
            assert claim in text, claim


def test_a_crash_after_the_create_gives_the_first_draft_a_second_child_too():
    """The tutorial's remark on the first draft: a crash between the create and the status
    write does what the lost response does, one step later."""
    result = run(CreateBeforeSave, L=0, F=1, groups={"crash": True, "cache": False})
    assert verdicts(result)["one_child"] == "violated"
    steps = next(p.trace.steps for p in result.properties if p.name == "one_child")
    assert [s.action for s in steps[1:]] == ["op_start", "op_call", "op_start", "op_call",
                                            "crash", "op_start", "op_call"]


# ------------------------------------------------------------ generations
class Recreates(ChildController):
    """A ready child the user deletes is replaced in a new attempt: the reconcile that
    finds it gone clears the name (the new attempt begins when that write is applied),
    the next one draws a name and creates it. Names are reused (only equality is
    observable), so over the whole run a name is created twice."""
    USER_DELETES = (Ref.CHILD_A, Ref.CHILD_B)

    @fault(group="user_delete")
    def user_delete(s, r: Ref):
        """The user deletes the child the parent reports ready."""
        parent = s.objects[Ref.PARENT]
        require(parent is not None and parent.ready and parent.child is r)
        super().user_delete(r)

    def _reconcile(s):
        m = s._read(Ref.PARENT)
        if m is not None and not m.deleting and m.ready and s._read(m.child) is None:
            s.m, s.m_child, s.pc = m, None, Pc.SAVE_NAME
        else:
            super()._reconcile()

    def _save_name(s) -> bool:
        ok = s._update(Ref.PARENT, s.m._replace(child=s.m_child, ready=False))
        if ok and s.m_child is None:
            s._new_generation()
        return ok


class RecreatesCountingOverTheRun(Recreates):
    def _new_generation(s):
        """No generations: creates counted over the whole run."""


class RecreatesCreateBeforeSave(Recreates, CreateBeforeSave):
    """The first draft's bug, in a controller with generations."""


GENERATION_FAULTS = {"crash": True, "write_lost": True, "user_delete": True, "cache": False}


@pytest.mark.parametrize("spec_cls, F, refuted", [
    (Recreates, 2, set()),
    (RecreatesCountingOverTheRun, 2, {"one_child", "each_name_created_once"}),
    (RecreatesCreateBeforeSave, 1, {"one_child"}),
])
def test_at_most_one_create_per_name_is_checked_per_generation(spec_cls, F, refuted):
    """Per generation, a replaced child is no second create, and the first draft's
    second child within one attempt still is."""
    result = run(spec_cls, L=0, F=F, groups=GENERATION_FAULTS)
    assert {n for n, v in verdicts(result).items() if v == "violated"} == refuted


# ------------------------------------------------------------ views
class ChildrenReportReady(ChildController):
    """Each child's own controller marks it ready in its status, a field the parent's
    controller never reads."""
    @action(group="child_status")
    def child_becomes_ready(s, r: Ref):
        child = s.objects[r]
        require(r in (Ref.CHILD_A, Ref.CHILD_B) and child is not None and not child.ready)
        s._write(r, child._replace(ready=True))


class ViewIgnoresChildStatus(ChildrenReportReady):
    def _view(s, r, obj):
        """The parent's controller reads a child's metadata, not its status."""
        return obj if obj is None or r is Ref.PARENT else obj._replace(ready=False)


@pytest.mark.parametrize("L", [1, 2])
def test_a_write_outside_the_view_is_no_new_cache_version(L):
    """Fewer states, the same verdicts: a child's status write is no new version of its
    cache, and the versions kept hold only the view."""
    every, viewed = run(ChildrenReportReady, L=L), run(ViewIgnoresChildStatus, L=L)
    assert verdicts(viewed) == verdicts(every)
    assert viewed.stats.distinct_states < every.stats.distinct_states


def test_a_view_changes_nothing_where_only_viewed_fields_are_written():
    """Without the child status writes, the view gives the tutorial's model its counts."""
    quiet = {**ALL_FAULTS, "child_status": False}
    assert run(ViewIgnoresChildStatus, groups=quiet).stats.distinct_states == \
        run(ChildController).stats.distinct_states == 237
