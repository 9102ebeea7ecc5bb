"""Mutable map and set values that actions edit in place and the engine undoes.

The explorer decodes a state once and runs every action on that one decoded copy.
Each edit of a map or set is written to the owner's undo log as `(fn, container, key,
old)`, where `fn` is a C-level dict/set method that puts the old content back, and marks
the touched key, so the successor's code is the old code patched at those keys only.
Reads are plain `dict` / `set` reads, at C speed.
"""
from __future__ import annotations

NO_ARG = object()        # undo entries for sets call fn(container, key) without `old`


def _noop(*args):
    """Undo entry of a parent whose nested container changed: only its marks reset."""


class _Logged:
    """What MapValue and SetValue share: owner, base code, touched keys, nesting."""

    __slots__ = ()

    def _mark(self, index):
        """Record that key `index` changed, here and in the enclosing container."""
        if self._touched is None:
            self._touched = {index}
            if self._parent is not None:
                parent, slot = self._parent
                if self._owner is not None:
                    self._owner._undo.append((_noop, parent, None, NO_ARG))
                parent._mark(slot)
        else:
            self._touched.add(index)


class MapValue(_Logged, dict):
    """A total map over a finite key domain: `m[k]` reads, `m[k] = v` writes."""

    __slots__ = ("_domain", "_code", "_owner", "_touched", "_parent")

    def __init__(self, domain, code, owner, items):
        dict.__init__(self, items)
        self._domain, self._code, self._owner = domain, code, owner
        self._touched = self._parent = None
        if not domain.value.scalar:
            for i, v in enumerate(dict.values(self)):
                if isinstance(v, _Logged):
                    v._parent = (self, i)

    def __setitem__(self, key, value):
        old = dict.get(self, key, NO_ARG)
        if old is value:
            return
        if old is NO_ARG:
            raise KeyError(f"{key!r} is not a key of {self._domain}")
        if self._owner is not None:
            self._owner._undo.append((dict.__setitem__, self, key, old))
        dict.__setitem__(self, key, value)
        touched = self._touched
        if touched is None or self._parent is not None:
            self._mark(self._domain.position[key])
        else:
            touched.add(self._domain.position[key])

    def update(self, other=(), **kw):
        for k, v in dict(other, **kw).items():
            self[k] = v

    def _refuse(self, *args, **kw):
        raise TypeError("a Map is total over its key domain: assign m[k] = v instead of deleting")

    __delitem__ = pop = popitem = clear = setdefault = _refuse

    def code(self):
        if self._touched is None:
            return self._code
        dom = self._domain
        keys, enc, get = dom.keys, dom.value.encode, dict.__getitem__
        code = list(self._code)
        for i in self._touched:
            code[i] = enc(get(self, keys[i]))
        return tuple(code)


class SetValue(_Logged, set):
    """A subset of a finite element domain, edited with add / discard / |= / -=."""

    __slots__ = ("_domain", "_code", "_owner", "_touched", "_parent")

    def __init__(self, domain, code, owner, members):
        set.__init__(self, members)
        self._domain, self._code, self._owner = domain, code, owner
        self._touched = self._parent = None

    def add(self, elem):
        if elem in self:
            return
        index = self._domain.elem.encode(elem)
        if self._owner is not None:
            self._owner._undo.append((set.discard, self, elem, NO_ARG))
        set.add(self, elem)
        self._mark(index)

    def discard(self, elem):
        if elem not in self:
            return
        if self._owner is not None:
            self._owner._undo.append((set.add, self, elem, NO_ARG))
        set.discard(self, elem)
        self._mark(self._domain.elem.encode(elem))

    def remove(self, elem):
        if elem not in self:
            raise KeyError(elem)
        self.discard(elem)

    def update(self, *others):
        for other in others:
            for e in other:
                self.add(e)

    def difference_update(self, *others):
        for other in others:
            for e in list(other):
                self.discard(e)

    def intersection_update(self, *others):
        keep = set.intersection(set(self), *others)
        for e in list(self):
            if e not in keep:
                self.discard(e)

    def symmetric_difference_update(self, other):
        for e in set(other):
            if e in self:
                self.discard(e)
            else:
                self.add(e)

    def clear(self):
        for e in list(self):
            self.discard(e)

    def pop(self):
        e = next(iter(self))
        self.discard(e)
        return e

    def __ior__(self, other):
        self.update(other)
        return self

    def __isub__(self, other):
        self.difference_update(other)
        return self

    def __iand__(self, other):
        self.intersection_update(other)
        return self

    def __ixor__(self, other):
        self.symmetric_difference_update(other)
        return self

    def code(self):
        if self._touched is None:
            return self._code
        code = self._code
        values = self._domain.elem.values
        for i in self._touched:
            if values[i] in self:
                code |= 1 << i
            else:
                code &= ~(1 << i)
        return code


class FrozenMap(dict):
    """A map's value where it must hash (a record field, a set element, a key, a
    parameter): a dict that cannot change. Build a new one to change it:
    `FrozenMap({**m, k: v})`."""

    __slots__ = ()

    def __hash__(self):
        return hash(frozenset(self.items()))

    def _refuse(self, *args, **kw):
        raise TypeError("a FrozenMap cannot change: build another, FrozenMap({**m, k: v})")

    __setitem__ = __delitem__ = __ior__ = pop = popitem = clear = setdefault = update = _refuse

    def __repr__(self):
        return f"FrozenMap({dict.__repr__(self)})"
