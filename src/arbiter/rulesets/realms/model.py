"""Stat blocks and content of the realms ruleset (seed 003): creatures, sizes, gear, conditions.

Base values are stored on the creature; effective numbers (Speed, Evasion, bonuses) are
derived in ``rules.py`` by folding the conditions of the catalogue (``conditions.toml``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ...core import Entity
from ...core.content import read_content
from ...core.copying import share_in_scratch
from ...core.rulings import RulingSet

HERE = Path(__file__).parent
AP_PER_TURN = 4  # R-AP-1, R-CMP-7
UNREDUCED_BY_ARMOR = frozenset({"psychic", "spiritual", "sonic"})  # R-ARM-1


@cache
def load_toml(name: str) -> dict[str, Any]:
    """A data file of this package, parsed once."""
    return read_content(HERE / name)


@dataclass(frozen=True, slots=True)
class Size:
    """A size category (R-SIZ-1): its order, height, spaces, footprint and carry factor."""

    name: str
    order: int
    height_cm: int
    spaces: int
    carry: int
    footprint: tuple[tuple[int, int], ...]


@cache
def sizes() -> dict[str, Size]:
    out = {}
    for order, raw in enumerate(load_toml("sizes.toml")["size"]):
        out[raw["name"]] = Size(raw["name"], order, int(raw["height_cm"]), int(raw["spaces"]),
                                int(raw["carry"]),
                                tuple((int(x), int(y)) for x, y in raw["footprint"]))
    return out


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


def conditions_catalogue() -> dict[str, dict[str, Any]]:
    return load_toml("conditions.toml")


@cache
def rulings() -> RulingSet:
    """The rulings of realms (``rulings.toml``), loaded once: the ruleset's own
    ``rulings`` and the pure functions of ``commands.py`` and ``damage.py`` read every ruling
    through it (``value``, ``chosen``), never with a default of their own."""
    return RulingSet.load(HERE / "rulings.toml")


@dataclass
class RealmsCreature(Entity):
    """A realms creature or character: the stat block and its tracked state."""

    creature_level: int = 1  # the stat block's `level` (Entity.level() is a condition's)
    health_max: int = 10
    health: int = 10
    energy_max: int = 0
    energy: int = 0
    strength: int = 0
    agility: int = 0
    vitality: int = 0
    evasion: int = 10
    defenses: dict[str, int] = field(default_factory=dict)
    skills: dict[str, int] = field(default_factory=dict)
    proficient: list[str] = field(default_factory=list)
    attack: int = 0
    damage_bonus: int = 0
    power_bonus: int = 0
    initiative_bonus: int = 0
    weapon: str = "unarmed"
    weapon_range: str = "melee"
    weapon_arms: bool = True  # the arms wield it (weapons.toml `arms`; R-C-RES, RLM-7)
    damage: list[dict[str, Any]] = field(default_factory=list)
    armor: dict[str, Any] = field(default_factory=dict)
    shield: dict[str, Any] = field(default_factory=dict)
    resist: list[str] = field(default_factory=list)
    vulnerable: list[str] = field(default_factory=list)
    immune: list[str] = field(default_factory=list)
    reductions: list[dict[str, Any]] = field(default_factory=list)
    size: str = "medium"
    weight: int = 70
    load: int = 0
    climb_speed: int | None = None
    swim_speed: int | None = None
    fly_speed: int | None = None
    flying: bool = False
    altitude: int = 0
    position: list[int] | None = None
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
    dr_uses: dict[str, int] = field(default_factory=dict)
    shield_uses: int = 0
    stun_taken: int = 0
    """The highest Stunned level whose AP are already taken since the creature last gained
    AP: a stun given again, by the same or another source, takes only what it adds
    (R-C-STU, R-CON-4: levels never combine)."""
    over_time_seen: list[str] = field(default_factory=list)

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

    def squares(self, at: list[int] | None = None) -> list[tuple[int, int]]:
        """The squares the creature occupies when standing at ``at`` (default: its position)."""
        where = at if at is not None else self.position
        if where is None:
            return []
        return [(where[0] + dx, where[1] + dy) for dx, dy in self.size_info.footprint]


__all__ = ["AP_PER_TURN", "RealmsCreature", "Size", "conditions_catalogue", "load_toml",
           "rulings", "size_for", "sizes"]


SHARED_IN_SCRATCH = frozenset({
    "defenses", "skills", "proficient", "damage", "armor", "shield", "resist", "vulnerable",
    "immune", "reductions", "dr_uses", "position", "tags", "stats", "over_time_seen"})
"""RealmsCreature fields that realms' ``apply_*`` methods only ever replace (``position``,
``dr_uses``, ``over_time_seen``) or never change (the stat block): a lookahead scratch copy
shares them."""
COPIED_IN_SCRATCH = frozenset({"conditions"})
"""The conditions list changes (one is added or removed) but its Conditions never do: a
level changes by a new Condition (``rules._set_level``), so a scratch copy copies the list
and shares the Conditions."""

share_in_scratch(RealmsCreature, SHARED_IN_SCRATCH, COPIED_IN_SCRATCH)
