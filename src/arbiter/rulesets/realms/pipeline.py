"""The realms damage pipeline (seed 003, "Armor & Damage"); every step is recorded.

Order (ruling AR-11, default ``reductions-first``): Immunity (stop; its own or from net two
Resistances, R-RES-2, so the armor spends no halving step on it) → shield Defend →
armor damage reduction (minimum 1, halving per reduction in a turn) → other damage-reduction
effects, Resilient included (each halving per reduction, minimum 1) → Resistance /
Vulnerability (net count, AR-12) → Susceptible. ``multipliers-first`` moves Resistance /
Vulnerability right after Immunity.

One attack may carry several damage components (a flaming sword: slashing and fire). The
armor's current DR applies to each reducible component, and the whole attack is one
reduction (AR-10, ``one-instance``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...core import DamageCalc, Pipeline
from ...core.rounding import half_round_down, half_round_up
from .model import UNREDUCED_BY_ARMOR, RealmsCreature, conditions_catalogue, rulings

RULINGS = rulings()


def halved(value: int, times: int, up: bool = True) -> int:
    """``value`` halved ``times`` times (R-ARM-3: rounded up, so 5 → 3 → 2 → 1 → 1).

    >>> [halved(5, n) for n in range(5)]
    [5, 3, 2, 1, 1]
    """
    for _ in range(times):
        value = half_round_up(value) if up else half_round_down(value)
    return value


@dataclass
class DamageContext:
    """What the steps need to know about one instance of damage and its target."""

    target: RealmsCreature
    rulings: dict[str, str]
    irreducible: bool = False
    fall: bool = False
    over_time_later: bool = False
    shield_left: int = 0
    armor_uses: int = 0
    dr_uses: dict[str, int] = field(default_factory=dict)
    raw: int = 0
    armor_reduced: bool = False
    dr_reduced: set[str] = field(default_factory=set)
    stopped: bool = False

    def __init__(self, target: RealmsCreature, rulings: dict[str, str],
                 irreducible: bool = False, fall: bool = False, over_time_later: bool = False,
                 shield_left: int = 0, armor_uses: int = 0, dr_uses: dict[str, int] | None = None,
                 raw: int = 0, armor_reduced: bool = False, dr_reduced: set[str] | None = None,
                 stopped: bool = False) -> None:  # performance.md, 34
        self.target = target
        self.rulings = rulings
        self.irreducible = irreducible
        self.fall = fall
        self.over_time_later = over_time_later
        self.shield_left = shield_left
        self.armor_uses = armor_uses
        self.dr_uses = {} if dr_uses is None else dr_uses
        self.raw = raw
        self.armor_reduced = armor_reduced
        self.dr_reduced = set() if dr_reduced is None else dr_reduced
        self.stopped = stopped

    def ruling_is(self, rid: str, choice: str) -> bool:
        """Whether ruling ``rid`` is ``choice`` here (the one accessor, ``model.rulings``)."""
        return RULINGS.chosen(self.rulings, rid, choice)


def _reduces_with_dr(calc: DamageCalc, ctx: DamageContext) -> bool:
    return not (ctx.irreducible or ctx.fall or ctx.stopped or calc.amount <= 0)


def immunity(calc: DamageCalc, ctx: DamageContext) -> None:
    """R-IMM-1: no damage of a type the target is immune to, whether the Immunity is its own
    or comes from two or more Resistances (R-RES-2: such sources "instead gain Immunity").
    Both stop the damage here, first (AR-11), so the armor spends no halving step on it."""
    if ctx.irreducible:
        return
    if calc.type and calc.type in ctx.target.immune:
        calc.step(f"immune ({calc.type})", 0)
        ctx.stopped = True
        return
    if calc.amount > 0:
        resist = stacked_resistance(ctx, calc.type)
        if resist:
            calc.step(f"immune ({resist} resistances to {calc.type})", 0)
            ctx.stopped = True


def shield(calc: DamageCalc, ctx: DamageContext) -> None:
    """R-SHD-1: the Defend reaction reduces the damage by the shield's roll."""
    if ctx.shield_left <= 0 or not _reduces_with_dr(calc, ctx):
        return
    used = min(ctx.shield_left, calc.amount)
    ctx.shield_left -= used
    calc.step(f"shield {used}", calc.amount - used)


def armor_dr(target: RealmsCreature, damage_type: str, uses: int,
             rulings: dict[str, str]) -> int:
    """The armor's damage reduction against ``damage_type`` after ``uses`` reductions."""
    armor = target.armor
    base = int(armor.get("dr", 0))
    if not base or not damage_type:
        return 0
    if damage_type in armor.get("vulnerable", ()):  # R-ARM-7
        return 0
    if damage_type in UNREDUCED_BY_ARMOR and not armor.get("reduces_all"):  # R-ARM-1
        return 0
    if damage_type in armor.get("resist", ()):  # R-ARM-6, AR-9
        if RULINGS.chosen(rulings, "AR-9", "double-current"):
            return 2 * halved(base, uses)
        if RULINGS.chosen(rulings, "AR-9", "double-base-fixed"):
            return 2 * base
        return halved(2 * base, uses)
    return halved(base, uses)  # R-ARM-3


def armor(calc: DamageCalc, ctx: DamageContext) -> None:
    """R-ARM-2: armor lowers the damage by its current DR, to a minimum of 1."""
    if not _reduces_with_dr(calc, ctx) or ctx.over_time_later:  # R-ARM-5
        return
    damage_type = calc.type
    if not damage_type and ctx.ruling_is("AR-27", "armor-reduces"):
        damage_type = "bludgeoning"  # reduced like any typed damage
    dr = armor_dr(ctx.target, damage_type, ctx.armor_uses, ctx.rulings)
    if dr <= 0:
        return  # R-ARM-4: a type the armor does not reduce uses no halving step
    before = calc.amount
    new = max(before - dr, 1)
    calc.step(f"armor DR {dr}", new)
    if new < before or ctx.ruling_is("AR-14", "always"):
        ctx.armor_reduced = True
    if ctx.armor_reduced and ctx.ruling_is("AR-10", "per-component"):
        ctx.armor_uses += 1
        ctx.armor_reduced = False
        calc.notes["armor_used"] = calc.notes.get("armor_used", 0) + 1


def other_reductions(target: RealmsCreature) -> list[dict[str, Any]]:
    """Damage-reduction effects: the stat block's and Resilient (AR-11: a DR effect)."""
    out = [dict(r) for r in target.reductions]
    if target.conditions:
        catalogue = conditions_catalogue()
        for cond in target.conditions:  # conditions.toml: damage_reduction (Resilient)
            entry = catalogue.get(cond.name)
            level = entry.modifier("damage_reduction", cond.level) if entry else 0
            if level:
                out.append({"name": cond.name, "amount": level})
    return out


def reductions(calc: DamageCalc, ctx: DamageContext) -> None:
    """R-DR-1: other damage reductions, each halving per reduction (AR-40 rounding)."""
    if not _reduces_with_dr(calc, ctx):
        return
    up = ctx.ruling_is("AR-40", "round-up")
    floor = 1 if ctx.raw >= 1 else 0
    for effect in other_reductions(ctx.target):
        name = str(effect["name"])
        types = effect.get("types")
        if types and calc.type not in types:
            continue
        amount = halved(int(effect["amount"]), ctx.dr_uses.get(name, 0), up)
        if amount <= 0 or calc.amount <= floor:
            continue
        before = calc.amount
        new = max(before - amount, floor)
        calc.step(f"{name} {amount}", new)
        if new < before or ctx.ruling_is("AR-14", "always"):
            ctx.dr_reduced.add(name)


def resistance_count(target: RealmsCreature, damage_type: str,
                     rulings: dict[str, str]) -> tuple[int, int]:
    """Sources of Resistance and of Vulnerability to a type (R-RES-2, R-RV-1, AR-39, AR-13)."""
    if not damage_type:
        return 0, 0
    resist = target.resist.count(damage_type)
    if RULINGS.chosen(rulings, "AR-39", "resistance-source"):
        catalogue = conditions_catalogue()
        for cond in target.conditions:
            entry = catalogue.get(cond.name)
            if entry is not None and damage_type in entry.resist:
                resist += 1
    if (RULINGS.chosen(rulings, "AR-13", "a-source")
            and damage_type in target.armor.get("resist", ())):
        resist += 1
    return resist, target.vulnerable.count(damage_type)


def stacked_resistance(ctx: DamageContext, damage_type: str) -> int:
    """The Resistances to ``damage_type`` when they make the target immune (R-RES-2: net two
    or more, AR-12; two or more before any Vulnerability under ``immunity-first``), else 0."""
    resist, vulnerable = resistance_count(ctx.target, damage_type, ctx.rulings)
    if resist < 2:
        return 0
    immune_first = ctx.ruling_is("AR-12", "immunity-first")
    return resist if immune_first or resist - vulnerable >= 2 else 0


def resistance(calc: DamageCalc, ctx: DamageContext) -> None:
    """R-RES-1 (half, rounded up), R-VUL-1 (double), R-RV-1 (they cancel one for one);
    R-RES-2's Immunity (net two or more) already stopped the damage at ``immunity``."""
    if ctx.irreducible or ctx.stopped or calc.amount <= 0:
        return
    resist, vulnerable = resistance_count(ctx.target, calc.type, ctx.rulings)
    net = resist - vulnerable  # net two or more stopped at the immunity step (R-RES-2)
    if net == 1:
        calc.step(f"resistance ({calc.type})", half_round_up(calc.amount))
    elif net <= -1:
        calc.step(f"vulnerability ({calc.type})", 2 * calc.amount)
    if ctx.ruling_is("AR-39", "separate-halving") and not ctx.stopped \
            and ctx.target.conditions:
        catalogue = conditions_catalogue()  # a condition's own Resistance (Deafened: sonic)
        for cond in ctx.target.conditions:
            entry = catalogue.get(cond.name)
            if entry is not None and calc.type in entry.resist:
                calc.step(f"{cond.name} ({calc.type})", half_round_up(calc.amount))


def susceptible(calc: DamageCalc, ctx: DamageContext) -> None:
    """R-C-SUS: Susceptible N increases damage taken by N (AR-4: not irreducible damage):
    each condition's ``damage_taken`` of conditions.toml."""
    if not ctx.target.conditions:
        return
    catalogue = conditions_catalogue()
    for cond in ctx.target.conditions:
        entry = catalogue.get(cond.name)
        level = entry.modifier("damage_taken", cond.level) if entry else 0
        if not level or calc.amount <= 0 or ctx.stopped:
            continue
        if ctx.irreducible and ctx.ruling_is("AR-4", "nothing-applies"):
            return
        calc.step(f"{cond.name} {level}", calc.amount + level)


REDUCTIONS_FIRST = Pipeline[DamageContext]([immunity, shield, armor, reductions, resistance,
                                            susceptible])
MULTIPLIERS_FIRST = Pipeline[DamageContext]([immunity, resistance, shield, armor, reductions,
                                             susceptible])


@dataclass
class DamageResult:
    """The outcome of one instance of damage: each component's steps and the totals."""

    components: list[DamageCalc]
    taken: int
    armor_uses: int
    dr_uses: dict[str, int]
    shield_used: int

    def __init__(self, components: list[DamageCalc], taken: int, armor_uses: int,
                 dr_uses: dict[str, int], shield_used: int) -> None:  # performance.md, 34
        self.components = components
        self.taken = taken
        self.armor_uses = armor_uses
        self.dr_uses = dr_uses
        self.shield_used = shield_used

    def to_json(self) -> dict[str, Any]:
        return {"components": [c.to_json() for c in self.components], "taken": self.taken,
                "armor_uses": self.armor_uses, "dr_uses": dict(self.dr_uses),
                "shield_used": self.shield_used,
                "text": "; ".join(c.explain() for c in self.components)}


def resolve(target: RealmsCreature, components: list[tuple[int, str]], rulings: dict[str, str],
            *, irreducible: bool = False, fall: bool = False, over_time_later: bool = False,
            shield_roll: int = 0) -> DamageResult:
    """Run every component of one instance of damage through the pipeline (pure)."""
    ctx = DamageContext(target, rulings, irreducible=irreducible, fall=fall,
                        over_time_later=over_time_later, shield_left=shield_roll,
                        armor_uses=target.armor_uses, dr_uses=dict(target.dr_uses),
                        raw=sum(a for a, _ in components))
    pipeline = (MULTIPLIERS_FIRST if RULINGS.chosen(rulings, "AR-11", "multipliers-first")
                else REDUCTIONS_FIRST)
    calcs = []
    for amount, damage_type in components:
        ctx.stopped = False
        calc = DamageCalc(max(amount, 0), damage_type)
        if irreducible:
            calc.step("irreducible", calc.amount)
        elif fall:
            calc.step("fall: no damage reduction", calc.amount)  # R-FALL-4
        calcs.append(pipeline.run(calc, ctx))
        if ctx.ruling_is("AR-10", "per-component"):
            for name in ctx.dr_reduced:
                ctx.dr_uses[name] = ctx.dr_uses.get(name, 0) + 1
            ctx.dr_reduced = set()
    if ctx.armor_reduced:
        ctx.armor_uses += 1
    for name in ctx.dr_reduced:
        ctx.dr_uses[name] = ctx.dr_uses.get(name, 0) + 1
    return DamageResult(calcs, sum(c.amount for c in calcs), ctx.armor_uses, ctx.dr_uses,
                        shield_roll - ctx.shield_left)


__all__ = ["DamageContext", "DamageResult", "armor_dr", "halved", "resistance_count", "resolve"]
