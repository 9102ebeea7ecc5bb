"""The user's entrypoint in conformance runs: its side effect and its exit on command.

`python program.py CTRL ID` waits for the file CTRL/ID.effect, appends ID to
CTRL/effects (the external side effect), waits for CTRL/ID.exit and exits with the code
written there. So the adapter decides when `program_effect` and `program_exit` happen.
"""
import sys
import time
from pathlib import Path


def wait(path: Path) -> None:
    while not path.exists():
        time.sleep(0.05)


def main(ctrl: Path, run: str) -> int:
    wait(ctrl / f"{run}.effect")
    with open(ctrl / "effects", "a") as f:
        f.write(run + "\n")
    wait(ctrl / f"{run}.exit")
    return int((ctrl / f"{run}.exit").read_text() or "1")


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
