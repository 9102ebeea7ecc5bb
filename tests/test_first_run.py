"""The first command a newcomer runs, `check-model models/rayjob.toml`: its output is the
verdicts per kind of property, coverage, where the traces went and the next command to
try, above the one summary line; no warning. The golden file holds it, and the README
shows exactly that file."""
import re
from pathlib import Path

from click.testing import CliRunner

from checker.cli import main
from conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "first-run.txt"
MARKER = "<!-- the output of check-model models/rayjob.toml: tests/golden/first-run.txt -->"


def untimed(text: str) -> str:
    """The output without its seconds, which the machine's load moves."""
    return re.sub(r"\d+\.\d s\)", "0.1 s)", text)


def test_the_first_run_prints_what_the_golden_file_holds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                       # the traces go to ./traces, as for a user
    result = CliRunner().invoke(main, [str(ROOT / "models" / "rayjob.toml")])
    assert result.exit_code == 0, result.output
    assert untimed(result.stdout) == GOLDEN.read_text()     # stderr: the progress line only
    assert "warning" not in result.output
    shown = re.search(r"^next: check-model show (\S+)", result.stdout, re.M).group(1)
    assert (tmp_path / shown).is_file()               # the next command names a real trace


def test_the_readme_shows_the_golden_output():
    readme = (ROOT / "README.md").read_text()
    assert MARKER in readme
    block = readme.split(MARKER, 1)[1].split("```", 2)[1]
    assert block.partition("\n")[2] == GOLDEN.read_text()
