"""Lamport's distributed mutual exclusion algorithm (Time, Clocks and the Ordering of
Events, CACM 1978; tlaplus/Examples specifications/lamport_mutex/LamportMutex.tla with
the model MCLamportMutex: N = 3, maxClock = 6, Nat <- 0..MaxNat, MaxNat = 7), action
for action.

A process broadcasts a timestamped request, collects an acknowledgement from every
other process, and enters once its request beats every request it has heard of; on
exit it broadcasts a release. Channels are pairwise FIFO queues. The model's CONSTRAINT
ClockConstraint (no clock beyond maxClock) is the `@constraint` below. TLC: 724,274
distinct states, 2,729,079 generated, depth 61.

A channel is a `Seq` of at most 3 messages: BoundedNetwork says no reachable channel
holds more, and 3 is also the largest capacity whose sequences stay within the engine's
65,536-value limit (a channel has 1 + m + m^2 + m^3 values for m = 3 (MaxNat + 1)
messages, so MaxNat may go up to 12). So BoundedNetwork holds by construction here; a
fourth message would stop the check with an error at the line that appends it, instead
of a violation of BoundedNetwork.
"""
import enum
from typing import NamedTuple

from checker import (Const, Int, Map, Seq, Set, Spec, action, append, constraint, head, initial,
                     invariant, require, tail)

CHANNEL_CAPACITY = 3


class MsgType(enum.Enum):
    REQ = "req"
    ACK = "ack"
    REL = "rel"


class LamportMutex(Spec):
    N = Const(3, "number of processes", min=1)
    maxClock = Const(6, "ClockConstraint: states with a clock beyond it are not explored",
                     min=1)
    MaxNat = Const(7, "the model's Nat <- 0..MaxNat; must exceed maxClock", min=1)
    Proc = Int[1, N]
    Nat = Int[0, MaxNat]
    Clock = Int[1, MaxNat]                      # Nat \ {0}
    # The record [type, clock]; written as a call so that it sees the constants.
    Message = NamedTuple("Message", [("type", MsgType), ("clock", Nat)])
    Channel = Seq[Message, CHANNEL_CAPACITY]

    clock: Map[Proc, Clock] = Map.fill(1)
    req: Map[Proc, Map[Proc, Nat]]              # req[p][q]: q's request as p knows it, 0 if none
    ack: Map[Proc, Set[Proc]] = Map.fill(frozenset())
    network: Map[Proc, Map[Proc, Channel]]      # network[p][q]: messages from p to q
    crit: Set[Proc] = frozenset()

    ACK = Message(MsgType.ACK, 0)               # AckMessage
    REL = Message(MsgType.REL, 0)               # RelMessage

    @initial
    def init(s):
        """Init: clocks at 1, no requests, no acknowledgements, empty channels."""
        procs = list(s.clock)
        s.req = {p: {q: 0 for q in procs} for p in procs}
        s.network = {p: {q: () for q in procs} for p in procs}

    def beats(s, p, q) -> bool:
        """beats(p, q): p's request precedes q's as far as p knows (ties: lower id)."""
        mine, theirs = s.req[p][p], s.req[p][q]
        return theirs == 0 or mine < theirs or (mine == theirs and p < q)

    def head_type(s, sender, receiver):
        """`Head(network[sender][receiver]).type`, None where the channel is empty."""
        channel = s.network[sender][receiver]
        return head(channel).type if channel else None

    def broadcast(s, sender, m):
        """network[sender] := Broadcast(sender, m): append m to every other channel."""
        out = s.network[sender]
        for r in out:
            if r != sender:
                out[r] = append(out[r], m)

    @action
    def request(s, p: Proc):
        """Request(p)"""
        require(s.req[p][p] == 0)
        s.req[p][p] = s.clock[p]
        s.broadcast(p, s.Message(MsgType.REQ, s.clock[p]))
        s.ack[p] = {p}

    @action
    def receive_request(s, p: Proc, q: Proc):
        """ReceiveRequest(p, q): record q's request, advance the clock, acknowledge."""
        require(p != q)
        require(s.head_type(q, p) is MsgType.REQ)
        c = head(s.network[q][p]).clock
        s.req[p][q] = c
        s.clock[p] = c + 1 if c > s.clock[p] else s.clock[p] + 1
        s.network[q][p] = tail(s.network[q][p])
        s.network[p][q] = append(s.network[p][q], s.ACK)

    @action
    def receive_ack(s, p: Proc, q: Proc):
        """ReceiveAck(p, q)"""
        require(p != q)
        require(s.head_type(q, p) is MsgType.ACK)
        s.ack[p].add(q)
        s.network[q][p] = tail(s.network[q][p])

    @action
    def enter(s, p: Proc):
        """Enter(p): acknowledged by all and beating every request. Not guarded by
        p \\notin crit, so in the critical section it stays enabled as a self-loop."""
        require(len(s.ack[p]) == s.N)
        require(all(s.beats(p, q) for q in s.clock if q != p))
        s.crit.add(p)

    @action
    def exit(s, p: Proc):
        """Exit(p): leave, release the request, broadcast a release."""
        require(p in s.crit)
        s.crit.discard(p)
        s.broadcast(p, s.REL)
        s.req[p][p] = 0
        s.ack[p] = set()

    @action
    def receive_release(s, p: Proc, q: Proc):
        """ReceiveRelease(p, q): forget q's request."""
        require(p != q)
        require(s.head_type(q, p) is MsgType.REL)
        s.req[p][q] = 0
        s.network[q][p] = tail(s.network[q][p])

    @constraint
    def clock_constraint(s):
        """ClockConstraint"""
        return max(s.clock.values()) <= s.maxClock

    @invariant
    def type_ok(s):
        """TypeOK: clocks in Clock, requests in Nat, channels of messages; the variables'
        domains are exactly these sets, so only the messages' shapes are left to check."""
        return all((m.clock > 0) == (m.type is MsgType.REQ)
                   for row in s.network.values() for channel in row.values() for m in channel)

    @invariant
    def bounded_network(s):
        """BoundedNetwork: no channel holds more than three messages."""
        return all(len(channel) <= 3 for row in s.network.values() for channel in row.values())

    @invariant
    def mutex(s):
        """Mutex: at most one process in the critical section."""
        return len(s.crit) <= 1
