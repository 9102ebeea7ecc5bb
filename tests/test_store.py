"""The visited store: exact states or 64-bit fingerprints give the same search, and a
trace rebuilt from fingerprints replays."""
from __future__ import annotations

import dataclasses

import pytest

import checker.explicit.store
from checker.errors import ModelError
from checker.explicit.explorer import ExplicitEngine
from checker.model import load_model
from checker.explicit.trace import replay
from conftest import ROOT
from test_bulk import observed

EXAMPLES = sorted(p.stem for p in (ROOT / "examples/models").glob("*.toml"))


def run(name: str, store: str):
    model = load_model(ROOT / "examples/models" / f"{name}.toml")
    machine = model.machine()
    options = dataclasses.replace(model.options, store=store)
    return machine, ExplicitEngine(machine, options).check()


@pytest.mark.parametrize("name", EXAMPLES)
def test_fingerprints_and_exact_states_give_the_same_search(name):
    _, exact = run(name, "exact")
    machine, printed = run(name, "fingerprint")
    assert observed(printed) == observed(exact)
    for p in printed.properties:
        if p.trace is not None and p.trace.loop is None:
            assert replay(machine, p.trace).ok
    if not any(p.kind in ("eventually", "leads_to") for p in printed.properties):
        assert "fingerprints" in printed.method and "exact" not in (exact.method or "")


def test_auto_switches_to_fingerprints_between_levels_and_changes_nothing(monkeypatch):
    _, exact = run("hanoi", "exact")
    monkeypatch.setattr(checker.explicit.store, "FINGERPRINT_AFTER", 20)
    machine, auto = run("hanoi", "auto")
    assert "fingerprints" in auto.method
    assert observed(auto) == observed(exact)
    (violated,) = [p for p in auto.properties if p.trace is not None]
    assert len(violated.trace.steps) == 32 and replay(machine, violated.trace).ok


def test_an_unknown_store_in_a_model_file_is_one_line_with_its_line(tmp_path):
    path = tmp_path / "m.toml"
    path.write_text('spec = "examples.diehard:DieHard"\n[check]\nstore = "disk"\n')
    with pytest.raises(ModelError) as e:
        load_model(path)
    assert "unknown store 'disk'" in str(e.value) and ":3" in e.value.where
