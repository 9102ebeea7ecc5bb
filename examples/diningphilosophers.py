"""Dining philosophers, Chandy-Misra solution (tlaplus/Examples
specifications/DiningPhilosophers/DiningPhilosophers.tla, the PlusCal translation),
action for action: one action per label, Loop Think Eat, each taking the philosopher.

Forks are dirty or clean; a philosopher hands a dirty fork it holds to its neighbour,
cleaned, and eats only with two clean forks, which eating dirties. TLC with NP = 5:
67 distinct states, 336 generated, depth 29, and NobodyStarves (`[]<>~hungry[p]`)
holds under weak fairness of each philosopher (`\\A self: WF_vars(Philosopher(self))`,
here weak fairness of each label action of each philosopher: a process is at one label
at a time, so the two are the same).
"""
import enum
from typing import NamedTuple

from checker import Const, Int, Map, Spec, action, initial, invariant, leads_to, require


class Label(enum.Enum):
    LOOP = "Loop"
    EAT = "Eat"
    THINK = "Think"


class DiningPhilosophers(Spec):
    NP = Const(5, "number of philosophers (and forks)", min=1)
    Proc = Int[1, NP]                  # philosophers; fork p is philosopher p's left fork
    # The record [holder: 1..NP, clean: BOOLEAN]; written as a call so that it sees NP.
    Fork = NamedTuple("Fork", [("holder", Proc), ("clean", bool)])

    forks: Map[Proc, Fork]
    hungry: Map[Proc, bool] = Map.fill(True)
    pc: Map[Proc, Label] = Map.fill(Label.LOOP)

    @initial
    def init(s):
        """Init: each fork, dirty, with the lower-numbered of its two philosophers."""
        s.forks = {f: s.Fork(holder=1 if f == 2 else f, clean=False)
                   for f in range(1, s.NP + 1)}

    def left_fork(s, p):
        """LeftFork(p)"""
        return p

    def right_fork(s, p):
        """RightFork(p)"""
        return 1 if p == s.NP else p + 1

    def left_philosopher(s, p):
        """LeftPhilosopher(p)"""
        return s.NP if p == 1 else p - 1

    def right_philosopher(s, p):
        """RightPhilosopher(p)"""
        return 1 if p == s.NP else p + 1

    def can_eat(s, p) -> bool:
        """CanEat(p): holding both forks, both clean."""
        left, right = s.forks[s.left_fork(p)], s.forks[s.right_fork(p)]
        return left.holder == p == right.holder and left.clean and right.clean

    @action(fair="weak")
    def loop(s, p: Proc):
        """Loop(self): hand over a dirty fork held (left first), then go eat if hungry
        and able, or think if not hungry."""
        require(s.pc[p] == Label.LOOP)
        eat = s.can_eat(p)                           # CanEat reads the unprimed forks
        left, right = s.left_fork(p), s.right_fork(p)
        if s.forks[left].holder == p and not s.forks[left].clean:
            s.forks[left] = s.Fork(holder=s.left_philosopher(p), clean=True)
        elif s.forks[right].holder == p and not s.forks[right].clean:
            s.forks[right] = s.Fork(holder=s.right_philosopher(p), clean=True)
        if not s.hungry[p]:
            s.pc[p] = Label.THINK
        elif eat:
            s.pc[p] = Label.EAT

    @action(fair="weak")
    def think(s, p: Proc):
        """Think(self): hungry again."""
        require(s.pc[p] == Label.THINK)
        s.hungry[p] = True
        s.pc[p] = Label.LOOP

    @action(fair="weak")
    def eat(s, p: Proc):
        """Eat(self): no longer hungry; both forks become dirty."""
        require(s.pc[p] == Label.EAT)
        s.hungry[p] = False
        for f in (s.left_fork(p), s.right_fork(p)):
            s.forks[f] = s.forks[f]._replace(clean=False)
        s.pc[p] = Label.LOOP

    @invariant
    def type_ok(s):
        """TypeOK: forks are [holder: 1..NP, clean: BOOLEAN] records, hungry booleans,
        pc labels."""
        return all(1 <= f.holder <= s.NP and isinstance(f.clean, bool)
                   for f in s.forks.values()) and \
            all(isinstance(h, bool) for h in s.hungry.values()) and \
            all(isinstance(label, Label) for label in s.pc.values())

    def share_fork(s, p, q) -> bool:
        """ShareFork(p, q)"""
        return bool({s.left_fork(p), s.right_fork(p)} & {s.left_fork(q), s.right_fork(q)})

    @invariant
    def exclusive_access(s):
        """ExclusiveAccess: two philosophers who share a fork never eat at once."""
        eating = [p for p, label in s.pc.items() if label == Label.EAT]
        return not any(p != q and s.share_fork(p, q) for p in eating for q in eating)

    @leads_to
    def nobody_starves(s, p: Proc):
        """NobodyStarves: `[]<>~hungry[p]`, that is `TRUE ~> ~hungry[p]`, for every p."""
        return True, not s.hungry[p]
