"""Encoding encounter states as JSON for snapshots, and decoding them again.

The kernel's state is made of dataclasses (``EncounterState``, the ruleset's ``Entity``
subclasses, ``Condition``, ``Duration``) holding plain values, sets and tuples. A snapshot
writes each dataclass as ``{"$dc": "module:Class", ...fields}``, a set as ``{"$set": [...]}``,
a frozenset as ``{"$frozenset": [...]}``, a tuple as ``{"$tuple": [...]}``, a fraction as
``{"$fraction": "7/12"}`` and a mapping whose keys are not all plain strings (or that uses
one of these marker keys) as ``{"$map": [[key, value], ...]}``. Only dataclasses defined in
``arbiter`` packages (or in a registered ruleset's module) are rebuilt, never arbitrary
classes. Anything else raises :class:`SnapshotError`, and the store simply replays the log.

>>> from arbiter.core import EncounterState
>>> state = EncounterState(ruleset="demo", rulings={"DEMO-1": "double-dice"})
>>> decode_state(encode_state(state)) == state
True
"""

from __future__ import annotations

import dataclasses
import importlib
from fractions import Fraction
from typing import Any

from ..core import EncounterState
from ..core.copying import blank
from .errors import SnapshotError

_MARKERS = ("$dc", "$set", "$frozenset", "$tuple", "$fraction", "$map")
_ALLOWED_PREFIXES: tuple[str, ...] = ("arbiter.",)


def allow_module_prefix(prefix: str) -> None:
    """Let snapshots rebuild dataclasses from modules starting with ``prefix`` (a plugin's)."""
    global _ALLOWED_PREFIXES
    if prefix not in _ALLOWED_PREFIXES:
        _ALLOWED_PREFIXES = (*_ALLOWED_PREFIXES, prefix)


def encode(value: Any) -> Any:
    """A JSON-compatible form of ``value`` (see the module docstring)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        if all(type(k) is str for k in value) and not any(m in value for m in _MARKERS):
            return {k: encode(v) for k, v in value.items()}
        return {"$map": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"$tuple": [encode(v) for v in value]}
    if isinstance(value, frozenset):
        return {"$frozenset": [encode(v) for v in sorted(value, key=repr)]}
    if isinstance(value, set):
        return {"$set": [encode(v) for v in sorted(value, key=repr)]}
    if isinstance(value, Fraction):
        return {"$fraction": str(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        out: dict[str, Any] = {"$dc": f"{cls.__module__}:{cls.__qualname__}"}
        for f in dataclasses.fields(value):
            out[f.name] = encode(getattr(value, f.name))
        return out
    raise SnapshotError(f"cannot snapshot a value of type {type(value).__name__}")


def _class(path: str) -> Any:
    module_name, _, qualname = path.partition(":")
    if not module_name.startswith(_ALLOWED_PREFIXES):
        raise SnapshotError(f"snapshot names a class outside arbiter: {path!r}")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as err:
        raise SnapshotError(f"snapshot names an unknown class {path!r}: {err}") from None
    if not (isinstance(obj, type) and dataclasses.is_dataclass(obj)):
        raise SnapshotError(f"snapshot class {path!r} is not a dataclass")
    return obj


def decode(value: Any) -> Any:
    """The value :func:`encode` was given."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$dc" in value:
        cls = _class(value["$dc"])
        obj = blank(cls)
        for f in dataclasses.fields(cls):
            if f.name in value:
                object.__setattr__(obj, f.name, decode(value[f.name]))
            elif f.default is not dataclasses.MISSING:
                object.__setattr__(obj, f.name, f.default)
            elif f.default_factory is not dataclasses.MISSING:
                object.__setattr__(obj, f.name, f.default_factory())
            else:
                raise SnapshotError(f"snapshot of {value['$dc']} lacks the field {f.name!r}")
        return obj
    if "$set" in value:
        return {decode(v) for v in value["$set"]}
    if "$frozenset" in value:
        return frozenset(decode(v) for v in value["$frozenset"])
    if "$tuple" in value:
        return tuple(decode(v) for v in value["$tuple"])
    if "$fraction" in value:
        return Fraction(value["$fraction"])
    if "$map" in value:
        return {_hashable(decode(k)): decode(v) for k, v in value["$map"]}
    return {k: decode(v) for k, v in value.items()}


def _hashable(key: Any) -> Any:
    if isinstance(key, list):
        return tuple(_hashable(k) for k in key)
    return key


def encode_state(state: EncounterState) -> dict[str, Any]:
    encoded = encode(state)
    assert isinstance(encoded, dict)
    return encoded


def decode_state(payload: dict[str, Any]) -> EncounterState:
    state = decode(payload)
    if not isinstance(state, EncounterState):
        raise SnapshotError("a snapshot must hold an EncounterState")
    return state
