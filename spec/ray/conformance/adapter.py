"""Maps the Ray spec's actions to real calls and a real Ray to the abstract observation.

Controlled actions: the script's steps run the `ray job` CLI exactly as the submitter
pod does; `sdk_*` call `JobSubmissionClient`; the program's effect and exit are files
the entrypoint waits for (`program.py`); a head restart stops and starts `LocalRay`.
Spontaneous actions (the driver starting, `ray job logs --follow` ending) are waited
for. Every call has a timeout: `ray job status` can hang forever on an endpoint that
accepts connections and never answers (docs/ray-observed.md row 2), and a hang must show
as an observation the spec does not allow, not as a stuck test run.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from ray.job_submission import JobSubmissionClient

from ..client import IDS, Reply
from . import abstraction, program
from .local import ENV, LocalRay, stop_tree

CALL_TIMEOUT = 30.0                      # any single CLI or SDK call
ATTACH = 4.0                             # time for `ray job logs --follow` to connect
DEADLINES = {"sub_follow": 30.0, "sub_broken": 30.0, "head_serves": 30.0,
             "head_restart": 15.0, "driver_start": 20.0}


class TimedClient(JobSubmissionClient):
    """The SDK passes no timeout to `requests`; this one does."""

    def _do_request(self, method, endpoint, **kwargs):
        kwargs.setdefault("timeout", CALL_TIMEOUT)
        return super()._do_request(method, endpoint, **kwargs)


def sdk_reply(error: Exception) -> Reply | str:
    """Classify an SDK exception as the reply the spec speaks of (else: its text)."""
    text = str(error)
    if "already exists" in text:
        return Reply.REJECTED
    if "status code 404" in text:
        return Reply.NOT_FOUND
    if isinstance(error, ConnectionError) or "Failed to connect" in text:
        return Reply.UNREACHABLE
    return f"{type(error).__name__}: {text[:80]}"


class RayAdapter:
    """One scenario's view of a shared `LocalRay`: its own submission ids and files."""

    spontaneous = abstraction.SPONTANEOUS
    abstract = staticmethod(abstraction.abstract)

    def __init__(self, ray: LocalRay, workdir: Path, prefix: str):
        self.ray, self.ctrl = ray, workdir / prefix
        self.ctrl.mkdir(parents=True, exist_ok=True)
        self.ids = {j: f"{prefix}-{abstraction.job_name(j).lower()}" for j in IDS}
        self.reply: str = Reply.NONE.value
        self.script = "idle"
        self.script_job = None
        self.follower: subprocess.Popen | None = None
        self.follow_started = 0.0

    # ------------------------------------------------------------ observation
    def observe(self) -> dict:
        serving = self.ray.healthy()
        obs = {"head": "serving" if serving else "down", "reply": self.reply,
               "effects": min(self._effects(), 2), "script": self._script()}
        for j, rid in self.ids.items():
            obs[abstraction.job_name(j)] = self._status(rid) if serving else "?"
        return obs

    def _status(self, rid: str) -> str:
        """`GET /api/jobs/<id>`, answered by the dashboard head alone (no recovery)."""
        try:
            with urllib.request.urlopen(f"{self.ray.address}/api/jobs/{rid}", timeout=5) as r:
                return json.load(r)["status"]
        except urllib.error.HTTPError as e:
            return "absent" if e.code == 404 else f"HTTP {e.code}"
        except OSError as e:
            return f"error: {type(e).__name__}"

    def _effects(self) -> int:
        path = self.ctrl / "effects"
        return len(path.read_text().split()) if path.exists() else 0

    def _script(self) -> str:
        if self.follower is not None and self.follower.poll() is not None:
            self.script, self.follower = f"exit {self.follower.returncode}", None
        return self.script

    # ------------------------------------------------------------ actions
    def deadline(self, step) -> float:
        return DEADLINES.get(step.binding.name, 10.0)

    def perform(self, step, ahead) -> None:
        """Run a controlled step; Ray takes the spontaneous ones by itself."""
        if step.binding.name not in self.spontaneous:
            getattr(self, "do_" + step.binding.name)(ahead=ahead, **dict(step.binding.params))

    def do_run_script(self, j, ahead):
        self.script, self.script_job = "status", self.ids[j]

    def do_sub_status(self, p, ahead):
        """`if ! ray job status $ID; then ray job submit ...; fi` (its first half)."""
        code = self._cli("status", self.script_job)
        if code == 0:
            self._follow()
        else:
            self.script = "submit" if code == 1 else f"status exited {code}"

    def do_sub_submit(self, p, ahead):
        rid = self.script_job
        code = self._cli("submit", "--no-wait", "--submission-id", rid, "--",
                         *self._entrypoint(rid))
        if code == 0:
            self._follow()
        else:
            self.script = f"exit {code}"

    def do_sdk_submit(self, j, ahead):
        rid = self.ids[j]
        self._sdk(lambda c: c.submit_job(entrypoint=" ".join(self._entrypoint(rid)),
                                         submission_id=rid) and Reply.ACCEPTED)

    def do_sdk_stop(self, j, ahead):
        self._sdk(lambda c: Reply.STOPPED if c.stop_job(self.ids[j]) else Reply.NOT_STOPPED)

    def do_program_effect(self, k, ahead):
        (self.ctrl / f"{self.ids[k.j]}.effect").touch()

    def do_program_exit(self, k, ok, ahead):
        path = self.ctrl / f"{self.ids[k.j]}.exit"
        tmp = path.with_suffix(".tmp")
        tmp.write_text("0" if ok else "3")
        tmp.rename(path)

    def do_head_restart(self, c, ahead):
        """Stop the head: killed if the scenario wants the follower to see a crash (exit
        1), else a graceful SIGTERM. The programs' go files go with their drivers."""
        broken = next((s for s in ahead if s.binding.name == "sub_broken"), None)
        if self.follower is not None:           # a pod at FOLLOW has attached: let it
            time.sleep(max(0.0, self.follow_started + ATTACH - time.monotonic()))
        self.ray.stop(force=broken is not None and dict(broken.binding.params)["code"])
        for f in self.ctrl.glob("*.effect"):
            f.unlink()
        for f in self.ctrl.glob("*.exit"):
            f.unlink()

    def do_head_serves(self, c, ahead):
        self.ray.start()

    # ------------------------------------------------------------ real calls
    def _entrypoint(self, rid: str) -> list[str]:
        return [sys.executable, program.__file__, str(self.ctrl), rid]

    def _cli(self, *args: str) -> int | str:
        cmd = ["ray", "job", args[0], "--address", self.ray.address, *args[1:]]
        with open(self.ctrl / "cli.log", "a") as log:
            log.write(f"$ {' '.join(cmd)}\n")
            log.flush()
            try:
                return subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT,
                                      env=dict(os.environ, **ENV), timeout=CALL_TIMEOUT).returncode
            except subprocess.TimeoutExpired:
                return f"hang > {CALL_TIMEOUT:g} s"

    def _follow(self):
        """`ray job logs --follow $ID`, in the background as in the pod."""
        cmd = ["ray", "job", "logs", "--address", self.ray.address, "--follow", self.script_job]
        self.follow_started = time.monotonic()
        self.follower = subprocess.Popen(cmd, stdout=open(self.ctrl / "follow.log", "a"),
                                         stderr=subprocess.STDOUT, start_new_session=True,
                                         env=dict(os.environ, **ENV))
        self.script = "following"

    def _sdk(self, call):
        try:
            result = call(TimedClient(self.ray.address))
        except Exception as e:          # the reply is the observation, whatever it is
            result = sdk_reply(e)
        self.reply = result.value if isinstance(result, Reply) else result

    # ------------------------------------------------------------ clean-up
    def close(self):
        """Let every program of this scenario end, and stop its follower."""
        for rid in self.ids.values():
            (self.ctrl / f"{rid}.effect").touch()
            (self.ctrl / f"{rid}.exit").write_text("0")
        if self.follower is not None:
            stop_tree(self.follower.pid, force=True)
            self.follower.wait()
            self.follower = None
