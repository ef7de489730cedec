"""Polemos stat blocks and state: creatures made of body areas, wounds, armor, the catalogues.

A creature (P-TGT-4) is a set of body areas with vitality, vital or not, and adjacency (from a
body plan in ``body_plans.yaml``); stamina (SP) and focus (FP) are creature-wide pools (AP-19).
Base values are stored; derived values (fatigue, P-FAT-1) are properties.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Condition, Entity, InvalidCommand
from ...core.conditions import ConditionSpec, load_conditions
from ...core.content import frozen, read_content
from ...core.copying import COPIED, SHARED
from ...core.invariants import CHECKING

HERE = Path(__file__).parent

MEASURES = ("vitality", "stamina", "focus")
"""Damage measures from most to least lethal; degrading moves one step right (P-DTY-4)."""

ROUNDS_PER = {
    "round": 1,
    "minute": 20,  # P-TIM-2: 60 seconds, or 20 rounds
    "hour": 20 * 60,  # P-TIM-2: 60 minutes
    "day": 20 * 60 * 24,  # P-TIM-2: 24 hours
    "week": 20 * 60 * 24 * 7,  # P-TIM-3: seven days
    "month": 20 * 60 * 24 * 28,  # P-TIM-3: four weeks, or 28 days
}
"""Time scales in rounds (P-TIM-1: a round is about three seconds). A year is 12 months
(P-TIM-3, 336 days) or 365 days, by ruling AP-30."""

SECONDS_PER_ROUND = 3  # P-TIM-1


def rounds_in(amount: int, unit: str, calendar: str = "literal-336") -> int:
    """``amount`` of ``unit`` in rounds (P-TIM-1..3, AP-30)."""
    unit = unit.rstrip("s") if unit.endswith("s") and unit != "s" else unit
    if unit == "year":
        days = 365 if calendar == "calendar-365" else 12 * 28  # AP-30
        return amount * days * ROUNDS_PER["day"]
    if unit == "second":
        return amount // SECONDS_PER_ROUND  # P-GEN-1: fractions round down
    if unit not in ROUNDS_PER:
        known = ", ".join([*ROUNDS_PER, "year", "second"])
        raise InvalidCommand(f"unknown time unit {unit!r} (units: {known})")
    return amount * ROUNDS_PER[unit]


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class DamageType:
    """A damage type with its measure: ``bashing`` (vitality), ``bashing (stamina)`` (P-DTY-3)."""

    base: str
    measure: str = "vitality"

    @classmethod
    def parse(cls, text: str) -> DamageType:
        """``bashing``, ``bashing (stamina)``: parsed once per text (a damage type is frozen,
        so one may be shared)."""
        return _parse_damage_type(text)

    def degraded(self) -> DamageType | None:
        """vitality → stamina → focus → nothing (P-DTY-4): one shared type for each (a
        damage type is frozen), not a new one each time armor degrades a hit."""
        return _degraded(self.base, self.measure)

    def __str__(self) -> str:
        return self.base if self.measure == "vitality" else f"{self.base} ({self.measure})"


@lru_cache(maxsize=256)
def _degraded(base: str, measure: str) -> DamageType | None:
    index = MEASURES.index(measure)
    if index + 1 >= len(MEASURES):
        return None
    return DamageType(base, MEASURES[index + 1])


@lru_cache(maxsize=256)
def _parse_damage_type(text: str) -> DamageType:
    text = text.strip()
    if text.endswith(")") and "(" in text:
        base, _, rest = text.partition("(")
        measure = rest[:-1].strip()
        if measure not in MEASURES[1:]:
            raise InvalidCommand(
                f"damage type {text!r}: the measure must be stamina or focus, not {measure!r}"
            )
        return DamageType(base.strip(), measure)
    if not text:
        raise InvalidCommand("a damage type needs a name, e.g. 'kinetic'")
    return DamageType(text)


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(slots=True)
class BodyArea:
    """One body area: vitality, its maximum, vital or not, and its adjacent areas."""

    vitality: int
    vitality_max: int
    vital: bool
    adjacent: list[str]

    def __init__(self, vitality: int, vitality_max: int, vital: bool,
                 adjacent: list[str]) -> None:  # performance.md, 34
        self.vitality = vitality
        self.vitality_max = vitality_max
        self.vital = vital
        self.adjacent = adjacent

    def with_vitality(self, vitality: int) -> BodyArea:
        """This area at ``vitality``, a new one (a map of areas is replaced, never changed in
        place: ``area_facts``); ``dataclasses.replace`` without its interpreted search of
        the fields, which ran for each area a hit changed."""
        return BodyArea(vitality, self.vitality_max, self.vital, self.adjacent)

    @property
    def minimum(self) -> int:
        """Minimum vitality: 1 for a non-vital area, 0 for a vital one (P-BLD-1, AP-9)."""
        return 0 if self.vital else 1


AreaFacts = tuple[bool, int, int]
"""Of a creature's body areas: whether a vital one is at 0 vitality or below, the lowest
vitality of a vital one (0 with none) and the total vitality."""

_AREA_FACTS: dict[int, tuple[dict[str, BodyArea], AreaFacts]] = {}


def area_facts(areas: dict[str, BodyArea]) -> AreaFacts:
    """:data:`AreaFacts` of ``areas`` (a ``Creature.areas``), remembered per map: a map of
    body areas is never changed once a creature is made, only replaced by a new one (the
    ``metadata=SHARED`` promise of ``Creature.areas``, which the copy-on-write lookahead
    already relies on and the scratch guard of ``tests/core/test_purity.py`` checks), so
    one map always has the same facts. The consequences of nearly every command and the
    simulator's tactic ask them of every creature."""
    key = id(areas)
    known = _AREA_FACTS.get(key)
    if known is not None and known[0] is areas:  # the map itself, not one that got its id
        if CHECKING.on and known[1] != _area_facts(areas):  # the promise, held in the tests
            raise AssertionError(
                "area_facts: a map of body areas was changed in place after its facts were "
                "kept (replace Creature.areas and the BodyArea changed, never set a "
                "vitality in place: core/paths.set_path copies, an apply_* must too)")
        return known[1]
    facts = _area_facts(areas)
    if len(_AREA_FACTS) >= 4096:  # the maps of a few fights; each entry keeps its map alive
        _AREA_FACTS.clear()
    _AREA_FACTS[key] = (areas, facts)
    return facts


def _area_facts(areas: dict[str, BodyArea]) -> AreaFacts:
    """:data:`AreaFacts` of ``areas``, worked out."""
    zero = False
    lowest: int | None = None
    total = 0
    for area in areas.values():
        vitality = area.vitality
        total += vitality
        if area.vital:
            if vitality <= 0:
                zero = True
            if lowest is None or vitality < lowest:
                lowest = vitality
    return (zero, 0 if lowest is None else lowest, total)


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(slots=True)
class Weapon:
    skill: str
    rating: int
    damage: dict[str, int]
    range: int = 1
    """Squares the weapon reaches (P-REQ-5: one square for hands and held items)."""

    def types(self) -> list[str]:
        return list(self.damage)


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(slots=True)
class ArmorPiece:
    """A piece of high-impact armor: areas covered, armor value, ratings per exact type."""

    name: str
    areas: list[str]
    value: int
    value_max: int
    ratings: dict[str, int]
    worn: bool = True

    def __init__(self, name: str, areas: list[str], value: int, value_max: int,
                 ratings: dict[str, int], worn: bool = True) -> None:  # performance.md, 34
        self.name = name
        self.areas = areas
        self.value = value
        self.value_max = value_max
        self.ratings = ratings
        self.worn = worn

    def with_value(self, value: int) -> ArmorPiece:
        """This piece at armor value ``value``, a new one (pieces are replaced, never
        changed in place: ``BodyArea.with_vitality``)."""
        return ArmorPiece(self.name, self.areas, value, self.value_max, self.ratings, self.worn)


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(slots=True)
class Wound:
    id: str
    name: str
    area: str | None = None
    tags: list[str] = field(default_factory=list)
    fatigue: int = 0
    level: int = 1
    known: bool = True
    cause: str | None = None
    received: int = 0
    max_days: int | None = None
    conditions: list[str] = field(default_factory=list)
    bleeding: int = 0
    """Bleeding damage per round it starts on its area (P-BLD-*), kept so that a wound that
    comes back (P-WND-8) bleeds again."""
    source: str | None = None
    """Who caused it (earns its bleeding's critical damage points, P-CDP-5)."""

    def __init__(self, id: str, name: str, area: str | None = None,
                 tags: list[str] | None = None, fatigue: int = 0, level: int = 1,
                 known: bool = True, cause: str | None = None, received: int = 0,
                 max_days: int | None = None, conditions: list[str] | None = None,
                 bleeding: int = 0, source: str | None = None) -> None:  # performance.md, 34
        self.id = id
        self.name = name
        self.area = area
        self.tags = [] if tags is None else tags
        self.fatigue = fatigue
        self.level = level
        self.known = known
        self.cause = cause
        self.received = received
        self.max_days = max_days
        self.conditions = [] if conditions is None else conditions
        self.bleeding = bleeding
        self.source = source

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


_WOUND_FIELDS = frozenset(item.name for item in fields(Wound))


def wound_of(data: Mapping[str, Any], bleeding: int, source: str | None) -> Wound:
    """The wound a ``wound_added`` event records (``Wound.to_json``), the event's
    ``bleeding`` and ``source`` standing in for a record written before it kept them: what
    ``Wound(**{"bleeding": bleeding, "source": source, **data})`` gives, without the call by
    keyword (each wound a hit gives). A record with a key no field has is refused as that
    call refuses it."""
    if type(data) is not dict or "id" not in data or "name" not in data \
            or not _WOUND_FIELDS.issuperset(data):
        return Wound(**{"bleeding": bleeding, "source": source, **data})
    r: dict[str, Any] = data  # a dict's own ``get``, compiled: no call by name
    return Wound(r["id"], r["name"], r.get("area"), r.get("tags"), r.get("fatigue", 0),
                 r.get("level", 1), r.get("known", True), r.get("cause"), r.get("received", 0),
                 r.get("max_days"), r.get("conditions"), r.get("bleeding", bleeding),
                 r.get("source", source))


@mypyc_attr(native_class=False)
@dataclass(slots=True)
class Affliction:
    id: str
    name: str
    area: str | None = None
    cause: str | None = None
    tags: list[str] = field(default_factory=list)
    wound: bool = False
    """It applies a wound of the same name (P-AFF-2), again whenever it comes back (P-AFF-3)."""

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@mypyc_attr(native_class=False)
@dataclass(slots=True)
class Bleed:
    """A bleeding condition: its origin, the areas it damages, and the areas it spread to
    that start taking damage on the next tick (P-BLD-1)."""

    id: str
    origin: str
    damage: int = 1
    areas: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass
class Creature(Entity):
    """A Polemos creature."""

    # metadata=SHARED: a field the apply_* methods only ever replace with a new value (a
    # body area's vitality, an armor piece's value, a wound's level, a bleed's areas: a new
    # dict or list holding new items, ``dataclasses.replace``) or never change (the stat
    # block); a lookahead's scratch copy shares it with the original. metadata=COPIED: the
    # conditions list changes in place (the kernel's ``apply_condition_added`` removes and
    # appends), its Conditions never; a scratch copy copies the list and shares them
    # (core/copying.py; tests/core/test_purity.py plays every scenario with the guard on).
    tags: set[str] = field(default_factory=set, metadata=SHARED)
    stats: dict[str, int] = field(default_factory=dict, metadata=SHARED)
    conditions: list[Condition] = field(default_factory=list, metadata=COPIED)

    skills: dict[str, int] = field(default_factory=dict, metadata=SHARED)
    body_plan: str = "human"
    areas: dict[str, BodyArea] = field(default_factory=dict, metadata=SHARED)
    sp: int = 10
    sp_max: int = 10
    fp: int = 10
    fp_max: int = 10
    stress: int = 0
    weapons: dict[str, Weapon] = field(default_factory=dict, metadata=SHARED)
    armor: list[ArmorPiece] = field(default_factory=list, metadata=SHARED)
    wounds: list[Wound] = field(default_factory=list, metadata=SHARED)
    afflictions: list[Affliction] = field(default_factory=list, metadata=SHARED)
    bleeding: list[Bleed] = field(default_factory=list, metadata=SHARED)
    critical_threshold: int = 3
    critical_points: int = 0
    critical_target: str | None = None
    critical_area: str | None = None
    attacks_received: int = 0
    down: bool = False
    used: list[str] = field(default_factory=list, metadata=SHARED)
    used_round: int = 0
    channel: dict[str, Any] | None = field(default=None, metadata=SHARED)
    location: str | None = None
    # part 2: the grid, targets, detection, attitude, networks, vehicles, spheres
    position: list[int] | None = field(default=None, metadata=SHARED)
    reach: int = 1
    speed: int = 5
    mp: int = 0
    mp_max: int = 0
    languages: dict[str, int] = field(default_factory=dict, metadata=SHARED)
    groups: list[str] = field(default_factory=list, metadata=SHARED)
    attitude: dict[str, int] = field(default_factory=dict, metadata=SHARED)
    gear: list[dict[str, Any]] = field(default_factory=list, metadata=SHARED)
    carried_by: str | None = None
    packed: bool = False
    locked: bool = False
    design: str | None = None
    installed_in: str | None = None
    pulling: str | None = None
    system: bool = False
    device: dict[str, Any] | None = field(default=None, metadata=SHARED)
    vehicle: dict[str, Any] | None = field(default=None, metadata=SHARED)
    sphere: str | None = None
    quadrant: str | None = None

    @property
    def fatigue(self) -> int:
        """The fatigue value: the fatigue points of all current wounds (P-FAT-1)."""
        return sum(w.fatigue for w in self.wounds)

    def skill(self, name: str) -> int:
        return self.skills.get(name, 0)

    def area(self, name: str) -> BodyArea:
        if name not in self.areas:
            raise InvalidCommand(
                f"{self.id} has no body area {name!r} (body areas: {', '.join(self.areas)})"
            )
        return self.areas[name]

    def wound(self, wound_id: str) -> Wound:
        for wound in self.wounds:
            if wound.id == wound_id:
                return wound
        shown = ", ".join(f"{w.id} ({w.name})" for w in self.wounds) or "none"
        raise InvalidCommand(f"{self.id} has no wound {wound_id!r} (wounds: {shown})")


# -- catalogues (data files of the package) ---------------------------------------------
def _toml(name: str) -> dict[str, Any]:
    return read_content(HERE / name)


@cache
def body_plans() -> Mapping[str, Mapping[str, Mapping[str, Any]]]:
    loaded = read_content(HERE / "body_plans.yaml")
    return frozen({str(k): dict(v) for k, v in loaded.items()})  # type: ignore[no-any-return]


@cache
def weapon_catalogue() -> Mapping[str, Mapping[str, Any]]:
    return frozen(_toml("weapons.toml")["weapon"])  # type: ignore[no-any-return]


@cache
def armor_catalogue() -> Mapping[str, Mapping[str, Any]]:
    return frozen(_toml("armor.toml")["armor"])  # type: ignore[no-any-return]


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


@cache
def wound_catalogue() -> Mapping[str, Mapping[str, Any]]:
    return frozen(_toml("wounds.toml")["wound"])  # type: ignore[no-any-return]


@cache
def reveal_table() -> tuple[Mapping[str, Any], ...]:
    return frozen(_toml("wounds.toml")["reveal"])  # type: ignore[no-any-return]


def make_areas(owner: str, plan: str, overrides: Mapping[str, Any]) -> dict[str, BodyArea]:
    plans = body_plans()
    if plan not in plans:
        raise InvalidCommand(f"{owner}: no body plan {plan!r} (body plans: {', '.join(plans)})")
    areas: dict[str, BodyArea] = {}
    for name, spec in plans[plan].items():
        vitality = int(spec["vitality"])
        areas[name] = BodyArea(vitality, vitality, bool(spec["vital"]), list(spec["adjacent"]))
    for name, value in overrides.items():
        if name not in areas:
            raise InvalidCommand(
                f"{owner}: vitality for unknown body area {name!r} (areas: {', '.join(areas)})"
            )
        areas[name].vitality = areas[name].vitality_max = int(value)
    return areas


def make_weapon(owner: str, spec: Any) -> tuple[str, Weapon]:
    if isinstance(spec, str):
        catalogue = weapon_catalogue()
        if spec not in catalogue:
            raise InvalidCommand(
                f"{owner}: no weapon {spec!r} (weapons: {', '.join(catalogue)})"
            )
        name, spec = spec, catalogue[spec]
    elif isinstance(spec, Mapping):
        spec = dict(spec)
        name = str(spec.pop("name", ""))
        base = weapon_catalogue().get(str(spec.pop("like", name)), {})
        spec = {**base, **spec}
        if not name:
            raise InvalidCommand(f"{owner}: a weapon needs a 'name'")
    else:
        raise InvalidCommand(f"{owner}: a weapon is a name or a mapping, not {spec!r}")
    if "damage" not in spec:
        raise InvalidCommand(f"{owner}: weapon {name!r} lacks 'damage' (a mapping of damage "
                             "types to modifiers)")
    damage = {str(DamageType.parse(str(k))): int(v) for k, v in dict(spec["damage"]).items()}
    return name, Weapon(str(spec.get("skill", "melee")), int(spec.get("rating", 0)), damage,
                        int(spec.get("range", 1)))


def make_armor(owner: str, spec: Any) -> ArmorPiece:
    worn = True
    if isinstance(spec, Mapping) and "name" in spec and set(spec) <= {"name", "worn", "value"}:
        worn = bool(spec.get("worn", True))
        value = spec.get("value")
        spec = str(spec["name"]) if value is None else {**dict(spec), "like": spec["name"]}
    if isinstance(spec, str):
        catalogue = armor_catalogue()
        if spec not in catalogue:
            raise InvalidCommand(f"{owner}: no armor {spec!r} (armor: {', '.join(catalogue)})")
        name, data = spec, dict(catalogue[spec])
    elif isinstance(spec, Mapping):
        data = dict(spec)
        name = str(data.pop("name", ""))
        data = {**armor_catalogue().get(str(data.pop("like", name)), {}), **data}
        worn = bool(data.pop("worn", worn))
    else:
        raise InvalidCommand(f"{owner}: an armor piece is a name or a mapping, not {spec!r}")
    try:
        value = int(data["value"])
        ratings = {str(DamageType.parse(str(k))): int(v) for k, v in dict(data["ratings"]).items()}
        return ArmorPiece(name, [str(a) for a in data["areas"]], value, value, ratings, worn)
    except KeyError as err:
        raise InvalidCommand(f"{owner}: armor {name!r} lacks {err.args[0]!r}") from None


# -- part 2: the stat-block keys of targets, networks, vehicles and spheres ---------------
WORLD_KEYS = {"position", "reach", "speed", "mp", "languages", "groups", "attitude", "gear",
              "carried_by", "packed", "locked", "design", "installed_in", "pulling", "system",
              "device", "vehicle", "sphere", "quadrant"}

def speed_of(creature: Creature) -> int:
    """Squares a turn: a vehicle's combined speed, else the stat block's ``speed``."""
    if creature.vehicle and "speed" in creature.vehicle.get("characteristics", {}):
        return int(creature.vehicle["characteristics"]["speed"])
    return creature.speed


SPHERES = ("contact", "battle", "support")
QUADRANTS = ("north", "east", "south", "west")
"""The combat spheres and the battle sphere's quadrants (P-SPH-5), clockwise."""


@cache
def vehicle_catalogue() -> Mapping[str, Mapping[str, Any]]:
    return frozen(_toml("vehicles.toml"))  # type: ignore[no-any-return]


@cache
def network_kinds() -> Mapping[str, Mapping[str, Any]]:
    return frozen(_toml("networks.toml")["kind"])  # type: ignore[no-any-return]


@cache
def network_examples() -> Mapping[str, Mapping[str, Any]]:
    return frozen(_toml("networks.toml")["example"])  # type: ignore[no-any-return]


def square(owner: str, value: Any) -> list[int]:
    """A grid square ``[x, y]`` (P-RNG-1: ranges are counted in squares)."""
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise InvalidCommand(f"{owner}: a square is [x, y] in whole numbers, not {value!r}")
    return [int(value[0]), int(value[1])]


def make_vehicle(owner: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    """A vehicle: a chassis (footprint and which modules fit where) with modules installed on
    its squares (P-VEH-1). Returns the chassis, the module on each square, each square's
    characteristics, the combined characteristics and the tags."""
    catalogue = vehicle_catalogue()
    chassis_name = str(spec.get("chassis", ""))
    chassis = catalogue.get("chassis", {}).get(chassis_name)
    if chassis is None:
        known = ", ".join(catalogue.get("chassis", {}))
        raise InvalidCommand(f"{owner}: no chassis {chassis_name!r} (chassis: {known})")
    slots: dict[str, list[str]] = {str(k): [str(m) for m in v]
                                   for k, v in dict(chassis["slots"]).items()}
    modules = {str(k): str(v) for k, v in dict(spec.get("modules", {})).items()}
    known_modules = catalogue.get("module", {})
    squares: dict[str, dict[str, Any]] = {}
    for key, module in modules.items():
        if key not in slots:
            raise InvalidCommand(f"{owner}: square {key} is not on the {chassis_name} chassis "
                                 f"(squares: {', '.join(slots)})")
        if module not in known_modules:
            raise InvalidCommand(f"{owner}: no vehicle module {module!r} (modules: "
                                 f"{', '.join(known_modules)})")
        kind = str(known_modules[module]["kind"])
        if kind not in slots[key]:
            raise InvalidCommand(f"{owner}: a {kind} module ({module}) does not fit square {key} "
                                 f"of the {chassis_name} chassis (fits: {', '.join(slots[key])})")
        squares[key] = {"module": module, **dict(known_modules[module].get("stats", {}))}
    tags = sorted({*chassis.get("tags", []),
                   *(t for m in modules.values() for t in known_modules[m].get("tags", []))})
    return {"chassis": chassis_name, "modules": modules, "squares": squares, "tags": tags,
            "footprint": list(slots)}


def set_world_stats(creature: Creature, spec: Mapping[str, Any]) -> None:
    """Fill the part 2 keys of a stat block (docs/rulesets/polemos.md)."""
    owner = creature.id
    if spec.get("position") is not None:
        creature.position = square(owner, spec["position"])
    creature.reach = int(spec.get("reach", 1))  # P-REQ-5: one square by default
    creature.speed = int(spec.get("speed", 5))
    creature.mp = creature.mp_max = int(spec.get("mp", 0))
    creature.languages = {str(k): int(v) for k, v in dict(spec.get("languages", {})).items()}
    creature.groups = [str(g) for g in spec.get("groups", [])]
    creature.attitude = {str(k): int(v) for k, v in dict(spec.get("attitude", {})).items()}
    creature.gear = []
    for raw in spec.get("gear", []):
        item: dict[str, Any] = {"name": raw} if isinstance(raw, str) else dict(raw)
        creature.gear.append({"name": str(item["name"]),
                              "tags": [str(t) for t in item.get("tags", [])],
                              "attitude": {str(k): int(v) for k, v in
                                           dict(item.get("attitude", {})).items()}})
    for key in ("carried_by", "design", "installed_in", "pulling"):
        if spec.get(key) is not None:
            setattr(creature, key, str(spec[key]))
    creature.packed = bool(spec.get("packed", False))
    creature.locked = bool(spec.get("locked", False))
    device = spec.get("device")
    if device is not None:
        raw = dict(device)
        creature.device = {
            "actions": [str(a) for a in raw.get("actions", ["activate", "deactivate"])],
            "active": bool(raw.get("active", False)),
            "manual": bool(raw.get("manual", True)),
            "owner": raw.get("owner"),
            "personal": bool(raw.get("personal", "personal network" in creature.tags)),
        }
    creature.system = bool(spec.get("system", device is not None or "networked"
                                    in creature.tags))
    if spec.get("vehicle") is not None:
        creature.vehicle = make_vehicle(owner, dict(spec["vehicle"]))
    sphere = spec.get("sphere")
    if sphere is not None and sphere not in SPHERES:
        raise InvalidCommand(f"{owner}: sphere must be one of {', '.join(SPHERES)}")
    creature.sphere = sphere
    quadrant = spec.get("quadrant")
    if quadrant is not None and quadrant not in QUADRANTS:
        raise InvalidCommand(f"{owner}: quadrant must be one of {', '.join(QUADRANTS)}")
    creature.quadrant = quadrant
