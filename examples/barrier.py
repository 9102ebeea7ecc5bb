"""A reusable barrier (tlaplus/Examples specifications/barriers/Barrier.tla), action
for action.

Each of N processes enters the barrier (b0); once all are in, b1 releases them all at
once. TLC with N = 6: 64 distinct states, 194 generated, depth 7; TypeOK and
BarrierProperty, the action property `[][\\A p, q : pc[p] = "b0" /\\ pc[q] = "b1" =>
pc'[q] = "b1"]_vars` (no process leaves while another has yet to enter), hold.
"""
import enum

from checker import Const, Int, Map, Spec, action, invariant, require, step_invariant


class Label(enum.Enum):
    B0 = "b0"
    B1 = "b1"


class Barrier(Spec):
    N = Const(6, "number of processes", min=1)
    ProcSet = Int[1, N]

    pc: Map[ProcSet, Label] = Map.fill(Label.B0)

    @action
    def b0(s, p: ProcSet):
        """b0(self): enter the barrier."""
        require(s.pc[p] == Label.B0)
        s.pc[p] = Label.B1

    @action
    def b1(s):
        """b1: once every process is in, all leave together."""
        require(all(label == Label.B1 for label in s.pc.values()))
        for p in s.pc:
            s.pc[p] = Label.B0

    @invariant
    def type_ok(s):
        """TypeOK: pc maps each process to b0 or b1."""
        return all(isinstance(label, Label) for label in s.pc.values())

    @step_invariant
    def barrier_property(s, t):
        """BarrierProperty: a process in the barrier stays while another has yet to enter."""
        procs = range(1, s.N + 1)
        return all(not (s.pc[p] == Label.B0 and s.pc[q] == Label.B1) or t.pc[q] == Label.B1
                   for p in procs for q in procs)
