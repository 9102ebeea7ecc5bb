"""The partitioned search with its workers as Ray actors, on a two-node Ray cluster started
on this machine: the same counts, verdicts, trace lengths and coverage as one process; a
lost actor leaves `unknown`; a spec's error is the user's one line."""
from __future__ import annotations

import pytest

import checker.explicit.explorer
from checker.errors import SpecError
from checker.explicit.machine import Machine
from checker.model import load_model
from checker.options import CheckOptions
from checker.results import Verdict
from conftest import ROOT
from test_parallel import Grid, Raises, WorkerDies, outcome, run

ray = pytest.importorskip("ray", reason="needs the ray extra: pip install -e '.[ray]'")
from ray.cluster_utils import Cluster  # noqa: E402  (only once ray is known to be there)

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def cluster():
    """A head and a second node, one CPU each: one worker per node. Without token
    authentication: a test cluster must not leave a token in ~/.ray for later ones."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_AUTH_MODE", "disabled")
        c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
        c.add_node(num_cpus=1)
        c.wait_for_nodes()
        yield c.address
        ray.shutdown()
        c.shutdown()


@pytest.fixture(autouse=True)
def parallel_from_the_first_level(monkeypatch):
    monkeypatch.setattr(checker.explicit.explorer, "PARALLEL_FROM", 1)


def on_ray(machine, options, address):
    return run(machine, CheckOptions(**{**options.__dict__, "ray": address}), 1)


@pytest.mark.parametrize("path", ["examples/models/twophase.toml", "models/rayjob.toml"])
def test_ray_workers_search_as_one_process_does(cluster, path):
    model = load_model(ROOT / path)
    machine = model.machine()
    one = run(machine, CheckOptions(**{**model.options.__dict__, "store": "fingerprint"}), 1)
    spread = on_ray(machine, model.options, cluster)
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    assert "2 Ray workers" in spread.method
    assert outcome(spread) == outcome(one)


def test_the_grid_on_ray(cluster):
    one = run(Machine(Grid), CheckOptions(store="fingerprint"), 1)
    assert outcome(on_ray(Machine(Grid), CheckOptions(), cluster)) == outcome(one)


def test_a_spec_error_on_a_ray_worker_is_the_usual_one_line(cluster):
    with pytest.raises(SpecError) as e:
        on_ray(Machine(Raises), CheckOptions(), cluster)
    assert "jump raised ZeroDivisionError: 9 / 4" in str(e.value)
    assert e.value.where.endswith(f"test_parallel.py:{Raises.jump.__code__.co_firstlineno + 3}")


def test_a_lost_ray_worker_leaves_unknown(cluster):
    result = on_ray(Machine(WorkerDies), CheckOptions(), cluster)
    assert "Ray worker" in result.stopped and "died" in result.stopped
    assert {p.verdict for p in result.properties} == {Verdict.UNKNOWN}
    assert not result.stats.complete
