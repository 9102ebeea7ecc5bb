"""State variables and methods share one namespace: a name may not be both.

A spec class's attributes are its variables' defaults and its methods alike, so a
variable named like an action replaces it (or the action replaces the variable's
default), and the spec would silently lose one of them. `check_namespace` finds every
such name: one declared twice in one class body (read from its source) or in two classes
of the hierarchy, and reports it at the line of the method.
"""
from __future__ import annotations

import ast
import inspect

from ..errors import SpecError, where_defined
from .dsl import Spec
from .source import class_definition


def check_namespace(spec_cls: type[Spec], variables: set[str]):
    """Raise a SpecError (file:line) for the first variable that is also a method."""
    classes = [k for k in spec_cls.__mro__ if isinstance(k, type) and issubclass(k, Spec)]
    for klass in classes:
        twice = _declared_twice(klass)
        if twice:
            name, line = twice
            raise SpecError(f"{name} is both a state variable and a method of {klass.__name__}: "
                            f"rename one", f"{inspect.getsourcefile(klass)}:{line}")
    for klass in classes:
        for name, member in vars(klass).items():
            if name in variables and inspect.isfunction(member):
                owner = next(k for k in classes if name in inspect.get_annotations(k))
                role = getattr(member, "__checker_role__", None)
                what = f"the {role.kind.replace('_', ' ')} {name}" if role else f"the method {name}"
                raise SpecError(f"{name} is a state variable of {owner.__name__} and "
                                f"{what} of {klass.__name__}: rename one", where_defined(member))


def _declared_twice(klass: type) -> tuple[str, int] | None:
    """(name, line of the later one) of a name that one class body both annotates and
    defines as a function; None if there is none or the source cannot be read."""
    statement = class_definition(klass)
    if statement is None:
        return None
    annotated = {n.target.id: n.lineno for n in statement.body
                 if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    for n in statement.body:
        if isinstance(n, ast.FunctionDef) and n.name in annotated:
            defined = min([n.lineno] + [d.lineno for d in n.decorator_list])
            return n.name, max(defined, annotated[n.name])
    return None
