"""The symbolic relation's disk cache (checker/symbolic/store.py): a second run reads
the same formulas from it and decides the same; a bad entry is ignored and rebuilt."""
from __future__ import annotations

from pathlib import Path

import pytest

from checker import Const, Int, Spec, action, choose, invariant, require
from checker.explicit.machine import Machine
from checker.options import CheckOptions
from checker.symbolic.bmc import BMC
from checker.symbolic.certificate import certify
from checker.symbolic.pdr import PDR
from checker.symbolic import store
from checker.symbolic.store import FORMAT, RelationStore, key_of


class Gate(Spec):
    """`level` rises while `open`, by a chosen step; it never passes `top`."""
    top = Const(3, "the highest level", min=1, max=5)
    level: Int[0, 5] = 0
    open: bool = True

    @action
    def rise(s):
        require(s.open and s.level < s.top)
        s.level += choose([1])
        s.open = s.level < s.top - 1

    @invariant
    def below_top(s):
        return s.level <= s.top - 1


class LeakyGate(Gate):
    """Mutant: the gate never closes, so level reaches top."""
    @action
    def rise(s):
        require(s.level < s.top)
        s.level += 1


def run(engine, machine, tmp_path, monkeypatch):
    """(verdicts and reasons, certificates, progress lines) of one run with the cache in tmp_path."""
    monkeypatch.setenv("CHECK_MODEL_CACHE", str(tmp_path))
    said = []
    result = engine(machine, CheckOptions(), progress=said.append).check()
    return ({p.name: (p.verdict.value, p.reason) for p in result.properties},
            [getattr(p, "certificate", None) for p in result.properties], said)


def entries(tmp_path):
    return sorted((tmp_path / "relations").glob("*.rel"))


def test_a_second_proof_reads_the_relation_from_the_cache_and_decides_the_same(tmp_path, monkeypatch):
    first, _, said = run(PDR, Machine(Gate), tmp_path, monkeypatch)
    assert first["below_top"][0] == "holds" and "read in" in said[0]
    (entry,) = entries(tmp_path)
    second, (cert,), said = run(PDR, Machine(Gate), tmp_path, monkeypatch)
    assert "read from the cache" in said[0] and second == first
    assert certify(cert, Machine(Gate)) == []
    # the mutant, and another constant, are other entries: refuted, not proved
    bad, _, said = run(BMC, Machine(LeakyGate), tmp_path, monkeypatch)
    assert bad["below_top"][0] == "violated" and "read in" in said[0]
    assert run(PDR, Machine(Gate, {"top": 2}), tmp_path, monkeypatch)[0]["below_top"][0] == "holds"
    assert len(entries(tmp_path)) == 3 and entry in entries(tmp_path)


@pytest.mark.parametrize("damage", ["truncated", "flipped", "another format", "empty"])
def test_a_bad_entry_is_ignored_and_rebuilt(tmp_path, monkeypatch, damage):
    first, _, _ = run(PDR, Machine(Gate), tmp_path, monkeypatch)
    (entry,) = entries(tmp_path)
    data = entry.read_bytes()
    entry.write_bytes({"truncated": data[:len(data) // 2],
                       "flipped": data[:-40] + bytes(b ^ 0xFF for b in data[-40:]),
                       "another format": FORMAT.upper() + data[len(FORMAT):],
                       "empty": b""}[damage])
    again, _, said = run(PDR, Machine(Gate), tmp_path, monkeypatch)
    assert again == first
    assert said[0].startswith(f"ignored the cache entry {entry}") and "read in" in said[1]
    assert "read from the cache" in run(PDR, Machine(Gate), tmp_path, monkeypatch)[2][0]


def test_an_entry_of_another_spec_under_the_same_key_is_not_used(tmp_path, monkeypatch):
    """Should two specs ever share a key, the entry's own key and state layout decide."""
    run(PDR, Machine(LeakyGate), tmp_path, monkeypatch)
    (entry,) = entries(tmp_path)
    gate = Machine(Gate)
    entry.rename(entry.with_name(f"{key_of(gate)}.rel"))
    verdicts, _, said = run(PDR, gate, tmp_path, monkeypatch)
    assert said[0].startswith("ignored the cache entry") and "another key" in said[0]
    assert verdicts["below_top"][0] == "holds"


def test_the_cache_can_be_turned_off_and_the_key_follows_the_constants(tmp_path, monkeypatch):
    monkeypatch.setenv("CHECK_MODEL_CACHE", "off")
    assert RelationStore(Machine(Gate)).entry is None
    PDR(Machine(Gate), CheckOptions()).check()
    assert not (tmp_path / "relations").exists()
    assert key_of(Machine(Gate)) == key_of(Machine(Gate))
    assert len({key_of(Machine(Gate)), key_of(Machine(Gate, {"top": 2})),
                key_of(Machine(LeakyGate)), key_of(Machine(Gate, symbolic={"top": ">= 1"}))}) == 4


def test_the_key_covers_what_reads_the_spec_not_the_engines_that_take_the_reading():
    files = {Path(f).relative_to(Path(store.__file__).parent.parent).as_posix()
             for f in store._source_files(Gate) if "/checker/" in f}
    assert {"symbolic/relation.py", "symbolic/paths.py", "lang/domains.py"} <= files
    assert not files & {"symbolic/pdr.py", "symbolic/bmc.py", "symbolic/certificate.py"}


def test_a_cache_directory_that_cannot_be_written_is_no_cache(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    verdicts, _, said = run(PDR, Machine(Gate), blocked, monkeypatch)
    assert verdicts["below_top"][0] == "holds" and "read in" in said[0]
