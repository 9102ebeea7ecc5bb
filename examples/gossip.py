"""A map as a record field (TLA+'s `[src: Node, seen: [Node -> BOOLEAN]]`): a message
carries what its sender has heard of, as a function of the nodes
(examples/tlc/Gossip/Gossip.tla with N = 2, action for action).

A node sends what it has heard of and merges what a message it picks says. SelfSeen: a
message's sender had heard of itself. With Forget (GossipForget.cfg), a sender leaves
itself out, and the first message sent violates it. TLC: 20 distinct states, 125
generated, depth 7. TypeOK is the variables' domains.
"""
from typing import NamedTuple

from checker import Const, FrozenMap, Int, Map, Set, Spec, action, choose, initial, invariant

Node = Int[1, 2]
NODES = Node.values


class Msg(NamedTuple):
    src: Node
    seen: Map[Node, bool]              # a FrozenMap: a record's map field hashes


class Gossip(Spec):
    Forget = Const(False, "a sender leaves itself out of seen (the mutant)")

    heard: Map[Node, Set[Node]]
    msgs: Set[Msg] = frozenset()

    @initial
    def init(s):
        s.heard = {n: {n} for n in NODES}

    @action
    def send(s, n: Node):
        seen = FrozenMap({m: m in s.heard[n] and not (s.Forget and m == n) for m in NODES})
        s.msgs.add(Msg(n, seen))

    @action
    def recv(s, n: Node):
        """Recv(n): \\E msg \\in msgs, one successor per message."""
        msg = choose(s.msgs)
        s.heard[n] |= {k for k in NODES if msg.seen[k]}

    @invariant
    def self_seen(s):
        """SelfSeen == \\A msg \\in msgs : msg.seen[msg.src]"""
        return all(msg.seen[msg.src] for msg in s.msgs)
