"""Stat blocks, weapons and the geometry of the zones ruleset (seed 002, "Back in Combat").

A creature stands in a **zone**, in a **group**; groups that are engaged with each other share
an **engagement**. Range bands are engagement, short, medium and long; altitude (for flyers)
is counted on the same scale, 0 being the ground.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Condition,
    EncounterState,
    Entity,
    IllegalCommand,
    InvalidCommand,
    RulingSet,
)
from ...core.conditions import ConditionSpec, load_conditions
from ...core.content import frozen, read_content, thawed
from ...core.copying import COPIED, SHARED, clone, share_extra_in_scratch

HERE = Path(__file__).parent

RANGE_BANDS = ("engagement", "short", "medium", "long")
"""Range bands, nearest first. Their index + 1 is the distance on the altitude scale."""

ALTITUDE = {"ground": 0, "engagement": 1, "short": 2, "medium": 3, "long": 4}
STATS = ("DEX", "STR", "SPD", "WGT")
DAMAGE_TYPES = ("kinetic", "energy", "mixed")
"""The damage types a weapon lists (``weapons.toml``): energy's drive equals its damage
(Z-EAO-2); mixed is partly energy (ruling AZ-14)."""
HEAVY_WGT = 25
"""Creatures of at least this WGT: no cover but improved (Z-COV-11), always high (Z-ZAO-8)."""

RULINGS = RulingSet.load(HERE / "rulings.toml")
"""The zones rulings, loaded once (the ruleset's ``rulings`` is this object). ``rulings.toml``
is the only place a default is written: the ruleset reads a ruling with ``ruling`` /
``ruling_is``, a module function with ``RULINGS.value(chosen, id)`` /
``RULINGS.chosen(chosen, id, choice)``, where ``chosen`` is ``state.rulings``."""


def band_distance(band: str) -> int:
    """A range band as a distance on the altitude scale: engagement 1 ... long 4."""
    return RANGE_BANDS.index(band) + 1


@dataclass(frozen=True, slots=True)
class Effect:
    """Damage and drive of one effect (impact, area, high or low)."""

    damage: int
    drive: int

    def to_json(self) -> dict[str, int]:
        return {"damage": self.damage, "drive": self.drive}


def effect_of(spec: Mapping[str, Any], energy: bool, key: str) -> Effect | None:
    """A weapon's alternative effect (``spec[key]``: damage and drive), or ``None``; an
    energy weapon's drive is its damage."""
    raw = spec.get(key)
    if raw is None:
        return None
    damage = int(raw["damage"])
    return Effect(damage, damage if energy else int(raw.get("drive", 0)))


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon (or weapon-equivalent Ability), from ``weapons.toml`` or a stat block."""

    name: str
    kind: str = "ranged"
    type: str = "kinetic"
    damage: int = 0
    drive: int = 0
    offense: dict[str, str] = field(default_factory=dict)
    hands: int = 2
    tags: tuple[str, ...] = ()
    ability: bool = False
    full_auto_damage: int | None = None
    ammo_per_shot: int = 1
    aoe: str | None = None
    impact: Effect | None = None
    area: Effect | None = None
    zaoe: dict[str, str] | None = None
    high: Effect | None = None
    low: Effect | None = None
    effect: str | None = None
    beneficial: bool = False
    str_requirement: int | None = None
    one_handed_str: int | None = None
    str_drive: bool = False
    offense_stat: str = "DEX"
    powerful: bool = False
    aoe_fractions: dict[str, str] = field(default_factory=dict)
    aoe_types: tuple[str, ...] = ()

    @property
    def energy(self) -> bool:
        """Entirely energy damage: its drive equals its damage (Z-EAO-2)."""
        return self.type == "energy"

    @property
    def throwing(self) -> bool:
        return "Throwing" in self.tags

    @property
    def normal(self) -> Effect:
        return Effect(self.damage, self.damage if self.energy else self.drive)

    def requirement(self) -> int:
        """The STR needed to throw it (Z-THR-3): listed, or the one-handed requirement."""
        if self.str_requirement is not None:
            return self.str_requirement
        return self.one_handed_str or 0

    @classmethod
    def from_spec(cls, name: str, spec: Mapping[str, Any]) -> Weapon:
        known = set(cls.__dataclass_fields__) - {"name"}
        unknown = set(spec) - known
        if unknown:
            raise InvalidCommand(
                f"weapon {name}: unknown key(s) {', '.join(sorted(unknown))} "
                f"(known: {', '.join(sorted(known))})"
            )
        energy = spec.get("type") == "energy"
        kind = str(spec.get("kind", "ranged"))
        if kind not in ("ranged", "thrown", "melee"):
            raise InvalidCommand(f"weapon {name}: kind must be ranged, thrown or melee")
        aoe = spec.get("aoe")
        if aoe not in (None, "burst", "spray", "both"):
            raise InvalidCommand(f"weapon {name}: aoe must be burst, spray or both")
        return cls(
            name=name,
            kind=kind,
            type=str(spec.get("type", "kinetic")),
            damage=int(spec.get("damage", 0)),
            drive=int(spec.get("drive", 0)),
            offense={str(k): str(v) for k, v in dict(spec.get("offense", {})).items()},
            hands=int(spec.get("hands", 2)),
            tags=tuple(spec.get("tags", ())),
            ability=bool(spec.get("ability", False)),
            full_auto_damage=(None if spec.get("full_auto_damage") is None
                              else int(spec["full_auto_damage"])),
            ammo_per_shot=int(spec.get("ammo_per_shot", 1)),
            aoe=aoe,
            impact=effect_of(spec, energy, "impact"),
            area=effect_of(spec, energy, "area"),
            zaoe=None if spec.get("zaoe") is None else {
                str(k): str(v) for k, v in dict(spec["zaoe"]).items()},
            high=effect_of(spec, energy, "high"),
            low=effect_of(spec, energy, "low"),
            effect=spec.get("effect"),
            beneficial=bool(spec.get("beneficial", False)),
            str_requirement=(None if spec.get("str_requirement") is None
                             else int(spec["str_requirement"])),
            one_handed_str=(None if spec.get("one_handed_str") is None
                            else int(spec["one_handed_str"])),
            str_drive=bool(spec.get("str_drive", False)),
            offense_stat=str(spec.get("offense_stat", "DEX")),
            powerful=bool(spec.get("powerful", False)),
            aoe_fractions={str(k): str(v) for k, v in dict(spec.get("aoe_fractions", {})).items()},
            aoe_types=tuple(spec.get("aoe_types", ())),
        )


_WEAPONS: dict[tuple[str, int], tuple[dict[str, Any], dict[str, Any], Weapon]] = {}
"""Weapons built from their specs, by name and the spec's identity, with the spec (which
keeps that identity in use) and a copy of its content: a creature's weapon is asked for on
every attack and every tactics probe, and a Weapon is frozen (never changed). An override
may change a spec in place, so the content is compared before a cached Weapon is used."""
_WEAPONS_BY_CONTENT: dict[tuple[str, str], Weapon] = {}
"""Weapons by name and the spec's text, for a spec not seen before: each copy of a state
(each simulated run, say) has new specs of the same content."""


@cache
def catalogue() -> Mapping[str, Mapping[str, Any]]:
    """The weapon catalogue (``weapons.toml``) as raw specs by name (read-only)."""
    return frozen(read_content(HERE / "weapons.toml"))  # type: ignore[no-any-return]


@cache
def cover_chart() -> Mapping[str, int]:
    """Cover armor bonus by environment (``cover.toml``; ruling AZ-10)."""
    chart = read_content(HERE / "cover.toml")["environment"]
    return MappingProxyType({str(k): int(v) for k, v in chart.items()})


@cache
def injury_table() -> tuple[tuple[int, str], ...]:
    """The placeholder injury-type table (``injuries.toml``; ruling ZR-5)."""
    table = read_content(HERE / "injuries.toml")["range"]
    return tuple((int(r["upto"]), str(r["type"])) for r in table)


def injury_type(roll: int) -> str:
    for upto, name in injury_table():
        if roll <= upto:
            return name
    return injury_table()[-1][1]


@cache
def condition_catalogue() -> Mapping[str, ConditionSpec]:
    """The conditions of ``conditions.toml`` (the one schema, ``core/conditions.py``),
    validated and read once, read-only."""
    return load_conditions(HERE / "conditions.toml").condition


def unlisted_condition(name: str, listed: Iterable[str], ruleset: str) -> str:
    """The refusal of a condition name ``conditions.toml`` does not list (a typo, unless the
    GM gives it on purpose with ``custom: true``): the names it does list, nearest first."""
    key = name.casefold()
    nearest = sorted(listed, key=lambda n: (
        -difflib.SequenceMatcher(None, key, n.casefold()).ratio(), n))
    return (f"condition: no condition {name!r} in {ruleset}'s conditions.toml (listed, "
            f"nearest first: {', '.join(nearest)}); give custom: true to use a condition "
            "of your own")


def weapon_spec(name: str, override: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A weapon's spec: the catalogue entry (if any) with a stat block's keys on top."""
    base: dict[str, Any] = thawed(catalogue().get(name, {}))
    if not base and not override:
        raise InvalidCommand(
            f"no weapon named {name!r} (catalogue: {', '.join(sorted(catalogue()))})"
        )
    return {**base, **dict(override or {})}


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass
class Creature(Entity):
    """A creature (or vehicle) of the zones ruleset. Stats DEX, STR, SPD, WGT live in ``stats``."""

    # metadata=SHARED: a field the apply_* methods only ever replace (``ammo``, ``touching``,
    # ``flanking``, ``interference``) or never change (the stat block); a lookahead's
    # scratch copy shares it with the original. metadata=COPIED: the conditions list
    # changes (one is added or removed), its Conditions never; a scratch copy copies the
    # list and shares them (core/copying.py; tests/core/test_purity.py plays every scenario
    # with the guard on).
    tags: set[str] = field(default_factory=set, metadata=SHARED)
    stats: dict[str, int] = field(default_factory=dict, metadata=SHARED)
    conditions: list[Condition] = field(default_factory=list, metadata=COPIED)

    health_max: int = 1
    health: int = 1
    armor: int = 0
    shield: int = 0
    kinetic_shielding: int = 0
    weapons: dict[str, dict[str, Any]] = field(default_factory=dict, metadata=SHARED)
    competent: list[str] = field(default_factory=list, metadata=SHARED)
    skills: list[str] = field(default_factory=list, metadata=SHARED)
    ammo: dict[str, int] = field(default_factory=dict, metadata=SHARED)
    zone: str = "here"
    group: str = ""
    engagement: str = ""
    altitude: int = 0
    mount: str | None = None
    touching: list[str] = field(default_factory=list, metadata=SHARED)
    flanking: dict[str, Any] = field(default_factory=dict, metadata=SHARED)
    interference: list[str] = field(default_factory=list, metadata=SHARED)

    @property
    def down(self) -> bool:
        """Out of the fight: health at 0 or below, or marked ``down`` by the GM (ruling ZR-2).
        A plain loop rather than ``has``: asked of every creature many times a command."""
        if self.health <= 0:
            return True
        for cond in self.conditions:  # noqa: SIM110 - a loop, not any() over a generator
            if cond.name == "down":
                return True
        return False

    @property
    def vehicle(self) -> bool:
        return "vehicle" in self.tags

    @property
    def heavy(self) -> bool:
        """WGT 25 or more (Z-COV-11, Z-ZAO-8)."""
        return self.stat("WGT") >= HEAVY_WGT

    @property
    def flying(self) -> bool:
        return self.altitude > 0

    def weapon(self, name: str) -> Weapon:
        if name not in self.weapons:
            known = ", ".join(self.weapons) or "none"
            raise IllegalCommand(f"{self.id} has no weapon {name!r} (weapons: {known})")
        spec = self.weapons[name]
        key = (name, id(spec))
        cached = _WEAPONS.get(key)
        if cached is not None and cached[0] is spec and cached[1] == spec:
            return cached[2]
        content = (name, repr(spec))  # a copy of a spec seen before: the same Weapon
        weapon = _WEAPONS_BY_CONTENT.get(content)
        if weapon is None:
            weapon = Weapon.from_spec(name, spec)
            if len(_WEAPONS_BY_CONTENT) >= 4096:
                _WEAPONS_BY_CONTENT.clear()
            _WEAPONS_BY_CONTENT[content] = weapon
        if len(_WEAPONS) >= 4096:
            _WEAPONS.clear()
        _WEAPONS[key] = (spec, clone(spec), weapon)
        return weapon

    def is_competent(self, weapon: Weapon) -> bool:
        """Competent with the weapon; a thrown melee weapon needs the Throwing tag (Z-THR-1)."""
        return weapon.name in self.competent

    def grappling(self) -> str | None:
        """The creature this one is grappling with, if any."""
        cond = self.condition("grappling")
        return cond.source if cond is not None else None

    def cover(self) -> dict[str, Any] | None:
        cond = self.condition("cover")
        return dict(cond.data) if cond is not None else None


def creatures(state: EncounterState) -> list[Creature]:
    return [e for e in state.entities.values() if isinstance(e, Creature)]


def engaged(a: Creature, b: Creature) -> bool:
    return a.zone == b.zone and a.engagement == b.engagement


def allies(a: Creature, b: Creature) -> bool:
    return a.id == b.id or (a.side is not None and a.side == b.side)


def touch_forbidden(toucher: Creature, touched: Creature) -> bool:
    """Z-COV-3: a creature in cover cannot touch allies unless they are in cover too. Asked
    when a touch is made and whenever cover changes (a touch it forbids ends then)."""
    return toucher.has("cover") and allies(toucher, touched) and not touched.has("cover")


def zones(state: EncounterState) -> dict[str, dict[str, Any]]:
    """The zone map: id → {adjacent: [...], indoor: bool}."""
    out: dict[str, dict[str, Any]] = state.extra.get("zones", {})
    return out


def adjacent(state: EncounterState, zone: str) -> list[str]:
    return list(zones(state).get(zone, {}).get("adjacent", []))


def default_range(state: EncounterState, a: Creature, b: Creature) -> str:
    """The range band between two creatures when the GM gives none (ruling ZR-4)."""
    if engaged(a, b):
        return "engagement"
    if a.zone == b.zone:
        return "short"
    entry = zones(state).get(a.zone)  # adjacent(), without its copy: every shot asks
    if entry is not None and b.zone in entry.get("adjacent", ()):
        return "medium"
    return "long"


def engagements_in(state: EncounterState, zone: str) -> list[str]:
    """The separate groups/engagements in a zone, in the order creatures were added."""
    out: list[str] = []
    for c in creatures(state):
        if c.zone == zone and not c.down and c.engagement not in out:
            out.append(c.engagement)
    return out


def counts_for_group_defense(creature: Creature) -> bool:
    """A creature in cover defends nobody by group defense (Z-COV-9)."""
    return not creature.down and not (creature.conditions and creature.has("cover"))


def group_mates(state: EncounterState, creature: Creature) -> list[Creature]:
    """The other creatures standing in a creature's group (grouped up with it)."""
    return [c for c in creatures(state) if c.group == creature.group and c.zone == creature.zone
            and c.id != creature.id and not c.down]


def group_defenders(state: EncounterState, creature: Creature) -> list[Creature]:
    """The group-mates who can defend a creature by group defense: not those in cover
    (Z-COV-9)."""
    return [c for c in group_mates(state, creature) if counts_for_group_defense(c)]


def outnumbering(state: EncounterState, group: str) -> int:
    """Creatures of a group counted for outnumbering dice: not those in cover (Z-COV-9)."""
    return sum(1 for c in creatures(state) if c.group == group and counts_for_group_defense(c))


def outnumbering_counts(state: EncounterState, actor: Creature, target: Creature) -> dict[str, int]:
    """The creatures of the attacker's and the defender's groups counted for outnumbering
    dice, not those in cover (Z-COV-9); the dice themselves are outside the excerpt (ZR-8).
    Both counts of :func:`outnumbering` in one pass over the creatures (every melee attack
    asks)."""
    mine, theirs = actor.group, target.group
    attackers = defenders = 0
    for c in state.entities.values():
        if not isinstance(c, Creature):
            continue
        group = c.group
        # standing and without conditions: counted (counts_for_group_defense, unasked)
        if group in (mine, theirs) and ((c.health > 0 and not c.conditions)
                                        or counts_for_group_defense(c)):
            if group == mine:
                attackers += 1
            if group == theirs:
                defenders += 1
    return {"attackers": attackers, "defenders": defenders}


share_extra_in_scratch("zones", {"zones", "lights", "winner", "regions"})
"""The zone map, the lights, the winner and the zones' regions on the scene in
``state.extra`` are replaced whole by the apply methods (``apply_zone_set`` builds a new
map, ``apply_region_set`` new regions), never changed in place."""


@dataclass(slots=True)
class Shot:
    """A ranged attack, planned and checked before any die is rolled
    (:func:`.shots.plan_shot`)."""

    actor: Creature
    weapon: Weapon
    targets: list[Creature]
    band: str
    competent: bool
    unaimed: bool
    blind: bool
    thrown: bool
    one_handed: bool
    full_auto: bool
    expr: str
    on: str
    stat: int
    hindrance: dict[str, int]
    ammo_cost: int
    normal: Effect
    action: str
    aoe: str | None = None
    aoe_source: str | None = None
    impact: Effect | None = None
    area: Effect | None = None
    engagement: str | None = None
    zone: str = ""
    spread: list[str] = field(default_factory=list)
    caution: bool = False
    blinded: bool = False
    grapple_partner: bool = False
    engagements: tuple[str, ...] = ()
    used: dict[str, Any] | None = None
    """What spending its action gives (``ZonesBase.use``), when ``check`` worked it out
    for ``decide`` right after it (the same state: the same answer; callgrind on
    bench/sim.py's zones-4v4: 45.9M instructions per encounter spending it again, 45.5M
    kept)."""

    def __init__(self, actor: Creature, weapon: Weapon, targets: list[Creature], band: str,
                 competent: bool, unaimed: bool, blind: bool, thrown: bool, one_handed: bool,
                 full_auto: bool, expr: str, on: str, stat: int, hindrance: dict[str, int],
                 ammo_cost: int, normal: Effect, action: str, aoe: str | None = None,
                 aoe_source: str | None = None, impact: Effect | None = None,
                 area: Effect | None = None, engagement: str | None = None, zone: str = "",
                 spread: list[str] | None = None, caution: bool = False,
                 blinded: bool = False, grapple_partner: bool = False,
                 engagements: tuple[str, ...] = (),
                 used: dict[str, Any] | None = None) -> None:  # performance.md, 34
        self.actor = actor
        self.weapon = weapon
        self.targets = targets
        self.band = band
        self.competent = competent
        self.unaimed = unaimed
        self.blind = blind
        self.thrown = thrown
        self.one_handed = one_handed
        self.full_auto = full_auto
        self.expr = expr
        self.on = on
        self.stat = stat
        self.hindrance = hindrance
        self.ammo_cost = ammo_cost
        self.normal = normal
        self.action = action
        self.aoe = aoe
        self.aoe_source = aoe_source
        self.impact = impact
        self.area = area
        self.engagement = engagement
        self.zone = zone
        self.spread = [] if spread is None else spread
        self.caution = caution
        self.blinded = blinded
        self.grapple_partner = grapple_partner
        self.engagements = engagements
        self.used = used


MeleePlan = tuple[Creature, Creature, Weapon, dict[str, Any], dict[str, int], bool]
"""A melee attack, checked before any die is rolled (``Attacks._plan_melee``): the actor,
the target, the weapon, the event's data so far, the offense roll's Hindrance and whether
it needs no offense roll. A plain tuple: a named one is built by an interpreted function
(a Python frame for each melee, in the compiled build too)."""
