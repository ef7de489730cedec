"""Copying functions for the native classes of the compiled build: written by
``tools/native_clones.py`` from their declarations (do not edit; run it again).

See that script, and :func:`arbiter.core.copying.native_copiers`, which uses them in
the compiled build only (a class of the pure build has a ``__dict__`` to copy)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arbiter.core.copying import clone
from arbiter.core.model import Condition, EncounterState, Entity
from arbiter.rulesets.polemos.model import ArmorPiece as polemos_ArmorPiece
from arbiter.rulesets.polemos.model import BodyArea as polemos_BodyArea
from arbiter.rulesets.polemos.model import Creature as polemos_Creature
from arbiter.rulesets.polemos.model import Weapon as polemos_Weapon
from arbiter.rulesets.polemos.model import Wound as polemos_Wound
from arbiter.rulesets.realms.model import RealmsCreature as realms_RealmsCreature
from arbiter.rulesets.zones.model import Creature as zones_Creature


def full_Condition(v: Condition) -> Condition:
    n: Condition = Condition.__new__(Condition)
    n.name = v.name
    n.level = v.level
    n.tags = v.tags
    n.source = v.source
    n.duration = clone(v.duration)
    n.data = clone(v.data)
    return n


def fields_Condition(v: Condition) -> dict[str, Any]:
    return {
        "name": v.name,
        "level": v.level,
        "tags": v.tags,
        "source": v.source,
        "duration": v.duration,
        "data": v.data,
    }


def build_Condition(f: dict[str, Any]) -> Condition:
    n: Condition = Condition.__new__(Condition)
    n.name = f["name"]
    n.level = f["level"]
    n.tags = f["tags"]
    n.source = f["source"]
    n.duration = f["duration"]
    n.data = f["data"]
    return n


def full_Entity(v: Entity) -> Entity:
    n: Entity = Entity.__new__(Entity)
    n.id = v.id
    n.name = v.name
    n.kind = v.kind
    n.side = v.side
    n.owner = v.owner
    n.tags = set(v.tags)
    n.stats = v.stats.copy()
    n.conditions = clone(v.conditions)
    n.hidden = v.hidden
    return n


def fields_Entity(v: Entity) -> dict[str, Any]:
    return {
        "id": v.id,
        "name": v.name,
        "kind": v.kind,
        "side": v.side,
        "owner": v.owner,
        "tags": v.tags,
        "stats": v.stats,
        "conditions": v.conditions,
        "hidden": v.hidden,
    }


def build_Entity(f: dict[str, Any]) -> Entity:
    n: Entity = Entity.__new__(Entity)
    n.id = f["id"]
    n.name = f["name"]
    n.kind = f["kind"]
    n.side = f["side"]
    n.owner = f["owner"]
    n.tags = f["tags"]
    n.stats = f["stats"]
    n.conditions = f["conditions"]
    n.hidden = f["hidden"]
    return n


def full_EncounterState(v: EncounterState) -> EncounterState:
    n: EncounterState = EncounterState.__new__(EncounterState)
    n.ruleset = v.ruleset
    n.rulings = v.rulings.copy()
    n.entities = clone(v.entities)
    n.order = v.order.copy()
    n.initiative = v.initiative.copy()
    n.round = v.round
    n.turn_index = v.turn_index
    n.in_combat = v.in_combat
    n.economy = clone(v.economy)
    n.version = v.version
    n.extra = clone(v.extra)
    n.reveal_on_turn = v.reveal_on_turn
    return n


def scratch_EncounterState(v: EncounterState) -> EncounterState:
    n: EncounterState = EncounterState.__new__(EncounterState)
    n.ruleset = v.ruleset
    n.rulings = v.rulings
    n.entities = clone(v.entities)
    n.order = v.order.copy()
    n.initiative = v.initiative.copy()
    n.round = v.round
    n.turn_index = v.turn_index
    n.in_combat = v.in_combat
    n.economy = v.economy.copy()
    n.version = v.version
    n.extra = clone(v.extra)
    n.reveal_on_turn = v.reveal_on_turn
    return n


def fields_EncounterState(v: EncounterState) -> dict[str, Any]:
    return {
        "ruleset": v.ruleset,
        "rulings": v.rulings,
        "entities": v.entities,
        "order": v.order,
        "initiative": v.initiative,
        "round": v.round,
        "turn_index": v.turn_index,
        "in_combat": v.in_combat,
        "economy": v.economy,
        "version": v.version,
        "extra": v.extra,
        "reveal_on_turn": v.reveal_on_turn,
    }


def build_EncounterState(f: dict[str, Any]) -> EncounterState:
    n: EncounterState = EncounterState.__new__(EncounterState)
    n.ruleset = f["ruleset"]
    n.rulings = f["rulings"]
    n.entities = f["entities"]
    n.order = f["order"]
    n.initiative = f["initiative"]
    n.round = f["round"]
    n.turn_index = f["turn_index"]
    n.in_combat = f["in_combat"]
    n.economy = f["economy"]
    n.version = f["version"]
    n.extra = f["extra"]
    n.reveal_on_turn = f["reveal_on_turn"]
    return n


def full_realms_RealmsCreature(v: realms_RealmsCreature) -> realms_RealmsCreature:
    n: realms_RealmsCreature = realms_RealmsCreature.__new__(realms_RealmsCreature)
    n.id = v.id
    n.name = v.name
    n.kind = v.kind
    n.side = v.side
    n.owner = v.owner
    n.tags = set(v.tags)
    n.stats = v.stats.copy()
    n.conditions = clone(v.conditions)
    n.hidden = v.hidden
    n.creature_level = v.creature_level
    n.health_max = v.health_max
    n.health = v.health
    n.energy_max = v.energy_max
    n.energy = v.energy
    n.strength = v.strength
    n.agility = v.agility
    n.vitality = v.vitality
    n.evasion = v.evasion
    n.defenses = v.defenses.copy()
    n.skills = v.skills.copy()
    n.proficient = v.proficient.copy()
    n.attack = v.attack
    n.damage_bonus = v.damage_bonus
    n.power_bonus = v.power_bonus
    n.initiative_bonus = v.initiative_bonus
    n.weapon = v.weapon
    n.weapon_range = v.weapon_range
    n.weapon_arms = v.weapon_arms
    n.weapon_reach = v.weapon_reach
    n.damage = clone(v.damage)
    n.armor = clone(v.armor)
    n.shield = clone(v.shield)
    n.resist = v.resist.copy()
    n.vulnerable = v.vulnerable.copy()
    n.immune = v.immune.copy()
    n.reductions = clone(v.reductions)
    n.size = v.size
    n.weight = v.weight
    n.load = v.load
    n.climb_speed = v.climb_speed
    n.swim_speed = v.swim_speed
    n.fly_speed = v.fly_speed
    n.flying = v.flying
    n.altitude = v.altitude
    n.position = clone(v.position)
    n.companion_of = v.companion_of
    n.summoned = v.summoned
    n.mountable = v.mountable
    n.willing = v.willing
    n.saddled = v.saddled
    n.mounted_on = v.mounted_on
    n.ap = v.ap
    n.dying_turns = v.dying_turns
    n.stabilized = v.stabilized
    n.dead = v.dead
    n.unsummoned = v.unsummoned
    n.commanded = v.commanded
    n.controls_mount = v.controls_mount
    n.armor_uses = v.armor_uses
    n.dr_uses = v.dr_uses.copy()
    n.shield_uses = v.shield_uses
    n.stun_taken = v.stun_taken
    n.over_time_seen = v.over_time_seen.copy()
    return n


def scratch_realms_RealmsCreature(v: realms_RealmsCreature) -> realms_RealmsCreature:
    n: realms_RealmsCreature = realms_RealmsCreature.__new__(realms_RealmsCreature)
    n.id = v.id
    n.name = v.name
    n.kind = v.kind
    n.side = v.side
    n.owner = v.owner
    n.tags = v.tags
    n.stats = v.stats
    n.conditions = v.conditions.copy()
    n.hidden = v.hidden
    n.creature_level = v.creature_level
    n.health_max = v.health_max
    n.health = v.health
    n.energy_max = v.energy_max
    n.energy = v.energy
    n.strength = v.strength
    n.agility = v.agility
    n.vitality = v.vitality
    n.evasion = v.evasion
    n.defenses = v.defenses
    n.skills = v.skills
    n.proficient = v.proficient
    n.attack = v.attack
    n.damage_bonus = v.damage_bonus
    n.power_bonus = v.power_bonus
    n.initiative_bonus = v.initiative_bonus
    n.weapon = v.weapon
    n.weapon_range = v.weapon_range
    n.weapon_arms = v.weapon_arms
    n.weapon_reach = v.weapon_reach
    n.damage = v.damage
    n.armor = v.armor
    n.shield = v.shield
    n.resist = v.resist
    n.vulnerable = v.vulnerable
    n.immune = v.immune
    n.reductions = v.reductions
    n.size = v.size
    n.weight = v.weight
    n.load = v.load
    n.climb_speed = v.climb_speed
    n.swim_speed = v.swim_speed
    n.fly_speed = v.fly_speed
    n.flying = v.flying
    n.altitude = v.altitude
    n.position = v.position
    n.companion_of = v.companion_of
    n.summoned = v.summoned
    n.mountable = v.mountable
    n.willing = v.willing
    n.saddled = v.saddled
    n.mounted_on = v.mounted_on
    n.ap = v.ap
    n.dying_turns = v.dying_turns
    n.stabilized = v.stabilized
    n.dead = v.dead
    n.unsummoned = v.unsummoned
    n.commanded = v.commanded
    n.controls_mount = v.controls_mount
    n.armor_uses = v.armor_uses
    n.dr_uses = v.dr_uses
    n.shield_uses = v.shield_uses
    n.stun_taken = v.stun_taken
    n.over_time_seen = v.over_time_seen
    return n


def fields_realms_RealmsCreature(v: realms_RealmsCreature) -> dict[str, Any]:
    return {
        "id": v.id,
        "name": v.name,
        "kind": v.kind,
        "side": v.side,
        "owner": v.owner,
        "tags": v.tags,
        "stats": v.stats,
        "conditions": v.conditions,
        "hidden": v.hidden,
        "creature_level": v.creature_level,
        "health_max": v.health_max,
        "health": v.health,
        "energy_max": v.energy_max,
        "energy": v.energy,
        "strength": v.strength,
        "agility": v.agility,
        "vitality": v.vitality,
        "evasion": v.evasion,
        "defenses": v.defenses,
        "skills": v.skills,
        "proficient": v.proficient,
        "attack": v.attack,
        "damage_bonus": v.damage_bonus,
        "power_bonus": v.power_bonus,
        "initiative_bonus": v.initiative_bonus,
        "weapon": v.weapon,
        "weapon_range": v.weapon_range,
        "weapon_arms": v.weapon_arms,
        "weapon_reach": v.weapon_reach,
        "damage": v.damage,
        "armor": v.armor,
        "shield": v.shield,
        "resist": v.resist,
        "vulnerable": v.vulnerable,
        "immune": v.immune,
        "reductions": v.reductions,
        "size": v.size,
        "weight": v.weight,
        "load": v.load,
        "climb_speed": v.climb_speed,
        "swim_speed": v.swim_speed,
        "fly_speed": v.fly_speed,
        "flying": v.flying,
        "altitude": v.altitude,
        "position": v.position,
        "companion_of": v.companion_of,
        "summoned": v.summoned,
        "mountable": v.mountable,
        "willing": v.willing,
        "saddled": v.saddled,
        "mounted_on": v.mounted_on,
        "ap": v.ap,
        "dying_turns": v.dying_turns,
        "stabilized": v.stabilized,
        "dead": v.dead,
        "unsummoned": v.unsummoned,
        "commanded": v.commanded,
        "controls_mount": v.controls_mount,
        "armor_uses": v.armor_uses,
        "dr_uses": v.dr_uses,
        "shield_uses": v.shield_uses,
        "stun_taken": v.stun_taken,
        "over_time_seen": v.over_time_seen,
    }


def build_realms_RealmsCreature(f: dict[str, Any]) -> realms_RealmsCreature:
    n: realms_RealmsCreature = realms_RealmsCreature.__new__(realms_RealmsCreature)
    n.id = f["id"]
    n.name = f["name"]
    n.kind = f["kind"]
    n.side = f["side"]
    n.owner = f["owner"]
    n.tags = f["tags"]
    n.stats = f["stats"]
    n.conditions = f["conditions"]
    n.hidden = f["hidden"]
    n.creature_level = f["creature_level"]
    n.health_max = f["health_max"]
    n.health = f["health"]
    n.energy_max = f["energy_max"]
    n.energy = f["energy"]
    n.strength = f["strength"]
    n.agility = f["agility"]
    n.vitality = f["vitality"]
    n.evasion = f["evasion"]
    n.defenses = f["defenses"]
    n.skills = f["skills"]
    n.proficient = f["proficient"]
    n.attack = f["attack"]
    n.damage_bonus = f["damage_bonus"]
    n.power_bonus = f["power_bonus"]
    n.initiative_bonus = f["initiative_bonus"]
    n.weapon = f["weapon"]
    n.weapon_range = f["weapon_range"]
    n.weapon_arms = f["weapon_arms"]
    n.weapon_reach = f["weapon_reach"]
    n.damage = f["damage"]
    n.armor = f["armor"]
    n.shield = f["shield"]
    n.resist = f["resist"]
    n.vulnerable = f["vulnerable"]
    n.immune = f["immune"]
    n.reductions = f["reductions"]
    n.size = f["size"]
    n.weight = f["weight"]
    n.load = f["load"]
    n.climb_speed = f["climb_speed"]
    n.swim_speed = f["swim_speed"]
    n.fly_speed = f["fly_speed"]
    n.flying = f["flying"]
    n.altitude = f["altitude"]
    n.position = f["position"]
    n.companion_of = f["companion_of"]
    n.summoned = f["summoned"]
    n.mountable = f["mountable"]
    n.willing = f["willing"]
    n.saddled = f["saddled"]
    n.mounted_on = f["mounted_on"]
    n.ap = f["ap"]
    n.dying_turns = f["dying_turns"]
    n.stabilized = f["stabilized"]
    n.dead = f["dead"]
    n.unsummoned = f["unsummoned"]
    n.commanded = f["commanded"]
    n.controls_mount = f["controls_mount"]
    n.armor_uses = f["armor_uses"]
    n.dr_uses = f["dr_uses"]
    n.shield_uses = f["shield_uses"]
    n.stun_taken = f["stun_taken"]
    n.over_time_seen = f["over_time_seen"]
    return n


def full_zones_Creature(v: zones_Creature) -> zones_Creature:
    n: zones_Creature = zones_Creature.__new__(zones_Creature)
    n.id = v.id
    n.name = v.name
    n.kind = v.kind
    n.side = v.side
    n.owner = v.owner
    n.tags = set(v.tags)
    n.stats = v.stats.copy()
    n.conditions = clone(v.conditions)
    n.hidden = v.hidden
    n.health_max = v.health_max
    n.health = v.health
    n.armor = v.armor
    n.shield = v.shield
    n.kinetic_shielding = v.kinetic_shielding
    n.weapons = clone(v.weapons)
    n.competent = v.competent.copy()
    n.skills = v.skills.copy()
    n.ammo = v.ammo.copy()
    n.zone = v.zone
    n.group = v.group
    n.engagement = v.engagement
    n.altitude = v.altitude
    n.mount = v.mount
    n.touching = v.touching.copy()
    n.flanking = clone(v.flanking)
    n.interference = v.interference.copy()
    return n


def scratch_zones_Creature(v: zones_Creature) -> zones_Creature:
    n: zones_Creature = zones_Creature.__new__(zones_Creature)
    n.id = v.id
    n.name = v.name
    n.kind = v.kind
    n.side = v.side
    n.owner = v.owner
    n.tags = v.tags
    n.stats = v.stats
    n.conditions = v.conditions.copy()
    n.hidden = v.hidden
    n.health_max = v.health_max
    n.health = v.health
    n.armor = v.armor
    n.shield = v.shield
    n.kinetic_shielding = v.kinetic_shielding
    n.weapons = v.weapons
    n.competent = v.competent
    n.skills = v.skills
    n.ammo = v.ammo
    n.zone = v.zone
    n.group = v.group
    n.engagement = v.engagement
    n.altitude = v.altitude
    n.mount = v.mount
    n.touching = v.touching
    n.flanking = v.flanking
    n.interference = v.interference
    return n


def fields_zones_Creature(v: zones_Creature) -> dict[str, Any]:
    return {
        "id": v.id,
        "name": v.name,
        "kind": v.kind,
        "side": v.side,
        "owner": v.owner,
        "tags": v.tags,
        "stats": v.stats,
        "conditions": v.conditions,
        "hidden": v.hidden,
        "health_max": v.health_max,
        "health": v.health,
        "armor": v.armor,
        "shield": v.shield,
        "kinetic_shielding": v.kinetic_shielding,
        "weapons": v.weapons,
        "competent": v.competent,
        "skills": v.skills,
        "ammo": v.ammo,
        "zone": v.zone,
        "group": v.group,
        "engagement": v.engagement,
        "altitude": v.altitude,
        "mount": v.mount,
        "touching": v.touching,
        "flanking": v.flanking,
        "interference": v.interference,
    }


def build_zones_Creature(f: dict[str, Any]) -> zones_Creature:
    n: zones_Creature = zones_Creature.__new__(zones_Creature)
    n.id = f["id"]
    n.name = f["name"]
    n.kind = f["kind"]
    n.side = f["side"]
    n.owner = f["owner"]
    n.tags = f["tags"]
    n.stats = f["stats"]
    n.conditions = f["conditions"]
    n.hidden = f["hidden"]
    n.health_max = f["health_max"]
    n.health = f["health"]
    n.armor = f["armor"]
    n.shield = f["shield"]
    n.kinetic_shielding = f["kinetic_shielding"]
    n.weapons = f["weapons"]
    n.competent = f["competent"]
    n.skills = f["skills"]
    n.ammo = f["ammo"]
    n.zone = f["zone"]
    n.group = f["group"]
    n.engagement = f["engagement"]
    n.altitude = f["altitude"]
    n.mount = f["mount"]
    n.touching = f["touching"]
    n.flanking = f["flanking"]
    n.interference = f["interference"]
    return n


def full_polemos_BodyArea(v: polemos_BodyArea) -> polemos_BodyArea:
    n: polemos_BodyArea = polemos_BodyArea.__new__(polemos_BodyArea)
    n.vitality = v.vitality
    n.vitality_max = v.vitality_max
    n.vital = v.vital
    n.adjacent = v.adjacent.copy()
    return n


def fields_polemos_BodyArea(v: polemos_BodyArea) -> dict[str, Any]:
    return {
        "vitality": v.vitality,
        "vitality_max": v.vitality_max,
        "vital": v.vital,
        "adjacent": v.adjacent,
    }


def build_polemos_BodyArea(f: dict[str, Any]) -> polemos_BodyArea:
    n: polemos_BodyArea = polemos_BodyArea.__new__(polemos_BodyArea)
    n.vitality = f["vitality"]
    n.vitality_max = f["vitality_max"]
    n.vital = f["vital"]
    n.adjacent = f["adjacent"]
    return n


def full_polemos_Weapon(v: polemos_Weapon) -> polemos_Weapon:
    n: polemos_Weapon = polemos_Weapon.__new__(polemos_Weapon)
    n.skill = v.skill
    n.rating = v.rating
    n.damage = v.damage.copy()
    n.range = v.range
    return n


def fields_polemos_Weapon(v: polemos_Weapon) -> dict[str, Any]:
    return {
        "skill": v.skill,
        "rating": v.rating,
        "damage": v.damage,
        "range": v.range,
    }


def build_polemos_Weapon(f: dict[str, Any]) -> polemos_Weapon:
    n: polemos_Weapon = polemos_Weapon.__new__(polemos_Weapon)
    n.skill = f["skill"]
    n.rating = f["rating"]
    n.damage = f["damage"]
    n.range = f["range"]
    return n


def full_polemos_ArmorPiece(v: polemos_ArmorPiece) -> polemos_ArmorPiece:
    n: polemos_ArmorPiece = polemos_ArmorPiece.__new__(polemos_ArmorPiece)
    n.name = v.name
    n.areas = v.areas.copy()
    n.value = v.value
    n.value_max = v.value_max
    n.ratings = v.ratings.copy()
    n.worn = v.worn
    return n


def fields_polemos_ArmorPiece(v: polemos_ArmorPiece) -> dict[str, Any]:
    return {
        "name": v.name,
        "areas": v.areas,
        "value": v.value,
        "value_max": v.value_max,
        "ratings": v.ratings,
        "worn": v.worn,
    }


def build_polemos_ArmorPiece(f: dict[str, Any]) -> polemos_ArmorPiece:
    n: polemos_ArmorPiece = polemos_ArmorPiece.__new__(polemos_ArmorPiece)
    n.name = f["name"]
    n.areas = f["areas"]
    n.value = f["value"]
    n.value_max = f["value_max"]
    n.ratings = f["ratings"]
    n.worn = f["worn"]
    return n


def full_polemos_Wound(v: polemos_Wound) -> polemos_Wound:
    n: polemos_Wound = polemos_Wound.__new__(polemos_Wound)
    n.id = v.id
    n.name = v.name
    n.area = v.area
    n.tags = v.tags.copy()
    n.fatigue = v.fatigue
    n.level = v.level
    n.known = v.known
    n.cause = v.cause
    n.received = v.received
    n.max_days = v.max_days
    n.conditions = v.conditions.copy()
    n.bleeding = v.bleeding
    n.source = v.source
    return n


def fields_polemos_Wound(v: polemos_Wound) -> dict[str, Any]:
    return {
        "id": v.id,
        "name": v.name,
        "area": v.area,
        "tags": v.tags,
        "fatigue": v.fatigue,
        "level": v.level,
        "known": v.known,
        "cause": v.cause,
        "received": v.received,
        "max_days": v.max_days,
        "conditions": v.conditions,
        "bleeding": v.bleeding,
        "source": v.source,
    }


def build_polemos_Wound(f: dict[str, Any]) -> polemos_Wound:
    n: polemos_Wound = polemos_Wound.__new__(polemos_Wound)
    n.id = f["id"]
    n.name = f["name"]
    n.area = f["area"]
    n.tags = f["tags"]
    n.fatigue = f["fatigue"]
    n.level = f["level"]
    n.known = f["known"]
    n.cause = f["cause"]
    n.received = f["received"]
    n.max_days = f["max_days"]
    n.conditions = f["conditions"]
    n.bleeding = f["bleeding"]
    n.source = f["source"]
    return n


def full_polemos_Creature(v: polemos_Creature) -> polemos_Creature:
    n: polemos_Creature = polemos_Creature.__new__(polemos_Creature)
    n.id = v.id
    n.name = v.name
    n.kind = v.kind
    n.side = v.side
    n.owner = v.owner
    n.tags = set(v.tags)
    n.stats = v.stats.copy()
    n.conditions = clone(v.conditions)
    n.hidden = v.hidden
    n.skills = v.skills.copy()
    n.body_plan = v.body_plan
    n.areas = clone(v.areas)
    n.sp = v.sp
    n.sp_max = v.sp_max
    n.fp = v.fp
    n.fp_max = v.fp_max
    n.stress = v.stress
    n.weapons = clone(v.weapons)
    n.armor = clone(v.armor)
    n.wounds = clone(v.wounds)
    n.afflictions = clone(v.afflictions)
    n.bleeding = clone(v.bleeding)
    n.critical_threshold = v.critical_threshold
    n.critical_points = v.critical_points
    n.critical_target = v.critical_target
    n.critical_area = v.critical_area
    n.attacks_received = v.attacks_received
    n.down = v.down
    n.used = v.used.copy()
    n.used_round = v.used_round
    n.channel = clone(v.channel)
    n.location = v.location
    n.position = clone(v.position)
    n.reach = v.reach
    n.speed = v.speed
    n.mp = v.mp
    n.mp_max = v.mp_max
    n.languages = v.languages.copy()
    n.groups = v.groups.copy()
    n.attitude = v.attitude.copy()
    n.gear = clone(v.gear)
    n.carried_by = v.carried_by
    n.packed = v.packed
    n.locked = v.locked
    n.design = v.design
    n.installed_in = v.installed_in
    n.pulling = v.pulling
    n.system = v.system
    n.device = clone(v.device)
    n.vehicle = clone(v.vehicle)
    n.sphere = v.sphere
    n.quadrant = v.quadrant
    return n


def scratch_polemos_Creature(v: polemos_Creature) -> polemos_Creature:
    n: polemos_Creature = polemos_Creature.__new__(polemos_Creature)
    n.id = v.id
    n.name = v.name
    n.kind = v.kind
    n.side = v.side
    n.owner = v.owner
    n.tags = v.tags
    n.stats = v.stats
    n.conditions = v.conditions.copy()
    n.hidden = v.hidden
    n.skills = v.skills
    n.body_plan = v.body_plan
    n.areas = v.areas
    n.sp = v.sp
    n.sp_max = v.sp_max
    n.fp = v.fp
    n.fp_max = v.fp_max
    n.stress = v.stress
    n.weapons = v.weapons
    n.armor = v.armor
    n.wounds = v.wounds
    n.afflictions = v.afflictions
    n.bleeding = v.bleeding
    n.critical_threshold = v.critical_threshold
    n.critical_points = v.critical_points
    n.critical_target = v.critical_target
    n.critical_area = v.critical_area
    n.attacks_received = v.attacks_received
    n.down = v.down
    n.used = v.used
    n.used_round = v.used_round
    n.channel = v.channel
    n.location = v.location
    n.position = v.position
    n.reach = v.reach
    n.speed = v.speed
    n.mp = v.mp
    n.mp_max = v.mp_max
    n.languages = v.languages
    n.groups = v.groups
    n.attitude = v.attitude
    n.gear = v.gear
    n.carried_by = v.carried_by
    n.packed = v.packed
    n.locked = v.locked
    n.design = v.design
    n.installed_in = v.installed_in
    n.pulling = v.pulling
    n.system = v.system
    n.device = v.device
    n.vehicle = v.vehicle
    n.sphere = v.sphere
    n.quadrant = v.quadrant
    return n


def fields_polemos_Creature(v: polemos_Creature) -> dict[str, Any]:
    return {
        "id": v.id,
        "name": v.name,
        "kind": v.kind,
        "side": v.side,
        "owner": v.owner,
        "tags": v.tags,
        "stats": v.stats,
        "conditions": v.conditions,
        "hidden": v.hidden,
        "skills": v.skills,
        "body_plan": v.body_plan,
        "areas": v.areas,
        "sp": v.sp,
        "sp_max": v.sp_max,
        "fp": v.fp,
        "fp_max": v.fp_max,
        "stress": v.stress,
        "weapons": v.weapons,
        "armor": v.armor,
        "wounds": v.wounds,
        "afflictions": v.afflictions,
        "bleeding": v.bleeding,
        "critical_threshold": v.critical_threshold,
        "critical_points": v.critical_points,
        "critical_target": v.critical_target,
        "critical_area": v.critical_area,
        "attacks_received": v.attacks_received,
        "down": v.down,
        "used": v.used,
        "used_round": v.used_round,
        "channel": v.channel,
        "location": v.location,
        "position": v.position,
        "reach": v.reach,
        "speed": v.speed,
        "mp": v.mp,
        "mp_max": v.mp_max,
        "languages": v.languages,
        "groups": v.groups,
        "attitude": v.attitude,
        "gear": v.gear,
        "carried_by": v.carried_by,
        "packed": v.packed,
        "locked": v.locked,
        "design": v.design,
        "installed_in": v.installed_in,
        "pulling": v.pulling,
        "system": v.system,
        "device": v.device,
        "vehicle": v.vehicle,
        "sphere": v.sphere,
        "quadrant": v.quadrant,
    }


def build_polemos_Creature(f: dict[str, Any]) -> polemos_Creature:
    n: polemos_Creature = polemos_Creature.__new__(polemos_Creature)
    n.id = f["id"]
    n.name = f["name"]
    n.kind = f["kind"]
    n.side = f["side"]
    n.owner = f["owner"]
    n.tags = f["tags"]
    n.stats = f["stats"]
    n.conditions = f["conditions"]
    n.hidden = f["hidden"]
    n.skills = f["skills"]
    n.body_plan = f["body_plan"]
    n.areas = f["areas"]
    n.sp = f["sp"]
    n.sp_max = f["sp_max"]
    n.fp = f["fp"]
    n.fp_max = f["fp_max"]
    n.stress = f["stress"]
    n.weapons = f["weapons"]
    n.armor = f["armor"]
    n.wounds = f["wounds"]
    n.afflictions = f["afflictions"]
    n.bleeding = f["bleeding"]
    n.critical_threshold = f["critical_threshold"]
    n.critical_points = f["critical_points"]
    n.critical_target = f["critical_target"]
    n.critical_area = f["critical_area"]
    n.attacks_received = f["attacks_received"]
    n.down = f["down"]
    n.used = f["used"]
    n.used_round = f["used_round"]
    n.channel = f["channel"]
    n.location = f["location"]
    n.position = f["position"]
    n.reach = f["reach"]
    n.speed = f["speed"]
    n.mp = f["mp"]
    n.mp_max = f["mp_max"]
    n.languages = f["languages"]
    n.groups = f["groups"]
    n.attitude = f["attitude"]
    n.gear = f["gear"]
    n.carried_by = f["carried_by"]
    n.packed = f["packed"]
    n.locked = f["locked"]
    n.design = f["design"]
    n.installed_in = f["installed_in"]
    n.pulling = f["pulling"]
    n.system = f["system"]
    n.device = f["device"]
    n.vehicle = f["vehicle"]
    n.sphere = f["sphere"]
    n.quadrant = f["quadrant"]
    return n


COPIERS: dict[type, tuple[Callable[[Any], Any], Callable[[Any], Any],
                         Callable[[Any], dict[str, Any]],
                         Callable[[dict[str, Any]], Any]]] = {
    Condition: (
        full_Condition,
        full_Condition,
        fields_Condition,
        build_Condition,
    ),
    Entity: (
        full_Entity,
        full_Entity,
        fields_Entity,
        build_Entity,
    ),
    EncounterState: (
        full_EncounterState,
        scratch_EncounterState,
        fields_EncounterState,
        build_EncounterState,
    ),
    realms_RealmsCreature: (
        full_realms_RealmsCreature,
        scratch_realms_RealmsCreature,
        fields_realms_RealmsCreature,
        build_realms_RealmsCreature,
    ),
    zones_Creature: (
        full_zones_Creature,
        scratch_zones_Creature,
        fields_zones_Creature,
        build_zones_Creature,
    ),
    polemos_BodyArea: (
        full_polemos_BodyArea,
        full_polemos_BodyArea,
        fields_polemos_BodyArea,
        build_polemos_BodyArea,
    ),
    polemos_Weapon: (
        full_polemos_Weapon,
        full_polemos_Weapon,
        fields_polemos_Weapon,
        build_polemos_Weapon,
    ),
    polemos_ArmorPiece: (
        full_polemos_ArmorPiece,
        full_polemos_ArmorPiece,
        fields_polemos_ArmorPiece,
        build_polemos_ArmorPiece,
    ),
    polemos_Wound: (
        full_polemos_Wound,
        full_polemos_Wound,
        fields_polemos_Wound,
        build_polemos_Wound,
    ),
    polemos_Creature: (
        full_polemos_Creature,
        scratch_polemos_Creature,
        fields_polemos_Creature,
        build_polemos_Creature,
    ),
}
"""(full copy, scratch copy, fields, build) of each class, by the class."""

ANNOTATIONS: dict[type, dict[str, str]] = {
    Condition: {
        'name': 'str',
        'level': 'int',
        'tags': 'tuple[str, ...]',
        'source': 'str | None',
        'duration': 'Duration',
        'data': 'dict[str, Any]',
    },
    Entity: {
        'id': 'str',
        'name': 'str',
        'kind': 'str',
        'side': 'str | None',
        'owner': 'str | None',
        'tags': 'set[str]',
        'stats': 'dict[str, int]',
        'conditions': 'list[Condition]',
        'hidden': 'bool',
    },
    EncounterState: {
        'ruleset': 'str',
        'rulings': 'dict[str, str]',
        'entities': 'dict[str, Entity]',
        'order': 'list[str]',
        'initiative': 'dict[str, int]',
        'round': 'int',
        'turn_index': 'int',
        'in_combat': 'bool',
        'economy': 'dict[str, Any]',
        'version': 'int',
        'extra': 'dict[str, Any]',
        'reveal_on_turn': 'bool',
    },
    realms_RealmsCreature: {
        'tags': 'set[str]',
        'stats': 'dict[str, int]',
        'conditions': 'list[Condition]',
        'creature_level': 'int',
        'health_max': 'int',
        'health': 'int',
        'energy_max': 'int',
        'energy': 'int',
        'strength': 'int',
        'agility': 'int',
        'vitality': 'int',
        'evasion': 'int',
        'defenses': 'dict[str, int]',
        'skills': 'dict[str, int]',
        'proficient': 'list[str]',
        'attack': 'int',
        'damage_bonus': 'int',
        'power_bonus': 'int',
        'initiative_bonus': 'int',
        'weapon': 'str',
        'weapon_range': 'str',
        'weapon_arms': 'bool',
        'weapon_reach': 'int',
        'damage': 'list[dict[str, Any]]',
        'armor': 'dict[str, Any]',
        'shield': 'dict[str, Any]',
        'resist': 'list[str]',
        'vulnerable': 'list[str]',
        'immune': 'list[str]',
        'reductions': 'list[dict[str, Any]]',
        'size': 'str',
        'weight': 'int',
        'load': 'int',
        'climb_speed': 'int | None',
        'swim_speed': 'int | None',
        'fly_speed': 'int | None',
        'flying': 'bool',
        'altitude': 'int',
        'position': 'list[int] | None',
        'companion_of': 'str | None',
        'summoned': 'bool',
        'mountable': 'bool',
        'willing': 'bool',
        'saddled': 'bool',
        'mounted_on': 'str | None',
        'ap': 'int',
        'dying_turns': 'int',
        'stabilized': 'bool',
        'dead': 'bool',
        'unsummoned': 'bool',
        'commanded': 'bool',
        'controls_mount': 'bool',
        'armor_uses': 'int',
        'dr_uses': 'dict[str, int]',
        'shield_uses': 'int',
        'stun_taken': 'int',
        'over_time_seen': 'list[str]',
    },
    zones_Creature: {
        'tags': 'set[str]',
        'stats': 'dict[str, int]',
        'conditions': 'list[Condition]',
        'health_max': 'int',
        'health': 'int',
        'armor': 'int',
        'shield': 'int',
        'kinetic_shielding': 'int',
        'weapons': 'dict[str, dict[str, Any]]',
        'competent': 'list[str]',
        'skills': 'list[str]',
        'ammo': 'dict[str, int]',
        'zone': 'str',
        'group': 'str',
        'engagement': 'str',
        'altitude': 'int',
        'mount': 'str | None',
        'touching': 'list[str]',
        'flanking': 'dict[str, Any]',
        'interference': 'list[str]',
    },
    polemos_BodyArea: {
        'vitality': 'int',
        'vitality_max': 'int',
        'vital': 'bool',
        'adjacent': 'list[str]',
    },
    polemos_Weapon: {
        'skill': 'str',
        'rating': 'int',
        'damage': 'dict[str, int]',
        'range': 'int',
    },
    polemos_ArmorPiece: {
        'name': 'str',
        'areas': 'list[str]',
        'value': 'int',
        'value_max': 'int',
        'ratings': 'dict[str, int]',
        'worn': 'bool',
    },
    polemos_Wound: {
        'id': 'str',
        'name': 'str',
        'area': 'str | None',
        'tags': 'list[str]',
        'fatigue': 'int',
        'level': 'int',
        'known': 'bool',
        'cause': 'str | None',
        'received': 'int',
        'max_days': 'int | None',
        'conditions': 'list[str]',
        'bleeding': 'int',
        'source': 'str | None',
    },
    polemos_Creature: {
        'tags': 'set[str]',
        'stats': 'dict[str, int]',
        'conditions': 'list[Condition]',
        'skills': 'dict[str, int]',
        'body_plan': 'str',
        'areas': 'dict[str, BodyArea]',
        'sp': 'int',
        'sp_max': 'int',
        'fp': 'int',
        'fp_max': 'int',
        'stress': 'int',
        'weapons': 'dict[str, Weapon]',
        'armor': 'list[ArmorPiece]',
        'wounds': 'list[Wound]',
        'afflictions': 'list[Affliction]',
        'bleeding': 'list[Bleed]',
        'critical_threshold': 'int',
        'critical_points': 'int',
        'critical_target': 'str | None',
        'critical_area': 'str | None',
        'attacks_received': 'int',
        'down': 'bool',
        'used': 'list[str]',
        'used_round': 'int',
        'channel': 'dict[str, Any] | None',
        'location': 'str | None',
        'position': 'list[int] | None',
        'reach': 'int',
        'speed': 'int',
        'mp': 'int',
        'mp_max': 'int',
        'languages': 'dict[str, int]',
        'groups': 'list[str]',
        'attitude': 'dict[str, int]',
        'gear': 'list[dict[str, Any]]',
        'carried_by': 'str | None',
        'packed': 'bool',
        'locked': 'bool',
        'design': 'str | None',
        'installed_in': 'str | None',
        'pulling': 'str | None',
        'system': 'bool',
        'device': 'dict[str, Any] | None',
        'vehicle': 'dict[str, Any] | None',
        'sphere': 'str | None',
        'quadrant': 'str | None',
    },
}
"""The annotations of the fields each class declares, as written in its
source: mypyc keeps only bare classes in a native class's ``__annotations__``
(``dict`` for ``dict[str, int]``, ``type`` for ``str | None``): see
``copying.type_hints``."""
