"""The HTML trace page (`show --html`) and the gate's `--html` index, down to a real
headless browser: the page loads without a console message, holds every step, and draws."""
import inspect
import json
import re
import struct
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker import Bookkeeping, Ghost, Int, Spec, action, eventually, fault, invariant, require
from checker.actors import actor_of, lanes
from checker.cli import main
from checker.lang.domains import Map
from checker.output.itf import read_itf
from checker.explicit.machine import Machine
from checker.output.trace_page import page_data, trace_page
from external import browse, console_messages


class ApiServer(Spec):
    stored: Map[Int[1, 2], Int[0, 2]] = Map.fill(0)
    writes: Ghost[Int[0, 1]] = 0
    version: Bookkeeping[Int[0, 1]] = 0          # the store's own machinery


class Controller(ApiServer):
    turn: Int[1, 2] = 1

    @action(fair="weak", calls="API server")
    def write(s):
        """Bump the current key's version, then turn to the other key."""
        s.stored[s.turn] = (s.stored[s.turn] + 1) % 3
        s.turn = 3 - s.turn
        s.writes = 1 - s.writes
        s.version = 1 - s.version

    @fault
    def crash(s):
        """The store loses key 1."""
        require(s.stored[1] == 2)
        s.stored[1] = 0

    @invariant
    def key_1_kept(s):
        return not (s.stored[1] == 0 and s.stored[2] == 1)

    @eventually
    def settles(s):
        return s.stored[1] == 1 and s.stored[2] == 2


class LateWrite(Controller):
    """A mutant: the same component, its action overridden."""

    @action(calls="API server")
    def write(s):
        s.turn = 3 - s.turn


MODEL = """spec = "test_trace_page:Controller"
[groups]
faults = true
[expect]
key_1_kept = "violated"
settles = "violated"
"""


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """The two traces of Controller: an invariant broken by a fault, a liveness lasso."""
    root = tmp_path_factory.mktemp("page")
    (root / "m.toml").write_text(MODEL)
    assert run(root / "m.toml", "--traces", root, "-q").exit_code == 0
    return root / "m" / "key_1_kept.itf.json", root / "m" / "settles.itf.json"


def test_changes_are_per_key_the_fault_has_its_lane_and_ghosts_stand_apart(traces):
    page = page_data(read_itf(traces[0]))
    assert [s["label"] for s in page["steps"]] == ["initial state", "write", "write", "write", "crash"]
    crash = page["steps"][-1]
    assert crash["fault"] and crash["lane"] == "faults" and crash["changes"] == {"stored": ["stored[1]: 2 → 0"]}
    assert page["steps"][1]["changes"]["stored"] == ["stored[1]: 0 → 1"]
    assert page["steps"][1]["lane"] == "controller" and page["steps"][1]["calls"] == "apiserver"
    assert page["variables"] == ["stored", "turn"] and page["ghosts"] == ["writes"]
    assert page["bookkeeping"] == ["version"]           # folded away on the page
    assert [lane["name"] for lane in page["lanes"]] == ["Controller", "API server", "faults"]


def test_show_leaves_the_bookkeeping_out_unless_asked(traces):
    brief, everything = run("show", traces[0]), run("show", traces[0], "--all")
    hidden = "1 bookkeeping variable not shown (--all shows them): version"
    assert hidden in brief.output and "version" not in brief.output.replace(hidden, "")
    assert "version: 0 → 1" in everything.output and "not shown" not in everything.output
    assert "stored[1]: 0 → 1" in brief.output and "(ghost)" in brief.output


def test_each_action_links_to_its_definition_and_docstring(traces):
    write = page_data(read_itf(traces[0]))["actions"]["write"]
    line = inspect.getsourcelines(Controller.write)[1]
    assert write["where"]["text"].endswith(f"test_trace_page.py:{line}")
    assert write["where"]["href"] == Path(__file__).resolve().as_uri()
    assert write["doc"] == Controller.write.__doc__


def test_a_lasso_ends_with_the_step_back_into_its_cycle(traces):
    data = read_itf(traces[1])
    page = page_data(data)
    assert len(page["steps"]) == len(data["states"]) + 1 and page["loop"] == data["loop"]
    closing = page["steps"][-1]
    assert closing["closing"] and closing["values"] == page["steps"][data["loop"]]["values"]
    assert [s["cycle"] for s in page["steps"]] == [i >= data["loop"] for i in range(len(page["steps"]))]


def test_one_actor_spelled_two_ways_is_one_lane_and_a_mutant_keeps_its_component():
    actors = {"get": ("ApiServer", None), "put": ("Operator", "API server")}
    assert lanes(actors, ["get", "put"]) == {"apiserver": "API server", "operator": "Operator"}
    mutant = next(b for b in Machine(LateWrite).all_bindings if b.name == "write")
    assert actor_of(LateWrite, mutant) == "Controller"


def test_the_page_needs_no_network_and_data_cannot_close_its_script(traces):
    data = read_itf(traces[0])
    data["states"][1]["turn"] = "</script><img src=x onerror=alert(1)>"
    page = trace_page(data)
    assert "</script><img" not in page
    assert not re.search(r"<(script|link|img)[^>]*\b(src|href)=|@import|url\(", page)


def test_show_html_writes_the_page_and_refuses_a_bad_trace_in_one_line(traces, tmp_path):
    out = tmp_path / "page.html"
    assert run("show", traces[0], "--html", out).exit_code == 0
    assert json.dumps("stored[1]: 2 → 0", ensure_ascii=False) in out.read_text()
    bad = tmp_path / "bad.itf.json"
    bad.write_text('{"vars": ["x"], "states": [{"x": 1.5}]}')
    result = run("show", bad, "--html", out)
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {bad}: states[0].x: 1.5 is not an ITF value " \
                                    "(numbers are integers, and there is no null)"


def test_show_html_refuses_to_overwrite_the_trace_it_shows(traces, tmp_path):
    trace = tmp_path / "t.itf.json"
    trace.write_text(traces[0].read_text())
    (tmp_path / "link.itf.json").symlink_to(trace)
    for page in (trace, tmp_path / "link.itf.json"):
        result = run("show", trace, "--html", page)
        assert result.exit_code == 2 and result.output.startswith(f"error: {page}: --html names "
                                                                  f"the trace it would show")
        assert len(result.output.splitlines()) == 1, result.output
    assert trace.read_text() == traces[0].read_text()


def test_the_gate_html_index_links_every_trace_of_every_model(traces, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.toml").write_text(MODEL)
    result = run("gate", "--traces", tmp_path / "t", "--html", tmp_path / "site")
    assert result.exit_code == 0, result.output
    index = (tmp_path / "site" / "index.html").read_text()
    links = re.findall(r'href="([^"]+)"', index)
    assert sorted(links) == ["m/key_1_kept.html", "m/settles.html"]
    assert all((tmp_path / "site" / link).read_text().startswith("<!DOCTYPE html>") for link in links)
    assert "models/m.toml" in index and "OK: 1 model as expected" in index


# ---------------------------------------------------------------- in a real browser

def test_the_browser_catches_a_broken_page(tmp_path):
    """The check the next test relies on: a page that throws is seen to throw."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><body><script>undefinedFunction()</script></body>")
    assert any("undefinedFunction" in m for m in console_messages(browse(page, "--dump-dom")))


def test_the_page_loads_cleanly_holds_every_step_and_draws(traces, tmp_path):
    data = read_itf(traces[1])
    page = tmp_path / "settles.html"
    page.write_text(trace_page(data))
    dom = browse(page, "--dump-dom")
    assert console_messages(dom) == [] and "data-errors" not in dom.stdout
    steps = re.findall(r'<tr class="step[^"]*" data-step="(\d+)"', dom.stdout)
    assert steps == [str(i) for i in range(len(data["states"]) + 1)]      # and the closing step
    assert dom.stdout.count('<tr class="changed"') == 0                 # state 0 changes nothing
    shot = tmp_path / "shot.png"
    browse(Path(f"{page}"), f"--screenshot={shot}", "--window-size=1000,600", "--hide-scrollbars")
    assert distinct_bytes(shot) > 32


def distinct_bytes(png: Path) -> int:
    """How many byte values the decoded image data holds: a blank page has one colour."""
    raw, data, at = png.read_bytes(), b"", 8
    while at < len(raw):
        length, kind = struct.unpack(">I4s", raw[at:at + 8])
        if kind == b"IDAT":
            data += raw[at + 8:at + 8 + length]
        at += 12 + length
    return len(set(zlib.decompress(data)))
