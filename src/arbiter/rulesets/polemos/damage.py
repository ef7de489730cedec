"""The Polemos damage pipeline: cover, high-impact armor, armor damage, the measure hit.

One hit is one or two damage instances. Each instance runs through the steps in this fixed
order, each recording what it did:

1. cover: damage to a body area in cover is nullified (P-COV-3, AP-18);
2. armor: every worn piece covering the area (P-ARM-1, P-ARM-2), in the wearer's listed order
   (AP-8), that is effective (a rating for the exact type and measure, P-ARM-4, not lower than
   the damage rating, P-ARM-5) absorbs damage into its armor value, never below zero
   (P-ARM-6, P-ARM-7);
3. measure: vitality damage lands on the body area, clamped at its minimum (AP-9); stamina and
   focus damage on the SP and FP pools (P-DMG-3, AP-19).

When armor absorbed anything, half of it (rounded down, P-GEN-1) comes back as armor damage: a
second instance of the degraded type (P-DTY-4) with the same rating on the same area (P-ARM-8,
P-ARM-9), which armor may absorb again (P-ARM-10) but which causes no armor damage (P-ARM-11).

Calculation is pure (:func:`resolve_damage`); the event carries the result and ``apply``
writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...core import DamageCalc, Pipeline
from ...core.rounding import half_round_down
from .model import Creature, DamageType


@dataclass
class DamageContext:
    creature: Creature
    area: str
    dtype: DamageType
    rating: int
    armor_values: list[int]
    covered: bool = False
    armor_damage: bool = False
    measures: str = "pools"
    clamp: bool = True
    absorbed: list[int] = field(default_factory=list)
    vitality: dict[str, int] = field(default_factory=dict)
    sp: int = 0
    fp: int = 0
    overflow: int = 0

    def __post_init__(self) -> None:
        if not self.absorbed:
            self.absorbed = [0] * len(self.armor_values)


def _cover(calc: DamageCalc, ctx: DamageContext) -> None:
    """P-COV-3: cover nullifies damage to the body areas it protects."""
    if ctx.covered and calc.amount > 0:
        calc.step(f"cover protects {ctx.area}", 0)


def _armor(calc: DamageCalc, ctx: DamageContext) -> None:
    """P-ARM-1..7: effective worn armor on the area absorbs into its armor value."""
    kind = str(ctx.dtype)
    for index, piece in enumerate(ctx.creature.armor):
        if calc.amount <= 0:
            return
        if not piece.worn or ctx.area not in piece.areas:
            continue  # P-ARM-1 carried armor, P-ARM-2 another area
        resistance = piece.ratings.get(kind)
        if resistance is None:
            calc.step(f"{piece.name}: no rating against {kind}", calc.amount)
            continue  # P-ARM-4
        if ctx.rating > resistance:
            calc.step(f"{piece.name}: damage rating {ctx.rating} beats resistance "
                      f"{resistance}", calc.amount)
            continue  # P-ARM-5
        before = ctx.armor_values[index]
        absorbed = min(calc.amount, before)
        if absorbed == 0:
            calc.step(f"{piece.name}: armor value 0", calc.amount)
            continue
        ctx.armor_values[index] = before - absorbed  # P-ARM-6: never below zero
        ctx.absorbed[index] += absorbed
        calc.step(f"{piece.name} armor value {before} → {before - absorbed}",
                  calc.amount - absorbed)


def _measure(calc: DamageCalc, ctx: DamageContext) -> None:
    """P-DMG-3 and AP-19: vitality on the area (floor AP-9), stamina on SP, focus on FP."""
    measure = ctx.dtype.measure if ctx.measures == "pools" else "vitality"
    if measure == "stamina":
        ctx.sp = max(ctx.sp - calc.amount, 0)
        calc.step(f"SP → {ctx.sp}", calc.amount)
        return
    if measure == "focus":
        ctx.fp = max(ctx.fp - calc.amount, 0)
        calc.step(f"FP → {ctx.fp}", calc.amount)
        return
    area = ctx.creature.areas[ctx.area]
    current = ctx.vitality.get(ctx.area, area.vitality)
    new = current - calc.amount
    floor = min(current, area.minimum)
    if ctx.clamp and new < floor:
        ctx.overflow += floor - new
        new = floor
    ctx.vitality[ctx.area] = new
    calc.step(f"{ctx.area} vitality → {new}", current - new)


PIPELINE = Pipeline[DamageContext]([_cover, _armor, _measure])
"""The steps of one damage instance, in order."""


def resolve_damage(
    creature: Creature,
    area: str,
    dtype: DamageType,
    amount: int,
    rating: int,
    *,
    covered: bool = False,
    armor_rule: str = "total",
    measures: str = "pools",
    clamp: bool = True,
    armor: bool = True,
) -> dict[str, Any]:
    """The result of one hit on ``area`` of ``creature``: every instance with its steps, and
    the new armor values, vitality, SP, FP. Pure: the creature is not changed."""
    ctx = DamageContext(creature, area, dtype, rating,
                        [p.value for p in creature.armor] if armor else [],
                        covered=covered, measures=measures, clamp=clamp,
                        sp=creature.sp, fp=creature.fp)
    if not armor:
        ctx.creature = _without_armor(creature)
    first = PIPELINE.run(DamageCalc(max(amount, 0), str(dtype)), ctx)
    instances = [first.to_json()]
    taken = {str(dtype): first.amount}
    armor_damage = 0
    if armor_rule == "per-piece":  # AP-8 alternative: round each piece's half, then sum
        armor_damage = sum(half_round_down(a) for a in ctx.absorbed)
    else:  # AP-8 default: half of the total absorbed, rounded down (P-GEN-1)
        armor_damage = half_round_down(sum(ctx.absorbed))
    degraded = dtype.degraded()
    if armor_damage > 0 and degraded is not None:  # P-ARM-8, P-ARM-9
        second_ctx = DamageContext(ctx.creature, area, degraded, rating, ctx.armor_values,
                                   covered=covered, armor_damage=True, measures=measures,
                                   clamp=clamp, absorbed=[0] * len(ctx.armor_values),
                                   vitality=ctx.vitality, sp=ctx.sp, fp=ctx.fp,
                                   overflow=ctx.overflow)
        second = PIPELINE.run(DamageCalc(armor_damage, str(degraded),
                                         tags=frozenset({"armor damage"})), second_ctx)
        # P-ARM-11: armor damage causes no further armor damage: second_ctx.absorbed is dropped
        instances.append({**second.to_json(), "armor_damage": True})
        taken[str(degraded)] = taken.get(str(degraded), 0) + second.amount
        ctx = DamageContext(creature, area, dtype, rating, second_ctx.armor_values,
                            vitality=second_ctx.vitality, sp=second_ctx.sp, fp=second_ctx.fp,
                            overflow=second_ctx.overflow)
    elif armor_damage > 0:
        instances.append({"initial": armor_damage, "type": "", "final": 0, "steps": [],
                          "text": f"{armor_damage} armor damage degrades to nothing",
                          "armor_damage": True})
    return {
        "area": area,
        "type": str(dtype),
        "rating": rating,
        "instances": instances,
        "armor_damage": armor_damage,
        "armor": {str(i): v for i, v in enumerate(ctx.armor_values)
                  if v != creature.armor[i].value} if armor else {},
        "vitality": dict(ctx.vitality),
        "sp": ctx.sp,
        "fp": ctx.fp,
        "overflow": ctx.overflow,
        "taken": taken,
    }


def _without_armor(creature: Creature) -> Creature:
    from copy import copy

    bare = copy(creature)
    bare.armor = []
    return bare
