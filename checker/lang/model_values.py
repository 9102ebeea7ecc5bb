"""Values of any domain as a model file (TOML) writes them, for constants declared with one.

TOML has arrays, inline tables, strings, ints and booleans, so: a `Set` or a `Seq` is an
array, a record an inline table of its fields (or an array of them in order, as a
tuple), a `Map` an inline table keyed by each key as traces show it, an enum member its
name or value, `Option[T]` a T or the string "None". Each reader raises ValueError
saying what does not fit, which the model loader reports at the constant's line.
"""
from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Mapping
from typing import Callable

from .domains import (BoolDomain, Domain, EnumDomain, IntDomain, MapDomain, MapsDomain,
                      OptionDomain, OutOfDomain, RecordDomain, SetDomain, SubsetDomain)
from .sequences import SeqDomain, SeqValue
from .values import FrozenMap


def read_value(domain: Domain, data):
    """The Python value of `domain` that `data` (parsed TOML) writes; ValueError if none."""
    value = _read(domain, data)
    try:
        domain.encode(value)
    except OutOfDomain as e:
        raise ValueError(str(e)) from None
    return value


def _read(d: Domain, data):
    if isinstance(d, (SetDomain, SubsetDomain)):
        return frozenset(_read(d.elem, x) for x in _array(d, data))
    if isinstance(d, SeqDomain):
        items = _array(d, data)
        if len(items) > d.capacity:
            raise ValueError(f"{_shown(data)} has {len(items)} elements; {d} holds at most "
                             f"{d.capacity}")
        return SeqValue(tuple(_read(d.elem, x) for x in items), d.capacity)
    if isinstance(d, RecordDomain):
        return _record(d, data)
    if isinstance(d, MapDomain):
        return _map(d, data)
    if isinstance(d, MapsDomain):
        return FrozenMap(_map(d.maps, data))
    if isinstance(d, OptionDomain):
        return None if data == "None" else _read(d.inner, data)
    if isinstance(d, EnumDomain):
        for member in d.values:
            if data in (member.name, member.value):
                return member
        raise ValueError(f"{_shown(data)} is not a {d} (one of "
                         f"{', '.join(repr(m.name) for m in d.values)})")
    if isinstance(d, (BoolDomain, IntDomain)):
        if type(data) is not (bool if isinstance(d, BoolDomain) else int):
            raise ValueError(f"{_shown(data)} is not a {d}")
        d.encode(data)                              # in range, or OutOfDomain says why
        return data
    raise ValueError(f"a model file cannot write a value of {d}")


def _array(d: Domain, data) -> list:
    if not isinstance(data, list):
        raise ValueError(f"{d} is written as an array [...], got {_shown(data)}")
    return data


def _record(d: RecordDomain, data):
    names = list(d.fields)
    if isinstance(data, list):                   # a tuple: the fields in order
        if len(data) != len(names):
            raise ValueError(f"{_shown(data)} has {len(data)} values; a {d} has "
                             f"{len(names)} fields ({', '.join(names)})")
        data = dict(zip(names, data))
    if not isinstance(data, dict) or set(data) != set(names):
        raise ValueError(f"a {d} is written {{{', '.join(f'{n} = ...' for n in names)}}}, "
                         f"got {_shown(data)}")
    return d.cls(**{n: _read(f, data[n]) for n, f in d.fields.items()})


def _map(d: MapDomain, data):
    if not isinstance(data, dict):
        raise ValueError(f"{d} is written as an inline table {{key = value, ...}}, got {_shown(data)}")
    labels = {d.key.show(k).strip("'\""): k for k in d.keys}
    unknown = [k for k in data if k not in labels]
    if unknown or len(data) != len(labels):
        raise ValueError(f"{d} needs exactly the keys {', '.join(labels)}, got {_shown(data)}")
    return types.MappingProxyType({labels[k]: _read(d.value, v) for k, v in data.items()})


def written(value, label: Callable[[enum.Enum], object]):
    """A constant's value as JSON writes it (reports, traces): a set as a sorted list, a
    sequence as a list, a record or map as an object, an enum member as `label` gives it."""
    if isinstance(value, enum.Enum):
        return label(value)
    if isinstance(value, (set, frozenset)):
        return sorted((written(x, label) for x in value), key=repr)
    if isinstance(value, tuple) and hasattr(value, "_asdict") or dataclasses.is_dataclass(value):
        fields = value._asdict() if isinstance(value, tuple) else vars(value)
        return {k: written(v, label) for k, v in fields.items()}
    if isinstance(value, tuple):
        return [written(x, label) for x in value]
    if isinstance(value, Mapping):
        return {str(written(k, label)): written(v, label) for k, v in value.items()}
    return value


def _shown(data) -> str:
    text = repr(data)
    return text if len(text) <= 60 else text[:57] + "..."
