"""Who an area of effect reaches: AoE hit chances (Z-AOE-*) and ZAoE damage values (Z-ZAO-*).

Pure functions over the state; every die comes from the ``dice`` argument and every roll is
returned so the event can carry it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...core import EncounterState
from ...dice import DiceSource, roll
from .model import RULINGS, Creature, adjacent, allies, creatures

DEFAULT_CHANCE = 80
"""Chance to include a character in the target group (Z-AOE-6)."""
FAILED_CHANCE = 30
CAUTION_ENEMY, CAUTION_ALLY = 60, 30
SPREAD_CHANCE, SPREAD_FAILED = 50, 20
"""Several engagements within short range, or unseen groups (Z-AOE-11)."""


def included(d100: int, chance: int) -> bool:
    """AoE inclusion: a d100 at or under the chance (the inventory's reading)."""
    return d100 <= chance


def inclusion_odds(chance: int) -> Fraction:
    return Fraction(max(min(chance, 100), 0), 100)


@dataclass(frozen=True, slots=True)
class AoePlan:
    """Everything that decides who an AoE reaches."""

    attacker: Creature
    kind: str
    direct: Creature | None
    engagements: tuple[str, ...]
    zone: str
    offense_success: bool
    caution: bool
    beneficial: bool
    spread: bool
    altitude: int


def candidates(state: EncounterState, plan: AoePlan) -> list[Creature]:
    """Everyone the AoE might reach, in the order they were added.

    The whole engagement of the target group (Z-AOE-7), or every engagement the GM lets
    the AoE spread over (Z-AOE-11, possibly in several zones within short range); the user
    of a burst on its own engagement, never of a spray (Z-AOE-9); flyers above engagement
    range escape a burst unless it goes off within engagement range of them (Z-AOE-15).
    """
    out = []
    for c in creatures(state):
        if c.down or c.engagement not in plan.engagements or (
                c.zone != plan.zone and not plan.spread):
            continue
        if c.id == plan.attacker.id and plan.kind == "spray":
            continue
        if plan.kind == "burst" and abs(c.altitude - plan.altitude) > 1:
            continue
        out.append(c)
    return out


def touching(state: EncounterState, target: Creature) -> set[str]:
    """Creatures grappling, touching or touched by the burst's direct target (Z-AOE-3)."""
    out = set(target.touching)
    partner = target.grappling()
    if partner:
        out.add(partner)
    for c in creatures(state):
        if target.id in c.touching or c.grappling() == target.id:
            out.add(c.id)
    out.discard(target.id)
    return out


def chance_for(state: EncounterState, plan: AoePlan, who: Creature,
               rulings: Mapping[str, str]) -> tuple[int | None, str]:
    """The d100 chance to include ``who`` (None: always included) and the reason."""
    if who.vehicle and (not plan.spread or RULINGS.chosen(rulings, "AZ-24", "always-hit")):
        return None, "vehicles are always struck (Z-AOE-10)"
    if plan.spread:
        return ((SPREAD_CHANCE, "several engagements: 50% (Z-AOE-11)") if plan.offense_success
                else (SPREAD_FAILED, "several engagements, failed offense: 20% (Z-AOE-11)"))
    if plan.direct is not None and who.id in touching(state, plan.direct) and (
            plan.offense_success or RULINGS.chosen(rulings, "AZ-16", "guaranteed")):
        return None, "touching the direct target: guaranteed area (Z-AOE-3)"
    if plan.direct is not None and who.id == plan.direct.id and \
            RULINGS.chosen(rulings, "AZ-16", "guaranteed"):
        return None, "the direct target: guaranteed area after a failed offense roll (AZ-16)"
    if not plan.offense_success:
        return FAILED_CHANCE, "failed offense roll: 30% (Z-AOE-6)"
    if plan.caution:
        ally = allies(plan.attacker, who) and not who.has("unseen")
        enemy_chance, ally_chance = CAUTION_ENEMY, CAUTION_ALLY
        if plan.beneficial:
            enemy_chance, ally_chance = ally_chance, enemy_chance
        if ally:
            return ally_chance, f"caution, ally: {ally_chance}% (Z-AOE-8)"
        return enemy_chance, f"caution, enemy: {enemy_chance}% (Z-AOE-8)"
    return DEFAULT_CHANCE, "80% (Z-AOE-6)"


def pairs(group: list[Creature], rulings: Mapping[str, str]) -> list[list[Creature]]:
    """Candidates grouped so that a mount and its rider share one roll (Z-AOE-12, AZ-20)."""
    ids = {c.id for c in group}
    out: list[list[Creature]] = []
    placed: set[str] = set()
    share = RULINGS.chosen(rulings, "AZ-20", "one-roll")
    for c in group:
        if c.id in placed:
            continue
        unit = [c]
        if share:
            for other in group:
                if other.id != c.id and other.id not in placed and (
                    other.mount == c.id or c.mount == other.id
                ) and other.id in ids:
                    unit.append(other)
        placed.update(u.id for u in unit)
        out.append(unit)
    return out


def roll_inclusion(state: EncounterState, plan: AoePlan, group: list[Creature],
                   dice: DiceSource, rulings: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Roll d100 for each candidate (one roll per mount and rider) and say who is included."""
    out: dict[str, dict[str, Any]] = {}
    for unit in pairs(group, rulings):
        chances = [chance_for(state, plan, c, rulings) for c in unit]
        always = next((why for chance, why in chances if chance is None), None)
        if always is not None:
            for c in unit:
                out[c.id] = {"chance": 100, "roll": None, "included": True, "why": always}
            continue
        chance, why = chances[0]
        assert chance is not None
        d100 = roll("1d100", dice).total
        hit = included(d100, chance)
        for c in unit:
            out[c.id] = {"chance": chance, "roll": d100, "included": hit, "why": why}
            if len(unit) > 1:
                out[c.id]["shared_with"] = [u.id for u in unit if u.id != c.id]
    return out


# -- ZAoE --------------------------------------------------------------------------------


def zaoe_zones(state: EncounterState, zone: str, size: str) -> list[str]:
    """The centre zone, and every adjacent zone for a greater ZAoE (Z-ZAO-7, Z-ZAO-9)."""
    return [zone, *adjacent(state, zone)] if size == "greater" else [zone]


def pick_group(count: int, dice: DiceSource, rulings: Mapping[str, str]) -> tuple[int, list[int]]:
    """A random group among ``count`` (AZ-19): a die with that many faces, or d6 re-rolled."""
    if RULINGS.chosen(rulings, "AZ-19", "reroll-d6") and count <= 6:
        rolls = []
        while True:
            value = roll("1d6", dice).total
            rolls.append(value)
            if value <= count:
                return value, rolls
    value = roll(f"1d{count}", dice).total
    return value, [value]
