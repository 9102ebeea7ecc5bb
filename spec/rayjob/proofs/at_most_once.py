"""Lemmas of the at-most-once claims with faults: a RayCluster create (p1b) and a submitter
Job create (p2b) are applied at most once per attempt, for every backoffLimit and fault
budget (models/rayjob/proofs/slow/at_most_once*.toml).

They hold with an exact cache (`L == 0`) and one operator process (no failover), where no
one deletes the RayCluster or the Job by hand: then a create follows a Get that saw the
object absent, and once the attempt created it, the object stays while the attempt is
Initializing, Waiting (InteractiveMode) or Running (only Suspending, Retrying, Complete
and Failed delete it, and the first two end the attempt). A hand deletion refutes both claims (models/rayjob/hand_F1.toml,
hand_F2.toml). Elsewhere the lemmas are trivially true; every bounded model checks them.
"""
from checker import invariant

from .groups import ProofGroups
from ..types import Age, Pc, Phase

IN_FLIGHT = (Phase.INITIALIZING, Phase.WAITING, Phase.RUNNING)     # Waiting: InteractiveMode


class AtMostOnceLemmas(ProofGroups):
    def _exact(s) -> bool:
        """Every read is current and only one operator process writes."""
        return not s.L and not s.failed_over

    def _in_flight_after(s, creates) -> bool:
        """The attempt is Initializing or Running and has applied a create of `creates`."""
        return s.rj is not None and s.rj.phase in IN_FLIGHT and creates[Age.CUR] > 0

    @invariant
    def lemma_the_phase_read_is_persisted(s):
        """Only the operator writes the status, and one reconcile at a time: with an exact
        cache, until its status write is applied (which ends the reconcile) the persisted
        phase is the one it read."""
        return not s._exact() or not s._reconciling() or s.rj is None or s.rj.phase is s.m_orig.phase

    @invariant
    def lemma_drawn_cluster_name_is_unmarked(s):
        """initRayJobStatusIfNeed draws the name with its ghost reset (`_draw_cluster`,
        U:369-371), and one operator process creates nothing before the status write that
        persists it (p1b)."""
        if (s.failed_over or not s._reconciling(Pc.STATUS_WRITE) or s.m_orig.phase is not Phase.NEW
                or s.m_h.phase is not Phase.INITIALIZING):
            return True
        c = s.m_b.cluster
        return c is not None and s.cl_attempt[c] is None

    @invariant
    def lemma_in_flight_cluster_name_is_unmarked_or_the_attempts(s):
        """The attempt's cluster name was drawn with its ghost reset (`_draw_cluster`)
        before the write that began the attempt, and only this attempt marks it: while the
        attempt is Initializing or Running, a create of it counts for this attempt (p1b)."""
        if not s.attempted or s.rj is None or s.rj.phase not in IN_FLIGHT:
            return True
        c = s.att_cluster
        return c is not None and s.cl_attempt[c] in (None, Age.CUR)

    @invariant
    def lemma_created_cluster_stays_in_flight_with_faults(s):
        """Once the attempt created its RayCluster, it exists while the attempt is
        Initializing or Running (p1b)."""
        if not s._exact() or s.hand_deletes_cluster or not s._in_flight_after(s.cl_creates):
            return True
        c = s.att_cluster
        return c is not None and s.cl_cr[c] and s.cl_attempt[c] is Age.CUR

    @invariant
    def lemma_cluster_create_is_the_attempts_first_with_faults(s):
        """A pending Create(RayCluster) follows a Get that saw the attempt's cluster absent:
        the attempt has created none yet (p1b)."""
        if not s._exact() or s.hand_deletes_cluster or s.pc is not Pc.CREATE_CLUSTER:
            return True
        c = s.att_cluster
        return (c is not None and s.m_b.cluster is c and s.cl_creates[Age.CUR] == 0
                and s.cl_attempt[c] in (None, Age.CUR))

    @invariant
    def lemma_created_job_stays_in_flight_with_faults(s):
        """Once the attempt created its submitter Job, it exists while the attempt is
        Initializing or Running: only Suspending and Retrying delete it (p2b)."""
        if not s._exact() or s.hand_deletes_job or not s._in_flight_after(s.job_creates):
            return True
        return s.job is not None

    @invariant
    def lemma_job_create_is_the_attempts_first_with_faults(s):
        """A pending Create(Job) follows a Get that saw no Job: the attempt has created
        none yet (p2b)."""
        if not s._exact() or s.hand_deletes_job or s.pc is not Pc.CREATE_JOB:
            return True
        return s.job_creates[Age.CUR] == 0
