"""The alternating bit protocol over lossy FIFO channels (tlaplus/Examples
specifications/SpecifyingSystems/TLC/AlternatingBit.tla with the model
MCAlternatingBit: Data = {d1, d2}, msgQLen = ackQLen = 2), action for action.

The sender tags each new value with a flipped bit and resends it until the receiver's
acknowledgement carries that bit back; either queue may lose any message (LoseMsg,
LoseAck). The queues are unbounded in TLA+; the model's CONSTRAINT SeqConstraint
(`Len(msgQ) <= msgQLen /\\ Len(ackQ) <= ackQLen`) is the `@constraint` below, so an
append to a full queue is generated and counted but not stored or explored. TLC:
8 initial states, 240 distinct states, 1392 generated, depth 10.

The cfg also checks ABCSpec (refinement of ABCorrectness, with its fairness) and
SentLeadsToRcvd (a leads-to); both are temporal properties, not checked here yet.
"""
import enum
from typing import NamedTuple

from checker import (Const, Int, Seq, Spec, action, append, choose, constraint, head, initial,
                     invariant, require, tail)

# The queues have room for one element past the largest SeqConstraint bound, so that the
# constrained-away successors can still be represented and counted.
MAX_QUEUE_BOUND = 3

Bit = Int[0, 1]


class Data(enum.Enum):
    D1 = "d1"
    D2 = "d2"


class Msg(NamedTuple):
    """A message <<bit, d>> of the sender."""
    bit: Bit
    data: Data


def lose(q, i: int):
    """`Lose(q)` at position i: `[j \\in 1..Len(q)-1 |-> IF j < i THEN q[j] ELSE q[j+1]]`."""
    return q[:i - 1] + q[i:]


class AlternatingBit(Spec):
    msgQLen = Const(2, "SeqConstraint's bound on Len(msgQ)", min=0, max=MAX_QUEUE_BOUND)
    ackQLen = Const(2, "SeqConstraint's bound on Len(ackQ)", min=0, max=MAX_QUEUE_BOUND)

    msg_q: Seq[Msg, MAX_QUEUE_BOUND + 1] = ()
    ack_q: Seq[Bit, MAX_QUEUE_BOUND + 1] = ()
    s_bit: Bit
    s_ack: Bit
    r_bit: Bit
    sent: Data
    rcvd: Data

    @initial
    def init(s):
        """ABInit: empty queues, all three bits equal, any sent and received values."""
        s.s_bit = s.s_ack = s.r_bit = choose((0, 1))
        s.sent = choose(Data)
        s.rcvd = choose(Data)

    @action
    def snd_new_value(s, d: Data):
        """SndNewValue(d): once the last value is acknowledged, send d with a new bit."""
        require(s.s_ack == s.s_bit)
        s.sent = d
        s.s_bit = 1 - s.s_bit
        s.msg_q = append(s.msg_q, Msg(s.s_bit, d))

    @action
    def re_snd_msg(s):
        """ReSndMsg: resend the unacknowledged value."""
        require(s.s_ack != s.s_bit)
        s.msg_q = append(s.msg_q, Msg(s.s_bit, s.sent))

    @action
    def rcv_msg(s):
        """RcvMsg: receive the first message; take its bit and value."""
        require(len(s.msg_q) > 0)
        m = head(s.msg_q)
        s.msg_q = tail(s.msg_q)
        s.r_bit = m.bit
        s.rcvd = m.data

    @action
    def snd_ack(s):
        """SndAck: acknowledge the receiver's bit (always enabled)."""
        s.ack_q = append(s.ack_q, s.r_bit)

    @action
    def rcv_ack(s):
        """RcvAck: receive the first acknowledgement."""
        require(len(s.ack_q) > 0)
        s.s_ack = head(s.ack_q)
        s.ack_q = tail(s.ack_q)

    @action
    def lose_msg(s):
        """LoseMsg: Lose(msgQ), one successor per lost position `\\E i \\in 1..Len(q)`."""
        s.msg_q = lose(s.msg_q, choose(range(1, len(s.msg_q) + 1)))

    @action
    def lose_ack(s):
        """LoseAck: Lose(ackQ)."""
        s.ack_q = lose(s.ack_q, choose(range(1, len(s.ack_q) + 1)))

    @constraint
    def seq_constraint(s):
        """SeqConstraint (MCAlternatingBit.tla)."""
        return len(s.msg_q) <= s.msgQLen and len(s.ack_q) <= s.ackQLen

    @invariant
    def ab_type_inv(s):
        """ABTypeInv: queues of <<bit, data>> and of bits, bits in {0, 1}, data in Data."""
        return all(m.bit in (0, 1) and isinstance(m.data, Data) for m in s.msg_q) \
            and all(b in (0, 1) for b in s.ack_q) \
            and all(b in (0, 1) for b in (s.s_bit, s.s_ack, s.r_bit)) \
            and isinstance(s.sent, Data) and isinstance(s.rcvd, Data)
