"""The trace writer's JSON is the standard library's, byte for byte, and written by the
writer itself wherever it can (a fallback to `json.dumps` would pass every equality)."""
from __future__ import annotations

import enum
import json

import pytest
from hypothesis import given, strategies as st

from checker.output import jsontext
from checker.output.jsontext import indented
from conftest import ROOT


class Word(str, enum.Enum):
    A = "a"
    B = "b\u00e9\n"


class Number(enum.IntEnum):
    ONE = 1


OWN = st.none() | st.booleans() | st.integers() | st.text() | st.sampled_from([*Word, *Number])
OTHER = st.floats(allow_nan=True, allow_infinity=True)


def values(scalars, keys):
    return st.recursive(scalars, lambda inner: st.lists(inner) | st.tuples(inner, inner) |
                        st.dictionaries(keys, inner), max_leaves=40)


@pytest.fixture
def no_fallback(monkeypatch):
    monkeypatch.setattr(jsontext, "json", None)


@given(values(OWN | OTHER, st.text() | st.integers() | st.booleans()))
def test_any_json_value_is_written_as_json_dumps_writes_it(value):
    assert indented(value) == json.dumps(value, indent=1)


@given(values(OWN, st.text() | st.sampled_from(list(Word))))
def test_strings_ints_and_containers_are_written_without_the_standard_library(value):
    expected = json.dumps(value, indent=1)
    jsontext.json, saved = None, jsontext.json
    try:
        assert indented(value) == expected
    finally:
        jsontext.json = saved


def test_every_checked_in_trace_is_written_as_json_dumps_writes_it(no_fallback):
    traces = sorted((ROOT / "examples" / "traces").rglob("*.itf.json"))
    assert len(traces) > 50
    for path in traces[::5]:
        trace = json.loads(path.read_text())
        assert indented(trace) == json.dumps(trace, indent=1), path
