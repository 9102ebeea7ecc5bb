"""The RayCluster controller and the pods: the head comes up, the cluster is provisioned,
the head may restart.

A RayCluster's `state` becomes Ready, and its condition RayClusterProvisioned True, the
first time `calculateStatus` finds every pod Running with PodReady (CheckAllPodsRunning,
raycluster_controller.go:2017-2022 and utils/util.go:587-606 at feeaf72fa); neither is
ever reset. The kubelet marks a pod NotReady as soon as one of its regular containers has
stopped, exit 0 included. So in SidecarMode, where the submitter is a container of the
head pod that waits only for the GCS on 127.0.0.1, a job that ends before the last worker
pod is ready leaves a head that serves but is never Ready again, and its RayJob in
Initializing (docs/kuberay.md §3.6). `pods_ready` is that first time; the workers' lag
behind the head (node scale-up, image pulls) is its delay after `head_serves`: nothing
else reads the worker pods.

Outside SidecarMode no container of the head pod stops while Ray serves, and nothing
happens between the head serving and the cluster being Ready that either could tell
apart (the submitter Job is created, and HTTPMode submits, only after Ready): the two are
one step there (S4), `head_serves`, and a head restart makes the cluster NotReady until
its head serves again, where Go keeps it Ready. The probe `PodsReadyEverywhere`
(tests/test_rayjob_pods.py) makes Ready a step of its own in every mode, never reset,
and gets the same verdicts.

Fairness: the RayCluster controller bringing a head up and seeing the pods ready are
weakly fair (a container that stopped disables the latter for good); a restart is a fault.
"""
from checker import action, fault, require

from .state import RayJobState
from .types import ClusterId, Exit, Head, Mode


class RayClusterCtl(RayJobState):
    @action(group="raycluster", fair="weak")
    def head_serves(s, c: ClusterId):
        """Models the head pod's Ray container coming up (GCS, dashboard, agent: its
        readiness probe passes); outside SidecarMode the CR's status becomes Ready with it
        (S4)."""
        require(s.cl_cr[c] and s.head[c] is Head.STARTING)
        s._event()
        s._set_cluster(c, True, Head.SERVING)

    @action(group="raycluster", fair="weak")
    def pods_ready(s, c: ClusterId):
        """Models calculateStatus (raycluster_controller.go:2017-2022, 2044-2062) finding
        every pod Running with PodReady for the first time: the worker pods, which may lag
        the head arbitrarily, and the head pod, Ready only while every container of it
        runs (a terminated submitter container, exit 0 included, makes it NotReady).
        State Ready and RayClusterProvisioned are set, never to be reset."""
        require(s._provisioning_split() and s.cl_cr[c] and not s.provisioned[c])
        require(s.head[c] is Head.SERVING and s._head_containers_run(c))
        s._event()
        old = s._cl_view(c)
        s.provisioned[c] = True
        s._cluster_view_moved(c, old)

    def _head_containers_run(s, c: ClusterId) -> bool:
        """Every regular container of c's head pod runs (PodReady needs it): the Ray
        container serves, and in SidecarMode the submitter container has not terminated
        (a restart with the SidecarSubmitterRestart gate is folded, sidecar.py)."""
        sc = s.sidecar[c]
        return s.mode is not Mode.SIDECAR or (sc is not None and sc.exit is Exit.RUNNING)

    @fault(group="head_restart")
    def head_restart(s, c: ClusterId):
        """A head pod / GCS restart (§12.7, OBS rows 5-6): job records are lost unless GCS
        fault tolerance is on; running drivers die; the controller re-creates the head.
        In SidecarMode the head pod's restartPolicy is Never: the RayCluster controller
        deletes the pod (`shouldDeletePod`) and, the cluster being provisioned, never
        re-creates it (`ray.io/disable-provisioned-head-restart`,
        raycluster_controller.go:1025-1041); a restart before that is
        `head_restart_unprovisioned`, a group of its own. Worker pods stay: a driver on a
        worker (`driver_on_worker`) outlives the restart."""
        require(s.budget > 0 and s.head[c] is Head.SERVING)
        require(s.mode is not Mode.SIDECAR or s.provisioned[c])
        s._restart_head(c)

    @fault(group="head_restart_early")
    def head_restart_unprovisioned(s, c: ClusterId):
        """SidecarMode: the head restarts before the RayCluster is provisioned (a slow
        worker is enough to be there): the RayCluster controller re-creates the head pod
        from the stored spec (raycluster_controller.go:1025-1055), whose submitter
        container carries the same frozen submission id and submits it again (to an
        empty GCS without fault tolerance). A group apart from `head_restart`, so that a
        model can keep this known re-run out and still check the other restarts."""
        require(s.budget > 0 and s.head[c] is Head.SERVING)
        require(s.mode is Mode.SIDECAR and not s.provisioned[c])
        s._restart_head(c)

    def _restart_head(s, c: ClusterId):
        s._fault()
        container = s.sidecar[c]
        s._head_stops(c, keep_records=s.gcs_ft, workers_stay=True)
        s._head_after_restart(c, container)

    def _head_after_restart(s, c: ClusterId, container):
        """The head comes back (a new Ray container or pod), except for a provisioned
        cluster in SidecarMode, which keeps its Ready state with no head. A re-created
        head pod in SidecarMode starts a new submitter container with the id frozen into
        the stored spec (`container`'s)."""
        if s.mode is Mode.SIDECAR and s.provisioned[c]:
            s._set_cluster(c, s.cl_cr[c], Head.NONE)
            return
        s._set_cluster(c, s.cl_cr[c], Head.STARTING)
        if s.mode is Mode.SIDECAR:
            s._sidecar_starts(c, container.job_id)
