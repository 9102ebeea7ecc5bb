#!/usr/bin/env python3
"""The explicit search on several worker processes against one, in one run.

Each model is explored with `--workers 1` and `--workers N`, alternately, as whole
processes (and with `--ray-nodes K`, on a local Ray cluster of K one-CPU nodes started
here, `--ray ADDRESS --workers K`); prints per run the distinct states (which must
agree), wall and CPU seconds (the processes the command waited for: not Ray's actors),
states per wall second, and one process's wall time over each other run's. With
`--side-by-side`, also two one-process runs at once: twice one run's wall time over the
pair's is the most any split of the work in two could gain on this machine (cores that
share caches and memory slow each other down). Whatever a run does before its split and
after its workers end (start-up, the first levels, verdicts and traces) runs in one
process: with the side-by-side gain on the rest, that gives each model's ceiling.

    python3 benchmarks/workers.py                       # the RayJob slow models, N = every core
    python3 benchmarks/workers.py --workers 2 --runs 3 models/rayjob/slow/everything_F1.toml
    python3 benchmarks/workers.py --workers 2 --ray-nodes 2 benchmarks/twophase9.toml
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rayjob import REPO, SLOW, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=SLOW)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--runs", type=int, default=3, help="turns per model")
    parser.add_argument("--ray-nodes", type=int, default=0,
                        help="also on a local Ray cluster of this many one-CPU nodes")
    parser.add_argument("--side-by-side", action="store_true",
                        help="also two one-process runs at once: this machine's ceiling")
    args = parser.parse_args()
    print(f"{'model':<38} {'run':>9} {'distinct':>10} {'wall s':>7} {'cpu s':>7} "
          f"{'states/s':>9} {'1/run wall':>10}")
    with tempfile.TemporaryDirectory(prefix="workers_bench_") as tmp, \
            ray_cluster(args.ray_nodes) as address:
        ways = {"1": ("--workers", "1"), str(args.workers): ("--workers", str(args.workers))}
        if address:
            ways[f"Ray {args.ray_nodes}"] = ("--ray", address, "--workers", str(args.ray_nodes))
        for model in args.models:
            ratios: dict[str, list[float]] = {way: [] for way in ways if way != "1"}
            alone, serial, searched = [], [], []    # one process's wall; the split run's
                                                    # part in one process, its workers' part
            for turn in range(args.runs):
                rows = {way: run(REPO, model, Path(tmp), *options) for way, options in ways.items()}
                if args.side_by_side:
                    rows["2 at once"] = side_by_side(model, Path(tmp) / str(turn))
                if len({r["distinct"] for r in rows.values()}) > 1:
                    raise SystemExit(f"{model}: distinct states differ: "
                                     f"{ {way: r['distinct'] for way, r in rows.items()} }")
                alone.append(rows["1"]["wall"])
                split = rows[str(args.workers)]
                serial.append(split["wall"] - split["split"])
                searched.append(split["split"])
                for way, r in rows.items():
                    ratio = ""
                    if way != "1":
                        ratios.setdefault(way, []).append(rows["1"]["wall"] / r["wall"])
                        ratio = f"{ratios[way][-1]:.2f}x"
                    print(f"{model:<38} {way:>9} {r['distinct']:>10,} {r['wall']:>7.1f} "
                          f"{r['cpu']:>7.1f} {r['distinct'] / r['wall']:>9,.0f} {ratio:>10}")
            for way, values in ratios.items():
                print(f"{model:<38} median 1/({way}) wall: {statistics.median(values):.2f}x")
            if not any(searched):
                continue                    # no worker processes (the bulk engine's threads)
            print(f"{model:<38} in one process with {args.workers} workers: "
                  f"{statistics.median(serial):.2f} s")
            if args.side_by_side:
                best = ceiling(statistics.median(alone), statistics.median(serial),
                               statistics.median(ratios["2 at once"]))
                print(f"{model:<38} ceiling: {best:.2f}x")


def ceiling(alone: float, serial: float, at_once: float) -> float:
    """Amdahl's bound: one process's wall time over the split run's if the part that runs
    in one process stays as it is and the rest gains what two runs side by side gain."""
    return alone / (serial + (alone - serial) / at_once)


def side_by_side(model: str, work: Path) -> dict:
    """Two one-process runs started together, as one row: the pair's wall time (the
    slower run's) for twice the work, so that 1/run is what a perfect split would gain."""
    dirs = [work / "a", work / "b"]
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(2) as pool:
        pair = list(pool.map(lambda d: run(REPO, model, d, "--workers", "1"), dirs))
    wall = max(r["wall"] for r in pair)
    return {"distinct": pair[0]["distinct"], "wall": wall / 2, "cpu": sum(r["cpu"] for r in pair)}


@contextlib.contextmanager
def ray_cluster(nodes: int):
    """The address of a local Ray cluster of `nodes` one-CPU nodes (None for none)."""
    if not nodes:
        yield None
        return
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        yield cluster.address
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    main()
