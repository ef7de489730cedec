"""Dotted paths into the state, for expectations (``nia.health``) and GM overrides."""

from __future__ import annotations

import copy
import dataclasses
import functools
import types
import typing
from collections.abc import Mapping, MutableMapping
from typing import Any

import msgspec

from .copying import type_hints
from .errors import InvalidCommand
from .model import EncounterState, entity_at


def _step(obj: Any, key: str, path: str) -> Any:
    if isinstance(obj, Mapping):
        if key in obj:
            return obj[key]
    elif isinstance(obj, list | tuple):
        if key.lstrip("-").isdigit() and -len(obj) <= int(key) < len(obj):
            return obj[int(key)]
        for item in obj:
            if getattr(item, "name", None) == key or getattr(item, "id", None) == key:
                return item
    elif hasattr(obj, key) and not key.startswith("_"):
        return getattr(obj, key)
    raise KeyError(f"{path!r}: nothing named {key!r} here")


def get_path(state: EncounterState, path: str) -> Any:
    """The value at ``path``: an entity id first, else an attribute of the state."""
    parts = path.split(".")
    obj: Any = entity_at(state.entities, parts[0])
    if obj is None:
        obj = _step(state, parts[0], path)
    for key in parts[1:]:
        obj = _step(obj, key, path)
    return obj


def set_path(state: EncounterState, path: str, value: Any) -> None:
    """Set the value at ``path`` (an attribute or a mapping key of the last parent).

    Nothing below the entity (or the state's attribute) that ``path`` starts from is
    changed in place: each mapping, list and object on the way is copied and the copy
    replaces it, as a rule's ``apply_*`` replaces what it changes. A structure another
    state shares (a lookahead's scratch copy shares its creatures' ``SHARED`` fields, such
    as Polemos' body areas) or a cache keeps by identity (``area_facts``) stays true."""
    parts = path.split(".")
    if len(parts) < 2:
        raise InvalidCommand(f"cannot override {path!r}: name a field, e.g. 'nia.health'")
    root: Any = entity_at(state.entities, parts[0])
    keys = parts[1:]
    if root is None:  # an attribute of the state itself
        root, keys = state, parts
    try:
        chain = [root]
        for key in keys[:-1]:
            chain.append(_step(chain[-1], key, path))
    except KeyError as err:
        raise InvalidCommand(str(err.args[0])) from None
    last = keys[-1]
    parent = chain[-1]
    if not (isinstance(parent, MutableMapping)
            or (hasattr(parent, last) and not last.startswith("_"))):
        raise InvalidCommand(f"cannot override {path!r}: nothing named {last!r} there")
    new = typed(value, expected_type(chain, keys), path)
    for depth in range(len(chain) - 1, 0, -1):  # copies from the leaf up
        new = _replaced(chain[depth], keys[depth], new, path)
    _put(chain[0], keys[0], new, path)


@functools.cache
def _hints(kind: type) -> dict[str, Any]:
    try:
        return type_hints(kind)
    except Exception:  # an annotation that does not resolve: nothing is checked
        return {}


_CONTAINERS = (dict, list, tuple, set, frozenset)


def _item_type(hint: Any, container: Any) -> Any:
    """The type of an item of ``container``, a value annotated ``hint`` (``dict[str, int]``
    gives ``int``; ``list[Wound] | None`` gives ``Wound``), or Any."""
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        for arm in typing.get_args(hint):
            arm_origin = typing.get_origin(arm) or arm
            if isinstance(arm_origin, type) and isinstance(container, arm_origin):
                return _item_type(arm, container)
        return Any
    args = typing.get_args(hint)
    if origin in (dict, Mapping, MutableMapping) and len(args) == 2:
        return args[1]
    if origin in (list, set, frozenset) and len(args) == 1:
        return args[0]
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return args[0]
    return Any


def expected_type(chain: list[Any], keys: list[str]) -> Any:
    """The type a path's new value must have: the annotation of the field it sets, or of
    the items of the mapping or list it sets a value in (``nia.stats.STR``: the ``int`` of
    ``stats: dict[str, int]``), read down ``chain`` (the objects the path goes through,
    ``keys`` looked up in each); Any where nothing says."""
    hint: Any = Any
    for obj, key in zip(chain, keys, strict=True):
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            hint = _hints(type(obj)).get(key, Any)
        elif isinstance(obj, _CONTAINERS):
            hint = _item_type(hint, obj)
        else:
            hint = Any
    return hint


def typed(value: Any, hint: Any, path: str) -> Any:
    """``value`` as a value of type ``hint`` (a list for a ``set[str]`` field becomes a
    set), or InvalidCommand saying what was expected: a value of the wrong type never
    reaches the state (a Health of ``"abc"`` would break every rule that reads it)."""
    if hint is Any:
        return value
    try:
        return msgspec.convert(value, hint, strict=True)
    except msgspec.ValidationError as err:
        raise InvalidCommand(f"cannot override {path!r}: {err}") from None
    except TypeError:  # a type msgspec does not know: not checked here
        return value


def _replaced(obj: Any, key: str, value: Any, path: str) -> Any:
    """A copy of ``obj`` with ``key`` set to ``value``."""
    if isinstance(obj, Mapping):
        out: Any = dict(obj)
    elif isinstance(obj, list | tuple):
        out = list(obj)
    else:
        out = copy.copy(obj)
    _put(out, key, value, path)
    return tuple(out) if isinstance(obj, tuple) else out


def _put(obj: Any, key: str, value: Any, path: str) -> None:
    """Set ``key`` of ``obj`` (a mapping's key, a list's index or named item, an attribute)
    in place."""
    if isinstance(obj, MutableMapping):
        obj[key] = value
    elif isinstance(obj, list):
        if key.lstrip("-").isdigit() and -len(obj) <= int(key) < len(obj):
            obj[int(key)] = value
            return
        for index, item in enumerate(obj):
            if getattr(item, "name", None) == key or getattr(item, "id", None) == key:
                obj[index] = value
                return
        raise InvalidCommand(f"cannot override {path!r}: nothing named {key!r} there")
    elif hasattr(obj, key) and not key.startswith("_"):
        try:
            setattr(obj, key, value)
        except (AttributeError, TypeError) as err:  # a derived value; a native field's type
            raise InvalidCommand(f"cannot override {path!r}: {err}") from None
    else:
        raise InvalidCommand(f"cannot override {path!r}: nothing named {key!r} there")
