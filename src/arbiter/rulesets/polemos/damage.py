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

The ``damage`` command, the ``damaged`` event, putting armor on and off, and
choosing a weapon and its damage type (P-DTY-2) live here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    DamageCalc,
    EncounterState,
    Event,
    IllegalCommand,
    InvalidCommand,
    Pipeline,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.memo import kept
from ...core.model import entity_at
from ...core.rounding import half_round_down, round_down
from ...dice import DiceSource, roll
from . import payloads
from .base import PolemosBase
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

    def __init__(self, creature: Creature, area: str, dtype: DamageType, rating: int,
                 armor_values: list[int], covered: bool = False, armor_damage: bool = False,
                 measures: str = "pools", clamp: bool = True, absorbed: list[int] | None = None,
                 vitality: dict[str, int] | None = None, sp: int = 0, fp: int = 0,
                 overflow: int = 0) -> None:  # performance.md, 34
        self.creature = creature
        self.area = area
        self.dtype = dtype
        self.rating = rating
        self.armor_values = armor_values
        self.covered = covered
        self.armor_damage = armor_damage
        self.measures = measures
        self.clamp = clamp
        self.absorbed = absorbed if absorbed else [0] * len(armor_values)
        self.vitality = {} if vitality is None else vitality
        self.sp = sp
        self.fp = fp
        self.overflow = overflow


def _cover(calc: DamageCalc, ctx: DamageContext) -> None:
    """P-COV-3: cover nullifies damage to the body areas it protects."""
    if ctx.covered and calc.amount > 0:
        calc.step(f"cover protects {ctx.area}", 0)


def _armor(calc: DamageCalc, ctx: DamageContext) -> None:
    """P-ARM-1..7: effective worn armor on the area absorbs into its armor value."""
    kind = calc.type  # str(ctx.dtype), which the instance was made with
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
    name = str(dtype)  # (a call of an interpreted class's __str__: once)
    first = PIPELINE.run(DamageCalc(max(amount, 0), name), ctx)
    instances = [first.to_json()]
    taken = {name: first.amount}
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
        degraded_name = str(degraded)
        second = PIPELINE.run(DamageCalc(armor_damage, degraded_name,
                                         tags=frozenset({"armor damage"})), second_ctx)
        # P-ARM-11: armor damage causes no further armor damage: second_ctx.absorbed is dropped
        instances.append({**second.to_json(), "armor_damage": True})
        taken[degraded_name] = taken.get(degraded_name, 0) + second.amount
        ctx = DamageContext(creature, area, dtype, rating, second_ctx.armor_values,
                            vitality=second_ctx.vitality, sp=second_ctx.sp, fp=second_ctx.fp,
                            overflow=second_ctx.overflow)
    elif armor_damage > 0:
        instances.append({"initial": armor_damage, "type": "", "final": 0, "steps": [],
                          "text": f"{armor_damage} armor damage degrades to nothing",
                          "armor_damage": True})
    return {
        "area": area,
        "type": name,
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


def damage_events(rules: PolemosBase, state: EncounterState, target_id: str, area: str,
                  dtype: DamageType, amount: int, rating: int, source: str | None, targeted: bool,
                  extra: dict[str, Any], dice: DiceSource, armor: bool = True) -> list[Event]:
    target = rules.creature(state, target_id)
    covered = bool(extra.get("covered")) and rules.ruling(state, "AP-18") == "nullify"
    result = resolve_damage(target, area, dtype, amount, rating, covered=covered,
                            armor_rule=rules.ruling(state, "AP-8"),
                            measures=rules.ruling(state, "AP-19"),
                            clamp=rules.ruling(state, "AP-9") == "clamp", armor=armor)
    threshold = target.critical_threshold
    if source is not None and isinstance(entity_at(state.entities, source), Creature):
        threshold = rules.creature(state, source).critical_threshold
    # P-CDP-1, P-CDP-2: one point per full threshold of the damage dealt before armor
    points = round_down(amount, threshold)
    if rules.ruling(state, "AP-7") == "extra":
        points += round_down(result["armor_damage"], threshold)
    data = {"target": target_id, "source": source, "actor": source, "amount": amount,
            "taken": sum(result["taken"].values()),
            "targeted": targeted, "result": result, "critical_points": points,
            "text": " | ".join(i["text"] for i in result["instances"]), **extra}
    return [Event("damaged", data)]


def choose_weapon(rules: PolemosBase, actor: Creature, command: Command) -> tuple[str, Any, str]:
    if not actor.weapons:
        raise IllegalCommand(f"{actor.id} has no weapon")
    name: str = command.a.weapon or next(iter(actor.weapons))
    if name not in actor.weapons:
        raise InvalidCommand(f"{actor.id} has no weapon {name!r} "
                             f"(weapons: {', '.join(actor.weapons)})")
    weapon = actor.weapons[name]
    types = weapon.damage  # its damage types, in order (``Weapon.types``)
    if command.a.type is not None:
        kind = type_name(command.a.type)
        if kind not in types:
            raise IllegalCommand(f"{name} cannot deal {kind} damage (types: "
                                 f"{', '.join(types)})", rule="P-DTY-2")
    elif len(types) == 1:
        kind = next(iter(types))
    else:
        raise InvalidCommand(f"{name} deals several damage types: choose one with 'type' "
                             f"before the attack resolves ({', '.join(types)}) [P-DTY-2]")
    return name, weapon, kind


_TYPE_NAMES: dict[str, str] = {}
""":func:`type_name` by the text given (a plain dict, not ``lru_cache``'s call). Bounded:
emptied when it reaches 256 names."""


def type_name(text: str) -> str:
    """A damage type as written, by its canonical name (``DamageType``): kept, as the
    tactics name a weapon's types about 200 times a simulated fight."""
    found = _TYPE_NAMES.get(text)
    if found is None:
        found = kept(_TYPE_NAMES, text, str(DamageType.parse(text)), 256)
    return found


@mypyc_attr(allow_interpreted_subclasses=True)
class DamageRules(PolemosBase):
    """Dealing damage, and armor worn or not."""

    @command("Deal damage (an ability's or the GM's) through armor to a body area.",
             rules=("P-DTY-1", "P-DTY-3", "P-DTY-4", "P-DMG-1", "P-DMG-3", "P-DMG-4",
                    "P-ARM-1", "P-ARM-2", "P-ARM-3", "P-ARM-5", "P-ARM-6", "P-ARM-8",
                    "P-ARM-10", "P-ARM-11", "P-CDP-1", "P-CDP-2", "P-CDP-5", "P-CDP-8",
                    "P-COV-3", "AP-7", "AP-8", "AP-9", "AP-18", "AP-19"),
             target=args.creature("who is damaged", required=True),
             amount=args.integer("damage before armor", lo=0, hi=9999, required=True),
             type=args.text("the damage type, e.g. kinetic or bashing (stamina)",
                            default="kinetic", max_len=64),
             area=args.text("the body area (default: a random one)", max_len=64),
             rating=args.integer("the damage rating", lo=0, hi=999, default=0),
             source=args.creature("who earns the critical damage points"),
             covered=args.flag("the area is in cover (P-COV-3, ruling AP-18)"),
             armor=args.flag("armor applies (false: bypass it)", default=True))
    def do_damage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Deal damage (an ability's or the GM's) to a body area, named or random, through
        armor; whoever dealt it earns the critical damage points."""
        a = command.a
        target = self.creature(state, a.target)
        amount: int = a.amount
        dtype = DamageType.parse(a.type)
        area: str | None = a.area
        targeted = area is not None
        if area is None:
            areas = list(target.areas)
            area = areas[roll(f"1d{len(areas)}", dice).total - 1]
        target.area(area)
        source: str | None = a.source
        if source is not None:
            state.entity(source)
        events = damage_events(self, state, target.id, area, dtype, amount, a.rating, source,
                               targeted, {"covered": a.covered}, dice, armor=a.armor)
        return events + self._consequences(state, events)

    @event("{target} takes {taken} {result.type} damage[ on the {result.area}] ({amount} "
           "before armor)[: {text}][; {critical_points} critical damage points][ for "
           "{source}].",
           target=args.creature("who is damaged"),
           source=args.creature("who earns the critical damage points (none: the GM spends "
                                "them, P-CDP-8)"),
           actor=args.creature("the same as source"),
           amount=args.integer("the damage dealt, before armor (P-CDP-2)"),
           taken=args.integer("the damage that got through the armor"),
           targeted=args.flag("the body area was chosen, not rolled"),
           result=args.mapping("the damage resolved: area, type, rating, instances, armor "
                               "damage, armor values, vitality, SP, FP, overflow"),
           critical_points=args.integer("critical damage points earned (P-CDP-1)"),
           text=args.text("each damage instance in words"),
           covered=args.flag("the body area hit was in cover (P-COV-3)"),
           damage_roll=args.mapping("the weapon damage roll, 1D6 + modifier"),
           per_round=args.text("the condition that deals it each round (P-CON-9)"),
           bleeding=args.text("the bleeding that deals it (P-BLD-1)"),
           optional=("actor", "bleeding", "covered", "damage_roll", "per_round", "source",
                     "targeted"))
    def apply_damaged(self, state: EncounterState, data: payloads.Damaged) -> None:
        target = self.creature(state, data["target"])
        result = data["result"]
        if result["armor"]:  # replaced, never changed in place (metadata=SHARED in model.py)
            armor = list(target.armor)
            for index, value in result["armor"].items():
                armor[int(index)] = armor[int(index)].with_value(value)
            target.armor = armor
        if result["vitality"]:
            areas = dict(target.areas)
            for area, value in result["vitality"].items():
                areas[area] = areas[area].with_vitality(value)
            target.areas = areas
        target.sp, target.fp = result["sp"], result["fp"]
        source = data.get("source")
        owner = entity_at(state.entities, source) if source else None
        if isinstance(owner, Creature):  # P-CDP-3, P-CDP-5: the (original) attacker spends
            owner.critical_points = data["critical_points"]
            owner.critical_target = data["target"]
            owner.critical_area = result["area"] if data.get("targeted") else None
            state.extra.setdefault("critical_area_hit", {})[owner.id] = result["area"]
        else:  # P-CDP-8: no attacker: the GM decides how to spend them
            state.extra["gm_critical"] = {
                "points": data["critical_points"], "target": data["target"],
                "area": result["area"] if data.get("targeted") else None}

    @command("Put on or take off a piece of armor (only worn armor protects).",
             rules=("P-ARM-1",),
             target=args.creature("the wearer", required=True),
             armor=args.text("the armor piece's name", required=True, max_len=64),
             worn=args.flag("worn (false: taken off)", default=True))
    def do_wear(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Put on or take off a piece of armor: only worn armor protects (P-ARM-1)."""
        target = self.creature(state, command.a.target)
        name: str = command.a.armor
        names = [p.name for p in target.armor]
        if name not in names:
            raise InvalidCommand(f"{target.id} has no armor {name!r} (armor: "
                                 f"{', '.join(names) or 'none'})")
        return [Event("armor_worn", {"target": target.id, "index": names.index(name),
                                     "worn": command.a.worn})]

    @event("{target} {worn?puts on|takes off} armor piece {index}.",
           target=args.creature("the wearer"),
           index=args.integer("the piece's place in the armor list"),
           worn=args.flag("worn"))
    def apply_armor_worn(self, state: EncounterState, data: payloads.ArmorWorn) -> None:
        target = self.creature(state, data["target"])
        target.armor = [replace(piece, worn=data["worn"]) if index == data["index"] else piece
                        for index, piece in enumerate(target.armor)]
