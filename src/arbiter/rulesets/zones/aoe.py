"""Who an area of effect reaches: AoE hit chances (Z-AOE-*) and ZAoE damage values (Z-ZAO-*).

Pure functions over the state; every die comes from the ``dice`` argument and every roll is
returned so the event can carry it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    Deferred,
    EncounterState,
    Event,
    IllegalCommand,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource, roll
from . import payloads
from .base import ZonesBase
from .cover import cover_bonus
from .damage import (
    Damage,  # the topic below (a chain)
    damage_events,
    hit_for,
    injury_of,
)
from .damage import run as run_damage
from .model import (
    ALTITUDE,
    RULINGS,
    Creature,
    Shot,
    adjacent,
    allies,
    creatures,
    engagements_in,
    zones,
)
from .rolls import roll_check
from .shots import critical_hit, defense_roll
from .turns import aftermath

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
               rulings: dict[str, str]) -> tuple[int | None, str]:
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


def pairs(group: list[Creature], rulings: dict[str, str]) -> list[list[Creature]]:
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
                   dice: DiceSource, rulings: dict[str, str]) -> dict[str, dict[str, Any]]:
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


def pick_group(count: int, dice: DiceSource, rulings: dict[str, str]) -> tuple[int, list[int]]:
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


@mypyc_attr(allow_interpreted_subclasses=True)
class Aoe(Damage):
    """The zonewide AoE (Z-ZAO-*)."""

    @command("A zonewide AoE (a slowing major action) at a zone: high and low damage, no "
             "defense roll, no caution.", who="player", actor="required",
             cost="major/slowing",
             rules=("Z-ZAO-1", "Z-ZAO-2", "Z-ZAO-3", "Z-ZAO-4", "Z-ZAO-5", "Z-ZAO-6",
                    "Z-ZAO-7", "Z-ZAO-8", "Z-ZAO-9", "Z-ZAO-10", "Z-ZAO-11", "Z-ZAO-12",
                    "Z-INJ-2", "Z-MI-1", "AZ-19", "AZ-20"),
             weapon=args.text("the weapon or Ability that says ZAoE", required=True,
                              max_len=64),
             zone=args.text("the centre zone", required=True, max_len=64),
             group=args.text("a lesser point ZAoE's aim: a group or engagement",
                             max_len=64),
             caution=args.flag("refused: a ZAoE allows no caution (Z-ZAO-3)"),
             role="area")
    def do_zaoe(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A zonewide AoE (a slowing major action) at a zone, by a weapon that says it uses
        ZAoE rules: high and low damage by shape and size; no defense rolls, no percentages,
        no caution (Z-ZAO-2, Z-ZAO-3)."""
        rulings = state.rulings
        a = command.a
        actor = self.acting(state, command)
        weapon = actor.weapon(a.weapon)
        if weapon.zaoe is None or weapon.high is None or weapon.low is None:
            raise IllegalCommand(f"{weapon.name} does not say it uses ZAoE rules, so it never "
                                 "does", rule="Z-ZAO-1")
        if a.caution:
            raise IllegalCommand("a ZAoE allows no caution", rule="Z-ZAO-3")
        zone: str = a.zone
        shape, size = weapon.zaoe.get("shape", "point"), weapon.zaoe.get("size", "lesser")
        affected = zaoe_zones(state, zone, size)
        data: dict[str, Any] = {"actor": actor.id, "weapon": weapon.name, "zone": zone,
                                "shape": shape, "size": size, "zones": affected,
                                "high": weapon.high.to_json(), "low": weapon.low.to_json()}
        data.update(self.use(state, actor.id, "major/slowing"))
        people = [c for c in creatures(state) if c.zone in affected and not c.down]
        value: dict[str, str] = {}
        why: dict[str, str] = {}
        if shape == "point":
            high_engagement = None
            if size == "lesser":
                aim = a.group
                offense_dice = weapon.zaoe.get("offense")
                success = False
                if aim is not None and offense_dice:
                    members = [c for c in creatures(state) if c.group == aim or
                               c.engagement == aim]
                    if not members:
                        raise InvalidCommand(f"zaoe: no creature is in group {aim!r}")
                    check = roll_check(offense_dice, "DEX", actor.stat("DEX"),
                                       self.interference(state, actor), dice, rulings)
                    data["offense"] = check
                    success = check["success"]
                    if success:
                        high_engagement = members[0].engagement
                if not success:
                    groups = engagements_in(state, zone)
                    d6 = roll("1d6", dice).total
                    data["random"] = {"d6": d6, "groups": len(groups)}
                    if groups and d6 <= len(groups):
                        pick, picks = pick_group(len(groups), dice, rulings)
                        data["random"]["pick"] = picks
                        high_engagement = groups[pick - 1]
                data["high_engagement"] = high_engagement
            for c in people:
                if c.altitude > ALTITUDE["medium"]:
                    why[c.id] = "flying above medium range: unaffected (Z-ZAO-12)"
                    continue
                if c.flying and c.altitude > ALTITUDE["engagement"]:
                    centre = size == "greater" and c.zone == zone
                    value[c.id] = "high" if centre else "low"
                    why[c.id] = "flyer over the centre zone (Z-ZAO-12)" if centre else \
                        "flyer: low damage (Z-ZAO-12)"
                    continue
                if size == "greater":
                    value[c.id] = "high" if c.zone == zone else "low"
                else:
                    value[c.id] = "high" if c.engagement == high_engagement else "low"
        else:
            d6s: dict[str, int] = {}
            units = pairs([c for c in people if not (
                c.flying and c.altitude > ALTITUDE["engagement"])], rulings)
            for c in people:
                if c.flying and c.altitude > ALTITUDE["engagement"]:
                    why[c.id] = "flying above engagement range: unaffected (Z-ZAO-11)"
            for unit in units:
                if any(u.vehicle or u.heavy for u in unit):
                    for u in unit:
                        value[u.id] = "high"
                        why[u.id] = "vehicle or 25+ WGT: always high (Z-ZAO-8)"
                    continue
                d6 = roll("1d6", dice).total
                for u in unit:
                    d6s[u.id] = d6
                    value[u.id] = "high" if d6 >= 5 else "low"
            data["rolls"] = d6s
        data["values"] = value
        data["why"] = why
        events: list[Event] = []
        taken: dict[str, int] = {}
        for c in people:
            if c.id not in value:
                continue
            effect = weapon.high if value[c.id] == "high" else weapon.low
            cover = c.cover()
            bonus, label = (int(cover["bonus"]), "cover") if cover else (0, "")
            drive_only = self.ruling_is(state, "AZ-11", "drive-only")
            hit = hit_for(state, c, effect, weapon, False, bonus, label, drive_only)
            calc = run_damage(effect.damage, weapon.type, hit)
            taken[c.id] = calc.amount
            events += damage_events(c, Deferred(calc.to_json), calc.amount,
                                    calc.notes.get("shielding_used", 0),
                                    injury_of(self, command, calc.amount, dice, True),
                                    actor.id)
        data["damage_taken"] = taken
        if weapon.energy:
            data["bright_light"] = affected  # until the end of the attacker's next turn
        return [Event("zaoe_resolved", data), *events, *aftermath(self, state, events)]

    @event("{actor} fires {weapon}, a {size} {shape} ZAoE, at zone {zone} (affecting {zones})"
           "[; offense {offense.text}][; high damage on engagement {high_engagement}]"
           "; damage taken: {damage_taken}[; bright light in {bright_light}].",
           actor=args.creature("the attacker"), weapon=args.text("the weapon"),
           zone=args.text("the centre zone"), shape=args.text("point or cluster"),
           size=args.text("lesser or greater"), zones=args.items("the zones affected"),
           high=args.mapping("high damage and drive"), low=args.mapping("low damage and drive"),
           offense=args.mapping("a lesser point's offense roll"),
           random=args.mapping("the d6 and the die picking a group (Z-ZAO-6)"),
           high_engagement=args.text("the engagement taking high damage"),
           rolls=args.mapping("a cluster's d6 for each creature"),
           values=args.mapping("high or low for each creature affected"),
           why=args.mapping("why a creature takes what it takes, or nothing"),
           damage_taken=args.mapping("damage taken by each creature"),
           bright_light=args.items("the zones lit until the end of the attacker's next turn "
                                   "(Z-ZAO-10)"),
           optional=("bright_light", "high_engagement", "offense", "random", "rolls"))
    def apply_zaoe_resolved(self, state: EncounterState, data: payloads.ZaoeResolved) -> None:
        bright = data.get("bright_light")
        if bright:  # a new map of lights, not changed in place
            lights = dict(state.extra.get("lights", {}))
            for zone in bright:
                lights[zone] = {"by": data["actor"], "round": state.round}
            state.extra["lights"] = lights


def attack_aoe(rules: ZonesBase, state: EncounterState, command: Command, shot: Shot,
               data: dict[str, Any], dice: DiceSource) -> list[Event]:
    rulings = state.rulings
    actor, weapon = shot.actor, shot.weapon
    direct = shot.targets[0] if shot.targets and shot.aoe == "burst" and not shot.spread \
        else None
    data.update(aoe=shot.aoe, aoe_source=shot.aoe_source)
    if shot.impact:
        data["impact"] = shot.impact.to_json()
    if shot.area:
        data["area"] = shot.area.to_json()
    non_damaging = shot.aoe_source == "effect"
    if shot.blinded:
        data["offense"] = None
        success = False
        data["offense_note"] = "fully blinded: the offense roll counts as failed (Z-BLI-1)"
    elif non_damaging:
        success = True
        data["offense"] = None
        data["offense_note"] = "non-damaging AoE: hit chances as if the offense roll " \
                               "succeeded (Z-AOE-5)"
    else:
        offense = roll_check(shot.expr, shot.on, shot.stat, shot.hindrance, dice, rulings)
        data["offense"] = offense
        success = offense["success"]
    data["offense_success"] = success
    critical, denied = critical_hit(rules, state, command, shot, data["offense"] or
                                    {"success": False, "rolled": []})
    if shot.aoe_source == "overeffect" and not success and \
            rules.ruling_is(state, "AZ-15", "hit-only"):
        data["hit"] = False
        return [Event("attacked", data)]
    events: list[Event] = []
    results: dict[str, Any] = {}
    impact_hit = False
    if direct is not None:
        data["target"] = direct.id
        if success:
            flank_on = rules.ruling_is(state, "AZ-23", "applies")
            defense = defense_roll(rules, state, command, actor, direct,
                                   shot.band if flank_on else "engagement", dice)
            data["defense"] = defense
            impact_hit = not defense["success"]
        data["impact_hit"] = impact_hit
        data["critical"] = critical and impact_hit
        if denied:
            data["critical_denied"] = denied
    if shot.aoe_source == "overeffect" and direct is not None and impact_hit is False \
            and success and rules.ruling_is(state, "AZ-15", "hit-only"):
        data["hit"] = False
        return [Event("attacked", data)]
    plan = AoePlan(attacker=actor, kind=shot.aoe or "burst", direct=direct,
                   engagements=shot.engagements, zone=shot.zone, offense_success=success,
                   caution=shot.caution and success, beneficial=weapon.beneficial,
                   spread=bool(shot.spread),
                   altitude=direct.altitude if direct else 0)
    group = [c for c in candidates(state, plan)
             if not (impact_hit and direct is not None and c.id == direct.id)]
    if direct is not None and success and not impact_hit:
        # a successful defense still takes the area effect, guaranteed (Z-AOE-2)
        group = [c for c in group if c.id != direct.id]
        results[direct.id] = {"included": True, "chance": 100, "roll": None,
                              "why": "defended the impact: area guaranteed (Z-AOE-2)"}
    inclusion = roll_inclusion(state, plan, group, dice, rulings)
    results.update(inclusion)
    data["inclusion"] = results
    taken: dict[str, int] = {}
    effects: dict[str, str] = {}
    indoor = zones(state).get(shot.zone, {}).get("indoor", False)
    if impact_hit and direct is not None:
        effects[direct.id] = "impact"
        events += aoe_effect(rules, state, command, shot, direct, "impact", critical, dice,
                             taken)
    for who_id, info in results.items():
        if not info["included"]:
            continue
        effects[who_id] = "area"
        events += aoe_effect(rules, state, command, shot, rules.creature(state, who_id),
                             "area", False, dice, taken)
    data["effects"] = effects
    data["damage_taken"] = taken
    data["hit"] = bool(effects)
    if indoor and (weapon.powerful or shot.aoe_source == "overeffect"):
        data["collapse_check"] = "a powerful AoE indoors: the GM checks Demolition & " \
                                 "Collapses (Z-AOE-16)"
    return [Event("attacked", data), *events, *aftermath(rules, state, events)]


def aoe_effect(rules: ZonesBase, state: EncounterState, command: Command, shot: Shot,
               target: Creature, part: str, critical: bool, dice: DiceSource,
               taken: dict[str, int]) -> list[Event]:
    """One creature struck by the impact or the area effect."""
    weapon = shot.weapon
    if shot.aoe_source == "effect":  # non-damaging: neither cover nor shields (Z-AOE-14)
        assert weapon.effect is not None
        return [Event("condition_added", {"target": target.id, "condition":
                                          Condition(weapon.effect).to_json()})]
    effect = shot.impact if part == "impact" else shot.area
    if effect is None:
        return []
    if part == "impact":
        bonus, label, _ = cover_bonus(rules, state, command, shot.actor, target, shot.band,
                                      critical, aoe=True)
        drive_only = False
    else:
        cover = target.cover()
        bonus, label = (int(cover["bonus"]), "cover") if cover else (0, "")
        # cover against the area effect's drive (Z-AOE-13, AZ-11)
        drive_only = rules.ruling_is(state, "AZ-11", "drive-only")
    hit = hit_for(state, target, effect, weapon, False, bonus, label, drive_only)
    calc = run_damage(effect.damage, weapon.type, hit)
    injury = injury_of(rules, command, calc.amount, dice, area_damage=part == "area")
    taken[target.id] = calc.amount
    return damage_events(target, Deferred(calc.to_json), calc.amount,
                         calc.notes.get("shielding_used", 0), injury, shot.actor.id)
