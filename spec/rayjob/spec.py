"""The RayJob spec: every actor's actions in one class (see the package docstring)."""
from .apiserver import ApiServer
from .cache import InformerCache
from .deletion import DeletionRules
from .environment import Environment
from .failover import Failover
from .interactive import InteractiveMode
from .liveness import Liveness
from .operator import Operator
from .program import UserProgram
from .properties import Properties
from .raycluster import RayClusterCtl
from .rayhead import RayHead
from .sidecar import SidecarSubmitter
from .submitter import Submitter


class RayJob(Operator, DeletionRules, ApiServer, InformerCache, Submitter, SidecarSubmitter,
             InteractiveMode, RayClusterCtl, RayHead, UserProgram, Environment, Failover,
             Properties):
    """KubeRay's RayJob controller with Kubernetes, the submitter, Ray and the faults."""


class RayJobLive(RayJob, Liveness):
    """RayJob with the liveness claims (spec/rayjob/liveness.py), for the live_* models."""
