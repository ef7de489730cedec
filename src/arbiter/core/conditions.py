"""Conditions as data: the one schema of every ruleset's ``conditions.toml``.

A ruleset's conditions file declares, once, what its conditions are and what each changes::

    schema = 1

    [modifier]                  # the numbers a condition may change: key = what it changes
    evasion = "the creature's Evasion"

    [flag]                      # the permissions or facts a condition may set: key = meaning
    no_reactions = "it cannot take Reactions"

    [condition.staggered]
    rules = ["R-C-STA"]         # the rule ids it comes from (the inventory's)
    text = "-level Evasion."    # one line: the console's picker and the docs
    leveled = true              # it has levels (a level other than 1 is refused otherwise)
    stack = "max"               # a second giving: "max" keeps the higher level, "add" adds
    most = 10                   # the highest level it keeps (what lies beyond: its text)
    duration = "until_removed"  # how the rules make it last (core.model.Duration's kinds)
    tags = ["mental"]           # tags it is given (removal by tag, exclusivity)
    excludes = ["stance"]       # names or tags of conditions it removes when added
    modifiers = { evasion = "-level" }   # per level: an integer, or a form of the level
    flags = ["no_reactions"]
    resist = ["sonic"]          # damage types it gives Resistance to
    damage_type = "heat"        # the type of the damage it deals each round (a modifier)

A modifier's value is an integer or one of :data:`LEVEL_FORMS`; its key and every flag must
be declared in the file's ``[modifier]`` and ``[flag]`` tables (a typo is refused when the
file is read, not silently ignored by the rules). :func:`load_conditions` validates a file
against this schema (msgspec: unknown keys, wrong types, a missing ``text`` or ``rules``
are refused with a :class:`SchemaError` naming the file and the condition) and returns a
read-only value: the rules read a condition's numbers from it, never from its name.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Literal

import msgspec

from .content import read_content
from .errors import SchemaError

LEVEL_FORMS = ("level", "+level", "-level", "-half-level")
"""The forms of a modifier that follow the condition's level: ``level`` and ``+level`` add
the level, ``-level`` takes it away, ``-half-level`` takes half of it, rounded down."""

Modifier = int | str
"""A modifier's value: an integer, or one of :data:`LEVEL_FORMS`."""

EMPTY: Mapping[str, Modifier] = MappingProxyType({})
NO_KEYS: Mapping[str, str] = MappingProxyType({})


class ConditionSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One condition of a ``conditions.toml`` (see the module's text for each field)."""

    text: str
    rules: tuple[str, ...]
    leveled: bool = False
    stack: Literal["max", "add"] = "max"
    most: int | None = None
    duration: Literal["until_removed", "timed", "sustained", "caused", "field"] = \
        "until_removed"
    tags: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    modifiers: Mapping[str, Modifier] = EMPTY
    flags: frozenset[str] = frozenset()
    resist: tuple[str, ...] = ()
    damage_type: str | None = None

    def modifier(self, key: str, level: int) -> int:
        """What the condition at ``level`` adds to ``key`` (0 when it names no such
        modifier); ``-half-level`` rounds down."""
        spec = self.modifiers.get(key)
        if spec is None:
            return 0
        return amount(spec, level)


UNLISTED = ConditionSpec(text="", rules=())
"""What a condition the file does not list (one the GM gives with ``custom``) changes:
nothing."""


class ConditionsFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A whole ``conditions.toml``: the vocabulary of its modifiers and flags, and its
    conditions by name."""

    condition: Mapping[str, ConditionSpec]
    modifier: Mapping[str, str] = NO_KEYS
    flag: Mapping[str, str] = NO_KEYS


def amount(spec: Modifier, level: int) -> int:
    """A modifier's number at ``level``.

    >>> amount(-2, 3), amount("-level", 3), amount("-half-level", 3), amount("level", 3)
    (-2, -3, -1, 3)
    """
    if isinstance(spec, int):
        return spec
    if spec in ("level", "+level"):
        return level
    if spec == "-level":
        return -level
    if spec == "-half-level":
        return -(level // 2)
    raise ValueError(f"not a modifier: {spec!r} (an integer or one of {', '.join(LEVEL_FORMS)})")


def problems(data: ConditionsFile) -> list[str]:
    """What a decoded file gets wrong beyond its types: an undeclared modifier or flag, a
    modifier that is neither an integer nor a form of the level, a level-dependent one on a
    condition without levels, an empty text."""
    out: list[str] = []
    for name, spec in data.condition.items():
        where = f"condition {name!r}"
        if not spec.text.strip() or "\n" in spec.text:
            out.append(f"{where}: text must be one non-empty line")
        for key, value in spec.modifiers.items():
            if key not in data.modifier:
                out.append(f"{where}: modifier {key!r} is not declared in [modifier] "
                           f"(declared: {', '.join(sorted(data.modifier)) or 'none'})")
            if isinstance(value, bool) or (isinstance(value, str)
                                           and value not in LEVEL_FORMS):
                out.append(f"{where}: modifier {key!r} = {value!r} is neither an integer "
                           f"nor one of {', '.join(LEVEL_FORMS)}")
            elif isinstance(value, str) and not spec.leveled:
                out.append(f"{where}: modifier {key!r} follows the level, but the "
                           "condition has no levels (leveled = true)")
        for key in sorted(spec.flags - set(data.flag)):
            out.append(f"{where}: flag {key!r} is not declared in [flag] "
                       f"(declared: {', '.join(sorted(data.flag)) or 'none'})")
        if spec.most is not None and (not spec.leveled or spec.most < 1):
            out.append(f"{where}: most = {spec.most} needs levels and a level of at least 1")
    return out


def decode(path: Path) -> ConditionsFile:
    """``path`` read (through :func:`~arbiter.core.content.read_content`) and checked
    against the schema; SchemaError naming the file and what is wrong."""
    raw = read_content(path)
    try:
        data = msgspec.convert(raw, ConditionsFile)
    except msgspec.ValidationError as err:
        raise SchemaError(f"{path}: {err}") from None
    found = problems(data)
    if found:
        raise SchemaError(f"{path}: " + "; ".join(found))
    return data


@cache
def load_conditions(path: Path) -> ConditionsFile:
    """A ruleset's ``conditions.toml``, validated and read once; read-only all the way
    down (each mapping a ``MappingProxyType``, each list a tuple or a frozenset), since
    every caller and every encounter shares it."""
    data = decode(path)
    catalogue = {name: msgspec.structs.replace(spec, modifiers=MappingProxyType(
        dict(spec.modifiers))) for name, spec in data.condition.items()}
    return ConditionsFile(MappingProxyType(catalogue), MappingProxyType(dict(data.modifier)),
                          MappingProxyType(dict(data.flag)))
