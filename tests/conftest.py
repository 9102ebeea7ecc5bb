"""Shared helpers: run a spec class through the explicit engine in one call."""
from __future__ import annotations

import signal
from pathlib import Path

import pytest

from checker.explicit.explorer import ExplicitEngine
from checker.options import CheckOptions
from checker.explicit.machine import Machine

ROOT = Path(__file__).resolve().parent.parent


def spec_project(tmp_path: Path, monkeypatch, source: str, prefix: str) -> tuple[Path, str]:
    """A tiny project, run from its root: a spec module (named after the test, so that
    modules of two tests never collide in `sys.modules`) and a models/ directory."""
    name = f"{prefix}_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text(source)
    (tmp_path / "models").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path, name


def explore(spec_cls, constants=None, groups=None, fairness=None, **options):
    """RunResult of checking `spec_cls` with the given constants and CheckOptions fields."""
    machine = Machine(spec_cls, constants, groups, fairness=fairness)
    return ExplicitEngine(machine, CheckOptions(**options)).check()


def interruptible():
    """`preexec_fn` for a child process a test sends SIGINT, as a terminal's Ctrl-C: the
    signal's default action restored. Run as a background job (`pytest &`, or CI's
    harness), the tests start with SIGINT ignored, their children too, and a Python
    started with SIGINT ignored never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def verdicts(result) -> dict[str, str]:
    return {p.name: p.verdict.value for p in result.properties}


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(autouse=True, scope="session")
def relation_cache(tmp_path_factory):
    """The symbolic engines' relation cache in a directory of this session (not the user's:
    a test never depends on what an earlier run left there)."""
    directory = tmp_path_factory.mktemp("check-model-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHECK_MODEL_CACHE", str(directory))
        yield directory
