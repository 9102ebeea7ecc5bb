"""The CI gate and mutation testing: each way a model can move gives its exit code."""
import json
import re
import subprocess
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.cli import main
from checker.mutants import load_catalog
from conftest import spec_project

SPEC = """
from checker import Int, Spec, action, invariant, reachable, require

class Light(Spec):
    level: Int[0, 3] = 0

    @action(calls="Dimmer")
    def up(s):
        require(s.level < 3)
        s.level += 1

    @action
    def reset(s):
        require(s.level == 3)
        s.level = 0

    @invariant
    def bounded(s):
        return s.level <= 3

    @reachable
    def full(s):
        return s.level == 3

class StuckLight(Light):
    '''Mutant: the light never gets past 1, so reset is dead and `full` is vacuous.'''
    @action
    def up(s):
        require(s.level < 1)
        s.level += 1

class SameLight(Light):
    '''Equivalent mutant: resets through an intermediate expression, same relation.'''
    @action
    def reset(s):
        require(s.level == 3)
        s.level = s.level - 3
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A tiny project: a spec module, a models/ directory, run from its root."""
    return spec_project(tmp_path, monkeypatch, SPEC, "gatespec")


def write_model(root, module, cls="Light", expect="", name="light.toml"):
    path = root / "models" / name
    path.write_text(f'spec = "{module}:{cls}"\n[expect]\n' + textwrap.dedent(expect))
    return path


def gate(*args):
    result = CliRunner().invoke(main, ["gate", *map(str, args)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def test_all_as_expected_exits_0_and_records_a_baseline(project):
    root, module = project
    write_model(root, module, expect='bounded = "holds"\nfull = "holds"\n')
    result = gate("--update-baseline")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("OK: 1 model as expected (")
    baseline = json.loads((root / "gate-baseline.json").read_text())
    assert baseline["models/light.toml"] == {"distinct_states": 4, "fired": ["reset", "up"],
                                             "witnesses": ["full"]}


def test_a_proof_in_the_gate_writes_its_certificate_and_a_tampered_one_fails(project):
    """As .ci/run does: every certificate the gate writes is re-checked by certify."""
    root, module = project
    path = root / "models" / "light.toml"
    path.write_text(f'spec = "{module}:Light"\n[check]\nengine = "pdr"\nproperties = ["bounded"]\n'
                    f'[expect]\nbounded = "holds"\n')
    assert gate("--traces", root / "t").exit_code == 0
    cert = root / "t" / "light" / "bounded.cert.json"
    certify = ["certify", str(cert), str(path)]
    assert CliRunner().invoke(main, certify).exit_code == 0
    data = json.loads(cert.read_text())
    tampered = root / "tampered.cert.json"
    tampered.write_text(json.dumps({**data, "invariant": "(<= level 2)"}))   # up: 2 -> 3
    refused = CliRunner().invoke(main, ["certify", str(cert), str(tampered), str(path)])
    assert refused.exit_code == 1                   # one reading of the spec for both
    assert "certified: bounded holds" in refused.output
    assert f"not certified: {tampered}: consecution" in refused.output
    assert refused.output.splitlines()[-1] == "FAIL: 1 of 2 certificates not certified"


def test_a_symbolic_model_is_checked_but_not_recorded_in_the_baseline(project):
    """A PDR proof has no coverage: --update-baseline said 'internal error' on it."""
    root, module = project
    write_model(root, module, expect='bounded = "holds"\nfull = "holds"\n')
    write_model(root, module, name="proof.toml",
                expect='bounded = "holds"\n[check]\nengine = "pdr"\nproperties = ["bounded"]\n')
    result = gate("--update-baseline")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("OK: 2 models as expected (")
    assert set(json.loads((root / "gate-baseline.json").read_text())) == {"models/light.toml"}


def test_a_baseline_that_cannot_be_written_is_one_line_naming_it(project):
    """A file name longer than the file system allows passes the check made before the
    run (its directory is writable), and used to fail writing it: an internal error."""
    root, module = project
    write_model(root, module, expect='bounded = "holds"\nfull = "holds"\n')
    baseline = root / ("b" * 300 + ".json")
    result = gate("--update-baseline", "--baseline", baseline)
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[-1] == f"error: {baseline}: cannot write: File name too long"


def test_a_verdict_change_exits_1_naming_the_property(project):
    root, module = project
    write_model(root, module, expect='bounded = "violated"\n')
    result = gate()
    assert result.exit_code == 1
    assert "bounded: expected violated, got holds" in result.output


def test_a_dead_action_and_a_lost_witness_exit_1(project):
    root, module = project
    path = write_model(root, module)
    assert gate("--update-baseline").exit_code == 0
    path.write_text(path.read_text().replace(":Light", ":StuckLight"))
    result = gate()
    assert result.exit_code == 1
    assert "action reset fired in the baseline and never fires now" in result.output
    assert "full: expected holds, got violated" in result.output
    assert "distinct states 4 → 2" in result.output


def test_state_count_change_is_reported_not_failed(project):
    root, module = project
    path = write_model(root, module)
    gate("--update-baseline")
    baseline = root / "gate-baseline.json"
    data = json.loads(baseline.read_text())
    data["models/light.toml"]["distinct_states"] = 99
    baseline.write_text(json.dumps(data))
    result = gate()
    assert result.exit_code == 0 and "distinct states 99 → 4" in result.output


def test_a_broken_model_exits_2(project):
    root, _ = project
    (root / "models" / "broken.toml").write_text('spec = "nowhere:X"\n')
    result = gate()
    assert result.exit_code == 2
    assert "cannot import spec module 'nowhere'" in result.output


def test_unknown_without_moves_exits_3(project):
    root, module = project
    path = write_model(root, module)
    path.write_text(path.read_text().replace("[expect]", "[check]\nmax_states = 2\n[expect]"))
    result = gate()
    assert result.exit_code == 3
    assert result.output.splitlines()[-1].startswith("UNKNOWN: 1 model: 1 unknown (models/light.toml) (")


def test_the_summary_counts_each_outcome_apart(project):
    root, module = project
    write_model(root, module, name="a_ok.toml")
    limited = write_model(root, module, name="b_unknown.toml")
    limited.write_text(limited.read_text().replace("[expect]", "[check]\nmax_states = 2\n[expect]"))
    (root / "models" / "c_broken.toml").write_text('spec = "nowhere:X"\n')
    write_model(root, module, expect='bounded = "violated"\n', name="d_moved.toml")
    result = gate()
    assert result.exit_code == 2
    assert result.output.splitlines()[-1].startswith(
        "FAIL: 4 models: 1 as expected, 1 moved (models/d_moved.toml), 1 unknown "
        "(models/b_unknown.toml), 1 could not be checked (models/c_broken.toml) (")


def test_slow_folders_are_left_out_unless_asked_for(project):
    root, module = project
    write_model(root, module, name="fast.toml")
    for folder in ("slow", "deep/slow/er"):
        (root / "models" / folder).mkdir(parents=True)
        write_model(root, module, name=f"{folder}/big.toml")
    bare = gate()
    assert bare.exit_code == 0
    assert "skipped (slow; --all checks them): models/deep/slow, models/slow" in bare.output
    assert "big.toml" not in bare.output and bare.output.splitlines()[-1].startswith("OK: 1 model as expected")
    assert gate("--all").output.splitlines()[-1].startswith("OK: 3 models as expected")
    named = gate("models/slow/big.toml", "models/deep/slow")
    assert "skipped" not in named.output and named.output.splitlines()[-1].startswith("OK: 2 models as expected")
    assert "skipped (slow" in gate("models/deep").output


@pytest.mark.parametrize("text,problem", [
    ("[]", "expected an object of models, got an array"),
    ('"models"', "expected an object of models, got a string"),
    ("null", "expected an object of models, got null"),
    ('{"fired": 5}', "model 'fired': expected an object of distinct_states, fired and "
                     "witnesses, got a number"),
    ('{"models/light.toml": {"fired": 5}}', "model 'models/light.toml': fired must be a list "
                                            "of names, got 5"),
    ('{"m.toml": {"witnesses": ["a", 1]}}', "witnesses must be a list of names"),
    ('{"m.toml": {"distinct_states": "4"}}', "distinct_states must be a count, got \"4\""),
    ('{"m.toml": {"distinct_states": true}}', "distinct_states must be a count, got true"),
    ('{"m.toml": {"states": 4}}', "unknown field 'states'"),
])
def test_a_baseline_of_the_wrong_shape_is_refused_in_one_line(project, text, problem):
    root, module = project
    write_model(root, module)
    (root / "gate-baseline.json").write_text(text)
    result = gate()
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert result.output.startswith("error: gate-baseline.json: not a gate baseline: ")
    assert problem in result.output


def test_ci_outputs_name_the_property_and_carry_the_trace(project):
    root, module = project
    write_model(root, module, cls="StuckLight")
    result = gate("--junit", "out/junit.xml", "--sarif", "out/gate.sarif", "--markdown", "out/pr.md")
    assert result.exit_code == 1
    junit = (root / "out/junit.xml").read_text()
    assert 'name="full"' in junit and "expected holds, got violated" in junit
    sarif = json.loads((root / "out/gate.sarif").read_text())
    results = sarif["runs"][0]["results"]
    verdict = next(r for r in results if r["ruleId"] == "unexpected-verdict")
    location = verdict["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == f"{module}.py"
    assert location["region"]["startLine"] == SPEC.splitlines().index("    @reachable") + 1
    assert not any(r["ruleId"] == "coverage-lost" for r in results)   # no baseline: only the verdict
    markdown = (root / "out/pr.md").read_text()
    assert "## check-model gate: FAIL: 1 model: 1 moved (models/light.toml) (" in markdown


def test_markdown_draws_the_counterexample_as_a_sequence_diagram(project):
    root, module = project
    write_model(root, module, expect='bounded = "holds"\n')
    (root / "models" / "light.toml").write_text(
        f'spec = "{module}:Light"\n[check]\nproperties = ["full"]\n[expect]\nfull = "violated"\n')
    result = gate("--markdown", "pr.md")
    assert result.exit_code == 1
    md = (root / "pr.md").read_text()
    assert "```mermaid\nsequenceDiagram" in md
    assert "    participant a0 as Light\n    participant a1 as Dimmer\n" in md
    assert "a0->>a1: 1. up\n    a0->>a1: 2. up\n    a0->>a1: 3. up\n    Note over a0,a1: ✗ full holds" in md


def test_only_changed_rechecks_models_whose_spec_changed(project):
    root, module = project
    write_model(root, module, name="a.toml")
    other = root / "other_spec.py"
    other.write_text(SPEC.replace("Light", "Other"))
    (root / "models" / "b.toml").write_text('spec = "other_spec:Other"\n')
    git = lambda *a: subprocess.run(["git", *a], cwd=root, check=True, capture_output=True)
    git("init", "-q")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "empty")
    git("add", ".")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "models")
    assert gate("--only-changed", "HEAD").output.splitlines()[-1] == \
        "OK: no models to check (nothing changed since HEAD)"
    other.write_text(other.read_text() + "\n# touched\n")
    result = gate("--only-changed", "HEAD")
    assert "models/b.toml" in result.output and "models/a.toml" not in result.output


def mutants(catalog, *args):
    return CliRunner().invoke(main, ["mutants", "--catalog", str(catalog), *args],
                              catch_exceptions=False)


def test_mutants_report_killers_and_fail_on_a_survivor(project):
    root, module = project
    write_model(root, module, expect='full = "holds"\n')
    catalog = root / "models" / "mutants.toml"
    catalog.write_text(textwrap.dedent(f"""
        [[mutant]]
        name = "stuck"
        spec = "{module}:StuckLight"
        model = "light.toml"
        property = "full"
    """))
    run = lambda *a: mutants(catalog, *a)
    killed = run()
    assert killed.exit_code == 0, killed.output
    assert "killed" in killed.output and "by full" in killed.output and killed.output.splitlines()[-1] == \
        "OK: 0 refutations and 1 mutant kill as the catalog says"
    catalog.write_text(catalog.read_text() + textwrap.dedent(f"""
        [[mutant]]
        name = "same"
        spec = "{module}:SameLight"
        model = "light.toml"
    """))
    survived = run()
    assert survived.exit_code == 1
    assert "SURVIVED" in survived.output and "Equivalent mutant" in survived.output
    assert survived.output.splitlines()[-1] == \
        "FAIL: 1 of 2 entries not as the catalog says: same light"
    assert run("--only", "stuck").exit_code == 0
    assert run("--only", "nope").exit_code == 2


def catalog_of(root, module, cls, model="light.toml", extra=""):
    catalog = root / "models" / "mutants.toml"
    catalog.write_text(f'[[mutant]]\nname = "m"\nspec = "{module}:{cls}"\nmodel = "{model}"\n'
                       + extra)
    return catalog


def test_only_a_claimed_property_that_breaks_kills_a_mutant(project):
    root, module = project
    write_model(root, module, expect='bounded = "holds"\n')         # `full` is not claimed
    unclaimed = mutants(catalog_of(root, module, "StuckLight"))
    assert unclaimed.exit_code == 1
    assert "SURVIVED" in unclaimed.output
    assert "also moved, not counted as kills: full" in unclaimed.output
    write_model(root, module, cls="StuckLight", expect='full = "violated"\n', name="stuck.toml")
    back = mutants(catalog_of(root, module, "Light", model="stuck.toml"))   # violated -> holds
    assert back.exit_code == 1
    assert "SURVIVED" in back.output
    assert "also moved, not counted as kills: full (expected violated)" in back.output
    write_model(root, module, expect='full = "holds"\n')
    claimed = mutants(catalog_of(root, module, "StuckLight"))
    assert claimed.exit_code == 0 and "by full" in claimed.output and "also moved" not in claimed.output


def test_a_mutant_property_must_be_claimed_to_hold(project):
    root, module = project
    write_model(root, module, expect='full = "holds"\n')
    result = mutants(catalog_of(root, module, "StuckLight", extra='property = "bounded"\n'))
    assert result.exit_code == 2
    assert "mutants.toml:5: property 'bounded': light.toml's [expect] says nothing, not " \
           "holds" in result.output


@pytest.mark.parametrize("text,problem", [
    ('mutant = ["x"]\n', ":1: a mutant must be a [[mutant]] table, got 'x'"),
    ('[[mutant]]\nname = ["a"]\nspec = "s:S"\nmodel = "m.toml"\n',
     ":2: name must be a string, got ['a']"),
    ('\n[[mutant]]\nname = "a"\nspec = "s:S"\nmodel = 5\n', ":5: model must be a string, got 5"),
    ('[[mutant]]\nname = "a"\nspec = "s:S"\nmodel = "m.toml"\nproperty = ["p"]\n',
     ":5: property must be a string, got ['p']"),
])
def test_a_catalog_of_the_wrong_types_is_refused_in_one_line(project, text, problem):
    root, _ = project
    catalog = root / "models" / "mutants.toml"
    catalog.write_text(text)
    result = mutants(catalog)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and f"mutants.toml{problem}" in result.output


COUNTER = '''
from checker import Const, Int, Spec, action, invariant, require

class Counter(Spec):
    top = Const(3)
    x: Int[0, 3] = 0

    @action
    def inc(s):
        require(s.x < s.top)
        s.x += 1

    @invariant
    def small(s):
        return s.x < 2

    @invariant
    def bounded(s):
        return s.x <= s.top

    @invariant
    def zero(s):
        return s.x == 0

class Leaps(Counter):
    """Mutant: leaps from 0 to 3, past any lower top."""
    @action
    def inc(s):
        require(s.x == 0)
        s.x = 3
'''


@pytest.fixture
def counter(project):
    """The project with the Counter spec, its model (small refuted) and a catalog of a
    refutation and a mutant kill, both pinned; returns the catalog's path."""
    root, _ = project
    module = f"counter_{root.name}"
    (root / f"{module}.py").write_text(COUNTER)
    (root / "models" / "counter.toml").write_text(
        f'spec = "{module}:Counter"\n[constants]\ntop = 2\n'
        '[expect]\nsmall = "violated"\nbounded = "holds"\nzero = "violated"\n')
    catalog = root / "models" / "mutants.toml"
    catalog.write_text(textwrap.dedent(f"""
        [[refutation]]
        model = "counter.toml"
        property = "small"
        steps = 2
        why = "two increments reach 2"
        upstream = "example/counter#7"

        [[mutant]]
        name = "Leaps"
        spec = "{module}:Leaps"
        model = "counter.toml"
        property = "bounded"
        steps = 1
    """))
    return catalog


def test_refutations_and_kills_as_the_catalog_says_pass(counter):
    counter.write_text(counter.read_text() + textwrap.dedent("""
        [[refutation]]
        model = "counter.toml"
        property = "zero"
        steps = 1
        why = "one increment"
    """))
    result = mutants(counter)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("refuted  small in counter, 2 steps (")
    assert lines[1].startswith("killed   Leaps in counter by bounded, 1 steps (")
    assert lines[2] == "refuted  zero in counter, 1 steps (the same run)"   # as small's
    assert lines[-1] == "OK: 2 refutations and 1 mutant kill as the catalog says"


@pytest.mark.parametrize("old,new,missed", [
    ("steps = 2", "steps = 3", "MISSED   small in counter (0.0 s): small's shortest "
                               "counterexample has 2 steps, not 3 (two increments reach 2)"),
    ("steps = 2", "steps = 1", "MISSED   small in counter (0.0 s): small unknown within 1 steps"),
    ("upstream", "constants = {top = 1}\nupstream",
     "MISSED   small in counter [top=1] (0.0 s): small holds within 2 steps"),
    ("steps = 1", "steps = 2", "MISSED   Leaps in counter by bounded (0.0 s): bounded's "
                               "shortest counterexample has 1 steps, not 2"),
    ("steps = 1", "steps = 1\nconstants = {top = 3}", "SURVIVED Leaps in counter [top=3] by "
                                                      "bounded (0.0 s): bounded unknown"),
])
def test_an_entry_not_as_the_catalog_says_fails_naming_it(counter, old, new, missed):
    """A wrong length, or a property that holds, fails the run (exit 1) on the entry."""
    counter.write_text(counter.read_text().replace(old, new, 1))
    result = mutants(counter)
    assert result.exit_code == 1, result.output
    (bad,) = [line for line in result.output.splitlines() if line.startswith(("MISS", "SURV"))]
    assert re.sub(r"\(\d+\.\d s\)", "(0.0 s)", bad).startswith(missed), bad
    assert result.output.splitlines()[-1].startswith("FAIL: 1 of 2 entries not as the catalog says")


def test_only_checks_the_entries_a_glob_matches(counter):
    assert mutants(counter, "--only", "Lea*").output.splitlines()[-1] == \
        "OK: 0 refutations and 1 mutant kill as the catalog says"
    assert mutants(counter, "--only", "small", "--only", "count*").output.splitlines()[-1] == \
        "OK: 1 refutation and 1 mutant kill as the catalog says"
    result = mutants(counter, "--only", "nope*")
    assert result.exit_code == 2 and "no catalog entry matches nope*" in result.output


def test_slow_entries_run_with_all(counter):
    counter.write_text(counter.read_text().replace("steps = 1", "steps = 1\nslow = true"))
    assert mutants(counter).output.splitlines()[-1] == \
        "OK: 1 refutation and 0 mutant kills as the catalog says"
    assert mutants(counter, "--all").output.splitlines()[-1] == \
        "OK: 1 refutation and 1 mutant kill as the catalog says"


@pytest.mark.parametrize("old,new,problem", [
    ('why = "two', 'reason = "two', ":6: unknown key 'reason' in [[refutation]]"),
    ('model = "counter.toml"', 'model = "nowhere.toml"', ":3: model nowhere.toml does not exist"),
    ('property = "small"', 'property = "tiny"', ":4: Counter has no property 'tiny'"),
    ('property = "small"', 'property = "bounded"',
     ":4: property 'bounded': counter.toml's [expect] says holds, not violated"),
    ('property = "bounded"', 'property = "small"',
     ":13: property 'small': counter.toml's [expect] says violated, not holds"),
    ("steps = 2", "steps = 0", ":5: steps must be positive, got 0"),
    ("steps = 2", "steps = 2.5", ":5: steps must be a whole number, got 2.5"),
    ("steps = 2", "steps = true", ":5: steps must be a whole number, got True"),
    ('upstream = "example/counter#7"', 'upstream = "#7"', ":7: upstream must read owner/repo#N"),
    ("steps = 1", "steps = 1\nconstants = {bottom = 1}", ":15: Leaps has no constant 'bottom'"),
    ("steps = 1", "steps = 1\ngroups = {faults = true}", ":15: Leaps has no group 'faults'"),
    ("steps = 1", 'steps = 1\ntrace = "gone.itf.json"', ":15: trace gone.itf.json does not exist"),
    ("upstream", 'constants = {top = "high"}\nupstream', ":2: constant top"),
    ('name = "Leaps"', 'name = "Leaps"\nslow = "yes"',
     ":11: slow must be true or false, got 'yes'"),
    ("[[refutation]]", '[[refutation]]\nmodel = "counter.toml"\nproperty = "small"\n'
                       'why = "again"\n\n[[refutation]]', ":7: the same refutation as line 2"),
])
def test_each_mistake_in_a_catalog_is_one_line_with_its_place(counter, old, new, problem):
    counter.write_text(counter.read_text().replace(old, new, 1))
    result = mutants(counter)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and f"mutants.toml{problem}" in result.output


def test_the_catalog_answers_per_property_its_refutations_and_kills(counter):
    catalog = load_catalog(counter)
    (refutation,) = catalog.refutations_of("small")
    assert (refutation.name, refutation.model.name, refutation.steps, refutation.why) == \
        (None, "counter.toml", 2, "two increments reach 2")
    assert refutation.upstream_url == "https://github.com/example/counter/issues/7"
    (kill,) = catalog.mutants_killed_by("bounded")
    assert (kill.name, kill.steps, kill.why) == \
        ("Leaps", 1, "Mutant: leaps from 0 to 3, past any lower top.")
    assert catalog.refutations_of("bounded") == [] and catalog.mutants_killed_by("small") == []
