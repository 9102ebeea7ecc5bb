"""Lemmas of the no-fault proofs in SidecarMode and InteractiveMode: what the
submitter container, the user's submission and the operator's memory look like there
when nothing fails (models/rayjob/proofs/slow/no_faults_{sidecar,interactive}.toml).

They add to no_faults.py's, in the same setting (`_calm`); elsewhere, and in the modes
they do not name, they are trivially true; every bounded model checks them. Each was
found by a counterexample to induction that Houdini printed (`check-model MODEL -v`).
"""
from checker import invariant

from ..state import RayJobState
from ..types import ClusterId, CrView, Exit, Head, KvKey, Mode, Pc, Phase, Rec, SubPc
from .no_faults import ENDED, _calm


class NoFaultModeLemmas(RayJobState):
    @invariant
    def lemma_sub_fin_only_after_the_check(s):
        """A reconcile learns that the submitter finished at its submitter check
        (C:286-292), just before GetJobInfo: no earlier step of it holds that."""
        return not s.m_sub_fin or s.pc in (Pc.GET_JOB_INFO, Pc.STATUS_WRITE)

    @invariant
    def lemma_no_head_lost(s):
        """Only a fault (a head restart) loses a head, and deleting the RayCluster clears
        the mark: without faults no RayCluster is Ready for want of a head (S4)."""
        return s.F != 0 or not any(s._head_lost(c) for c in ClusterId)

    @invariant
    def lemma_starting_head_is_fresh(s):
        """Without faults a head starts only once, after its RayCluster's create: its GCS
        holds no record yet, and its sidecar container (SidecarMode) is at its first step."""
        if not _calm(s):
            return True
        def ok(c):
            if s.head[c] is not Head.STARTING:
                return True
            if any(s.kv[k] is not Rec.NONE for k in s.kv if k.c is c):
                return False
            sc = s.sidecar[c]
            return (s.mode is not Mode.SIDECAR
                    or (sc is not None and sc.exit is Exit.RUNNING and sc.pc is s._sidecar_first_step()))
        return all(ok(c) for c in ClusterId)

    @invariant
    def lemma_no_settling_on_a_ready_cluster(s):
        """A clean reconcile of Initializing whose RayCluster is Ready
        moves on (C:208-236): it never settles there, so no timer fires meanwhile (in
        SidecarMode the container may already have run the job)."""
        if not _calm(s) or s.rj.phase is not Phase.INITIALIZING or s.att_cluster is None:
            return True
        c = s.att_cluster
        return s._cl_view(c) is not CrView.READY or not s.settled

    @invariant
    def lemma_records_were_submitted(s):
        """A job record exists only after a submit reached its head: its attempt counted
        that submit (`submit_calls`, folded by age as the records' clusters are)."""
        if not _calm(s):
            return True
        return all(s.kv[k] is Rec.NONE or (s.cl_attempt[k.c] is not None
                                           and s.submit_calls[s.cl_attempt[k.c]] >= 1)
                   for k in s.kv)

    @invariant
    def lemma_sidecar_exit_fits_record(s):
        """SidecarMode without faults: a submitter container exits only from following
        its own job once the record is terminal (a first submit to a fresh head is never
        rejected): exit 1 exactly when the blocking `ray job submit` saw FAILED, which
        with the restart gate (`logs --follow`) never happens (J:154-190)."""
        if not _calm(s) or s.mode is not Mode.SIDECAR:
            return True
        def ok(c):
            sc = s.sidecar[c]
            if sc is None or sc.exit is Exit.RUNNING:
                return True
            rec = s.kv[KvKey(c, sc.job_id)]
            return (sc.pc is SubPc.FOLLOW and rec in ENDED
                    and (sc.exit is Exit.ERROR) == (rec is Rec.FAILED and not s.sidecar_restart))
        return all(ok(c) for c in ClusterId)
