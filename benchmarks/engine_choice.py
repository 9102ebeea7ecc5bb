#!/usr/bin/env python3
"""The default engine's choice: what it costs, and what the engine it picks costs against
the others, all in one run (machines are noisy: only ratios of the same run mean much).

* TwoPhase N (default 7): the default run, `--engine bulk` and `--engine interpreter`, each
  a whole process, the median of `--repeat` turns; the default's time over the fastest's.
* Every example model (examples/models/*.toml): start-up, a whole cold process of
  `check-model MODEL --depth 1` (import, load, bind, choose, read what the engine reads,
  the first level), wall and CPU seconds; and the choice alone (`why_not_bulk`, in a
  process that has bound the model), with the engine it picks.

    python3 benchmarks/engine_choice.py
    python3 benchmarks/engine_choice.py --n 7 --repeat 3
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.peers import run_ours  # noqa: E402
from benchmarks.process import timed  # noqa: E402

CHOOSE = """
import json, sys, time
from checker.choice import why_not_bulk
from checker.model import load_model
m = load_model(sys.argv[1])
machine = m.machine()
started = time.perf_counter()
why = why_not_bulk(machine, m.options)
print(json.dumps({"choose": time.perf_counter() - started, "engine": "interpreter" if why else "bulk",
                  "why": why}))
"""


def twophase(n: int, repeat: int, work: str) -> None:
    runs: dict[str, list[dict]] = {}
    for _ in range(repeat):
        for engine in (None, "bulk", "interpreter"):
            runs.setdefault(engine or "default", []).append(run_ours(n, work, engine))
    median = {name: sorted(rs, key=lambda r: r["seconds"])[len(rs) // 2] for name, rs in runs.items()}
    fastest = min(r["seconds"] for r in median.values())
    print(f"TwoPhase N={n}, median of {repeat}: run, engine that ran, distinct, seconds, "
          f"over the fastest")
    for name, r in median.items():
        print(f"  {name:<12} {r['engine']:<12} {r['distinct']:>10,} {r['seconds']:>7.2f} "
              f"{r['seconds'] / fastest:>6.2f}x")


def examples(work: str) -> None:
    print("example model, engine chosen, choice ms, start-up wall s, start-up CPU s")
    walls, cpus = [], []
    for model in sorted((REPO / "examples" / "models").glob("*.toml")):
        chose = timed([sys.executable, "-c", CHOOSE, str(model)], REPO)
        choice = json.loads(chose.output.splitlines()[-1])
        run = timed([sys.executable, "-m", "checker", str(model), "--depth", "1", "-q",
                     "--traces", str(Path(work) / "traces")], REPO)
        if run.code not in (0, 1, 3):
            raise SystemExit(f"{model.name} exited {run.code}:\n{run.output[-2000:]}")
        walls.append(run.wall)
        cpus.append(run.cpu)
        print(f"  {model.stem:<42} {choice['engine']:<12} {choice['choose'] * 1000:>6.2f} "
              f"{run.wall:>7.2f} {run.cpu:>7.2f}")
    print(f"start-up over {len(walls)} examples: wall median {statistics.median(walls):.2f} s, "
          f"max {max(walls):.2f} s; CPU median {statistics.median(cpus):.2f} s, max {max(cpus):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=7, help="TwoPhase's N")
    parser.add_argument("--repeat", type=int, default=3, help="turns per TwoPhase run; the median counts")
    parser.add_argument("--only", choices=("twophase", "examples"), help="run one part only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engine_choice_") as work:
        if args.only != "examples":
            twophase(args.n, args.repeat, work)
        if args.only != "twophase":
            examples(work)


if __name__ == "__main__":
    main()
