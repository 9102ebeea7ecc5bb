"""The KubeRay RayJob controller, Kubernetes, the submitter, Ray, and every fault.

A model of KubeRay `6bf05eb17a3e` and Ray `3f785c0711b9`. The behaviour it follows is in
docs/kuberay.md (cited as §n; C: = rayjob_controller.go, J: = common/job.go, D: = the
dashboard client, U: = utils/util.go, with links to the source), what a real Ray showed in
docs/ray-observed.md (OBS), the simplifications S1-S15 in docs/design.md. One module per
actor:

    types.py        enums and records (RayJob status, job records, pods, ...)
    state.py        every variable, the constants, the informer cache and shared helpers
    operator.py     RayJobReconciler.Reconcile, one action per API-server or dashboard call
    apiserver.py    what an applied write does; garbage collection; the history ghosts
    cache.py        the informer cache catching up, and the `stale` fault (checker/kubernetes's)
    submitter.py    the K8s Job controller and the submitter pod's shell script
    sidecar.py      SidecarMode: the submitter container of the head pod
    deletion.py     deletionStrategy: the rules and the legacy onSuccess/onFailure policies
    interactive.py  InteractiveMode: Waiting, the user setting spec.jobId and submitting
    raycluster.py   the RayCluster controller bringing the head up; head restarts
    rayhead.py      Ray's Jobs API: put-if-absent submit, stop, lazy recovery
    program.py      the user's entrypoint: one external side effect, then exit
    environment.py  operator faults (checker/kubernetes's), the user, the abstract clock
    failover.py     a leader-election failover (checker/kubernetes's): a paused ex-leader
                    resuming its reconcile
    properties.py   the claims of issue 3 as invariants, and witnesses
    liveness.py     the claims of issue 6 (fair progress), checked by RayJobLive
    spec.py         RayJob: all of the above in one class
    proofs/         proof aids apart from the claims: lemmas that make them inductive (PDR)
    mutants.py      small subclasses reproducing real bugs

How a RayJob recovers from failures
-----------------------------------
The operator keeps nothing between reconciles: each one reads the RayJob from its informer
cache, decides from the persisted `status.jobDeploymentStatus`, makes at most a few calls,
and writes the status back with the resourceVersion it read (409 if anything wrote
meanwhile). So a crash, a lost response or a stale read is recovered by the next reconcile
recomputing from what is persisted, provided every side effect is keyed by persisted data:

* New adds the finalizer, then persists a fresh `rayClusterName` and `jobId` (random
  suffixes) together with Initializing *before* anything is created (PR #1737). A reconcile
  that read a stale New draws other names, but its status write gets 409.
* Initializing creates the RayCluster under the persisted name (a repeat gets
  AlreadyExists), waits until it is Ready, records the dashboard URL and creates the
  submitter Job named after the RayJob, with the URL and jobId frozen into its env. Any Job
  of that name counts as created. Then Running is persisted.
* The submitter pod runs `ray job status || ray job submit --submission-id $ID; ray job logs
  --follow`; K8s retries it up to `submitterConfig.backoffLimit` times. Ray's submit is an
  atomic put-if-absent on the id, so retries never start a second driver *in the same GCS*.
  A head restart without GCS fault tolerance empties the GCS: the retried pod (or HTTPMode's
  404 -> SubmitJob) then submits the same id again and the program runs twice.
* SidecarMode (§3.6) builds the submitter into the head pod instead, with the jobId
  frozen in; once the RayCluster is provisioned the head pod is never re-created
  (restartPolicy Never and `ray.io/disable-provisioned-head-restart`), so a lost head
  cannot re-run the driver: Running finds no head pod, fails with AppFailed, and
  retries. Before that a lost head is re-created and its container submits the same id
  again. The container waits only for the GCS, not for the workers, and its exit (0
  included) makes the head pod NotReady: a job that ends before the last pod is Ready
  leaves a RayCluster that is never Ready and a RayJob in Initializing for ever.
  Without the SidecarSubmitterRestart gate the container submits with no status
  pre-check and is never restarted: one transient failure fails the RayJob.
* InteractiveMode (§3.7) names no jobId: Initializing goes to Waiting, which copies
  `spec.jobId` once the user set it (no suspend check there), and Running waits for the
  user's own submission. No retries (validation); a resume needs a new submission.
* Running polls GetJobInfo and mirrors Ray's status. In K8sJobMode a terminal Ray status
  counts only once the submitter Job finished; a 404 after the submitter finished, or a
  submitter finished 30 s ago, is a failure (the 30 s check runs before GetJobInfo and
  ignores Ray's answer and the phase: it writes jobStatus FAILED even over the
  SubmissionFailed of a failed Job, so a later deletion skips StopJob while Ray runs).
  A dashboard error starts a 300 s
  timeout that only a successful GetJobInfo (or HTTPMode SubmitJob) clears: a 404 does not.
* A failure is retried (Retrying) while `failed < backoffLimit + 1`, except
  DeadlineExceeded and JobStatusCheckTimeoutExceeded. Retrying deletes the RayCluster and
  the Job, waits until the cache says NotFound for both (not for their pods: deletion is in
  the background), clears the identity and goes back to New: a new attempt with new names.
* Suspending does the same and stops in Suspended; resuming goes through New again.
* Complete/Failed delete only the RayCluster, after `endTime + ttlSecondsAfterFinished`;
  the RayJob and the submitter Job stay unless DELETE_RAYJOB_CR_AFTER_JOB_FINISHES is set.
  With deletion rules (§8.1) each matching rule acts after its own TTL, the most
  destructive overdue one per reconcile; the legacy onSuccess/onFailure policies (§8.2)
  act only for a jobStatus SUCCEEDED or FAILED, so a deadline in Initializing deletes
  nothing.
* Two replicas: leader election lets one reconcile at a time, but a leader paused past its
  Lease (fault `leader_failover`, failover.py) resumes the reconcile it was in, with the
  RayJob it had read, before it learns it lost the Lease. Its status and finalizer
  updates get 409; its creates (decided by name), deletes and dashboard calls go through:
  it re-creates a RayCluster the new leader cleaned up, submits a second time, and after
  a retry creates the old attempt's Job beside the new one. Its reads go to the shared
  cache, so the failover models keep it current (L = 0).
* Deleting the RayJob calls StopJob (errors only logged) unless the persisted jobStatus is
  terminal, removes the finalizer, and leaves the children to the garbage collector.
* With GCS fault tolerance (Redis) a RayCluster is NotFound only once its head pod is gone
  and its records are wiped (the RayCluster controller's clean-up finalizer). The
  dashboard URL names the RayCluster's head Service: a head that outlives its CR is
  reachable by no call (its driver still runs).

Abstractions and simplifications (each keeps the verdicts of the properties)
---------------------------------------------------------------------------
* Atomic steps: one action per external call (reference §13.3), the local computation
  after it included; cache reads are folded into the step that uses them. Reads have no
  effect of their own, and what a delayed read can see is what the stale cache models.
* resourceVersions are not numbers: every RayJob write by another actor marks the
  operator's copy stale (`m_fresh`), which is exactly what the 409 comparison decides.
* Informer cache (state.py, cache.py): per object kind a read returns any version not
  older than the last one the operator observed and at most L changes behind the API
  server (L = 0, 1, 2), which is what a lagging informer can return; after a restart
  the cache is current. Each bound is exact, not an over-approximation of a longer lag:
  with L = 1 a Job created and then completed reads Active at worst, with L = 2 it may
  still read NotFound. The stale-cache verdicts are for the L of their model; L = 2
  (`ops_all_lag2_F2`) moves none of `ops_all_F2`'s, nor of seven other stale-cache
  models' (docs/design.md).
* Time is an abstract clock of deadlines: `tick(r)` fires every armed deadline of duration
  <= r, so deadlines with a common start fire in order (30 s before 300 s). Time passes
  while the operator is down or idle after a reconcile that changed nothing and saw every
  change. With `late_reconcile` it also passes whenever no reconcile runs, a reconcile
  being owed or not: one worker by default, back-off after errors and slow dashboard
  calls can hold a RayJob in the queue past a deadline, which is no fault. Without it
  (the default of most models, to isolate what faults do) 30 s never pass between an
  event and the next reconcile. `stale_spans_time = false` says an informer lag never
  lasts 30 s.
* Identifiers are drawn "lowest unused" from pools of four, where unused means that no
  object, cache view, status, Ray record or ghost names it any more: names are random and
  only their equality is observable, so a forgotten name is as good as a fresh one (a
  symmetry reduction that keeps the pools finite for any number of attempts). When
  every name is taken, lingering heads nothing can reach any more are deleted first (as
  the garbage collector may at any time; claim 5b records the overlap);
  `s_model_bounds` checks that the pools were large enough.
  The pools (`ClusterId`, and `DRAWN_JOB_IDS`: the user's `spec.jobId` stays apart) are
  interchangeable for a model's `[check] symmetry` on the focused models (check-model's
  swap test passes on every state of `rayjob`, `suspend_F2`, which declares them, and
  `suspend_stale_F2`), not on `slow/suspend_stale_F3`, whose orbit count depends on the
  state of each orbit expanded: an unused name keeps its `cl_attempt` ghost, and the
  lowest-unused rule then tells apart names that differ only in that dead ghost
  (README, Symmetry). Symmetry finds few further orbits where it holds.
* RayCluster status Ready (raycluster.py): in SidecarMode from the first time every pod
  was Ready, never reset; elsewhere iff its head serves (S4: nothing there tells the two
  apart, the probe of tests/test_rayjob_pods.py checks it): the operator reads nothing
  else of it. Deleting a CR is immediate; its pods linger until `gc_cluster_pods`, which is what
  claim 5 is about, except with GCS fault tolerance, whose Redis clean-up finalizer takes
  the head and its records first (`_cr_deleted`: the wait is folded into the deletion;
  while it lasts the CR counts as not deleted for the RayJob controller anyway). A cluster re-created under a
  lingering name takes over the old pods with an empty GCS (S11; only hand deletion
  re-creates a name, and it refutes the claims anyway).
* The Job controller creates the first pod with the Job (S12): a slow pod start is the
  same as a late first step. The health-wait loop is the guard "head serving" of
  `ray job status` (S6): it only waits. At most one pod of a deleted Job lingers (S5): a
  second needs a second Job deletion within the first's termination.
* Drivers run on the head, so a head restart kills them, unless `driver_on_worker`
  (`entrypoint_num_cpus` or other entrypoint resources: Ray then schedules the supervisor
  on any node, §12.7, and KubeRay's recommended head has no CPUs). Then a head restart
  leaves the driver running: with GCS fault tolerance its worker reconnects and the
  record stays supervised (the job ends normally); without, no record shows it any more
  (`stray`) while the retried submitter starts the same id again in the new GCS, so two
  drivers of one attempt run at once (claim 3b) until the stray ends (its program exits,
  or its raylet gives up reaching a GCS). A stray is not tied to a cluster: it may
  outlive its cluster's deletion (it may flag, never hide).
* Ray: the supervisor starts with the record (S14; the crash window inside submit is a
  Ray bug of its own, ray #62766, and put-if-absent still decides every duplicate); a stop
  is atomic (S15; an effect racing the SIGTERM could only add refutations of claim 11,
  already refuted). Ray 2.60 fails an orphaned RUNNING record lazily, on the next
  agent-routed call (`lazy_ft_recovery`); the pinned Ray's monitor does it at once (both
  modelled). A stranded PENDING record is failed only by the start timeout (15 min, at
  any time in the abstract clock), as `check-model conform ray` showed (rayhead.py).
* The head Service is read without staleness (S2): no decision but "create or repoint"
  depends on it; its writes are crash points. The same for the head pod and its
  submitter container's status (SidecarMode): read current, like the Service.
* SidecarMode: a failed submitter container restarts at once (with the gate): the
  CrashLoopBackOff wait, during which the container is not `terminated`, is folded
  into the restart. The restart limit is KubeRay's fixed 2 (`submitterConfig` is
  rejected in SidecarMode); models use `sub_backoff_limit = 2`.
* The constants are valid KubeRay specs (S1): only a user's edit (`user_edit`) makes the
  spec invalid, and ValidationFailed is then absorbing (§3.8). Building the dashboard
  client never fails (S8).
* One fault budget F counts faults and user interventions together, so a counterexample
  found with budget F uses the fewest of them.
* Attempts: an attempt begins when New -> Initializing is applied; a resume from Suspended
  begins a new one too (it draws a new identity), so "per attempt" means per incarnation.
  `retries` counts Retrying -> New only. Per-attempt ghosts are relative (`Age`: the
  current attempt, the previous one, and all older ones together, their counts folded by
  max), so they stay finite for every backoffLimit: an over-approximation that can only
  flag a violation the exact history would not.

Left out, and why the verdicts do not depend on it: clusterSelector mode (no creates or
deletes: nothing for the at-most-once claims to check), batch schedulers (hooks around
the same steps).
"""
