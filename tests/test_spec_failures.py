"""A spec whose code raises in a reachable state is the spec's error, whatever engine
checks it and whatever the relation cache holds: exit 2 and one line naming the line
that raised, never a verdict.

Every registered engine, against each kind of code a search runs (an action constraint,
a state constraint, an invariant, an action), each raising in the state x = 3 only, with
the relation cache cold and warm (filled by a shallow run that never reaches x = 3); and
a state constraint raising in the initial state, which is no "no initial state", and an
action calling `sys.exit`.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.cli import main
from checker.engines import ENGINES

SPECS = '''
    import sys

    from checker import Int, Spec, action, action_constraint, constraint, invariant, require


    class Base(Spec):
        x: Int[0, 4] = 0

        @action
        def inc(s):
            require(s.x < 4)
            s.x += 1

        @invariant
        def small(s):
            return s.x <= 4


    class ActionConstraint(Base):
        @action_constraint
        def ac(s, t):
            if t.x == 3:
                raise ValueError("ac")  # raises
            return True


    class StateConstraint(Base):
        @constraint
        def c(s):
            if s.x == 3:
                raise ValueError("c")  # raises
            return True


    class InitialStateConstraint(Base):
        @constraint
        def c(s):
            raise ValueError("c")  # raises
            return True


    class ActionThatExits(Base):
        @action
        def leave(s):
            require(s.x == 3)
            sys.exit(3)  # raises


    class Invariant(Base):
        @invariant
        def inv(s):
            if s.x == 3:
                raise ValueError("inv")  # raises
            return True


    class Action(Base):
        @action
        def boom(s):
            require(s.x == 3)
            raise ValueError("boom")  # raises
'''
FAILURES = ["ActionConstraint", "StateConstraint", "Invariant", "Action"]
CASES = [(failure, cache) for failure in FAILURES for cache in ("cold", "warm")] + \
    [("InitialStateConstraint", "cold"),      # not "no initial state"; no run fills the cache
     ("ActionThatExits", "cold")]             # SystemExit is the spec's error too


@pytest.fixture(scope="module")
def specs(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("failing")
    (work / "failing_specs.py").write_text(textwrap.dedent(SPECS))
    for name in {failure for failure, _ in CASES}:
        (work / f"{name}.toml").write_text(f'spec = "failing_specs:{name}"\n'
                                           f'[check]\ndeadlock = false\n')
    return work


def raising_line(spec_file: Path, failure: str) -> str:
    """'file:line' of the `raise` in class `failure`."""
    lines = spec_file.read_text().splitlines()
    start = lines.index(f"class {failure}(Base):")
    line = next(n for n, text in enumerate(lines[start:], start + 1) if "# raises" in text)
    return f"{spec_file}:{line}"


def check(model: Path, *args: str, cache: Path):
    return CliRunner(env={"CHECK_MODEL_CACHE": str(cache)}).invoke(
        main, [str(model), "-q", "--traces", str(cache / "traces"), *args])


@pytest.mark.parametrize("failure, cache", CASES)
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_raising_spec_is_a_spec_error_for_every_engine(specs, tmp_path, engine, failure, cache):
    model = specs / f"{failure}.toml"
    if cache == "warm":
        assert check(model, "--engine", "bmc", "--depth", "1", cache=tmp_path).exit_code == 3
        assert list((tmp_path / "relations").glob("*.rel"))
    result = check(model, "--engine", engine, cache=tmp_path)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    if "cannot run this model" in lines[0]:        # an engine that refuses it says so, of the model
        assert lines[0].startswith(f"error: {model}: the {engine} engine"), lines[0]
    elif "does not take" in lines[0]:               # ... or of the construct it does not take
        assert f"the {engine} engine does not take" in lines[0] and \
            "failing_specs.py:" in lines[0], lines[0]
    else:
        assert f"{raising_line(specs / 'failing_specs.py', failure)}: " in lines[0], lines[0]


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_property_left_out_is_not_run_even_when_the_cache_holds_its_failure(specs, tmp_path,
                                                                              engine):
    """The cache holds `inv`'s formula, and where it raises, from a run that read it; a
    run that checks only `small` never runs `inv`, so it raises nothing."""
    model = specs / "Invariant.toml"
    assert check(model, "--engine", "bmc", "--depth", "1", cache=tmp_path).exit_code == 3
    result = check(model, "--engine", engine, "-p", "small", cache=tmp_path)
    assert result.exit_code in (0, 3) and "raised" not in result.output, result.output
