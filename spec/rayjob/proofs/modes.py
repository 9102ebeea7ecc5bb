"""Lemmas of the submission modes that have their own objects: SidecarMode's submitter
containers (models/rayjob/proofs/slow/*_sidecar.toml).

In every other mode they are trivially true (the mode is a constant: no formula is built
for them there); every bounded model checks them.
"""
from checker import invariant

from ..state import RayJobState
from ..types import ClusterId, Head, Mode


class ModeLemmas(RayJobState):
    @invariant
    def lemma_sidecar_lives_in_its_head(s):
        """SidecarMode: a head pod runs its submitter container from the create that built
        it (C:1026-1038) until the pod stops, which takes the container with it: the
        operator's submitter check always finds one in a head it found."""
        if s.mode is not Mode.SIDECAR:
            return True
        return all((s.head[c] is Head.NONE) == (s.sidecar[c] is None) for c in ClusterId)
