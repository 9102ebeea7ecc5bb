"""The Kubernetes Job controller's pod tracking with finalizers (KEP-2307), on checker/kubernetes.

kube-controller-manager's Job controller (kubernetes/kubernetes,
pkg/controller/job/job_controller.go) counts a Job's finished pods in
`status.succeeded`/`status.failed` without keeping the pods: it creates each pod with
the finalizer `batch.kubernetes.io/job-tracking`, and when a pod has finished it

1. records the pod's UID in `status.uncountedTerminatedPods` (a status update),
2. removes the pod's finalizer (a patch), after which the pod may go,
3. moves the UIDs whose pods no longer hold the finalizer from the uncounted lists to
   the counters (a status update), and declares the Job finished only once none is left.

In that order a crash or a lost response anywhere neither loses a pod (its UID is in
the status before the pod can go) nor counts it twice (a UID leaves the uncounted lists
only once its pod holds no finalizer). What the real controller adds to make that true
under a lagging informer cache, and for pods whose Job is gone, is where its bugs were;
examples/jobcontroller_bugs.py turns each published fix off.

The model: one Job (completions 1, parallelism 1, backoffLimit 1 or 0) and a pool of two
generated pod names; the kubelet finishes a running pod (Succeeded or Failed), the
terminated-pod garbage collector may delete a finished one, a user may delete the Job.
Simplified: one work queue for the Job key and the orphan-pod queue; one pod created
per sync, after the status writes (the real sync creates first, in manageJob); a failed
finalizer patch ends the sync with an error at once (the real sync
patches every pod, then flushes the partial progress); pods still running when the Job
is finishing are counted failed and released, not deleted.
"""
import enum
from typing import NamedTuple

from checker import Const, Ghost, Int, Map, Option, Set, action, invariant, leads_to, require
from checker.kubernetes import Kubernetes, Result, kubernetes_state

COMPLETIONS = 1
PARALLELISM = 1
Count = Int[0, 2]                        # saturating


class Ref(enum.Enum):
    """The Job, and a pool of generated pod names (a name stands for a pod's UID too)."""
    JOB = "job"
    POD_A = "pod-a"
    POD_B = "pod-b"


PODS = (Ref.POD_A, Ref.POD_B)


class Phase(enum.Enum):
    """A pod's status.phase (Pending folded into Running)."""
    RUNNING = "Running"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"


class Obj(NamedTuple):
    finalizer: bool = False              # a Pod: batch.kubernetes.io/job-tracking
    deleting: bool = False
    owner: Option[Ref] = None
    phase: Phase = Phase.RUNNING         # a Pod's status.phase
    uncounted_ok: Set[Ref] = frozenset()      # Job status.uncountedTerminatedPods.succeeded
    uncounted_failed: Set[Ref] = frozenset()  # ... .failed
    succeeded: Count = 0                 # Job status.succeeded
    failed: Count = 0                    # Job status.failed
    finished: bool = False               # Job condition Complete or Failed


class Pc(enum.Enum):
    """The API call the sync makes next."""
    IDLE = "idle"
    CREATE_POD = "create pod"
    RECORD = "record uncounted"
    RELEASE = "remove pod finalizer"
    FLUSH = "count and finish"
    RELEASE_ORPHAN = "remove orphan finalizer"


def counted(job: Obj, holding) -> Obj:
    """cleanUncountedPodsWithoutFinalizers: the uncounted UIDs whose pods hold no
    finalizer (`holding` says who does) move to the counters."""
    ok, failed = job.uncounted_ok & holding, job.uncounted_failed & holding
    return job._replace(
        uncounted_ok=ok, uncounted_failed=failed,
        succeeded=min(job.succeeded + len(job.uncounted_ok - ok), 2),
        failed=min(job.failed + len(job.uncounted_failed - failed), 2))


class JobController(kubernetes_state(Ref, Obj, Pc), Kubernetes):
    WRITES = tuple(p for p in Pc if p is not Pc.IDLE)
    USER_DELETES = (Ref.JOB,)
    BACKOFF_LIMIT = Const(1, "the Job's spec.backoffLimit: failed pods it tolerates", min=0, max=1)
    objects = {r: (Obj() if r is Ref.JOB else None) for r in Ref}
    # the sync's memory
    m: Option[Obj] = None                # the Job status as this sync will write it
    m_pod: Option[Ref] = None            # the pod of the current call
    m_release: Set[Ref] = frozenset()    # pods whose finalizer this sync still removes
    m_holding: Set[Ref] = frozenset()    # pods holding the finalizer, as this sync knows
    m_create: bool = False               # this sync creates a pod at its end
    MEMORY = ("m", "m_pod", "m_release", "m_holding", "m_create")
    # the process's memory: expectations (pkg/controller/controller_utils.go, tracking_utils.go)
    expect_created: Set[Ref] = frozenset()
    expect_released: Set[Ref] = frozenset()
    PROCESS_MEMORY = ("expect_created", "expect_released")
    # ghosts
    tally: Ghost[Map[Ref, Count]] = Map.fill(0)   # times each pod entered a counter
    out_of_names: Ghost[bool] = False

    def _forget_memory(s):
        s.m = s.m_pod = None
        s.m_release = s.m_holding = frozenset()
        s.m_create = False

    def _forget_process_memory(s):
        s.expect_created = s.expect_released = frozenset()

    # ------------------------------------------------------------ syncJob
    def _reconcile(s):
        """syncJob: read the Job and its pods from the informer cache; a Job that is gone
        or finished leaves its pods to the orphan pass; otherwise
        trackJobStatusAndRemoveFinalizers, then manageJob."""
        job = s._read(Ref.JOB)
        pods = {p: s._read(p) for p in PODS}
        s._observe(pods)
        if job is None or job.finished:
            s._orphans(job, pods)
            return
        holding = frozenset(p for p in PODS if pods[p] is not None and pods[p].finalizer
                            and p not in s.expect_released)
        s.m = s._recorded(counted(job, holding), pods, holding)
        s.m_holding = holding
        s.m_release = frozenset(p for p in holding if p in s.m.uncounted_ok | s.m.uncounted_failed)
        s.m_create = s._wants_pod(pods)
        if s.m != job:
            s.pc = Pc.RECORD
        else:
            s._release_next()

    def _observe(s, pods):
        """The pod informer's event handlers (addPod, updatePod, deletePod): an expected
        creation is observed once the pod shows, an expected finalizer removal once the
        pod shows without it or is gone."""
        s.expect_created = frozenset(p for p in s.expect_created if pods[p] is None)
        s.expect_released = frozenset(p for p in s.expect_released
                                      if pods[p] is not None and pods[p].finalizer)

    def _recorded(s, job: Obj, pods, holding) -> Obj:
        """trackJobStatusAndRemoveFinalizers, step 1: every finished pod holding the
        finalizer and not expected to lose it gets its UID in the uncounted lists (a
        pod counted failed stays failed: #111646); once the Job is finishing, the pods
        still running are counted failed."""
        ok, failed = set(job.uncounted_ok), set(job.uncounted_failed)
        for p in sorted(holding, key=PODS.index):
            if pods[p].phase is Phase.SUCCEEDED and p not in failed:
                ok.add(p)
            elif pods[p].phase is Phase.FAILED:
                failed.add(p)
        job = job._replace(uncounted_ok=frozenset(ok), uncounted_failed=frozenset(failed))
        if s._finishing(job):
            running = {p for p in holding if pods[p].phase is Phase.RUNNING}
            job = job._replace(uncounted_failed=job.uncounted_failed | running)
        return job

    def _wants_pod(s, pods) -> bool:
        """manageJob: with its creation expectations satisfied and the Job not
        finishing, a pod is created when fewer than min(parallelism, completions left)
        run."""
        if s.expect_created or s._finishing(s.m):
            return False
        running = sum(1 for p in PODS if pods[p] is not None and not pods[p].deleting
                      and pods[p].phase is Phase.RUNNING)
        return running < min(PARALLELISM, COMPLETIONS - s.m.succeeded - len(s.m.uncounted_ok))

    def _draw_name(s):
        """generateName: the API server picks the name and never gives a UID twice, so the
        lowest name never created (the library's count of applied creates) and not
        pending in a paused ex-leader stands for the fresh one."""
        for p in PODS:
            if s.creates[p] == 0 and s.ex_m_pod is not p:
                return p
        s.out_of_names = True
        return None

    def _release_next(s):
        """flushUncountedAndRemoveFinalizers: after the new uncounted UIDs are written
        (RECORD, step 1), remove the finalizer of each recorded pod
        (removeTrackingFinalizerFromPods); then step 3."""
        if s.m_release:
            s.m_pod = min(s.m_release, key=PODS.index)
            s.m_release -= {s.m_pod}
            s.pc = Pc.RELEASE
        else:
            s._flush()

    def _flush(s):
        """Step 3 and enactJobFinished: count the UIDs whose pods hold no finalizer; the
        Job is finished only once none is uncounted and its pod creations were observed
        (#109486)."""
        job = counted(s.m, s.m_holding)
        if (s._finishing(job) and not job.uncounted_ok and not job.uncounted_failed
                and not s.expect_created):
            job = job._replace(finished=True)
        if job == s.m:
            s._create_pod()
        else:
            s.m, s.pc = job, Pc.FLUSH

    def _create_pod(s):
        """manageJob's create, under a fresh generated name; the end of the sync."""
        s.m_pod = s._draw_name() if s.m_create else None
        s.m_create = False
        if s.m_pod is None:
            s._end(Result.DONE)
        else:
            s.pc = Pc.CREATE_POD

    def _finishing(s, job: Obj) -> bool:
        """The counters, uncounted UIDs included, reach completions or pass backoffLimit."""
        return (job.succeeded + len(job.uncounted_ok) >= COMPLETIONS
                or job.failed + len(job.uncounted_failed) > s.BACKOFF_LIMIT)

    def _release_done(s):
        """The patch succeeded: the pod no longer holds the finalizer, and its removal is
        expected in the cache (finalizerExpectations, the fix of #105200)."""
        s.m_holding -= {s.m_pod}
        s.expect_released |= {s.m_pod}

    # ------------------------------------------------------------ orphan pods
    def _orphans(s, job, pods):
        """syncOrphanPod (#108752, the fix of #108645), reached through deleteJob and
        updateJob's cleanupPodFinalizers: a pod whose Job is gone or finished loses its
        finalizer, one patch each."""
        s.m_release = frozenset(p for p in PODS if pods[p] is not None and pods[p].finalizer)
        s._release_orphan_next()

    def _release_orphan_next(s):
        """One orphan pod's patch; a failed one returns the error, so that the pod is
        retried (processNextOrphanPod's AddRateLimited; #141329, the fix of #141346, for
        the pods of a deleted Job)."""
        if s.m_release:
            s.m_pod = min(s.m_release, key=PODS.index)
            s.m_release -= {s.m_pod}
            s.pc = Pc.RELEASE_ORPHAN
        else:
            s._end(Result.DONE)

    # ------------------------------------------------------------ the calls
    def _call(s) -> bool:
        """A pod is created with the finalizer and a controller ownerReference; a
        finalizer goes by removeTrackingFinalizerPatch (no resourceVersion), NotFound
        counting as removed."""
        pc = s.pc
        if pc is Pc.CREATE_POD:
            return s._create(s.m_pod, Obj(finalizer=True, owner=Ref.JOB))
        if pc in (Pc.RECORD, Pc.FLUSH):
            return s._update_status()
        gone = s.objects[s.m_pod] is None
        return s._patch(s.m_pod, finalizer=False) or gone

    def _update_status(s) -> bool:
        """updateJobStatus, with the resourceVersion read (409 on a stale Job); the
        ghost `tally` counts each UID that leaves the uncounted lists for a counter."""
        before = s.objects[Ref.JOB]
        ok = s._update(Ref.JOB, s.m)
        if ok:
            for p in (before.uncounted_ok | before.uncounted_failed) - (
                    s.m.uncounted_ok | s.m.uncounted_failed):
                s.tally[p] = min(s.tally[p] + 1, 2)
        return ok

    def _after(s, ok: bool):
        """An error ends the sync (the key is requeued), as a failed or timed-out write
        does (the library's `_write_failed`): a UID leaves the uncounted lists only once
        its pod's patch succeeded (#104666); otherwise the next call."""
        pc = s.pc
        if not ok:
            s._end(Result.ERROR)
        elif pc is Pc.CREATE_POD:
            s.expect_created |= {s.m_pod}
            s._end(Result.DONE)
        elif pc is Pc.RECORD:
            s._release_next()
        elif pc is Pc.RELEASE:
            s._release_done()
            s._release_next()
        elif pc is Pc.RELEASE_ORPHAN:
            s._release_orphan_next()
        else:
            s._create_pod()

    # ------------------------------------------------------------ the environment
    @action(group="kubelet", fair="weak")
    def pod_finishes(s, r: "Ref", succeeded: bool):
        """The kubelet: the pod's containers exit, its status.phase becomes Succeeded or
        Failed (restartPolicy Never)."""
        pod = s.objects[r]
        require(r in PODS and pod is not None and pod.phase is Phase.RUNNING)
        s._write(r, pod._replace(phase=Phase.SUCCEEDED if succeeded else Phase.FAILED))

    @action(group="podgc")
    def pod_gc(s, r: "Ref"):
        """The terminated-pod garbage collector (--terminated-pod-gc-threshold) deletes a
        finished pod: while it holds the finalizer it only gets a deletionTimestamp."""
        pod = s.objects[r]
        require(r in PODS and pod is not None and pod.phase is not Phase.RUNNING
                and not pod.deleting)
        s._delete(r)

    # ------------------------------------------------------------ properties
    @invariant
    def each_pod_counted_at_most_once(s):
        """No finished pod enters status.succeeded/failed twice."""
        return all(n <= 1 for n in s.tally.values())

    @invariant
    def no_finished_pod_lost(s):
        """A pod that is gone while its Job runs was counted, or is in the uncounted lists
        (a finished Job's counters are final: a pod it never saw is not counted)."""
        job = s.objects[Ref.JOB]
        return job is None or job.finished or all(
            s.objects[p] is not None or s.creates[p] == 0 or s.tally[p] > 0
            or p in job.uncounted_ok | job.uncounted_failed for p in PODS)

    @invariant
    def at_most_parallelism_running(s):
        """Never more pods running than parallelism."""
        return sum(1 for p in PODS if s.objects[p] is not None
                   and s.objects[p].phase is Phase.RUNNING) <= PARALLELISM

    @invariant
    def pool_large_enough(s):
        """Two generated names suffice for the faults of the model (else it is too small)."""
        return not s.out_of_names

    @leads_to
    def job_finishes(s):
        """A live Job is eventually Complete or Failed."""
        job = s.objects[Ref.JOB]
        return job is not None and not job.finished, job is None or job.finished

    @leads_to
    def no_orphans(s):
        """Once the Job is gone, its pods are eventually gone: none keeps the finalizer."""
        return s.gone(Ref.JOB), s.all_gone(PODS)

    @leads_to
    def finished_job_releases_its_pods(s):
        """Once the Job is finished, eventually no pod holds the tracking finalizer."""
        job = s.objects[Ref.JOB]
        return (job is not None and job.finished,
                all(s.objects[p] is None or not s.objects[p].finalizer for p in PODS))
