"""The files a user names: read as UTF-8 text, written where asked, named safely.

Whatever goes wrong with one (missing, binary, UTF-16, a path under a regular file, a
directory without write access) is a `CheckerError` naming the file: one line, exit 2.
"""
from __future__ import annotations

import hashlib
import os
import re
import tomllib
from pathlib import Path

from .errors import CheckerError

NAME_LIMIT = 100        # bytes of a file name kept as is; longer ones are shortened


def read_text(path: str | Path, what: str, error: type[CheckerError] = CheckerError) -> str:
    """The text of the file at `path` (`what` it is, for the message)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise error(f"cannot read {what}: {e.strerror}", str(path)) from None
    except UnicodeDecodeError as e:
        raise error(f"cannot read {what}: not UTF-8 text (byte {e.start} is "
                    f"{e.object[e.start]:#04x})", str(path)) from None


def read_toml(path: str | Path, text: str, error: type[CheckerError] = CheckerError) -> dict:
    """`text` (the file at `path`) read as TOML; a syntax error names its line."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        line = re.search(r"line (\d+)", str(e))
        raise error(f"not valid TOML: {e}", f"{path}:{line.group(1) if line else 1}") from None


def check_writable(*paths: Path | None) -> None:
    """Refuse, before a long run rather than after it, outputs that cannot be written:
    the nearest existing one of each path and its parents must be writable, and a
    directory unless it is the path itself."""
    for path in filter(None, paths):
        existing = next(p for p in (path, *path.parents) if os.path.exists(p))  # no OSError
        if existing != path and not existing.is_dir():
            raise CheckerError(f"cannot write here: {existing} is not a directory", str(path))
        if not os.access(existing, os.W_OK):
            raise CheckerError(f"cannot write here: {existing} is not writable", str(path))


def write_text(path: Path, text: str) -> Path:
    """Write `text` to `path`, creating its directory."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise CheckerError(f"cannot write: {e.strerror}", str(path)) from None
    return path


def relative(path: str | None) -> str | None:
    """`path` relative to the working directory when below it (as results are shared)."""
    if path is None:
        return None
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def file_name(name: str, suffix: str) -> str:
    """`name + suffix`, with a long name cut short and told apart by a hash of it (a
    property may be named longer than a file system allows)."""
    raw = name.encode()
    if len(raw) > NAME_LIMIT:
        digest = hashlib.sha256(raw).hexdigest()[:10]
        name = f"{raw[:NAME_LIMIT - 20].decode(errors='ignore')}-{digest}"
    return name + suffix
