"""Pod readiness and the RayCluster's Ready (spec/rayjob/raycluster.py): in SidecarMode a
submitter container that exits before the last pod is Ready keeps the RayCluster from
ever being Ready; outside it, Ready is folded into the head serving (S4)."""
from __future__ import annotations

import pytest

from checker.explicit.explorer import ExplicitEngine
from checker.explicit.machine import Machine
from checker.model import load_model
from checker.results import Verdict
from spec.rayjob.spec import RayJob, RayJobLive
from test_rayjob import model_path, prop, verdicts


class PodsReadyEverywhere(RayJob):
    """Probe: Ready is a step of its own in every mode (`pods_ready`), and never reset,
    as in Go; the spec folds it into the head serving outside SidecarMode."""

    def _provisioning_split(s) -> bool:
        return True


class PodsReadyEverywhereLive(PodsReadyEverywhere, RayJobLive):
    """The probe with the liveness claims."""


def check_with(spec_cls, name: str):
    model = load_model(model_path(name))
    machine = Machine(spec_cls, model.constants, model.groups)
    return ExplicitEngine(machine, model.options).check()


@pytest.mark.parametrize("name", ["happy_F0", "head_noft_F1", "head_ft_F1", "http_head_F1",
                                  "interactive_head_F1", "outage_F1", "live_head_noft_F1",
                                  "live_http_head_ft_F1", "live_interactive_F0"])
def test_folding_ready_into_the_head_serving_moves_no_verdict(name):
    """Outside SidecarMode nothing tells a serving head from a Ready cluster, nor a Ready
    kept over a head restart from one reset: the probe's verdicts are the spec's."""
    faithful = load_model(model_path(name))
    probe = PodsReadyEverywhereLive if faithful.spec_cls is RayJobLive else PodsReadyEverywhere
    folded, split = check_with(faithful.spec_cls, name), check_with(probe, name)
    assert not folded.stopped and not split.stopped
    assert split.stats.distinct_states != folded.stats.distinct_states   # the probe differs
    assert verdicts(split) == verdicts(folded)


@pytest.mark.parametrize("workers_lag,verdict", [(True, Verdict.VIOLATED), (False, Verdict.HOLDS)])
def test_a_sidecar_exit_before_the_cluster_is_ready_strands_the_rayjob(workers_lag, verdict):
    """No fault: a job that ends before the last pod is Ready leaves its RayJob in
    Initializing for ever (kuberay #4199, #4945); were the cluster Ready as soon as the
    head serves (the old S4 in SidecarMode), every RayJob would finish."""
    class ReadyWithTheHead(RayJobLive):
        def _provisioning_split(s) -> bool:
            return False
    spec_cls = RayJobLive if workers_lag else ReadyWithTheHead
    result = check_with(spec_cls, "live_sidecar_F0")
    assert prop(result, "l1_reaches_complete_or_failed").verdict is verdict
