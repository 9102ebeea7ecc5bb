"""The informer cache of the RayJob spec (issue 19, deviation 3): a read returns any
version not older than the last one the operator observed, at most L changes behind."""
from __future__ import annotations

import pytest

from checker import Ghost, invariant, reachable
from checker.explicit.explorer import ExplicitEngine
from checker.explicit.machine import Machine
from checker.model import load_model
from checker.options import CheckOptions
from checker.results import Verdict
from spec.rayjob.spec import RayJob
from spec.rayjob.types import CacheSt, JCond, JobView, Kind
from test_rayjob import check, model_path, prop


class JobReads(RayJob):
    """RayJob recording what the operator's reads of the submitter Job returned."""
    job_observed: Ghost[bool] = False        # a read returned the Job that exists now
    finished_read_absent: Ghost[bool] = False
    observed_read_absent: Ghost[bool] = False

    def _read(s, k):
        view = super()._read(k)
        if k is not Kind.JOB:
            return view
        if view is JobView.ABSENT and s.job is not None:
            s.finished_read_absent = s.finished_read_absent or s.job.cond is not JCond.NONE
            s.observed_read_absent = s.observed_read_absent or s.job_observed
        s.job_observed = s.job is not None and (s.job_observed or view is not JobView.ABSENT)
        return view

    def _apply_job_create(s, c, j):
        super()._apply_job_create(c, j)
        s.job_observed = False

    @reachable
    def w_finished_job_reads_not_found(s):
        """A Job created and finished since the last read still reads NotFound."""
        return s.finished_read_absent

    @invariant
    def never_older_than_observed(s):
        """A Job the operator has seen never reads NotFound again while it exists."""
        return not s.observed_read_absent


class ReadLeavesOldViews(RayJob):
    """A cache that may still withhold a version the operator has read."""
    def _read(s, k):
        if k is Kind.JOB and s.job_cache is CacheSt.FRESH:
            return s._job_view()
        return super()._read(k)


class ReadLeavesOldViewsProbed(JobReads, ReadLeavesOldViews):
    """ReadLeavesOldViews with JobReads' records."""


PROBES = ["w_finished_job_reads_not_found", "never_older_than_observed"]


def probe(spec_cls, lag: int):
    model = load_model(model_path("stale_F1"))
    machine = Machine(spec_cls, {**model.constants, "L": lag}, model.groups)
    result = ExplicitEngine(machine, CheckOptions(properties=PROBES)).check()
    assert not result.stopped
    return {p.name: p.verdict for p in result.properties}


@pytest.mark.parametrize("lag,found", [(1, Verdict.VIOLATED), (2, Verdict.HOLDS)])
def test_a_finished_job_reads_not_found_only_two_changes_behind(lag, found):
    """L = 1 was not an over-approximation: created then finished, the Job reads Active or
    current, never NotFound; with L = 2 it may read NotFound."""
    verdicts = probe(JobReads, lag)
    assert verdicts["w_finished_job_reads_not_found"] is found
    assert verdicts["never_older_than_observed"] is Verdict.HOLDS


def test_a_cache_withholding_an_observed_version_is_caught():
    assert probe(ReadLeavesOldViewsProbed, 2)["never_older_than_observed"] is Verdict.VIOLATED


def test_a_lag_of_two_moves_no_verdict_of_the_stale_cache_models():
    """Every fault group with two faults: the same verdicts at L = 1 and L = 2, more states."""
    (_, one), (_, two) = check("ops_all_F2"), check("ops_all_lag2_F2")
    assert load_model(model_path("ops_all_lag2_F2")).constants["L"] == 2
    assert {p.name: p.verdict for p in one.properties} == \
        {p.name: p.verdict for p in two.properties}
    assert one.stats.distinct_states < two.stats.distinct_states
