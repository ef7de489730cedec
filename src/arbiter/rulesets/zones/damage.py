"""The damage pipeline of the zones ruleset: kinetic shielding, then armor against drive.

The Damage & Drive chapter is outside the excerpt; ruling ZR-2 defines the minimal model:

- ``drive-penetrates`` (default): when the drive exceeds the armor (with any armor bonus from
  cover or a shield), the whole damage is taken; otherwise the damage is reduced by the armor.
- ``subtract``: the damage is always reduced by the armor; drive is ignored.

An armor bonus marked *vs drive only* (cover against an AoE's area effect, Z-AOE-13, AZ-11)
counts in the drive comparison but not in the reduction. Every step is recorded.

>>> ctx = Hit(armor=10, drive=12)
>>> PIPELINE.run(DamageCalc(30, "kinetic"), ctx).explain()
'30 kinetic → drive 12 beats armor 10: 30'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    DamageCalc,
    DataMap,
    Deferred,
    EncounterState,
    Event,
    Pipeline,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.rounding import round_down, round_up
from ...dice import DiceSource, roll
from . import payloads
from .base import ZonesBase
from .conditions import Conditions  # the topic below (a chain)
from .model import DAMAGE_TYPES, RULINGS, Creature, Effect, Weapon, injury_type
from .turns import aftermath


def fraction_of(value: int, numerator: int, denominator: int,
                rulings: dict[str, str]) -> int:
    """``value × numerator / denominator``, rounded as ruling AZ-12 says (default: down)."""
    if RULINGS.chosen(rulings, "AZ-12", "up"):
        return round_up(value * numerator, denominator)
    return round_down(value * numerator, denominator)


@dataclass(slots=True)
class Hit:
    """What the pipeline needs to know about one hit on one creature. Treated as immutable
    but not frozen (like the kernel's Event): a frozen dataclass is slower to build, and
    one is built for every hit."""

    armor: int
    drive: int
    bonus: int = 0
    bonus_label: str = ""
    bonus_vs_drive_only: bool = False
    shielding: int = 0
    shielded: bool = False
    shielding_counts: tuple[int, int] = (1, 1)
    rulings: dict[str, str] = field(default_factory=dict)
    armor_off: bool = False

    def __init__(self, armor: int, drive: int, bonus: int = 0, bonus_label: str = "",
                 bonus_vs_drive_only: bool = False, shielding: int = 0, shielded: bool = False,
                 shielding_counts: tuple[int, int] = (1, 1),
                 rulings: dict[str, str] | None = None,
                 armor_off: bool = False) -> None:  # performance.md, 34
        self.armor = armor
        self.drive = drive
        self.bonus = bonus
        self.bonus_label = bonus_label
        self.bonus_vs_drive_only = bonus_vs_drive_only
        self.shielding = shielding
        self.shielded = shielded
        self.shielding_counts = shielding_counts
        self.rulings = {} if rulings is None else rulings
        self.armor_off = armor_off


def _kinetic_shielding(calc: DamageCalc, hit: Hit) -> None:
    """Kinetic shielding soaks damage from its charge (ruling ZR-6); full-auto damage counts
    at 1/4 against the charge (Z-FA-4), so each point of charge stops 4 points of it."""
    if not hit.shielded or hit.shielding <= 0 or calc.amount <= 0:
        return
    num, den = hit.shielding_counts
    counted = fraction_of(calc.amount, num, den, hit.rulings)
    used = min(hit.shielding, counted)
    after = 0 if used >= counted else max(calc.amount - round_down(used * den, num), 0)
    calc.notes["shielding_used"] = used
    share = "" if (num, den) == (1, 1) else f" (counts {num}/{den}: {counted})"
    calc.step(f"kinetic shielding {hit.shielding}{share} spends {used}", after)


def _armor_and_drive(calc: DamageCalc, hit: Hit) -> None:
    """Armor against drive (ruling ZR-2), with the cover or shield bonus (AZ-11)."""
    if calc.amount <= 0:
        return
    if hit.armor_off:  # the game master's damage with armor: false
        bonus = f"; {hit.bonus_label} {hit.bonus}" if hit.bonus else ""
        calc.step(f"armor bypassed{bonus}", max(calc.amount - hit.bonus, 0))
        return
    against_drive = hit.armor + hit.bonus
    reduction = hit.armor if hit.bonus_vs_drive_only else hit.armor + hit.bonus
    label = f"armor {hit.armor}"
    if hit.bonus:
        only = ", vs drive only" if hit.bonus_vs_drive_only else ""
        label += f" + {hit.bonus_label} {hit.bonus}{only}"
    penetrates = RULINGS.chosen(hit.rulings, "ZR-2", "drive-penetrates")
    if penetrates and hit.drive > against_drive:
        calc.step(f"drive {hit.drive} beats {label}", calc.amount)
        return
    calc.step(f"{label} stops drive {hit.drive}" if penetrates else label,
              max(calc.amount - reduction, 0))


PIPELINE = Pipeline[Hit]([_kinetic_shielding, _armor_and_drive])
"""The fixed order: kinetic shielding, then armor and drive."""


def run(damage: int, kind: str, hit: Hit) -> DamageCalc:
    return PIPELINE.run(DamageCalc(max(damage, 0), kind), hit)


@mypyc_attr(allow_interpreted_subclasses=True)
class Damage(Conditions):
    """The GM's damage and healing, and what damage does to a creature."""

    @event("{target} takes {taken} damage[ from {source}][ ({injury.type})]"
           "[, leaving {health} health][; kinetic shielding {kinetic_shielding} left].",
           player="{target} takes {taken} damage[ from {source}][ ({injury.type})]"
           "[, leaving {health} health].",
           target=args.creature("who takes the damage"),
           source=args.creature("the attacker (gm: the game master)"),
           taken=args.integer("damage taken"), health=args.integer("health after"),
           pipeline=args.mapping("the steps of kinetic shielding, armor and drive"),
           kinetic_shielding=args.integer("the kinetic shielding charge left"),
           injury=args.mapping("the injury type and its d20 (none: the GM's or area damage)"),
           optional=("injury",))
    def apply_damaged(self, state: EncounterState, data: payloads.Damaged) -> None:
        who = self.creature(state, data["target"])
        who.health = data["health"]
        who.kinetic_shielding = data["kinetic_shielding"]

    @command("Deal damage through kinetic shielding, armor and drive.",
             rules=("ZR-2", "ZR-6"),
             target=args.creature("who takes the damage", required=True),
             amount=args.integer("damage before armor", lo=0, hi=9999, required=True),
             drive=args.integer("the damage's drive", lo=0, hi=9999, default=0),
             type=args.choice("the damage type", *DAMAGE_TYPES, default="kinetic"),
             bonus=args.integer("an armor bonus (cover, shield)", lo=0, hi=9999, default=0),
             armor=args.flag("armor applies (false: bypass it, as Polemos' damage)",
                             default=True, who="gm"))
    def do_damage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """The GM's damage, through the target's armor (and a bonus) against its drive
        (ruling ZR-2), or past the armor with ``armor: false``."""
        a = command.a
        target = self.creature(state, a.target)
        amount: int = a.amount
        kind: str = a.type
        hit = Hit(armor=target.armor, drive=a.drive, bonus=a.bonus, bonus_label="bonus",
                  rulings=state.rulings, armor_off=not a.armor)
        calc = run(amount, kind, hit)
        events = damage_events(target, Deferred(calc.to_json), calc.amount, 0, None, "gm")
        if not events:
            events = [Event("damaged", {"target": target.id, "source": "gm", "taken": 0,
                                        "health": target.health,
                                        "pipeline": Deferred(calc.to_json),
                                        "kinetic_shielding": target.kinetic_shielding})]
        return events + aftermath(self, state, events)

    @command("Heal a creature up to its maximum health (standing again above 0).",
             target=args.creature("who is healed", required=True),
             amount=args.integer("health restored", lo=0, hi=9999, required=True))
    def do_heal(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Heal a creature up to its maximum health; above 0 it stands again."""
        target = self.creature(state, command.a.target)
        amount: int = command.a.amount
        health = min(target.health + amount, target.health_max)
        events = [Event("healed", {"target": target.id, "health": health})]
        if target.down and health > 0:
            events.append(Event("condition_removed", {"target": target.id, "name": "down",
                                                      "why": "healed"}))
        return events

    @event("{target} is healed[ to {health} health].", target=args.creature("who is healed"),
           health=args.integer("health after"))
    def apply_healed(self, state: EncounterState, data: payloads.Healed) -> None:
        self.creature(state, data["target"]).health = data["health"]


def hit_for(state: EncounterState, target: Creature, effect: Effect, weapon: Weapon,
            full_auto: bool, bonus: int, label: str, drive_only: bool) -> Hit:
    # kinetic shielding meets non-thrown kinetic attacks (Z-THR-4 read as ruling ZR-6)
    shielded = weapon.type == "kinetic" and weapon.kind == "ranged"
    return Hit(armor=target.armor, drive=effect.drive, bonus=bonus, bonus_label=label,
               bonus_vs_drive_only=drive_only, shielding=target.kinetic_shielding,
               shielded=shielded, shielding_counts=(1, 4) if full_auto else (1, 1),
               rulings=state.rulings)


def injury_of(rules: ZonesBase, command: Command, taken: int, dice: DiceSource,
              area_damage: bool) -> dict[str, Any] | None:
    """The injury type: Core for area damage (Z-INJ-2); else the GM's d20 on the injury
    table (Z-INJ-1), or the type the GM names with ``injury``."""
    if taken <= 0:
        return None
    if area_damage:
        return {"type": "Core Injury", "roll": None}
    named = command.a.injury  # the GM's
    if named is not None:
        return {"type": named, "roll": None}
    value = roll("1d20", dice).total
    return {"type": injury_type(value), "roll": value}


def damage_events(target: Creature, pipeline: DataMap, taken: int,
                  shielding_used: int, injury: dict[str, Any] | None,
                  source: str) -> list[Event]:
    if taken <= 0 and not shielding_used:
        return []
    data = {"target": target.id, "source": source, "taken": taken,
            "health": target.health - taken, "pipeline": pipeline,
            "kinetic_shielding": target.kinetic_shielding - shielding_used}
    if injury:
        data["injury"] = injury
    events = [Event("damaged", data)]
    if target.health > 0 >= target.health - taken:
        events.append(Event("condition_added", {"target": target.id,
                                                "condition": {"name": "down"}}))
    return events
