"""Errors a user can act on: each carries the place (file:line) it is about.

The CLI prints them as one line and exits 2; they never surface as tracebacks.
"""
from __future__ import annotations

import functools
import inspect
import sysconfig
import traceback
from pathlib import Path

from .lang.source import first_line


class CheckerError(Exception):
    """Base of every user-facing error; `where` is 'file:line' or a file name."""

    def __init__(self, message: str, where: str | None = None):
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class SpecError(CheckerError):
    """The spec is malformed, or an action/property raised while running."""


class DomainError(SpecError):
    """A value was written outside the declared finite domain."""


class ModelError(CheckerError):
    """The model file (TOML) is malformed or names something unknown."""


class TraceError(CheckerError):
    """A trace file is malformed or does not fit the spec."""


_CHECKER_DIR = Path(__file__).resolve().parent
LIBRARIES = tuple(sorted({str(Path(sysconfig.get_paths()[k]).resolve()) for k in
                          ("stdlib", "platstdlib", "purelib", "platlib")}))
"""Where Python's standard library and installed packages live: never a spec's code."""

_SPEC_LIBRARIES = (_CHECKER_DIR / "kubernetes",)
"""Specs shipped inside the package: spec code to the engines (the symbolic reading
recompiles them, errors point into them), not the engine's own."""


@functools.lru_cache(maxsize=None)
def spec_file(filename: str) -> bool:
    """Is `filename` a spec's code: one of check-model's spec libraries, or outside
    check-model, the standard library and the installed packages?"""
    path = Path(filename).resolve()
    if any(path.is_relative_to(library) for library in _SPEC_LIBRARIES):
        return True
    return not (path.is_relative_to(_CHECKER_DIR) or str(path).startswith(LIBRARIES))


SPEC_FAILURES = (Exception, SystemExit)
"""What spec code may raise that is the spec's error (a `sys.exit` in an action too):
only Ctrl-C and the engines' own signals (`Disabled`) pass through."""


def where_defined(obj) -> str | None:
    """'file:line' of a function or class definition, for error messages."""
    try:
        target = inspect.unwrap(obj)
        filename = inspect.getsourcefile(target)
    except TypeError:
        return None
    line = first_line(target)
    return None if line is None else f"{filename}:{line}"


def user_frame(exc: BaseException) -> str | None:
    """'file:line' of the innermost traceback frame of the spec's own code (`spec_file`;
    not Python's frozen importer): a spec that gets typing or click to raise is wrong at
    its own line, not theirs."""
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if not frame.filename.startswith("<frozen ") and spec_file(frame.filename):
            found = f"{frame.filename}:{frame.lineno}"
    return found
