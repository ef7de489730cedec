"""Content files of the rulesets (templates, conditions, weapons, rulings...), versioned.

Every content file, TOML or YAML, carries its schema version as the top-level key
``schema`` (``schema = 1`` / ``schema: 1``), like events, log records and snapshots do.
:func:`read_content` reads a file, refuses one that is newer than this Arbiter or has no
version, brings an older one up to date through the upcasters registered with
:func:`content_upcaster` (one version at a time), and returns its data without the key.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..limits import YAML_BYTES
from ..yamlsafe import YamlError, load_yaml, plain
from .errors import SchemaError

CONTENT_SCHEMA = 1
"""Current schema version of content files (of every kind)."""

ContentUpcaster = Callable[[dict[str, Any]], dict[str, Any]]
_UPCASTERS: dict[tuple[str, int], ContentUpcaster] = {}


def content_upcaster(name: str, from_version: int) -> Callable[[ContentUpcaster],
                                                               ContentUpcaster]:
    """Register a function that turns the data of content files named ``name`` (a file
    name such as ``conditions.toml``, or ``*`` for every file) from ``from_version`` into
    the next version."""

    def register(fn: ContentUpcaster) -> ContentUpcaster:
        _UPCASTERS[(name, from_version)] = fn
        return fn

    return register


def _read_yaml(path: Path) -> Any:
    """A YAML content file as plain dicts and lists, read by the one safe YAML reader
    (:func:`arbiter.yamlsafe.load_yaml`, within the ``YAML_*`` limits of
    :mod:`arbiter.limits`); SchemaError naming the file and the line otherwise."""
    if path.stat().st_size > YAML_BYTES:
        raise SchemaError(f"{path}:1: cannot read this content file: it is larger than "
                          f"{YAML_BYTES:,} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        line = err.object[:err.start].count(b"\n") + 1
        raise SchemaError(f"{path}:{line}: cannot read this content file: it is not UTF-8 "
                          f"text (byte {err.object[err.start]:#04x})") from None
    try:
        return plain(load_yaml(text, str(path)))
    except YamlError as bad:  # (not ``err``: see tests/core/test_compilable.py)
        raise SchemaError(f"{path}:{bad.line}: cannot read this content file: "
                          f"{bad.reason}") from None


def read_content(path: Path) -> dict[str, Any]:
    """The data of a content file at the current schema version (without ``schema``).

    SchemaError, naming the file, when it cannot be read, has no version, is newer than
    this Arbiter, or has no upcaster from its version."""
    try:
        if path.suffix == ".toml":
            with path.open("rb") as fh:
                data: Any = tomllib.load(fh)
        else:
            data = _read_yaml(path)
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise SchemaError(f"{path}: cannot read this content file ({err})") from None
    if not isinstance(data, dict):
        raise SchemaError(f"{path}: a content file is a mapping at the top")
    version = data.pop("schema", None)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SchemaError(f"{path}: no schema version (a top-level 'schema = "
                          f"{CONTENT_SCHEMA}' key, or 'schema: {CONTENT_SCHEMA}' in YAML)")
    if version > CONTENT_SCHEMA:
        raise SchemaError(f"{path}: schema version {version} is newer than this Arbiter "
                          f"understands ({CONTENT_SCHEMA})")
    while version < CONTENT_SCHEMA:
        step = _UPCASTERS.get((path.name, version)) or _UPCASTERS.get(("*", version))
        if step is None:
            raise SchemaError(f"{path}: no upcaster for {path.name} from schema version "
                              f"{version}")
        data = step(data)
        version += 1
    return dict(data)


__all__ = ["CONTENT_SCHEMA", "content_upcaster", "read_content"]


def frozen(value: Any) -> Any:
    """``value`` (parsed content) made read-only all the way down: each mapping a
    ``MappingProxyType`` of a private copy, each list a tuple. What a cached loader returns
    is shared by every caller and every encounter: a caller that tried to change it would
    change the rules for all of them, so it cannot (tests/core/test_promises.py)."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: frozen(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(frozen(v) for v in value)
    return value


def thawed(value: Any) -> Any:
    """A plain, private copy of :func:`frozen` content (each mapping a dict, each tuple a
    list), to keep in a state that a rule changes and the log stores."""
    if isinstance(value, Mapping):
        return {k: thawed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thawed(v) for v in value]
    return value
