"""The payload of each event ``arbiter.rulesets.zones`` declares, as a ``TypedDict`` for mypy.

Written by ``arbiter payloads --write`` from the ``@event`` declarations
(:mod:`arbiter.core.payloads`); do not edit by hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, Required, TypedDict

__all__ = [
    "Attacked",
    "CoverLeft",
    "CoverTaken",
    "Damaged",
    "Displaced",
    "Engaged",
    "FlankPrioritized",
    "FlankingSet",
    "Healed",
    "Interfered",
    "InterferenceCleared",
    "LightFaded",
    "MeleeAttacked",
    "Moved",
    "OddsComputed",
    "Placed",
    "RegionSet",
    "Rested",
    "Rolled",
    "TouchEnded",
    "Touched",
    "ZaoeResolved",
    "ZoneSet",
]

class Attacked(TypedDict, total=False):
    actor: Required[str]
    weapon: Required[str]
    range: Required[str]
    competent: Required[bool]
    action: Required[str]
    full_auto: Required[bool]
    order: Required[Sequence[Any]]
    ammo: NotRequired[Mapping[str, Any] | None]
    offense: NotRequired[Mapping[str, Any] | None]
    offense_note: NotRequired[str | None]
    offense_success: NotRequired[bool | None]
    critical: NotRequired[bool | None]
    critical_denied: NotRequired[str | None]
    engagement: NotRequired[str | None]
    target: NotRequired[str | None]
    random_target: NotRequired[Mapping[str, Any] | None]
    outcome: NotRequired[str | None]
    attacker_learns: NotRequired[str | None]
    defense: NotRequired[Mapping[str, Any] | None]
    hit: Required[bool]
    cover_ignored: NotRequired[str | None]
    stopped_by_cover: NotRequired[bool | None]
    taken: NotRequired[int | None]
    pipeline: NotRequired[Mapping[str, Any] | None]
    injury: NotRequired[Mapping[str, Any] | None]
    results: NotRequired[Mapping[str, Any] | None]
    aoe: NotRequired[str | None]
    aoe_source: NotRequired[str | None]
    impact: NotRequired[Mapping[str, Any] | None]
    area: NotRequired[Mapping[str, Any] | None]
    impact_hit: NotRequired[bool | None]
    inclusion: NotRequired[Mapping[str, Any] | None]
    effects: NotRequired[Mapping[str, Any] | None]
    damage_taken: NotRequired[Mapping[str, Any] | None]
    collapse_check: NotRequired[str | None]
    economy: NotRequired[Mapping[str, Any] | None]


class CoverLeft(TypedDict, total=False):
    target: Required[str]
    why: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class CoverTaken(TypedDict, total=False):
    actor: Required[str]
    cover: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class Damaged(TypedDict, total=False):
    target: Required[str]
    source: Required[str]
    taken: Required[int]
    health: Required[int]
    pipeline: Required[Mapping[str, Any]]
    kinetic_shielding: Required[int]
    injury: NotRequired[Mapping[str, Any] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Displaced(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    zone: Required[str]
    group: Required[str]
    engagement: Required[str]
    altitude: Required[int]
    distance: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Engaged(TypedDict, total=False):
    ids: Required[list[str]]
    engagement: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class FlankPrioritized(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    groups: Required[Sequence[Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class FlankingSet(TypedDict, total=False):
    target: Required[str]
    flanking: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class Healed(TypedDict, total=False):
    target: Required[str]
    health: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Interfered(TypedDict, total=False):
    target: Required[str]
    by: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class InterferenceCleared(TypedDict, total=False):
    target: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class LightFaded(TypedDict, total=False):
    zone: Required[str]
    by: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class MeleeAttacked(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    weapon: Required[str]
    melee: Required[bool]
    offense: NotRequired[Mapping[str, Any] | None]
    interferes: NotRequired[bool | None]
    defense: NotRequired[Mapping[str, Any] | None]
    hit: Required[bool]
    taken: NotRequired[int | None]
    pipeline: NotRequired[Mapping[str, Any] | None]
    outnumbering: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class Moved(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    zone: Required[str]
    group: Required[str]
    engagement: Required[str]
    altitude: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class OddsComputed(TypedDict, total=False):
    of: Required[Mapping[str, Any]]
    odds: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class Placed(TypedDict, total=False):
    target: Required[str]
    zone: Required[str]
    engagement: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class RegionSet(TypedDict, total=False):
    zone: Required[str]
    rect: Required[Sequence[Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class Rested(TypedDict, total=False):
    target: Required[str]
    seconds: Required[int]
    health: Required[int]
    regained: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Rolled(TypedDict, total=False):
    actor: Required[str]
    roll: Required[Mapping[str, Any]]
    success: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class TouchEnded(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    why: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Touched(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class ZaoeResolved(TypedDict, total=False):
    actor: Required[str]
    weapon: Required[str]
    zone: Required[str]
    shape: Required[str]
    size: Required[str]
    zones: Required[Sequence[Any]]
    high: Required[Mapping[str, Any]]
    low: Required[Mapping[str, Any]]
    offense: NotRequired[Mapping[str, Any] | None]
    random: NotRequired[Mapping[str, Any] | None]
    high_engagement: NotRequired[str | None]
    rolls: NotRequired[Mapping[str, Any] | None]
    values: Required[Mapping[str, Any]]
    why: Required[Mapping[str, Any]]
    damage_taken: Required[Mapping[str, Any]]
    bright_light: NotRequired[Sequence[Any] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class ZoneSet(TypedDict, total=False):
    id: Required[str]
    adjacent: Required[Sequence[Any]]
    indoor: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]
