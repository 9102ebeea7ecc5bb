#!/usr/bin/env python3
"""The RayJob models with and without symmetry over the name pools, in one run.

Each model is explored twice as whole processes on one core, one after the other: with
`symmetry = ["ClusterId", "DRAWN_JOB_IDS"]` added to its `[check]` (a copy of the model
file), and as it is with `--no-symmetry`. Prints per run the distinct and generated
states, wall and CPU seconds, peak memory, and whether every verdict and counterexample
length agrees; a disagreement stops the script.

    python3 benchmarks/symmetry.py                      # models/rayjob.toml and models/rayjob/*.toml
    python3 benchmarks/symmetry.py models/rayjob/slow/suspend_stale_F3.toml
"""
from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

from rayjob import REPO, run

POOLS = '["ClusterId", "DRAWN_JOB_IDS"]'
MODELS = ["models/rayjob.toml"] + sorted(
    str(p.relative_to(REPO)) for p in (REPO / "models/rayjob").glob("*.toml")
    if not p.name.startswith("live_"))              # liveness is refused under symmetry


def with_symmetry(model: str, work: Path) -> Path:
    """The model file, or a copy of it whose [check] declares the pools symmetric."""
    text = (REPO / model).read_text()
    if re.search(r"^symmetry\s*=", text, re.M):
        return REPO / model
    line = f"symmetry = {POOLS}\n"
    text = re.sub(r"^\[check\]\n", "[check]\n" + line, text, flags=re.M) \
        if re.search(r"^\[check\]", text, re.M) else text + "\n[check]\n" + line
    copy = work / Path(model).name
    copy.write_text(text)
    return copy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=MODELS)
    args = parser.parse_args()
    print(f"{'model':<42} {'symmetry':<8} {'distinct':>9} {'generated':>10} {'wall s':>7} "
          f"{'cpu s':>7} {'peak MiB':>8} {'cpu on/off':>10}")
    with tempfile.TemporaryDirectory(prefix="symmetry_bench_") as tmp:
        work = Path(tmp)
        for model in args.models:
            rows = {"on": run(REPO, str(with_symmetry(model, work)), work, "--workers", "1"),
                    "off": run(REPO, model, work, "--workers", "1", "--no-symmetry")}
            if rows["on"]["verdicts"] != rows["off"]["verdicts"]:
                raise SystemExit(f"{model}: verdicts differ: {rows['on']['verdicts']} with "
                                 f"symmetry, {rows['off']['verdicts']} without")
            for name, r in rows.items():
                ratio = f"{rows['on']['cpu'] / rows['off']['cpu']:.2f}x" if name == "off" else ""
                print(f"{model:<42} {name:<8} {r['distinct']:>9,} {r['generated']:>10,} "
                      f"{r['wall']:>7.1f} {r['cpu']:>7.1f} {r['peak_mib']:>8.0f} {ratio:>10}",
                      flush=True)


if __name__ == "__main__":
    main()
