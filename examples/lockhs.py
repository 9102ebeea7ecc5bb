"""The abstract lock with a history and a stuttering variable, which refines Peterson's
algorithm (tlaplus/Examples specifications/locks_auxiliary_vars/LockHS.tla, after
Lamport and Merz, "Auxiliary variables in TLA+").

Peterson's algorithm takes three steps to enter its critical section (a1, a2, a3) where
the lock takes one (l1). LockHS adds to the lock `h_turn`, the history variable playing
Peterson's `turn`, and the stuttering variable `s` (here `stutter`; None is the module's
`top`): after an l1 step of process p, two stuttering steps of p follow, during which no
other step is taken, and the first records `h_turn = Other(p)`. That is Stuttering.tla's
PostStutter(l1(self), "l1", self, 1, 2, LAMBDA j : j-1) as the module modifies it (the
stuttering steps must be p's). Every other action runs only when not stuttering
(NoStutter) and leaves `h_turn` (NoHistoryChange).

Two refinements, both step properties: `lock_spec` (the cfg's property Spec: hiding the
auxiliary variables gives the lock, examples/lock.py) and `p_spec` (PSpec, `P == INSTANCE
Peterson WITH pc <- ..., c <- ..., turn <- h_turn`: the translated pc, c and turn take a
step of Peterson's algorithm, examples/peterson.py, or stay). Their initial conditions
hold in the one initial state.

TLC (LockHS.cfg, the module without its proofs, which TLC does not read): 28 distinct
states, 41 generated, depth 10; InvHS, LockInv, Spec and PSpec hold. TypeOKHS is the
variables' domains.
"""
from typing import NamedTuple

from checker import Int, Option, action, invariant, require, step_invariant
from examples.lock import PROCESSES, Label, Lock, is_lock_step
from examples.peterson import Label as PetersonLabel, is_peterson_step, other

# pc_translation of the labels whose translation does not depend on the stuttering
PC_TRANSLATION = {Label.L0: PetersonLabel.A0, Label.L1: PetersonLabel.A1,
                  Label.L2: PetersonLabel.A4}
FLAGGED = (PetersonLabel.A2, PetersonLabel.A3, PetersonLabel.CS, PetersonLabel.A4)


class Stutter(NamedTuple):
    """[id : {"l1"}, ctxt : {1, 2}, val : 1..2]"""
    id: Label
    ctxt: Lock.ProcSet
    val: Int[1, 2]


class LockHS(Lock):
    h_turn: Lock.ProcSet = 1
    stutter: Option[Stutter] = None

    @action
    def l0(s, p: Lock.ProcSet):
        """NoStutter(NoHistoryChange(l0(self)))"""
        require(s.stutter is None)
        Lock.l0(s, p)

    @action
    def l1(s, p: Lock.ProcSet):
        """l1HS(self): l1 then two stuttering steps of p; the first sets h_turn."""
        s.post_stutter(p)
        if s.stutter is not None and s.stutter.val == 1:
            s.h_turn = other(p)

    def post_stutter(s, p: int):
        """PostStutter(l1(self), "l1", self, 1, 2, LAMBDA j : j-1): l1, then stuttering
        steps of p counting s.val down from 2 to 1."""
        if s.stutter is None:
            Lock.l1(s, p)
            s.stutter = Stutter(id=Label.L1, ctxt=p, val=2)
        else:
            require(s.stutter.id == Label.L1 and s.stutter.ctxt == p)
            s.stutter_step()

    def stutter_step(s):
        """UNCHANGED vars, and s' = IF s.val = bot THEN top ELSE [s EXCEPT !.val = decr(s.val)]."""
        s.stutter = None if s.stutter.val == 1 else s.stutter._replace(val=s.stutter.val - 1)

    @action
    def cs(s, p: Lock.ProcSet):
        """NoStutter(NoHistoryChange(cs(self)))"""
        require(s.stutter is None)
        Lock.cs(s, p)

    @action
    def l2(s, p: Lock.ProcSet):
        """NoStutter(NoHistoryChange(l2(self)))"""
        require(s.stutter is None)
        Lock.l2(s, p)

    def stuttering_for(s, p: int) -> bool:
        """IF s # top THEN s.ctxt = p ELSE FALSE"""
        return s.stutter is not None and s.stutter.ctxt == p

    @invariant
    def inv_hs(s):
        """InvHS: only a process in cs stutters; h_turn is Other(p) once p has set it."""
        return all(
            (not s.stuttering_for(p) or s.pc[p] == Label.CS) and
            (not (s.pc[p] == Label.L2 or s.pc[p] == Label.CS and s.stutter is None or
                  s.stuttering_for(p) and s.stutter.val == 1) or s.h_turn == other(p))
            for p in PROCESSES)

    @step_invariant
    def lock_spec(s, t):
        """Spec (of Lock): [][Next]_<<pc, lock>>."""
        return is_lock_step((s.pc, s.lock), (t.pc, t.lock))

    def pc_translation(s, p: int) -> PetersonLabel:
        """pc_translation(p, pc[p], s): a process in cs still stuttering is in a2, then a3."""
        if s.pc[p] != Label.CS:
            return PC_TRANSLATION[s.pc[p]]
        if not s.stuttering_for(p):
            return PetersonLabel.CS
        return PetersonLabel.A2 if s.stutter.val == 2 else PetersonLabel.A3

    def peterson_view(s) -> tuple[dict, dict, int]:
        """Peterson's <<pc, c, turn>> under the mapping: c is c_translation of the pc."""
        pc = {p: s.pc_translation(p) for p in PROCESSES}
        return pc, {p: pc[p] in FLAGGED for p in PROCESSES}, s.h_turn

    @step_invariant
    def p_spec(s, t):
        """PSpec's [][P!Next]_P!vars."""
        return is_peterson_step(s.peterson_view(), t.peterson_view())
