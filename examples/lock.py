"""An abstract lock for two processes (tlaplus/Examples
specifications/locks_auxiliary_vars/Lock.tla, the PlusCal translation), action for action:
one action per label, l0 l1 cs l2, each taking the process; acquiring the lock (l1) is
one atomic step.

Peterson's algorithm refines it (examples/peterson.py, its LSpec) and it refines
Peterson's algorithm once a history and a stuttering variable are added
(examples/lockhs.py): `is_lock_step` is its Next as a formula of a step, `[Next]_vars`,
for those two to check their steps against (TLA+'s `L!Next` through `INSTANCE`).

TLC (Lock.cfg): 12 distinct states, 21 generated, depth 5; LockInv holds, no deadlock.
TypeOK is the variables' domains.
"""
from collections.abc import Mapping

from checker import Enum, Int, Map, Spec, action, invariant, require
from examples.steps import is_except

PROCESSES = (1, 2)


class Label(Enum):
    L0 = "l0"
    L1 = "l1"
    CS = "cs"
    L2 = "l2"


class Lock(Spec):
    ProcSet = Int[1, 2]

    pc: Map[ProcSet, Label] = Map.fill(Label.L0)
    lock: Int[0, 1] = 1

    @action
    def l0(s, p: ProcSet):
        """l0(self): leave the non-critical section."""
        require(s.pc[p] == Label.L0)
        s.pc[p] = Label.L1

    @action
    def l1(s, p: ProcSet):
        """l1(self): Lock(lock), await lock = 1; lock := 0."""
        require(s.pc[p] == Label.L1 and s.lock == 1)
        s.lock = 0
        s.pc[p] = Label.CS

    @action
    def cs(s, p: ProcSet):
        """cs(self): the critical section."""
        require(s.pc[p] == Label.CS)
        s.pc[p] = Label.L2

    @action
    def l2(s, p: ProcSet):
        """l2(self): Unlock(lock), lock := 1."""
        require(s.pc[p] == Label.L2)
        s.lock = 1
        s.pc[p] = Label.L0

    @invariant
    def lock_inv(s):
        """LockInv: at most one process holds the lock (is in cs or l2), and then lock = 0."""
        holding = [p for p in PROCESSES if s.pc[p] in (Label.CS, Label.L2)]
        return len(holding) <= 1 and (not holding or s.lock == 0)


# Each label's step: the label after it, and the lock it needs (None: any) and leaves.
STEPS = {Label.L0: (Label.L1, None, None), Label.L1: (Label.CS, 1, 0),
         Label.CS: (Label.L2, None, None), Label.L2: (Label.L0, None, 1)}


def is_lock_step(before: tuple[Mapping[int, Label], int],
                 after: tuple[Mapping[int, Label], int]) -> bool:
    """[Next]_<<pc, lock>>: `before` and `after` are (pc, lock); a step of one process,
    or one leaving both unchanged."""
    (pc, lock), (pc2, lock2) = before, after

    def step_of(p: int) -> bool:
        target, needs, leaves = STEPS[pc[p]]
        return is_except(pc, pc2, PROCESSES, p, target) and needs in (None, lock) and \
            lock2 == (lock if leaves is None else leaves)

    unchanged = lock2 == lock and all(pc2[p] == pc[p] for p in PROCESSES)
    return unchanged or any(step_of(p) for p in PROCESSES)
