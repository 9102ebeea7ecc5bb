"""Time to proof of every RayJob proof model, as a user meets it.

Each proof is meant to take under 60 s of CPU on one core.

Each model runs as ``check-model MODEL -q`` in a fresh process with an empty relation and
lemma cache (a first run: it reads the spec into a relation, then proves), and with ``--warm`` once more
on the cache the first run left (a second run, or CI with a kept cache). A row gives the
CPU seconds of that process (user + system: on a shared machine the steadier figure), its
wall seconds, and whether every verdict was the one the model expects (exit 0). ``--jobs 2``
runs two models at a time, one per core; the figures stay per process. The summary counts
the proofs under ``--target`` CPU seconds and gives the median and the slowest, over the
runs that gave the expected verdicts.

Run ``python benchmarks/proofs.py [MODEL...] [--jobs N] [--warm]``; with no MODEL, every
model under models/rayjob/proofs.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.process import timed  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PROOFS = ROOT / "models/rayjob/proofs"


def run(model: Path, cache: str) -> tuple[float, float, int, str]:
    """(CPU seconds, wall seconds, exit code, last line of output) of one check-model run."""
    done = timed([sys.executable, "-m", "checker", str(model), "-q"], ROOT,
                 {**os.environ, "CHECK_MODEL_CACHE": cache})
    lines = done.output.strip().splitlines()
    return done.cpu, done.wall, done.code, lines[-1] if lines else ""


def measure(model: Path, warm: bool) -> list[tuple[str, float, float, int, str]]:
    """The cold run, and with ``warm`` the second run on the cache it left."""
    with tempfile.TemporaryDirectory() as cache:
        runs = [("cold", *run(model, cache))]
        if warm:
            runs.append(("warm", *run(model, cache)))
    return runs


def label(model: Path) -> str:
    """The model's path under models/rayjob/proofs, or as given if it is elsewhere."""
    try:
        return str(model.resolve().relative_to(PROOFS))
    except ValueError:
        return str(model)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="proof models (default: all)")
    parser.add_argument("--jobs", type=int, default=1, help="models run at a time")
    parser.add_argument("--warm", action="store_true", help="also a second run, cache warm")
    parser.add_argument("--target", type=float, default=60, help="CPU seconds per proof")
    args = parser.parse_args()
    models = args.models or sorted(PROOFS.rglob("*.toml"))
    cpu = {"cold": [], "warm": []}
    failed = []
    print(f"{'proof model':58} {'run':>4} {'CPU':>8} {'wall':>8}  verdicts", flush=True)
    with ThreadPoolExecutor(args.jobs) as pool:
        for model, runs in zip(models, pool.map(lambda m: measure(m, args.warm), models)):
            name = label(model)
            for kind, seconds, wall, code, last in runs:
                if code == 0:               # a run that failed early is no time to proof
                    cpu[kind].append((seconds, name))
                else:
                    failed.append(name)
                verdicts = "as expected" if code == 0 else f"exit {code}: {last}"
                print(f"{name:58} {kind:>4} {seconds:6.1f} s {wall:6.1f} s  {verdicts}",
                      flush=True)
    for kind, figures in cpu.items():
        if figures:
            seconds = [s for s, _ in figures]
            slowest = max(figures)
            print(f"{kind}: {sum(s < args.target for s in seconds)} of {len(seconds)} under "
                  f"{args.target:g} s CPU; median {statistics.median(seconds):.1f} s, slowest "
                  f"{slowest[0]:.1f} s ({slowest[1]})")
    if failed:
        sys.exit(f"verdicts not as expected: {', '.join(sorted(set(failed)))}")


if __name__ == "__main__":
    main()
