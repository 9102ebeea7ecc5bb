"""Enumerations and records shared by every actor of the RayJob spec.

Names follow the KubeRay API (`rayjob_types.go`, T:17-87) where the value is a KubeRay
one, so a trace reads like `kubectl get rayjob -o yaml`.
"""
from typing import NamedTuple

from checker import Const, Enum, Int, Option

from checker.kubernetes import CacheSt   # an object's informer cache: SYNC, FRESH, BEHIND


class Mode(Enum):
    """spec.submissionMode (T:82-87)."""
    K8S = "K8sJobMode"
    HTTP = "HTTPMode"
    SIDECAR = "SidecarMode"
    INTERACTIVE = "InteractiveMode"


SUBMITTER_MODES = frozenset({Mode.K8S, Mode.SIDECAR})    # a submitter reports back (C:279)


class Phase(Enum):
    """status.jobDeploymentStatus (T:48-59)."""
    NEW = "New"
    INITIALIZING = "Initializing"
    RUNNING = "Running"
    COMPLETE = "Complete"
    FAILED = "Failed"
    SUSPENDING = "Suspending"
    SUSPENDED = "Suspended"
    RETRYING = "Retrying"
    WAITING = "Waiting"
    VALIDATION_FAILED = "ValidationFailed"


class JStat(Enum):
    """status.jobStatus, Ray's job status mirrored into the RayJob (T:17-24)."""
    NEW = "New"
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    STOPPED = "STOPPED"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"


TERMINAL = frozenset({JStat.STOPPED, JStat.SUCCEEDED, JStat.FAILED})   # IsJobTerminal, T:36-43


class Reason(Enum):
    """status.reason (T:70-78)."""
    NONE = "None"
    SUBMISSION_FAILED = "SubmissionFailed"
    DEADLINE = "DeadlineExceeded"
    APP_FAILED = "AppFailed"
    GRACE = "JobDeploymentStatusTransitionGracePeriodExceeded"
    CHK_TIMEOUT = "JobStatusCheckTimeoutExceeded"
    PRE_RUNNING = "PreRunningDeadlineExceeded"
    VALIDATION = "ValidationFailed"


NOT_RETRIED = frozenset({Reason.DEADLINE, Reason.CHK_TIMEOUT})    # C:543-552


class ClStat(Enum):
    """status.rayClusterStatus as far as it matters: empty, not ready, ready."""
    NONE = "Empty"
    NOT_READY = "NotReady"
    READY = "Ready"


class ClusterId(Enum):
    """RayCluster names `<rayjob>-<rand5>`: a pool of fresh suffixes (only equality matters)."""
    C0 = "rayjob-c0"
    C1 = "rayjob-c1"
    C2 = "rayjob-c2"
    C3 = "rayjob-c3"


class JobId(Enum):
    """Submission ids `<rayjob>-<rand5>` (J*) or the user's spec.jobId (JS)."""
    J0 = "rayjob-j0"
    J1 = "rayjob-j1"
    J2 = "rayjob-j2"
    J3 = "rayjob-j3"
    JS = "spec-job-id"


DRAWN_JOB_IDS = (JobId.J0, JobId.J1, JobId.J2, JobId.J3)   # the pool GenerateRayJobId draws from


class Rec(Enum):
    """A Ray job record in one cluster's GCS (job_manager.py, common.py).

    RUNNING: the driver runs, no side effect yet; WROTE: the side effect is written and
    the driver still runs; ORPHAN: a RUNNING record whose supervisor died in a head
    restart with GCS fault tolerance (GET still says RUNNING, OBS §4.6). STRANDED: the
    same for a PENDING record; TIMING_OUT: a stranded record a JobManager now monitors
    (both still PENDING; `check-model conform ray`, see rayhead.py).
    """
    NONE = "absent"
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    WROTE = "RUNNING(effect written)"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    STOPPED = "STOPPED"
    ORPHAN = "RUNNING(supervisor lost)"
    STRANDED = "PENDING(supervisor lost)"
    TIMING_OUT = "PENDING(start timeout running)"


class Stray(Enum):
    """A driver on a worker node that outlived a head restart without GCS fault tolerance:
    no GCS records it any more, so no call can see or stop it (several are merged: one
    that may still write its side effect counts)."""
    NONE = "none"
    RUNNING = "running, unrecorded"
    WROTE = "running, unrecorded (effect written)"


SUPERVISED_RECS = frozenset({Rec.PENDING, Rec.RUNNING, Rec.WROTE})     # a supervisor runs it
NONTERMINAL_RECS = SUPERVISED_RECS | {Rec.ORPHAN, Rec.STRANDED, Rec.TIMING_OUT}
REC_STATUS = {Rec.PENDING: JStat.PENDING, Rec.STRANDED: JStat.PENDING,
              Rec.TIMING_OUT: JStat.PENDING, Rec.RUNNING: JStat.RUNNING,
              Rec.WROTE: JStat.RUNNING, Rec.ORPHAN: JStat.RUNNING, Rec.SUCCEEDED: JStat.SUCCEEDED,
              Rec.FAILED: JStat.FAILED, Rec.STOPPED: JStat.STOPPED}


class Head(Enum):
    """The head pod of a cluster name: none, starting (GCS not serving), serving."""
    NONE = "none"
    STARTING = "starting"
    SERVING = "serving"


class JCond(Enum):
    """The submitter Job's terminal condition (Complete=True / Failed=True)."""
    NONE = "none"
    COMPLETE = "Complete"
    FAILED = "Failed"


class SubPc(Enum):
    """Where a submitter pod is in its script (J:90-212)."""
    STATUS = "ray job status"
    SUBMIT = "ray job submit"
    FOLLOW = "ray job logs --follow"
    BROKEN = "follow: head went away"


class Exit(Enum):
    """A container's state: running, or terminated with exit code 0 or non-zero."""
    RUNNING = "running"
    OK = "terminated(0)"
    ERROR = "terminated(1)"


class PodSlot(Enum):
    """CUR: the pod of the live submitter Job; OLD: a pod of a deleted Job, still running."""
    CUR = "current"
    OLD = "lingering"


class Kind(Enum):
    """The kinds of which there is one object, its key in the library's hooks (a
    RayCluster, one of a pool of names, is keyed by its `ClusterId`)."""
    RAYJOB = "rayjob"
    JOB = "submitter job"
    SERVICE = "head service"           # no cache modelled: the operator reads it current


class CrView(Enum):
    """What the operator can see of a RayCluster: absent, not ready, ready."""
    ABSENT = "absent"
    NOT_READY = "NotReady"
    READY = "Ready"


CR_STATUS = {CrView.NOT_READY: ClStat.NOT_READY, CrView.READY: ClStat.READY}


class JobView(Enum):
    """What the operator can see of the submitter Job."""
    ABSENT = "absent"
    ACTIVE = "active"
    COMPLETE = "Complete"
    FAILED = "Failed"


class Timer(Enum):
    OFF = "off"
    ARMED = "armed"
    FIRED = "fired"


class Rank(Enum):
    """Durations, ordered: the abstract clock only knows which deadline comes first."""
    OFF = 0
    SHORT = 30         # DefaultSubmitterFinishedTimeout, C:37-41
    LONG = 300         # grace period and status-check timeout, K:284-290
    XLONG = 3600       # user durations (activeDeadlineSeconds, ttlSecondsAfterFinished)
    DAY = 86400        # a second, longer user duration (a later deletion rule)


class Pc(Enum):
    """The operator's next external call inside a reconcile (reference §13.3)."""
    IDLE = "idle"
    FIN_ADD = "Update(add finalizer)"
    STATUS_WRITE = "Status().Update"
    STOP_JOB = "StopJob"
    FIN_REMOVE = "Update(remove finalizer)"
    CREATE_CLUSTER = "Create(RayCluster)"
    CREATE_SVC = "Create(Service)"
    UPDATE_SVC = "Update(Service)"
    CREATE_JOB = "Create(Job)"
    GET_JOB_INFO = "GetJobInfo"
    SUBMIT_JOB = "SubmitJob"
    DELETE_CLUSTER = "Delete(RayCluster)"
    DELETE_JOB = "Delete(Job)"
    DELETE_RJ = "Delete(RayJob)"
    SUSPEND_WORKERS = "Update(RayCluster: suspend worker groups)"


WRITES = frozenset({Pc.FIN_ADD, Pc.STATUS_WRITE, Pc.FIN_REMOVE, Pc.CREATE_CLUSTER, Pc.CREATE_SVC,
                    Pc.UPDATE_SVC, Pc.CREATE_JOB, Pc.DELETE_CLUSTER, Pc.DELETE_JOB, Pc.DELETE_RJ,
                    Pc.SUSPEND_WORKERS})
DASHBOARD_CALLS = frozenset({Pc.GET_JOB_INFO, Pc.SUBMIT_JOB, Pc.STOP_JOB})


class Policy(Enum):
    """A deletion rule's policy (T: DeletionPolicyType); DeleteNone is a no-op, left out."""
    DELETE_WORKERS = "DeleteWorkers"
    DELETE_CLUSTER = "DeleteCluster"
    DELETE_SELF = "DeleteSelf"


IMPACT = {Policy.DELETE_WORKERS: 2, Policy.DELETE_CLUSTER: 3, Policy.DELETE_SELF: 4}  # C:1685


class Rule(NamedTuple):
    """A deletion rule: its policy, its condition (a jobStatus or a jobDeploymentStatus)
    and its ttlSeconds after endTime (Rank.OFF: 0 s)."""
    policy: Policy
    when: JStat | Phase
    ttl: Rank


class Rules(Enum):
    """spec.deletionStrategy.deletionRules, as a few rule sets (RULE_SETS, deletion.py)."""
    OFF = "no deletionStrategy"
    STAGED = "Complete or Failed: DeleteWorkers at 0 s, DeleteCluster at 1 h, DeleteSelf at 1 d"
    SELF_ON_FAILED = "jobStatus FAILED: DeleteSelf at 0 s; SUCCEEDED: DeleteCluster at 0 s"


class Legacy(Enum):
    """spec.deletionStrategy.onSuccess / onFailure (legacy), one policy for both: which
    one each names changes nothing the claims see."""
    OFF = "no legacy policy"
    DELETE_WORKERS = "onSuccess and onFailure: DeleteWorkers"
    DELETE_CLUSTER = "onSuccess and onFailure: DeleteCluster"
    DELETE_SELF = "onSuccess and onFailure: DeleteSelf"


LEGACY_POLICY = {Legacy.DELETE_WORKERS: Policy.DELETE_WORKERS,
                 Legacy.DELETE_CLUSTER: Policy.DELETE_CLUSTER,
                 Legacy.DELETE_SELF: Policy.DELETE_SELF}


class Result(Enum):
    """What a reconcile returned: `{}`, `RequeueAfter 3s`, an error (rate-limited retry)."""
    NONE = "none"
    WAIT = "{}"
    REQUEUE = "RequeueAfter"
    ERROR = "error"


class Outcome(Enum):
    """How the user's program ends after writing its side effect."""
    SUCCEED = "succeed"
    FAIL = "fail"
    EITHER = "either"


class Sink(Enum):
    """The external sink: appends every write, or deduplicates by a unique key."""
    APPEND = "append"
    IDEMPOTENT = "idempotent"


class ExitMode(Enum):
    """Exit code of `ray job logs --follow` when the head stops under it (OBS row 3)."""
    ZERO = "0"
    ONE = "1"
    EITHER = "0 or 1"


class RJHead(NamedTuple):
    """The RayJob's metadata, the spec fields a user may edit, and the status fields that
    decide the branch."""
    finalizer: bool
    deleting: bool
    suspend: bool
    phase: Phase
    job_status: JStat
    reason: Reason
    job_id_set: bool = False        # spec.jobId is set
    valid: bool = True              # the spec passes validateRayJob


BACKOFF_LIMIT = Const(1, "spec.backoffLimit (0: no retry)", min=0)


class Age(Enum):
    """An attempt, relative to the current one. Per-attempt ghosts keep the current, the
    previous and all older attempts together, so they stay finite however many attempts
    there are: an older attempt's count is folded into the largest of theirs, and a bump
    of any older one bumps that (an over-approximation: it may flag, never hide). Claims 3
    and 12 count per cluster name instead (`cl_driver_starts`, `cl_submit_calls`), which
    tells older attempts apart."""
    CUR = "current"
    PREV = "previous"
    OLD = "older"


OLDER = {Age.CUR: Age.PREV, Age.PREV: Age.OLD, Age.OLD: Age.OLD, None: None}


class RJBody(NamedTuple):
    """The rest of the RayJob status (dashboardURL names the head of `cluster`)."""
    job_id: Option[JobId]
    cluster: Option[ClusterId]
    dash: bool
    cl_status: ClStat
    chk_fail: bool          # jobStatusCheckFailureStartTime != nil
    ray_end: bool           # rayJobInfo.endTime != nil
    failed: Int[0, BACKOFF_LIMIT + 2]     # + 2: a mutant may retry once too often
    succeeded: Int[0, 1]


class Key(NamedTuple):
    """The status fields whose change makes `updateRayJobStatus` write (C:925-933)."""
    phase: Phase
    job_status: JStat
    cl_status: ClStat
    chk_fail: bool


class JobObj(NamedTuple):
    """The submitter Job; its env (dashboard address, submission id) is frozen at creation."""
    cond: JCond
    failures: Int[0, 3]
    target: ClusterId
    job_id: JobId


class SubPod(NamedTuple):
    pc: SubPc
    target: ClusterId
    job_id: JobId


SIDECAR_RESTART_LIMIT = 2     # C:1114: submitterConfig is rejected in SidecarMode (V:595-597)


class Sidecar(NamedTuple):
    """The submitter container of a head pod (SidecarMode): its script's step, the
    submission id frozen into it when the RayCluster was built, and its container status."""
    pc: SubPc
    job_id: JobId
    exit: Exit
    restarts: Int[0, SIDECAR_RESTART_LIMIT]      # restartCount, saturating at the limit


class KvKey(NamedTuple):
    """A job record: which cluster's GCS, which submission id."""
    c: ClusterId
    j: JobId


NEW_RJ = RJHead(False, False, False, Phase.NEW, JStat.NEW, Reason.NONE)
EMPTY = RJBody(None, None, False, ClStat.NONE, False, False, 0, 0)


def key(h: RJHead, b: RJBody) -> Key:
    return Key(h.phase, h.job_status, b.cl_status, b.chk_fail)
