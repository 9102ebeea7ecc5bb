"""The partitioned search on a Ray cluster: each worker a Ray actor.

The coordinator is the forked workers' (`checker.explicit.parallel.Partitioned`); only the
transport differs. An actor cannot be forked with the search as it stands, so it binds
the spec again from the model's constants (the spec's module must be importable where
it runs: on a local cluster this process's `sys.path` is handed to the workers; on a
remote one, ship the project with the job's `runtime_env`) and receives its share of the
store (all of it, as it stood at the split) and of the level. A worker lost with its node ends the run `unknown`, as a dead
worker process does.
"""
from __future__ import annotations

import os
import sys
import time

import ray
import ray.exceptions

from ..lang.dsl import install_oracle
from ..errors import CheckerError
from ..options import Store
from .machine import Machine
from .parallel import Partitioned, Share, WorkerLost, answer
from ..results import Stats
from .store import Visited
from .symmetry import symmetry_of


class RayPartitioned(Partitioned):
    """Partitioned, its workers Ray actors spread over the cluster at `address` ("local":
    a cluster of this machine, started here)."""

    def __init__(self, bfs, workers: int, address: str):
        local = address == "local"
        try:
            ray.init(address=None if local else address, ignore_reinit_error=True,
                     log_to_driver=False, include_dashboard=False if local else None,
                     runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}})
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise CheckerError(f"--ray {address}: cannot connect: {e}") from None
        cpus = int(ray.cluster_resources().get("CPU", 1))
        super().__init__(bfs, workers if workers > 1 else cpus)

    def describe(self) -> str:
        return f"{self.n} Ray workers"

    def start(self, shares):
        bfs, n = self.bfs, self.n
        seen = ray.put(bfs.visited.seen)            # the store so far: every worker's
        seconds = bfs.deadline - time.perf_counter()
        return [RayWorker(_ShareActor.options(scheduling_strategy="SPREAD").remote(
                    bfs.machine.bound_with, bfs.options, seen, shares[w], w, n, self.mask,
                    seconds), w)
                for w in range(n)]


class RayWorker:
    """The coordinator's handle on one actor: one question outstanding at a time."""

    def __init__(self, actor, me: int):
        self.actor, self.me, self.ref, self.lost = actor, me, None, False

    def send(self, method: str, *args) -> None:
        self.ref = self.actor.call.remote(method, args)

    def receive(self) -> tuple:
        try:
            return ray.get(self.ref)
        except ray.exceptions.RayActorError as e:
            self.lost = True
            raise WorkerLost(f"Ray worker {self.me} died ({type(e).__name__})") from None

    def alive(self) -> bool:
        return not self.lost

    def stop(self) -> None:
        """Kill the actor (once): it keeps nothing worth a gentler end."""
        if not self.lost:
            ray.kill(self.actor)
            self.lost = True

    kill = stop


@ray.remote(num_cpus=1)
class _ShareActor:
    """A worker on some node of the cluster: the spec bound again, its share of the search."""

    def __init__(self, bound_with, options, seen, level, me, n, mask, seconds):
        from .explorer import BreadthFirst, Search           # (explorer imports this lazily)
        machine = Machine(*bound_with)
        install_oracle(machine.oracle)
        search = Search(machine, options)
        symmetry = symmetry_of(machine, options.symmetry)    # refused by the coordinator
        visited = Visited(Store.FINGERPRINT, symmetry.canonical if symmetry else None)
        visited.seen = seen
        bfs = BreadthFirst(machine, options, search, Stats(), [0] * len(machine.all_bindings),
                           visited, None, time.perf_counter() + seconds, None, symmetry)
        self.share = Share(bfs, me, n, mask, level)   # told the pending properties each level

    def call(self, method: str, args: tuple) -> tuple:
        """As a forked worker answers, but batches for other workers travel as object
        references: the coordinator passes them on, and Ray moves the bytes from node to
        node without the coordinator's node in between."""
        if method == "receive":
            args = (ray.get(args[0]), *args[1:])
        reply = answer(self.share, method, args)
        if method == "expand" and reply[0] == "ok":
            reply[1]["out"] = [None if b is None else ray.put(b) for b in reply[1]["out"]]
        return reply
