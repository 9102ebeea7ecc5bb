"""Ctrl-C during a symbolic run: prompt, and never mistaken for an answer.

Z3's calls block in C, where Python's SIGINT handler cannot run, and Z3's own handler
cancels the call in progress as a time-out would: a check then says `unknown`, which an
engine may read as "no bad state", and a Spacer query looks timed out. So while an engine
runs, Z3's handler is off; Python's low-level handler writes the signal to a pipe (its
wakeup fd), where a thread waits to interrupt every Z3 call until the run ends; and the
engine raises KeyboardInterrupt at its next solver call (`answer`), never at an arbitrary
line (inside a Z3 finalizer it would be swallowed: "Exception ignored in AstRef.__del__").
A Z3 call other than a check (a solver's push, a simplification) that the interrupt
cancels raises an error ("push canceled"): after Ctrl-C, that error is the interrupt too.
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading

import z3

_pressed = threading.Event()


def answer(ask, *args):
    """`ask(*args)` (a solver's check, a Spacer query), unless Ctrl-C was pressed before
    or during it: then its answer means nothing, and KeyboardInterrupt is raised."""
    _stop_if_pressed()
    try:
        return ask(*args)
    finally:
        _stop_if_pressed()


def _stop_if_pressed():
    if _pressed.is_set():
        raise KeyboardInterrupt


@contextlib.contextmanager
def ctrl_c_interrupts_z3():
    """Within: Ctrl-C interrupts Z3 and ends the run at its next `answer`. (Signals reach
    only the main thread: elsewhere, nothing changes; where SIGINT is ignored, as in a
    script's background job, Z3 ignores it too.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    z3.set_param(ctrl_c=False)
    try:
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            yield
        else:
            with _sigint_interrupts_z3():
                yield
    finally:
        z3.set_param(ctrl_c=True)


@contextlib.contextmanager
def _sigint_interrupts_z3():
    """SIGINT sets `_pressed`, and wakes a thread that interrupts Z3."""
    _pressed.clear()
    done = threading.Event()
    read, write = os.pipe()
    os.set_blocking(write, False)
    previous_handler = signal.signal(signal.SIGINT, lambda *_: _pressed.set())
    previous_fd = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    watcher = threading.Thread(target=_interrupt_z3_after_sigint, args=(read, done), daemon=True)
    watcher.start()
    try:
        yield
    except z3.Z3Exception:
        _stop_if_pressed()              # canceled by the interrupt: Ctrl-C, not an error
        raise
    finally:
        signal.set_wakeup_fd(previous_fd)
        signal.signal(signal.SIGINT, previous_handler)
        done.set()
        os.close(write)                 # ends the watcher's read
        watcher.join()
        os.close(read)


def _interrupt_z3_after_sigint(read: int, done: threading.Event):
    """Wait for SIGINT on the wakeup pipe; then interrupt the Z3 call in progress, and any
    started later, until the run is over."""
    while signal.SIGINT not in (data := os.read(read, 64)):
        if not data:
            return
    while not done.is_set():
        z3.main_ctx().interrupt()
        done.wait(0.05)
