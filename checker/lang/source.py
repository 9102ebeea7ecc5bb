"""Where a spec's functions and classes are written: each file parsed once.

Binding a spec reads the source of each of its functions for several analyses (what
it reads, its guards, the symbolic reader) and names a file:line for each property.
`inspect` finds a function's lines by tokenising its file from the function's first
line, and a class's by parsing its whole module, at every call: on the RayJob spec that
was half of the time a model took to bind. Here a file is parsed once (again if it
changes on disk, as `inspect` would see) and its definitions are looked up by line.
Whatever the index cannot place (code made by `exec`, a lambda, two classes of one
qualified name) is left to `inspect`, as before.
"""
from __future__ import annotations

import ast
import functools
import inspect
import linecache
import os
import textwrap
import types

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def function_lines(code: types.CodeType) -> tuple[list[str], int] | None:
    """The lines of the def that compiled to `code` (its decorators included) and the
    first one's number, as `inspect.getsourcelines(code)` gives them; None where the
    source cannot be read."""
    found = _index(_file_of(code))
    node = found and found[1].get(code.co_firstlineno)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
        return found[0][code.co_firstlineno - 1:node.end_lineno], code.co_firstlineno
    try:
        return inspect.getsourcelines(code)
    except (OSError, TypeError):
        return None


def class_definition(klass: type) -> ast.ClassDef | None:
    """The class statement of `klass`, at its file's line numbers; None where its
    source cannot be read."""
    found = _index(_file_of(klass))
    nodes = found[2].get(klass.__qualname__, []) if found else []
    if len(nodes) == 1:
        return nodes[0]
    try:
        lines, first = inspect.getsourcelines(klass)
    except (OSError, TypeError):
        return None
    node = ast.parse(textwrap.dedent("".join(lines))).body[0]
    return ast.increment_lineno(node, first - 1)


def first_line(obj) -> int | None:
    """The line a function's or class's definition starts on (its first decorator's)."""
    target = inspect.unwrap(obj)
    if isinstance(target, types.FunctionType):
        found = function_lines(target.__code__)
        return None if found is None else found[1]
    node = class_definition(target) if isinstance(target, type) else None
    return None if node is None else _start(node)


def _file_of(obj) -> str | None:
    try:
        return inspect.getsourcefile(obj)
    except TypeError:
        return None


def _index(filename: str | None) -> tuple | None:
    """(the file's lines, its definitions by first line, its classes by qualified
    name), or None if the file cannot be read or parsed."""
    if filename is None:
        return None
    try:
        stat = os.stat(filename)
    except OSError:
        return None
    return _parsed(filename, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _parsed(filename: str, mtime: int, size: int) -> tuple | None:
    linecache.checkcache(filename)
    lines = linecache.getlines(filename)
    try:
        tree = ast.parse("".join(lines), filename)
    except (SyntaxError, ValueError):
        return None
    by_line: dict[int, Definition] = {}
    classes: dict[str, list[ast.ClassDef]] = {}

    def visit(node, prefix: str):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, Definition):
                by_line.setdefault(_start(child), child)
                name = prefix + child.name
                if isinstance(child, ast.ClassDef):
                    classes.setdefault(name, []).append(child)
                    visit(child, name + ".")
                else:
                    visit(child, name + ".<locals>.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return lines, by_line, classes


def _start(node: Definition) -> int:
    return min([node.lineno] + [d.lineno for d in node.decorator_list])
