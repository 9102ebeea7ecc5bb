"""The programs outside Python that tests drive: headless chromium and the validators of
the CI outputs. Missing under CI=true (.ci/run installs them all) is a failure; on a
developer's machine, a skip."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

NODE_TOOLS = Path(__file__).resolve().parent / "tools" / "node_modules"


def require_tool(path: Path | str | None, what: str) -> str:
    if path is None or not Path(path).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{what} is not installed (.ci/run installs it)")
        pytest.skip(f"{what} is not installed")
    return str(path)


def browse(page: Path, *args: str) -> subprocess.CompletedProcess:
    """Open `page` in Debian's headless chromium, its console messages logged to stderr."""
    chromium = require_tool(shutil.which("chromium") or shutil.which("chromium-browser"), "chromium")
    return subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                           "--enable-logging=stderr", "--v=0", *args, page.as_uri()],
                          capture_output=True, text=True, timeout=60)


def console_messages(run: subprocess.CompletedProcess) -> list[str]:
    return [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
