"""The payload of each event the kernel declares, as a ``TypedDict`` for mypy.

Written by ``arbiter payloads --write`` from the ``@event`` declarations
(:mod:`arbiter.core.payloads`); do not edit by hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, Required, TypedDict

__all__ = [
    "CharacterAdded",
    "CharacterRemoved",
    "CharacterUpdated",
    "CombatEnded",
    "CombatStarted",
    "ConditionAdded",
    "ConditionRemoved",
    "Configured",
    "CreatureRemoved",
    "CreatureSaved",
    "DetectionSet",
    "EncounterCreated",
    "EntityAdded",
    "EntityRemoved",
    "FogSet",
    "InitiativeSet",
    "Noted",
    "Overridden",
    "PictureSet",
    "RevealOnTurnSet",
    "Revealed",
    "RulingSet",
    "SceneSaved",
    "SceneSet",
    "SideWon",
    "Staged",
    "TimeAdvanced",
    "TokenSet",
    "TurnEnded",
    "TurnStarted",
    "WrittenBack",
]

class CharacterAdded(TypedDict, total=False):
    id: Required[str]
    character: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class CharacterRemoved(TypedDict, total=False):
    id: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class CharacterUpdated(TypedDict, total=False):
    id: Required[str]
    character: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class CombatEnded(TypedDict, total=False):
    round: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class CombatStarted(TypedDict, total=False):
    initiative: Required[Mapping[str, Any]]
    order: Required[list[str]]
    rolls: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class ConditionAdded(TypedDict, total=False):
    target: Required[str]
    condition: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class ConditionRemoved(TypedDict, total=False):
    target: Required[str]
    name: Required[str]
    why: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Configured(TypedDict, total=False):
    settings: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class CreatureRemoved(TypedDict, total=False):
    id: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class CreatureSaved(TypedDict, total=False):
    id: Required[str]
    creature: Required[Mapping[str, Any]]
    new: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class DetectionSet(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    detected: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class EncounterCreated(TypedDict, total=False):
    ruleset: Required[str]
    rulings: Required[Mapping[str, Any]]
    reveal_on_turn: NotRequired[bool | None]
    economy: NotRequired[Mapping[str, Any] | None]


class EntityAdded(TypedDict, total=False):
    id: Required[str]
    spec: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class EntityRemoved(TypedDict, total=False):
    id: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class FogSet(TypedDict, total=False):
    enabled: Required[bool]
    squares: Required[list[list[int]]]
    zones: Required[Sequence[Any]]
    hide: Required[bool]
    vision: NotRequired[int | None]
    economy: NotRequired[Mapping[str, Any] | None]


class InitiativeSet(TypedDict, total=False):
    target: Required[str]
    value: Required[int]
    order: Required[list[str]]
    roll: NotRequired[Mapping[str, Any] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Noted(TypedDict, total=False):
    text: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Overridden(TypedDict, total=False):
    path: Required[str]
    value: Required[Any]
    old: NotRequired[Any]
    reason: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class PictureSet(TypedDict, total=False):
    kind: Required[str]
    id: Required[str]
    image: NotRequired[str | None]
    economy: NotRequired[Mapping[str, Any] | None]


class RevealOnTurnSet(TypedDict, total=False):
    enabled: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class Revealed(TypedDict, total=False):
    target: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class RulingSet(TypedDict, total=False):
    id: Required[str]
    value: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class SceneSaved(TypedDict, total=False):
    name: Required[str]
    commands: Required[Sequence[Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class SceneSet(TypedDict, total=False):
    image: Required[str]
    width: Required[int]
    height: Required[int]
    square: Required[int]
    offset_x: Required[int]
    offset_y: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class SideWon(TypedDict, total=False):
    winner: NotRequired[str | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Staged(TypedDict, total=False):
    target: Required[str]
    ready: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class TimeAdvanced(TypedDict, total=False):
    amount: Required[int]
    unit: Required[str]
    seconds: Required[int]
    activity: Required[str]
    clock: Required[int]
    who: Required[list[str]]
    characters: Required[Mapping[str, Any]]
    happened: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class TokenSet(TypedDict, total=False):
    target: Required[str]
    image: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class TurnEnded(TypedDict, total=False):
    actor: Required[str]
    round: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class TurnStarted(TypedDict, total=False):
    actor: Required[str]
    round: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class WrittenBack(TypedDict, total=False):
    encounter: Required[str]
    name: NotRequired[str | None]
    version: NotRequired[int | None]
    who: Required[list[str]]
    characters: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]
