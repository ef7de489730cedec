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
    table = raw.get("condition")
    if not isinstance(table, dict):
        raise SchemaError(f"{path}: no [condition.NAME] tables")
    try:
        top = msgspec.convert({**raw, "condition": {}}, ConditionsFile)
    except msgspec.ValidationError as err:
        raise SchemaError(f"{path}: {err}") from None
    specs: dict[str, ConditionSpec] = {}
    for name, body in table.items():
        try:
            specs[str(name)] = msgspec.convert(body, ConditionSpec)
        except msgspec.ValidationError as err:
            raise SchemaError(f"{path}: condition {name!r}: {err}") from None
    data = msgspec.structs.replace(top, condition=specs)
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


# -- the condition matrix: one schema for every ruleset's condition_matrix.toml ------------

Verdict = Literal["changes", "unchanged", "silent", "ruling"]
"""What the seed says of a row's number: it ``changes`` it, leaves it ``unchanged``, is
``silent`` (the rules leave it alone), or a ``ruling`` of rulings.toml says what changes."""


class MatrixRow(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One row of a ``condition_matrix.toml``: what ``condition`` does to ``probe`` (a
    number or a permission the ruleset's matrix harness measures), with the seed's
    sentence and its rule ids. Exactly one of ``same`` (left alone), ``change`` (added to
    the value without the condition) or ``becomes`` (the value with it); ``without``, when
    given, is the value without the condition."""

    condition: str
    probe: str
    seed: str
    rules: tuple[str, ...]
    note: str = ""
    says: Verdict | None = None
    level: int | None = None
    holder: str | None = None
    also: tuple[str, ...] = ()
    key: str | None = None
    without: object = msgspec.UNSET
    same: bool = False
    change: int | None = None
    becomes: object = msgspec.UNSET

    @property
    def ident(self) -> str:
        """The row's name: condition, level, holder, probe and key (unique in a matrix)."""
        level = "" if self.level is None else str(self.level)
        holder = f"-{self.holder}" if self.holder else ""
        also = f"+{'+'.join(self.also)}" if self.also else ""
        key = f"[{self.key}]" if self.key else ""
        return f"{self.condition}{level}{also}{holder}-{self.probe}{key}"

    def expected(self, baseline: object) -> object:
        """What the probe gives with the condition, from its value without it."""
        if self.change is not None:
            return baseline + self.change  # type: ignore[operator]
        if self.becomes is not msgspec.UNSET:
            return self.becomes
        return baseline


class Probe(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A number or a permission the matrix measures: what it is, its kind of effect, and
    what it must be without any condition (``allowed``: an action the scene allows;
    ``number``: an integer; ``working``: neither refused, nor empty, nor 0; ``any``)."""

    text: str
    kind: str = ""
    baseline: Literal["allowed", "number", "working", "any"] = "any"


class Give(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """How the matrix gives a condition when the plain ``condition`` command does not: the
    commands to play, under these rulings."""

    steps: tuple[Mapping[str, object], ...] = ()
    rulings: Mapping[str, str] = NO_KEYS


class Matrix(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A whole ``condition_matrix.toml``. ``unnamed`` says what a (condition, probe) pair
    without a row means: ``unchanged`` (it is played, and must stay the same),
    ``forbidden`` (every pair has a row) or ``unchecked`` (rows name what the seed speaks
    of). ``kinds``: the kinds of effect its rows must cover; ``level``: the level a leveled
    condition is given at when a row names none."""

    probe: Mapping[str, Probe]
    row: tuple[MatrixRow, ...]
    unnamed: Literal["unchanged", "forbidden", "unchecked"] = "unchecked"
    kinds: tuple[str, ...] = ()
    level: int = 1
    give: Mapping[str, Give] = msgspec.field(default_factory=dict)


def matrix_problems(matrix: Matrix, catalogue: Mapping[str, ConditionSpec]) -> list[str]:
    """What a decoded matrix gets wrong against its ruleset's conditions: an unknown
    condition or probe, a row with no verdict or two, a verdict its ``says`` contradicts, a
    level on a condition without levels, two rows for one case, a condition without rows,
    a pair without a row where every pair needs one, a kind of effect no row covers."""
    out: list[str] = []
    seen: set[str] = set()
    for row in matrix.row:
        where = f"row {row.ident}"
        if row.condition not in catalogue:
            out.append(f"{where}: no condition {row.condition!r} in conditions.toml")
        if row.probe not in matrix.probe:
            out.append(f"{where}: probe {row.probe!r} is not declared in [probe]")
        verdicts = [row.same, row.change is not None, row.becomes is not msgspec.UNSET]
        if sum(verdicts) != 1:
            out.append(f"{where}: exactly one of same, change or becomes")
        if not row.seed.strip():
            out.append(f"{where}: no seed sentence")
        if row.says in ("unchanged", "silent") and not row.same:
            out.append(f"{where}: says {row.says} but expects a change")
        if row.says in ("changes", "ruling") and row.same:
            out.append(f"{where}: says {row.says} but expects no change")
        if row.level is not None and row.condition in catalogue \
                and not catalogue[row.condition].leveled:
            out.append(f"{where}: a level, but {row.condition} has no levels")
        if row.ident in seen:
            out.append(f"{where}: two rows for one case")
        seen.add(row.ident)
    named = {(row.condition, row.probe) for row in matrix.row}
    for name in sorted(set(catalogue) - {row.condition for row in matrix.row}):
        out.append(f"condition {name!r} has no row")
    if matrix.unnamed == "forbidden":
        for name in catalogue:
            for probe in matrix.probe:
                if (name, probe) not in named:
                    out.append(f"no row for {name} and {probe} (every pair needs one)")
    if matrix.unnamed != "unchanged":
        for probe in sorted(set(matrix.probe) - {row.probe for row in matrix.row}):
            out.append(f"probe {probe!r} is declared but no row measures it")
    used = {matrix.probe[row.probe].kind for row in matrix.row if row.probe in matrix.probe}
    for kind in matrix.kinds:
        if kind not in used:
            out.append(f"no row measures a probe of kind {kind!r}")
    for name in sorted(set(matrix.give) - set(catalogue)):
        out.append(f"[give.{name}]: no such condition in conditions.toml")
    return out


def decode_matrix(path: Path) -> Matrix:
    """``path`` decoded into the matrix schema's types; SchemaError naming the file and
    the row (its number, condition and probe) or the table that does not fit."""
    raw = read_content(path)
    rows = raw.get("row")
    if not isinstance(rows, list):
        raise SchemaError(f"{path}: no [[row]] tables")
    decoded: list[MatrixRow] = []
    for number, body in enumerate(rows, 1):
        try:
            decoded.append(msgspec.convert(body, MatrixRow))
        except msgspec.ValidationError as err:
            what = f"{body.get('condition')}/{body.get('probe')}" \
                if isinstance(body, dict) else "?"
            raise SchemaError(f"{path}: row {number} ({what}): {err}") from None
    try:
        top = msgspec.convert({**raw, "row": []}, Matrix)
    except msgspec.ValidationError as err:
        raise SchemaError(f"{path}: {err}") from None
    return msgspec.structs.replace(top, row=tuple(decoded))


def load_matrix(path: Path, catalogue: Mapping[str, ConditionSpec]) -> Matrix:
    """A ruleset's ``condition_matrix.toml`` checked against the one schema and its
    ``conditions.toml``; SchemaError naming the file and what is wrong."""
    matrix = decode_matrix(path)
    found = matrix_problems(matrix, catalogue)
    if found:
        raise SchemaError(f"{path}: " + "; ".join(found[:20]))
    return matrix
