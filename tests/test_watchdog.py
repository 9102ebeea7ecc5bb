"""`--max-seconds` stops a step that never returns: unknown (exit 3), the limit named,
on the explicit engines and the symbolic ones, never a hang."""
from __future__ import annotations

import time

import pytest

from checker import Int, Spec, action, choose, invariant, require
from click.testing import CliRunner

from checker.cli import main
from checker.watchdog import TimeLimit, watchdog


class Endless(Spec):
    """The second step loops for ever (a `while` whose exit was forgotten)."""
    x: Int[0, 3] = 0

    @action
    def step(s):
        require(s.x < 3)
        while s.x == 1:
            pass
        s.x += 1

    @invariant
    def small(s):
        return s.x < 3


class Millions(Spec):
    """An action choosing among 3 million values: one state's expansion (or the
    relation's construction) takes hours."""
    x: Int[0, 3] = 0

    @action
    def step(s):
        n = choose(range(3_000_000))
        require(n == 7)
        s.x = 1

    @invariant
    def small(s):
        return s.x < 3


@pytest.mark.parametrize("spec, engine", [
    *((spec, e) for spec in ("Endless", "Millions")
      for e in ["interpreter", "explicit", "simulate", "bmc", "kind", "pdr"])])
def test_a_step_that_never_returns_is_stopped_at_the_time_limit(tmp_path, spec, engine):
    model = tmp_path / "m.toml"
    model.write_text(f'spec = "test_watchdog:{spec}"\n')
    began = time.monotonic()
    result = CliRunner().invoke(main, [str(model), "--engine", engine, "--max-seconds", "1",
                                       "--traces", str(tmp_path)], catch_exceptions=False)
    assert time.monotonic() - began < 10
    assert result.exit_code == 3, result.output
    assert "time limit 1 s reached" in result.output and "Traceback" not in result.output


def test_without_a_limit_or_once_the_run_is_over_the_watchdog_is_silent():
    with watchdog(None):
        time.sleep(0.05)
    with watchdog(0.01):
        pass
    time.sleep(1.2)                          # past the limit and its grace: nothing raised
    with pytest.raises(TimeLimit, match="time limit 0.01 s reached"):
        with watchdog(0.01):
            time.sleep(5)


def test_a_time_limit_swallowed_by_a_bare_except_is_signalled_again():
    """A library that catches everything (z3's argument conversion) does not keep a step
    running past the limit: the watchdog signals again until an engine has caught it."""
    began = time.monotonic()
    with pytest.raises(TimeLimit, match="time limit 0.01 s reached"):
        with watchdog(0.01):
            try:
                time.sleep(5)
            except BaseException:                # noqa: B036 (the trap being tested)
                pass
            time.sleep(5)
    assert time.monotonic() - began < 3
