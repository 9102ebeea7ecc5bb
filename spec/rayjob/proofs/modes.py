"""Lemmas of the submission modes that have their own objects or lack K8sJobMode's:
SidecarMode's submitter containers, and the submitter Job SidecarMode and InteractiveMode
never create (models/rayjob/proofs/slow/*_sidecar*.toml, *_interactive*.toml).

In every other mode they are trivially true (the mode is a constant: no formula is built
for them there); every bounded model checks them.
"""
from checker import invariant

from ..state import RayJobState
from ..types import ClusterId, Head, Mode, PodSlot


class ModeLemmas(RayJobState):
    @invariant
    def lemma_sidecar_lives_in_its_head(s):
        """SidecarMode: a head pod runs its submitter container from the create that built
        it (C:1026-1038) until the pod stops, which takes the container with it: the
        operator's submitter check always finds one in a head it found."""
        if s.mode is not Mode.SIDECAR:
            return True
        return all((s.head[c] is Head.NONE) == (s.sidecar[c] is None) for c in ClusterId)

    @invariant
    def lemma_no_submitter_job_in_sidecar_or_interactive_mode(s):
        """SidecarMode and InteractiveMode create no submitter Job (createK8sJobIfNeed is
        K8sJobMode's), so no submitter pod runs either, lingering or not."""
        return s.mode not in (Mode.SIDECAR, Mode.INTERACTIVE) or (
            s.job is None and all(s.pods[p] is None for p in PodSlot))
