"""Peterson's mutual exclusion algorithm for two processes (tlaplus/Examples
specifications/locks_auxiliary_vars/Peterson.tla, the PlusCal translation), action for
action: one action per label, a0 a1 a2 a3 cs a4, each taking the process.

LSpec (`L == INSTANCE Lock WITH pc <- ..., lock <- ...`) says that the algorithm refines
the abstract lock of examples/lock.py: a0 is the lock's l0, a1 to a3 its l1, cs its cs, a4
its l2, and the lock is taken while a process is in cs or a4. Its `[][L!Next]_L!vars` is
the step property `l_spec`: every step maps to a step of the lock or leaves it as it was;
L!Init is the initial state mapped (both processes in l0, the lock free). `is_peterson_step`
is the algorithm's Next as a formula of a step, for examples/lockhs.py, which refines it.

TLC (Peterson.cfg): 42 distinct states, 77 generated, depth 11; TypeOK, Inv and LSpec hold.
"""
import enum
from collections.abc import Mapping

from checker import Int, Map, Spec, action, either, invariant, require, step_invariant
from examples.lock import PROCESSES, Label as LockLabel, is_lock_step
from examples.steps import is_except


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
        """a3(self): await ~c[Other(self)] \\/ turn = self."""
        require(s.pc[p] == Label.A3)
        if either():
            require(not s.c[other(p)])
        else:
            require(s.turn == p)
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

    def lock_view(s) -> tuple[dict[int, LockLabel], int]:
        """The abstract lock's <<pc, lock>>: pc_translation of each pc, lock_translation."""
        pc = {p: PC_TRANSLATION[s.pc[p]] for p in PROCESSES}
        return pc, 0 if any(s.pc[p] in (Label.CS, Label.A4) for p in PROCESSES) else 1

    @step_invariant
    def l_spec(s, t):
        """LSpec's [][L!Next]_L!vars."""
        return is_lock_step(s.lock_view(), t.lock_view())


PC_TRANSLATION = {Label.A0: LockLabel.L0, Label.A1: LockLabel.L1, Label.A2: LockLabel.L1,
                  Label.A3: LockLabel.L1, Label.CS: LockLabel.CS, Label.A4: LockLabel.L2}
NEXT_LABEL = {Label.A0: Label.A1, Label.A1: Label.A2, Label.A2: Label.A3, Label.A3: Label.CS,
              Label.CS: Label.A4, Label.A4: Label.A0}


def is_peterson_step(before: tuple[Mapping[int, Label], Mapping[int, bool], int],
                     after: tuple[Mapping[int, Label], Mapping[int, bool], int]) -> bool:
    """[Next]_<<pc, c, turn>>: `before` and `after` are (pc, c, turn); a step of one
    process, or one leaving all three unchanged."""
    (pc, c, turn), (pc2, c2, turn2) = before, after
    same_c = all(c2[p] == c[p] for p in PROCESSES)

    def step_of(p: int) -> bool:
        label = pc[p]
        if not is_except(pc, pc2, PROCESSES, p, NEXT_LABEL[label]):
            return False
        if label in (Label.A1, Label.A4):
            return is_except(c, c2, PROCESSES, p, label == Label.A1) and turn2 == turn
        if label == Label.A2:
            return same_c and turn2 == other(p)
        guard = label != Label.A3 or not c[other(p)] or turn == p
        return guard and same_c and turn2 == turn

    unchanged = same_c and turn2 == turn and all(pc2[p] == pc[p] for p in PROCESSES)
    return unchanged or any(step_of(p) for p in PROCESSES)
