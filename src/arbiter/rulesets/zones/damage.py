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

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...core import DamageCalc, Pipeline
from ...core.rounding import round_down, round_up
from .model import RULINGS


def fraction_of(value: int, numerator: int, denominator: int,
                rulings: Mapping[str, str]) -> int:
    """``value × numerator / denominator``, rounded as ruling AZ-12 says (default: down)."""
    if RULINGS.chosen(rulings, "AZ-12", "up"):
        return round_up(value * numerator, denominator)
    return round_down(value * numerator, denominator)


@dataclass(frozen=True, slots=True)
class Hit:
    """What the pipeline needs to know about one hit on one creature."""

    armor: int
    drive: int
    bonus: int = 0
    bonus_label: str = ""
    bonus_vs_drive_only: bool = False
    shielding: int = 0
    shielded: bool = False
    shielding_counts: tuple[int, int] = (1, 1)
    rulings: Mapping[str, str] = field(default_factory=dict)


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
