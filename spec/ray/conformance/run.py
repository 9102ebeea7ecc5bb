"""Replay the Ray side's scenarios (`plan.py`) on local Ray heads, collect the results.

The scenarios of a configuration share one head: each uses its own submission ids and
control files.
"""
from __future__ import annotations

import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from checker.conformance import ConfigRun, Selection, run_scenario
from checker.explicit.machine import Machine

from .abstraction import items
from .adapter import RayAdapter
from .local import LocalRay, Redis
from .plan import CONFIGS, plan

def conform(progress=print, workdir: Path | None = None,
            only: tuple[str, ...] = tuple(CONFIGS)) -> list[ConfigRun]:
    """Replay every scenario of the configurations `only`, each on its own head, all at
    once (most of a step is waiting for Ray). Heads and Redis are stopped whatever
    happens; if one cannot start, `StartError` says why."""
    with tempfile.TemporaryDirectory(prefix="conform-ray-", dir=workdir) as tmp:
        chosen = [(n, name, *plan()[name]) for n, name in enumerate(CONFIGS) if name in only]
        with ThreadPoolExecutor(len(chosen)) as pool:
            futures = [pool.submit(_run_config, Path(tmp) / f"config{n}", n, name, m, sel,
                                   progress) for n, name, m, sel in chosen]
            return [f.result() for f in futures]


def _run_config(root: Path, n: int, name: str, m: Machine, sel: Selection,
                progress) -> ConfigRun:
    redis = Redis(root / "redis") if CONFIGS[name] else None
    ray = LocalRay(root, redis)
    started, runs = time.monotonic(), []
    try:
        if redis is not None:
            redis.start()
        for i, scenario in enumerate(sel.scenarios):
            if not ray.healthy():
                ray.start()
            adapter = RayAdapter(ray, root, f"c{n}s{i}")
            try:
                runs.append(run_scenario(m, scenario, adapter))
            finally:
                adapter.close()
            progress(f"{name}: scenario {i + 1}/{len(sel.scenarios)}, "
                     f"{len(scenario.steps)} steps, {runs[-1].seconds:.0f} s: "
                     f"{'agrees' if runs[-1].ok else 'DISAGREES'}")
    finally:
        ray.stop(force=True)
        if redis is not None:
            redis.stop()
    return ConfigRun(name, m, sel, items, runs, time.monotonic() - started)
