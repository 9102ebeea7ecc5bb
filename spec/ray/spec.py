"""RaySide: one Ray head, its Jobs API and the user's program, driven by a client."""
from checker import initial

from spec.rayjob.program import UserProgram
from spec.rayjob.raycluster import RayClusterCtl
from spec.rayjob.rayhead import RayHead
from spec.rayjob.state import RayJobState
from spec.rayjob.submitter import Submitter
from spec.rayjob.types import Head, Outcome

from .client import CLUSTER, RayClient


class RaySide(RayClient, Submitter, RayClusterCtl, RayHead, UserProgram):
    """The RayJob spec's Ray actors, unchanged, with a client instead of the operator.

    `RayClient` comes first so that its `_pod_exit` (no K8s Job) replaces the Job
    controller's. Head restarts are the `head_restart` fault group (budget F).
    """

    @initial
    def init(s):
        """The head of `CLUSTER` serves and holds no job; the program may end either way."""
        RayJobState.init(s)
        s._set_cluster(CLUSTER, True, Head.SERVING)


CONSTANTS = {"program": Outcome.EITHER, "F": 1}
GROUPS = {"head_restart": True,
          "ray_monitor": False}     # the start timeout (15 min) is out of a test run's reach
