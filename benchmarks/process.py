"""One child process timed from outside, as a user meets it: wall seconds around it, and
the operating system's own accounting of the finished child (`wait4`: CPU, peak memory).
Every benchmark that runs a tool as a whole process times it here."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import time


@dataclasses.dataclass
class Finished:
    output: str             # standard output and error, as they came
    code: int               # exit code
    wall: float             # seconds
    cpu: float              # user + system seconds
    peak_mib: float         # peak resident memory


def timed(cmd: list, cwd: str | os.PathLike, env: dict | None = None) -> Finished:
    """Run `cmd` in `cwd` (with `env`, if given) to its end."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    with proc.stdout:
        output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Finished(output, proc.returncode, time.perf_counter() - start,
                    usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
