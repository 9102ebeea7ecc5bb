#!/usr/bin/env python3
"""Which mutants of the catalog a simulation kills: the catalog's bugs are what a
simulation of a model too large to exhaust should still find.

Each mutant kill of the catalog (in its model as it is, not in a setting) runs on the
simulate engine (500 walks of depth 100 by default, seed 0); prints per kill the verdict
of the property that kills it in the search, the trace's length, the walks and the CPU
seconds, then the count.

    python3 benchmarks/simulate_mutants.py
    python3 benchmarks/simulate_mutants.py --walks 2000 --seed 3
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from checker.explicit.simulate import Simulator        # noqa: E402
from checker.model import import_spec, load_model      # noqa: E402
from checker.mutants import load_catalog               # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walks", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    mutants = [e for e in load_catalog(REPO / "models" / "mutants.toml").entries
               if e.is_mutant and e.property and not e.setting]
    killed = 0
    for mutant in mutants:
        model = load_model(mutant.model)
        model.spec_cls = import_spec(mutant.spec, mutant.model, mutant.where)
        model.options.walks, model.options.seed = args.walks, args.seed
        started = time.process_time()
        result = Simulator(model.machine(), model.options).check()
        p = next(p for p in result.properties if p.name == mutant.property)
        killed += p.verdict.value == "violated"
        steps = len(p.trace.steps) - 1 if p.trace else "-"
        print(f"{mutant.name:32} {mutant.property:42} {p.verdict.value:9} {steps:>4} steps "
              f"{time.process_time() - started:5.1f} s CPU", flush=True)
    print(f"killed {killed} of {len(mutants)} with {args.walks} walks, seed {args.seed}")


if __name__ == "__main__":
    main()
