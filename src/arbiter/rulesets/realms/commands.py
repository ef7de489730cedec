"""Argument helpers and derived numbers of the realms ruleset (pure functions of the state).

Everything here reads; nothing writes. ``rules.py`` uses these to decide. Rulings are read
through the one RulingSet of realms (``model.rulings``), never with a default here.
"""

from __future__ import annotations

from typing import Any

from ...core import Command, EncounterState, InvalidCommand
from ...core.rounding import half_round_down, half_round_up
from .model import RealmsCreature, conditions_catalogue, load_toml, rulings, sizes

RULINGS = rulings()


def half(state: EncounterState, value: int, *, damage: bool = False) -> int:
    """An unspecified half (AR-18): damage rounds up, everything else down, by default."""
    if RULINGS.chosen(state.rulings, "AR-18", "all-up") or (
            damage and RULINGS.chosen(state.rulings, "AR-18", "damage-up-others-down")):
        return half_round_up(value)
    return half_round_down(value)


def reduce_with_floor(state: EncounterState, value: int, level: int) -> int:
    """R-CON-3: a leveled condition lowers ``value`` by ``level`` but leaves at least 1
    when it would exceed it (AR-20: at or above, by default); a 0 stays 0."""
    if value <= 0 or level <= 0:
        return value
    strict = RULINGS.chosen(state.rulings, "AR-20", "strictly-exceeds")
    if level > value or (level == value and not strict):
        return 1
    return value - level


def succeeds(state: EncounterState, total: int, ds: int) -> bool:
    """AR-16: a roll meets or beats its Difficulty Score."""
    if RULINGS.chosen(state.rulings, "AR-16", "beat"):
        return total > ds
    return total >= ds


def _modifier(spec: Any, level: int) -> int:
    if isinstance(spec, bool):
        return 0
    if isinstance(spec, int):
        return spec
    return {"level": level, "+level": level, "-level": -level,
            "-half-level": -half_round_down(level)}[str(spec)]


def modifier(creature: RealmsCreature, key: str) -> int:
    """The sum of one kind of modifier over a creature's conditions (conditions.toml)."""
    if not creature.conditions:
        return 0
    catalogue = conditions_catalogue()
    total = 0
    for cond in creature.conditions:
        spec = catalogue.get(cond.name, {}).get(key)
        if spec is not None:
            total += _modifier(spec, cond.level)
    return total


def flag(creature: RealmsCreature, key: str) -> str | None:
    """The name of the first condition that sets a flag (``no_reactions``...), if any."""
    if not creature.conditions:
        return None
    catalogue = conditions_catalogue()
    for cond in creature.conditions:
        if catalogue.get(cond.name, {}).get(key):
            return cond.name
    return None


def evasion(creature: RealmsCreature) -> int:
    """Evasion with Exhausted, Exposed, Staggered, Faint and dodging folded in."""
    return creature.evasion + modifier(creature, "evasion")


def defense_bonus(creature: RealmsCreature, name: str) -> int:
    """A defense (Might, Reflex...) with Exposed, Faint and Exhausted folded in."""
    return (creature.defenses.get(name, 0) + modifier(creature, "defenses")
            + modifier(creature, name) + modifier(creature, "bonuses"))


def skill_bonus(creature: RealmsCreature, name: str) -> int:
    """A skill bonus (or a defense, when ``name`` is one) with Exhausted folded in."""
    if name in creature.defenses or name in ("might", "reflex"):
        return defense_bonus(creature, name)
    return creature.skills.get(name, 0) + modifier(creature, "bonuses")


def agility(state: EncounterState, creature: RealmsCreature) -> int:
    """Agility after armor's penalty (R-ARM-9) and, under AR-23 agility-too, Exhaustion."""
    value = creature.agility - int(creature.armor.get("agility_penalty", 0))
    if RULINGS.chosen(state.rulings, "AR-23", "agility-too"):
        value -= creature.level("exhausted")
    return value


def capacity(state: EncounterState, creature: RealmsCreature) -> int:
    """Carrying capacity in kg (R-CAR-1, R-SIZ-3), never below the minimum (R-CAR-3, AR-28)."""
    factor = creature.size_info.carry
    minimum = 10 if RULINGS.chosen(state.rulings, "AR-28", "flat-10") else factor
    return max(factor * (1 + creature.strength), minimum)


def lowered(state: EncounterState, creature: RealmsCreature, value: int, *,
            every_type: bool) -> int:
    """A Speed type after the conditions that lower it (``speed`` in conditions.toml):
    Slowed lowers every Speed type, to a minimum of 1 (R-C-SLO, R-CON-3); Exhausted only
    the Speed (R-C-EXH: "your Speed"), so ``every_type`` (climb, swim, a given flight)
    leaves it out."""
    catalogue = conditions_catalogue()
    for cond in creature.conditions:
        entry = catalogue.get(cond.name, {})
        if "speed" not in entry or (every_type and not entry.get("every_speed_type")):
            continue
        amount = -_modifier(entry["speed"], cond.level)
        if entry.get("floor_one"):
            value = reduce_with_floor(state, value, amount)  # R-C-SLO, R-CON-3
        else:
            value = max(value - amount, 0)  # R-C-EXH: -1 per 2 levels
    return value


def speed(state: EncounterState, creature: RealmsCreature) -> int:
    """Speed in spaces: half Agility + 6 (R-MOV-1), then conditions and load."""
    if flag(creature, "speed_zero"):
        return 0  # R-C-IMM: nothing can raise it
    if creature.mounted_on and creature.mounted_on in state.entities:
        mount = state.entities[creature.mounted_on]
        if isinstance(mount, RealmsCreature):
            return speed(state, mount)  # R-MNT-4
    value = half(state, agility(state, creature)) + 6
    if creature.conditions:
        value = lowered(state, creature, value, every_type=False)
    if creature.has("prone") and RULINGS.chosen(state.rulings, "AR-19", "both"):
        value = half(state, value)
    if 2 * creature.load > capacity(state, creature):
        value = half(state, value)  # R-CAR-2
    return value


def speed_type(state: EncounterState, creature: RealmsCreature, base: int) -> int:
    """Another Speed type than the Speed (climb, swim, a given flight): 0 while Immobile
    (R-C-IMM, nothing raises it), lowered by Slowed (R-C-SLO: "all Speed types")."""
    if not creature.conditions:
        return base
    if flag(creature, "speed_zero"):
        return 0
    return lowered(state, creature, base, every_type=True)


def climb_speed(state: EncounterState, creature: RealmsCreature) -> int:
    """R-CLB-1: a given Climb Speed, else half of Strength; then the conditions."""
    if creature.climb_speed is not None:
        return speed_type(state, creature, creature.climb_speed)
    return speed_type(state, creature, max(half(state, creature.strength), 0))


def swim_speed(state: EncounterState, creature: RealmsCreature) -> int:
    """R-SWM-1: a given Swim Speed, else half of Agility or Vitality (AR-41: the higher);
    then the conditions."""
    if creature.swim_speed is not None:
        return speed_type(state, creature, creature.swim_speed)
    stat = {"agility": creature.agility, "vitality": creature.vitality,
            "higher": max(creature.agility, creature.vitality)}[
        RULINGS.value(state.rulings, "AR-41")]
    return speed_type(state, creature, max(half(state, stat), 0))


def fly_speed(state: EncounterState, creature: RealmsCreature) -> int:
    """R-FLY-1: Flight Speed is the regular Speed (conditions included) unless stated; a
    stated one is lowered like every Speed type."""
    if creature.fly_speed is None:
        return speed(state, creature)
    return speed_type(state, creature, creature.fly_speed)


def jump_limits(state: EncounterState, creature: RealmsCreature) -> tuple[int, int]:
    """R-JMP-1: horizontal Strength or Agility (AR-30: the higher), vertical half of it."""
    stat = {"strength": creature.strength, "agility": creature.agility,
            "higher": max(creature.strength, creature.agility)}[
        RULINGS.value(state.rulings, "AR-30")]
    horizontal = max(stat, 0)
    return horizontal, half(state, horizontal)


def jump_ds(state: EncounterState, excess: int) -> int:
    """R-JMP-2: DS 10, +5 for a space over the limit (AR-42: per space)."""
    if excess <= 0:
        return 0
    if RULINGS.chosen(state.rulings, "AR-42", "once"):
        return 15
    return 10 + 5 * excess


def ap_costs(state: EncounterState) -> dict[str, int]:
    """The AP cost of each action under ruling RLM-3."""
    table: dict[str, dict[str, int]] = load_toml("actions.toml")
    return table[RULINGS.value(state.rulings, "RLM-3")]


def needs_arms(state: EncounterState, action: str, weapon_arms: bool = True) -> bool:
    """Whether an action needs the arms, which Restrained forbids (R-C-RES, RLM-7): the
    actions of ``actions.toml`` [arms]; under ``arms-table`` an attack with a natural weapon
    the arms do not wield (``arms = false`` in weapons.toml: a bite, hooves) needs none."""
    if action not in load_toml("actions.toml")["arms"]["actions"]:
        return False
    if action in ("attack", "reaction_attack") and not weapon_arms:
        return RULINGS.chosen(state.rulings, "RLM-7", "every-attack")
    return True


def creature(state: EncounterState, name: str) -> RealmsCreature:
    """The realms creature ``name`` (``EncounterState.entity_of``, in one call: this runs
    for nearly every event)."""
    entity = state.entities.get(name)
    if type(entity) is RealmsCreature:
        return entity
    return state.entity_of(name, RealmsCreature)


def size_order(creature: RealmsCreature) -> int:
    return sizes()[creature.size].order


def position(command: Command, key: str) -> list[int] | None:
    value = command.args.get(key)
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise InvalidCommand(f"{command.name}: {key!r} is a square [x, y], not {value!r}")
    return [int(value[0]), int(value[1])]


def distance(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Squares between two footprints (0 when they overlap, 1 when adjacent)."""
    return min(max(abs(x1 - x2), abs(y1 - y2)) for x1, y1 in a for x2, y2 in b)


def enemies(state: EncounterState, who: RealmsCreature) -> list[RealmsCreature]:
    out = []
    for other in state.entities.values():
        if (isinstance(other, RealmsCreature) and other.id != who.id and not other.down
                and other.side is not None and who.side is not None and other.side != who.side):
            out.append(other)
    return out


def _side_of(target: list[tuple[int, int]], other: list[tuple[int, int]]) -> tuple[int, int]:
    tx = sum(x for x, _ in target) * len(other)
    ty = sum(y for _, y in target) * len(other)
    ox = sum(x for x, _ in other) * len(target)
    oy = sum(y for _, y in other) * len(target)
    return ((ox > tx) - (ox < tx), (oy > ty) - (oy < ty))


def flankers(state: EncounterState, target: RealmsCreature,
             at: list[int] | None = None) -> list[str]:
    """R-FLK-1: the enemies flanking ``target`` (two or more within 1 space, on different
    sides); empty when it is not flanked."""
    squares = target.squares(at)
    if not squares:
        return []
    near = [e for e in enemies(state, target) if e.position is not None
            and distance(squares, e.squares()) <= 1]
    sides = {_side_of(squares, e.squares()) for e in near}
    return [e.id for e in near] if len(near) >= 2 and len(sides) >= 2 else []


__all__ = ["RULINGS", "agility", "ap_costs", "capacity", "climb_speed", "creature",
           "defense_bonus", "distance", "enemies", "evasion", "flag", "flankers", "fly_speed",
           "half", "jump_ds", "jump_limits", "lowered", "modifier", "needs_arms", "position",
           "reduce_with_floor", "size_order", "skill_bonus", "speed", "speed_type", "succeeds",
           "swim_speed"]
