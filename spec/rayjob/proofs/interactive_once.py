"""Lemmas of claims 3 and 12 with faults in InteractiveMode: no attempt's driver starts
twice, and one submit call per attempt reaches the head, for every fault budget
(backoffLimit 0, the only value its validation accepts: there are no retries;
models/rayjob/proofs/slow/driver_once_interactive*.toml, submit_once_interactive*.toml).

In InteractiveMode the only submitter is the user, who submits spec.jobId to the dashboard
the status names only when no job of that id is there (`user_submits`): a name's GCS holds
that one id's record, created by the first submit (put-if-absent), and once a submit
reached a name its record stays while the name's RayCluster or its head does. So no
second submit, and no second start, happens on a name. They hold with one operator
process, no hand deletion of the RayCluster (Running re-creates it under the same name,
its head restarting empty, and the user submits again: interactive_hand_F1) and job
records that outlive a head restart (GCS fault tolerance, or no head restart: without
either the user submits again to the emptied GCS, interactive_head_F1), with a lagging
cache too (every lemma here speaks of each name). Elsewhere, and in the other modes, they
are trivially true; every bounded model checks them. The head lemma came from a
counterexample to induction that Houdini printed (`check-model MODEL`, docs/symbolic.md).
"""
from checker import invariant

from .groups import ProofGroups
from ..types import ClusterId, Head, JobId, KvKey, Mode, Rec


class InteractiveOnceLemmas(ProofGroups):
    def _user_submits_once(s) -> bool:
        """The setting of the module docstring (the pools sufficing too)."""
        return (s.mode is Mode.INTERACTIVE and not s.failed_over and not s.hand_deletes_cluster
                and (s.gcs_ft or not s.head_restarts) and not s.id_overflow)

    def _users_record(s, c: ClusterId) -> Rec:
        return s.kv[KvKey(c, JobId.JS)]

    @invariant
    def lemma_interactive_records_are_the_users(s):
        """InteractiveMode has no submitter Job and the operator submits nothing: every
        record is the user's, of spec.jobId."""
        return s.mode is not Mode.INTERACTIVE or all(
            s.kv[k] is Rec.NONE or k.j is JobId.JS for k in s.kv)

    @invariant
    def lemma_interactive_heads_were_created(s):
        """A head comes only with a create of its RayCluster, which marks the name with the
        attempt (`_apply_cluster_create`), and a name is drawn afresh, its mark cleared,
        only once no head is left: a submit to it counts."""
        return not s._user_submits_once() or all(
            s.head[c] is Head.NONE or s.cl_attempt[c] is not None for c in ClusterId)

    @invariant
    def lemma_interactive_record_was_submitted(s):
        """A record is created only by a submit (`_ray_submit`), which a name's attempt
        counts, and a name is drawn afresh, its ghosts reset, only once no record is left."""
        return not s._user_submits_once() or all(
            s._users_record(c) is Rec.NONE or s.cl_submit_calls[c] >= 1 for c in ClusterId)

    @invariant
    def lemma_interactive_starts_follow_submits(s):
        """A driver starts from the PENDING record a submit created, once (p3 from p12):
        while the record is PENDING no driver has started on the name."""
        return not s._user_submits_once() or all(
            s.cl_driver_starts[c] <= s.cl_submit_calls[c]
            and (s._users_record(c) is not Rec.PENDING or s.cl_driver_starts[c] == 0)
            for c in ClusterId)

    @invariant
    def lemma_submitted_name_keeps_its_record(s):
        """Once a submit reached a name, its record stays while its RayCluster or its head
        does: records go only with the head (GCS fault tolerance keeps them over a head
        restart, the RayCluster's deletion takes the head first), and a name is created
        again only by a new attempt, drawn afresh. So the user finds it and submits no
        more (p12)."""
        return not s._user_submits_once() or all(
            s.cl_submit_calls[c] == 0 or (not s.cl_cr[c] and s.head[c] is Head.NONE)
            or s._users_record(c) is not Rec.NONE for c in ClusterId)
