"""Four published bugs of the Job controller's pod tracking with finalizers, one subclass
each turning its fix off in examples/jobcontroller.py; each is refuted by a property the
fixed controller holds (docs/jobcontroller.md)."""
from examples.jobcontroller import JobController, Pc, Result


class NoFinalizerExpectations(JobController):
    """kubernetes/kubernetes#105200, "Tracking with finalizers might count a Pod more than
    once": without finalizerExpectations, a sync right after the pod was counted reads
    the pod from a stale informer cache, still with its finalizer, records its UID again
    and counts it a second time (`each_pod_counted_at_most_once`)."""
    def _release_done(s):
        s.m_holding -= {s.m_pod}


class CountsDespiteFailedRemoval(JobController):
    """kubernetes/kubernetes#104666, "Fix Job tracking with finalizers for more than 500
    pods": on a partial update the controller removed from uncountedTerminatedPods the
    UIDs of pods that still had their finalizer; here a failed finalizer patch is counted
    as done, and the next sync finds the pod with its finalizer and counts it again
    (`each_pod_counted_at_most_once`)."""
    def _write_failed(s):
        if s.pc is Pc.RELEASE:
            s.m_holding -= {s.m_pod}
            s._release_next()
        else:
            super()._write_failed()


class NoOrphanCleanup(JobController):
    """kubernetes/kubernetes#108645, "Orphan pods might not get the finalizer cleared"
    (fixed by #108752): a sync that finds the Job gone does nothing, so the pods the
    garbage collector deletes keep the finalizer for good (`no_orphans`)."""
    def _orphans(s, job, pods):
        if job is None:
            s._end(Result.DONE)
        else:
            super()._orphans(job, pods)


class OrphanErrorNotRetried(JobController):
    """kubernetes/kubernetes#141346 (fixed by #141329, "fix job pod could not be removed
    while removing finalizer failed"): a failed finalizer patch of a deleted Job's pod
    was logged and never retried, so the pod stays terminating (`no_orphans`)."""
    def _write_failed(s):
        if s.pc is Pc.RELEASE_ORPHAN:
            s._end(Result.DONE)
        else:
            super()._write_failed()
