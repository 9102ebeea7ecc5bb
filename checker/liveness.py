"""Liveness on the explicit state graph: fair cycles, found with strongly connected components.

A liveness property fails when some *fair* behaviour avoids the good states forever.
Behaviours may stutter (TLA+ semantics): staying in a state forever is fair only when no
fair action is enabled there. A cycle (an SCC of the graph) is fair when every weakly
fair binding is taken in it or disabled somewhere in it, and every strongly fair binding
is taken in it or disabled everywhere in it; an SCC that fails only a strong-fairness
condition is refined by dropping the states where that binding is enabled. Fault
transitions never lie on a cycle: faults happen finitely often.

The counterexample is a lasso: the shortest prefix found by BFS into a fair SCC, then a
cycle through it that takes (or passes a state disabling) every fair binding it must.
"""
from __future__ import annotations

from collections import deque

from .errors import SPEC_FAILURES
from .machine import Binding, Machine, truth
from .trace import Step, Trace, find_step


class StateGraph:
    """The reachable states (BFS order) with labelled edges and enabled fair bindings."""

    def __init__(self, machine: Machine, states: list[tuple]):
        self.machine = machine
        self.states = states
        self.ids = {st: i for i, st in enumerate(states)}
        self.edges: list[list[tuple[int, int]]] = [[] for _ in states]   # (binding, target)
        self.fair = {b.index: b for b in machine.bindings if b.fair}
        self.enabled: list[frozenset[int]] = []     # fair bindings enabled (and owed) in each state
        self.unowed: set[tuple[int, int]] = set()   # (binding, state): fairness does not apply
        for i, st in enumerate(states):
            on = set()
            for b, _, succ in machine.successors(st):
                j = self.ids.get(succ)
                if j is not None:                   # successors outside a constraint are not kept
                    self.edges[i].append((b.index, j))
                if b.index in self.fair:
                    on.add(b.index)
            for b in list(on):
                when = self.fair[b].fair_when
                if when is not None and not machine.check(when, st, f"fair_when of {self.fair[b].name}"):
                    on.discard(b)
                    self.unowed.add((b, i))
            self.enabled.append(frozenset(on))
        self.faults = {b.index for b in machine.bindings if b.kind == "fault"}

    def region(self, starts: list[int], inside: list[bool]) -> dict[int, None]:
        """States reachable from `starts` through states where `inside` holds, in BFS order."""
        seen = dict.fromkeys(s for s in starts if inside[s])
        todo = deque(seen)
        while todo:
            u = todo.popleft()
            for _, v in self.edges[u]:
                if inside[v] and v not in seen:
                    seen[v] = None
                    todo.append(v)
        return seen

    def fair_component(self, nodes: dict[int, None]) -> tuple[set[int], dict] | None:
        """A fair SCC within `nodes` (with how each fair binding is satisfied), or None.
        Stuttering is tried first, nearest the start, as it gives the shortest lasso."""
        for s in nodes:
            if not self.enabled[s]:
                return {s}, {}                      # stuttering here forever is fair
        return self._search(set(nodes))

    def _search(self, nodes: set[int]):
        import networkx as nx          # a third of a second to import: only when needed
        graph = nx.DiGraph()
        graph.add_nodes_from(nodes)
        for u in nodes:
            for b, v in self.edges[u]:
                if v in nodes and b not in self.faults:
                    graph.add_edge(u, v)
        for comp in sorted(nx.strongly_connected_components(graph), key=min):
            if len(comp) == 1 and not graph.has_edge(next(iter(comp)), next(iter(comp))):
                continue
            taken = {b for u in comp for b, v in self.edges[u]
                     if v in comp and b not in self.faults and (b, u) not in self.unowed}
            how, refine = {}, None
            for b, binding in self.fair.items():
                disabled_at = [s for s in comp if b not in self.enabled[s]]
                if b in taken:
                    how[b] = "taken"
                elif binding.fair == "weak" and disabled_at:
                    how[b] = disabled_at[0]
                elif binding.fair == "strong" and len(disabled_at) == len(comp):
                    how[b] = disabled_at[0]
                elif binding.fair == "strong" and disabled_at:
                    refine = set(disabled_at)           # drop the states where b is enabled
                    break
                else:
                    how = None
                    break
            if how is not None and refine is None:
                return comp, how
            if refine:
                found = self._search(refine)
                if found:
                    return found
        return None

    def path(self, sources: list[int], targets: set[int], allowed=None) -> list[int] | None:
        """Shortest path (state ids) from one of `sources` to one of `targets`."""
        parent = {s: None for s in sources if allowed is None or s in allowed}
        todo = deque(parent)
        while todo:
            u = todo.popleft()
            if u in targets:
                out = [u]
                while parent[out[-1]] is not None:
                    out.append(parent[out[-1]])
                return out[::-1]
            for _, v in self.edges[u]:
                if v not in parent and (allowed is None or v in allowed):
                    parent[v] = u
                    todo.append(v)
        return None

    def cycle(self, entry: int, comp: set[int], how: dict) -> list[tuple[int, int]]:
        """Edges (binding, target) from `entry` around `comp` and back, meeting `how`:
        each fair binding taken once, or a state disabling it visited. Empty: a stutter."""
        if comp == {entry} and not any(v == entry for _, v in self.edges[entry]):
            return []
        steps: list[tuple[int, int]] = []
        here = entry
        for b, h in how.items():
            if h == "taken":
                steps += self._hops(here, lambda eb, u, v, b=b: eb == b and (b, u) not in self.unowed, comp)
            elif here != h:
                steps += self._hops(here, lambda eb, u, v, h=h: v == h, comp)
            here = steps[-1][1] if steps else entry
        if here != entry or not steps:
            steps += self._hops(here, lambda eb, u, v: v == entry, comp)
        return steps

    def _hops(self, start: int, goal, comp: set[int]) -> list[tuple[int, int]]:
        """Shortest non-empty run of edges inside `comp` whose last edge meets `goal`."""
        parent: dict[int, tuple[int, int] | None] = {start: None}
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

    def lasso(self, prefix: list[int], steps: list[tuple[int | None, int]]) -> Trace:
        """The trace: prefix states, then the cycle; `loop` marks where it repeats."""
        m = self.machine
        trace = [Step(self.states[prefix[0]])]
        for u, v in zip(prefix, prefix[1:]):
            trace.append(find_step(m, self.states[u], self.states[v]))
        loop = len(trace) - 1
        prev = prefix[-1]
        for b, v in steps[:-1]:                 # the last edge returns to the loop state
            trace.append(self._step(prev, b, v))
            prev = v
        return Trace(trace, loop)

    def _step(self, u: int, b: int, v: int) -> Step:
        binding: Binding = self.machine.all_bindings[b]     # indices count every binding
        return find_step(self.machine, self.states[u], self.states[v], binding.name,
                         dict(binding.param_labels))


def check(machine: Machine, states: list[tuple], properties) -> dict[str, Trace | None]:
    """Property name -> lasso counterexample, or None when the property holds."""
    graph = StateGraph(machine, states)
    inits = set(machine.initial_states())
    init_ids = [graph.ids[s] for s in states if s in inits and s in graph.ids]
    found = {}
    for p in properties:
        found[p.name] = next(filter(None, (_check_one(graph, machine, p, args, init_ids)
                                           for args in p.instances)), None)
    return found


def _check_one(graph: StateGraph, machine: Machine, prop, args, init_ids) -> Trace | None:
    if prop.kind == "eventually":
        bad = [not _holds(machine, prop, args, st) for st in graph.states]
        starts = [i for i in init_ids if bad[i]]
        trigger = set(starts)
    else:
        pairs = [_holds(machine, prop, args, st) for st in graph.states]
        bad = [not q for _, q in pairs]
        trigger = {i for i, (p, q) in enumerate(pairs) if p and not q}
        starts = sorted(trigger)
    region = graph.region(starts, bad)
    found = graph.fair_component(region)
    if found is None:
        return None
    comp, how = found
    # The prefix: to a trigger state (anywhere), then within the bad region to the SCC.
    back = _backward(graph, comp, set(region))
    lead = graph.path(init_ids, trigger & back)
    tail = graph.path([lead[-1]], comp, allowed=set(region))
    prefix = lead + tail[1:]
    return graph.lasso(prefix, graph.cycle(prefix[-1], comp, how))


def _backward(graph: StateGraph, comp: set[int], region: set[int]) -> set[int]:
    """States of `region` from which `comp` is reachable inside `region`."""
    reverse: dict[int, list[int]] = {}
    for u in region:
        for _, v in graph.edges[u]:
            if v in region:
                reverse.setdefault(v, []).append(u)
    seen = set(comp)
    todo = deque(comp)
    while todo:
        v = todo.popleft()
        for u in reverse.get(v, ()):
            if u not in seen:
                seen.add(u)
                todo.append(u)
    return seen


def _holds(machine: Machine, prop, args, st):
    """`prop` evaluated in `st`: a bool, or for leads_to the pair (p, q) as bools."""
    machine.load(machine.scratch, st)
    try:
        value = prop.fn(machine.scratch, *args)
        if prop.kind == "leads_to":
            p, q = value
            return truth(p, prop.name, prop.fn), truth(q, prop.name, prop.fn)
        return truth(value, prop.name, prop.fn)
    except SPEC_FAILURES as e:
        raise machine.error_in(prop.name, e) from None
