"""Matrix files, the results file and `check-model report`: a claim's hypothesis is exact
on its matrix, stale cells are found by their inputs, and the report is stable."""
import json
import textwrap

import pytest
from click.testing import CliRunner

from checker.cli import main
from checker.errors import ModelError
from checker.matrix import load_matrix
from checker.output.results_page import SUMMARY_BEGIN, SUMMARY_END
from conftest import ROOT, spec_project

SPEC = """
from checker import Const, Int, Spec, action, fault, invariant, reachable, require

class Tank(Spec):
    cap = Const(2, "how full the tank may be filled", min=1, max=3)
    level: Int[0, 3] = 0

    @action
    def fill(s):
        require(s.level < s.cap)
        s.level += 1

    @fault(group="flood")
    def flood(s):
        require(s.level < 3)
        s.level = 3

    @invariant
    def within_cap(s):
        '''The level never passes the capacity.'''
        return s.level <= s.cap

    @reachable
    def w_full(s):
        '''Some run fills the tank to the brim.'''
        return s.level == 3
"""

MATRIX = """
description = "A tank, filled to one of two capacities, flooded or not"
spec = "{module}:Tank"

[axes.cap.small]
doc = "capacity 2"
constants = {{ cap = 2 }}

[axes.cap.big]
doc = "capacity 3"
constants = {{ cap = 3 }}

[axes.faults.none]
doc = "no flood"

[axes.faults.flood]
doc = "a flood may fill it to 3"
groups = {{ flood = true }}

[[slow]]
cap = "big"
faults = "flood"

[properties.within_cap]
hypothesis = "no flood above the capacity"
refuted = [{refuted}]

[properties.w_full]
hypothesis = "the tank can hold 3"
refuted = [{{ cap = "small", faults = "none" }}]
"""
RIGHT = '{ cap = "small", faults = "flood" }'


@pytest.fixture
def project(tmp_path, monkeypatch):
    return spec_project(tmp_path, monkeypatch, SPEC, "tankspec")


def write_matrix(root, module, refuted=RIGHT, text=MATRIX):
    path = root / "models" / "tank.toml"
    path.write_text(text.format(module=module, refuted=refuted))
    return path


def run(*args):
    result = CliRunner().invoke(main, [*map(str, args)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def test_cells_are_the_product_of_the_axes_and_expect_what_the_rows_say(project):
    m = load_matrix(write_matrix(*project))
    cells = {c.name: c for c in m.cells()}
    assert list(cells) == ["small-none", "small-flood", "big-none", "big-flood"]
    assert [c.name for c in cells.values() if c.slow] == ["big-flood"]
    assert cells["small-flood"].tables()["expect"] == {"within_cap": "violated"}
    assert cells["small-none"].tables()["expect"] == {"w_full": "violated"}
    assert cells["big-flood"].tables()["constants"] == {"cap": 3}
    assert cells["big-flood"].tables()["groups"] == {"flood": True}


def test_the_gate_checks_every_cell_but_the_slow_ones_and_records_them(project):
    root, module = project
    write_matrix(root, module)
    result = run("gate", "models", "--results", "results.json", "--traces", "traces")
    assert result.exit_code == 0, result.output
    assert "skipped (slow; --all checks them): models/tank.toml#big-flood" in result.output
    cells = json.loads((root / "results.json").read_text())["matrices"]["models/tank.toml"]["cells"]
    assert sorted(cells) == ["big-none", "small-flood", "small-none"]
    refuted = cells["small-flood"]["properties"]["within_cap"]
    assert refuted["verdict"] == refuted["expected"] == "violated"
    assert refuted["steps"] == 1 and refuted["trace"] == "tank/small-flood/within_cap.itf.json"
    assert (root / "traces" / refuted["trace"]).is_file()


def test_a_hypothesis_that_is_not_exact_moves_the_gate_both_ways(project):
    root, module = project
    write_matrix(root, module, refuted='{ cap = "small" }')     # small-none holds: too wide
    wide = run("gate", "models")
    assert wide.exit_code == 1
    assert "tank.toml#small-none" in wide.output and "within_cap: expected violated, got holds" \
        in wide.output
    write_matrix(root, module, refuted="")                      # small-flood refutes it
    narrow = run("gate", "models")
    assert narrow.exit_code == 1 and "within_cap: expected holds, got violated (1-step trace" \
        in narrow.output


@pytest.mark.parametrize("refuted, message", [
    ('{ size = "small" }', "refuted: unknown axis 'size' (the axes: cap, faults)"),
    ('{ cap = "huge" }', "refuted: axis cap has no value 'huge' (its values: small, big)"),
    ('"small"', "each refuted pattern must be a table of axis = value"),
])
def test_a_bad_pattern_names_its_line(project, refuted, message):
    root, module = project
    path = write_matrix(root, module, refuted=refuted)
    with pytest.raises(ModelError) as e:
        load_matrix(path)
    assert message in str(e.value)
    lines = path.read_text().splitlines()
    line = lines.index("[properties.within_cap]") + 3           # its `refuted = ...` line
    assert lines[line - 1].startswith("refuted") and e.value.where == f"{path}:{line}"


def test_an_unknown_property_is_an_error_at_its_table(project):
    root, module = project
    path = write_matrix(root, module, text=MATRIX + "\n[properties.overflows]\nrefuted = []\n")
    result = run("gate", "models")
    assert result.exit_code == 2
    line = path.read_text().splitlines().index("[properties.overflows]") + 1
    assert f"unknown property 'overflows'" in result.output and f"tank.toml:{line}" in result.output


def test_report_check_finds_stale_cells_and_refresh_makes_it_current(project):
    root, module = project
    path = write_matrix(root, module)
    readme = root / "README.md"
    readme.write_text(f"# Tank\n{SUMMARY_BEGIN}\nby hand\n{SUMMARY_END}\nthe rest\n")
    refreshed = run("report", "--refresh")
    assert refreshed.exit_code == 0, refreshed.output
    report = (root / "docs" / "results.md").read_text()
    assert "| **within_cap** | | |\n| `within_cap` | ✓ | ✗ 1 |" in report    # small: none, flood
    assert "| **witnesses** | | |\n| `w_full` | ✗ | ✓ 1 |" in report
    assert "| `within_cap` | ✓ | slow |" in report           # big: flood never run
    current = run("report", "--check")
    assert current.exit_code == 1 and "stale, too slow for CI: models/tank.toml#big-flood" \
        in current.output
    assert run("report", "--refresh", "--all").exit_code == 0
    assert run("report", "--check").exit_code == 0
    summary = readme.read_text()
    assert "| `within_cap` | 3 of 4 | cap = small, faults = flood |" in summary
    assert "by hand" not in summary and summary.endswith(f"{SUMMARY_END}\nthe rest\n")
    readme.write_text(summary.replace("3 of 4", "4 of 4"))
    assert run("report", "--check").exit_code == 1   # a summary edited by hand is drift
    assert run("report").exit_code == 0 and readme.read_text() == summary

    path.write_text(path.read_text().replace('doc = "capacity 3"', 'doc = "capacity three"'))
    assert run("report", "--check").exit_code == 1   # the doc is in the report
    path.write_text(path.read_text().replace("cap = 3 }", "cap = 2 }"))
    stale = run("report", "--check")
    assert stale.exit_code == 1 and "big-none  (stale, re-run" in stale.output


def test_the_report_is_the_same_bytes_from_the_same_results(project):
    root, module = project
    write_matrix(root, module)
    assert run("report", "--refresh", "--html", "site").exit_code == 0
    first = [(root / f).read_bytes() for f in ("docs/results.md", "site/index.html")]
    assert run("report", "--html", "site").exit_code == 0
    assert [(root / f).read_bytes() for f in ("docs/results.md", "site/index.html")] == first
    page = first[1].decode()
    assert '<a href="traces/tank/small-flood/within_cap.html">✗ 1</a>' in page
    assert (root / "site/traces/tank/small-flood/within_cap.html").is_file()
    assert run("report", "--html", "bare", "--traces", "elsewhere").exit_code == 0
    assert "<a href" not in (root / "bare/index.html").read_text()      # no trace files there


def test_a_results_file_of_another_shape_is_refused(project):
    root, _ = project
    (root / "results.json").write_text(json.dumps({"models": []}))
    result = run("report", "--results", "results.json")
    assert result.exit_code == 2 and "not a results file of version 1" in result.output


def test_a_matrix_may_take_its_axes_from_another(project):
    root, module = project
    write_matrix(root, module)
    other = root / "models" / "tank_again.toml"
    other.write_text(f'spec = "{module}:Tank"\naxes = "tank.toml"\n[[exclude]]\ncap = "big"\n')
    assert [c.name for c in load_matrix(other).cells()] == ["small-none", "small-flood"]
    other.write_text(f'spec = "{module}:Tank"\naxes = "tank_again.toml"\n')
    with pytest.raises(ModelError, match="tank_again.toml declares no axes of its own"):
        load_matrix(other)


def test_a_change_to_the_spec_touches_its_matrix(project):
    from checker.gate import touched_models
    root, module = project
    path = write_matrix(root, module)
    assert touched_models([path], [root / f"{module}.py"], root) == [path]
    assert touched_models([path], [root / "README.md"], root) == []


def test_report_without_a_results_file_says_how_to_make_one(project):
    result = run("report")
    assert result.exit_code == 2
    assert "no results file: `check-model report --refresh` checks the matrix files" in result.output


def test_the_rows_are_the_properties_the_cells_check(project):
    root, module = project
    path = write_matrix(root, module, text=MATRIX.replace(
        "[axes.cap.small]", '[check]\nproperties = ["w_full"]\n\n[axes.cap.small]').replace(
        "refuted = [{refuted}]", "refuted = []"))
    assert list(load_matrix(path).describe()["properties"]) == ["w_full"]
    assert run("gate", "models").exit_code == 0


def test_a_refresh_whose_cell_moved_says_so_and_exits_1(project):
    root, module = project
    write_matrix(root, module, refuted="")
    result = run("report", "--refresh")
    assert result.exit_code == 1
    assert "within_cap: expected holds, got violated" in result.output
    assert "| `within_cap` | ✓ | ✗ 1 (expected holds) |" in (root / "docs" / "results.md").read_text()


def test_a_matrix_of_proofs_reads_proved_and_links_each_certificate(project):
    root, module = project
    text = MATRIX.replace("[axes.cap.small]", '[check]\nengine = "pdr"\nproperties = '
                          '["within_cap"]\n\n[axes.cap.small]')
    write_matrix(root, module, text=text[:text.index("[properties.w_full]")])
    assert run("report", "--refresh", "--all", "--html", "site").exit_code == 0
    report = (root / "docs" / "results.md").read_text()
    assert "| `within_cap` | P | ✗ 1 |" in report and "| states | proof | proof |" in report
    page = (root / "site" / "index.html").read_text()
    assert '<a href="certificates/tank/small-none/within_cap.cert.json">P</a>' in page
    assert (root / "site/certificates/tank/small-none/within_cap.cert.json").is_file()


def test_each_property_row_names_what_the_catalog_says_of_it():
    """The report's property table names every catalog entry of the property: the models
    whose own spec refutes it and the mutants it kills, with their lengths."""
    from checker.mutants import load_catalog
    from checker.output.results_page import catalog_text
    catalog = load_catalog(ROOT / "models" / "mutants.toml")
    for prop in {e.property for e in catalog.entries if e.property}:
        text = catalog_text(catalog, prop)
        for e in catalog.refutations_of(prop) + catalog.mutants_killed_by(prop):
            assert e.label in text and (e.name is None or e.name in text)
    assert catalog_text(catalog, "no_such_property") == "-" == catalog_text(None, "p1a")
