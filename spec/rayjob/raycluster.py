"""The RayCluster controller and the head pod: the head comes up, and may restart.

Fairness: RayClusterReconciler bringing a head up is weakly fair; a restart is a fault.
"""
from checker import action, fault, require

from .state import RayJobState
from .types import ClusterId, Head, Mode


class RayClusterCtl(RayJobState):
    @action(group="raycluster", fair="weak")
    def cluster_ready(s, c: ClusterId):
        """Models the RayCluster controller bringing the head up (GCS, dashboard, agent):
        the CR's status becomes Ready (S4: Ready iff the head serves)."""
        require(s.cl_cr[c] and s.head[c] is Head.STARTING)
        s._event()
        s._set_cluster(c, True, Head.SERVING)

    @fault(group="head_restart")
    def head_restart(s, c: ClusterId):
        """A head pod / GCS restart (§12.7, OBS rows 5-6): job records are lost unless GCS
        fault tolerance is on; running drivers die; the controller re-creates the head.
        In SidecarMode the head pod's restartPolicy is Never: the RayCluster controller
        deletes the pod (`shouldDeletePod`) and, the cluster being provisioned, never
        re-creates it (`ray.io/disable-provisioned-head-restart`, §3.6). Worker pods stay:
        a driver on a worker (`driver_on_worker`) outlives the restart."""
        require(s.budget > 0 and s.head[c] is Head.SERVING)
        s._fault()
        s._head_stops(c, keep_records=s.gcs_ft, workers_stay=True)
        s._head_after_restart(c)

    def _head_after_restart(s, c: ClusterId):
        """The head comes back (a new Ray container or pod), except in SidecarMode, where
        the RayCluster keeps its Ready state with no head (`state` is never reset)."""
        if s.mode is Mode.SIDECAR:
            s.head_lost[c] = True
            s._set_cluster(c, s.cl_cr[c], Head.NONE)
        else:
            s._set_cluster(c, s.cl_cr[c], Head.STARTING)
