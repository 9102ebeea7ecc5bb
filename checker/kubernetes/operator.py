"""The operator process: one worker taking keys from a work queue, a reconcile as a
sequence of API calls, memory that a crash clears.

controller-runtime runs `MaxConcurrentReconciles` workers (default 1) over a work queue
that holds each key at most once; an event on a watched object queues the key (again,
if a reconcile is under way: the queue re-adds a key marked dirty while it was being
processed); a reconcile that returns an error or `RequeueAfter` queues it again
(https://pkg.go.dev/sigs.k8s.io/controller-runtime/pkg/reconcile,
https://pkg.go.dev/k8s.io/client-go/util/workqueue). Back-off delays only when, not
whether, the key comes back, and this library has no clock: a requeue is a queued key.

A controller writes its reconcile in the program-counter style: `_reconcile` reads from
the cache and sets `pc` to its first API call (or ends); `_call` performs the call at
`pc` and says whether it succeeded; `_after(ok)` is the local computation up to the next
call (or the end). So every call is a crash point, and a fault can strike between the
call reaching the API server and its response reaching the operator (faults.py). The
controller also lists its write calls in `WRITES`, and its own memory variables: a
reconcile's memory (gone at its end) in `MEMORY`, cleared by `_forget_memory`; what the
process keeps from one reconcile to the next (such as the expectations of
kube-controller-manager's controllers, pkg/controller/controller_utils.go: gone only
when the process dies) in `PROCESS_MEMORY`, cleared by `_forget_process_memory`. The
lists let a paused ex-leader keep its own copy (failover.py).

Fairness: a queued key is reconciled (weakly fair), and a started reconcile runs to its
return (each call weakly fair); a crash in between is a fault. No reconcile starts while
the operator is down (`op_down`, the fault `outage`).

Two opt-ins of a controller's class, for a spec written the RayJob spec's way:

* `IDLE_RECONCILES = True`: a reconcile may also start while the key is not queued (the
  informer's periodic resync, controller-runtime's `SyncPeriod`, re-delivers every
  object; so does an event on an object the model leaves out), and `op_start` is weakly
  fair only where the key is queued: RayJob's `op_start`, enabled whenever the operator
  is idle, fair where `_reconcile_owed`. `queued` is then that "owed". (RayJob keeps
  "owed" in variables of its own: it takes `op_start` through `_take_key`.)
* `ACTION_PER_CALL = True`: an action `op_<call>` per member of `Pc` (`op_create_child`
  for `CREATE_CHILD`) in place of `op_call`, so that traces name the call as RayJob's
  do (`op_create_cluster`, ...). The same steps: only their names differ.

A controller may also write its reconcile as a method per call, each computing what
follows its call (no `_after`) and each with a docstring citing what it models: it marks
each `@call_step(Pc.<CALL>, calls=...)` and has `CallSteps` in its bases, which makes an
action `op_<call>` of each, with that docstring (the RayJob spec's `op_create_cluster`,
`op_stop_job`, ...), and a `_call` that runs the step at `pc` for the faults and the
failover.
"""
from checker import Spec, SpecError, action, require
from checker.errors import where_defined

from .state import Result


class OperatorProcess(Spec):
    WRITES = ()                 # the controller's write calls (members of its Pc)
    MEMORY = ()                 # names of its variables a reconcile's end clears
    PROCESS_MEMORY = ()         # names of those only the process's end clears
    IDLE_RECONCILES = False     # opt-in: a reconcile may start with no key queued
    ACTION_PER_CALL = False     # opt-in: an action op_<call> per call, not op_call

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if vars(cls).get("ACTION_PER_CALL") and cls.op_call is not None:   # not yet declared
            _declare_action_per_call(cls)

    def _reconcile(s):
        raise NotImplementedError("a controller defines _reconcile")

    def _call(s) -> bool:
        raise NotImplementedError("a controller defines _call")

    def _after(s, ok: bool):
        raise NotImplementedError("a controller defines _after")

    def _forget_memory(s):
        """The controller's own memory variables back to their defaults (none here)."""

    def _forget_process_memory(s):
        """The memory the controller keeps across reconciles back to its defaults (none
        here): a crash only."""

    def _reconcile_owed(s) -> bool:
        """A reconcile is owed while the key is queued: an event or a requeue put it there."""
        return s.queued

    def _take_key(s):
        """The worker takes the key from the queue: an event from now on queues it again
        (where the queue lives: a controller keeping it elsewhere overrides this)."""
        s.queued = False

    @action(group="reconcile", fair="weak", fair_when=_reconcile_owed, calls="informer cache")
    def op_start(s):
        """The worker takes the key from the queue and reconciles it (controller-runtime's
        processNextWorkItem); with IDLE_RECONCILES, also a key no modelled event queued."""
        require(s.pc is s.Pc.IDLE and (s.IDLE_RECONCILES or s.queued) and not s.op_down)
        s._take_key()
        s._reconcile()

    @action(group="reconcile", fair="weak", calls="API server")
    def op_call(s):
        """The reconcile's next API call, and what the operator computes from its answer."""
        require(s.pc is not s.Pc.IDLE)
        s._after(s._call())

    def _forget(s):
        """Operator memory is volatile: cleared when a reconcile ends or the process dies."""
        s.pc = s.Pc.IDLE
        for r in s.Ref:
            s.fresh[r] = False
        s._forget_memory()

    def _process_exits(s):
        """The operator process dies: all its memory is gone."""
        s._forget()
        s._forget_process_memory()

    def _process_starts(s):
        """A new operator process: its informer cache filled by a LIST, every key queued
        (controller-runtime's initial List enqueues every object)."""
        s._resync()
        s.queued = True

    def _end(s, result: Result):
        """The reconcile returns `result`; an error or a requeue queues the key again."""
        s._forget()
        if result is not Result.DONE:
            s.queued = True


class call_step:
    """Marks a method of a `CallSteps` controller as the step of the reconcile's call
    `call` (a member of its `Pc`): the call and what the operator computes after it, True
    if the call was applied. `calls` names whom the call goes to (trace diagrams). On a
    class without `CallSteps` it would make no action: an error at the class."""

    def __init__(self, call, *, calls: str = "API server"):
        self.call, self.calls = call, calls

    def __call__(self, fn):
        fn.__call_step__ = (self.call, self.calls)
        self.fn = fn
        return self

    def __set_name__(self, owner, name):
        setattr(owner, name, self.fn)          # the method itself, marked
        if not issubclass(owner, CallSteps):
            raise SpecError(f"{owner.__name__}.{name} is a @call_step, but {owner.__name__} "
                            f"does not have CallSteps among its bases", where_defined(self.fn))


class CallSteps(Spec):
    """A reconcile written as a method per call (`@call_step`): the action `op_<call>` of
    each (its guard `pc` at the call and the operator up, its docstring the step's), and
    `_call`, the step at `pc`, which the faults and the failover perform. Each step
    computes what follows its call, so `_after` does nothing, and the library's
    failover cannot tell an ex-leader's requeue from its write's event: it leaves the
    key queued for the leader either way (RayJob's failover queues it always). A
    subclass overriding a step (a mutant) keeps its action: it runs the step by name."""
    CALL_STEPS = {}                # Pc member -> the name of its step, over the MRO

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        steps = _marked_steps(cls)
        for name, (call, calls) in steps.items():
            step = vars(cls)[name]
            op = _step_action(call, name, step.__doc__, calls)
            op.__checker_source__ = step      # trace pages point at the step
            setattr(cls, _action_name(cls, call, "@call_step", step), op)
        if steps and getattr(cls, "op_call", None) is not None:
            cls.op_call = None                # OperatorProcess's: each call has its action
        cls.CALL_STEPS = {call: name for klass in reversed(cls.__mro__)
                          for name, (call, _) in _marked_steps(klass).items()}

    def _call(s) -> bool:
        return getattr(s, s.CALL_STEPS[s.pc])()

    def _after(s, ok: bool):
        """Nothing: each step computed what follows its call."""


def _marked_steps(cls) -> dict[str, tuple]:
    """The methods `cls` itself marks `@call_step`: name -> (call, calls)."""
    return {name: value.__call_step__ for name, value in vars(cls).items()
            if hasattr(value, "__call_step__")}


def _step_action(call, step: str, doc: str | None, calls: str):
    """The action making the call `call` by the method named `step`."""
    def op(s):
        require(s.pc is call and not s.op_down)
        getattr(s, step)()
    return _named_action(op, call, doc, calls)


def _declare_action_per_call(cls):
    """`op_<call>` for each call of `cls.Pc` in place of `op_call` (ACTION_PER_CALL)."""
    cls.op_call = None                        # no longer an action: the DSL reads callables
    for call in cls.Pc:
        if call is not cls.Pc.IDLE:
            setattr(cls, _action_name(cls, call, "ACTION_PER_CALL", cls), _call_action(call))


def _call_action(call):
    """The action making the call `call`: `op_call` at that call only."""
    def op(s):
        require(s.pc is call)
        s._after(s._call())
    doc = (f"The reconcile's call {call.value!r}, and what the operator computes from its "
           f"answer (OperatorProcess.op_call at that call).")
    return _named_action(op, call, doc, "API server")


def _action_name(cls, call, declared_by: str, where) -> str:
    """`op_<call>`, unless the class has a member of that name already."""
    name = f"op_{call.name.lower()}"
    if hasattr(cls, name):
        raise SpecError(f"{cls.__name__}: {declared_by} names the call {call.name} {name}, "
                        f"which is already a member; rename the call", where_defined(where))
    return name


def _named_action(op, call, doc: str | None, calls: str):
    op.__name__ = op.__qualname__ = f"op_{call.name.lower()}"
    op.__doc__ = doc
    return action(group="reconcile", fair="weak", calls=calls)(op)
