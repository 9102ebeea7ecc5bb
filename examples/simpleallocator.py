"""Merz's simple resource allocator (tlaplus/Examples specifications/allocator/
SimpleAllocator.tla), action for action.

Clients request sets of resources, are allocated some of them (perhaps not all at once)
and return them. Clients and resources are model values in TLC's model: only their
equality is observable, so `symmetry = ["Client", "Resource"]` is sound (the spec's own
`Symmetry`). TLC with Clients = {c1, c2, c3}, Resources = {r1, r2}: 400 distinct
states, 1,633 generated, depth 6; with the symmetry 50 distinct, 226 generated.
"""
import enum
import itertools

from checker import Map, Set, Spec, action, choose, invariant, require


# the cfg's model values
Client = enum.Enum("Client", [("C1", "c1"), ("C2", "c2"), ("C3", "c3")], module=__name__)
Resource = enum.Enum("Resource", [("R1", "r1"), ("R2", "r2")], module=__name__)


SUBSETS = [frozenset(c) for n in range(len(Resource) + 1)       # SUBSET Resources
           for c in itertools.combinations(Resource, n)]


class SimpleAllocator(Spec):
    unsat: Map[Client, Set[Resource]] = Map.fill(frozenset())    # outstanding requests
    alloc: Map[Client, Set[Resource]] = Map.fill(frozenset())    # resources held

    def available(s, r) -> bool:
        """r \\in available: no client holds it."""
        return not any(r in s.alloc[c] for c in Client)

    @action
    def request(s, c: Client):
        """Request(c, S): a client holding nothing, all of whose requests were met."""
        require(not s.unsat[c] and not s.alloc[c])
        wanted = choose(SUBSETS)
        require(wanted)
        for r in wanted:
            s.unsat[c].add(r)

    @action
    def allocate(s, c: Client):
        """Allocate(c, S): some available resources the client asked for."""
        given = choose(SUBSETS)
        require(given and all(r in s.unsat[c] and s.available(r) for r in given))
        for r in given:
            s.alloc[c].add(r)
            s.unsat[c].discard(r)

    @action
    def give_back(s, c: Client):
        """Return(c, S): some of the resources it holds, even before its request is met."""
        returned = choose(SUBSETS)
        require(returned and all(r in s.alloc[c] for r in returned))
        for r in returned:
            s.alloc[c].discard(r)

    @invariant
    def type_invariant(s):
        """TypeInvariant: the domains say it."""
        return True

    @invariant
    def resource_mutex(s):
        """ResourceMutex: no resource is held by two clients."""
        return not any(r in s.alloc[a] and r in s.alloc[b]
                       for a in Client for b in Client if a != b for r in Resource)
