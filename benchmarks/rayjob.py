#!/usr/bin/env python3
"""The RayJob slow models: this checkout against an earlier commit, in one run.

Each model is explored by both checkouts (code, spec and model file of each) as whole
processes, one after the other, and compared by CPU time, which drifts less than wall
time on a shared machine. Prints per model and
checkout the distinct states (which must agree), wall and CPU seconds, states/s, peak
memory, and the earlier commit's time over ours (> 1.0x: this checkout is faster).

    python3 benchmarks/rayjob.py --before d891934
    python3 benchmarks/rayjob.py --before d891934 --same-spec models/rayjob/slow/everything_F1.toml

`--same-spec` runs the earlier engine on this checkout's spec and model files (the
spec's state counts move as it gains behaviour; this compares engines alone; an engine
older than `checker.Enum` gets plain `enum.Enum` in its place). Both run with
`--workers 1`, on one core each (so the earlier commit must have that option: the engine
has used both cores by default since it did).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.process import timed  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SLOW = sorted(str(p.relative_to(REPO)) for p in (REPO / "models/rayjob/slow").glob("*.toml"))


def run(checkout: Path, model: str, work: Path, *options: str) -> dict:
    """One exploration of `model` by the code (and spec) in `checkout`, as a user runs it
    (with the extra command-line `options`)."""
    out = work / f"{checkout.name}.json"
    cmd = [sys.executable, "-c", "from checker.cli import main; main()", str(checkout / model),
           "-q", "--json", str(out), "--traces", str(work / "traces"), *options]
    done = timed(cmd, checkout, {**os.environ, "PYTHONPATH": str(checkout)})
    if done.code not in (0, 1):
        raise SystemExit(f"{checkout}: {model} exited {done.code}: {done.output[-1000:]}")
    result = json.loads(out.read_text())
    stats = result["stats"]
    return {"distinct": stats["distinct_states"], "generated": stats.get("generated"),
            "wall": done.wall, "split": stats.get("split_seconds", 0.0),
            "cpu": done.cpu, "peak_mib": done.peak_mib,
            "verdicts": {p["name"]: (p["verdict"], p.get("trace_length"))
                         for p in result["properties"]}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=SLOW)
    parser.add_argument("--before", required=True, help="the earlier commit (any git revision)")
    parser.add_argument("--same-spec", action="store_true",
                        help="run the earlier engine on this checkout's spec and models")
    args = parser.parse_args()
    print(f"{'model':<38} {'checkout':<9} {'distinct':>9} {'wall s':>7} {'cpu s':>7} "
          f"{'states/cpu s':>12} {'peak MiB':>8} {'before/now':>10}")
    with tempfile.TemporaryDirectory(prefix="rayjob_bench_") as tmp:
        work, before = Path(tmp), Path(tmp) / "before"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(before), args.before],
                       cwd=REPO, check=True)
        if args.same_spec:
            shutil.rmtree(before / "spec")
            shutil.copytree(REPO / "spec", before / "spec")
            init = before / "checker/__init__.py"     # an engine before checker.Enum: the
            if "Enum" not in init.read_text():        # spec's enums are plain ones there
                init.write_text(init.read_text() + "from enum import Enum\n")
            for model in args.models:
                shutil.copy(REPO / model, before / model)
        try:
            for model in args.models:
                rows = {"before": run(before, model, work, "--workers", "1"),   # one core
                        "now": run(REPO, model, work, "--workers", "1")}      # each
                if rows["before"]["distinct"] != rows["now"]["distinct"]:
                    raise SystemExit(f"{model}: {rows['before']['distinct']} states before, "
                                     f"{rows['now']['distinct']} now")
                for name, r in rows.items():
                    ratio = rows["before"]["cpu"] / r["cpu"]
                    print(f"{model:<38} {name:<9} {r['distinct']:>9,} {r['wall']:>7.1f} "
                          f"{r['cpu']:>7.1f} {r['distinct'] / r['cpu']:>12,.0f} "
                          f"{r['peak_mib']:>8.0f} {'' if name == 'before' else f'{ratio:.2f}x':>10}")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=REPO)


if __name__ == "__main__":
    main()
