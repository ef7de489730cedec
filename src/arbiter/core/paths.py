"""Dotted paths into the state, for expectations (``nia.health``) and GM overrides."""

from __future__ import annotations

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
    """Set the value at ``path`` (an attribute or a mapping key of the last parent)."""
    parts = path.split(".")
    if len(parts) < 2:
        raise InvalidCommand(f"cannot override {path!r}: name a field, e.g. 'nia.health'")
    try:
        parent = get_path(state, ".".join(parts[:-1]))
    except KeyError as err:
        raise InvalidCommand(str(err.args[0])) from None
    last = parts[-1]
    if isinstance(parent, MutableMapping):
        parent[last] = value
    elif hasattr(parent, last) and not last.startswith("_"):
        setattr(parent, last, value)
    else:
        raise InvalidCommand(f"cannot override {path!r}: nothing named {last!r} there")
