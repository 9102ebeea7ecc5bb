"""Properties every controller has, ready-made: each is a predicate here and a few lines
in the controller's spec, under its own name and docstring:

    @leads_to
    def no_orphans(s):
        return s.gone(Ref.PARENT), s.all_gone(CHILDREN)

* `gone(p)` ~> `all_gone(children)`: no orphaned children after deletion: once the
  owner is gone, every child is eventually gone (the garbage collector follows
  ownerReferences: a child created without one is an orphan for good).
* `deleting(r)` ~> `gone(r)`: no stuck finalizer: a deleted object's finalizer is
  eventually removed (needs the fairness the library declares, and a controller that
  retries a failed finalizer update).
* `created_at_most_once(refs)`, an invariant: each name among `refs` was created at
  most once (counted when the create is applied, whatever the caller saw), and
  `one_created_among(refs)`: at most one of them was ever created: one child per parent,
  whatever name a reconcile draws. A controller that starts over (a retry, a new
  generation of its object's spec) calls `_new_generation()` where the write beginning
  the new attempt is applied: both then speak of the current attempt.
* `identity_kept(s, t)`, a step invariant: the identity a controller persisted (its
  `_identity()`, such as a child name in the status) is never replaced by another while
  the object lives: across crashes, lost responses and stale reads.
"""
from checker import Spec


class ReadyMadeProperties(Spec):
    def deleting(s, r) -> bool:
        return s.objects[r] is not None and s.objects[r].deleting

    def gone(s, r) -> bool:
        return s.objects[r] is None

    def all_gone(s, refs) -> bool:
        return all(s.objects[r] is None for r in refs)

    def created_at_most_once(s, refs) -> bool:
        return all(s.creates[r] <= 1 for r in refs)

    def one_created_among(s, refs) -> bool:
        return sum(s.creates[r] for r in refs) <= 1

    def _new_generation(s):
        """A new attempt begins: the count of creates starts over, so that the at-most-once
        properties speak of this attempt (a name drawn again stands for a new random one)."""
        for r in s.Ref:
            s.creates[r] = 0

    def _identity(s):
        raise NotImplementedError("a controller using identity_kept defines _identity")

    def identity_kept(s, t) -> bool:
        return s._identity() is None or t._identity() in (None, s._identity())
