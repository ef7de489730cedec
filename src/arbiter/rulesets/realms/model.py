"""Stat blocks and content of the realms ruleset (seed 003): creatures, sizes, gear,
conditions, AP costs, and the numbers derived from them (pure functions of the state).

Base values are stored on the creature; effective numbers (Speed, Evasion, bonuses) are
derived here by folding the conditions of the catalogue (``conditions.toml``). Everything
here reads; nothing writes. Rulings are read through the one RulingSet of realms
(``RULINGS``), never with a default here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Condition, EncounterState, Entity, InvalidCommand
from ...core.conditions import ConditionSpec, load_conditions
from ...core.conditions import amount as _modifier
from ...core.content import frozen, read_content
from ...core.copying import COPIED, SHARED
from ...core.model import entity_at
from ...core.rounding import half_round_down, half_round_up
from ...core.rulings import RulingSet

HERE = Path(__file__).parent
AP_PER_TURN = 4  # R-AP-1, R-CMP-7
UNREDUCED_BY_ARMOR = frozenset({"psychic", "spiritual", "sonic"})  # R-ARM-1


@cache
def load_toml(name: str) -> Mapping[str, Any]:
    """A data file of this package, parsed once (read-only)."""
    return frozen(read_content(HERE / name))  # type: ignore[no-any-return]


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Size:
    """A size category (R-SIZ-1): its order, height, spaces, footprint and carry factor."""

    name: str
    order: int
    height_cm: int
    spaces: int
    carry: int
    footprint: tuple[tuple[int, int], ...]
    box: tuple[int, int, int, int] | None = None
    """The footprint's corners (least x, least y, greatest x, greatest y) when it fills that
    rectangle (every size in sizes.toml does), so that distances need no list of squares."""


def _box(footprint: tuple[tuple[int, int], ...]) -> tuple[int, int, int, int] | None:
    if not footprint:
        return None
    xs, ys = [x for x, _ in footprint], [y for _, y in footprint]
    x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
    full = len(set(footprint)) == (x1 - x0 + 1) * (y1 - y0 + 1)
    return (x0, y0, x1, y1) if full else None


Squares = tuple[tuple[int, int], ...]
_SQUARES: dict[tuple[str, int, int], Squares] = {}
"""A creature's squares by its size and where it stands (``RealmsCreature.squares``: asked
for every creature at every step of a move), bounded by :data:`_SQUARES_KEPT`."""
_SQUARES_KEPT = 1 << 16


@cache
def sizes() -> Mapping[str, Size]:
    out = {}
    for order, raw in enumerate(load_toml("sizes.toml")["size"]):
        footprint = tuple((int(x), int(y)) for x, y in raw["footprint"])
        out[raw["name"]] = Size(raw["name"], order, int(raw["height_cm"]), int(raw["spaces"]),
                                int(raw["carry"]), footprint, _box(footprint))
    return MappingProxyType(out)


def size_for(height_cm: int, length_cm: int = 0) -> str:
    """The size category of a creature from its height or, if larger, its length (R-SIZ-2).

    >>> size_for(150, 250)
    'large'
    """
    tallest = max(height_cm, length_cm)
    for size in sizes().values():
        if tallest <= size.height_cm:
            return size.name
    return list(sizes())[-1]


@cache
def conditions_catalogue() -> Mapping[str, ConditionSpec]:
    """The conditions of ``conditions.toml`` (the one schema, ``core/conditions.py``),
    validated and read once, read-only: what each changes, as numbers and flags."""
    return load_conditions(HERE / "conditions.toml").condition


@cache
def rulings() -> RulingSet:
    """The rulings of realms (``rulings.toml``), loaded once: the ruleset's own
    ``rulings`` and the pure functions of ``model.py`` and ``pipeline.py`` read every ruling
    through it (``value``, ``chosen``), never with a default of their own."""
    return RulingSet.load(HERE / "rulings.toml")


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass
class RealmsCreature(Entity):
    """A realms creature or character: the stat block and its tracked state."""

    # metadata=SHARED: a field the apply_* methods only ever replace (``position``,
    # ``dr_uses``, ``over_time_seen``) or never change (the stat block); a lookahead's
    # scratch copy shares it with the original. metadata=COPIED: the conditions list changes
    # (one is added or removed), its Conditions never (a level changes by a new Condition,
    # ``conditions.set_level``); a scratch copy copies the list and shares them
    # (core/copying.py; tests/core/test_purity.py plays every scenario with the guard on).
    tags: set[str] = field(default_factory=set, metadata=SHARED)
    stats: dict[str, int] = field(default_factory=dict, metadata=SHARED)
    conditions: list[Condition] = field(default_factory=list, metadata=COPIED)

    creature_level: int = 1  # the stat block's `level` (Entity.level() is a condition's)
    health_max: int = 10
    health: int = 10
    energy_max: int = 0
    energy: int = 0
    strength: int = 0
    agility: int = 0
    vitality: int = 0
    evasion: int = 10
    defenses: dict[str, int] = field(default_factory=dict, metadata=SHARED)
    skills: dict[str, int] = field(default_factory=dict, metadata=SHARED)
    proficient: list[str] = field(default_factory=list, metadata=SHARED)
    attack: int = 0
    damage_bonus: int = 0
    power_bonus: int = 0
    initiative_bonus: int = 0
    weapon: str = "unarmed"
    weapon_range: str = "melee"
    weapon_arms: bool = True  # the arms wield it (weapons.toml `arms`; R-C-RES, RLM-7)
    weapon_reach: int = 1  # spaces a melee weapon reaches (weapons.toml `reach`; RLM-11)
    damage: list[dict[str, Any]] = field(default_factory=list, metadata=SHARED)
    armor: dict[str, Any] = field(default_factory=dict, metadata=SHARED)
    shield: dict[str, Any] = field(default_factory=dict, metadata=SHARED)
    resist: list[str] = field(default_factory=list, metadata=SHARED)
    vulnerable: list[str] = field(default_factory=list, metadata=SHARED)
    immune: list[str] = field(default_factory=list, metadata=SHARED)
    reductions: list[dict[str, Any]] = field(default_factory=list, metadata=SHARED)
    size: str = "medium"
    weight: int = 70
    load: int = 0
    climb_speed: int | None = None
    swim_speed: int | None = None
    fly_speed: int | None = None
    flying: bool = False
    altitude: int = 0
    position: list[int] | None = field(default=None, metadata=SHARED)
    companion_of: str | None = None
    summoned: bool = False
    mountable: bool = False
    willing: bool = True
    saddled: bool = False
    mounted_on: str | None = None
    # tracked state
    ap: int = AP_PER_TURN
    dying_turns: int = 0
    stabilized: bool = False
    dead: bool = False
    unsummoned: bool = False
    commanded: bool = False
    controls_mount: bool = False
    armor_uses: int = 0
    dr_uses: dict[str, int] = field(default_factory=dict, metadata=SHARED)
    shield_uses: int = 0
    stun_taken: int = 0
    """The highest Stunned level whose AP are already taken since the creature last gained
    AP: a stun given again, by the same or another source, takes only what it adds
    (R-C-STU, R-CON-4: levels never combine)."""
    over_time_seen: list[str] = field(default_factory=list, metadata=SHARED)

    @property
    def companion(self) -> bool:
        return self.companion_of is not None

    @property
    def dying(self) -> bool:
        return self.has("dying")

    @property
    def down(self) -> bool:
        """Out of the fight: dead, unsummoned or Dying."""
        return self.dead or self.unsummoned or self.dying

    @property
    def overheal(self) -> int:
        """Health above the maximum (R-OVH-1)."""
        return max(self.health - self.health_max, 0)

    @property
    def terminal(self) -> bool:
        """At or below a quarter of maximum Health (R-C-TER, AR-37: 4 x HP <= max)."""
        return 4 * self.health <= self.health_max

    @property
    def size_info(self) -> Size:
        return sizes()[self.size]

    @property
    def spaces(self) -> int:
        return self.size_info.spaces

    def squares(self, at: list[int] | None = None) -> Squares:
        """The squares the creature occupies when standing at ``at`` (default: its position).

        >>> RealmsCreature("ogre", size="huge", position=[3, 4]).squares()
        ((3, 4), (4, 4), (3, 5), (4, 5))
        """
        where = at if at is not None else self.position
        if where is None:
            return ()
        key = (self.size, where[0], where[1])
        found = _SQUARES.get(key)
        if found is None:
            if len(_SQUARES) >= _SQUARES_KEPT:
                _SQUARES.clear()
            found = tuple((where[0] + dx, where[1] + dy) for dx, dy in self.size_info.footprint)
            _SQUARES[key] = found
        return found


RULINGS = rulings()
"""The one RulingSet of realms, for the pure functions here and in ``pipeline.py``."""
STAT_KEYS = {
    "level", "health", "energy", "strength", "agility", "vitality", "evasion", "defenses",
    "skills", "proficient", "attack", "damage_bonus", "power_bonus", "initiative", "weapon",
    "armor", "shield", "resist", "vulnerable", "immune", "reductions", "size", "weight", "load",
    "climb_speed", "swim_speed", "fly_speed", "flying", "altitude", "position", "companion_of",
    "summoned", "mountable", "willing", "saddled", "height_cm", "length_cm",
    "health_now", "energy_now",
}
ROUND_HALVES = 2  # movement is counted in half spaces: a diagonal costs 3 (R-MOV-3)
DEFENSES = ("might", "reflex")
"""The Defenses a creature has and a roll or an attack may name (seed 003: "a relevant
Defense, such as using Might to Overcome the Restrained Condition"; Faint: "-1 to Evasion,
Might, Reflex"). Evasion is apart: an attack is against it or a Defense score (10 + the
defense). A stat block's ``defenses`` name only these."""
BASE_DS = 10
"""The Difficulty Score of a roll the game master gives none for: the seed's base DS
("a base Difficulty Score of 10", R-JMP-2; "a Difficulty Score of 10 for calm waters",
R-SWM-1). The excerpt's "Overcoming Scores" rankings are outside it; the GM sets any other."""
SITUATIONAL = 10
"""The largest situational modifier the game master gives a roll, either way: twice the
largest the rules name (Completely Obscured, 5: RLM-4), so that two situations may add up."""
MAX_DS = 99
"""The highest Difficulty Score (or Stealth or Hide Score) a command may give."""
JUMP_SKILLS = ("athletics", "acrobatics")
"""What a jump beyond the limit rolls (R-JMP-2: "an Athletics or Acrobatics Skill roll")."""
SWIM_SKILLS = ("acrobatics", "athletics")
"""What swimming rolls (R-SWM-1: "an Acrobatics or Athletics (Vitality) Skill roll")."""


def damage_types() -> tuple[str, ...]:
    """The damage types the realms data names, sorted: its weapons' (``weapons.toml``), those
    its armor resists or is vulnerable to (``armor.toml``) and those armor does not reduce
    (R-ARM-1). A stat block may name others (an inline weapon, ``immune: [poison]``)."""
    names = set(UNREDUCED_BY_ARMOR)
    for weapon in load_toml("weapons.toml").values():
        if isinstance(weapon, Mapping):
            names.update(str(part["type"]) for part in weapon.get("damage", []))
    for armor in load_toml("armor.toml").values():
        if isinstance(armor, Mapping):
            names.update(str(t) for key in ("resist", "vulnerable") for t in armor.get(key, []))
    return tuple(sorted(names))


def load_gear(table: str, value: Any, owner: str) -> dict[str, Any]:
    """A weapon, armor or shield: a name from its data file, or an inline mapping."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    data = load_toml(f"{table}.toml")
    if str(value) not in data:
        raise InvalidCommand(f"{owner}: no {table[:-1] if table != 'armor' else table} "
                             f"{value!r} (known: {', '.join(sorted(data))})")
    return {"name": str(value), **data[str(value)]}


MAX_REACH = 10
"""The most spaces a weapon's ``reach`` may give (weapons.toml, an inline weapon)."""


def weapon_reach(gear: Mapping[str, Any], owner: str) -> int:
    """The spaces a melee weapon reaches (``reach`` in weapons.toml; RLM-11): 1 unless the
    weapon says more."""
    value = gear.get("reach", 1)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REACH:
        raise InvalidCommand(f"{owner}: a weapon's reach is a whole number of spaces "
                             f"1..{MAX_REACH}, not {value!r}")
    return value


def spaces_between(a: RealmsCreature, b: RealmsCreature) -> int | None:
    """Spaces between the nearest squares of two creatures' footprints (R-SIZ-1: a large
    creature fills several; 1 when adjacent, 0 when they overlap), or ``None`` when either
    is off the map."""
    at, bt = a.position, b.position
    if at is None or bt is None:
        return None
    mine, theirs = a.size_info.footprint, b.size_info.footprint
    if not mine or not theirs:
        return None
    if len(mine) == 1 and len(theirs) == 1:  # one square each (most creatures): no lists
        (ax, ay), (bx, by) = mine[0], theirs[0]
        return max(abs(at[0] + ax - bt[0] - bx), abs(at[1] + ay - bt[1] - by))
    ba, bb = a.size_info.box, b.size_info.box
    if ba is not None and bb is not None:  # two rectangles: the gap along each axis
        gap_x = max(bt[0] + bb[0] - at[0] - ba[2], at[0] + ba[0] - bt[0] - bb[2], 0)
        gap_y = max(bt[1] + bb[1] - at[1] - ba[3], at[1] + ba[1] - bt[1] - bb[3], 0)
        return max(gap_x, gap_y)
    return min(max(abs(x1 - x2), abs(y1 - y2))
               for x1, y1 in a.squares() for x2, y2 in b.squares())


def parse_dice(expr: str, owner: str) -> tuple[int, int]:
    count, _, faces = expr.lower().partition("d")
    if not faces.isdigit() or not (count or "1").isdigit():
        raise InvalidCommand(f"{owner}: damage dice are written NdX, not {expr!r}")
    return int(count or "1"), int(faces)


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


def modifier(creature: RealmsCreature, key: str) -> int:
    """The sum of one kind of modifier over a creature's conditions (conditions.toml)."""
    if not creature.conditions:
        return 0
    catalogue = conditions_catalogue()
    total = 0
    for cond in creature.conditions:
        entry = catalogue.get(cond.name)
        spec = entry.modifiers.get(key) if entry is not None else None
        if spec is not None:
            total += _modifier(spec, cond.level)
    return total


def flag(creature: RealmsCreature, key: str) -> str | None:
    """The name of the first condition that sets a flag (``no_reactions``...), if any."""
    if not creature.conditions:
        return None
    found = flagged(creature, key)
    return None if found is None else found.name


def flagged(creature: RealmsCreature, key: str) -> Condition | None:
    """The first of a creature's conditions that sets a flag (``hidden``, ``fear``...), if
    any: the rules find a condition by what conditions.toml says it does, not by name."""
    if not creature.conditions:
        return None
    catalogue = conditions_catalogue()
    for cond in creature.conditions:
        entry = catalogue.get(cond.name)
        if entry is not None and key in entry.flags:
            return cond
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
    if name in creature.defenses or name in DEFENSES:
        return defense_bonus(creature, name)
    return creature.skills.get(name, 0) + modifier(creature, "bonuses")


def best_skill(creature: RealmsCreature, names: tuple[str, ...]) -> str:
    """The skill of ``names`` with the highest bonus (the first of equals)."""
    best = names[0]
    for name in names[1:]:
        if skill_bonus(creature, name) > skill_bonus(creature, best):
            best = name
    return best


def agility(state: EncounterState, creature: RealmsCreature) -> int:
    """Agility after armor's penalty (R-ARM-9) and, under AR-23 agility-too, Exhaustion."""
    value = creature.agility - int(creature.armor.get("agility_penalty", 0))
    if RULINGS.chosen(state.rulings, "AR-23", "agility-too"):
        value += modifier(creature, "bonuses")  # Exhausted's -level to all bonuses
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
        entry = catalogue.get(cond.name)
        if entry is None or "speed" not in entry.modifiers or (
                every_type and "every_speed_type" not in entry.flags):
            continue
        amount = -_modifier(entry.modifiers["speed"], cond.level)
        if "floor_one" in entry.flags:
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


def ap_costs(state: EncounterState) -> Mapping[str, int]:
    """The AP cost of each action under ruling RLM-3."""
    table: Mapping[str, Mapping[str, int]] = load_toml("actions.toml")
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
    entity = entity_at(state.entities, name)
    if type(entity) is RealmsCreature:
        return entity
    return state.entity_of(name, RealmsCreature)


def size_order(creature: RealmsCreature) -> int:
    return sizes()[creature.size].order


def out_of_fight(state: EncounterState, entity: Entity) -> bool:
    """Out of the fight: a creature dead, unsummoned or Dying (R-DTH-1, R-CMP-*, R-DY-1),
    in one loop (the simulator asks after every command): the one answer, which is
    ``TurnRules.is_down`` itself and which the simulator's realms tactics call."""
    if not isinstance(entity, RealmsCreature):
        return False
    if entity.dead or entity.unsummoned:
        return True
    for cond in entity.conditions:  # noqa: SIM110 - a loop: this runs for every command
        if cond.name == "dying":
            return True
    return False


__all__ = [
    "AP_PER_TURN",
    "ROUND_HALVES",
    "RULINGS",
    "STAT_KEYS",
    "RealmsCreature",
    "Size",
    "agility",
    "ap_costs",
    "capacity",
    "climb_speed",
    "conditions_catalogue",
    "creature",
    "defense_bonus",
    "evasion",
    "flag",
    "fly_speed",
    "half",
    "jump_ds",
    "jump_limits",
    "load_gear",
    "load_toml",
    "lowered",
    "modifier",
    "needs_arms",
    "out_of_fight",
    "parse_dice",
    "reduce_with_floor",
    "rulings",
    "size_for",
    "size_order",
    "sizes",
    "skill_bonus",
    "spaces_between",
    "speed",
    "speed_type",
    "succeeds",
    "swim_speed",
    "weapon_reach",
]
