"""Which worker owns a state (`checker.explicit.partition`): the variables that seldom
change, when they split the states evenly; the same search as one process either way."""
from __future__ import annotations

import dataclasses

import pytest

import checker.explicit.explorer
from checker import Int, Spec, action, choose, initial, invariant, require
from checker.explicit import partition
from checker.explicit.explorer import ExplicitEngine
from checker.explicit.machine import Machine
from checker.options import CheckOptions
from test_parallel import outcome


class Rooms(Spec):
    """A walker in one of 64 rooms counts its steps; it changes room only after ten."""
    room: Int[0, 63] = 0
    walked: Int[0, 10] = 0
    lamp: Int[0, 1] = 0

    @initial
    def init(s):
        s.room = choose(range(64))

    @action
    def walk(s):
        require(s.walked < 10)
        s.walked += 1

    @action
    def toggle(s):
        s.lamp = 1 - s.lamp

    @action
    def move(s):
        require(s.walked == 10)
        s.room = (s.room + 1) % 64
        s.walked = 0

    @invariant
    def counted(s):
        return s.walked <= 10


def first_steps(machine):
    """The states one step from the initial ones, each with its parent."""
    parent_of = {}
    for st in machine.initial_states():
        for _, _, succ in machine.successors(st):
            parent_of.setdefault(succ, st)
    return list(parent_of), parent_of


def names(machine, mask):
    return {v.name for v in machine.variables if mask >> v.index & 1}


def test_the_variable_no_step_changes_owns_the_states_when_it_spreads_them_evenly():
    machine = Machine(Rooms)
    level, parent_of = first_steps(machine)
    mask, crossing = partition.choose(machine, level, parent_of, 2)
    assert names(machine, mask) == {"room"}
    assert crossing == 0                                # no first step changes the room


def test_without_an_even_split_among_seldom_changed_variables_the_whole_state_decides():
    machine = Machine(Rooms)
    level, parent_of = first_steps(machine)
    few_rooms = [st for st in level if st[0] < 8]       # 8 rooms cannot fill 2 x 32 hashes
    assert partition.choose(machine, few_rooms, parent_of, 2) == (-1, 0.5)
    assert partition.choose(machine, level, {}, 2) == (-1, 0.5)     # no step seen: no rates


def test_owned_by_room_the_workers_search_as_one_process_does(monkeypatch):
    monkeypatch.setattr(checker.explicit.explorer, "PARALLEL_FROM", 100)    # the second level: 128 states
    machine = Machine(Rooms)
    options = CheckOptions(deadlock=True)
    one = ExplicitEngine(machine, dataclasses.replace(options, store="fingerprint")).check()
    split = ExplicitEngine(machine, dataclasses.replace(options, workers=2)).check()
    assert "2 worker processes (owner by room)" in split.method
    assert outcome(split) == outcome(one)
    assert split.stats.distinct_states == 64 * 11 * 2


@pytest.mark.parametrize("seldom, split_at", [(0.2, "from depth 2"), (-1, None)])
def test_a_smaller_level_splits_already_if_its_hash_would_seldom_cross(monkeypatch, seldom,
                                                                      split_at):
    monkeypatch.setattr(checker.explicit.explorer, "PARALLEL_FROM", 10 ** 9)   # never by size
    monkeypatch.setattr(checker.explicit.explorer, "SPLIT_EARLY", 100)   # 128 states at depth 2
    monkeypatch.setattr(checker.explicit.explorer, "SELDOM", seldom)
    machine = Machine(Rooms)
    split = ExplicitEngine(machine, CheckOptions(workers=2)).check()
    if split_at:
        assert f"2 worker processes (owner by room) {split_at}" in split.method
    else:
        assert "worker processes" not in split.method
    assert split.stats.distinct_states == 64 * 11 * 2
