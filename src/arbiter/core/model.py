"""Entities, conditions with durations, and the encounter state every ruleset shares.

Base values are stored; effective values are derived by folding active effects, never
written back. Durations are absolute end points (a round and whose turn, at its start or
end), so stepping back and forward never ticks an effect twice; "remaining" is derived.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from mypy_extensions import mypyc_attr

from .copying import COPIED, SHARED, CowEntities, clone, reduce_fields
from .errors import IllegalCommand, UnknownEntity
from .memo import kept

E = TypeVar("E", bound="Entity")
MAX_NAME = 100
"""The longest name (a creature's, a character's, a bestiary entry's, a campaign's...)."""
NAME_PATTERN = r"^[^\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]*$"
"""What a JSON Schema can say of a name (:func:`name_problem` says it exactly): no control,
line-break, zero-width or direction-changing character."""


def name_problem(value: object) -> str | None:
    """Why ``value`` is not a name, or None when it is one: a name is 1 to
    :data:`MAX_NAME` printable characters (letters, marks, digits, punctuation, symbols
    and spaces: no control character, line break, tab, escape code or invisible format
    character), so that a sentence naming it stays one line that it cannot fake.

    >>> name_problem("Nia (knight)") is None
    True
    >>> name_problem("Nia\\nThe ogre dies.")
    'a name is printable characters only (no line break, tab, escape or control character)'
    """
    if not isinstance(value, str):
        return "a name is text"
    if not value.strip():
        return "a name is not empty"
    if len(value) > MAX_NAME:
        return f"a name is at most {MAX_NAME} characters (this one has {len(value)})"
    if not value.isprintable():
        return ("a name is printable characters only (no line break, tab, escape or control "
                "character)")
    return None


DurationKind = Literal["until_removed", "timed", "sustained", "caused", "field"]
TurnPoint = Literal["start", "end"]


@dataclass(frozen=True, slots=True)
class Duration:
    """How long a condition lasts.

    - ``until_removed``: until something removes it.
    - ``timed``: until the ``at`` (start or end) of ``turn_of``'s turn in round ``round``.
    - ``sustained``: while creature ``by`` keeps sustaining it.
    - ``caused``: while ``cause`` persists; re-added while it remains.
    - ``field``: a condition of a location, applying to whoever is in it.
    """

    kind: DurationKind = "until_removed"
    round: int | None = None
    turn_of: str | None = None
    at: TurnPoint = "end"
    by: str | None = None
    cause: str | None = None

    @classmethod
    def for_rounds(cls, state: EncounterState, rounds: int, who: str | None = None) -> Duration:
        """Lasting ``rounds`` rounds: until the start of ``who``'s turn (default: whoever is
        acting) that many rounds later."""
        return cls("timed", round=state.round + rounds, turn_of=who or state.current, at="start")

    def remaining_rounds(self, state: EncounterState) -> int | None:
        """Rounds left, derived from the absolute end point."""
        if self.kind != "timed" or self.round is None:
            return None
        return max(self.round - state.round + (1 if self.at == "end" else 0), 0)

    def expires_at(self, round_: int, who: str, point: TurnPoint) -> bool:
        return (
            self.kind == "timed"
            and self.at == point
            and self.turn_of == who
            and self.round is not None
            and self.round <= round_
        )

    def to_json(self) -> dict[str, Any]:
        """Its fields that are not None, in their order (``kind`` and ``at`` never are)."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.round is not None:
            out["round"] = self.round
        if self.turn_of is not None:
            out["turn_of"] = self.turn_of
        out["at"] = self.at
        if self.by is not None:
            out["by"] = self.by
        if self.cause is not None:
            out["cause"] = self.cause
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        """Rebuilt by its constructor from its fields: a native class of the compiled build
        (every rule reads a condition's duration), whose own pickling would set its frozen
        fields one by one, which a frozen class refuses."""
        return (Duration, (self.kind, self.round, self.turn_of, self.at, self.by, self.cause))


UNTIL_REMOVED = Duration()
"""The default duration, shared: a Duration never changes."""

_DURATIONS: dict[tuple[Any, ...], Duration] = {}


def duration_of(data: Mapping[str, Any]) -> Duration:
    """``Duration(**data)``, one shared object for each value seen (a Duration never
    changes; bounded): its ``dataclasses`` constructor is interpreted code, in the compiled
    build too, and every condition an event adds is read back from its JSON."""
    key = tuple((name, type(value), value) for name, value in data.items())  # 1 is not True
    try:
        found = _DURATIONS.get(key)
    except TypeError:  # a value that cannot be a key: made, not kept
        return Duration(**data)
    if found is None:
        found = Duration(**data)  # TypeError: a key no field has, as the call refuses it
        if len(_DURATIONS) >= 1024:
            _DURATIONS.clear()
        _DURATIONS[key] = found
    return found


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(slots=True)
class Condition:
    """A named condition on an entity: a level, tags, a source and a duration."""

    name: str
    level: int = 1
    tags: tuple[str, ...] = ()
    source: str | None = None
    duration: Duration = UNTIL_REMOVED
    data: dict[str, Any] = field(default_factory=dict)

    def __init__(self, name: str, level: int = 1, tags: tuple[str, ...] = (),
                 source: str | None = None, duration: Duration = UNTIL_REMOVED,
                 data: dict[str, Any] | None = None) -> None:  # performance.md, 34
        self.name = name
        self.level = level
        self.tags = tags
        self.source = source
        self.duration = duration
        self.data = {} if data is None else data

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "level": self.level}
        if self.tags:
            out["tags"] = list(self.tags)
        if self.source:
            out["source"] = self.source
        if self.duration.kind != "until_removed":
            out["duration"] = self.duration.to_json()
        if self.data:
            out["data"] = self.data
        return out

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle every field (reduce_fields)
        return reduce_fields(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Condition:
        duration = data.get("duration")
        extra = data.get("data")
        return cls(data["name"], int(data.get("level", 1)), tuple(data.get("tags", ())),
                   data.get("source"), duration_of(duration) if duration else UNTIL_REMOVED,
                   dict(extra) if extra else {})


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass
class Entity:
    """A creature or object in an encounter. Rulesets subclass it with their own stats."""

    id: str
    name: str = ""
    kind: str = "creature"
    side: str | None = None
    owner: str | None = None
    tags: set[str] = field(default_factory=set)
    stats: dict[str, int] = field(default_factory=dict)
    conditions: list[Condition] = field(default_factory=list)
    hidden: bool = False

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle every field (reduce_fields)
        return reduce_fields(self)

    def condition(self, name: str) -> Condition | None:
        for cond in self.conditions:
            if cond.name == name:
                return cond
        return None

    def has(self, name: str) -> bool:
        return self.condition(name) is not None

    def level(self, name: str) -> int:
        cond = self.condition(name)
        return cond.level if cond else 0

    def stat(self, name: str, default: int = 0) -> int:
        return self.stats.get(name, default)


_CAUSED: dict[str, Duration] = {}


def caused(cause: str) -> Duration:
    """``Duration("caused", cause=cause)``, one shared object for each cause (a Duration
    never changes; bounded): its ``dataclasses`` constructor is interpreted code with
    keywords, and a Polemos fight makes one for every status condition and caused
    condition it gives."""
    found = _CAUSED.get(cause)
    if found is None:
        found = kept(_CAUSED, cause, Duration("caused", cause=cause), 1024)
    return found


def entity_at(entities: dict[str, Entity], key: str) -> Entity | None:
    """The entity ``key`` of an encounter's entities, or None: ``entities.get(key)`` as the
    map's own class reads it. Compiled, ``get`` on a dict reads the table itself, past a
    subclass's own ``get`` (mypyc's ``CPyDict_Get``), and a lookahead's scratch state
    copies an entity when its map hands it out (``copying.WritingEntities``); ``[]`` is
    read by the subclass's own. A scratch state's map between events (``CowEntities``)
    reads as a dict. (``copying.peek`` reads one without taking a copy, on purpose.)"""
    kind = type(entities)
    if kind is dict or kind is CowEntities:
        return entities.get(key)
    return entities[key] if key in entities else None  # noqa: SIM401 - [] is the subclass's


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass
class EncounterState:
    """Everything the rules know about one encounter. Only ``evolve`` changes it."""

    ruleset: str
    rulings: dict[str, str] = field(default_factory=dict, metadata=SHARED)
    """Shared by a lookahead's scratch state: ``apply_ruling_set`` replaces the dict, never
    changes it."""
    entities: dict[str, Entity] = field(default_factory=dict)
    """A dict, so that compiled code reads it directly (a ``MutableMapping`` is read by a
    call by name for each ``get``, ``items``, ``values``); a lookahead's scratch state holds
    a subclass that copies each entity it hands out (``copying.CowEntities``): read one by
    :func:`entity_at`, never ``get``, which compiled code reads past a subclass's own."""
    order: list[str] = field(default_factory=list)
    initiative: dict[str, int] = field(default_factory=dict)
    round: int = 0
    turn_index: int = -1
    in_combat: bool = False
    economy: dict[str, Any] = field(default_factory=dict, metadata=COPIED)
    """Copied one level by a lookahead's scratch state: every ``apply_*`` stores a new dict
    for a creature, never changes one in place."""
    version: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    reveal_on_turn: bool = False
    """Whether a creature the GM marked ``hidden`` is revealed (a ``revealed`` event) when
    its turn starts: off unless the encounter's ``create`` or a ``reveal_on_turn`` command
    turns it on (the server does for the encounters it creates)."""

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle every field (reduce_fields)
        return reduce_fields(self)

    @property
    def current(self) -> str | None:
        """Whose turn it is, or None outside turn-by-turn play."""
        if self.in_combat and 0 <= self.turn_index < len(self.order):
            return self.order[self.turn_index]
        return None

    def entity(self, name: str) -> Entity:
        try:
            return self.entities[name]
        except KeyError:
            raise UnknownEntity(name, list(self.entities)) from None

    def entity_of(self, name: str, kind: type[E]) -> E:
        """The entity ``name``, which must be a ``kind`` (a ruleset's creature class)."""
        entity = self.entity(name)
        if not isinstance(entity, kind):
            raise IllegalCommand(f"{name} is not a creature")
        return entity

    def copy(self) -> EncounterState:
        """An independent copy (structural, see :mod:`arbiter.core.copying`)."""
        out: EncounterState = clone(self)
        return out
