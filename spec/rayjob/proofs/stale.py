"""Lemmas for a lagging informer cache (`L >= 1`): what a stale Get of the RayJob may return.

A stale read hands the operator one of the `L` versions before the current one
(`rj_prev`, `rj_older`, state.py), and the reconcile runs on it: its writes then get 409,
but its creates and dashboard calls go out with the identity that version names. So the
facts lemmas.py states of the persisted RayJob and of the operator's copy must hold of
those versions too, and their identity must be the persisted one wherever the branch
they lead to creates something (models/rayjob/proofs/slow/faults_stale*.toml, and
one_name_stale*.toml for claim 1a). StaleAtMostOnceLemmas carries the at-most-once
lemmas over to a lagging cache (claims 1b and 2b: at_most_once_stale*.toml). With
`L == 0` both versions are always None and every lemma here holds trivially; with
`L == 2` (the *_lag2.toml proofs) what the cache keeps two changes back must be pinned
down too: only as far back as it stands, nothing past a fresh read, and nothing from
before a version in flight but that attempt's own.
"""
from checker import invariant

from ..state import RayJobState
from ..types import (EMPTY, NOT_RETRIED, Age, CacheSt, ClusterId, CrView, Head, JobView, Mode,
                     Pc, Phase, Rec)
from .at_most_once import IN_FLIGHT, AtMostOnceLemmas
from .driver_once import STARTABLE, DriverOnceLemmas
from .lemmas import _named

# The phases whose status write changes the identity: New and Suspended name it
# (initRayJobStatusIfNeed, C:887-917), Suspending and Retrying clear it (C:366-410).
RENAMING = (Phase.NEW, Phase.SUSPENDED, Phase.SUSPENDING, Phase.RETRYING)
# What a reconcile may read of a RayJob now Initializing or Running.
READ_IN_FLIGHT = (Phase.NEW, Phase.WAITING) + IN_FLIGHT


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

    @invariant
    def lemma_versions_kept_within_the_lag(s):
        """A cache keeps a version only as far back as it may return one: a current read
        forgets them all and leaves it in sync (`_cache_at(0)`), a write keeps one more,
        up to L (`_cache_replaced`), a catch-up or a stale fault keeps those up to where it
        stands."""
        return ((s.rj_cache is CacheSt.SYNC) == (s.rj_lag == 0)
                and (s.rj_lag >= 1 or s.rj_prev is None and s.rj_prev_b == EMPTY)
                and (s.rj_lag >= 2 or s.rj_older is None and s.rj_older_b == EMPTY)
                and (s.job_cache is CacheSt.SYNC) == (s.job_lag == 0)
                and (s.job_lag >= 1 or s.job_prev is JobView.ABSENT)
                and (s.job_lag >= 2 or s.job_older is JobView.ABSENT)
                and all((s.cl_cache[c] is CacheSt.SYNC) == (s.cl_lag[c] == 0)
                        and (s.cl_lag[c] >= 1 or s.cl_prev[c] is CrView.ABSENT)
                        and (s.cl_lag[c] >= 2 or s.cl_older[c] is CrView.ABSENT)
                        for c in ClusterId))

    @invariant
    def lemma_fresh_copy_read_past_the_kept_versions(s):
        """A reconcile whose copy is fresh read the RayJob from a current cache, which then
        forgets the versions it kept, and only its own writes followed: at most the
        finalizer's (`op_fin_add`, then the status write or the end), after which the
        cache keeps the version read, the same but for the finalizer."""
        if not s._reconciling() or s.failed_over:
            return True
        if s.pc is Pc.FIN_ADD and s.m_h.finalizer:      # New adds it where its copy lacks it
            return False
        return (not s.m_fresh or s.rj_lag == 0
                or s.rj_lag == 1 and s.pc is Pc.STATUS_WRITE and s.rj is not None
                and s.rj.finalizer and s.rj_prev_b == s.rj_b
                and s.rj_prev == s.rj._replace(finalizer=False))


class StaleAtMostOnceLemmas(AtMostOnceLemmas, StaleLemmas):
    """The at-most-once lemmas (at_most_once.py) for a lagging cache, one operator process
    and no hand deletion (models/rayjob/proofs/slow/at_most_once_stale*.toml): a stale
    NotFound may send a second create, but the object then exists and the create gets
    AlreadyExists. A stale read of the RayJob may hand a reconcile the attempt's
    Initializing or Running after the status write that ends it, but nothing deletes the
    attempt's objects before a reconcile reads that write, which leaves the cache holding
    nothing older."""

    def _lagging(s) -> bool:
        """A cache may lag, and only one operator process writes (no failover)."""
        return s.L > 0 and not s.failed_over

    def _attempts_cluster_unmarked_or_kept(s) -> bool:
        """The attempt's cluster name is unmarked (drawn afresh, `_draw_cluster`) or marked
        as its own, and once the attempt created that RayCluster, it exists."""
        c = s.att_cluster
        return (c is not None and s.cl_attempt[c] in (None, Age.CUR)
                and (s.cl_creates[Age.CUR] == 0 or s.cl_cr[c]))

    def _seen_in_flight(s) -> bool:
        """The RayJob exists and it, a version the cache keeps or the copy a reconcile
        works on is Initializing, Waiting or Running: a branch that creates may run."""
        if s.rj is None:
            return False
        return (s.rj.phase in IN_FLIGHT
                or any(h is not None and h.phase in IN_FLIGHT for h, _ in s._cached_versions())
                or s._reconciling() and s.m_orig.phase in IN_FLIGHT)

    @invariant
    def lemma_versions_kept_of_an_attempt_in_flight(s):
        """The versions a lagging cache keeps from before an Initializing or Running RayJob
        (the persisted one or a kept one) are in one of those phases or in the New (or
        Waiting) before them: a write that enters or stays in those phases is the
        operator's status write from a current read of one of them, which leaves the cache
        keeping nothing older (every way out of Suspending, Retrying, Complete or Failed
        goes through such a write), or a write of another actor that keeps the phase."""
        if not s._lagging():
            return True
        rj, prev, older = s.rj, s.rj_prev, s.rj_older
        prev_ok = prev is None or prev.phase in READ_IN_FLIGHT
        older_ok = older is None or older.phase in READ_IN_FLIGHT
        return ((rj is None or rj.phase not in IN_FLIGHT or prev_ok and older_ok)
                and (prev is None or prev.phase not in IN_FLIGHT or older_ok))

    @invariant
    def lemma_reconciles_read_in_flight_while_seen_so(s):
        """While the RayJob or a version the cache keeps is Initializing or Running, a
        reconcile under way read one of those phases or the New (or Waiting) before them:
        only the operator's status write, from a current read, leaves them, and ends its
        reconcile; the next one reads that write (and the cache keeps nothing older) or,
        stale, the version before it."""
        if not s._lagging() or not s._reconciling() or not s._seen_in_flight():
            return True
        return s.m_orig.phase in READ_IN_FLIGHT

    @invariant
    def lemma_created_cluster_stays_while_seen_in_flight(s):
        """While the attempt is Initializing or Running, and after, while a reconcile may
        still read it so, its cluster name is its own and its RayCluster, once created,
        stays (p1b)."""
        if not s._lagging() or s.hand_deletes_cluster or not s._seen_in_flight():
            return True
        return s._attempts_cluster_unmarked_or_kept()

    @invariant
    def lemma_cluster_create_is_first_or_fails_with_stale_caches(s):
        """A pending Create(RayCluster) names the attempt's cluster; it follows a Get that
        saw it absent, maybe stale: the attempt has created none yet, or it exists (p1b)."""
        if not s._lagging() or s.hand_deletes_cluster or s.pc is not Pc.CREATE_CLUSTER:
            return True
        return s.m_b.cluster is s.att_cluster and s._attempts_cluster_unmarked_or_kept()

    @invariant
    def lemma_created_job_stays_while_seen_in_flight(s):
        """Once the attempt created its submitter Job, it exists while the attempt is
        Initializing or Running, and after, while a reconcile may still read it so (p2b)."""
        if (not s._lagging() or s.hand_deletes_job or not s._seen_in_flight()
                or s.job_creates[Age.CUR] == 0):
            return True
        return s.job is not None

    @invariant
    def lemma_job_create_is_first_or_fails_with_stale_caches(s):
        """A pending Create(Job) follows a Get that saw no Job, maybe stale: the attempt has
        created none yet, or a Job exists (p2b)."""
        if not s._lagging() or s.hand_deletes_job or s.pc is not Pc.CREATE_JOB:
            return True
        return s.job_creates[Age.CUR] == 0 or s.job is not None


class StaleDriverOnceLemmas(DriverOnceLemmas, StaleAtMostOnceLemmas):
    """The lemmas of claim 3 (driver_once.py) for a lagging cache, with GCS fault tolerance
    or without it and head restarts (models/rayjob/proofs/slow/driver_once_stale*.toml,
    the latter *_noft.toml): a Suspending that read a stale NotFound leaves the attempt's
    RayCluster behind, its head serving and its submitter Job still aimed at it
    (slow/suspend_stale_F3), so what driver_once.py says of the attempt's cluster is said
    here of every name: whatever refers to it carries one id, and once a driver started
    there a record of that id that no submit may create again stays while the RayCluster
    or its head does."""

    def _submitters(s):
        """The submitter Job and pods (None where there is none)."""
        return (s.job, *s.pods.values())

    def _identities(s):
        """The identities the RayJob, the versions the cache keeps and the operator's copy
        name (HTTPMode's SubmitJob goes out with the last)."""
        return (s.rj_b, s.rj_prev_b, s.rj_older_b, s.m_b)

    def _one_id_per_name(s) -> bool:
        """The setting, where a name is drawn only once nothing refers to it."""
        return s._records_kept() and not s.id_overflow

    @invariant
    def lemma_identities_name_one_id_per_name(s):
        """Statuses, cached versions and the operator's copy that name one cluster name
        it with one id: both are drawn together (`_draw_cluster`) while nothing refers to
        either, and cleared together."""
        ids = s._identities()
        return not s._one_id_per_name() or all(
            b.cluster is None or o.cluster is not b.cluster or o.job_id is b.job_id
            for b in ids for o in ids)

    @invariant
    def lemma_submitters_carry_their_names_id(s):
        """The submitter Job and pods aimed at a name carry the id every identity naming
        it names: the Job is created from the operator's copy, its pods from the Job."""
        subs, ids = s._submitters(), s._identities()
        return not s._one_id_per_name() or all(
            t is None or (all(u is None or u.target is not t.target or u.job_id is t.job_id
                              for u in subs)
                          and all(b.cluster is not t.target or b.job_id is t.job_id
                                  for b in ids))
            for t in subs)

    @invariant
    def lemma_records_carry_their_names_id(s):
        """A name's job records carry the id the submitters and identities naming it carry:
        each was submitted by one of them."""
        subs, ids = s._submitters(), s._identities()
        return not s._one_id_per_name() or all(
            s.kv[k] is Rec.NONE
            or (all(t is None or t.target is not k.c or t.job_id is k.j for t in subs)
                and all(b.cluster is not k.c or b.job_id is k.j for b in ids))
            for k in s.kv)

    @invariant
    def lemma_started_name_keeps_a_record(s):
        """Once a driver started on a name, a record of it that is past PENDING stays while
        its RayCluster or head does (GCS fault tolerance keeps it over a head restart, and
        the RayCluster's deletion takes its head first): a submit of the name's one id is
        rejected (put-if-absent, p3)."""
        if not s._records_kept():
            return True
        return all(s.cl_driver_starts[c] == 0 or not s.cl_cr[c] and s.head[c] is Head.NONE
                   or any(s.kv[k] not in STARTABLE for k in s._keys(c))
                   for c in ClusterId)
