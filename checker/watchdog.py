"""`--max-seconds` enforced from outside the search: a watchdog.

The engines read the clock between states, and give each solver call what is left of
the limit, which is enough while each step returns. One that never does (an action's
endless loop, a `choose` among millions of values, whether searched or read into a
relation) would hold the run past its limit for ever; so a thread waits out the limit,
plus `GRACE` for the engine to stop on its own, then signals the main thread, whose
handler raises `TimeLimit` at the Python line it is on. (Z3 is left alone: interrupted
between calls, it cancels the next one.) It is a KeyboardInterrupt: every engine already ends
a Ctrl-C'd run with whatever it decided and the rest unknown (exit 3), and a spec's
`except Exception` cannot swallow it.
"""
from __future__ import annotations

import contextlib
import signal
import threading

GRACE = 1.0            # seconds past the limit before the watchdog steps in
REPEAT = 0.5           # ... and between its signals until the run is over


class TimeLimit(KeyboardInterrupt):
    """The run's time limit passed inside a step that did not return."""


_passed: list[TimeLimit] = []          # the limit raised, while its watchdog is on


def raise_if_passed() -> None:
    """Raise the TimeLimit again if it was raised: a library that caught it (Z3's
    argument conversion turns it into its own error) must not turn it into an answer."""
    if _passed:
        raise _passed[0]


_heard = threading.Event()             # an engine has caught the TimeLimit: no more signals


def interrupted(e: KeyboardInterrupt) -> str:
    """Why a run was cut short: its time limit, or the user's Ctrl-C. An engine asking
    has caught it, and reports what it decided: the watchdog stops signalling."""
    if isinstance(e, TimeLimit):
        _heard.set()
        return str(e)
    return "interrupted (Ctrl-C)"


@contextlib.contextmanager
def watchdog(seconds: float | None):
    """Within: past `seconds` (and GRACE), TimeLimit is raised in the main thread. Off
    without a limit, or off the main thread (signals reach only it)."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return
    reason = f"time limit {seconds:g} s reached"

    def expired(*_):
        if not _passed:
            _passed.append(TimeLimit(reason))
        raise _passed[0]

    main = threading.main_thread().ident
    previous = signal.signal(signal.SIGALRM, expired)
    over = threading.Event()

    def bark():
        """Signal once the limit and its grace are past, and again every REPEAT seconds
        until an engine has caught it or the run is over: where a library swallowed one
        (a bare except), the next one lands."""
        if over.wait(seconds + GRACE):
            return
        while not _heard.is_set():
            signal.pthread_kill(main, signal.SIGALRM)
            if over.wait(REPEAT):
                return
    dog = threading.Thread(target=bark, daemon=True)
    dog.start()
    try:
        yield
    finally:
        over.set()
        dog.join()
        signal.signal(signal.SIGALRM, previous)
        _passed.clear()
        _heard.clear()
