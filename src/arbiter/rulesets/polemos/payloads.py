"""The payload of each event ``arbiter.rulesets.polemos`` declares, as a ``TypedDict`` for mypy.

Written by ``arbiter payloads --write`` from the ``@event`` declarations
(:mod:`arbiter.core.payloads`); do not edit by hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, Required, TypedDict

__all__ = [
    "Acted",
    "AfflictionAdded",
    "AfflictionRemoved",
    "Appeared",
    "ArmorWorn",
    "Attacked",
    "AttitudeComputed",
    "BleedingReset",
    "BleedingStarted",
    "BleedingTicked",
    "ConditionAdded",
    "ConditionRetimed",
    "CriticalSpent",
    "Damaged",
    "Declared",
    "Deployed",
    "DeviceOperated",
    "DevicePaired",
    "Downed",
    "EffectsListed",
    "EnduranceRolled",
    "Entered",
    "FieldSet",
    "FullActionCancelled",
    "FullActionCompleted",
    "FullActionProgressed",
    "Hid",
    "Mended",
    "Moved",
    "NetworkAuthorized",
    "NetworkConnected",
    "NetworkCreated",
    "NetworkDestroyed",
    "NetworkDisconnected",
    "NetworkLearned",
    "NetworkMapped",
    "Packed",
    "PerRoundPassed",
    "Placed",
    "ProcessStarted",
    "ProcessStopped",
    "ProcessesListed",
    "ReaddScheduled",
    "Readded",
    "Resolved",
    "Resolving",
    "Rested",
    "RestrictionSet",
    "RestrictionsKnown",
    "Searched",
    "SimultaneousOrdered",
    "SkillRolled",
    "SphereMoved",
    "SpheresSet",
    "StressChanged",
    "TargetChecked",
    "TerrainSet",
    "TimePassed",
    "VehicleAssembled",
    "Withdrawn",
    "WoundAdded",
    "WoundRemoved",
    "WoundRevealed",
]

class Acted(TypedDict, total=False):
    actor: Required[str]
    ability: Required[str]
    kind: Required[str]
    round: NotRequired[int | None]
    counts: NotRequired[bool | None]
    targets: NotRequired[Mapping[str, Any] | None]
    affected: NotRequired[list[str] | None]
    attacked: NotRequired[list[str] | None]
    target: NotRequired[str | None]
    attack: NotRequired[bool | None]
    effects: NotRequired[int | None]
    cost: NotRequired[Mapping[str, Any] | None]
    channel: NotRequired[Mapping[str, Any] | None]
    sp: NotRequired[int | None]
    fp: NotRequired[int | None]
    economy: NotRequired[Mapping[str, Any] | None]


class AfflictionAdded(TypedDict, total=False):
    target: Required[str]
    affliction: Required[Mapping[str, Any]]
    count: Required[int]
    why: NotRequired[str | None]
    economy: NotRequired[Mapping[str, Any] | None]


class AfflictionRemoved(TypedDict, total=False):
    target: Required[str]
    affliction: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Appeared(TypedDict, total=False):
    target: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class ArmorWorn(TypedDict, total=False):
    target: Required[str]
    index: Required[int]
    worn: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class Attacked(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    ability: Required[str]
    kind: Required[str]
    round: NotRequired[int | None]
    counts: NotRequired[bool | None]
    weapon: Required[str]
    type: Required[str]
    attack: NotRequired[bool | None]
    attack_roll: Required[Mapping[str, Any]]
    attack_total: Required[int]
    concealment: Required[str]
    defense_roll: Required[Mapping[str, Any]]
    defense_total: Required[int]
    defense_penalty: NotRequired[int | None]
    hit: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class AttitudeComputed(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    total: Required[int]
    breakdown: Required[Sequence[Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class BleedingReset(TypedDict, total=False):
    target: Required[str]
    origin: NotRequired[str | None]
    economy: NotRequired[Mapping[str, Any] | None]


class BleedingStarted(TypedDict, total=False):
    target: Required[str]
    id: Required[str]
    origin: Required[str]
    count: Required[int]
    damage: Required[int]
    source: NotRequired[str | None]
    economy: NotRequired[Mapping[str, Any] | None]


class BleedingTicked(TypedDict, total=False):
    target: Required[str]
    id: Required[str]
    areas: Required[Sequence[Any]]
    pending: Required[Sequence[Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class ConditionAdded(TypedDict, total=False):
    target: Required[str]
    condition: Required[Mapping[str, Any]]
    why: NotRequired[str | None]
    economy: NotRequired[Mapping[str, Any] | None]


class ConditionRetimed(TypedDict, total=False):
    target: Required[str]
    name: Required[str]
    duration: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class CriticalSpent(TypedDict, total=False):
    actor: NotRequired[str | None]
    effect: Required[str]
    cost: Required[int]
    left: Required[int]
    target: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Damaged(TypedDict, total=False):
    target: Required[str]
    source: NotRequired[str | None]
    actor: NotRequired[str | None]
    amount: Required[int]
    taken: Required[int]
    targeted: NotRequired[bool | None]
    result: Required[Mapping[str, Any]]
    critical_points: Required[int]
    text: Required[str]
    covered: NotRequired[bool | None]
    damage_roll: NotRequired[Mapping[str, Any] | None]
    per_round: NotRequired[str | None]
    bleeding: NotRequired[str | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Declared(TypedDict, total=False):
    actor: Required[str]
    command: Required[Mapping[str, Any]]
    kind: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Deployed(TypedDict, total=False):
    target: Required[str]
    sphere: Required[str]
    quadrant: NotRequired[str | None]
    square: NotRequired[Sequence[Any] | None]
    visiting: NotRequired[bool | None]
    economy: NotRequired[Mapping[str, Any] | None]


class DeviceOperated(TypedDict, total=False):
    device: Required[str]
    action: Required[str]
    by: Required[str]
    remote: Required[bool]
    network: Required[str]
    active: NotRequired[bool | None]
    economy: NotRequired[Mapping[str, Any] | None]


class DevicePaired(TypedDict, total=False):
    device: Required[str]
    owner: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Downed(TypedDict, total=False):
    target: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class EffectsListed(TypedDict, total=False):
    target: Required[str]
    processes: Required[Sequence[Any]]
    conditions: Required[Sequence[Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class EnduranceRolled(TypedDict, total=False):
    target: Required[str]
    wound: Required[str]
    at: Required[int]
    total: Required[int]
    roll: Required[Mapping[str, Any]]
    outcome: Required[str]
    level: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Entered(TypedDict, total=False):
    actor: Required[str]
    location: NotRequired[str | None]
    economy: NotRequired[Mapping[str, Any] | None]


class FieldSet(TypedDict, total=False):
    location: Required[str]
    conditions: Required[Sequence[Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class FullActionCancelled(TypedDict, total=False):
    actor: Required[str]
    ability: Required[str]
    cost: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class FullActionCompleted(TypedDict, total=False):
    actor: Required[str]
    ability: Required[str]
    cost: Required[Mapping[str, Any]]
    sp: Required[int]
    fp: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class FullActionProgressed(TypedDict, total=False):
    actor: Required[str]
    done: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Hid(TypedDict, total=False):
    target: Required[str]
    method: Required[str]
    defense: Required[int]
    roll: NotRequired[Mapping[str, Any] | None]
    actor: NotRequired[str | None]
    ability: NotRequired[str | None]
    kind: NotRequired[str | None]
    round: NotRequired[int | None]
    counts: NotRequired[bool | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Mended(TypedDict, total=False):
    target: Required[str]
    days: Required[int]
    vitality: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


Moved = TypedDict("Moved", {
    "economy": NotRequired[Mapping[str, Any] | None],
    "actor": Required[str],
    "from": Required[Sequence[Any]],
    "to": Required[Sequence[Any]],
    "squares": Required[int],
}, total=False)


class NetworkAuthorized(TypedDict, total=False):
    network: Required[str]
    system: Required[str]
    by: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


NetworkConnected = TypedDict("NetworkConnected", {
    "economy": NotRequired[Mapping[str, Any] | None],
    "system": Required[str],
    "network": Required[str],
    "as": Required[str],
    "why": NotRequired[str | None],
}, total=False)


class NetworkCreated(TypedDict, total=False):
    actor: Required[str]
    name: Required[str]
    kind: Required[str]
    public: Required[bool]
    range: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class NetworkDestroyed(TypedDict, total=False):
    network: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class NetworkDisconnected(TypedDict, total=False):
    system: Required[str]
    network: Required[str]
    why: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class NetworkLearned(TypedDict, total=False):
    system: Required[str]
    network: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class NetworkMapped(TypedDict, total=False):
    system: Required[str]
    network: Required[str]
    found: Required[list[str]]
    economy: NotRequired[Mapping[str, Any] | None]


class Packed(TypedDict, total=False):
    item: Required[str]
    packed: Required[bool]
    economy: NotRequired[Mapping[str, Any] | None]


class PerRoundPassed(TypedDict, total=False):
    target: Required[str]
    round: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Placed(TypedDict, total=False):
    target: Required[str]
    at: NotRequired[list[int] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class ProcessStarted(TypedDict, total=False):
    pid: Required[str]
    count: Required[int]
    name: Required[str]
    network: Required[str]
    host: Required[str]
    condition: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class ProcessStopped(TypedDict, total=False):
    pid: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class ProcessesListed(TypedDict, total=False):
    actor: Required[str]
    network: Required[str]
    processes: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class ReaddScheduled(TypedDict, total=False):
    due: Required[int]
    target: Required[str]
    kind: Required[str]
    payload: Required[Mapping[str, Any]]
    cause: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class Readded(TypedDict, total=False):
    index: Required[int]
    target: Required[str]
    kind: Required[str]
    payload: Required[Mapping[str, Any]]
    present: Required[bool]
    reapplied: NotRequired[bool | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Resolved(TypedDict, total=False):
    economy: NotRequired[Mapping[str, Any] | None]


class Resolving(TypedDict, total=False):
    order: Required[list[str]]
    economy: NotRequired[Mapping[str, Any] | None]


class Rested(TypedDict, total=False):
    target: Required[str]
    activity: Required[str]
    rounds: Required[int]
    hours: Required[int]
    time: Required[str]
    sp: Required[int]
    fp: Required[int]
    removed: Required[Sequence[Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class RestrictionSet(TypedDict, total=False):
    location: Required[str]
    tags: Required[Sequence[Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class RestrictionsKnown(TypedDict, total=False):
    actor: Required[str]
    location: Required[str]
    known: Required[bool]
    roll: NotRequired[Mapping[str, Any] | None]
    total: NotRequired[int | None]
    tags: NotRequired[Sequence[Any] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Searched(TypedDict, total=False):
    actor: Required[str]
    total: Required[int]
    roll: Required[Mapping[str, Any]]
    found: Required[list[str]]
    economy: NotRequired[Mapping[str, Any] | None]


class SimultaneousOrdered(TypedDict, total=False):
    order: Required[list[str]]
    initiative: Required[Mapping[str, Any]]
    rolls: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class SkillRolled(TypedDict, total=False):
    actor: Required[str]
    skill: Required[str]
    value: Required[int]
    bonus: Required[int]
    penalty: Required[int]
    total: Required[int]
    roll: Required[Mapping[str, Any]]
    target: NotRequired[int | None]
    against: NotRequired[str | None]
    opposed: NotRequired[int | None]
    opposed_roll: NotRequired[Mapping[str, Any] | None]
    success: NotRequired[bool | None]
    concealment: NotRequired[str | None]
    against_concealment: NotRequired[str | None]
    economy: NotRequired[Mapping[str, Any] | None]


class SphereMoved(TypedDict, total=False):
    actor: Required[str]
    transit: Required[Mapping[str, Any]]
    arrived: NotRequired[Mapping[str, Any] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class SpheresSet(TypedDict, total=False):
    contact_size: Required[int]
    battle_size: Required[int]
    support_size: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class StressChanged(TypedDict, total=False):
    target: Required[str]
    amount: Required[int]
    discipline: NotRequired[Mapping[str, Any] | None]
    avoided: NotRequired[bool | None]
    stress: Required[int]
    breakdown: NotRequired[bool | None]
    economy: NotRequired[Mapping[str, Any] | None]


class TargetChecked(TypedDict, total=False):
    actor: Required[str]
    target_kind: Required[str]
    range: Required[int]
    target: NotRequired[str | None]
    affected: Required[list[str]]
    squares: NotRequired[Sequence[Any] | None]
    selected: NotRequired[list[str] | None]
    unmeasured: NotRequired[list[str] | None]
    distance: NotRequired[int | None]
    judged: NotRequired[str | None]
    fluency: NotRequired[int | None]
    area: NotRequired[str | None]
    design: NotRequired[str | None]
    wound: NotRequired[str | None]
    square: NotRequired[str | None]
    installed_in: NotRequired[str | None]
    network: NotRequired[str | None]
    process: NotRequired[str | None]
    ability: NotRequired[str | None]
    parts: NotRequired[Sequence[Any] | None]
    economy: NotRequired[Mapping[str, Any] | None]


class TerrainSet(TypedDict, total=False):
    squares: Required[Sequence[Any]]
    what: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


TimePassed = TypedDict("TimePassed", {
    "economy": NotRequired[Mapping[str, Any] | None],
    "from": Required[int],
    "to": Required[int],
}, total=False)


class VehicleAssembled(TypedDict, total=False):
    id: Required[str]
    characteristics: Required[Mapping[str, Any]]
    economy: NotRequired[Mapping[str, Any] | None]


class Withdrawn(TypedDict, total=False):
    actor: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class WoundAdded(TypedDict, total=False):
    target: Required[str]
    wound: Required[Mapping[str, Any]]
    why: NotRequired[str | None]
    count: Required[int]
    bleeding: NotRequired[int | None]
    source: NotRequired[str | None]
    economy: NotRequired[Mapping[str, Any] | None]


class WoundRemoved(TypedDict, total=False):
    target: Required[str]
    wound: Required[str]
    why: Required[str]
    economy: NotRequired[Mapping[str, Any] | None]


class WoundRevealed(TypedDict, total=False):
    target: Required[str]
    wound: Required[str]
    roll: NotRequired[Mapping[str, Any] | None]
    result: Required[str]
    area: Required[str]
    revealed: Required[Mapping[str, Any]]
    bleeding: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]
