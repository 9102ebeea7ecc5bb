"""The legacy onSuccess/onFailure deletion policies (spec/rayjob/deletion.py): KubeRay
picks the policy by the persisted jobStatus, so a RayJob that fails with any other
jobStatus (a deadline in Initializing leaves it New) keeps its RayCluster for ever."""
from __future__ import annotations

import pytest

from checker.explicit.explorer import ExplicitEngine
from checker.explicit.machine import Machine
from checker.model import load_model
from checker.results import Verdict
from spec.rayjob.spec import RayJobLive
from spec.rayjob.types import Legacy
from test_rayjob import model_path, prop


class LegacyByPhase(RayJobLive):
    """Probe: the policy picked by the phase (onSuccess for Complete, onFailure for
    Failed), as a user reads the fields, whatever the jobStatus."""

    def _legacy_selects_policy(s) -> bool:
        return True


def l3(spec_cls, name, **changes):
    model = load_model(model_path(name))
    machine = Machine(spec_cls, {**model.constants, **changes}, model.groups)
    result = ExplicitEngine(machine, model.options).check()
    assert not result.stopped
    return prop(result, "l3_cluster_deleted_after_ttl")


@pytest.mark.parametrize("spec_cls,verdict,length", [(RayJobLive, Verdict.VIOLATED, 13),
                                                     (LegacyByPhase, Verdict.HOLDS, None)])
def test_a_deadline_in_initializing_selects_no_legacy_policy(spec_cls, verdict, length):
    """The deadline fails the RayJob with jobStatus New: KubeRay returns {} and the
    RayCluster stays (a 13-step lasso); picked by the phase, it would be deleted."""
    p = l3(spec_cls, "live_legacy_deadline_F0")
    assert p.verdict is verdict
    assert (len(p.trace.steps) - 1 if p.trace else None) == length


@pytest.mark.parametrize("policy", [Legacy.DELETE_CLUSTER, Legacy.DELETE_SELF])
def test_without_a_deadline_every_legacy_policy_cleans_up(policy):
    """Every finished RayJob's jobStatus is SUCCEEDED or FAILED there: l3 holds."""
    assert l3(RayJobLive, "live_legacy_F0", legacy_policy=policy).verdict is Verdict.HOLDS
