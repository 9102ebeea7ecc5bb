"""Liveness on the explicit state graph: fair cycles, found with strongly connected components.

A liveness property fails when some *fair* behaviour never satisfies it: `<>P` and
`P ~> Q` fail by a fair cycle (or a state where stuttering is fair) of states where the
goal is false, `<>[]P` by one through a state where P is false, `[]<><<A>>_v` by one
none of whose steps is such a step.

Fairness is TLA+'s (`checker.explicit.fairness`): it concerns only steps that change the
state. Behaviours may stutter: staying in a state forever is fair when no fairness
condition is enabled there. A cycle (an SCC of the graph) is fair when every weak
condition is taken in it or disabled somewhere in it, and every strong condition is
taken in it or disabled everywhere in it; an SCC that fails only a strong condition is
refined by dropping the states where that condition is enabled. Fault transitions never
lie on a cycle: faults happen finitely often.

A `@constraint` cuts successors, not enabledness: a fair step that leaves the constraint
still makes its condition enabled, so a behaviour stuck at the border is unfair. When the
property holds only for that reason (it would be violated if those cut steps did not
count), the verdict is `unknown`: the constraint, not the system, forced the progress.

The counterexample is a lasso: the shortest stem into the nearest fair cycle (or a state
where stuttering is fair), then a cycle through that component that meets every fairness
condition it must, with every sub-loop fairness does not need cut out.
"""
from __future__ import annotations

import copy
from collections import deque

from ..lang.dsl import Kind
from ..errors import SPEC_FAILURES
from .fairness import by_binding, conditions, owed_steps
from ..lang.bound import truth
from .machine import Machine
from ..results import Verdict
from .steps import step_holds, view
from .trace import Step, Trace, find_step

Edge = tuple[int, int]                           # (binding index, target state id)


class StateGraph:
    """The reachable states (BFS order), their state-changing edges, and the fairness
    conditions enabled in each."""

    def __init__(self, machine: Machine, states: list[tuple], steps: dict[tuple, list]):
        """`steps`: per state, (binding index, successor) of each step that changes it, in
        the order the search took them (the search reports them: nothing is recomputed)."""
        self.machine = machine
        self.states = states
        self.ids = {st: i for i, st in enumerate(states)}
        self.conditions = conditions(machine)
        self.of_binding = by_binding(self.conditions)
        self.faults = {b.index for b in machine.bindings if b.kind == Kind.FAULT}
        self.edges: list[list[Edge]] = [[] for _ in states]
        self.unowed: set[tuple[int, int]] = set()   # (binding, state): its fair_when is false
        self.enabled: list[frozenset[int]] = []     # conditions enabled in each state...
        self.cut: list[frozenset[int]] = []         # ... and enabled only by steps a constraint cut
        binding = machine.all_bindings
        for i, st in enumerate(states):
            kept, cut = set(), set()
            for b, succ, owed in owed_steps(machine, st, [(binding[b], succ) for b, succ in steps[st]]):
                j = self.ids.get(succ)
                if j is not None:                   # successors outside a constraint are not kept
                    self.edges[i].append((b.index, j))
                if not owed:
                    self.unowed.add((b.index, i))
                    continue
                (kept if j is not None else cut).update(self.of_binding.get(b.index, ()))
            self.cut.append(frozenset(cut - kept))
            self.enabled.append(frozenset(kept | cut))
        self.visible = [e - c for e, c in zip(self.enabled, self.cut)] if any(self.cut) else self.enabled

    def counted(self, b: int, u: int) -> tuple[int, ...]:
        """The conditions that binding `b`'s step from state `u` takes."""
        return () if (b, u) in self.unowed else self.of_binding.get(b, ())

    def takes(self, u: int, v: int) -> set[int]:
        """The conditions the step u -> v takes: those of every binding that makes it."""
        return {k for b, w in self.edges[u] if w == v for k in self.counted(b, u)}

    # ------------------------------------------------------------ fair components

    def fair_components(self, nodes: set[int], enabled: list[frozenset[int]]):
        """Each fair SCC (of two states or more) within `nodes`, under `enabled`."""
        import networkx as nx          # a third of a second to import: only when needed
        graph = nx.DiGraph()
        graph.add_nodes_from(nodes)
        graph.add_edges_from((u, v) for u in nodes for b, v in self.edges[u]
                             if v in nodes and b not in self.faults)
        for comp in sorted(nx.strongly_connected_components(graph), key=min):
            if len(comp) < 2:          # one state: fair only as stuttering, tried apart
                continue
            taken = {k for u in comp for b, v in self.edges[u] if v in comp and b not in self.faults
                     for k in self.counted(b, u)}
            owing = [k for k in range(len(self.conditions))
                     if k not in taken and any(k in enabled[s] for s in comp)]
            if any(self.conditions[k].kind == "weak" and all(k in enabled[s] for s in comp)
                   for k in owing):
                continue
            strong = [k for k in owing if self.conditions[k].kind == "strong"]
            if not strong:
                yield comp
            else:                      # drop the states where it is enabled
                yield from self.fair_components({s for s in comp if strong[0] not in enabled[s]},
                                                enabled)

    def nearest_fair(self, region: list[int], enabled, meets: set[int] | None = None) \
            -> tuple[int, set[int]] | None:
        """(entry, component) nearest the start in `region` (BFS order): a state where
        stuttering is fair (component {entry}) or the nearest state of a fair SCC. With
        `meets`, only a component holding one of those states, entered at the nearest."""
        order = {s: n for n, s in enumerate(region)}
        stutter = next((s for s in region if not enabled[s] and (meets is None or s in meets)), None)
        best = (order[stutter], {stutter}) if stutter is not None else None
        for comp in self.fair_components(set(region), enabled):
            entries = comp if meets is None else comp & meets
            if entries and (best is None or min(order[s] for s in entries) < best[0]):
                best = (min(order[s] for s in entries), comp)
        return None if best is None else (region[best[0]], best[1])

    def without(self, pairs: set[tuple[int, int]]) -> StateGraph:
        """This graph without the steps u -> v of `pairs` (the same states and fairness)."""
        other = copy.copy(self)
        other.edges = [[(b, v) for b, v in out if (u, v) not in pairs]
                       for u, out in enumerate(self.edges)]
        return other

    # ------------------------------------------------------------ the lasso

    def stems(self, init_ids: list[int], trigger: set[int], bad: list[bool],
              before_trigger: bool) -> dict[tuple[int, bool], tuple[int, bool] | None]:
        """Shortest stems, as BFS parents over (state, triggered): a behaviour goes
        anywhere (only if `before_trigger`) until a trigger state, then only through bad
        states. The triggered states, in insertion order, are the region, nearest first."""
        starts = [(i, True) for i in init_ids if i in trigger]
        if before_trigger:
            starts += [(i, False) for i in init_ids]
        parent: dict[tuple[int, bool], tuple[int, bool] | None] = dict.fromkeys(starts)
        todo = deque(parent)
        while todo:
            u, triggered = node = todo.popleft()
            for _, v in self.edges[u]:
                if triggered:
                    nexts = [(v, True)] if bad[v] else []
                else:
                    nexts = [(v, True), (v, False)] if v in trigger else [(v, False)]
                for nxt in nexts:
                    if nxt not in parent:
                        parent[nxt] = node
                        todo.append(nxt)
        return parent

    def cycle(self, entry: int, comp: set[int], enabled) -> list[Edge]:
        """Edges from `entry` round `comp` and back that meet every condition enabled in
        `comp`: each weak one taken or a state disabling it visited, each strong one taken.
        Greedy, nearest obligation first, then unneeded sub-loops are cut out."""
        need = {k for s in comp for k in enabled[s]}
        weak = {k for k in need if self.conditions[k].kind == "weak"}

        def unmet(edges: list[Edge]) -> set[int]:
            left, u = need - (weak - enabled[entry]), entry
            for _, v in edges:
                left -= self.takes(u, v) | (weak - enabled[v])
                u = v
            return left

        edges: list[Edge] = []
        here = entry
        while left := unmet(edges):
            edges += self._hops(here, comp, lambda b, u, v: bool(
                left & (set(self.counted(b, u)) | (weak - enabled[v]))))
            here = edges[-1][1]
        if here != entry or not edges:
            edges += self._hops(here, comp, lambda b, u, v: v == entry)
        return _cut_subloops(entry, edges, lambda e: not unmet(e))

    def _hops(self, start: int, comp: set[int], goal) -> list[Edge]:
        """Shortest non-empty run of edges inside `comp` whose last edge meets `goal`."""
        parent: dict[int, Edge | None] = {start: None}
        todo = deque([start])
        while todo:
            u = todo.popleft()
            for b, v in self.edges[u]:
                if v not in comp or b in self.faults:
                    continue
                if goal(b, u, v):
                    out = [(b, v)]
                    while parent[u] is not None:
                        pb, pu = parent[u]
                        out.append((pb, u))
                        u = pu
                    return out[::-1]
                if v not in parent:
                    parent[v] = (b, u)
                    todo.append(v)
        raise AssertionError("a strongly connected component must contain the goal")

    def lasso(self, stem: list[int], cycle: list[Edge]) -> Trace:
        """The trace: the stem's states, then the cycle's; `loop` marks where it repeats,
        `closing` is the cycle's last step, back to the loop state."""
        trace = [Step(self.states[stem[0]])]
        for u, v in zip(stem, stem[1:]):
            trace.append(find_step(self.machine, self.states[u], self.states[v]))
        loop, prev = len(trace) - 1, stem[-1]
        for b, v in cycle:
            trace.append(self._step(prev, b, v))
            prev = v
        closing = trace.pop() if cycle else None
        return Trace(trace, loop, closing)

    def _step(self, u: int, b: int, v: int) -> Step:
        binding = self.machine.all_bindings[b]      # indices count every binding
        return find_step(self.machine, self.states[u], self.states[v], binding.name,
                         dict(binding.param_labels))


def _cut_subloops(entry: int, edges: list[Edge], fair) -> list[Edge]:
    """`edges` (a closed walk from `entry`) without the sub-loops (between two visits of
    one state) that `fair(edges)` does not need, longest first."""
    while True:
        at = [entry] + [v for _, v in edges]
        cuts = sorted(((i, j) for i in range(len(edges)) for j in range(i + 1, len(at))
                       if at[i] == at[j] and (i, j) != (0, len(edges))), key=lambda c: c[0] - c[1])
        shorter = next((edges[:i] + edges[j:] for i, j in cuts if fair(edges[:i] + edges[j:])), None)
        if shorter is None:
            return edges
        edges = shorter


def check(machine: Machine, states: list[tuple], steps: dict[tuple, list],
          properties) -> dict[str, tuple]:
    """Property name -> (verdict, reason, lasso or None), on the graph of `states` and
    their `steps` (see StateGraph)."""
    graph = StateGraph(machine, states, steps)
    inits = set(machine.initial_states())
    init_ids = [graph.ids[s] for s in states if s in inits and s in graph.ids]
    return {p.name: _verdict(graph, p, init_ids) for p in properties}


REFUTED_BY = {Kind.EVENTUALLY: "a fair behaviour that never gets there",
              Kind.LEADS_TO: "a fair behaviour that never gets there",
              Kind.EVENTUALLY_ALWAYS: "a fair behaviour that leaves it infinitely often",
              Kind.INFINITELY_OFTEN: "a fair behaviour that takes such a step only finitely often"}


def _verdict(graph: StateGraph, prop, init_ids) -> tuple:
    """Violated by the first instance (parameter binding) that is; else unknown if one is."""
    unknown = None
    for args, labels in zip(prop.instances, prop.instance_labels):
        found = _check_one(graph, prop, args, init_ids)
        where = f" for {', '.join(f'{k}={v}' for k, v in labels)}" if labels else ""
        if isinstance(found, Trace):
            found.property_params = dict(labels)
            return Verdict.VIOLATED, f"{REFUTED_BY[prop.kind]} (lasso){where}", found
        if found is not None and unknown is None:
            unknown = found + where
    return (Verdict.UNKNOWN, unknown, None) if unknown else (Verdict.HOLDS, None, None)


def _check_one(graph: StateGraph, prop, args, init_ids) -> Trace | str | None:
    """A lasso, the reason the verdict is unknown, or None when this instance holds."""
    machine = graph.machine
    meets = None                                  # states the cycle must pass through
    if prop.kind == Kind.EVENTUALLY:              # <>P: from an initial state, never P
        bad = [not _holds(machine, prop, args, st) for st in graph.states]
        trigger = {i for i in init_ids if bad[i]}
    elif prop.kind == Kind.LEADS_TO:              # P ~> Q: from a P state, never Q
        pairs = [_holds(machine, prop, args, st) for st in graph.states]
        bad = [not q for _, q in pairs]
        trigger = {i for i, (p, q) in enumerate(pairs) if p and not q}
    else:                                         # anywhere, then round a cycle
        bad, trigger = [True] * len(graph.states), set(range(len(graph.states)))
        if prop.kind == Kind.EVENTUALLY_ALWAYS:   # <>[]P: through a state not P
            meets = {i for i, st in enumerate(graph.states) if not _holds(machine, prop, args, st)}
    parent = graph.stems(init_ids, trigger, bad, before_trigger=prop.kind == Kind.LEADS_TO)
    region = [s for s, triggered in parent if triggered]
    looping = graph.without(_steps_where(graph, prop)) if prop.kind == Kind.INFINITELY_OFTEN \
        else graph                                # []<>A: round a cycle of no A step
    found = looping.nearest_fair(region, graph.enabled, meets)
    if found is not None:
        entry, comp = found
        stem, node = [], (entry, True)
        while node is not None:
            stem.append(node[0])
            node = parent[node]
        return graph.lasso(stem[::-1], looping.cycle(entry, comp, graph.enabled) if len(comp) > 1 else [])
    if graph.visible is not graph.enabled and (vacuous := looping.nearest_fair(region, graph.visible, meets)):
        cut = sorted({graph.conditions[k].label for s in vacuous[1] for k in graph.cut[s]})
        return f"holds only because fairness forces {', '.join(cut)} out of the @constraint; widen it to decide"
    return None


def _steps_where(graph: StateGraph, prop) -> set[tuple[int, int]]:
    """The steps u -> v of the graph (by state id) that some binding making them takes
    with step property `prop` true."""
    machine, views = graph.machine, {}

    def view_of(i):
        if i not in views:
            views[i] = view(machine, graph.states[i])
        return views[i]
    binding = machine.all_bindings
    return {(u, v) for u, out in enumerate(graph.edges) for b, v in out
            if step_holds(machine, prop, view_of(u), view_of(v), binding[b])}


def _holds(machine: Machine, prop, args, st):
    """`prop` evaluated in `st`: a bool, or for leads_to the pair (p, q) as bools."""
    machine.load(machine.scratch, st)
    try:
        value = prop.fn(machine.scratch, *args)
        if prop.kind == Kind.LEADS_TO:
            p, q = value
            return truth(p, prop.name, prop.fn), truth(q, prop.name, prop.fn)
        return truth(value, prop.name, prop.fn)
    except SPEC_FAILURES as e:
        raise machine.error_in(prop.name, e) from None
