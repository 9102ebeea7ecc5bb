"""Peterson's mutual exclusion algorithm for two processes (tlaplus/Examples
specifications/locks_auxiliary_vars/Peterson.tla, the PlusCal translation), action for
action: one action per label, a0 a1 a2 a3 cs a4, each taking the process.

TLC: 42 distinct states, 77 generated, depth 11. Peterson.cfg also checks the property
LSpec, the refinement of the abstract lock (Lock.tla) under a pc/lock mapping; that is
a temporal property and is not checked here yet.
"""
import enum

from checker import Int, Map, Spec, action, invariant, require


class Label(enum.Enum):
    A0 = "a0"
    A1 = "a1"
    A2 = "a2"
    A3 = "a3"
    CS = "cs"
    A4 = "a4"


def other(p: int) -> int:
    """Other(p)"""
    return 2 if p == 1 else 1


class Peterson(Spec):
    ProcSet = Int[1, 2]

    pc: Map[ProcSet, Label] = Map.fill(Label.A0)
    c: Map[ProcSet, bool] = Map.fill(False)
    turn: ProcSet = 1

    @action
    def a0(s, p: ProcSet):
        """a0(self): leave the non-critical section."""
        require(s.pc[p] == Label.A0)
        s.pc[p] = Label.A1

    @action
    def a1(s, p: ProcSet):
        """a1(self): c[self] := TRUE"""
        require(s.pc[p] == Label.A1)
        s.c[p] = True
        s.pc[p] = Label.A2

    @action
    def a2(s, p: ProcSet):
        """a2(self): turn := Other(self)"""
        require(s.pc[p] == Label.A2)
        s.turn = other(p)
        s.pc[p] = Label.A3

    @action
    def a3(s, p: ProcSet):
        """a3(self): await ~c[Other(self)] \\/ turn = self.

        TLC would generate one successor per true disjunct, but the two never hold
        together in a reachable state, so a single guard generates the same total.
        """
        require(s.pc[p] == Label.A3)
        require(not s.c[other(p)] or s.turn == p)
        s.pc[p] = Label.CS

    @action
    def cs(s, p: ProcSet):
        """cs(self): the critical section."""
        require(s.pc[p] == Label.CS)
        s.pc[p] = Label.A4

    @action
    def a4(s, p: ProcSet):
        """a4(self): c[self] := FALSE"""
        require(s.pc[p] == Label.A4)
        s.c[p] = False
        s.pc[p] = Label.A0

    @invariant
    def type_ok(s):
        """TypeOK: c is boolean, turn a process, pc a label, for each process."""
        return all(isinstance(s.c[p], bool) and isinstance(s.pc[p], Label) for p in (1, 2)) \
            and s.turn in (1, 2)

    @invariant
    def inv(s):
        """Inv: c[p] exactly between a1 and a4; a process in cs or a4 has the turn or the
        other has not passed a2; and mutual exclusion."""
        flagged = (Label.A2, Label.A3, Label.CS, Label.A4)
        critical = (Label.CS, Label.A4)
        return all(
            s.c[p] == (s.pc[p] in flagged)
            and (s.pc[p] not in critical or s.turn == p or
                 s.pc[other(p)] in (Label.A0, Label.A1, Label.A2))
            for p in (1, 2)) and not all(s.pc[p] in critical for p in (1, 2))
