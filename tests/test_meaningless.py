"""Specs that mean nothing are refused loudly, at their line: `either()` or `choose()`
in a property, `enabled()` in an action or with an argument outside the parameter's
domain, two roles stacked on one method, an action that catches the exception `require`
raises. Each next to the same spec written right, which checks."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from checker import Int, Spec, action, either, enabled, invariant, require
from checker.cli import main
from checker.engines import ENGINES, run_engine
from checker.errors import SpecError
from checker.explicit.machine import Machine
from checker.options import CheckOptions
from checker.results import Verdict


class Counter(Spec):
    x: Int[0, 3] = 0

    def ready(s):
        require(s.x < 3)

    @action
    def step(s, d: Int[1, 2]):
        require(s.x < 3)
        s.x = min(3, s.x + d)

    @invariant
    def small(s):
        return s.x <= 3

    @invariant
    def can_go_on(s):
        return s.x == 3 or enabled(s.step, d=2)           # written right


class EitherInInvariant(Counter):
    @invariant
    def vague(s):
        return s.x < 2 if either() else True


class EnabledInAction(Counter):
    @action
    def peek(s):
        require(enabled(s.step))
        s.x = 0


class EnabledOutOfDomain(Counter):
    @invariant
    def never_stuck(s):
        return s.x == 3 or enabled(s.step, d=7)


class CatchesRequire(Counter):
    @action
    def sneak(s):
        try:
            require(s.x > 5)
        except BaseException:
            pass
        s.x = 3


class CatchesRequireInAHelper(Counter):
    @action
    def sneak(s):
        try:
            s.ready()
        except:                                 # noqa: E722
            pass
        s.x = 0


def line_of(fn, text: str) -> int:
    """The line of `fn`'s source holding `text`."""
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("spec, fn, text, message", [
    (EitherInInvariant, EitherInInvariant.vague, "either()", "choose() or either() outside an action"),
    (EnabledInAction, EnabledInAction.peek, "enabled(", "enabled(s.step) inside an action"),
    (EnabledOutOfDomain, EnabledOutOfDomain.never_stuck, "enabled(",
     "enabled(s.step, d=7): 7 is not a value of parameter d"),
    (CatchesRequire, CatchesRequire.sneak, "require(", "inside a try that catches the Disabled"),
    (CatchesRequireInAHelper, Counter.ready, "require(", "caught the Disabled exception require()"),
])
def test_a_meaningless_spec_is_an_error_at_its_line(spec, fn, text, message):
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
        run_engine("interpreter", Machine(spec), CheckOptions(deadlock=False))
    assert e.value.where == f"{__file__}:{line_of(fn, text)}"


def test_the_spec_written_right_checks():
    result = run_engine("interpreter", Machine(Counter), CheckOptions(deadlock=False))
    assert {p.name: p.verdict for p in result.properties} == {
        "small": Verdict.HOLDS, "can_go_on": Verdict.HOLDS}


def test_two_roles_on_one_method_are_refused_where_the_class_is_written():
    with pytest.raises(TypeError, match="step is already an @action: a method is one thing "
                                        r"\(@invariant on top of @action would drop it\)"):
        class Stacked(Spec):
            x: Int[0, 3] = 0

            @invariant
            @action
            def step(s):
                s.x = 1


@pytest.mark.parametrize("spec, fn, text, message", [
    (EitherInInvariant, EitherInInvariant.vague, "either()", "choose() or either() outside an action"),
    (EnabledInAction, EnabledInAction.peek, "enabled(", "enabled(s.step) inside an action"),
    (EnabledOutOfDomain, EnabledOutOfDomain.never_stuck, "enabled(",
     "enabled(s.step, d=7): 7 is not a value of parameter d"),
])
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_engine_refuses_a_meaningless_property_or_action_at_its_line(tmp_path, engine, spec,
                                                                           fn, text, message):
    """The same one line and exit 2 on every engine, the relation's readers too (a choice
    in an invariant read symbolically was a disjunction: a wrong holds)."""
    model = tmp_path / "m.toml"
    model.write_text(f'spec = "test_meaningless:{spec.__name__}"\n[check]\nmax_seconds = 60\n')
    result = CliRunner().invoke(main, [str(model), "--engine", engine, "-q",
                                       "--traces", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert f"{__file__}:{line_of(fn, text)}: " in result.output and message in result.output
