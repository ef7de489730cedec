"""Copying encounter states: a structural copy many times faster than ``copy.deepcopy``,
and copy-on-write scratch states for ``Ruleset.lookahead``.

``clone`` walks the plain shapes a state is made of (dicts, lists, sets, dataclasses, atomic
values) with a cloner built once per type, shares what cannot change (numbers, text, frozen
dataclasses of atomic values), and falls back to ``deepcopy`` for anything else. Like
deepcopy it gives a state that shares nothing mutable with the original; unlike deepcopy it
does not preserve aliasing between two places of one state (the kernel's states refer to
each other by id). ``EncounterState.copy`` uses it.

``scratch_copy`` is the copy ``lookahead`` makes: the state's small containers are copied
and its entities are shared until ``evolve`` (through :func:`apply_to_scratch`) touches one,
which then gets a copy of its own. This relies on the kernel's contract: only ``evolve``
changes state; ``decide`` (and whatever reads a lookahead's result) only reads. The copy an
entity gets may share some of its fields with the original: those declared, on the field
itself, with :data:`SHARED` or :data:`COPIED` metadata (promises that the ``apply_*`` methods keep).
With ``ARBITER_SCRATCH_GUARD=1`` in the environment (or inside :func:`scratch_guard`) a
scratch copy holds read-only copies of what it would share, so that breaking a promise
raises :class:`BrokenPromise` where it happens.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib
import os
import sys
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:
    from .events import Event
    from .model import EncounterState

ATOMIC: frozenset[type] = frozenset({int, str, float, bool, type(None), bytes, complex})

Cloner = Callable[[Any], Any]
_CLONERS: dict[type, Cloner] = {}
_HOOKS = ("__deepcopy__", "__copy__", "__getstate__", "__setstate__", "__reduce__",
          "__reduce_ex__")


def _identity(value: Any) -> Any:
    return value


def _clone_dict(value: dict[Any, Any]) -> dict[Any, Any]:
    out: dict[Any, Any] = value.copy()
    for key, item in value.items():
        kind = type(item)
        if kind not in ATOMIC:
            out[key] = (_CLONERS.get(kind) or cloner(kind))(item)
    return out


def _clone_list(value: list[Any]) -> list[Any]:
    return [item if type(item) in ATOMIC else cloner(type(item))(item) for item in value]


def _clone_tuple(value: tuple[Any, ...]) -> tuple[Any, ...]:
    if all(type(item) in ATOMIC for item in value) or immutable(value):
        return value
    return tuple(cloner(type(item))(item) for item in value)


def _clone_set(value: set[Any]) -> set[Any]:
    if all(type(item) in ATOMIC for item in value):
        return set(value)
    return copy.deepcopy(value)


def _own_hook(kind: type, hook: str) -> bool:
    """Whether ``kind`` has a copy hook of its own (not object's, not the pickling helpers
    that ``@dataclass(slots=True)`` writes)."""
    fn = getattr(kind, hook, None)
    if fn is getattr(object, hook, None):
        return False
    if hook in ("__getstate__", "__setstate__") and native(kind):
        return False  # the pickling pair that mypyc writes for every native class
    if hook == "__reduce__" and fn in _field_reduces():
        return False  # the state's own classes: reduced to their fields (reduce_fields)
    return not (getattr(fn, "__module__", None) == "dataclasses"
                and getattr(fn, "__name__", "") in ("_dataclass_getstate",
                                                    "_dataclass_setstate"))


def _field_reduces() -> tuple[Any, ...]:
    """The ``__reduce__`` of the kernel's state classes and of ``Event``, which
    :func:`reduce_fields`, and of ``Duration``, rebuilt from its fields by its constructor:
    none changes what a copy holds."""
    from .events import Event
    from .model import Condition, Duration, EncounterState, Entity
    return (Condition.__reduce__, EncounterState.__reduce__, Entity.__reduce__,
            Event.__reduce__, Duration.__reduce__)


def reduce_fields(value: Any) -> tuple[Any, ...]:
    """``value.__reduce__()`` for a dataclass instance: its class and its attributes (its
    fields, and whatever else its ``__dict__`` holds), rebuilt by setting them. The kernel's
    state classes reduce so, so that copying and pickling keep every field in the compiled
    build too: there they are native, and the pickling that mypyc writes for a native class
    knows only its own fields, not those of a subclass written in Python (a ruleset's
    creature, the demo's)."""
    return (_rebuild, (type(value), _fields_of(value)))


def _plain_dataclass(kind: type) -> bool:
    """A dataclass whose instances hold only their attributes (no custom copy hooks)."""
    return dataclasses.is_dataclass(kind) and not any(_own_hook(kind, h) for h in _HOOKS)


def native(kind: type) -> bool:
    """Whether ``kind`` is a native class of the compiled build (mypyc), or an interpreted
    subclass of one: its fields live in the object itself, not in a ``__dict__``, and an
    instance is made by its own ``__new__`` (``object.__new__`` refuses it)."""
    return hasattr(kind, "__mypyc_attrs__")


Copiers = tuple[Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], dict[str, Any]],
                Callable[[dict[str, Any]], Any]]
_WRITTEN: list[tuple[dict[type, Copiers], dict[type, dict[str, str]]]] = []
"""What ``arbiter/native_clones.py`` holds (``COPIERS``, ``ANNOTATIONS``), once loaded."""


def _written() -> tuple[dict[type, Copiers], dict[type, dict[str, str]]]:
    """The copiers and source annotations that ``tools/native_clones.py`` wrote (loaded on
    first use, by the compiled build only: it imports the rulesets' models)."""
    if not _WRITTEN:
        module = importlib.import_module("arbiter.native_clones")
        _WRITTEN.append((module.COPIERS, module.ANNOTATIONS))
    return _WRITTEN[0]


def native_copiers(kind: type) -> Copiers | None:
    """The copying functions written for native class ``kind`` (exactly that class) by
    ``tools/native_clones.py`` into ``arbiter/native_clones.py``: its full copy, its scratch
    copy, its fields as a dict and its build from them; None for any other class. The
    compiled build copies its native classes with them: compiled, each reads and sets the
    fields directly, where a copy by field names took longer than a native class saves."""
    return _written()[0].get(kind)


def blank(kind: type) -> Any:
    """An instance of ``kind`` with no field set yet, to fill in: made by the class's own
    ``__new__`` (a native class of the compiled build refuses ``object.__new__``)."""
    maker: Any = kind
    return maker.__new__(kind)


def immutable(value: Any) -> bool:
    """Atomic, or a tuple/frozenset/frozen dataclass of immutable values: safe to share."""
    kind = type(value)
    if kind in ATOMIC:
        return True
    if kind is tuple or kind is frozenset:
        return all(immutable(item) for item in value)
    params = getattr(kind, "__dataclass_params__", None)
    if params is not None and params.frozen and _plain_dataclass(kind):
        return all(immutable(getattr(value, f.name)) for f in dataclasses.fields(kind))
    return False


_ATOMIC_HINTS: frozenset[Any] = frozenset({int, str, float, bool, type(None), bytes})


def _kind_of_hint(hint: Any) -> str:
    """How a field annotated ``hint`` is copied: ``atomic`` (shared), ``set``/``dict``/
    ``list`` of atomic values (one C-level copy), or ``any`` (looked at when copied)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint in _ATOMIC_HINTS:
        return "atomic"
    if origin is typing.Literal:
        return "atomic"
    if origin in (types.UnionType, typing.Union) and all(a in _ATOMIC_HINTS for a in args):
        return "atomic"
    if origin is tuple and args and all(a in _ATOMIC_HINTS or a is Ellipsis for a in args):
        return "atomic"
    if origin in (set, list) and args and all(a in _ATOMIC_HINTS for a in args):
        return "set" if origin is set else "list"
    if origin is dict and args and all(a in _ATOMIC_HINTS for a in args):
        return "dict"
    return "any"


def type_hints(kind: type) -> dict[str, Any]:
    """The annotations of class ``kind`` and its bases, resolved (``typing.get_type_hints``).
    A native class of the compiled build has lost them (mypyc keeps ``dict`` of
    ``dict[str, int]``, ``type`` of ``str | None``): for those, the annotations written in
    the source, which ``tools/native_clones.py`` kept in ``arbiter/native_clones.py``, are
    resolved in the class's module instead. Raises what ``get_type_hints`` raises for an
    annotation that does not resolve."""
    hints = typing.get_type_hints(kind)
    if native(kind):
        declared = _written()[1]
        for klass in reversed(kind.__mro__):
            written = declared.get(klass)
            if written:
                namespace = vars(sys.modules[klass.__module__])
                hints.update({name: eval(text, namespace)  # our own source's text
                              for name, text in written.items()})
    return hints


def _field_kinds(kind: type) -> dict[str, str] | None:
    try:
        hints = type_hints(kind)
    except Exception:  # an annotation that does not resolve: look at every value
        return None
    return {f.name: _kind_of_hint(hints.get(f.name)) for f in dataclasses.fields(kind)}


def _fields_cloner(kind: type, kinds: dict[str, str]) -> Cloner:
    """A cloner for ``kind``'s fields, given how each is copied (``kinds``, see
    :func:`_kind_of_hint`): one dict copy, then only the fields that can hold something
    mutable. (Cloners written out as source and ``exec``-ed instead measured no faster here:
    copying a realms 4v4 state took 20-32 µs either way and whole encounters ran as fast,
    within the noise of a shared two-core machine; issue 19 keeps only what pays.)"""
    sets = tuple(n for n, k in kinds.items() if k == "set")
    shallow = tuple(n for n, k in kinds.items() if k in ("dict", "list"))
    looked = tuple(n for n, k in kinds.items() if k == "any")
    fields, count = frozenset(kinds), len(kinds)
    new, get = object.__new__, _CLONERS.get

    def clone(value: Any) -> Any:
        out: Any = new(kind)
        source = value.__dict__
        target = source.copy()
        for name in sets:
            target[name] = set(source[name])
        for name in shallow:
            target[name] = source[name].copy()
        for name in looked:
            item = source[name]
            item_kind = type(item)
            if item_kind not in ATOMIC:
                if not item and (item_kind is list or item_kind is dict):
                    target[name] = item_kind()
                else:
                    target[name] = (get(item_kind) or cloner(item_kind))(item)
        if len(target) != count:
            for name, item in source.items():
                if name not in fields and type(item) not in ATOMIC:
                    target[name] = cloner(type(item))(item)
        out.__dict__ = target
        return out

    return clone


def _slots_fields_cloner(kind: type, kinds: dict[str, str]) -> Cloner:
    """A cloner for a dataclass without a ``__dict__`` (slotted, or a native class of the
    compiled build): atomic fields assigned, containers of atomic values copied once,
    anything else looked at."""
    atomic = tuple(n for n, k in kinds.items() if k == "atomic")
    sets = tuple(n for n, k in kinds.items() if k == "set")
    shallow = tuple(n for n, k in kinds.items() if k in ("dict", "list"))
    looked = tuple(n for n, k in kinds.items() if k == "any")
    new, get, setattr_ = typing.cast(Any, kind).__new__, _CLONERS.get, object.__setattr__

    def clone(value: Any) -> Any:
        out: Any = new(kind)
        for name in atomic:
            setattr_(out, name, getattr(value, name))
        for name in sets:
            setattr_(out, name, set(getattr(value, name)))
        for name in shallow:
            setattr_(out, name, getattr(value, name).copy())
        for name in looked:
            item = getattr(value, name)
            item_kind = type(item)
            if item_kind not in ATOMIC:
                if not item and (item_kind is list or item_kind is dict):
                    item = item_kind()
                else:
                    item = (get(item_kind) or cloner(item_kind))(item)
            setattr_(out, name, item)
        return out

    return clone


def _dataclass_cloner(kind: type) -> Cloner:
    params = getattr(kind, "__dataclass_params__", None)
    names = [f.name for f in dataclasses.fields(kind)]
    if params is not None and params.frozen:
        frozen_kinds = _field_kinds(kind)
        if (frozen_kinds is not None and _plain_dataclass(kind)
                and all(k == "atomic" for k in frozen_kinds.values())):
            return _identity  # every field is a number, text or None: nothing to copy

        def clone_frozen(value: Any) -> Any:
            for name in names:
                item = getattr(value, name)
                if type(item) not in ATOMIC and not immutable(item):
                    return copy.deepcopy(value)
            return value

        return clone_frozen
    new = typing.cast(Any, kind).__new__
    setattr_ = object.__setattr__
    kinds = _field_kinds(kind)
    if native(kind):  # no __dict__ for the fields (one of a subclass holds only its extras)
        written = native_copiers(kind)
        if written is not None:
            return written[0]
        return _slots_fields_cloner(kind, kinds or {name: "any" for name in names})
    if getattr(kind, "__dictoffset__", 0) != 0 and kinds is not None:
        return _fields_cloner(kind, kinds)
    if getattr(kind, "__dictoffset__", 0) != 0:

        def clone_with_dict(value: Any) -> Any:
            out: Any = new(kind)
            target = out.__dict__
            for name, item in value.__dict__.items():
                item_kind = type(item)
                target[name] = item if item_kind in ATOMIC else cloner(item_kind)(item)
            return out

        return clone_with_dict

    if kinds is not None and getattr(kind, "__slots__", None) is not None:
        return _slots_fields_cloner(kind, kinds)

    def clone_slots(value: Any) -> Any:
        out: Any = new(kind)
        for name in names:
            item = getattr(value, name)
            item_kind = type(item)
            setattr_(out, name, item if item_kind in ATOMIC else cloner(item_kind)(item))
        return out

    return clone_slots


def cloner(kind: type) -> Cloner:
    """The function that copies values of ``kind`` (built once per type)."""
    fn = _CLONERS.get(kind)
    if fn is None:
        if kind in ATOMIC or kind is frozenset:
            fn = _identity
        elif kind is dict:
            fn = _clone_dict
        elif kind is list:
            fn = _clone_list
        elif kind is tuple:
            fn = _clone_tuple
        elif kind is set:
            fn = _clone_set
        elif _plain_dataclass(kind):
            fn = _dataclass_cloner(kind)
        else:
            fn = copy.deepcopy
        _CLONERS[kind] = fn
    return fn


def clone(value: Any) -> Any:
    """An independent copy of ``value`` (see the module's description).

    >>> from arbiter.core import Entity
    >>> a = Entity("nia", stats={"health": 3})
    >>> b = clone(a)
    >>> b == a, b.stats is a.stats
    (True, False)
    """
    kind = type(value)
    return value if kind in ATOMIC else cloner(kind)(value)


# -- copy-on-write scratch states for lookahead ---------------------------------------------
@mypyc_attr(native_class=False)
class CowEntities(dict[str, Any]):
    """The entities of a lookahead scratch state, shared with the state it was copied from.

    Reading is a plain dict's. While ``evolve`` runs on the scratch state its class is
    :class:`WritingEntities`, which gives each entity it hands out a copy of its own first.
    """

    __slots__ = ("above", "owned")
    owned: set[str]
    """The entities this scratch holds a copy of its own of: those ``evolve`` wrote."""
    above: frozenset[str] | set[str]
    """The entities written in the scratch states this one was copied from, back to the
    state that is not a scratch (:func:`touched`)."""

    def __reduce__(self) -> Any:
        return (dict, (dict(dict.items(self)),))


SCRATCH = "arbiter.scratch"
"""The key of a dataclass field's metadata that says how a lookahead's scratch copy treats
the field: ``"shared"`` or ``"copied"`` (use :data:`SHARED` and :data:`COPIED`)."""

SHARED: Mapping[str, str] = types.MappingProxyType({SCRATCH: "shared"})
"""Field metadata (``field(default_factory=dict, metadata=SHARED)``): the ruleset's
``apply_*`` methods only ever *replace* this field (assign a new value to it), never change
it, nor anything inside it, in place; a lookahead's scratch copy of the entity shares it
with the original instead of copying it.

>>> from dataclasses import dataclass, field
>>> from arbiter.core import Entity
>>> @dataclass
... class Scout(Entity):
...     route: list[str] = field(default_factory=list, metadata=SHARED)
>>> scratch_promises(Scout)
(frozenset({'route'}), frozenset())

Declare it only for what the ``apply_*`` methods guarantee: ``tests/core/test_purity.py``
plays every scenario with :func:`scratch_guard` on, under which a change in place raises."""

COPIED: Mapping[str, str] = types.MappingProxyType({SCRATCH: "copied"})
"""Field metadata for a list or dict whose items the ``apply_*`` methods only ever add,
remove or replace, never change in place (a list of Conditions that ``evolve`` adds to and
removes from, but whose Conditions it never alters): a lookahead's scratch copy copies the
container and shares the items."""


_SCRATCH_SHARED: dict[type, tuple[frozenset[str], frozenset[str]]] = {}
_SCRATCH_CLONERS: dict[type, Cloner] = {}


def scratch_promises(kind: type) -> tuple[frozenset[str], frozenset[str]]:
    """The fields of dataclass ``kind`` declared :data:`SHARED` and :data:`COPIED`."""
    found = _SCRATCH_SHARED.get(kind)
    if found is None:
        fields = dataclasses.fields(kind) if dataclasses.is_dataclass(kind) else ()
        for f in fields:
            how = f.metadata.get(SCRATCH)
            if how is not None and how not in ("shared", "copied"):
                raise ValueError(f"{kind.__name__}.{f.name}: metadata {SCRATCH!r} must be "
                                 f"'shared' or 'copied', not {how!r}")
        found = (frozenset(f.name for f in fields if f.metadata.get(SCRATCH) == "shared"),
                 frozenset(f.name for f in fields if f.metadata.get(SCRATCH) == "copied"))
        _SCRATCH_SHARED[kind] = found
    return found


KERNEL_EXTRA = frozenset({"scene", "tokens", "fog", "staged"})
"""The kernel's own keys of ``state.extra`` (``core/ruleset.py``: the scene, the tokens'
pictures, the fog of war, the creatures staged out of the order): its ``apply_*`` methods
only ever replace them, so every ruleset's scratch states share them. (The fog of a
painted map holds up to ``MAP_SQUARES`` squares: copied by every lookahead, it made each
command's cost grow with the map.)"""
_SHARED_EXTRA: dict[str, frozenset[str]] = {}


def share_extra_in_scratch(ruleset: str, keys: set[str] | frozenset[str]) -> None:
    """Declare keys of ``state.extra`` whose values the ``apply_*`` methods of ``ruleset``
    only ever replace (``state.extra[key] = new``), never change in place: a lookahead's
    scratch state shares them instead of copying them (other keys are still copied), as
    it shares the kernel's (:data:`KERNEL_EXTRA`)."""
    _SHARED_EXTRA[ruleset] = frozenset(keys) | KERNEL_EXTRA


def _scratch_kinds(kind: type, kinds: dict[str, str]) -> dict[str, str]:
    """``kinds`` for a scratch copy: the :data:`SHARED` fields shared (as if atomic), the
    :data:`COPIED` ones copied one level (as if a list of atomic values)."""
    shared_, copied_ = scratch_promises(kind)
    return {n: "atomic" if n in shared_ else "list" if n in copied_ else k
            for n, k in kinds.items()}


def scratch_clone(value: Any) -> Any:
    """A copy of an entity for a scratch state: :func:`clone`, except the fields declared
    :data:`SHARED` (shared) and :data:`COPIED` (copied one level deep)."""
    kind = type(value)
    fn = _SCRATCH_CLONERS.get(kind)
    if fn is None:
        shared_, copied_ = scratch_promises(kind)
        declared = shared_ or copied_
        kinds = _field_kinds(kind) if declared else None
        if declared and kinds is not None and _plain_dataclass(kind) and native(kind):
            written = native_copiers(kind)
            fn = (written[1] if written is not None
                  else _slots_fields_cloner(kind, _scratch_kinds(kind, kinds)))
            if _GUARD:
                fn = _guarding(fn, kind.__name__, shared_, copied_)
        elif (declared and kinds is not None and _plain_dataclass(kind)
                and getattr(kind, "__dictoffset__", 0) != 0):
            fn = _fields_cloner(kind, _scratch_kinds(kind, kinds))
            if _GUARD:
                fn = _guarding(fn, kind.__name__, shared_, copied_)
        else:
            fn = cloner(kind)
        _SCRATCH_CLONERS[kind] = fn
    return fn(value)


peek: Callable[[Mapping[str, Any], str], Any] = dict.get  # type: ignore[assignment]
"""``peek(entities, id)``: an entity to read without taking a copy of it, in an ``apply_*``
method that may leave it unchanged: set a field through ``entities[id]`` only when it
changes, so a lookahead copies the entity only then. It is ``dict.get`` itself, which
bypasses the copy-on-write subclass (and costs no Python call)."""


@mypyc_attr(native_class=False)
class WritingEntities(CowEntities):
    """:class:`CowEntities` while ``evolve`` changes the scratch state: copy on access."""

    __slots__ = ()

    def _own(self, key: str) -> Any:
        value = dict.__getitem__(self, key)
        fn = _SCRATCH_CLONERS.get(type(value))
        value = fn(value) if fn is not None else scratch_clone(value)
        dict.__setitem__(self, key, value)
        self.owned.add(key)
        return value

    def _own_all(self) -> None:
        for key in dict.keys(self):
            if key not in self.owned:
                self._own(key)

    def own_fully(self) -> None:
        """Copy every entity completely (nothing shared with the original state), before an
        event that may change any value in place."""
        for key in dict.keys(self):
            dict.__setitem__(self, key, clone(dict.__getitem__(self, key)))
            self.owned.add(key)

    def __getitem__(self, key: str) -> Any:
        if key not in self.owned:
            return self._own(key)
        return dict.__getitem__(self, key)

    def __iter__(self) -> Any:  # overridden so that dict(x) and {**x} go through __getitem__
        return dict.__iter__(self)

    def get(self, key: str, default: Any = None) -> Any:
        if key in self.owned:
            return dict.__getitem__(self, key)
        if key in self:
            return self._own(key)
        return default

    def values(self) -> Any:
        self._own_all()
        return dict.values(self)

    def items(self) -> Any:
        self._own_all()
        return dict.items(self)

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self.owned.add(key)

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self, key)
        self.owned.discard(key)

    def pop(self, key: str, *default: Any) -> Any:
        if key in self:
            value = self[key]
            del self[key]
            return value
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, Any]:
        key = next(reversed(dict.keys(self)))
        return key, self.pop(key)

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key in self:
            return self[key]
        self[key] = default
        return default

    def copy(self) -> dict[str, Any]:
        return {key: self[key] for key in self}


@mypyc_attr(native_class=False)
class TouchingEntities(WritingEntities):
    """:class:`WritingEntities` for a state its caller owns (``Ruleset.advance``): it notes
    each entity it hands out to ``evolve``, as a lookahead would, without copying it (the
    state is changed in place), so that :func:`touched` names them."""

    __slots__ = ()

    def _own(self, key: str) -> Any:
        self.owned.add(key)
        return dict.__getitem__(self, key)


def touching(entities: dict[str, Any]) -> CowEntities:
    """``entities`` (a plain dict) as the entities of a state its caller owns that notes
    which of them ``evolve`` touches (:class:`TouchingEntities`, while it is applied):
    none yet, nothing above."""
    out = CowEntities(entities)
    out.owned = set()
    out.above = NONE
    return out


def _clone_cow(value: CowEntities) -> dict[str, Any]:
    return {key: clone(item) for key, item in dict.items(value)}


_CLONERS[CowEntities] = _CLONERS[WritingEntities] = _clone_cow


@dataclasses.dataclass(frozen=True, slots=True)
class _Plan:
    shallow: tuple[str, ...]
    """Fields whose annotation promises a set, dict or list of atomic values."""
    looked: tuple[str, ...]
    """Fields that may hold anything (entities aside)."""
    fields: frozenset[str]
    native: bool
    """A native class of the compiled build: its fields are read and set one by one."""
    written: Copiers | None
    """Its copying functions (:func:`native_copiers`), when it has them."""


_SCRATCH_PLANS: dict[type, _Plan] = {}


def _scratch_plan(kind: type) -> _Plan:
    kinds = _scratch_kinds(kind, _field_kinds(kind)
                           or {f.name: "any" for f in dataclasses.fields(kind)})
    plan = _Plan(tuple(n for n, k in kinds.items() if k in ("set", "dict", "list")),
                 tuple(n for n, k in kinds.items() if k == "any" and n != "entities"),
                 frozenset(kinds), native(kind),
                 native_copiers(kind) if native(kind) else None)
    _SCRATCH_PLANS[kind] = plan
    return plan


NONE: frozenset[str] = frozenset()


def _fields_of(value: Any) -> dict[str, Any]:
    """A dataclass instance's attributes by name: its fields, and whatever else its
    ``__dict__`` holds (an interpreted subclass's extras, in the compiled build)."""
    out = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    extra = getattr(value, "__dict__", None)
    if extra:
        out.update(extra)
    return out


def _set_fields(out: Any, fields: dict[str, Any]) -> None:
    setattr_ = object.__setattr__
    for name, item in fields.items():
        setattr_(out, name, item)


def touched(state: EncounterState) -> set[str] | frozenset[str] | None:
    """The ids of the entities that may differ in ``state`` from the state that is not a
    scratch which it was looked ahead from (a chain of lookaheads: those any of them wrote,
    added or removed, or all when an event changed values in place), or None when ``state``
    is not a lookahead's scratch state. A rule that keeps a fact true after each command
    (the state it starts from has it) need only look again at these.

    >>> from arbiter.core import Entity, EncounterState, Event
    >>> state = EncounterState("demo", entities={"a": Entity("a"), "b": Entity("b")})
    >>> touched(state) is None
    True
    >>> def rename(s: EncounterState, e: Event) -> EncounterState:
    ...     s.entities["b"].name = "Bea"
    ...     return s
    >>> once = apply_to_scratch(rename, scratch_copy(state), [Event("renamed", {})])
    >>> sorted(touched(once)), sorted(touched(scratch_copy(once)))
    (['b'], ['b'])
    >>> state.entities["b"].name, once.entities["b"].name  # the original is unchanged
    ('', 'Bea')
    """
    entities = state.entities
    if isinstance(entities, CowEntities):
        return entities.owned | entities.above if entities.above else entities.owned
    return None


def scratch_copy(state: EncounterState) -> EncounterState:
    """A copy for ``lookahead``: the small containers copied, the entities copy-on-write."""
    kind = type(state)
    plan = _SCRATCH_PLANS.get(kind) or _scratch_plan(kind)
    written = plan.written
    if written is not None:
        fields = written[2](state)  # a new dict, as _fields_of makes
    else:
        fields = _fields_of(state) if plan.native else state.__dict__.copy()
    entities = state.entities
    cow = fields["entities"] = CowEntities(entities)
    cow.owned = set()
    cow.above = entities.owned | entities.above if isinstance(entities, CowEntities) else NONE
    # ``fields`` holds the original's values until each is replaced by its copy, once
    for name in plan.shallow:
        fields[name] = fields[name].copy()
    shared_extra = _SHARED_EXTRA.get(fields.get("ruleset", ""), KERNEL_EXTRA)
    for name in plan.looked:
        item = fields[name]
        item_kind = type(item)
        if item_kind in ATOMIC:
            continue
        if not item and (item_kind is dict or item_kind is list):
            fields[name] = item_kind()
        elif name == "extra" and shared_extra is not None and item_kind is dict:
            fields[name] = {key: value if key in shared_extra or type(value) in ATOMIC
                            else clone(value) for key, value in item.items()}
        else:
            fields[name] = (_CLONERS.get(item_kind) or cloner(item_kind))(item)
    if len(fields) != len(plan.fields):  # attributes beyond the fields: copy them too
        for name, item in list(fields.items()):
            if name not in plan.fields and type(item) not in ATOMIC:
                fields[name] = clone(item)
    if _GUARD:
        _guard_state(kind, fields, shared_extra)
    out: Any
    if written is not None:
        out = written[3](fields)
    else:
        out = blank(kind)
        if plan.native:
            _set_fields(out, fields)
        else:
            out.__dict__ = fields
    result: EncounterState = out
    return result


IN_PLACE_EVENTS = frozenset({"overridden"})
"""Events whose ``apply_*`` may change any value in place (the kernel's ``override``)."""


def run_copy(state: EncounterState) -> EncounterState:
    """A copy of ``state`` for ``evolve`` to change as it changes any state, that shares
    with it what the ``apply_*`` methods promise never to change in place: the state's
    fields as :func:`scratch_copy` copies them, and each entity as a lookahead copies one it
    writes (the fields declared :data:`SHARED` shared, those declared :data:`COPIED` copied
    one level). The simulator starts every run from one of the encounter's set-up state
    (a full :func:`clone` was 3% of a Polemos run's instructions). Before an event of
    :data:`IN_PLACE_EVENTS` the copy must :func:`own_fully` what it shares."""
    out = scratch_copy(state)
    out.entities = {key: scratch_clone(value) for key, value in state.entities.items()}
    return out


def own_fully(state: EncounterState) -> None:
    """Make a :func:`run_copy`, or a scratch state while ``evolve`` runs on it, share nothing
    with its original (before an event that may change any value in place:
    :data:`IN_PLACE_EVENTS`)."""
    entities = state.entities
    if type(entities) is WritingEntities:
        entities.own_fully()
    else:
        for key in list(entities):
            entities[key] = clone(entities[key])
    fields = _fields_of(state)
    for name, item in fields.items():
        if name != "entities" and type(item) not in ATOMIC:
            object.__setattr__(state, name, clone(item))


def apply_to_scratch(evolve: Callable[[EncounterState, Event], EncounterState],
                     scratch: EncounterState, events: list[Event]) -> EncounterState:
    """Apply ``events`` with ``evolve`` to a state made by :func:`scratch_copy`: while each
    event is applied the scratch's entities are copied as they are handed out, so the state
    the scratch came from never changes."""
    entities = scratch.entities
    if type(entities) is not CowEntities:  # not a scratch state: plain evolve
        for event in events:
            evolve(scratch, event)
        return scratch
    entities.__class__ = WritingEntities
    try:
        for event in events:
            if event.type in IN_PLACE_EVENTS:
                own_fully(scratch)  # the entities and the shared state fields
            evolve(scratch, event)
    finally:
        entities.__class__ = CowEntities
    return scratch


# -- the test-mode guard of the promises -----------------------------------------------------
_GUARD = os.environ.get("ARBITER_SCRATCH_GUARD", "") not in ("", "0")


@mypyc_attr(native_class=False)  # mypyc compiles no subclass of RuntimeError
class BrokenPromise(RuntimeError):
    """A value a lookahead's scratch copy shares with the state it was copied from (a field
    declared :data:`SHARED` or :data:`COPIED`, a ``share_extra_in_scratch`` key) was changed
    in place: the original state would have changed too. Raised only under
    :func:`scratch_guard`."""


@contextlib.contextmanager
def scratch_guard(on: bool = True) -> Iterator[None]:
    """Within this block (or with ``ARBITER_SCRATCH_GUARD=1`` in the environment) a scratch
    copy holds read-only copies of the values it would share with its original: a change in
    place raises :class:`BrokenPromise` naming the field and the change. For tests: the
    copies cost time."""
    global _GUARD
    before = _GUARD
    _GUARD = on
    _SCRATCH_CLONERS.clear()
    try:
        yield
    finally:
        _GUARD = before
        _SCRATCH_CLONERS.clear()


def _broken(where: str, change: str) -> BrokenPromise:
    return BrokenPromise(
        f"{where} is shared by a lookahead's scratch copy with the state it was copied from, "
        f"but was changed in place ({change}): an apply_* method must assign a new value "
        "instead, or the field must not be declared shared (core/copying.py)")


def _refuse(name: str) -> Callable[..., Any]:
    def refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise _broken(self.where, f"{type(self).__bases__[0].__name__}.{name}")

    refuse.__name__ = name
    return refuse


def _read_only(base: type, mutators: tuple[str, ...]) -> type:
    """A subclass of ``base`` (dict, list or set) that refuses every change in place; built
    from it (``type(x)(...)``), copied or pickled it gives a plain ``base``."""

    def new(cls: type, *args: Any, **kwargs: Any) -> Any:
        return base(*args, **kwargs)

    def reduce(self: Any) -> Any:
        return (base, (list(self) if base is set else base(self),))

    namespace: dict[str, Any] = {name: _refuse(name) for name in mutators}
    namespace.update(__slots__=("where",), __new__=new, __reduce__=reduce,
                     __init__=lambda self, *args, **kwargs: None)
    return type(f"ReadOnly{base.__name__.capitalize()}", (base,), namespace)


_ReadOnlyDict = _read_only(dict, ("__setitem__", "__delitem__", "__ior__", "clear", "pop",
                                  "popitem", "setdefault", "update"))
_ReadOnlyList = _read_only(list, ("__setitem__", "__delitem__", "__iadd__", "__imul__",
                                  "append", "extend", "insert", "pop", "remove", "clear",
                                  "sort", "reverse"))
_ReadOnlySet = _read_only(set, ("__ior__", "__iand__", "__isub__", "__ixor__", "add",
                                "discard", "remove", "pop", "clear", "update",
                                "intersection_update", "difference_update",
                                "symmetric_difference_update"))
_READ_ONLY: dict[type, type] = {}
_GUARDS = {_ReadOnlyDict, _ReadOnlyList, _ReadOnlySet}


def _rebuild(kind: type, values: dict[str, Any]) -> Any:
    out: Any = blank(kind)
    for name, value in values.items():
        object.__setattr__(out, name, value)
    return out


def _read_only_dataclass(kind: type) -> type:
    """A subclass of dataclass ``kind`` whose instances refuse ``x.field = ...``; equal to
    a ``kind`` with equal fields; built (``dataclasses.replace``), copied or pickled it gives
    a plain ``kind``."""
    guarded = _READ_ONLY.get(kind)
    if guarded is not None:
        return guarded
    names = tuple(f.name for f in dataclasses.fields(kind))

    def new(cls: type, *args: Any, **kwargs: Any) -> Any:
        return kind(*args, **kwargs)

    def setattr_(self: Any, name: str, value: Any) -> None:
        raise _broken(self.where, f"{name} = {value!r}")

    def delattr_(self: Any, name: str) -> None:
        raise _broken(self.where, f"del {name}")

    def eq(self: Any, other: Any) -> Any:
        if not isinstance(other, kind):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in names)

    def reduce(self: Any) -> Any:
        values = dict(self.__dict__) if hasattr(self, "__dict__") else {}
        values.update((n, getattr(self, n)) for n in names)
        return (_rebuild, (kind, values))

    guarded = type(f"ReadOnly{kind.__name__}", (kind,), {
        "__slots__": ("where",), "__new__": new, "__setattr__": setattr_,
        "__delattr__": delattr_, "__eq__": eq, "__hash__": None, "__reduce__": reduce,
        "__init__": lambda self, *args, **kwargs: None})
    _READ_ONLY[kind] = guarded
    _GUARDS.add(guarded)
    return guarded


def read_only(value: Any, where: str) -> Any:
    """A read-only copy of ``value`` (dicts, lists, sets and dataclass instances in it
    too, down to numbers and text), equal to it, whose changes in place raise
    :class:`BrokenPromise` naming ``where``. Values already immutable come back as they
    are, as do objects of other classes (which it cannot guard).

    >>> guarded = read_only({"hp": [3, 4]}, "nia.stats")
    >>> guarded == {"hp": [3, 4]}
    True
    >>> guarded["hp"].append(5)
    Traceback (most recent call last):
    ...
    arbiter.core.copying.BrokenPromise: nia.stats['hp'] is shared by a lookahead's \
scratch copy with the state it was copied from, but was changed in place (list.append): \
an apply_* method must assign a new value instead, or the field must not be declared \
shared (core/copying.py)
    """
    kind = type(value)
    if kind in ATOMIC or kind in _GUARDS or kind is frozenset:
        return value
    out: Any
    if kind is dict:
        out = dict.__new__(_ReadOnlyDict)
        dict.update(out, {key: item if type(item) in ATOMIC
                          else read_only(item, f"{where}[{key!r}]")
                          for key, item in value.items()})
    elif kind is list:
        out = list.__new__(_ReadOnlyList)
        list.extend(out, [item if type(item) in ATOMIC else read_only(item, f"{where}[{i}]")
                          for i, item in enumerate(value)])
    elif kind is set:
        out = set.__new__(_ReadOnlySet)
        set.update(out, value)
    elif kind is tuple:
        if all(type(item) in ATOMIC for item in value):
            return value
        return tuple(read_only(item, f"{where}[{i}]") for i, item in enumerate(value))
    elif _plain_dataclass(kind) and not immutable(value):
        params = getattr(kind, "__dataclass_params__", None)
        if params is not None and params.frozen:
            return value
        out = typing.cast(Any, kind).__new__(_read_only_dataclass(kind))
        for name, item in _fields_of(value).items():
            object.__setattr__(out, name, item if type(item) in ATOMIC
                               else read_only(item, f"{where}.{name}"))
    else:
        return value
    object.__setattr__(out, "where", where)
    return out


def _guarding(fn: Cloner, label: str, shared_: frozenset[str],
              copied_: frozenset[str]) -> Cloner:
    """``fn`` (a scratch cloner), then the shared fields made read-only, and the items of
    the copied ones."""

    def clone_guarded(value: Any) -> Any:
        out = fn(value)
        target = _fields_of(out)
        name_of = f"{label} {target.get('id', '?')!s}"
        for name in shared_:
            target[name] = read_only(target[name], f"{name_of}.{name}")
        for name in copied_:
            items = target[name]
            where = f"{name_of}.{name}"
            if type(items) is dict:
                target[name] = {k: read_only(v, f"{where}[{k!r}]") for k, v in items.items()}
            elif type(items) is list:
                target[name] = [read_only(v, f"{where}[{i}]") for i, v in enumerate(items)]
        _set_fields(out, target)
        return out

    return clone_guarded


def _guard_state(kind: type, fields: dict[str, Any], shared_extra: frozenset[str] | None
                 ) -> None:
    """A scratch state's own shared values made read-only (see :func:`_guarding`)."""
    shared_, copied_ = scratch_promises(kind)
    for name in shared_:
        fields[name] = read_only(fields[name], f"state.{name}")
    for name in copied_:
        items = fields[name]
        if type(items) is dict:
            fields[name] = {k: read_only(v, f"state.{name}[{k!r}]") for k, v in items.items()}
    extra = fields.get("extra")
    if shared_extra and type(extra) is dict:
        for key in extra.keys() & shared_extra:  # (a set: frozenset & keys is the keys' own &)
            extra[key] = read_only(extra[key], f"state.extra[{key!r}]")
