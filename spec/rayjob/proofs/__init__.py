"""Proof aids for the RayJob spec: lemmas, apart from the claims.

A lemma is an invariant that is no claim about KubeRay: a fact about the operator's
memory, the API server or the ghosts that makes the claims inductive, so that PDR proves
them for every backoffLimit (checker/symbolic/pdr.py takes every invariant of the spec it
is given as a Houdini candidate). The spec (`spec.rayjob.spec:RayJob`) has only the
claims; a proof model names one of the classes below as its spec, and so the lemma set
it uses:

    groups.py     ProofGroups: the fault groups the settings below name, declared once
    lemmas.py     Lemmas: the operator's memory, the status counters, the ghosts
                  (models/rayjob/proofs/slow/faults*.toml)
    modes.py      ModeLemmas: SidecarMode's submitter containers (every proof spec)
    at_most_once.py
                  AtMostOnceLemmas: the cluster and the Job an attempt created stay
                  while it is in flight, with faults but no hand deletion, for claims
                  1b and 2b (models/rayjob/proofs/slow/at_most_once*.toml)
    driver_once.py
                  DriverOnceLemmas: once a driver started on the attempt's cluster, its
                  record stays while the cluster does, with faults but records kept over
                  head restarts, for claim 3 (models/rayjob/proofs/slow/driver_once*.toml)
    stale.py      StaleLemmas: the RayJob versions a lagging cache may still return, for
                  the proofs with stale caches (models/rayjob/proofs/slow/faults_stale*.toml,
                  one_name_stale*.toml, with L = 2 the *_lag2.toml);
                  StaleAtMostOnceLemmas: the at-most-once lemmas with a lagging cache,
                  for claims 1b and 2b (at_most_once_stale*.toml);
                  StaleDriverOnceLemmas: claim 3's, said of every cluster name, since a
                  stale read may leave another attempt's RayCluster behind
                  (driver_once_stale*.toml)
    sidecar_once.py
                  SidecarOnceLemmas: SidecarMode's one submitter per cluster name and its
                  one record, for claims 3 and 12 with faults there, GCS fault tolerance
                  and stale caches included
                  (models/rayjob/proofs/slow/driver_once_sidecar*.toml,
                  submit_once_sidecar*.toml)
    interactive_once.py
                  InteractiveOnceLemmas: InteractiveMode's one user submit per cluster
                  name and its one record, for claims 3 and 12 with faults there, GCS
                  fault tolerance and stale caches included
                  (models/rayjob/proofs/slow/driver_once_interactive*.toml,
                  submit_once_interactive*.toml)
    no_faults.py  NoFaultLemmas: the attempts, the submitter and the Ray records when
                  nothing fails, for claim 7 and the at-most-once claims
                  (models/rayjob/proofs/no_faults.toml, slow/no_faults_http.toml)
    no_faults_modes.py
                  NoFaultModeLemmas: the same for SidecarMode's container, the operator's
                  timers and memory (slow/no_faults_sidecar.toml; with NoFaultLemmas)

tests/test_rayjob.py checks every lemma on every bounded model of models/rayjob/ (they
hold in all of them) and on random states (none raises).
"""
from checker import constraint

from ..spec import RayJob
from ..state import RayJobState
from .at_most_once import AtMostOnceLemmas
from .driver_once import DriverOnceLemmas
from .interactive_once import InteractiveOnceLemmas
from .lemmas import Lemmas
from .modes import ModeLemmas
from .no_faults import NoFaultLemmas
from .no_faults_modes import NoFaultModeLemmas
from .sidecar_once import SidecarOnceLemmas
from .stale import StaleAtMostOnceLemmas, StaleDriverOnceLemmas, StaleLemmas


class RayJobProof(RayJob, Lemmas, ModeLemmas):
    """RayJob with the lemmas of lemmas.py and modes.py (the proofs with faults)."""


class RayJobNoFaultProof(RayJobProof, NoFaultLemmas, NoFaultModeLemmas):
    """RayJobProof with the no-fault lemmas of no_faults.py and no_faults_modes.py too (the
    proofs of claim 7)."""


class RayJobAtMostOnceProof(RayJobProof, AtMostOnceLemmas):
    """RayJobProof with the lemmas of at_most_once.py too (claims 1b and 2b with faults)."""


class PoolsSuffice(RayJobState):
    """Over the runs whose pools of names suffice: once every name is taken, the spec
    reuses one still in use (`_draw`), which KubeRay's random names never do."""

    @constraint
    def pools_suffice(s):
        """`s_model_bounds`' pools: no name was drawn while in use."""
        return not s.id_overflow


class RayJobDriverOnceProof(RayJobAtMostOnceProof, DriverOnceLemmas, PoolsSuffice):
    """RayJobAtMostOnceProof with the lemmas of driver_once.py too (claim 3 with faults),
    over the runs whose pools of names suffice: past that, a lingering submitter pod of an
    earlier attempt may submit its own id to the reused name."""


class RayJobDriverOnceSidecarProof(RayJobDriverOnceProof, SidecarOnceLemmas):
    """RayJobDriverOnceProof with the lemmas of sidecar_once.py too (claims 3 and 12 with
    faults in SidecarMode)."""


class RayJobDriverOnceInteractiveProof(RayJobDriverOnceProof, InteractiveOnceLemmas):
    """RayJobDriverOnceProof with the lemmas of interactive_once.py too (claims 3 and 12
    with faults in InteractiveMode)."""


class RayJobStaleProof(RayJobProof, StaleLemmas):
    """RayJobProof with the lemmas of stale.py too (the proofs with stale caches)."""


class RayJobAtMostOnceStaleProof(RayJobProof, StaleAtMostOnceLemmas):
    """RayJobProof with the lemmas of at_most_once.py and stale.py too (claims 1b and 2b
    with stale caches)."""


class RayJobDriverOnceStaleProof(RayJobProof, StaleDriverOnceLemmas, PoolsSuffice):
    """RayJobProof with the lemmas of driver_once.py and stale.py too (claim 3 with stale
    caches), over the runs whose pools of names suffice."""


class RayJobDriverOnceSidecarStaleProof(RayJobDriverOnceStaleProof, SidecarOnceLemmas):
    """RayJobDriverOnceStaleProof with the lemmas of sidecar_once.py too (claims 3 and 12
    with stale caches in SidecarMode)."""


class RayJobDriverOnceInteractiveStaleProof(RayJobDriverOnceStaleProof, InteractiveOnceLemmas):
    """RayJobDriverOnceStaleProof with the lemmas of interactive_once.py too (claims 3 and
    12 with stale caches in InteractiveMode)."""


class RayJobOneNameStaleProof(RayJobStaleProof, PoolsSuffice):
    """RayJobStaleProof over the runs whose pools of names suffice (claim 1a with stale
    caches): a stale read of New draws a name in any phase (its status write then 409s),
    and when every name is taken the draw takes one still in use and resets its ghost,
    which may be the attempt's own name."""
