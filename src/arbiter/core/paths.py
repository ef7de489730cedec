"""Dotted paths into the state, for expectations (``nia.health``) and GM overrides."""

from __future__ import annotations

import copy
from collections.abc import Mapping, MutableMapping
from typing import Any

from .errors import InvalidCommand
from .model import EncounterState


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
    obj: Any = state.entities.get(parts[0])
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
    root: Any = state.entities.get(parts[0])
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
    new = value
    for depth in range(len(chain) - 1, 0, -1):  # copies from the leaf up
        new = _replaced(chain[depth], keys[depth], new, path)
    _put(chain[0], keys[0], new, path)


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
        setattr(obj, key, value)
    else:
        raise InvalidCommand(f"cannot override {path!r}: nothing named {key!r} there")
