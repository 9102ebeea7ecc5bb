"""A local Ray head and a Redis, started and stopped by pid, on 127.0.0.1 where Ray allows.

`ray stop` would stop every Ray on the machine, so the head runs as `ray start --block`
in a session of its own and is stopped by signalling exactly the processes of that
session and their descendants (job entrypoints run in sessions of their own). Ray
rewrites `--node-ip-address=127.0.0.1` to the host address for the GCS and raylet
(docs/ray-observed.md §4.1); the dashboard and Redis bind 127.0.0.1.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Callable

# No token authentication: the harness's dashboard binds 127.0.0.1 and is read with plain
# HTTP; without this, a token another local Ray left in ~/.ray/auth_token turns it on (401).
ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
WORKERS = 200                               # size of the workers' port range
SETTLE = 2.0            # a graceful stop pauses between groups, so clients see the order
PORT_NAMES = ("port", "dashboard-port", "ray-client-server-port", "dashboard-agent-listen-port",
              "dashboard-agent-grpc-port", "runtime-env-agent-port", "metrics-export-port",
              "node-manager-port", "object-manager-port")


class StartError(RuntimeError):
    """Ray or Redis could not be started here: the conformance run fails loudly."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree(root: int) -> list[int]:
    """Pids of the session led by `root` and of every descendant of its processes."""
    procs = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            procs[int(entry.name)] = (int(fields[1]), int(fields[3]))     # ppid, session
    found = {p for p, (_, sid) in procs.items() if sid == root}
    grew = True
    while grew:
        more = {p for p, (ppid, _) in procs.items() if ppid in found} - found
        found |= more
        grew = bool(more)
    return sorted(found)


def stop_tree(root: int, force: bool, grace: float = 10.0,
              first: tuple[Callable[[str], bool], ...] = ()) -> None:
    """SIGTERM (or SIGKILL) every process of `root`'s tree; SIGKILL what outlives `grace`.
    Gracefully, the processes whose name satisfies `first[0]` go first, then `first[1]`..."""
    known: set[int] = set()                 # orphans reparent to init: keep every pid seen
    for chosen in first if not force else ():
        known.update(_tree(root))
        _stop([p for p in known if _alive(p) and chosen(_name(p))], signal.SIGTERM, grace)
        time.sleep(SETTLE)
    known.update(_tree(root))
    while pids := [p for p in known.union(_tree(root)) if _alive(p)]:
        known.update(pids)
        _stop(pids, signal.SIGKILL if force else signal.SIGTERM, grace)
        force = True                        # what outlived the grace period


def _stop(pids: list[int], sig: int, grace: float) -> None:
    """Signal `pids` and wait up to `grace` seconds for them to exit."""
    for p in pids:
        try:
            os.kill(p, sig)
        except ProcessLookupError:
            pass
    end = time.monotonic() + grace
    while any(_alive(p) for p in pids) and time.monotonic() < end:
        time.sleep(0.1)


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Redis:
    """`redis-server` on 127.0.0.1, no persistence: the GCS's external storage."""

    def __init__(self, workdir: Path):
        self.dir, self.port, self.proc = workdir, free_port(), None

    def start(self):
        exe = shutil.which("redis-server")
        if exe is None:
            raise StartError("redis-server not found (apt-get install -y redis-server)")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [exe, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.dir)],
            stdout=open(self.dir / "redis.log", "w"), stderr=subprocess.STDOUT)
        end = time.monotonic() + 20
        while time.monotonic() < end:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
        self.stop()
        raise StartError(f"redis-server did not start (see {self.dir / 'redis.log'})")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


class LocalRay:
    """A Ray head on fixed free ports, so its dashboard address survives restarts."""

    def __init__(self, workdir: Path, redis: Redis | None = None, start_timeout: float = 90):
        self.dir, self.redis, self.start_timeout = workdir, redis, start_timeout
        self.workers = free_port()             # workers use [workers, workers + WORKERS]
        self.ports = {}
        while len(self.ports) < len(PORT_NAMES):
            port = free_port()
            if not self.workers <= port <= self.workers + WORKERS and port not in self.ports.values():
                self.ports[PORT_NAMES[len(self.ports)]] = port
        self.address = f"http://127.0.0.1:{self.ports['dashboard-port']}"
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def start(self, attempts: int = 2):
        """Start the head and wait until it is ready. A start that fails is retried once
        (on a loaded machine the raylet may miss Ray's own startup timeout), as
        Kubernetes would restart a head pod that failed to come up."""
        for attempt in range(attempts):
            try:
                return self._start_once()
            except StartError:
                if attempt == attempts - 1:
                    raise

    def _start_once(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, **ENV)
        if self.redis is not None:
            env.update(RAY_REDIS_ADDRESS=f"127.0.0.1:{self.redis.port}",
                       RAY_external_storage_namespace="conformance")
        cmd = ["ray", "start", "--head", "--block", "--num-cpus=2", "--disable-usage-stats",
               "--object-store-memory=100000000",
               "--node-ip-address=127.0.0.1", "--dashboard-host=127.0.0.1",
               "--include-dashboard=true", f"--temp-dir={self.dir / 'ray'}",
               f"--min-worker-port={self.workers}",
               f"--max-worker-port={self.workers + WORKERS}",
               *(f"--{name}={port}" for name, port in self.ports.items())]
        self.starts += 1
        log = self.dir / f"ray-start-{self.starts}.log"
        with open(log, "w") as out:
            self.proc = subprocess.Popen(cmd, env=env, start_new_session=True,
                                         stdout=out, stderr=subprocess.STDOUT)
        end = time.monotonic() + self.start_timeout
        while time.monotonic() < end:
            if self.healthy():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        exited = self.proc.poll()
        self.stop(force=True)
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        why = f"exited ({exited})" if exited is not None else \
            f"not ready after {self.start_timeout:g} s"
        raise StartError(f"Ray head {why}; the end of {log}:\n{tail}")

    def healthy(self) -> bool:
        """KubeRay's readiness probe of a head: the agent's raylet health and the
        dashboard's GCS health (only then does a RayCluster become Ready)."""
        agent = f"http://127.0.0.1:{self.ports['dashboard-agent-listen-port']}"
        return all(_ok(url) for url in (f"{agent}/api/local_raylet_healthz",
                                        f"{self.address}/api/gcs_healthz"))

    def stop(self, force: bool = False):
        """Stop every process of the head: SIGKILL (a crash), or SIGTERM in `ray stop`'s
        order: the raylet (its agent and workers go with it), the rest, the GCS last."""
        if self.proc is not None:
            stop_tree(self.proc.pid, force, first=(lambda name: name == "raylet",
                                                   lambda name: name != "gcs_server"))
            self.proc.wait()
            self.proc = None
