"""Lemmas of claim 3 with faults: no attempt's driver starts twice, for every backoffLimit
and fault budget (models/rayjob/proofs/slow/driver_once*.toml).

Claim 3 counts starts per cluster name (`cl_driver_starts`), and a record is created only
by a put-if-absent submit (`_ray_submit`) to a head reached through its RayCluster. They
hold with one operator process, no hand deletion of the RayCluster or the Job, and job
records that survive a head restart (GCS fault tolerance, or no head restart); with an
exact cache too, only the attempt's RayCluster exists (with a lagging one stale.py's
StaleDriverOnceLemmas says the same of every name), everything that submits to it
carries the attempt's id, and once a driver started there its record stays until the
RayCluster goes, so every later submit is rejected. A head restart without GCS fault
tolerance (head_noft_F1, http_head_F1) and a hand deletion (hand_F1) refute the claim; a
paused ex-leader does too (failover_F1). Elsewhere the lemmas are trivially true; every
bounded model checks them.
"""
from checker import invariant

from .groups import ProofGroups
from ..types import ClusterId, Head, Mode, Pc, Phase, PodSlot, Rec

STARTABLE = (Rec.NONE, Rec.PENDING)        # a submit may create it, or its driver may start


class DriverOnceLemmas(ProofGroups):
    def _records_kept(s) -> bool:
        """The setting of claim 3 with faults (module docstring), stale caches included."""
        return (not s.failed_over and not s.hand_deletes_cluster
                and not s.hand_deletes_job and (s.gcs_ft or not s.head_restarts)
                and s.mode in (Mode.K8S, Mode.HTTP))

    def _attempts_only(s) -> bool:
        """That setting with an exact cache: a Suspending that read a stale NotFound leaks
        the attempt's RayCluster (slow/suspend_stale_F3), so with a lagging cache another
        attempt's may exist (stale.py says what holds of every name then)."""
        return s._records_kept() and not s.L

    @invariant
    def lemma_marked_name_was_created(s):
        """A name is marked with the attempt whose create was applied (`_apply_cluster_create`
        bumps that attempt's count), and the marks age with the counts."""
        return all(s.cl_attempt[c] is None or s.cl_creates[s.cl_attempt[c]] >= 1
                   for c in ClusterId)

    @invariant
    def lemma_gone_head_keeps_no_records(s):
        """A cluster's GCS goes with its head pod (`_head_deleted`), and records are created
        only on a serving head. (SidecarMode keeps them on a head lost for good.)"""
        return s.mode is Mode.SIDECAR or all(
            s.kv[k] is Rec.NONE for k in s.kv if s.head[k.c] is Head.NONE)

    @invariant
    def lemma_owned_cluster_is_the_attempts(s):
        """Only the attempt's RayCluster exists: Suspending and Retrying see it gone before
        the next attempt names another, and a deleted RayJob begins none."""
        return not s._attempts_only() or all(not s.cl_cr[c] or c is s.att_cluster
                                             for c in ClusterId)

    @invariant
    def lemma_owned_cluster_records_are_the_attempts(s):
        """A RayCluster's GCS holds only records of the attempt's id: the create finds no
        records (a fresh name, or a lingering head that restarts empty) and only the
        attempt's submitters reach it."""
        return not s._attempts_only() or all(
            s.kv[k] is Rec.NONE or not s.cl_cr[k.c] or k.j is s.att_job for k in s.kv)

    @invariant
    def lemma_submitters_of_the_attempts_cluster_carry_its_id(s):
        """The submitter Job and its pods aimed at the attempt's cluster carry the
        attempt's id: the Job is created with the persisted identity, and a name is drawn
        while nothing refers to it. (HTTPMode has neither.)"""
        if not s._records_kept() or s.id_overflow:
            return True
        def carries(t):
            return t is None or t.target is not s.att_cluster or t.job_id is s.att_job
        return carries(s.job) and all(carries(s.pods[p]) for p in PodSlot)

    @invariant
    def lemma_drawn_name_is_unused(s):
        """initRayJobStatusIfNeed draws a name nothing refers to (`_draw_cluster`), and one
        operator process creates nothing under it before the status write that begins the
        attempt: no RayCluster, head, Job or pod has it (unless the pool overflowed)."""
        if (not s._records_kept() or s.id_overflow or not s._reconciling(Pc.STATUS_WRITE)
                or s.m_orig.phase is not Phase.NEW or s.m_h.phase is not Phase.INITIALIZING):
            return True
        c = s.m_b.cluster
        return (c is not None and not s.cl_cr[c] and s.head[c] is Head.NONE
                and (s.job is None or s.job.target is not c)
                and all(s.pods[p] is None or s.pods[p].target is not c for p in PodSlot))

    @invariant
    def lemma_one_submission_id_per_name(s):
        """A name's GCS holds records of one id only: the attempt that created the name
        submits its own id, and a name is drawn again only once nothing refers to it."""
        return not s._records_kept() or all(
            s.kv[k] is Rec.NONE or s.kv[o] is Rec.NONE or k.j is o.j
            for k in s.kv for o in s.kv if k.c is o.c)

    @invariant
    def lemma_started_name_has_no_pending_record(s):
        """Once a driver started on a name, none of its records is PENDING (p3)."""
        return not s._records_kept() or all(
            s.cl_driver_starts[k.c] == 0 or s.kv[k] is not Rec.PENDING for k in s.kv)

    @invariant
    def lemma_started_cluster_keeps_its_record(s):
        """Once the attempt's driver started, its record stays while its RayCluster does
        (GCS fault tolerance keeps records over a head restart), so every later submit of
        the attempt's id is rejected (put-if-absent, p3)."""
        if not s._attempts_only():
            return True
        c, j = s.att_cluster, s.att_job
        for k in s.kv:
            if s.cl_cr[k.c] and s.cl_driver_starts[k.c] >= 1:
                if k.c is not c or j is None:
                    return False
                if k.j is j and s.kv[k] in STARTABLE:
                    return False
        return True
