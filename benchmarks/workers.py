#!/usr/bin/env python3
"""The explicit search on several worker processes against one, in one run.

Each model is explored with `--workers 1` and `--workers N`, alternately, as whole
processes; prints per run the distinct states (which must agree), wall and CPU seconds
(all processes), states per wall second, and one process's wall time over N's.

    python3 benchmarks/workers.py                       # the RayJob slow models, N = every core
    python3 benchmarks/workers.py --workers 2 --runs 3 models/rayjob/slow/everything_F1.toml
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from rayjob import REPO, SLOW, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=SLOW)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--runs", type=int, default=3, help="pairs of runs per model")
    args = parser.parse_args()
    print(f"{'model':<38} {'workers':>7} {'distinct':>9} {'wall s':>7} {'cpu s':>7} "
          f"{'states/s':>9} {'1/N wall':>8}")
    with tempfile.TemporaryDirectory(prefix="workers_bench_") as tmp:
        for model in args.models:
            ratios = []
            for _ in range(args.runs):
                rows = {w: run(REPO, model, Path(tmp), "--workers", str(w)) for w in (1, args.workers)}
                if rows[1]["distinct"] != rows[args.workers]["distinct"]:
                    raise SystemExit(f"{model}: {rows[1]['distinct']} states with one worker, "
                                     f"{rows[args.workers]['distinct']} with {args.workers}")
                ratios.append(rows[1]["wall"] / rows[args.workers]["wall"])
                for w, r in rows.items():
                    ratio = f"{ratios[-1]:.2f}x" if w != 1 else ""
                    print(f"{model:<38} {w:>7} {r['distinct']:>9,} {r['wall']:>7.1f} {r['cpu']:>7.1f} "
                          f"{r['distinct'] / r['wall']:>9,.0f} {ratio:>8}")
            print(f"{model:<38} median 1/{args.workers} wall: {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
