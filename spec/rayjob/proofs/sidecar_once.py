"""Lemmas of claims 3 and 12 with faults in SidecarMode: no attempt's driver starts twice,
and one submit call per attempt reaches the head, for every backoffLimit and fault budget
(models/rayjob/proofs/slow/driver_once_sidecar*.toml, submit_once_sidecar*.toml).

In SidecarMode the only submitter of a cluster name is the container of its head pod,
which carries the id frozen into it at the create, and a head pod is never re-created
once provisioned (`ray.io/disable-provisioned-head-restart`; a restart before that,
`head_restart_early`, is left out): the name's GCS holds at most that one record,
created by the container's first accepted submit, and it stays as long as the container
(both go with the pod). So a driver starts on a name at most once. They hold with one
operator process and no hand deletion of the RayCluster (Initializing re-creates it under
the same name, `sidecar_hand_F1`; a paused ex-leader's create does too,
`sidecar_failover_F1`), with or without GCS fault tolerance (its records outlive a lost
head, which never serves again: `*_sidecar_ft*.toml`), and with a lagging cache too (a stale
NotFound's create of a name gets AlreadyExists, and every lemma here speaks of each name,
not of the attempt a read names: `*_sidecar_stale*.toml`, with stale.py's lemmas).
Elsewhere, and in the other modes, they are trivially true; every bounded model checks
them. Each was found by a counterexample to induction that Houdini printed (`check-model
MODEL -v`).
"""
from checker import invariant

from .groups import ProofGroups
from ..types import ClusterId, Exit, Head, KvKey, Mode, Rec, SubPc


class SidecarOnceLemmas(ProofGroups):
    def _one_sidecar_per_name(s) -> bool:
        """The setting of the module docstring (the pools sufficing too)."""
        return (s.mode is Mode.SIDECAR and not s.failed_over and not s.hand_deletes_cluster
                and not s.heads_restart_unprovisioned and not s.id_overflow)

    def _own_record(s, c: ClusterId) -> Rec:
        """The record of the id frozen into c's container (c has one)."""
        return s.kv[KvKey(c, s.sidecar[c].job_id)]

    def _container_at(s, c: ClusterId, pc: SubPc) -> bool:
        sc = s.sidecar[c]
        return sc is not None and sc.exit is Exit.RUNNING and sc.pc is pc

    @invariant
    def lemma_records_are_the_sidecars(s):
        """A name's GCS holds only the record of its container's id: only the container
        submits to it (on 127.0.0.1, J:95-100), and the record goes with the head pod,
        which takes the container with it (`_head_stops`). With GCS fault tolerance it
        outlives a head lost for good (`head_restart`), on which nothing starts any more,
        until the RayCluster's deletion wipes it (`_cr_deleted`): till then the name is
        not created again."""
        return not s._one_sidecar_per_name() or all(
            s.kv[k] is Rec.NONE or (s.gcs_ft and s._head_lost(k.c) and s.cl_cr[k.c])
            or (s.sidecar[k.c] is not None and k.j is s.sidecar[k.c].job_id)
            for k in s.kv)

    @invariant
    def lemma_ft_lost_head_stays_lost(s):
        """With GCS fault tolerance a head lost in SidecarMode is never re-created
        (`head_restart`) while its RayCluster exists, and the RayCluster's deletion takes
        the mark with the head (`_cr_deleted`): a name whose head was lost has its RayCluster
        and no head, so no call reaches it and no driver starts on it. (Without it a
        lingering head, its RayCluster gone, may be lost too.)"""
        return s.mode is not Mode.SIDECAR or not s.gcs_ft or all(
            not s._head_lost(c) or (s.cl_cr[c] and s.head[c] is Head.NONE) for c in ClusterId)

    @invariant
    def lemma_ft_head_lives_with_its_cluster(s):
        """With GCS fault tolerance the Redis clean-up finalizer deletes the head pod before
        its RayCluster goes (`_cr_deleted`): no head lingers, so a head lost for good keeps
        its records under a RayCluster that still exists."""
        return s.mode is not Mode.SIDECAR or not s.gcs_ft or all(
            s.head[c] is Head.NONE or s.cl_cr[c] for c in ClusterId)

    @invariant
    def lemma_sidecar_submits_before_any_start(s):
        """A container at `ray job submit` has no record yet (its first step, or the
        status check found none) and no driver started on its name: the name was created
        once, with its ghosts reset when it was drawn (p3)."""
        return not s._one_sidecar_per_name() or all(
            not s._container_at(c, SubPc.SUBMIT)
            or (s._own_record(c) is Rec.NONE and s.cl_driver_starts[c] == 0)
            for c in ClusterId)

    @invariant
    def lemma_restarted_sidecar_checks_a_record_or_none_started(s):
        """With the SidecarSubmitterRestart gate a container restarts at `ray job status`:
        either its record exists (it will follow it), or no driver started on its name."""
        return not s._one_sidecar_per_name() or all(
            not s._container_at(c, SubPc.STATUS)
            or s._own_record(c) is not Rec.NONE or s.cl_driver_starts[c] == 0
            for c in ClusterId)

    @invariant
    def lemma_following_sidecar_has_its_record(s):
        """A container follows a job it submitted or found: the record exists until the
        head pod, and the container, go."""
        return not s._one_sidecar_per_name() or all(
            not s._container_at(c, SubPc.FOLLOW) or s._own_record(c) is not Rec.NONE for c in ClusterId)

    @invariant
    def lemma_sidecar_name_submitted_iff_recorded(s):
        """While its container lives, a name holds its record exactly when a submit has
        reached it: only the container submits there, its first submit creates the record
        (put-if-absent) and the record goes only with the pod. So the container at `ray
        job submit` has not submitted yet, and once it has, the gate's status check finds
        the record and follows it (p12, counted per name: a suspend too). The container
        came with the create, which marked the name with its attempt."""
        return not s._one_sidecar_per_name() or all(
            s.sidecar[c] is None
            or (s.cl_attempt[c] is not None
                and (s._own_record(c) is Rec.NONE) == (s.cl_submit_calls[c] == 0))
            for c in ClusterId)

    @invariant
    def lemma_started_sidecar_name_has_no_pending_record(s):
        """Once a driver started on a name, its record is past PENDING (p3)."""
        return not s._one_sidecar_per_name() or all(
            s.cl_driver_starts[k.c] == 0 or s.kv[k] is not Rec.PENDING for k in s.kv)

    @invariant
    def lemma_no_status_check_without_the_gate(s):
        """Without the gate the script has no `ray job status` (J:154-158) and a failed
        container is not restarted: no container is ever at that step."""
        return s.mode is not Mode.SIDECAR or s.sidecar_restart or not any(
            s._container_at(c, SubPc.STATUS) for c in ClusterId)
