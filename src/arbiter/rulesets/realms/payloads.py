"""The payload of each event ``arbiter.rulesets.realms`` declares, as a ``TypedDict`` for mypy.

Written by ``arbiter payloads --write`` from the ``@event`` declarations
(:mod:`arbiter.core.payloads`); do not edit by hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, Required, TypedDict

__all__ = [
    "ApGained",
    "ApLost",
    "Attacked",
    "BeganFalling",
    "Bled",
    "Checked",
    "Climbed",
    "Commanded",
    "ConditionAdded",
    "ConditionKept",
    "ControlRolled",
    "Damaged",
    "Defended",
    "Died",
    "Dismounted",
    "Dodged",
    "DyingDamage",
    "EnergyChanged",
    "Fell",
    "FellDying",
    "Healed",
    "Jumped",
    "Mounted",
    "Moved",
    "OvercomeRolled",
    "Placed",
    "Recovered",
    "ReductionsReset",
    "Searched",
    "SkillRolled",
    "Stabilized",
    "StayRolled",
    "Stood",
    "Swam",
    "Tended",
    "TerrainSet",
    "TimePassed",
    "UnseatRoll",
]

class ApGained(TypedDict, total=False):
    target: Required[str]
    gained: Required[int]
    ap: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class ApLost(TypedDict, total=False):
    target: Required[str]
    lost: Required[int]
    ap: Required[int]
    stun_taken: NotRequired[int | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Attacked(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    d20: Required[int]
    total: Required[int]
    against: Required[str]
    score: Required[int]
    modifiers: Required[Sequence[Any]]
    hit: Required[bool]
    critical_level: Required[int]
    crit_range: Required[int]
    reaction: NotRequired[str | None]
    dodge_left: NotRequired[int | None]
    damage: NotRequired[Sequence[Any] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class BeganFalling(TypedDict, total=False):
    target: Required[str]
    altitude: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Bled(TypedDict, total=False):
    target: Required[str]
    lost: Required[int]
    health: Required[int]
    destabilize: NotRequired[bool | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Checked(TypedDict, total=False):
    target: Required[str]
    speed: Required[int]
    evasion: Required[int]
    attack: Required[int]
    capacity: Required[int]
    climb_speed: Required[int]
    swim_speed: Required[int]
    fly_speed: Required[int]
    jump: Required[int]
    jump_vertical: Required[int]
    ap: Required[int]
    dr: Required[int]
    terminal: Required[bool]
    overheal: Required[int]
    size: Required[str]
    spaces: Required[int]
    flanked_by: Required[list[str]]
    economy: NotRequired[Mapping[str, Any] | None]


class Climbed(TypedDict, total=False):
    skill: NotRequired[str | None]
    roller: NotRequired[str | None]
    d20: NotRequired[int | None]
    bonus: NotRequired[int | None]
    total: NotRequired[int | None]
    ds: NotRequired[int | None]
    success: Required[bool]
    actor: Required[str]
    spaces: Required[int]
    climb_speed: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Commanded(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class ConditionAdded(TypedDict, total=False):
    target: Required[str]
    condition: Required[Mapping[str, Any]]
    replaced: NotRequired[Mapping[str, Any] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class ConditionKept(TypedDict, total=False):
    target: Required[str]
    name: Required[str]
    kept: Required[Mapping[str, Any]]
    refused: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class ControlRolled(TypedDict, total=False):
    skill: Required[str]
    roller: Required[str]
    d20: Required[int]
    bonus: Required[int]
    total: Required[int]
    ds: Required[int]
    success: Required[bool]
    actor: Required[str]
    mount: Required[str]
    thrown: NotRequired[bool | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Damaged(TypedDict, total=False):
    target: Required[str]
    cause: Required[str]
    taken: Required[int]
    health: Required[int]
    pipeline: Required[Mapping[str, Any]]
    armor_uses: Required[int]
    dr_uses: Required[Mapping[str, Any]]
    over_time: NotRequired[str | None]
    destabilize: NotRequired[bool | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Defended(TypedDict, total=False):
    actor: Required[str]
    shield_roll: Required[int]
    shield: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class Died(TypedDict, total=False):
    target: Required[str]
    unsummoned: Required[bool]
    why: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Dismounted(TypedDict, total=False):
    actor: Required[str]
    move_actions: Required[int]
    at: NotRequired[list[int] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Dodged(TypedDict, total=False):
    actor: NotRequired[str | None]
    target: Required[str]
    ap: Required[int]
    automatic: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class DyingDamage(TypedDict, total=False):
    target: Required[str]
    turn: Required[int]
    roll: Required[Mapping[str, Any]]
    pipeline: Required[Mapping[str, Any]]
    taken: Required[int]
    health: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class EnergyChanged(TypedDict, total=False):
    target: Required[str]
    energy: Required[int]
    deficit: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Fell(TypedDict, total=False):
    target: Required[str]
    spaces: Required[int]
    increments: Required[int]
    dice_per_increment: Required[int]
    ds: Required[int]
    rounds: Required[int]
    damage: Required[int]
    roll: NotRequired[Mapping[str, Any] | None]
    reflex: NotRequired[Mapping[str, Any] | None]
    success: Required[bool]
    amount: NotRequired[int | None]
    below_reflex: NotRequired[Mapping[str, Any] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class FellDying(TypedDict, total=False):
    target: Required[str]
    ap: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Healed(TypedDict, total=False):
    target: Required[str]
    amount: Required[int]
    healed: Required[int]
    health: Required[int]
    bleed: Required[int]
    stabilized: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class Jumped(TypedDict, total=False):
    skill: NotRequired[str | None]
    roller: NotRequired[str | None]
    d20: NotRequired[int | None]
    bonus: NotRequired[int | None]
    total: NotRequired[int | None]
    ds: NotRequired[int | None]
    success: Required[bool]
    actor: Required[str]
    spaces: Required[int]
    limit: Required[int]
    vertical: Required[bool]
    move_actions: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Mounted(TypedDict, total=False):
    actor: Required[str]
    mount: Required[str]
    move_actions: Required[int]
    mounted: Required[bool]
    d20: NotRequired[int | None]
    total: NotRequired[int | None]
    ds: NotRequired[int | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Moved(TypedDict, total=False):
    actor: Required[str]
    to: NotRequired[list[int] | None]
    cost_halves: Required[int]
    cost: Required[str]
    difficult_steps: Required[int]
    move_actions: Required[int]
    provoked: Required[list[str]]
    economy: NotRequired[Mapping[str, Any] | None]


class OvercomeRolled(TypedDict, total=False):
    skill: Required[str]
    roller: Required[str]
    d20: Required[int]
    bonus: Required[int]
    total: Required[int]
    ds: Required[int]
    success: Required[bool]
    actor: Required[str]
    condition: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Placed(TypedDict, total=False):
    target: Required[str]
    at: NotRequired[list[int] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Recovered(TypedDict, total=False):
    target: Required[str]
    health: Required[int]
    exhausted: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class ReductionsReset(TypedDict, total=False):
    targets: Required[list[str]]
    economy: NotRequired[Mapping[str, Any] | None]


class Searched(TypedDict, total=False):
    skill: Required[str]
    roller: Required[str]
    d20: Required[int]
    bonus: Required[int]
    total: Required[int]
    ds: NotRequired[int | None]
    success: NotRequired[bool | None]
    actor: Required[str]
    target: NotRequired[str | None]
    found: Required[Any]
    why: NotRequired[str | None]
    modifiers: Required[Sequence[Any]]
    notes: Required[Sequence[Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class SkillRolled(TypedDict, total=False):
    skill: Required[str]
    roller: NotRequired[str | None]
    d20: NotRequired[int | None]
    bonus: NotRequired[int | None]
    total: NotRequired[int | None]
    ds: NotRequired[int | None]
    success: Required[bool]
    actor: Required[str]
    why: NotRequired[str | None]
    modifiers: NotRequired[Sequence[Any] | None]
    notes: NotRequired[Sequence[Any] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Stabilized(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    method: Required[str]
    d20: NotRequired[int | None]
    total: NotRequired[int | None]
    ds: NotRequired[int | None]
    stabilized: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class StayRolled(TypedDict, total=False):
    skill: Required[str]
    roller: Required[str]
    d20: Required[int]
    bonus: Required[int]
    total: Required[int]
    ds: Required[int]
    success: Required[bool]
    actor: Required[str]
    mount: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Stood(TypedDict, total=False):
    actor: Required[str]
    move_actions: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Swam(TypedDict, total=False):
    skill: NotRequired[str | None]
    roller: NotRequired[str | None]
    d20: NotRequired[int | None]
    bonus: NotRequired[int | None]
    total: NotRequired[int | None]
    ds: NotRequired[int | None]
    success: Required[bool]
    actor: Required[str]
    spaces: Required[int]
    swim_speed: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Tended(TypedDict, total=False):
    target: Required[str]
    health: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class TerrainSet(TypedDict, total=False):
    squares: Required[list[list[int]]]
    clear: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class TimePassed(TypedDict, total=False):
    rounds: Required[int]
    seconds: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class UnseatRoll(TypedDict, total=False):
    target: Required[str]
    d20: Required[int]
    total: Required[int]
    ds: Required[int]
    stays_mounted: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]
