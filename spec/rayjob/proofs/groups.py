"""The fault groups the lemma classes' settings name, declared once: a lemma that holds
only where no one deletes the RayCluster by hand, say, reads `s.hand_deletes_cluster`,
a constant of the model (`GroupOn`)."""
from checker import GroupOn

from ..state import RayJobState


class ProofGroups(RayJobState):
    hand_deletes_cluster = GroupOn("user_delete_cluster")
    hand_deletes_job = GroupOn("user_delete_job")
    head_restarts = GroupOn("head_restart")
    heads_restart_unprovisioned = GroupOn("head_restart_early")
