"""Request bodies: one msgspec Struct each, used to validate requests and, through msgspec's
own JSON Schema, to describe them in ``/openapi.json`` and drive the fuzz tests.

A command inside a body is checked by the command catalogue (``core/catalogue.py``), which
uses msgspec the same way. :func:`check` reports the first problem with the field it is in:
``ValidationError("must be a whole number", "expected_version")``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from ..core.catalogue import TEXT_PATTERN
from ..core.model import MAX_NAME, NAME_PATTERN

Schema = dict[str, Any]

ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
Id = Annotated[str, Meta(pattern=ID_PATTERN, description="letters, digits, '-' and '_'")]
Name = Annotated[str, Meta(min_length=1, max_length=MAX_NAME, pattern=NAME_PATTERN,
                           description=f"a name: 1 to {MAX_NAME} printable characters (no "
                                       "line break, tab or control character)")]
Version = Annotated[int, Meta(ge=0, le=2**53)]
Rulings = Annotated[dict[str, Annotated[str, Meta(max_length=200)]], Meta(max_length=200)]
Command = Annotated[dict[str, Any], Meta(
    max_length=64, description="A command: 'do' names it, 'actor' is who acts, other keys "
                               "are its arguments (see the ruleset's commands).")]
Dice = Annotated[list[Annotated[int, Meta(ge=1, le=1_000_000)]], Meta(
    max_length=500,
    description="Force the command's dice, in the order they are rolled (GM only).")]


class CreateCampaign(Struct, forbid_unknown_fields=True):
    name: Name
    ruleset: Annotated[str, Meta(pattern=r"^[a-z0-9_]{1,40}$")]
    rulings: Rulings = {}


class SetRulings(Struct, forbid_unknown_fields=True):
    rulings: Rulings


class SetRuling(Struct, forbid_unknown_fields=True):
    value: Annotated[str, Meta(min_length=1, max_length=200)]
    expected_version: Version | None = None


class CreatePlayer(Struct, forbid_unknown_fields=True):
    name: Name
    characters: Annotated[list[Id], Meta(max_length=50)]


Side = Annotated[str, Meta(min_length=1, max_length=64, pattern=TEXT_PATTERN,
                           description="a side: creatures of one side are allies")]
Template = Annotated[str, Meta(min_length=1, max_length=64,
                               description="a template the ruleset ships, or of the "
                                           "campaign's bestiary")]
Notes = Annotated[str, Meta(max_length=4000, pattern=TEXT_PATTERN,
                            description="the game master's notes (never shown to players)")]
Lasting = Annotated[dict[str, Any], Meta(
    max_length=64, description="the lasting state: stat-block keys laid over the stat block "
                               "when the character joins an encounter (written back by "
                               "POST /api/encounters/{encounter_id}/write-back)")]


class NewCreature(Struct, forbid_unknown_fields=True):
    """A creature joining a new encounter: from a template (the ruleset's or the
    bestiary's); its id is the template's (numbered when taken) unless given."""

    template: Template
    id: Id | msgspec.UnsetType = msgspec.UNSET
    side: Side | msgspec.UnsetType = msgspec.UNSET


class CreateEncounter(Struct, forbid_unknown_fields=True):
    name: Name
    rulings: Rulings = {}
    characters: Annotated[list[Id], Meta(
        max_length=100, description="roster characters who join it, with their lasting "
                                    "state")] = []
    creatures: Annotated[list[NewCreature], Meta(max_length=100)] = []


Runs = Annotated[int, Meta(ge=1, le=10_000, description="how many fights to play "
                                                       "(1 to 10,000)")]
Seed = Annotated[int, Meta(ge=0, le=2**53, description="the dice seed: the same seed, the "
                                                       "same answer (default 0)")]


class Simulate(Struct, forbid_unknown_fields=True):
    """Play the encounter from its current state to the end, ``runs`` times."""

    runs: Runs = 1000
    seed: Seed = 0


class SimulateNew(Struct, forbid_unknown_fields=True):
    """Play a new encounter (the body that would create it, without its name) ``runs``
    times, without storing anything."""

    runs: Runs = 1000
    seed: Seed = 0
    name: Name | msgspec.UnsetType = msgspec.UNSET
    rulings: Rulings = {}
    characters: Annotated[list[Id], Meta(max_length=100)] = []
    creatures: Annotated[list[NewCreature], Meta(max_length=100)] = []


class Character(Struct):
    """A roster character: 'id', its stat block ('name', 'side', 'owner': the player's name,
    'template': the ruleset's or the bestiary's, and the ruleset's keys; 64 keys at most),
    'notes' (game master only) and 'lasting' (its lasting state)."""

    id: Id
    name: Name | msgspec.UnsetType = msgspec.UNSET
    template: Template | msgspec.UnsetType = msgspec.UNSET
    side: Side | msgspec.UnsetType = msgspec.UNSET
    owner: Name | msgspec.UnsetType = msgspec.UNSET
    notes: Notes | msgspec.UnsetType = msgspec.UNSET
    lasting: Lasting | msgspec.UnsetType = msgspec.UNSET
    expected_version: Version | None = None


class CharacterSheet(Struct):
    """A roster character's new sheet (it replaces the old one; the lasting state stays
    unless given): as a new character, the id in the path."""

    id: Id | msgspec.UnsetType = msgspec.UNSET
    name: Name | msgspec.UnsetType = msgspec.UNSET
    template: Template | msgspec.UnsetType = msgspec.UNSET
    side: Side | msgspec.UnsetType = msgspec.UNSET
    owner: Name | msgspec.UnsetType = msgspec.UNSET
    notes: Notes | msgspec.UnsetType = msgspec.UNSET
    lasting: Lasting | msgspec.UnsetType = msgspec.UNSET
    expected_version: Version | None = None


class BestiaryEntry(Struct):
    """A creature of the game master's bestiary: 'id' (its template name, never one the
    ruleset ships), 'template' (one the ruleset ships, to build on) and the ruleset's
    stat-block keys (64 keys at most); 'notes'."""

    id: Id
    name: Name | msgspec.UnsetType = msgspec.UNSET
    template: Template | msgspec.UnsetType = msgspec.UNSET
    notes: Notes | msgspec.UnsetType = msgspec.UNSET
    expected_version: Version | None = None


class BestiarySheet(Struct):
    """A bestiary entry's new stat block, the id in the path."""

    id: Id | msgspec.UnsetType = msgspec.UNSET
    name: Name | msgspec.UnsetType = msgspec.UNSET
    template: Template | msgspec.UnsetType = msgspec.UNSET
    notes: Notes | msgspec.UnsetType = msgspec.UNSET
    expected_version: Version | None = None


class AddActor(Struct):
    """A stat block: 'id', optionally 'template', and the ruleset's keys (64 at most); or
    'character': a roster character, who joins with its lasting state (its id is the
    character's; 'initiative' may be given beside it)."""

    id: Id | msgspec.UnsetType = msgspec.UNSET
    template: Annotated[str, Meta(max_length=64)] | msgspec.UnsetType = msgspec.UNSET
    character: Id | msgspec.UnsetType = msgspec.UNSET
    expected_version: Version | None = None


class AdvanceTime(Struct, forbid_unknown_fields=True):
    """Campaign time passing between encounters: each roster character's lasting state
    changes as the ruleset says."""

    amount: Annotated[int, Meta(ge=1, le=9999)]
    unit: Literal["minutes", "hours", "days"] = "hours"
    activity: Annotated[str, Meta(min_length=1, max_length=32, pattern=TEXT_PATTERN,
                                  description="what the characters do meanwhile: one of "
                                              "the ruleset's activities")] | None = None
    characters: Annotated[list[Id], Meta(max_length=100, description="the characters it "
                                         "passes for (default: all)")] | None = None
    dice: Dice | None = None
    expected_version: Version | None = None


class CampaignSettings(Struct, forbid_unknown_fields=True):
    """The campaign's settings (game master only)."""

    dice_dialect: Annotated[Literal["arbiter", "roll20", "foundry", "d20"], Meta(
        description="how the dice box reads notation (docs/dice.md)")] | None = None
    players_roll: Annotated[bool, Meta(
        description="players may type the dice they threw (off: the server rolls)")] | None = None
    expected_version: Version | None = None


class SceneName(Struct, forbid_unknown_fields=True):
    """A saved scene's name (scene/save, scene/load)."""

    name: Annotated[str, Meta(min_length=1, max_length=100)]


class Submit(Struct, forbid_unknown_fields=True):
    command: Command
    expected_version: Version | None = None
    dice: Dice | None = None
    dice_rest: Annotated[Literal["server"], Meta(
        description="'server': 'dice' are the first dice, typed at the table; the server "
                    "rolls the rest")] | None = None


class Odds(Struct, forbid_unknown_fields=True):
    command: Command
    version: Version | None = None
    """The state version the game master's question is about: when the encounter has moved
    on since, the answer is ``"stale": true`` (200, nothing worked out) rather than a
    refusal by rules that no longer hold. A player's version is not compared: the versions
    a player sees lag on purpose while hidden creatures act."""


class Step(Struct, forbid_unknown_fields=True):
    expected_version: Version | None = None


class CampaignFile(Struct, forbid_unknown_fields=True):
    """A campaign exported by GET /api/campaigns/{campaign_id}/export."""

    format: Literal["arbiter-campaign"]
    v: Annotated[int, Meta(ge=1)]
    campaign: dict[str, Any]
    tokens: list[Any]
    encounters: list[Any]
    log: list[Any] = []
    images: list[Any] = []
    """The campaign's scene images (base64), checked as uploads are."""


class DiceRequest(Struct, forbid_unknown_fields=True):
    """Dice notation (docs/dice.md) to work out exactly, and roll when ``roll``."""

    expression: Annotated[str, Meta(min_length=1, max_length=200, pattern=r"^[\x20-\x7e]+$",
                                    description="dice notation in ASCII, e.g. 4d6kh3")]
    roll: bool = False
    dialect: Annotated[Literal["arbiter", "roll20", "foundry", "d20"], Meta(
        description="whose notation the expression is written in (docs/dice.md); the answer's "
                    "expression is always Arbiter's spelling of what was read")] = "arbiter"


BODIES: dict[str, type[Struct]] = {kind.__name__: kind for kind in (
    CreateCampaign, SetRulings, SetRuling, CreatePlayer, CreateEncounter, AddActor, Submit,
    Odds, Step, CampaignFile, DiceRequest, Character, CharacterSheet, BestiaryEntry,
    BestiarySheet, AdvanceTime, CampaignSettings, SceneName, Simulate, SimulateNew)}
MAX_KEYS = {"AddActor": 64, "Character": 64, "CharacterSheet": 64, "BestiaryEntry": 64,
            "BestiarySheet": 64}
"""Bodies that also take keys of their own (a stat block): how many at most."""


def _schemas() -> dict[str, Schema]:
    (_, components) = msgspec.json.schema_components(
        list(BODIES.values()), ref_template="#/components/schemas/{name}")
    out: dict[str, Schema] = dict(components)
    for name, limit in MAX_KEYS.items():
        out[name] = {**out[name], "maxProperties": limit}
    return out


SCHEMAS: dict[str, Schema] = _schemas()
"""The JSON Schema of every body, by name (msgspec's, for ``/openapi.json``)."""


class ValidationError(Exception):
    def __init__(self, message: str, field: str | None) -> None:
        self.message = message
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


_AT = re.compile(r" - at `\$\.?([^`]*)`")
_WORDS = {"int": "a whole number", "str": "text", "bool": "true or false",
          "object": "an object", "array": "a list", "float": "a number", "null": "null"}
_PATTERNS = {ID_PATTERN: "letters, digits, '-' and '_' (at most 64)",
             r"^[\x20-\x7e]+$": "ASCII text (dice notation: digits 0-9, d, +, ...)",
             TEXT_PATTERN: "text without control characters",
             r"^[a-z0-9_]{1,40}$": "a ruleset name (lower-case letters, digits, '_')"}


def explain(message: str) -> tuple[str, str | None]:
    """msgspec's message as a sentence, and the field it is about (``a.0.b``)."""
    where = _AT.search(message)
    path = re.sub(r"\[(\d+)\]", r".\1", where[1]) if where else ""
    head = _AT.sub("", message)

    def at(key: str) -> str:
        return f"{path}.{key}" if path else key

    if m := re.match(r"Object missing required field `([^`]*)`", head):
        return "is required", at(m[1])
    if m := re.match(r"Object contains unknown field `([^`]*)`", head):
        return "unknown field", at(m[1])
    field = path or None
    if m := re.match(r"Expected `(\w+)`, got `(\w+)`", head):
        return f"must be {_WORDS.get(m[1], m[1])}", field
    if m := re.match(r"Expected `str` matching regex '(.*)'$", head):
        pattern = m[1].replace("\\\\", "\\")  # msgspec doubles the backslashes
        return f"must be {_PATTERNS.get(pattern, 'in the expected form')}", field
    if m := re.match(r"Expected `str` of length >= 1", head):
        return "must not be empty", field
    if m := re.match(r"Expected `str` of length <= (\d+)", head):
        return f"must be at most {m[1]} characters", field
    if m := re.match(r"Expected `(?:array|object)` of length <= (\d+)", head):
        return f"has more than {m[1]} items", field
    if m := re.match(r"Expected `(?:int|float)` >= (-?\d+)", head):
        return f"must be at least {m[1]}", field
    if m := re.match(r"Expected `(?:int|float)` <= (-?\d+)", head):
        return f"must be at most {m[1]}", field
    if m := re.match(r"Invalid enum value (.*)", head):
        return f"is not one of the allowed values ({m[1]} is not)", field
    return head.replace("`", "'"), field


def check(value: Any, body: str) -> None:
    """Raise :class:`ValidationError` naming the first field where ``value`` breaks the
    body ``body``."""
    kind = BODIES[body]
    try:
        msgspec.convert(value, kind, strict=True)
    except msgspec.ValidationError as err:
        message, field = explain(str(err))
        if message == "unknown field" and field is not None and "." not in field:
            message += f" (known: {', '.join(kind.__struct_fields__)})"
        raise ValidationError(message, field) from None
    limit = MAX_KEYS.get(body)
    if limit is not None and isinstance(value, dict) and len(value) > limit:
        raise ValidationError(f"has more than {limit} keys", None)


def depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (without recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
        else:
            deepest = max(deepest, level)
            continue
        deepest = max(deepest, level + 1)
    return deepest
