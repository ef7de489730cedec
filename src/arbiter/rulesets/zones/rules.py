"""Decide and evolve for the zones ruleset (seed 002, "Back in Combat").

Offense and defense rolls are roll-under checks (ruling AZ-1, :mod:`.rolls`). A ranged
attack is resolved in the order of Z-RA-3: abilities, ammunition, offense roll, the target's
defense roll on DEX, then damage and drive through :mod:`.damage`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any, NamedTuple, cast

from ...core import (
    ActionEconomy,
    Command,
    Condition,
    EncounterState,
    Entity,
    Event,
    IllegalCommand,
    InvalidCommand,
    Ruleset,
)
from ...core import catalogue as args
from ...core.catalogue import command, event, extends
from ...core.ruleset import CONCEALING, ENTITY_KEYS
from ...dice import DiceSource, roll
from . import aoe as area
from .commands import band, choice, flag, names
from .damage import Hit, fraction_of
from .damage import run as run_damage
from .lasting import ZonesTime
from .model import (
    ALTITUDE,
    RANGE_BANDS,
    RULINGS,
    STATS,
    Creature,
    Effect,
    Weapon,
    adjacent,
    allies,
    band_distance,
    condition_catalogue,
    cover_chart,
    creatures,
    default_range,
    engaged,
    engagements_in,
    group_defenders,
    group_mates,
    injury_type,
    outnumbering,
    unlisted_condition,
    weapon_spec,
    zones,
)
from .rolls import offense_expression, roll_check, success_odds

ZONES_KEYS = {"health", "armor", "shield", "kinetic_shielding", "weapons", "competent",
              "skills", "ammo", "zone", "group", "engagement", "altitude", "mount", "cover",
              "health_now", *STATS}
THROWN_OFFENSE = {"short": "1d12", "medium": "2d20", "long": "X"}
"""The offense dice of any thrown weapon: d12/2d20/X (Z-RA-6; 2d20 read by AZ-3, X by AZ-4)."""
ONE_HANDED_HINDRANCE = {"short": 1, "medium": 2, "long": 4}
"""Hindrance for a conventional ranged weapon wielded one-handed (Z-HND-1)."""
MELEE_INTERFERENCE = 2
FLANK_HINDRANCE = {"basic": 1, "severe": 3}
FLANK_CUTOFFS = {"80-160": (80, 160), "90-170": (90, 170)}
FULL_AUTO_AMMO = 10
ENERGY_AOE_DAMAGE, OVEREFFECT_DAMAGE, PROJECTILE_AOE_DAMAGE = 40, 120, 150
FULL_AUTO_SKILL = "Full-Auto Skill"
_HIT_EVENTS = frozenset({"damaged", "condition_added", "interfered"})
"""Events of a hit that change no creature's side and no health but a ``damaged`` event's
(``down`` is health at 0 or less): the encounter's end is read from them directly."""


class ZonesEconomy(ActionEconomy):
    """A major action, a minor action and a movement each turn (ruling ZR-1).

    A *slowing* action and movement exclude each other in one turn (ruling ZR-7,
    ``no-move``); with ``record-only`` slowing is only recorded.
    """

    def fresh(self, state: Any, who: str) -> dict[str, Any]:
        return {"major": 1, "minor": 1, "moved": False, "slowed": False}

    def spend(self, state: Any, who: str, kind: str, economy: dict[str, Any]) -> dict[str, Any]:
        if kind == "free":
            return dict(economy)
        strict = RULINGS.chosen(state.rulings, "ZR-7", "no-move")
        base, _, slowing = kind.partition("/")
        out = dict(economy)
        if base == "move":
            if out.get("moved"):
                raise IllegalCommand(f"{who} has already moved this turn", rule="ZR-7")
            if strict and out.get("slowed"):
                raise IllegalCommand(f"{who} took a slowing action and cannot move this turn",
                                     rule="ZR-7")
            out["moved"] = True
            return out
        if out.get(base, 0) < 1:
            raise IllegalCommand(f"{who} has no {base} action left this turn", rule="ZR-1")
        if slowing and strict and out.get("moved"):
            raise IllegalCommand(f"{who} has moved this turn, so cannot take a slowing action",
                                 rule="ZR-7")
        out[base] -= 1
        if slowing:
            out["slowed"] = True
        return out


@dataclass
class Shot:
    """A ranged attack, planned and checked before any die is rolled."""

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


class MeleePlan(NamedTuple):
    """A melee attack, checked before any die is rolled (``_plan_melee``)."""

    actor: Creature
    target: Creature
    weapon: Weapon
    data: dict[str, Any]
    hindrance: dict[str, int]
    no_offense_roll: bool


BLIND_NOBODY = "nobody there"
BLIND_LEARNS = "nothing: gone, or simply missed"
BLIND_SECRET = frozenset({"target", "defense", "random_target", "outcome", "attacker_learns",
                          "taken", "pipeline", "injury", "results", "kinetic_shielding"})
"""What a blind attack's record tells only the GM when the target is hidden from the player
(``ZonesRuleset.public_event``)."""


class ZonesRuleset(ZonesTime, Ruleset):
    name = "zones"
    title = "Zones (seed 002: Back in Combat): roll-under offense and defense"
    seed = "002_f87c09dfc02f1736.txt"
    entity_type = Creature
    economy = ZonesEconomy()
    initiative_dice = "1d20"
    concealing = CONCEALING | {"unseen"}  # Z-RA-2: its enemies cannot see it
    _checked: tuple[EncounterState, int, Command, Shot | MeleePlan] | None = None
    """What ``check`` planned last (the state, its version, the command, the plan), for
    ``decide`` of the same command right after it: the simulator's tactics check a command
    and it is decided at once, which then does not plan it a second time."""

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
            data = _cover_data(spec["cover"], entity_id)
            refusal = _cover_refusal(creature, data["improved"])
            if refusal is not None:  # ... if it can use cover (Z-COV-2, Z-COV-11)
                raise refusal
            creature.conditions.append(Condition("cover", data=data))
        return creature

    def lasting(self, state: EncounterState, entity: Entity) -> dict[str, Any]:
        """What outlasts the encounter (docs/rulesets/zones.md): Health and ammunition."""
        if not isinstance(entity, Creature):
            return {}
        out: dict[str, Any] = {"ammo": dict(entity.ammo)}
        if entity.health != entity.health_max:  # unhurt: the stat block's maximum
            out["health_now"] = entity.health
        return out

    def creature(self, state: EncounterState, name: str) -> Creature:
        return state.entity_of(name, Creature)

    def acting(self, state: EncounterState, command: Command) -> Creature:
        actor = self.creature(state, self.actor(state, command).id)
        if actor.down:
            raise IllegalCommand(f"{actor.id} is down and cannot act")
        return actor

    def use(self, state: EncounterState, who: str, kind: str) -> dict[str, Any]:
        """``{"economy": ...}`` after spending ``kind`` in turn-by-turn play, else nothing."""
        if not state.in_combat:
            return {}
        return {"economy": self.spend(state, who, kind)}

    # -- initiative (ruling ZR-3) ---------------------------------------------------------
    def takes_turn(self, state: EncounterState, who: str) -> bool:
        """A creature out of the fight (0 Health, or marked down: ZR-2) gets no turn."""
        found = state.entities.get(who)
        return not (isinstance(found, Creature) and found.down)

    def roll_initiative(
        self, state: EncounterState, entity: Entity, dice: DiceSource
    ) -> tuple[int, dict[str, Any]]:
        """d20 + SPD, highest first (ruling ZR-3; not a roll *on* SPD, so cover stays)."""
        result = roll(f"{self.initiative_dice}+{entity.stat('SPD')}", dice)
        return result.total, result.to_json()

    # -- turns ----------------------------------------------------------------------------
    def turn_end_events(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """Melee interference lasts until the end of the creature's turn (AZ-9); bright light
        from an energy ZAoE ends at the end of its attacker's next turn (Z-ZAO-10)."""
        events = []
        entity = state.entities.get(who)
        if isinstance(entity, Creature) and entity.interference:
            events.append(Event("interference_cleared", {"target": who}))
        lights = state.extra.get("lights")
        if lights:
            for zone, light in sorted(lights.items()):
                if light["by"] == who and light["round"] < state.round:
                    events.append(Event("light_faded", {"zone": zone, "by": who}))
        return events

    @event("{target}'s melee interference ends.",
           target=args.creature("who no longer suffers melee interference"))
    def apply_interference_cleared(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["target"]).interference = []

    @event("The bright light that {by}'s ZAoE left in zone {zone} fades.",
           zone=args.text("the zone no longer lit"),
           by=args.creature("the attacker whose energy ZAoE lit it"))
    def apply_light_faded(self, state: EncounterState, data: dict[str, Any]) -> None:
        lights = state.extra.get("lights")
        if lights is not None and data["zone"] in lights:  # replaced, not changed in place
            state.extra["lights"] = {k: v for k, v in lights.items() if k != data["zone"]}

    # -- geometry -------------------------------------------------------------------------
    @command("Describe a zone: its adjacent zones (both ways) and whether it is indoors.",
             rules=("Z-ZAO-7", "Z-ZAO-9", "Z-AOE-16"),
             id=args.text("the zone's id", required=True, max_len=64),
             adjacent=args.items("ids of the zones next to it (adjacency goes both ways)"),
             indoor=args.flag("the zone is indoors (a powerful AoE may collapse it)"))
    def do_zone(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Describe a zone: id, [adjacent] (zone ids), [indoor]. Adjacency goes both ways."""
        zone = self.arg(command, "id", str)
        return [Event("zone_set", {"id": zone, "adjacent": names(command, "adjacent"),
                                   "indoor": flag(command, "indoor")})]

    @event("Zone {id} ({indoor?indoors|outdoors}) is next to: {adjacent}.",
           id=args.text("the zone"), adjacent=args.items("the zones next to it"),
           indoor=args.flag("indoors"))
    def apply_zone_set(self, state: EncounterState, data: dict[str, Any]) -> None:
        # a new zone map with new entries for the zones it changes: the values of
        # ``state.extra`` are replaced, never changed in place (like the creatures' fields)
        zmap = dict(state.extra.get("zones", {}))

        def entry(zone: str) -> dict[str, Any]:
            old = zmap.get(zone)
            new = {"adjacent": [], "indoor": False} if old is None else {
                **old, "adjacent": list(old["adjacent"])}
            zmap[zone] = new
            return new

        here = entry(data["id"])
        here["indoor"] = data["indoor"]
        for other in data["adjacent"]:
            if other not in here["adjacent"]:
                here["adjacent"].append(other)
            back = here if other == data["id"] else entry(other)
            if data["id"] not in back["adjacent"]:
                back["adjacent"].append(data["id"])
        state.extra["zones"] = zmap

    @command("Move in the movement phase to another zone, group, engagement or altitude; "
             "leaves cover.", who="player", actor="required", cost="move",
             rules=("Z-COV-10", "ZR-7"),
             zone=args.text("the zone to go to (default: where it is)", max_len=64),
             group=args.text("the group to join or form (default: its own)", max_len=64),
             engagement=args.text("the engagement to be in (default: the group's, or the "
                                  "one it joins)", max_len=64),
             altitude=args.integer("altitude on the range-band scale: 0 ground, 1 "
                                   "engagement ... 4 long", lo=0, hi=9999))
    def do_move(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Move in the movement phase: actor, [zone], [group], [engagement], [altitude].

        Moving leaves cover (Z-COV-10).
        """
        actor = self.acting(state, command)
        return self._moved(state, command, actor, self.use(state, actor.id, "move"), "moved")

    @command("Something moves a creature (a range band's distance); short range or more "
             "removes its cover.", rules=("Z-COV-10",),
             target=args.creature("who is moved", required=True),
             distance=args.choice("how far it is moved", *RANGE_BANDS, default="engagement"),
             zone=args.text("the zone to go to (default: where it is)", max_len=64),
             group=args.text("the group to join or form (default: its own)", max_len=64),
             engagement=args.text("the engagement to be in (default: the group's, or the "
                                  "one it joins)", max_len=64),
             altitude=args.integer("altitude on the range-band scale: 0 ground, 1 "
                                   "engagement ... 4 long", lo=0, hi=9999))
    def do_displace(self, state: EncounterState, command: Command,
                    dice: DiceSource) -> list[Event]:
        """Something moves a creature (the GM): target, distance, and where to.

        distance is a range band; where: [zone], [group], [engagement], [altitude]. At least
        short range removes cover (Z-COV-10).
        """
        target = self.creature(state, self.arg(command, "target", str))
        distance = band(command, "distance") or "engagement"
        return self._moved(state, command, target, {"distance": distance}, "displaced")

    def _moved(self, state: EncounterState, command: Command, who: Creature,
               extra: dict[str, Any], kind: str) -> list[Event]:
        altitude = self.arg(command, "altitude", int, who.altitude)
        place: dict[str, Any] = {
            "zone": self.arg(command, "zone", str, who.zone),
            "group": self.arg(command, "group", str, who.group),
            "altitude": altitude,
        }
        joined = next((c.engagement for c in creatures(state) if c.id != who.id
                       and c.group == place["group"] and c.zone == place["zone"]),
                      place["group"])
        place["engagement"] = self.arg(command, "engagement", str,
                                       joined if place["group"] != who.group
                                       or place["zone"] != who.zone else who.engagement)
        events = [Event(kind, {"actor": who.id, "target": who.id, **place, **extra})]
        leaves = kind == "moved" or RANGE_BANDS.index(extra.get("distance", "engagement")) >= 1
        if who.has("cover") and (leaves or altitude > 0):
            why = ("left as part of movement" if kind == "moved"
                   else "moved at least short range" if leaves
                   else "flying: no cover (Z-COV-2)")
            events.append(Event("cover_left", {"target": who.id, "why": why}))
        return events

    @event("{target} moves to zone {zone}, group {group}, engagement {engagement}, "
           "altitude {altitude}.",
           actor=args.creature("who moves"), target=args.creature("who moves"),
           zone=args.text("the zone it is in now"), group=args.text("its group now"),
           engagement=args.text("its engagement now"),
           altitude=args.integer("its altitude now (0: the ground)"))
    def apply_moved(self, state: EncounterState, data: dict[str, Any]) -> None:
        who = self.creature(state, data["target"])
        who.zone, who.group = data["zone"], data["group"]
        who.engagement, who.altitude = data["engagement"], data["altitude"]

    def move_odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """What a ``move`` would cost and trigger, from ``do_move``'s own checks and events
        (it rolls nothing), or its refusal: where it ends (``zone``, ``engagement``,
        ``altitude``), the ``distance`` covered as a range band (ruling ZR-4: ``short``
        within the zone, ``medium`` to an adjacent zone, else ``long``; ``none`` for only a
        change of altitude), in turn-by-turn play what it uses (``uses``: the turn's
        movement) and whether a slowing action is still possible after it (ZR-7), and
        what it triggers: ``leaves_cover`` (Z-COV-10), the creatures whose engagement it
        leaves (``leaves_engagement``) and joins (``joins_engagement``)."""
        actor = self.acting(state, command)
        spent = self.use(state, actor.id, "move")
        events = self._moved(state, command, actor, spent, "moved")
        data = events[0].data
        before = {c.id for c in creatures(state) if c.id != actor.id and engaged(c, actor)}
        after = {c.id for c in creatures(state) if c.id != actor.id and c.zone == data["zone"]
                 and c.engagement == data["engagement"]}
        if (data["zone"], data["engagement"]) == (actor.zone, actor.engagement):
            distance = "none"
        elif data["zone"] == actor.zone:
            distance = "short"
        else:
            distance = "medium" if data["zone"] in adjacent(state, actor.zone) else "long"
        out: dict[str, Any] = {
            "zone": data["zone"], "engagement": data["engagement"],
            "altitude": data["altitude"], "distance": distance,
            "leaves_cover": any(e.type == "cover_left" for e in events),
            "leaves_engagement": sorted(before - after),
            "joins_engagement": sorted(after - before),
        }
        if "economy" in spent:
            out["uses"] = "the turn's movement"
            out["slowing_action_after"] = not RULINGS.chosen(state.rulings, "ZR-7", "no-move")
        return out

    @command("Put a creature in a zone (its group and altitude kept; the engagement of its "
             "group there, else its own); leaving the zone leaves cover.",
             rules=("Z-COV-10",),
             target=args.creature("who is placed", required=True),
             zone=args.text("the zone", required=True, max_len=64))
    def do_place(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """The game master puts a creature in a zone: target, zone."""
        target = self.creature(state, self.arg(command, "target", str))
        zone = self.arg(command, "zone", str)
        if not zone.strip():
            raise InvalidCommand("place: the zone is empty")
        if zone == target.zone:
            raise IllegalCommand(f"{target.id} is already in zone {zone}")
        engagement = next((c.engagement for c in creatures(state) if c.id != target.id
                           and c.group == target.group and c.zone == zone), target.group)
        events = [Event("placed", {"target": target.id, "zone": zone,
                                   "engagement": engagement})]
        if target.has("cover"):
            events.append(Event("cover_left", {"target": target.id, "why": "placed elsewhere"}))
        return events

    @event("{target} is placed in zone {zone} (engagement {engagement}).",
           target=args.creature("who"), zone=args.text("the zone it is in now"),
           engagement=args.text("its engagement now"))
    def apply_placed(self, state: EncounterState, data: dict[str, Any]) -> None:
        who = self.creature(state, data["target"])
        who.zone, who.engagement = data["zone"], data["engagement"]

    public_extra = frozenset({"zones", "lights"})
    """The keys of ``state.extra`` every player sees on the map (server/views.py)."""

    def map_view(self, state: EncounterState, ids: list[str]) -> dict[str, Any]:
        """What the battle map draws beyond zones, for the creatures ``ids`` (those the
        reader may see): the range band between each two of them (``bands``, ruling ZR-4:
        the band an attack uses when the game master gives none)."""
        shown = [c for c in creatures(state) if c.id in set(ids)]
        bands: dict[str, dict[str, str]] = {c.id: {} for c in shown}
        for i, a in enumerate(shown):
            for b in shown[i + 1:]:
                bands[a.id][b.id] = default_range(state, a, b)
                bands[b.id][a.id] = default_range(state, b, a)
        return {"bands": bands}

    @event("{target} is moved ({distance} range) to zone {zone}, group {group}, engagement "
           "{engagement}, altitude {altitude}.",
           actor=args.creature("who moves"), target=args.creature("who moves"),
           zone=args.text("the zone it is in now"), group=args.text("its group now"),
           engagement=args.text("its engagement now"),
           altitude=args.integer("its altitude now (0: the ground)"),
           distance=args.text("how far it was moved (a range band)"))
    def apply_displaced(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.apply_moved(state, data)

    @command("Two groups become engaged with each other.",
             group=args.text("one group", required=True, max_len=64),
             **cast(dict[str, Any], {  # 'with' is a Python keyword
                 "with": args.text("the group it engages (its engagement is kept)",
                                   required=True, max_len=64)}))
    def do_engage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Two groups become engaged (the GM): group, with."""
        group, other = self.arg(command, "group", str), self.arg(command, "with", str)
        members = [c for c in creatures(state) if c.group in (group, other)]
        if not members:
            raise InvalidCommand(f"engage: no creature is in group {group!r} or {other!r}")
        engagement = next(c.engagement for c in members if c.group == other) \
            if any(c.group == other for c in members) else other
        return [Event("engaged", {"ids": [c.id for c in members], "engagement": engagement})]

    @event("{ids} are now in engagement {engagement}.",
           ids=args.creatures("the creatures whose engagement changes"),
           engagement=args.text("their engagement now"))
    def apply_engaged(self, state: EncounterState, data: dict[str, Any]) -> None:
        for who in data["ids"]:
            self.creature(state, who).engagement = data["engagement"]

    @command("A group leaves its engagement (it becomes an engagement of its own).",
             group=args.text("the group that disengages", required=True, max_len=64))
    def do_disengage(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        """A group leaves its engagement (the GM): group."""
        group = self.arg(command, "group", str)
        members = [c.id for c in creatures(state) if c.group == group]
        return [Event("engaged", {"ids": members, "engagement": group})]

    @command("Two creatures are in a grapple (grappling itself is outside the excerpt); "
             "neither can use cover.", actor="required", rules=("Z-COV-2", "Z-RA-8", "Z-MI-1"),
             target=args.creature("the other creature in the grapple", required=True))
    def do_grapple(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Two creatures are in a grapple (the GM): actor, target.

        Grappling rules themselves are outside the excerpt.
        """
        actor = self.creature(state, self.actor(state, command).id)
        return _grapple_events(actor, self.creature(state, self.arg(command, "target", str)))

    @command("End the actor's grapple (both creatures stop grappling).", actor="required",
             rules=("Z-RA-8",))
    def do_release(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """End a grapple: actor."""
        actor = self.creature(state, self.actor(state, command).id)
        partner = actor.grappling()
        if partner is None:
            raise IllegalCommand(f"{actor.id} is not grappling")
        return [Event("condition_removed", {"target": w, "name": "grappling", "why": "released"})
                for w in (actor.id, partner)]

    # -- the GM's conditions -----------------------------------------------------------
    @extends("Give a creature a condition of conditions.toml (another name only with "
             "custom: true).",
             name=args.text("the condition's name (conditions.toml, or any with custom)",
                            required=True, max_len=64),
             custom=args.flag("a condition conditions.toml does not list, given on purpose "
                              "(without it such a name is refused as a typo)"))
    def do_condition(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        """Give a condition (the GM), as in every ruleset, but: a name ``conditions.toml``
        does not list is refused (with the names it does list, nearest first) unless the GM
        gives it on purpose with ``custom: true``; cover is taken with the ``cover`` command
        or a stat block's ``cover``, which give its armor bonus (Z-COV-5); a grapple has two
        sides and ends cover (Z-COV-2), as ``grapple``; a creature marked ``down`` is out of
        the fight (ruling ZR-2), which may end the encounter."""
        name = self.arg(command, "name", str)
        listed = condition_catalogue()
        if name not in listed and not self.arg(command, "custom", bool, False):
            raise InvalidCommand(unlisted_condition(name, listed, "zones"))
        if name == "cover":
            raise InvalidCommand("condition: cover is taken with the cover command (actor, "
                                 "environment or bonus) or a stat block's cover, which give "
                                 "its armor bonus (Z-COV-5)")
        if name == "grappling":
            target = self.creature(state, self.arg(command, "target", str))
            if "source" not in command.args:
                raise InvalidCommand("condition: grappling names its 'source', the creature "
                                     "grappled (or use the grapple command)")
            partner = self.creature(state, self.arg(command, "source", str))
            if partner.id == target.id:
                raise InvalidCommand("condition: a creature cannot grapple itself")
            return _grapple_events(target, partner)
        events = super().do_condition(state, command, dice)
        return events + self._aftermath(state, events) if name == "down" else events

    def do_uncondition(self, state: EncounterState, command: Command,
                       dice: DiceSource) -> list[Event]:
        """Remove a condition (the GM); a grapple ends for both creatures, as ``release``."""
        events = super().do_uncondition(state, command, dice)
        if self.arg(command, "name", str) == "grappling":
            target = self.creature(state, self.arg(command, "target", str))
            partner = state.entities.get(target.grappling() or "")
            if isinstance(partner, Creature) and partner.grappling() == target.id:
                events.append(Event("condition_removed", {"target": partner.id,
                                                          "name": "grappling",
                                                          "why": "released"}))
        return events

    @command("Touch a creature (a free action); from cover, only allies also in cover.",
             who="player", actor="required", cost="free", rules=("Z-COV-3", "Z-AOE-3"),
             target=args.creature("the creature touched", required=True))
    def do_touch(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Touch a creature (a free action): actor, target.

        From cover, only allies also in cover (Z-COV-3).
        """
        actor = self.acting(state, command)
        target = self.creature(state, self.arg(command, "target", str))
        if actor.has("cover") and allies(actor, target) and not target.has("cover"):
            raise IllegalCommand(f"{actor.id} is using cover and cannot touch {target.id}, "
                                 "an ally not in cover", rule="Z-COV-3")
        return [Event("touched", {"actor": actor.id, "target": target.id})]

    @event("{actor} touches {target}.", actor=args.creature("who touches"),
           target=args.creature("who is touched"))
    def apply_touched(self, state: EncounterState, data: dict[str, Any]) -> None:
        actor = self.creature(state, data["actor"])
        if data["target"] not in actor.touching:  # replaced, never changed (SHARED_IN_SCRATCH)
            actor.touching = [*actor.touching, data["target"]]

    # -- cover ----------------------------------------------------------------------------
    @command("Begin using cover (a slowing minor action): an environment of the cover chart, "
             "or the GM's armor bonus.", who="player", actor="required", cost="minor/slowing",
             rules=("Z-COV-1", "Z-COV-2", "Z-COV-5", "Z-COV-6", "Z-COV-11", "Z-COV-14",
                    "AZ-10", "ZR-7"),
             environment=args.text("the environment on the cover chart (open, light, "
                                   "moderate, heavy, improved)", max_len=64),
             bonus=args.integer("the cover's armor bonus, when the GM sets it (Z-COV-6)",
                                lo=0, hi=9999),
             improved=args.flag("improved cover: armor bonus 100 (Z-COV-14)"),
             roofed=args.flag("roofed improved cover (a bunker): it works against flyers "
                              "(Z-COV-16)"))
    def do_cover(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Begin using cover (a slowing minor action): actor, environment or bonus.

        Also [improved] (bonus 100) and [roofed].
        """
        actor = self.acting(state, command)
        improved = flag(command, "improved")
        if actor.has("cover"):
            raise IllegalCommand(f"{actor.id} is already using cover")
        refusal = _cover_refusal(actor, improved)
        if refusal is not None:
            raise refusal
        spec: dict[str, Any] = {"improved": improved, "roofed": flag(command, "roofed")}
        if "environment" in command.args:
            spec["environment"] = self.arg(command, "environment", str)
        if "bonus" in command.args:
            spec["bonus"] = self.arg(command, "bonus", int)
        if self.ruling_is(state, "AZ-10", "gm-only") and "bonus" not in spec and not improved:
            raise InvalidCommand("cover: ruling AZ-10 is gm-only: give the armor 'bonus'")
        data = _cover_data(spec, actor.id)
        return [Event("cover_taken", {"actor": actor.id, "cover": data,
                                      **self.use(state, actor.id, "minor/slowing")})]

    @event("{actor} takes {cover.environment} cover, armor bonus {cover.bonus}"
           "[{cover.improved?, improved|}][{cover.roofed?, roofed|}].",
           actor=args.creature("who takes cover"),
           cover=args.mapping("environment, bonus, improved, roofed"))
    def apply_cover_taken(self, state: EncounterState, data: dict[str, Any]) -> None:
        who = self.creature(state, data["actor"])
        who.conditions = [c for c in who.conditions if c.name != "cover"]
        who.conditions.append(Condition("cover", data=dict(data["cover"])))

    @command("Stop using cover (a free action).", who="player", actor="required",
             cost="free", rules=("Z-COV-10",))
    def do_leave_cover(self, state: EncounterState, command: Command,
                       dice: DiceSource) -> list[Event]:
        """Stop using cover (a free action): actor."""
        actor = self.creature(state, self.actor(state, command).id)
        if not actor.has("cover"):
            raise IllegalCommand(f"{actor.id} is not using cover")
        return [Event("cover_left", {"target": actor.id, "why": "left as a free action"})]

    @event("{target} is no longer in cover[ ({why})].",
           target=args.creature("who leaves cover"), why=args.text("why"))
    def apply_cover_left(self, state: EncounterState, data: dict[str, Any]) -> None:
        who = self.creature(state, data["target"])
        who.conditions = [c for c in who.conditions if c.name != "cover"]

    # -- plain rolls ----------------------------------------------------------------------
    @command("A roll-under roll on a stat (DEX, STR, SPD...); a roll on SPD not "
             "voluntarily failed ends cover.", who="player", when="any", actor="required",
             rules=("Z-MI-3", "Z-COV-10", "AZ-1", "AZ-2", "AZ-3"),
             stat=args.text("the stat rolled on: DEX, STR, SPD, WGT...", required=True,
                            max_len=64),
             expr=args.dice("the dice rolled", default="1d20"),
             hindrance=args.integer("Hindrance added to the roll", default=0),
             melee_interference=args.flag("the roll is subject to melee interference "
                                          "(Z-MI-3)"),
             voluntary_fail=args.flag("the roller chooses to fail (a roll on SPD then keeps "
                                      "cover)"))
    def do_roll(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A roll on a stat: actor, stat (DEX, STR, SPD...), [expr] (default 1d20).

        Also [hindrance], [melee_interference] (the roll is subject to it, Z-MI-3),
        [voluntary_fail]. A roll on SPD not voluntarily failed ends cover (Z-COV-10).
        """
        actor = self.creature(state, self.actor(state, command).id)
        on = self.arg(command, "stat", str)
        expr = self.arg(command, "expr", str, "1d20")
        hindrance = {"hindrance": self.arg(command, "hindrance", int, 0)}
        if flag(command, "melee_interference"):
            hindrance.update(self._interference(state, actor))
        fail = flag(command, "voluntary_fail")
        check = roll_check(expr, on, actor.stat(on), hindrance, dice, state.rulings, fail)
        events = [Event("rolled", {"actor": actor.id, "roll": check,
                                   "success": check["success"]})]
        if on == "SPD" and not fail and actor.has("cover"):
            events.append(Event("cover_left", {"target": actor.id, "why": "rolled on SPD"}))
        return events

    @event("{actor} rolls on {roll.on}: {roll.text}.",
           actor=args.creature("who rolls"),
           roll=args.mapping("the roll: dice, rolled, natural, Hindrance, total, stat, text"),
           success=args.flag("the roll succeeds"))
    def apply_rolled(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    def _interference(self, state: EncounterState, actor: Creature) -> dict[str, int]:
        """Melee interference Hindrance (Z-MI-1): +2 after a melee attack since your last turn
        that succeeded on its offense roll, or while grappling; flat by AZ-8."""
        meleed, grappling = bool(actor.interference), actor.has("grappling")
        if not (meleed or grappling):
            return {}
        if self.ruling_is(state, "AZ-8", "per-source"):
            return {"melee interference": MELEE_INTERFERENCE * (int(meleed) + int(grappling))}
        return {"melee interference": MELEE_INTERFERENCE}

    # -- flanking -------------------------------------------------------------------------
    @command("Set how a creature is flanked: the direction of each group, or the type "
             "(basic, severe, none) and the groups.", rules=("Z-FLK-1", "Z-FLK-2", "Z-FLK-3"),
             target=args.creature("the flanked creature", required=True),
             angles=args.mapping("group id to the direction in whole degrees, seen from "
                                 "the defender"),
             type=args.choice("the flanking type, when the GM classifies it", "basic",
                              "severe", "none"),
             groups=args.items("the flanking groups (with type)"))
    def do_flank(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Set how a creature is flanked (the GM, Z-FLK-3): target, angles or type.

        angles: group → degrees seen from the defender; or type (basic, severe, none) and
        groups.
        """
        target = self.creature(state, self.arg(command, "target", str))
        angles = self.arg(command, "angles", dict, {})
        kind = choice(command, "type", ("basic", "severe", "none"), None)
        if not angles and kind is None:
            raise InvalidCommand("flank: give 'angles' (group: degrees) or 'type' and 'groups'")
        flanking: dict[str, Any] = {}
        if angles:
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in angles.values()):
                raise InvalidCommand("flank: angles are whole degrees, e.g. {north: 0, east: 90}")
            flanking["angles"] = {str(k): int(v) for k, v in angles.items()}
        if kind is not None:
            flanking["type"] = kind
            flanking["groups"] = names(command, "groups")
        return [Event("flanking_set", {"target": target.id, "flanking": flanking})]

    @event("{target}'s flanking is set[: {flanking.type}][ by {flanking.groups}]"
           "[ (directions: {flanking.angles})].",
           target=args.creature("the flanked creature"),
           flanking=args.mapping("angles, or type and groups"))
    def apply_flanking_set(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["target"]).flanking = dict(data["flanking"])

    @command("Prioritise a flank at the end of the movement phase: no flanking Hindrance "
             "from those groups, doubled from the others.", who="player", when="any",
             actor="required", cost="free", rules=("Z-FLK-4", "Z-FLK-5"),
             groups=args.items("the group(s) prioritised (several only in very similar "
                               "directions)", required=True))
    def do_prioritize(self, state: EncounterState, command: Command,
                      dice: DiceSource) -> list[Event]:
        """Prioritise a flank at the end of the movement phase: actor, groups (Z-FLK-4)."""
        actor = self.creature(state, self.actor(state, command).id)
        groups = names(command, "groups")
        if not groups:
            raise InvalidCommand("prioritize: name the group(s) to prioritise")
        angles = actor.flanking.get("angles", {})
        basic, _ = FLANK_CUTOFFS[self.ruling(state, "AZ-22")]
        for a, b in combinations([g for g in groups if g in angles], 2):
            if _separation(angles[a], angles[b]) >= basic:
                raise IllegalCommand(f"{a} and {b} are not in very similar directions "
                                     f"({_separation(angles[a], angles[b])} degrees apart): "
                                     "they cannot be prioritised at once", rule="Z-FLK-5")
        return [Event("flank_prioritized", {"actor": actor.id, "target": actor.id,
                                            "groups": groups,
                                            **self.use(state, actor.id, "free")})]

    @event("{actor} prioritises the flank of {groups}: no flanking Hindrance from there, "
           "doubled from the other directions.",
           actor=args.creature("the defender"), target=args.creature("the defender"),
           groups=args.items("the groups prioritised"))
    def apply_flank_prioritized(self, state: EncounterState, data: dict[str, Any]) -> None:
        who = self.creature(state, data["target"])
        who.flanking = {**who.flanking, "prioritized": list(data["groups"])}

    def flanking_type(self, state: EncounterState, defender: Creature) -> tuple[str, list[str]]:
        """The flanking that applies to a defender and the groups that count (Z-FLK-1..7)."""
        info = defender.flanking
        groups = list(info.get("angles", {})) or list(info.get("groups", []))
        counting = []
        for g in groups:
            members = [c for c in creatures(state) if c.group == g and not c.down]
            if any(engaged(c, defender) for c in members):
                continue  # engaged with the defender's group: does not help flank (Z-FLK-7)
            if members and all("strafing" in c.tags for c in members):
                continue  # strafing aircraft do not count (Z-FLK-7)
            counting.append(g)
        if len(counting) < 2:
            return "none", counting
        if "type" in info:
            return str(info["type"]), counting
        basic, severe = FLANK_CUTOFFS[self.ruling(state, "AZ-22")]
        widest = 0
        for a, b in combinations(counting, 2):
            widest = max(widest, _separation(info["angles"][a], info["angles"][b]))
        kind = "severe" if widest >= severe else "basic" if widest >= basic else "none"
        return kind, counting  # the most severe pair applies to every group (Z-FLK-5)

    def flank_hindrance(self, state: EncounterState, defender: Creature, attacker: Creature,
                        range_band: str) -> dict[str, int]:
        if range_band == "engagement":
            return {}  # never at engagement range (Z-FLK-6)
        kind, counting = self.flanking_type(state, defender)
        if kind == "none":
            return {}
        base = FLANK_HINDRANCE[kind]
        prioritized = [g for g in defender.flanking.get("prioritized", []) if g in counting]
        if attacker.group in prioritized:
            return {}
        if prioritized:
            return {f"{kind} flanking, doubled (a flank is prioritised)": 2 * base}
        return {f"{kind} flanking": base}

    # -- ranged attacks -------------------------------------------------------------------
    def plan_shot(self, state: EncounterState, command: Command) -> Shot:
        """Check a ranged attack and work out its dice and Hindrance, rolling nothing."""
        actor = self.acting(state, command)
        if isinstance(command.args.get("weapon"), list):
            raise IllegalCommand("only one ranged weapon (or weapon-equivalent Ability) may "
                                 "be involved in a single attack", rule="Z-RA-7")
        weapon = actor.weapon(self.arg(command, "weapon", str) if "weapon" in command.args
                              else _default_ranged(actor))
        if weapon.zaoe is not None:
            raise IllegalCommand(f"{weapon.name} is a zonewide AoE: use the zaoe command",
                                 rule="Z-ZAO-1")
        thrown = weapon.kind in ("thrown", "melee")
        unaimed, blind = flag(command, "unaimed"), flag(command, "blind")
        if unaimed and blind:
            raise IllegalCommand("a ranged attack cannot be both blind and unaimed",
                                 rule="Z-BLI-7")
        competent_normally = actor.is_competent(weapon) and (
            weapon.kind != "melee" or weapon.throwing)
        if unaimed and not competent_normally:
            raise IllegalCommand(f"{actor.id} is not competent with {weapon.name}, so cannot "
                                 "make an unaimed attack", rule="Z-UNA-1")
        competent = competent_normally and not unaimed and not blind
        full_auto = flag(command, "full_auto")
        partner = actor.grappling()
        in_grapple = actor.has("grappling")  # with a partner named or not
        if in_grapple and thrown:
            raise IllegalCommand(f"{actor.id} is in a grapple: only a non-thrown ranged weapon "
                                 "can be used", rule="Z-RA-8")
        one_handed = flag(command, "one_handed") or in_grapple
        marksmanship = names(command, "marksmanship")
        if marksmanship and not competent:
            raise IllegalCommand("an incompetent ranged attack cannot use Marksmanship "
                                 f"Abilities ({', '.join(marksmanship)})", rule="Z-RA-5")
        blinded = actor.has("blinded")
        aoe_kind, source, impact, area_effect = self._aoe_mode(state, command, actor, weapon,
                                                               full_auto, thrown)
        # targets
        targets = [self.creature(state, t) for t in names(command, "targets")]
        if "target" in command.args:
            targets.insert(0, self.creature(state, self.arg(command, "target", str)))
        spread = names(command, "spread")
        spread_engagements = []
        for g in spread:
            members = [c for c in creatures(state) if (c.group == g or c.engagement == g)
                       and not c.down]
            if not members:
                raise InvalidCommand(f"attack: nobody standing is in group {g!r}")
            spread_engagements.append(members[0].engagement)
        engagement = command.args.get("engagement")
        if blinded and self.ruling_is(state, "AZ-26", "grapple-only"):
            raise IllegalCommand("ruling AZ-26 (grapple-only): the only ranged attack without "
                                 "sight is against a grapple partner", rule="Z-RA-2")
        if blind:
            if self.ruling_is(state, "AZ-26", "grapple-only"):
                raise IllegalCommand("ruling AZ-26 (grapple-only): blind attacks are not "
                                     "allowed", rule="Z-RA-2")
            if not competent_normally:
                raise IllegalCommand(f"{actor.id} must be normally competent with "
                                     f"{weapon.name} to attack blind", rule="Z-BLI-2")
            if blinded:
                raise IllegalCommand(f"{actor.id} is blinded: a blind attack needs an attacker "
                                     "who can otherwise see", rule="Z-BLI-2")
            if engagement is None:
                raise InvalidCommand("attack: a blind attack names the 'engagement' it aims at")
        if not targets and not blind and not (aoe_kind == "spray" or spread or blinded
                                               or "group" in command.args):
            raise InvalidCommand("attack: missing argument 'target'")
        for t in targets:
            if t.down:
                raise IllegalCommand(f"{t.id} is already down")
            if t.id == actor.id:
                raise IllegalCommand("a creature cannot shoot itself")
        if len(targets) > 1 and not full_auto:
            raise IllegalCommand("a ranged attack has one target", rule="Z-RA-3")
        # sight (Z-RA-2, Z-RA-8, AZ-26)
        for t in targets:
            if t.has("unseen") and not allies(actor, t) and t.id != partner and not blind:
                raise IllegalCommand(f"{actor.id} cannot see {t.id}: a ranged attack needs a "
                                     "visible target", rule="Z-RA-2")
        # range
        first = targets[0] if targets else None
        zone = first.zone if first else actor.zone
        group_arg = command.args.get("group")
        if first is None and group_arg is not None:
            members = [c for c in creatures(state) if c.group == group_arg and not c.down]
            if not members:
                raise InvalidCommand(f"attack: nobody standing is in group {group_arg!r}")
            first = members[0]
            zone = first.zone
        if blinded and not (aoe_kind and not spread and engagement in (None, actor.engagement)
                            and (first is None or engaged(actor, first))):
            raise IllegalCommand(f"{actor.id} is fully blinded: only an AoE at its own "
                                 "engagement is possible", rule="Z-BLI-1")
        if blind:
            zone = actor.zone
            for c in creatures(state):
                if c.engagement == engagement:
                    zone = c.zone
                    break
        given = band(command)
        if given is not None:
            range_band = given
        elif first is not None and not blind:
            range_band = default_range(state, actor, first)
        elif blind:
            range_band = "engagement" if engagement == actor.engagement and \
                zone == actor.zone else "short" if zone == actor.zone else "medium"
        else:
            range_band = "short"
        grapple_partner = first is not None and first.id == partner
        if range_band == "engagement" and self.ruling_is(state, "AZ-7", "not-allowed") \
                and not grapple_partner:
            raise IllegalCommand("ruling AZ-7: no ranged attack at engagement range except "
                                 "against a grapple partner", rule="Z-RA-6")
        values_band = "short" if range_band == "engagement" else range_band  # AZ-7
        if not competent:
            if values_band != "short":
                raise IllegalCommand(f"an incompetent ranged attack is only possible at short "
                                     f"range, not {range_band}", rule="Z-RA-5")
            if actor.mount:
                raise IllegalCommand(f"{actor.id} is mounted and cannot make an incompetent "
                                     "ranged attack", rule="Z-RA-5")
        if blind and values_band != "short":
            raise IllegalCommand("a blind attack needs the unseen target known to be within "
                                 "short range", rule="Z-BLI-2")
        # full-auto (Z-FA-1, Z-FA-2, AZ-18)
        if full_auto:
            if weapon.full_auto_damage is None:
                raise IllegalCommand(f"{weapon.name} lists no full-auto damage and cannot fire "
                                     "full-auto", rule="Z-FA-2")
            limits = source != "projectile" or self.ruling_is(state, "AZ-18",
                                                              "full-auto-limits")
            if limits and FULL_AUTO_SKILL not in actor.skills:
                if values_band != "short":
                    raise IllegalCommand(f"without {FULL_AUTO_SKILL}, full-auto is only "
                                         f"possible at short range, not {range_band}",
                                         rule="Z-FA-1")
                if len(targets) > 1:
                    raise IllegalCommand(f"without {FULL_AUTO_SKILL}, full-auto can only "
                                         "target a single character", rule="Z-FA-1")
        elif source == "projectile":
            raise IllegalCommand("a projectile AoE is fired in full-auto mode: add "
                                 "full_auto: true", rule="Z-PAO-1")
        # STR requirement of thrown weapons (Z-THR-3)
        if thrown and actor.stat("STR") < weapon.requirement():
            raise IllegalCommand(f"{actor.id} has STR {actor.stat('STR')}, and throwing "
                                 f"{weapon.name} needs {weapon.requirement()}", rule="Z-THR-3")
        # offense dice (Z-RA-5, Z-RA-6, AZ-4, AZ-5, AZ-6)
        if not competent:
            expr = "1d20"
        elif thrown:
            expr = THROWN_OFFENSE[values_band]
            if expr.upper() == "X" and self.ruling_is(state, "AZ-4", "per-weapon"):
                expr = weapon.offense.get(values_band, "X")  # the weapon's own value (AZ-4)
        else:
            listed = weapon.offense.get(values_band)
            if listed is None:
                if self.ruling_is(state, "AZ-5", "weapon-data"):
                    raise IllegalCommand(f"{weapon.name} lists no offense dice at "
                                         f"{values_band} range", rule="Z-RA-6")
                listed = "1d20"
            expr = listed
        if expr.upper() == "X":
            raise IllegalCommand(f"{weapon.name} cannot attack at {range_band} range (X)" + (
                ": it lists no offense dice there (AZ-4 per-weapon)" if thrown and
                self.ruling_is(state, "AZ-4", "per-weapon") else ""), rule="Z-RA-6")
        on = "DEX" if self.ruling_is(state, "AZ-6", "always-dex") or not competent \
            else weapon.offense_stat
        hindrance: dict[str, int] = {}
        if one_handed and weapon.hands == 2 and not thrown and not weapon.ability:
            hindrance["one-handed"] = ONE_HANDED_HINDRANCE[values_band]
        hindrance.update(self._interference(state, actor))
        if self.arg(command, "hindrance", int, 0):
            hindrance["other"] = self.arg(command, "hindrance", int, 0)
        # caution (Z-AOE-8)
        caution = flag(command, "caution")
        if caution and not aoe_kind:
            raise InvalidCommand("attack: caution only applies to an AoE")
        if caution and not competent:
            raise IllegalCommand("caution cannot be used with an incompetent weapon attack",
                                 rule="Z-AOE-8")
        if caution and spread:
            raise IllegalCommand("no caution when an AoE spreads over several engagements",
                                 rule="Z-AOE-11")
        # ammunition (Z-RA-3, Z-FA-2)
        cost = FULL_AUTO_AMMO if full_auto else weapon.ammo_per_shot
        left = actor.ammo.get(weapon.name)
        if left is not None and left < cost:
            raise IllegalCommand(f"{actor.id} has {left} rounds for {weapon.name} and needs "
                                 f"{cost}", rule="Z-FA-2" if full_auto else "Z-RA-3")
        normal = self._normal(actor, weapon, thrown, full_auto)
        unaimed_action = "major" if unaimed else "major/slowing"  # Z-RA-1, Z-UNA-1
        return Shot(actor=actor, weapon=weapon, targets=targets, band=range_band,
                    competent=competent, unaimed=unaimed, blind=blind, thrown=thrown,
                    one_handed=one_handed, full_auto=full_auto, expr=expr, on=on,
                    stat=actor.stat(on), hindrance=hindrance, ammo_cost=cost, normal=normal,
                    action=unaimed_action, aoe=aoe_kind, aoe_source=source, impact=impact,
                    area=area_effect, engagement=engagement if blind else (
                        first.engagement if first else actor.engagement),
                    zone=zone, spread=spread, caution=caution, blinded=blinded,
                    grapple_partner=grapple_partner,
                    engagements=tuple(spread_engagements) if spread else (
                        str(engagement if blind else first.engagement if first
                            else actor.engagement),))

    def _normal(self, actor: Creature, weapon: Weapon, thrown: bool, full_auto: bool) -> Effect:
        """Damage and drive of a normal hit: full-auto damage (Z-FA-2), STR added when thrown
        (Z-THR-2; to drive too when the weapon says so)."""
        damage = weapon.full_auto_damage if full_auto and weapon.full_auto_damage else \
            weapon.damage
        drive = weapon.normal.drive
        if thrown and weapon.kind == "melee":
            damage += actor.stat("STR")
            if weapon.str_drive:
                drive += actor.stat("STR")
        if weapon.energy:
            drive = damage
        return Effect(damage, drive)

    def _aoe_mode(self, state: EncounterState, command: Command, actor: Creature,
                  weapon: Weapon, full_auto: bool,
                  thrown: bool) -> tuple[str | None, str | None, Effect | None, Effect | None]:
        """Which AoE (if any) the attack makes, and its impact and area effects."""
        rulings = state.rulings
        asked = choice(command, "aoe", ("burst", "spray"), None)
        if weapon.aoe is not None:
            kind = asked or ("burst" if weapon.aoe == "both" else weapon.aoe)
            if weapon.aoe not in ("both", kind):
                raise IllegalCommand(f"{weapon.name} is a {weapon.aoe} AoE, not a {kind}",
                                     rule="Z-AOE-1")
            if weapon.effect is not None and weapon.impact is None and weapon.area is None:
                return kind, "effect", None, None
            return kind, "weapon", weapon.impact if kind == "burst" else None, weapon.area
        energy = weapon.energy or (weapon.type == "mixed"
                                   and self.ruling_is(state, "AZ-14", "any-damage"))
        if asked is None and not energy:
            return None, None, None, None  # neither an AoE asked for nor an overeffect
        normal = self._normal(actor, weapon, thrown, False)
        threshold = normal.damage if self.ruling_is(state, "AZ-13", "after-modifiers") \
            else weapon.damage
        if asked is not None:
            if weapon.aoe_types and asked not in weapon.aoe_types:
                raise IllegalCommand(f"{weapon.name} can only make a "
                                     f"{' or '.join(weapon.aoe_types)} AoE", rule="Z-EAO-3")
            if weapon.energy and threshold >= ENERGY_AOE_DAMAGE:
                fr = {"impact": "3/4", "area": "1/4", "spray": "1/3", **weapon.aoe_fractions}
                if asked == "burst":
                    return "burst", "energy", _part(normal.damage, fr["impact"], rulings), \
                        _part(normal.damage, fr["area"], rulings)
                return "spray", "energy", None, _part(normal.damage, fr["spray"], rulings)
            fa = weapon.full_auto_damage
            if asked == "spray" and fa is not None and fa >= PROJECTILE_AOE_DAMAGE:
                return "spray", "projectile", None, Effect(
                    fraction_of(fa, 1, 4, rulings), weapon.normal.drive)
            raise IllegalCommand(
                f"{weapon.name} cannot make an AoE: that needs an energy weapon of damage "
                f"{ENERGY_AOE_DAMAGE} or more, or a full-auto damage of {PROJECTILE_AOE_DAMAGE} "
                "or more (spray)", rule="Z-EAO-1")
        if energy and threshold >= OVEREFFECT_DAMAGE and not full_auto:
            area_part = weapon.aoe_fractions.get("overeffect", "1/6")
            return "burst", "overeffect", normal, _part(normal.damage, area_part, rulings)
        return None, None, None, None

    @command("A ranged attack (a slowing major action; unaimed: not slowing): offense roll, "
             "the target's defense roll on DEX, then damage and drive.",
             who="player", actor="required", cost="major/slowing",
             rules=("Z-RA-1", "Z-RA-2", "Z-RA-3", "Z-RA-4", "Z-RA-5", "Z-RA-6", "Z-RA-7",
                    "Z-RA-8", "Z-HND-1", "Z-HND-2", "Z-UNA-1", "Z-BLI-1", "Z-BLI-2",
                    "Z-BLI-3", "Z-BLI-4", "Z-BLI-5", "Z-BLI-6", "Z-BLI-7", "Z-BLI-8",
                    "Z-MI-1", "Z-MI-2", "Z-THR-1", "Z-THR-2", "Z-THR-3", "Z-INJ-1", "Z-INJ-2",
                    "Z-FA-1", "Z-FA-2", "Z-FA-3", "Z-FA-4", "Z-AOE-1", "Z-AOE-2", "Z-AOE-3",
                    "Z-AOE-4", "Z-AOE-5", "Z-AOE-6", "Z-AOE-7", "Z-AOE-8", "Z-AOE-9",
                    "Z-AOE-10", "Z-AOE-11", "Z-AOE-12", "Z-AOE-13", "Z-AOE-14", "Z-AOE-15",
                    "Z-AOE-16", "Z-EAO-1", "Z-EAO-2", "Z-EAO-3", "Z-OVR-1", "Z-OVR-2",
                    "Z-OVR-3", "Z-OVR-4", "Z-PAO-1", "Z-COV-7", "Z-COV-8", "Z-COV-12",
                    "Z-COV-13", "Z-COV-15", "Z-COV-16", "Z-COV-17", "Z-FLK-1", "Z-FLK-2",
                    "Z-FLK-4", "Z-FLK-5", "Z-FLK-6", "Z-FLK-7", "Z-THR-4", "ZR-3", "ZR-6"),
             target=args.creature("the creature attacked (a burst's direct target)",
                                  refers="enemy"),
             weapon=args.value("the one ranged weapon or weapon-equivalent Ability used, by "
                               "name (default: the first ranged one; only one: Z-RA-7)"),
             range=args.choice("the range band (default: from the zone map)", *RANGE_BANDS),
             unaimed=args.flag("an unaimed attack: incompetent, but not slowing (Z-UNA-1)"),
             blind=args.flag("a blind attack at an unseen enemy in a known engagement "
                             "(Z-BLI-2)"),
             engagement=args.text("the engagement a blind attack aims at", max_len=64),
             location_known=args.flag("the attacker knows the unseen enemy's engagement "
                                      "(the GM's call, Z-BLI-3; default: an ally is there)"),
             full_auto=args.flag("full-auto fire: full-auto damage, 10 rounds (Z-FA-*)"),
             targets=args.creatures("more targets of a full-auto attack", refers="enemy"),
             aoe=args.choice("the AoE made (default: the weapon's own)", "burst", "spray"),
             group=args.text("the group an AoE is aimed at, without a target", max_len=64),
             spread=args.items("the groups or engagements an AoE spreads over (the GM "
                               "allows it, Z-AOE-11)"),
             caution=args.flag("an AoE fired with caution (Z-AOE-8)"),
             one_handed=args.flag("the weapon is wielded one-handed (Z-HND-1)"),
             marksmanship=args.items("the Marksmanship Abilities used"),
             critical=args.flag("the GM rules a critical hit (ruling ZR-3)"),
             ignore_cover=args.flag("a critical hit denies the cover bonus (Z-COV-7)",
                                    default=True),
             defend_with=args.choice("the defender's armor bonus: cover or shield, never "
                                     "both (Z-COV-12)", "cover", "shield"),
             group_defense=args.flag("the defender is protected by group defense against an "
                                     "engaged attacker (Z-COV-8)"),
             cover_applies=args.flag("the cover protects against this attacker (the GM's "
                                     "call, Z-COV-15)", default=True),
             tall_cover=args.flag("tall cover: a flyer's height does not defeat it "
                                  "(Z-COV-17)"),
             hindrance=args.integer("other Hindrance on the offense roll", default=0),
             defense_hindrance=args.integer("other Hindrance on the defense roll", default=0),
             injury=args.text("the injury type, when the GM names it (Z-INJ-1)", max_len=64))
    def do_attack(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A ranged attack (a slowing major action): target, [weapon], [range], and more.

        Arguments: [unaimed], [blind, engagement, location_known], [full_auto], [targets],
        [aoe burst|spray], [group], [spread], [caution], [one_handed], [marksmanship],
        [critical], [ignore_cover], [defend_with cover|shield], [group_defense],
        [cover_applies], [tall_cover], [hindrance], [defense_hindrance], [injury].
        """
        checked = self._checked_plan(state, command)
        shot = checked if isinstance(checked, Shot) else self.plan_shot(state, command)
        actor = shot.actor
        data: dict[str, Any] = {
            "actor": actor.id, "weapon": shot.weapon.name, "range": shot.band,
            "competent": shot.competent, "action": shot.action, "full_auto": shot.full_auto,
            "order": ["abilities", "ammunition", "offense", "defense", "damage & drive"],
        }
        data.update(self.use(state, actor.id, shot.action))
        # ``check`` stops here for a plain shot: nothing below may refuse one
        left = actor.ammo.get(shot.weapon.name)
        if left is not None:
            data["ammo"] = {"weapon": shot.weapon.name, "left": left - shot.ammo_cost}
        if shot.aoe is not None:
            return self._attack_aoe(state, command, shot, data, dice)
        offense = roll_check(shot.expr, shot.on, shot.stat, shot.hindrance, dice, state.rulings)
        data["offense"] = offense
        critical, denied = self._critical(state, command, shot, offense)
        data["critical"] = critical
        if denied:
            data["critical_denied"] = denied
        targets = shot.targets
        if shot.blind:
            unseen = [c for c in creatures(state) if c.engagement == shot.engagement
                      and c.zone == shot.zone and c.has("unseen") and not allies(actor, c)
                      and not c.down]
            known = self.arg(command, "location_known", bool, any(
                c.engagement == shot.engagement and allies(actor, c) for c in creatures(state)))
            if not known:
                raise IllegalCommand("the attacker does not know where an unseen enemy is, to "
                                     "engagement level (the GM's call)", rule="Z-BLI-3")
            data["engagement"] = shot.engagement
            if not offense["success"]:
                data["hit"] = False
                return [Event("attacked", data)]
            if not unseen:
                data.update(hit=False, outcome=BLIND_NOBODY, attacker_learns=BLIND_LEARNS)
                return [Event("attacked", data)]
            if len(unseen) > 1:
                pick = roll(f"1d{len(unseen)}", dice).total
                data["random_target"] = {"among": [c.id for c in unseen], "roll": pick}
                targets = [unseen[pick - 1]]
            else:
                targets = unseen
            data["target"] = targets[0].id
        elif targets:
            data["target"] = targets[0].id
        if not offense["success"]:
            data["hit"] = False
            return [Event("attacked", data)]
        events: list[Event] = []
        results: dict[str, Any] = {}
        for target in targets:
            result, hit_events = self._ranged_hit(state, command, shot, target, critical, dice)
            results[target.id] = result
            events += hit_events
        if len(targets) == 1:
            data.update(results[targets[0].id])
        else:
            data["results"] = results
            data["hit"] = any(r["hit"] for r in results.values())
        return [Event("attacked", data), *events, *self._aftermath(state, events)]

    def public_event(self, event_type: str, data: dict[str, Any],
                     concealed: frozenset[str]) -> dict[str, Any]:
        """Z-BLI-6: a blind attack whose offense roll succeeds but hits nobody tells the
        attacker nothing: gone, or simply missed. A player who cannot see the unseen enemies
        gets the same record whether nobody was there or the enemy there defended (no
        target, no defense roll, and the dice of neither), and of a hit only that it hit."""
        if event_type != "attacked" or "engagement" not in data:
            return data  # not a blind attack
        target = data.get("target")
        if data.get("outcome") != BLIND_NOBODY and (target is None or target not in concealed):
            return data
        shown = {k: v for k, v in data.items() if k not in BLIND_SECRET}
        if not data.get("hit") and data.get("offense", {}).get("success"):
            shown["attacker_learns"] = BLIND_LEARNS
        return shown

    def _critical(self, state: EncounterState, command: Command, shot: Shot,
                  offense: dict[str, Any]) -> tuple[bool, str | None]:
        """A critical hit (ruling ZR-3), unless the attack cannot inflict one."""
        asked = flag(command, "critical")
        if self.ruling_is(state, "ZR-3", "natural-1") and offense["success"]:
            asked = asked or all(v == 1 for v in offense["rolled"])
        if not asked:
            return False, None
        if shot.blind:
            return False, "blind attacks cannot inflict critical hits (Z-BLI-4)"
        if shot.full_auto:
            return False, "full-auto attacks cannot inflict critical hits (Z-FA-3)"
        return True, None

    @event("{actor} attacks[ {target}] with {weapon} at {range} range[ ({aoe} AoE)]"
           "[; offense {offense.text}][ ({offense_note})][; defense {defense.text}]"
           "; {hit?hit|no hit}[{critical?, a critical hit|}][, {taken} damage]"
           "[ ({injury.type})][; damage taken: {damage_taken}][; {cover_ignored}]"
           "[{stopped_by_cover?; stopped by cover|}][; {critical_denied}][; {outcome}]"
           "[; {collapse_check}].",
           player="{actor} attacks[ {target}] with {weapon} at {range} range[ ({aoe} AoE)]"
           "[; offense {offense.text}][ ({offense_note})][; defense {defense.text}]"
           "; {hit?hit|no hit}[{critical?, a critical hit|}][, {taken} damage]"
           "[ ({injury.type})][; damage taken: {damage_taken}][; {cover_ignored}]"
           "[{stopped_by_cover?; stopped by cover|}][; {critical_denied}]"
           "[; the attacker learns {attacker_learns}].",
           actor=args.creature("the attacker"), weapon=args.text("the weapon"),
           range=args.text("the range band"),
           competent=args.flag("a competent attack"),
           action=args.text("the action spent: major, or major/slowing"),
           full_auto=args.flag("full-auto fire"),
           order=args.items("the order of resolution (Z-RA-3)"),
           ammo=args.mapping("the weapon and the rounds left"),
           offense=args.mapping("the offense roll (none: blinded, or a non-damaging AoE)"),
           offense_note=args.text("why there is no offense roll"),
           offense_success=args.flag("the offense roll counts as a success (AoE)"),
           critical=args.flag("a critical hit"),
           critical_denied=args.text("why the attack cannot be a critical hit"),
           engagement=args.text("the engagement a blind attack aimed at"),
           target=args.creature("the creature attacked"),
           random_target=args.mapping("the unseen enemies and the die that picked one "
                                      "(Z-BLI-5)"),
           outcome=args.text("a blind attack that found nobody"),
           attacker_learns=args.text("what a blind attacker is told (Z-BLI-6)"),
           defense=args.mapping("the target's defense roll"),
           hit=args.flag("the attack hit someone"),
           cover_ignored=args.text("why the cover bonus did not count"),
           stopped_by_cover=args.flag("the cover bonus stopped it: not a hit (Z-COV-13)"),
           taken=args.integer("damage taken"),
           pipeline=args.items("the steps of damage and drive"),
           injury=args.mapping("the injury type and its d20"),
           results=args.mapping("each target's result (full-auto at several targets)"),
           aoe=args.text("burst or spray"),
           aoe_source=args.text("weapon, energy, overeffect, projectile or effect"),
           impact=args.mapping("the impact's damage and drive"),
           area=args.mapping("the area effect's damage and drive"),
           impact_hit=args.flag("the direct target took the impact"),
           inclusion=args.mapping("each candidate's chance, d100 and inclusion"),
           effects=args.mapping("who took impact or area"),
           damage_taken=args.mapping("damage taken by each creature struck"),
           collapse_check=args.text("a powerful AoE indoors (Z-AOE-16)"))
    def apply_attacked(self, state: EncounterState, data: dict[str, Any]) -> None:
        if "ammo" in data:  # replaced, never changed in place (model.SHARED_IN_SCRATCH)
            who = self.creature(state, data["actor"])
            who.ammo = {**who.ammo, data["ammo"]["weapon"]: data["ammo"]["left"]}

    def _defense(self, state: EncounterState, command: Command, attacker: Creature,
                 target: Creature, range_band: str, dice: DiceSource) -> dict[str, Any]:
        """The target's defense roll: always d20 on DEX (Z-RA-4), with flanking Hindrance."""
        hindrance = self.flank_hindrance(state, target, attacker, range_band)
        extra = self.arg(command, "defense_hindrance", int, 0)
        if extra:
            hindrance["other"] = extra
        return roll_check("1d20", "DEX", target.stat("DEX"), hindrance, dice, state.rulings)

    def _cover_bonus(self, state: EncounterState, command: Command, attacker: Creature,
                     target: Creature, range_band: str, critical: bool,
                     aoe: bool = False) -> tuple[int, str, str | None]:
        """The armor bonus the defender uses against a ranged attack: cover or shield, one of
        the two (Z-COV-12), and why cover does not count when it does not."""
        cover = target.cover()
        use = choice(command, "defend_with", ("cover", "shield"),
                     "cover" if cover else "shield")
        if use == "shield" or cover is None:
            if aoe:
                return 0, "", "shields do nothing against AoEs (Z-AOE-13)"
            return (target.shield, "shield", None) if target.shield else (0, "", None)
        if not flag(command, "cover_applies", True):
            return 0, "", "the GM rules the cover does not protect here (Z-COV-15)"
        if critical and flag(command, "ignore_cover", True):
            return 0, "", "a critical hit shoots an unprotected area (Z-COV-7)"
        if engaged(attacker, target):
            if not flag(command, "group_defense"):
                return 0, "", "the attacker is engaged with the defender (Z-COV-8)"
            if not group_defenders(state, target):  # nobody out of cover defends it (Z-COV-9)
                return 0, "", (f"nobody defends {target.id} by group defense: " + (
                    "a group-mate in cover does not count (Z-COV-9)"
                    if group_mates(state, target) else "it has no group-mate (Z-COV-8)"))
        if attacker.flying and not aoe and not (cover.get("improved") and cover.get("roofed")) \
                and not flag(command, "tall_cover"):
            height = attacker.altitude - target.altitude
            horizontal = band_distance(range_band)
            strict = self.ruling_is(state, "AZ-21", "strictly-higher")
            if height > horizontal or (height == horizontal and not strict):
                return 0, "", (f"a flyer {height} above at horizontal range {horizontal}: "
                               "cover does not work (Z-COV-16)")
        return int(cover["bonus"]), "cover", None

    def _ranged_hit(self, state: EncounterState, command: Command, shot: Shot,
                    target: Creature, critical: bool,
                    dice: DiceSource) -> tuple[dict[str, Any], list[Event]]:
        """The defense roll and, if it fails, damage and drive (Z-RA-3, Z-COV-13)."""
        defense = self._defense(state, command, shot.actor, target, shot.band, dice)
        result: dict[str, Any] = {"target": target.id, "defense": defense}
        if defense["success"]:
            result["hit"] = False
            return result, []
        bonus, label, why = self._cover_bonus(state, command, shot.actor, target, shot.band,
                                              critical)
        if why:
            result["cover_ignored"] = why
        effect = shot.normal
        if shot.weapon.effect and effect.damage == 0:
            if label == "cover":  # cover always protects against such effects (Z-COV-13)
                result.update(hit=False, stopped_by_cover=True)
                return result, []
            result["hit"] = True
            return result, [Event("condition_added", {"target": target.id, "condition":
                                                      Condition(shot.weapon.effect).to_json()})]
        hit = self._hit(state, target, effect, shot.weapon, shot.full_auto, bonus, label,
                        drive_only=False)
        calc = run_damage(effect.damage, shot.weapon.type, hit)
        if label == "cover" and calc.amount == 0:
            bare = run_damage(effect.damage, shot.weapon.type, self._hit(
                state, target, effect, shot.weapon, shot.full_auto, 0, "", False))
            if bare.amount > 0:  # stopped by the cover bonus: not a hit (Z-COV-13)
                result.update(hit=False, stopped_by_cover=True, pipeline=calc.to_json())
                return result, []
        result["hit"] = True
        injury = self._injury(command, calc.amount, dice, area_damage=False)
        events = self._damage_events(target, calc.to_json(), calc.amount,
                                     calc.notes.get("shielding_used", 0), injury,
                                     shot.actor.id)
        result.update(taken=calc.amount, pipeline=calc.to_json(), injury=injury)
        return result, events

    def _hit(self, state: EncounterState, target: Creature, effect: Effect, weapon: Weapon,
             full_auto: bool, bonus: int, label: str, drive_only: bool) -> Hit:
        # kinetic shielding meets non-thrown kinetic attacks (Z-THR-4 read as ruling ZR-6)
        shielded = weapon.type == "kinetic" and weapon.kind == "ranged"
        return Hit(armor=target.armor, drive=effect.drive, bonus=bonus, bonus_label=label,
                   bonus_vs_drive_only=drive_only, shielding=target.kinetic_shielding,
                   shielded=shielded, shielding_counts=(1, 4) if full_auto else (1, 1),
                   rulings=state.rulings)

    def _injury(self, command: Command, taken: int, dice: DiceSource,
                area_damage: bool) -> dict[str, Any] | None:
        """The injury type: Core for area damage (Z-INJ-2); else the GM's d20 on the injury
        table (Z-INJ-1), or the type the GM names with ``injury``."""
        if taken <= 0:
            return None
        if area_damage:
            return {"type": "Core Injury", "roll": None}
        if "injury" in command.args:
            return {"type": self.arg(command, "injury", str), "roll": None}
        value = roll("1d20", dice).total
        return {"type": injury_type(value), "roll": value}

    def _damage_events(self, target: Creature, pipeline: dict[str, Any], taken: int,
                       shielding_used: int, injury: dict[str, Any] | None,
                       source: str) -> list[Event]:
        if taken <= 0 and not shielding_used:
            return []
        data = {"target": target.id, "source": source, "taken": taken,
                "health": target.health - taken, "pipeline": pipeline,
                "kinetic_shielding": target.kinetic_shielding - shielding_used}
        if injury:
            data["injury"] = injury
        events = [Event("damaged", data)]
        if target.health > 0 >= target.health - taken:
            events.append(Event("condition_added", {"target": target.id,
                                                    "condition": {"name": "down"}}))
        return events

    @event("{target} takes {taken} damage[ from {source}][ ({injury.type})]"
           "[, leaving {health} health][; kinetic shielding {kinetic_shielding} left].",
           player="{target} takes {taken} damage[ from {source}][ ({injury.type})]"
           "[, leaving {health} health].",
           target=args.creature("who takes the damage"),
           source=args.creature("the attacker (gm: the game master)"),
           taken=args.integer("damage taken"), health=args.integer("health after"),
           pipeline=args.items("the steps of kinetic shielding, armor and drive"),
           kinetic_shielding=args.integer("the kinetic shielding charge left"),
           injury=args.mapping("the injury type and its d20 (none: the GM's or area damage)"))
    def apply_damaged(self, state: EncounterState, data: dict[str, Any]) -> None:
        who = self.creature(state, data["target"])
        who.health = data["health"]
        who.kinetic_shielding = data["kinetic_shielding"]

    def _aftermath(self, state: EncounterState, events: list[Event]) -> list[Event]:
        """The encounter is won when only one side has creatures standing."""
        if not events or "winner" in state.extra:
            return []
        if all(e.type in _HIT_EVENTS for e in events):
            # only health and the down condition change, and they are in the events: no
            # lookahead needed
            health = {e.data["target"]: e.data["health"] for e in events
                      if e.type == "damaged"}
            downed = {e.data["target"] for e in events if e.type == "condition_added"
                      and e.data["condition"].get("name") == "down"}
            sides = {c.side for c in creatures(state) if c.side is not None
                     and health.get(c.id, c.health) > 0 and c.id not in downed
                     and not c.has("down")}
            all_sides = {c.side for c in creatures(state) if c.side is not None}
        else:
            after = self.lookahead(state, events)
            sides = {c.side for c in creatures(after) if not c.down and c.side is not None}
            all_sides = {c.side for c in creatures(after) if c.side is not None}
        if len(all_sides) > 1 and len(sides) <= 1:
            winner = next(iter(sides)) if sides else None
            return [Event("encounter_won", {"winner": winner})]
        return []

    @event("The encounter is over[: {winner} wins].",
           winner=args.text("the side still standing (none: nobody)"))
    def apply_encounter_won(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra["winner"] = data["winner"]

    # -- AoE ------------------------------------------------------------------------------
    def _attack_aoe(self, state: EncounterState, command: Command, shot: Shot,
                    data: dict[str, Any], dice: DiceSource) -> list[Event]:
        rulings = state.rulings
        actor, weapon = shot.actor, shot.weapon
        direct = shot.targets[0] if shot.targets and shot.aoe == "burst" and not shot.spread \
            else None
        data.update(aoe=shot.aoe, aoe_source=shot.aoe_source)
        if shot.impact:
            data["impact"] = shot.impact.to_json()
        if shot.area:
            data["area"] = shot.area.to_json()
        non_damaging = shot.aoe_source == "effect"
        if shot.blinded:
            data["offense"] = None
            success = False
            data["offense_note"] = "fully blinded: the offense roll counts as failed (Z-BLI-1)"
        elif non_damaging:
            success = True
            data["offense"] = None
            data["offense_note"] = "non-damaging AoE: hit chances as if the offense roll " \
                                   "succeeded (Z-AOE-5)"
        else:
            offense = roll_check(shot.expr, shot.on, shot.stat, shot.hindrance, dice, rulings)
            data["offense"] = offense
            success = offense["success"]
        data["offense_success"] = success
        critical, denied = self._critical(state, command, shot, data["offense"] or
                                          {"success": False, "rolled": []})
        if shot.aoe_source == "overeffect" and not success and \
                self.ruling_is(state, "AZ-15", "hit-only"):
            data["hit"] = False
            return [Event("attacked", data)]
        events: list[Event] = []
        results: dict[str, Any] = {}
        impact_hit = False
        if direct is not None:
            data["target"] = direct.id
            if success:
                flank_on = self.ruling_is(state, "AZ-23", "applies")
                defense = self._defense(state, command, actor, direct,
                                        shot.band if flank_on else "engagement", dice)
                data["defense"] = defense
                impact_hit = not defense["success"]
            data["impact_hit"] = impact_hit
            data["critical"] = critical and impact_hit
            if denied:
                data["critical_denied"] = denied
        if shot.aoe_source == "overeffect" and direct is not None and impact_hit is False \
                and success and self.ruling_is(state, "AZ-15", "hit-only"):
            data["hit"] = False
            return [Event("attacked", data)]
        plan = area.AoePlan(attacker=actor, kind=shot.aoe or "burst", direct=direct,
                            engagements=shot.engagements, zone=shot.zone, offense_success=success,
                            caution=shot.caution and success, beneficial=weapon.beneficial,
                            spread=bool(shot.spread),
                            altitude=direct.altitude if direct else 0)
        group = [c for c in area.candidates(state, plan)
                 if not (impact_hit and direct is not None and c.id == direct.id)]
        if direct is not None and success and not impact_hit:
            # a successful defense still takes the area effect, guaranteed (Z-AOE-2)
            group = [c for c in group if c.id != direct.id]
            results[direct.id] = {"included": True, "chance": 100, "roll": None,
                                  "why": "defended the impact: area guaranteed (Z-AOE-2)"}
        inclusion = area.roll_inclusion(state, plan, group, dice, rulings)
        results.update(inclusion)
        data["inclusion"] = results
        taken: dict[str, int] = {}
        effects: dict[str, str] = {}
        indoor = zones(state).get(shot.zone, {}).get("indoor", False)
        if impact_hit and direct is not None:
            effects[direct.id] = "impact"
            events += self._aoe_effect(state, command, shot, direct, "impact", critical, dice,
                                       taken)
        for who_id, info in results.items():
            if not info["included"]:
                continue
            effects[who_id] = "area"
            events += self._aoe_effect(state, command, shot, self.creature(state, who_id),
                                       "area", False, dice, taken)
        data["effects"] = effects
        data["damage_taken"] = taken
        data["hit"] = bool(effects)
        if indoor and (weapon.powerful or shot.aoe_source == "overeffect"):
            data["collapse_check"] = "a powerful AoE indoors: the GM checks Demolition & " \
                                     "Collapses (Z-AOE-16)"
        return [Event("attacked", data), *events, *self._aftermath(state, events)]

    def _aoe_effect(self, state: EncounterState, command: Command, shot: Shot,
                    target: Creature, part: str, critical: bool, dice: DiceSource,
                    taken: dict[str, int]) -> list[Event]:
        """One creature struck by the impact or the area effect."""
        weapon = shot.weapon
        if shot.aoe_source == "effect":  # non-damaging: neither cover nor shields (Z-AOE-14)
            assert weapon.effect is not None
            return [Event("condition_added", {"target": target.id, "condition":
                                              Condition(weapon.effect).to_json()})]
        effect = shot.impact if part == "impact" else shot.area
        if effect is None:
            return []
        if part == "impact":
            bonus, label, _ = self._cover_bonus(state, command, shot.actor, target, shot.band,
                                                critical, aoe=True)
            drive_only = False
        else:
            cover = target.cover()
            bonus, label = (int(cover["bonus"]), "cover") if cover else (0, "")
            # cover against the area effect's drive (Z-AOE-13, AZ-11)
            drive_only = self.ruling_is(state, "AZ-11", "drive-only")
        hit = self._hit(state, target, effect, weapon, False, bonus, label, drive_only)
        calc = run_damage(effect.damage, weapon.type, hit)
        injury = self._injury(command, calc.amount, dice, area_damage=part == "area")
        taken[target.id] = calc.amount
        return self._damage_events(target, calc.to_json(), calc.amount,
                                   calc.notes.get("shielding_used", 0), injury, shot.actor.id)

    # -- ZAoE -----------------------------------------------------------------------------
    @command("A zonewide AoE (a slowing major action) at a zone: high and low damage, no "
             "defense roll, no caution.", who="player", actor="required",
             cost="major/slowing",
             rules=("Z-ZAO-1", "Z-ZAO-2", "Z-ZAO-3", "Z-ZAO-4", "Z-ZAO-5", "Z-ZAO-6",
                    "Z-ZAO-7", "Z-ZAO-8", "Z-ZAO-9", "Z-ZAO-10", "Z-ZAO-11", "Z-ZAO-12",
                    "Z-INJ-2", "Z-MI-1", "AZ-19", "AZ-20"),
             weapon=args.text("the weapon or Ability that says ZAoE", required=True,
                              max_len=64),
             zone=args.text("the centre zone", required=True, max_len=64),
             group=args.text("a lesser point ZAoE's aim: a group or engagement",
                             max_len=64),
             caution=args.flag("refused: a ZAoE allows no caution (Z-ZAO-3)"))
    def do_zaoe(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A zonewide AoE (a slowing major action): actor, weapon, zone, [group].

        group is a lesser point's aim. No defense rolls, no percentages, no caution
        (Z-ZAO-2, Z-ZAO-3).
        """
        rulings = state.rulings
        actor = self.acting(state, command)
        weapon = actor.weapon(self.arg(command, "weapon", str))
        if weapon.zaoe is None or weapon.high is None or weapon.low is None:
            raise IllegalCommand(f"{weapon.name} does not say it uses ZAoE rules, so it never "
                                 "does", rule="Z-ZAO-1")
        if flag(command, "caution"):
            raise IllegalCommand("a ZAoE allows no caution", rule="Z-ZAO-3")
        zone = self.arg(command, "zone", str)
        shape, size = weapon.zaoe.get("shape", "point"), weapon.zaoe.get("size", "lesser")
        affected = area.zaoe_zones(state, zone, size)
        data: dict[str, Any] = {"actor": actor.id, "weapon": weapon.name, "zone": zone,
                                "shape": shape, "size": size, "zones": affected,
                                "high": weapon.high.to_json(), "low": weapon.low.to_json()}
        data.update(self.use(state, actor.id, "major/slowing"))
        people = [c for c in creatures(state) if c.zone in affected and not c.down]
        value: dict[str, str] = {}
        why: dict[str, str] = {}
        if shape == "point":
            high_engagement = None
            if size == "lesser":
                aim = command.args.get("group")
                offense_dice = weapon.zaoe.get("offense")
                success = False
                if aim is not None and offense_dice:
                    members = [c for c in creatures(state) if c.group == aim or
                               c.engagement == aim]
                    if not members:
                        raise InvalidCommand(f"zaoe: no creature is in group {aim!r}")
                    check = roll_check(offense_dice, "DEX", actor.stat("DEX"),
                                       self._interference(state, actor), dice, rulings)
                    data["offense"] = check
                    success = check["success"]
                    if success:
                        high_engagement = members[0].engagement
                if not success:
                    groups = engagements_in(state, zone)
                    d6 = roll("1d6", dice).total
                    data["random"] = {"d6": d6, "groups": len(groups)}
                    if groups and d6 <= len(groups):
                        pick, picks = area.pick_group(len(groups), dice, rulings)
                        data["random"]["pick"] = picks
                        high_engagement = groups[pick - 1]
                data["high_engagement"] = high_engagement
            for c in people:
                if c.altitude > ALTITUDE["medium"]:
                    why[c.id] = "flying above medium range: unaffected (Z-ZAO-12)"
                    continue
                if c.flying and c.altitude > ALTITUDE["engagement"]:
                    centre = size == "greater" and c.zone == zone
                    value[c.id] = "high" if centre else "low"
                    why[c.id] = "flyer over the centre zone (Z-ZAO-12)" if centre else \
                        "flyer: low damage (Z-ZAO-12)"
                    continue
                if size == "greater":
                    value[c.id] = "high" if c.zone == zone else "low"
                else:
                    value[c.id] = "high" if c.engagement == high_engagement else "low"
        else:
            d6s: dict[str, int] = {}
            units = area.pairs([c for c in people if not (
                c.flying and c.altitude > ALTITUDE["engagement"])], rulings)
            for c in people:
                if c.flying and c.altitude > ALTITUDE["engagement"]:
                    why[c.id] = "flying above engagement range: unaffected (Z-ZAO-11)"
            for unit in units:
                if any(u.vehicle or u.heavy for u in unit):
                    for u in unit:
                        value[u.id] = "high"
                        why[u.id] = "vehicle or 25+ WGT: always high (Z-ZAO-8)"
                    continue
                d6 = roll("1d6", dice).total
                for u in unit:
                    d6s[u.id] = d6
                    value[u.id] = "high" if d6 >= 5 else "low"
            data["rolls"] = d6s
        data["values"] = value
        data["why"] = why
        events: list[Event] = []
        taken: dict[str, int] = {}
        for c in people:
            if c.id not in value:
                continue
            effect = weapon.high if value[c.id] == "high" else weapon.low
            cover = c.cover()
            bonus, label = (int(cover["bonus"]), "cover") if cover else (0, "")
            drive_only = self.ruling_is(state, "AZ-11", "drive-only")
            hit = self._hit(state, c, effect, weapon, False, bonus, label, drive_only)
            calc = run_damage(effect.damage, weapon.type, hit)
            taken[c.id] = calc.amount
            events += self._damage_events(c, calc.to_json(), calc.amount,
                                          calc.notes.get("shielding_used", 0),
                                          self._injury(command, calc.amount, dice, True),
                                          actor.id)
        data["damage_taken"] = taken
        if weapon.energy:
            data["bright_light"] = affected  # until the end of the attacker's next turn
        return [Event("zaoe_resolved", data), *events, *self._aftermath(state, events)]

    @event("{actor} fires {weapon}, a {size} {shape} ZAoE, at zone {zone} (affecting {zones})"
           "[; offense {offense.text}][; high damage on engagement {high_engagement}]"
           "; damage taken: {damage_taken}[; bright light in {bright_light}].",
           actor=args.creature("the attacker"), weapon=args.text("the weapon"),
           zone=args.text("the centre zone"), shape=args.text("point or cluster"),
           size=args.text("lesser or greater"), zones=args.items("the zones affected"),
           high=args.mapping("high damage and drive"), low=args.mapping("low damage and drive"),
           offense=args.mapping("a lesser point's offense roll"),
           random=args.mapping("the d6 and the die picking a group (Z-ZAO-6)"),
           high_engagement=args.text("the engagement taking high damage"),
           rolls=args.mapping("a cluster's d6 for each creature"),
           values=args.mapping("high or low for each creature affected"),
           why=args.mapping("why a creature takes what it takes, or nothing"),
           damage_taken=args.mapping("damage taken by each creature"),
           bright_light=args.items("the zones lit until the end of the attacker's next turn "
                                   "(Z-ZAO-10)"))
    def apply_zaoe_resolved(self, state: EncounterState, data: dict[str, Any]) -> None:
        if data.get("bright_light"):  # a new map of lights, not changed in place
            lights = dict(state.extra.get("lights", {}))
            for zone in data["bright_light"]:
                lights[zone] = {"by": data["actor"], "round": state.round}
            state.extra["lights"] = lights

    # -- melee (ruling ZR-1) --------------------------------------------------------------
    @command("A melee attack (a major action): offense and defense d20 on DEX, damage + STR "
             "against armor and shield; it interferes with the target's ranged attacks.",
             who="player", actor="required", cost="major",
             rules=("ZR-1", "Z-MI-1", "Z-COV-9"),
             target=args.creature("the creature attacked (engaged or grappled)",
                                  refers="enemy", required=True),
             weapon=args.text("the melee weapon (default: the first, else unarmed)",
                              max_len=64),
             no_offense_roll=args.flag("the attack needs no offense roll"),
             hindrance=args.integer("other Hindrance on the offense roll", default=0))
    def do_melee(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A melee attack (a major action, ruling ZR-1): target, [weapon].

        Also [no_offense_roll], [hindrance]. Offense d20 on DEX, defense d20 on DEX, damage +
        STR against armor and shield. An offense roll that succeeds (or none needed)
        interferes with the target's ranged attacks (Z-MI-1).
        """
        checked = self._checked_plan(state, command)
        actor, target, weapon, data, hindrance, no_roll = checked if isinstance(
            checked, MeleePlan) else self._plan_melee(state, command)
        if no_roll:
            data["offense"] = None
            success = True
        else:
            offense = roll_check("1d20", "DEX", actor.stat("DEX"), hindrance, dice,
                                 state.rulings)
            data["offense"] = offense
            success = offense["success"]
        events: list[Event] = []
        if success:
            data["interferes"] = True
            events.append(Event("interfered", {"target": target.id, "by": actor.id}))
            d_h = {"melee disadvantage (cover)": 2 if target.has("cover") else 0}
            defense = roll_check("1d20", "DEX", target.stat("DEX"), d_h, dice, state.rulings)
            data["defense"] = defense
            data["hit"] = not defense["success"]
            if data["hit"]:
                damage = weapon.damage + actor.stat("STR")
                drive = weapon.normal.drive + (actor.stat("STR") if weapon.str_drive else 0)
                label = "shield" if target.shield else ""
                hit = Hit(armor=target.armor, drive=drive, bonus=target.shield,
                          bonus_label=label, rulings=state.rulings)
                calc = run_damage(damage, weapon.type, hit)
                data.update(taken=calc.amount, pipeline=calc.to_json())
                events += self._damage_events(target, calc.to_json(), calc.amount, 0, None,
                                              actor.id)
        else:
            data["hit"] = False
        return [Event("melee_attacked", data), *events, *self._aftermath(state, events)]

    def _plan_melee(self, state: EncounterState, command: Command) -> MeleePlan:
        """Check a melee attack, rolling nothing: attacker, target, weapon, the event's data
        so far, the offense Hindrance and whether no offense roll is made."""
        actor = self.acting(state, command)
        target = self.creature(state, self.arg(command, "target", str))
        if target.down:
            raise IllegalCommand(f"{target.id} is already down")
        if not engaged(actor, target) and actor.grappling() != target.id:
            raise IllegalCommand(f"{actor.id} is not engaged with {target.id}", rule="ZR-1")
        weapon = actor.weapon(self.arg(command, "weapon", str) if "weapon" in command.args
                              else _default_melee(actor))
        if weapon.kind != "melee":
            raise IllegalCommand(f"{weapon.name} is not a melee weapon: use attack")
        data: dict[str, Any] = {"actor": actor.id, "target": target.id, "weapon": weapon.name,
                                "melee": True,
                                "outnumbering": _outnumbering(state, actor, target)}
        data.update(self.use(state, actor.id, "major"))
        disadvantage = 2 if actor.has("cover") else 0  # 2 degrees (Z-COV-9, ruling ZR-1)
        hindrance = {"melee disadvantage (cover)": disadvantage}
        if self.arg(command, "hindrance", int, 0):
            hindrance["other"] = self.arg(command, "hindrance", int, 0)
        return MeleePlan(actor, target, weapon, data, hindrance,
                         flag(command, "no_offense_roll"))

    @event("{actor} attacks {target} in melee with {weapon}[; offense {offense.text}]"
           "[; defense {defense.text}]; {hit?hit|no hit}[, {taken} damage]"
           "[{interferes?; melee interference|}].",
           actor=args.creature("the attacker"), target=args.creature("the creature attacked"),
           weapon=args.text("the weapon"), melee=args.flag("a melee attack"),
           offense=args.mapping("the offense roll (none: none needed)"),
           interferes=args.flag("it interferes with the target's ranged attacks (Z-MI-1)"),
           defense=args.mapping("the target's defense roll"),
           hit=args.flag("the attack hit"), taken=args.integer("damage taken"),
           pipeline=args.items("the steps of armor, shield and drive"),
           outnumbering=args.mapping("the creatures of the attacker's and the defender's "
                                     "groups counted for outnumbering dice: not those in "
                                     "cover (Z-COV-9, ruling ZR-8)"))
    def apply_melee_attacked(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    @event("{by}'s melee attack interferes with {target}'s ranged attacks.",
           target=args.creature("who suffers melee interference"),
           by=args.creature("the melee attacker"))
    def apply_interfered(self, state: EncounterState, data: dict[str, Any]) -> None:
        who = self.creature(state, data["target"])
        if data["by"] not in who.interference:  # replaced (model.SHARED_IN_SCRATCH)
            who.interference = [*who.interference, data["by"]]

    # -- the GM's damage and healing --------------------------------------------------------
    @command("Deal damage through kinetic shielding, armor and drive.",
             rules=("ZR-2", "ZR-6"),
             target=args.creature("who takes the damage", required=True),
             amount=args.integer("damage before armor", lo=0, hi=9999, required=True),
             drive=args.integer("the damage's drive", lo=0, hi=9999, default=0),
             type=args.text("the damage type: kinetic, energy...", default="kinetic",
                            max_len=64),
             bonus=args.integer("an armor bonus (cover, shield)", lo=0, hi=9999, default=0))
    def do_damage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Deal damage through armor (the GM): target, amount, [drive], [type], [bonus]."""
        target = self.creature(state, self.arg(command, "target", str))
        amount = self.arg(command, "amount", int)
        if amount < 0:
            raise InvalidCommand("damage: amount must not be negative")
        kind = self.arg(command, "type", str, "kinetic")
        hit = Hit(armor=target.armor, drive=self.arg(command, "drive", int, 0),
                  bonus=self.arg(command, "bonus", int, 0), bonus_label="bonus",
                  rulings=state.rulings)
        calc = run_damage(amount, kind, hit)
        events = self._damage_events(target, calc.to_json(), calc.amount, 0, None, "gm")
        if not events:
            events = [Event("damaged", {"target": target.id, "source": "gm", "taken": 0,
                                        "health": target.health, "pipeline": calc.to_json(),
                                        "kinetic_shielding": target.kinetic_shielding})]
        return events + self._aftermath(state, events)

    @command("Heal a creature up to its maximum health (standing again above 0).",
             target=args.creature("who is healed", required=True),
             amount=args.integer("health restored", lo=0, hi=9999, required=True))
    def do_heal(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Heal a creature up to its maximum health: target, amount."""
        target = self.creature(state, self.arg(command, "target", str))
        amount = self.arg(command, "amount", int)
        if amount < 0:
            raise InvalidCommand("heal: amount must not be negative")
        health = min(target.health + amount, target.health_max)
        events = [Event("healed", {"target": target.id, "health": health})]
        if target.down and health > 0:
            events.append(Event("condition_removed", {"target": target.id, "name": "down",
                                                      "why": "healed"}))
        return events

    @event("{target} is healed[ to {health} health].", target=args.creature("who is healed"),
           health=args.integer("health after"))
    def apply_healed(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["target"]).health = data["health"]

    # -- checking a command without playing it ------------------------------------------
    def check(self, state: EncounterState, command: Command) -> None:
        """Raise the RulesError that ``decide`` would raise for ``command``, else nothing,
        rolling as little as possible (the simulator's tactics ask before they offer a
        command).

        A ``melee``, and an ``attack`` that is a single plain shot (no AoE, not blind, plain
        offense dice, none of the arguments read after the offense roll), are checked up to
        their first roll, after which they refuse nothing; anything else is decided with
        throw-away dice (rolled only if the command rolls). tests/rulesets/zones compare
        this with ``decide`` on every command the tactics offer in played encounters."""
        self._checked = None
        self.validate(command)  # as ``decide`` does first: the same refusal of a malformed one
        if state.ruleset and command.name == "attack" \
                and _CHECKED_ATTACK.issuperset(command.args):
            shot = self.plan_shot(state, command)
            if shot.aoe is None and not shot.blind and _PLAIN_DICE.match(
                    offense_expression(shot.expr, state.rulings)):
                self.use(state, shot.actor.id, shot.action)
                self._checked = (state, state.version, command, shot)
                return
        elif state.ruleset and command.name == "melee":
            self._checked = (state, state.version, command, self._plan_melee(state, command))
            return
        super().check(state, command)

    def _checked_plan(self, state: EncounterState, command: Command) -> Shot | MeleePlan | None:
        """The plan ``check`` made for this very command on this very state (the same
        objects, and no event applied since: the same version), once; else None."""
        checked = self._checked
        if checked is None:
            return None
        self._checked = None
        if checked[0] is state and checked[2] is command and checked[1] == state.version:
            return checked[3]
        return None

    # -- exact odds ---------------------------------------------------------------------
    def odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Exact chances before rolling: offense, defense and hit for ``attack`` and
        ``melee``, success for ``roll``, inclusion chances for an AoE, the chance of high
        damage for a ``zaoe``."""
        rulings = state.rulings
        if command.name == "roll":
            actor = self.creature(state, self.actor(state, command).id)
            on = self.arg(command, "stat", str)
            h = self.arg(command, "hindrance", int, 0)
            if flag(command, "melee_interference"):
                h += sum(self._interference(state, actor).values())
            p = success_odds(self.arg(command, "expr", str, "1d20"), actor.stat(on), h, rulings)
            return {"success": p, "failure": 1 - p}
        if command.name == "melee":
            actor = self.acting(state, command)
            target = self.creature(state, self.arg(command, "target", str))
            off = success_odds("1d20", actor.stat("DEX"), 2 if actor.has("cover") else 0,
                               rulings)
            dfn = success_odds("1d20", target.stat("DEX"), 2 if target.has("cover") else 0,
                               rulings)
            return {"offense": off, "defense": dfn, "hit": off * (1 - dfn),
                    "miss": 1 - off * (1 - dfn),
                    "outnumbering": _outnumbering(state, actor, target)}
        if command.name == "zaoe":
            return self._zaoe_odds(state, command)
        if command.name == "move":
            return self.move_odds(state, command)
        if command.name != "attack":
            return super().odds(state, command)
        shot = self.plan_shot(state, command)
        off = Fraction(0) if shot.blinded else (
            Fraction(1) if shot.aoe_source == "effect" else
            success_odds(shot.expr, shot.stat, sum(shot.hindrance.values()), rulings))
        out: dict[str, Any] = {"offense": off}
        aimed = shot.targets[0] if shot.targets else None
        if aimed is not None:
            target = aimed
            h = sum(self.flank_hindrance(state, target, shot.actor, shot.band).values())
            h += self.arg(command, "defense_hindrance", int, 0)
            dfn = success_odds("1d20", target.stat("DEX"), h, rulings)
            out["defense"] = dfn
            out["hit"] = off * (1 - dfn)
            out["miss"] = 1 - out["hit"]
        if shot.aoe is not None:
            out["inclusion"] = self._inclusion_odds(state, shot, off)
        return out

    def _inclusion_odds(self, state: EncounterState, shot: Shot,
                        off: Fraction) -> dict[str, Fraction]:
        """Each candidate's exact chance to be included (success and failure weighed)."""
        out: dict[str, Fraction] = {}
        direct = shot.targets[0] if shot.targets and shot.aoe == "burst" else None
        for success, weight in ((True, off), (False, 1 - off)):
            if weight == 0:
                continue
            plan = area.AoePlan(attacker=shot.actor, kind=shot.aoe or "burst", direct=direct,
                                engagements=shot.engagements, zone=shot.zone,
                                offense_success=success, caution=shot.caution and success,
                                beneficial=shot.weapon.beneficial, spread=bool(shot.spread),
                                altitude=direct.altitude if direct else 0)
            for c in area.candidates(state, plan):
                if direct is not None and c.id == direct.id and success:
                    p = Fraction(1)  # impact or a guaranteed area effect (Z-AOE-2)
                else:
                    chance, _ = area.chance_for(state, plan, c, state.rulings)
                    p = Fraction(1) if chance is None else area.inclusion_odds(chance)
                out[c.id] = out.get(c.id, Fraction(0)) + weight * p
        return out

    def _zaoe_odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Each creature's exact chance to take the high damage of a ZAoE (0: low or none)."""
        actor = self.acting(state, command)
        weapon = actor.weapon(self.arg(command, "weapon", str))
        if weapon.zaoe is None:
            raise IllegalCommand(f"{weapon.name} does not say it uses ZAoE rules, so it never "
                                 "does", rule="Z-ZAO-1")
        zone = self.arg(command, "zone", str)
        shape, size = weapon.zaoe.get("shape", "point"), weapon.zaoe.get("size", "lesser")
        affected = area.zaoe_zones(state, zone, size)
        people = [c for c in creatures(state) if c.zone in affected and not c.down]
        out: dict[str, Any] = {}
        high: dict[str, Fraction] = {}
        groups = engagements_in(state, zone)
        n = len(groups)
        random_pick = Fraction(min(n, 6), 6) * Fraction(1, n) if n else Fraction(0)
        aim = command.args.get("group")
        aimed = next((c.engagement for c in creatures(state) if aim is not None and
                      (c.group == aim or c.engagement == aim)), None)
        offense = Fraction(0)
        if shape == "point" and size == "lesser" and aimed is not None \
                and weapon.zaoe.get("offense"):
            offense = success_odds(weapon.zaoe["offense"], actor.stat("DEX"),
                                   sum(self._interference(state, actor).values()),
                                   state.rulings)
            out["offense"] = offense
        units = area.pairs(people, state.rulings)
        for c in people:
            high_flyer = c.flying and c.altitude > ALTITUDE["engagement"]
            if shape == "cluster":
                unit = next(u for u in units if c in u)
                p = Fraction(0) if high_flyer else Fraction(1) if any(
                    u.vehicle or u.heavy for u in unit) else Fraction(1, 3)
            elif c.altitude > ALTITUDE["medium"]:
                p = Fraction(0)
            elif size == "greater" or high_flyer:
                p = Fraction(int(size == "greater" and c.zone == zone))
            else:
                hit_aim = Fraction(int(c.engagement == aimed))
                p = offense * hit_aim + (1 - offense) * random_pick
            high[c.id] = p
        out["high"] = high
        return out

    @command("Record in the log the exact odds of a command before it is rolled.",
             of=args.nested("the command whose odds are computed", required=True))
    def do_odds(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Record the exact odds of a command before it is rolled: of (the command)."""
        of = self.arg(command, "of", dict)
        inner = Command.from_json(of)
        odds = self.odds(state, inner)
        return [Event("odds_computed", {"of": inner.to_json(), "odds": _plain_odds(odds)})]

    @event("The odds of {of.do}: {odds}.", of=args.mapping("the command"),
           odds=args.mapping("the exact chances, as fractions"))
    def apply_odds_computed(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None


_CHECKED_ATTACK = frozenset({
    "weapon", "target", "targets", "range", "unaimed", "blind", "full_auto", "one_handed",
    "marksmanship", "aoe", "spread", "engagement", "group", "hindrance", "caution"})
"""The ``attack`` arguments that ``plan_shot`` reads (and refuses when malformed); the others
(critical, defense_hindrance, defend_with, injury...) are read after the offense roll."""
_PLAIN_DICE = re.compile(r"^[1-9]\d?d[1-9]\d{0,2}(k[hl]1)?$")
"""Offense dice that roll without any refusal: a few dice, kept whole or keeping one."""


def _separation(a: int, b: int) -> int:
    """Degrees between two directions seen from the defender (0 to 180)."""
    gap = abs(a - b) % 360
    return min(gap, 360 - gap)


def _plain_odds(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, dict):
        return {k: _plain_odds(v) for k, v in value.items()}
    return value


def _part(damage: int, fraction: str, rulings: Mapping[str, str]) -> Effect:
    """A fraction of the damage, as an energy effect whose drive equals its damage."""
    num, _, den = fraction.partition("/")
    value = fraction_of(damage, int(num), int(den or 1), rulings)
    return Effect(value, value)


def _cover_data(spec: Any, who: str) -> dict[str, Any]:
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


def _grapple_events(actor: Creature, target: Creature) -> list[Event]:
    """Two creatures in a grapple, each the other's source; neither keeps cover (Z-COV-2)."""
    events = [Event("condition_added", {"target": a.id, "condition": Condition(
        "grappling", source=b.id).to_json()}) for a, b in ((actor, target), (target, actor))]
    for who in (actor, target):
        if who.has("cover"):  # no cover while grappling (Z-COV-2)
            events.append(Event("cover_left", {"target": who.id, "why": "grappling"}))
    return events


def _cover_refusal(who: Creature, improved: bool) -> IllegalCommand | None:
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


def _outnumbering(state: EncounterState, actor: Creature, target: Creature) -> dict[str, int]:
    """The creatures of the attacker's and the defender's groups counted for outnumbering
    dice, not those in cover (Z-COV-9); the dice themselves are outside the excerpt (ZR-8)."""
    return {"attackers": outnumbering(state, actor.group),
            "defenders": outnumbering(state, target.group)}


def _default_ranged(actor: Creature) -> str:
    for name, spec in actor.weapons.items():
        if spec.get("kind", "ranged") in ("ranged", "thrown") and not spec.get("zaoe"):
            return name
    raise InvalidCommand(f"attack: {actor.id} has no ranged weapon; name the 'weapon'")


def _default_melee(actor: Creature) -> str:
    for name, spec in actor.weapons.items():
        if spec.get("kind") == "melee" and name != "unarmed":
            return name
    return "unarmed"
