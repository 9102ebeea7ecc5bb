"""The source index (`checker/lang/source.py`) places every definition where `inspect`
does, and reads a file again when it changes on disk."""
import importlib
import inspect
import pkgutil
import sys
import textwrap
import types

import spec
from checker import kubernetes
from checker.lang.source import class_definition, first_line, function_lines


def _definitions():
    """Every function and class defined in the project's specs and the Kubernetes library
    (and their methods); a module needing an extra that is not installed (`ray`) is left out."""
    for package in (spec, kubernetes):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            try:
                module = importlib.import_module(info.name)
            except ModuleNotFoundError as e:
                if e.name.partition(".")[0] in ("spec", "checker"):
                    raise
                continue
            yield from _defined_in(module)


def _defined_in(module):
    for obj in vars(module).values():
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        yield obj
        if isinstance(obj, type):
            yield from (inspect.unwrap(m) for m in vars(obj).values()
                        if isinstance(inspect.unwrap(m), types.FunctionType))


def _inspected(obj):
    try:
        return inspect.getsourcelines(obj)
    except (OSError, TypeError):
        return None


def test_every_definition_of_the_specs_is_where_inspect_finds_it():
    compared = 0
    for obj in _definitions():
        expected = _inspected(obj)
        assert first_line(obj) == (expected and expected[1]), obj
        if isinstance(obj, types.FunctionType):
            found = function_lines(obj.__code__)
            assert (found and (found[1], "".join(found[0]).rstrip())) == \
                (expected and (expected[1], "".join(expected[0]).rstrip())), obj
        compared += expected is not None
    assert compared > 500                       # the RayJob and Kubernetes specs, whole


def test_a_file_changed_on_disk_is_read_again(tmp_path, monkeypatch):
    path = tmp_path / "edited_spec.py"
    path.write_text(textwrap.dedent('''\
        class Spec:
            def act(s):
                return 1
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("edited_spec")
    try:
        assert first_line(module.Spec) == 1
        assert function_lines(module.Spec.act.__code__)[0][-1].strip() == "return 1"
        path.write_text(textwrap.dedent('''\
            # moved down a line, as an editor would while a long run goes on

            class Spec:
                def act(s):
                    return 2
        '''))
        assert first_line(module.Spec) == 3                     # as `inspect` would say now
        assert class_definition(module.Spec).body[0].name == "act"
    finally:
        sys.modules.pop("edited_spec", None)


def test_what_the_index_cannot_place_is_left_to_inspect():
    made = {}
    exec("def made_here(s):\n    return s\n", made)            # no file to read
    assert function_lines(made["made_here"].__code__) is None
    assert first_line(made["made_here"]) is None
    ambiguous = [_two_classes_named_alike(flag) for flag in (True, False)]
    assert {first_line(k) for k in ambiguous} == {inspect.getsourcelines(ambiguous[0])[1]}


def _two_classes_named_alike(flag: bool) -> type:
    if flag:
        class Alike:
            x = 1
    else:
        class Alike:
            y = 2
    return Alike

