"""Lemmas for a lagging informer cache (`L >= 1`): what a stale Get of the RayJob may return.

A stale read hands the operator one of the `L` versions before the current one
(`rj_prev`, `rj_older`, state.py), and the reconcile runs on it: its writes then get 409,
but its creates and dashboard calls go out with the identity that version names. So the
facts lemmas.py states of the persisted RayJob and of the operator's copy must hold of
those versions too, and their identity must be the persisted one wherever the branch
they lead to creates something (models/rayjob/proofs/slow/faults_stale*.toml). With
`L == 0` both versions are always None and every lemma here holds trivially.
"""
from checker import invariant

from ..state import RayJobState
from ..types import EMPTY, NOT_RETRIED, ClusterId, CrView, JobView, Mode, Phase
from .lemmas import _named

# The phases whose status write changes the identity: New and Suspended name it
# (initRayJobStatusIfNeed, C:887-917), Suspending and Retrying clear it (C:366-410).
RENAMING = (Phase.NEW, Phase.SUSPENDED, Phase.SUSPENDING, Phase.RETRYING)


class StaleLemmas(RayJobState):
    def _cached_versions(s):
        """The RayJob versions a stale cache may still return (None where it keeps none)."""
        return ((s.rj_prev, s.rj_prev_b), (s.rj_older, s.rj_older_b))

    @invariant
    def lemma_nothing_kept_two_changes_back_below_lag_two(s):
        """Only with `L == 2` does the cache keep a version two changes back."""
        return s.L == 2 or (s.rj_older is None and s.rj_older_b == EMPTY
                            and s.job_older is JobView.ABSENT
                            and all(s.cl_older[c] is CrView.ABSENT for c in ClusterId))

    @invariant
    def lemma_cached_versions_were_persisted(s):
        """A version the cache keeps was once the persisted RayJob, so what lemmas.py says
        of every persisted RayJob holds of it: it names its identity outside New and
        Suspended, carries the finalizer beyond New, is Retrying only for a reason that is
        retried, and an absent one has an empty status."""
        interactive = s.mode is Mode.INTERACTIVE
        for h, b in s._cached_versions():
            if h is None:
                if b != EMPTY:
                    return False
            elif (not _named(h, b, interactive)
                  or h.phase not in (Phase.NEW, Phase.VALIDATION_FAILED) and not h.finalizer
                  or h.phase is Phase.RETRYING and h.reason in NOT_RETRIED):
                return False
        return True

    @invariant
    def lemma_cached_metadata_stays(s):
        """The finalizer and the deletionTimestamp, once set, stay until the RayJob is gone
        (only the operator removes the finalizer, and that deletes it, C:132-137): a kept
        version's are the persisted RayJob's too. Once it is gone, the versions kept are its
        deletion or a RayJob without a finalizer."""
        for h, _ in s._cached_versions():
            if h is None:
                continue
            if s.rj is None:
                if h.finalizer and not h.deleting:
                    return False
            elif h.finalizer and not s.rj.finalizer or h.deleting and not s.rj.deleting:
                return False
        return True

    @invariant
    def lemma_cached_versions_name_the_persisted_identity(s):
        """Only the operator's status write changes the identity, from a current read,
        which leaves the cache holding nothing older than the version it read: a kept
        version in a phase that does not rename names the persisted identity (Waiting
        may still lack the job id it names next)."""
        if s.rj is None:
            return True
        for h, b in s._cached_versions():
            if h is not None and h.phase not in RENAMING and (
                    b.cluster != s.rj_b.cluster
                    or b.job_id != s.rj_b.job_id and h.phase is not Phase.WAITING):
                return False
        return True

