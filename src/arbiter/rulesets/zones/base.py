"""What every topic of the zones ruleset uses: :class:`ZonesBase` (the stat block, creature
lookup, spending an action, melee interference), the check of a list of names its commands
take (groups, engagements) and whether a creature can use cover (the stat block's ``cover``
and the ``cover`` command both ask)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    EncounterState,
    Entity,
    IllegalCommand,
    InvalidCommand,
    Ruleset,
)
from ...core.model import entity_at
from ...core.ruleset import ENTITY_KEYS
from .model import ALTITUDE, RULINGS, STATS, Creature, Weapon, cover_chart, weapon_spec

ZONES_KEYS = {"health", "armor", "shield", "kinetic_shielding", "weapons", "competent",
              "skills", "ammo", "zone", "group", "engagement", "altitude", "mount", "cover",
              "health_now", *STATS}

MELEE_INTERFERENCE = 2


def names(command: Command, key: str, value: list[Any] | None) -> list[str]:
    """The names an ``items`` argument ``key`` holds (none when it is left out), or
    InvalidCommand when one is not a name."""
    if value is None:
        return []
    if not all(isinstance(v, str) for v in value):
        raise InvalidCommand(f"{command.name}: {key!r} must be a list of names, not {value!r}")
    return list(value)


def cover_data(spec: Any, who: str) -> dict[str, Any]:
    """Cover as data: an environment name, or a mapping with environment/bonus/improved."""
    if isinstance(spec, str):
        spec = {"environment": spec}
    if not isinstance(spec, Mapping):
        raise InvalidCommand(f"{who}: cover is an environment name or a mapping")
    chart = cover_chart()
    improved = bool(spec.get("improved", False)) or spec.get("environment") == "improved"
    env = str(spec.get("environment", "improved" if improved else ""))
    if "bonus" in spec:
        bonus = int(spec["bonus"])  # the GM's own value (Z-COV-6)
    elif improved:
        bonus = chart["improved"]  # Z-COV-14
    elif env in chart:
        bonus = chart[env]
    else:
        raise InvalidCommand(f"{who}: cover environment {env!r} is not on the chart "
                             f"({', '.join(chart)}); or give 'bonus'")
    return {"environment": env or "custom", "bonus": bonus, "improved": improved,
            "roofed": bool(spec.get("roofed", False))}


def cover_refusal(who: Creature, improved: bool) -> IllegalCommand | None:
    """Why a creature cannot use cover, taking it or beginning the fight in it: while
    grappling, flying or mounted (Z-COV-2), or at 25 WGT or more behind anything but improved
    cover (Z-COV-11). None when it can."""
    for why, cannot in (("grappling", who.has("grappling")), ("flying", who.flying),
                        ("mounted", bool(who.mount))):
        if cannot:
            return IllegalCommand(f"{who.id} cannot use cover while {why}", rule="Z-COV-2")
    if who.heavy and not improved:
        return IllegalCommand(f"{who.id} weighs {who.stat('WGT')} WGT: only improved cover "
                              "built for it will do", rule="Z-COV-11")
    return None


@mypyc_attr(allow_interpreted_subclasses=True)
class ZonesBase(Ruleset):
    """The zones ruleset's own helpers, shared by all its topics."""

    def __init__(self) -> None:
        super().__init__()
        self.rulings = RULINGS  # the one RulingSet the module functions read too

    # -- stat blocks -------------------------------------------------------------------
    def make_entity(self, entity_id: str, spec: Mapping[str, Any]) -> Entity:
        """A creature from its stat block (keys: docs/rulesets/zones.md)."""
        try:
            return self._make_creature(entity_id, spec)
        except (ValueError, TypeError, KeyError, AttributeError) as err:
            raise InvalidCommand(f"{entity_id}: malformed stat block: {err}") from None

    def _make_creature(self, entity_id: str, spec: Mapping[str, Any]) -> Creature:
        unknown = set(spec) - ENTITY_KEYS - ZONES_KEYS
        if unknown:
            raise InvalidCommand(
                f"{entity_id}: unknown stat-block key(s) {', '.join(sorted(unknown))} "
                f"(known: {', '.join(sorted(ENTITY_KEYS | ZONES_KEYS))})"
            )
        stats = {str(k): int(v) for k, v in dict(spec.get("stats", {})).items()}
        stats.update({k: int(spec[k]) for k in STATS if k in spec})
        base = super().make_entity(entity_id, {**{k: v for k, v in spec.items()
                                                  if k in ENTITY_KEYS}, "stats": stats})
        creature = Creature(**{f: getattr(base, f) for f in base.__dataclass_fields__})
        creature.health_max = creature.health = int(spec.get("health", 100))
        creature.health = int(spec.get("health_now", creature.health))  # a lasting state
        creature.armor = int(spec.get("armor", 0))
        creature.shield = int(spec.get("shield", 0))
        creature.kinetic_shielding = int(spec.get("kinetic_shielding", 0))
        raw = spec.get("weapons", [])
        specs = {str(w): {} for w in raw} if isinstance(raw, list) else dict(raw)
        for name, override in specs.items():
            creature.weapons[name] = weapon_spec(name, override)
            Weapon.from_spec(name, creature.weapons[name])
        if "unarmed" not in creature.weapons:
            creature.weapons["unarmed"] = weapon_spec("unarmed")
        creature.competent = [str(w) for w in spec.get("competent", [])]
        creature.skills = [str(s) for s in spec.get("skills", [])]
        creature.ammo = {str(k): int(v) for k, v in dict(spec.get("ammo", {})).items()}
        creature.zone = str(spec.get("zone", "here"))
        creature.group = str(spec.get("group", entity_id))
        creature.engagement = str(spec.get("engagement", creature.group))
        altitude = spec.get("altitude", 0)
        if isinstance(altitude, str):
            if altitude not in ALTITUDE:
                raise InvalidCommand(f"{entity_id}: altitude must be a number or one of "
                                     f"{', '.join(ALTITUDE)}")
            altitude = ALTITUDE[altitude]
        creature.altitude = int(altitude)
        creature.mount = spec.get("mount")
        given = creature.condition("cover")
        if given is not None and not isinstance(given.data.get("bonus"), int):
            raise InvalidCommand(f"{entity_id}: cover needs its armor bonus: give it with the "
                                 "stat block's cover key, not under conditions (Z-COV-5)")
        if "cover" in spec:  # the GM lets it begin the fight in cover (Z-COV-4) ...
            data = cover_data(spec["cover"], entity_id)
            refusal = cover_refusal(creature, data["improved"])
            if refusal is not None:  # ... if it can use cover (Z-COV-2, Z-COV-11)
                raise refusal
            creature.conditions.append(Condition("cover", data=data))
        return creature

    def creature(self, state: EncounterState, name: str) -> Creature:
        return state.entity_of(name, Creature)

    def acting(self, state: EncounterState, command: Command) -> Creature:
        who = command.actor
        found = entity_at(state.entities, who) if who is not None else None
        if isinstance(found, Creature) and found.id == who:
            actor = found  # what the lookups below give, in one step
        else:
            actor = self.creature(state, self.actor(state, command).id)
        if actor.down:
            raise IllegalCommand(f"{actor.id} is down and cannot act")
        return actor

    def use(self, state: EncounterState, who: str, kind: str) -> dict[str, Any]:
        """``{"economy": ...}`` after spending ``kind`` in turn-by-turn play, else nothing."""
        if not state.in_combat:
            return {}
        return {"economy": self.spend(state, who, kind)}

    def interference(self, state: EncounterState, actor: Creature) -> dict[str, int]:
        """Melee interference Hindrance (Z-MI-1): +2 after a melee attack since your last turn
        that succeeded on its offense roll, or while grappling; flat by AZ-8."""
        meleed, grappling = bool(actor.interference), actor.has("grappling")
        if not (meleed or grappling):
            return {}
        if self.ruling_is(state, "AZ-8", "per-source"):
            return {"melee interference": MELEE_INTERFERENCE * (int(meleed) + int(grappling))}
        return {"melee interference": MELEE_INTERFERENCE}
