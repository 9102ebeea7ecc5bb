"""Maps and sets edited in place: undo restores them, and patched codes equal fresh ones."""
from hypothesis import given, settings, strategies as st

from checker import Int, Map, Set, Spec, action
from checker.explicit.machine import Machine


class Store(Spec):
    Key = Int[0, 3]
    table: Map[Key, Int[0, 3]] = Map.fill(0)
    members: Set[Key] = frozenset()
    nested: Map[Int[0, 1], Set[Key]] = Map.fill(frozenset())

    @action
    def noop(s):
        pass


keys = st.integers(0, 3)
ops = st.lists(st.one_of(
    st.tuples(st.just("put"), keys, keys),
    st.tuples(st.just("add"), keys, st.just(0)),
    st.tuples(st.just("discard"), keys, st.just(0)),
    st.tuples(st.just("nested_add"), st.integers(0, 1), keys),
    st.tuples(st.just("nested_discard"), st.integers(0, 1), keys),
    st.tuples(st.just("ior"), keys, keys),
), max_size=12)


def apply(s, op, a, b):
    if op == "put":
        s.table[a] = b
    elif op == "add":
        s.members.add(a)
    elif op == "discard":
        s.members.discard(a)
    elif op == "nested_add":
        s.nested[a].add(b)
    elif op == "nested_discard":
        s.nested[a].discard(b)
    else:
        s.members |= {a, b}


@settings(max_examples=200, deadline=None)
@given(start=ops, edits=ops)
def test_undo_restores_and_codes_are_patched_correctly(start, edits):
    m = Machine(Store)
    sc = m.scratch
    # Build an arbitrary starting state from the initial one.
    init = m.initial_states()[0]
    base = m.load(sc, init)
    for op in start:
        apply(sc, *op)
    origin = m.encode(sc, base, init, "setup")
    m.restore(sc, base)

    base = m.load(sc, origin)
    before = m.plain(origin)
    for op in edits:
        apply(sc, *op)
    patched = m.encode(sc, base, origin, "edit")
    fresh = tuple(v.domain.encode(getattr(sc, v.name)) for v in m.variables)
    assert patched == fresh
    m.restore(sc, base)
    assert {v.name: v.domain.encode(getattr(sc, v.name)) for v in m.variables} == \
        dict(zip([v.name for v in m.variables], origin))
    assert m.plain(m.encode(sc, base, origin, "after")) == before
