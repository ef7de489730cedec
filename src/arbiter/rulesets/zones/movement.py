"""Where creatures are in zones: the zone map, moving, being moved or placed, engagements,
touching, flanking (Z-FLK-*) and what the battle map draws (range bands, ruling ZR-4)."""

from __future__ import annotations

from itertools import combinations
from typing import Any, cast

from mypy_extensions import mypyc_attr

from ...core import Command, EncounterState, Event, IllegalCommand, InvalidCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.model import entity_at
from ...dice import DiceSource
from ...limits import IMAGE_SIDE
from . import payloads
from .base import ZonesBase, names
from .lasting import Lasting  # the topic below (a chain)
from .model import (
    ALTITUDE,
    RANGE_BANDS,
    Creature,
    creatures,
    default_range,
    engaged,
    touch_forbidden,
)

FLANK_HINDRANCE = {"basic": 1, "severe": 3}
FLANK_CUTOFFS = {"80-160": (80, 160), "90-170": (90, 170)}
MAX_ALTITUDE = max(ALTITUDE.values())
"""The highest altitude on the range-band scale (long range)."""



def _entry(zmap: dict[str, Any], zone: str) -> dict[str, Any]:
    """A new entry for ``zone`` in the zone map being built (a copy of the old one)."""
    old = zmap.get(zone)
    new = {"adjacent": [], "indoor": False} if old is None else {
        **old, "adjacent": list(old["adjacent"])}
    zmap[zone] = new
    return new

@mypyc_attr(allow_interpreted_subclasses=True)
class Movement(Lasting):
    """Zones, moving, engagements, touching and flanking."""

    @command("Describe a zone: its adjacent zones (both ways) and whether it is indoors.",
             rules=("Z-ZAO-7", "Z-ZAO-9", "Z-AOE-16"),
             id=args.text("the zone's id", required=True, max_len=64),
             adjacent=args.items("ids of the zones next to it (adjacency goes both ways)"),
             indoor=args.flag("the zone is indoors (a powerful AoE may collapse it)"),
             role="zone")
    def do_zone(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Describe a zone: the zones next to it (adjacency goes both ways) and whether it
        is indoors."""
        a = command.a
        return [Event("zone_set", {"id": a.id, "adjacent": names(command, "adjacent",
                                                                  a.adjacent),
                                   "indoor": a.indoor})]

    def map_commands(self, state: EncounterState) -> list[dict[str, Any]]:
        """The zones described again, and their regions on the scene's image (a saved
        scene)."""
        zones = state.extra.get("zones", {})
        regions = state.extra.get("regions", {})
        return [*({"do": "zone", "id": zone, "adjacent": list(zones[zone].get("adjacent", [])),
                   "indoor": bool(zones[zone].get("indoor"))} for zone in sorted(zones)),
                *({"do": "region", "zone": zone, "x": x, "y": y, "width": w, "height": h}
                  for zone, (x, y, w, h) in sorted(regions.items()))]

    def placement_commands(self, state: EncounterState) -> list[dict[str, Any]]:
        """Each creature put in its zone again (a saved scene)."""
        return [{"do": "place", "target": c.id, "zone": c.zone}
                for c in sorted(creatures(state), key=lambda c: c.id) if c.zone]

    @command("Draw a zone as a region of the scene's image (a rectangle in the image's "
             "pixels), or take its region away: the map shows the zone there.",
             zone=args.text("the zone", required=True, max_len=64),
             x=args.integer("the region's left edge, in the image's pixels", lo=0,
                            hi=IMAGE_SIDE),
             y=args.integer("its top edge", lo=0, hi=IMAGE_SIDE),
             width=args.integer("its width", lo=8, hi=IMAGE_SIDE),
             height=args.integer("its height", lo=8, hi=IMAGE_SIDE),
             clear=args.flag("take the zone's region away"),
             role="region")
    def do_region(self, state: EncounterState, command: Command, dice: DiceSource
                  ) -> list[Event]:
        """Where a zone lies on the scene's image (drawn there by the map)."""
        a = command.args
        zone = str(a["zone"])
        if a.get("clear"):
            if zone not in state.extra.get("regions", {}):
                raise IllegalCommand(f"zone {zone} has no region to take away")
            return [Event("region_set", {"zone": zone, "rect": None})]
        missing = [k for k in ("x", "y", "width", "height") if a.get(k) is None]
        if missing:
            raise InvalidCommand(f"region: give {', '.join(missing)} (the rectangle, in the "
                                 "image's pixels), or clear")
        if len(state.extra.get("regions", {})) >= 200 and zone not in state.extra["regions"]:
            raise IllegalCommand("a map draws 200 zone regions at most")
        return [Event("region_set", {"zone": zone, "rect": [int(a["x"]), int(a["y"]),
                                                            int(a["width"]),
                                                            int(a["height"])]})]

    @event("Zone {zone} [is drawn at {rect} on the scene]{rect?|is no longer drawn on the "
           "scene}.", zone=args.text("the zone"), rect=args.items("x, y, width, height"))
    def apply_region_set(self, state: EncounterState, data: payloads.RegionSet) -> None:
        regions = {k: v for k, v in state.extra.get("regions", {}).items()
                   if k != data["zone"]}
        if data["rect"] is not None:
            regions[data["zone"]] = list(data["rect"])
        state.extra["regions"] = regions

    @event("Zone {id} ({indoor?indoors|outdoors}) is next to: {adjacent}.",
           id=args.text("the zone"), adjacent=args.items("the zones next to it"),
           indoor=args.flag("indoors"))
    def apply_zone_set(self, state: EncounterState, data: payloads.ZoneSet) -> None:
        # a new zone map with new entries for the zones it changes: the values of
        # ``state.extra`` are replaced, never changed in place (like the creatures' fields)
        zmap = dict(state.extra.get("zones", {}))

        here = _entry(zmap, data["id"])
        here["indoor"] = data["indoor"]
        for other in data["adjacent"]:
            if other not in here["adjacent"]:
                here["adjacent"].append(other)
            back = here if other == data["id"] else _entry(zmap, other)
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
                                   "engagement ... 4 long (the GM's: whether it can fly is "
                                   "not in the stat block; default: where it is)",
                                   lo=0, hi=MAX_ALTITUDE, who="gm"),
             role="move")
    def do_move(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Move in the movement phase (the turn's movement); moving leaves cover
        (Z-COV-10)."""
        actor = self.acting(state, command)
        return moved(self, state, command, actor, self.use(state, actor.id, "move"), "moved")

    @command("Something moves a creature (a range band's distance); short range or more "
             "removes its cover.", rules=("Z-COV-10",),
             target=args.creature("who is moved", required=True),
             distance=args.choice("how far it is moved", *RANGE_BANDS, default="engagement"),
             zone=args.text("the zone to go to (default: where it is)", max_len=64),
             group=args.text("the group to join or form (default: its own)", max_len=64),
             engagement=args.text("the engagement to be in (default: the group's, or the "
                                  "one it joins)", max_len=64),
             altitude=args.integer("altitude on the range-band scale: 0 ground, 1 "
                                   "engagement ... 4 long", lo=0, hi=MAX_ALTITUDE))
    def do_displace(self, state: EncounterState, command: Command,
                    dice: DiceSource) -> list[Event]:
        """Something moves a creature (the GM's word) a range band's distance; at least
        short range removes cover (Z-COV-10)."""
        target = self.creature(state, command.a.target)
        distance: str = command.a.distance
        return moved(self, state, command, target, {"distance": distance}, "displaced")

    @event("{target} moves to zone {zone}, group {group}, engagement {engagement}, "
           "altitude {altitude}.",
           actor=args.creature("who moves"), target=args.creature("who moves"),
           zone=args.text("the zone it is in now"), group=args.text("its group now"),
           engagement=args.text("its engagement now"),
           altitude=args.integer("its altitude now (0: the ground)"))
    def apply_moved(self, state: EncounterState, data: payloads.Moved) -> None:
        who = self.creature(state, data["target"])
        who.zone, who.group = data["zone"], data["group"]
        who.engagement, who.altitude = data["engagement"], data["altitude"]

    @command("Put a creature in a zone (its group and altitude kept; the engagement of its "
             "group there, else its own); leaving the zone leaves cover.",
             rules=("Z-COV-10",),
             target=args.creature("who is placed", required=True),
             zone=args.text("the zone", required=True, max_len=64),
             role="place")
    def do_place(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """The game master puts a creature in a zone (its group and altitude kept)."""
        target = self.creature(state, command.a.target)
        zone: str = command.a.zone
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
    def apply_placed(self, state: EncounterState, data: payloads.Placed) -> None:
        who = self.creature(state, data["target"])
        who.zone, who.engagement = data["zone"], data["engagement"]

    public_extra = frozenset({"zones", "lights", "regions"})
    """The keys of ``state.extra`` every player sees on the map (server/views.py)."""

    def map_view(self, state: EncounterState, ids: list[str]) -> dict[str, Any]:
        """What the battle map draws beyond zones, for the creatures ``ids`` (those the
        reader may see): the range band between each two of them (``bands``, ruling ZR-4:
        the band an attack uses when the game master gives none); and how the ruler counts
        (``measure``: the band of the same zone, of the next one and of any farther)."""
        shown = [c for c in creatures(state) if c.id in set(ids)]
        bands: dict[str, dict[str, str]] = {c.id: {} for c in shown}
        for i, a in enumerate(shown):
            for b in shown[i + 1:]:
                bands[a.id][b.id] = default_range(state, a, b)
                bands[b.id][a.id] = default_range(state, b, a)
        return {"bands": bands, "measure": {"unit": "zone", "engaged": "engagement",
                                            "bands": ["short", "medium", "long"]}}

    @event("{target} is moved ({distance} range) to zone {zone}, group {group}, engagement "
           "{engagement}, altitude {altitude}.",
           actor=args.creature("who moves"), target=args.creature("who moves"),
           zone=args.text("the zone it is in now"), group=args.text("its group now"),
           engagement=args.text("its engagement now"),
           altitude=args.integer("its altitude now (0: the ground)"),
           distance=args.text("how far it was moved (a range band)"))
    def apply_displaced(self, state: EncounterState, data: payloads.Displaced) -> None:
        self.apply_moved(state, data)

    @command("Two groups become engaged with each other.",
             group=args.text("one group", required=True, max_len=64),
             **cast(dict[str, Any], {  # 'with' is a Python keyword
                 "with": args.text("the group it engages (its engagement is kept)",
                                   required=True, max_len=64)}))
    def do_engage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Two groups become engaged (the GM's word): the engagement of ``with`` is kept."""
        group, other = command.a.group, command.a.with_
        members = [c for c in creatures(state) if c.group in (group, other)]
        if not members:
            raise InvalidCommand(f"engage: no creature is in group {group!r} or {other!r}")
        engagement = next(c.engagement for c in members if c.group == other) \
            if any(c.group == other for c in members) else other
        return [Event("engaged", {"ids": [c.id for c in members], "engagement": engagement})]

    @event("{ids} are now in engagement {engagement}.",
           ids=args.creatures("the creatures whose engagement changes"),
           engagement=args.text("their engagement now"))
    def apply_engaged(self, state: EncounterState, data: payloads.Engaged) -> None:
        for who in data["ids"]:
            self.creature(state, who).engagement = data["engagement"]

    @command("A group leaves its engagement (it becomes an engagement of its own).",
             group=args.text("the group that disengages", required=True, max_len=64))
    def do_disengage(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        """A group leaves its engagement (the GM's word) and becomes one of its own."""
        group = command.a.group
        members = [c.id for c in creatures(state) if c.group == group]
        return [Event("engaged", {"ids": members, "engagement": group})]

    @command("Touch a creature (a free action) in its engagement; from cover, only allies "
             "also in cover.",
             who="player", actor="required", cost="free", rules=("Z-COV-3", "Z-AOE-3", "ZR-10"),
             target=args.creature("the creature touched", required=True))
    def do_touch(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Touch a creature (a free action) in its engagement (ruling ZR-10); from cover,
        only allies also in cover (Z-COV-3)."""
        actor = self.acting(state, command)
        target = self.creature(state, command.a.target)
        if target.id == actor.id:
            raise IllegalCommand(f"{actor.id} cannot touch itself")
        if self.ruling_is(state, "ZR-10", "engaged") and not engaged(actor, target):
            raise IllegalCommand(f"{actor.id} is not in {target.id}'s engagement and cannot "
                                 "touch it", rule="ZR-10")
        if touch_forbidden(actor, target):
            raise IllegalCommand(f"{actor.id} is using cover and cannot touch {target.id}, "
                                 "an ally not in cover", rule="Z-COV-3")
        return [Event("touched", {"actor": actor.id, "target": target.id})]

    @event("{actor} touches {target}.", actor=args.creature("who touches"),
           target=args.creature("who is touched"))
    def apply_touched(self, state: EncounterState, data: payloads.Touched) -> None:
        actor = self.creature(state, data["actor"])
        if data["target"] not in actor.touching:  # replaced, never changed (model.py: SHARED)
            actor.touching = [*actor.touching, data["target"]]

    @event("{actor} no longer touches {target}[ ({why})].",
           actor=args.creature("who touched"), target=args.creature("who was touched"),
           why=args.text("why the touch ends"))
    def apply_touch_ended(self, state: EncounterState, data: payloads.TouchEnded) -> None:
        actor = self.creature(state, data["actor"])
        # replaced, never changed (model.py: SHARED)
        actor.touching = [t for t in actor.touching if t != data["target"]]

    def decide(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """The command's events, then the end of each touch they leave forbidden: the rules
        of a touch (Z-COV-3, ruling ZR-10) hold wherever cover or places change, not only
        as the touch is made, so an AoE never counts a touch they no longer allow
        (Z-AOE-3)."""
        events = super().decide(state, command, dice)
        for e in events:
            kind = e.type
            if kind in TOUCH_CHANGES or (kind == "condition_removed"
                                         and e.data.get("name") == "cover"):
                return events + touches_ended(self, state, events)
        return events

    @command("Set how a creature is flanked: the direction of each group, or the type "
             "(basic, severe, none) and the groups.", rules=("Z-FLK-1", "Z-FLK-2", "Z-FLK-3"),
             target=args.creature("the flanked creature", required=True),
             angles=args.mapping("group id to the direction in whole degrees, seen from "
                                 "the defender"),
             type=args.choice("the flanking type, when the GM classifies it", "basic",
                              "severe", "none"),
             groups=args.items("the flanking groups (with type)"))
    def do_flank(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Set how a creature is flanked (the GM's word, Z-FLK-3): the direction of each
        group seen from the defender, or the flanking type the GM classifies."""
        a = command.a
        target = self.creature(state, a.target)
        angles: dict[str, Any] = a.angles or {}
        kind: str | None = a.type
        if not angles and kind is None:
            raise InvalidCommand("flank: give 'angles' (group: degrees) or 'type' and 'groups'")
        flanking: dict[str, Any] = {}
        if angles:
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in angles.values()):
                raise InvalidCommand("flank: angles are whole degrees, e.g. {north: 0, east: 90}")
            flanking["angles"] = {str(k): int(v) for k, v in angles.items()}
        if kind is not None:
            flanking["type"] = kind
            flanking["groups"] = names(command, "groups", a.groups)
        return [Event("flanking_set", {"target": target.id, "flanking": flanking})]

    @event("{target}'s flanking is set[: {flanking.type}][ by {flanking.groups}]"
           "[ (directions: {flanking.angles})].",
           target=args.creature("the flanked creature"),
           flanking=args.mapping("angles, or type and groups"))
    def apply_flanking_set(self, state: EncounterState, data: payloads.FlankingSet) -> None:
        self.creature(state, data["target"]).flanking = dict(data["flanking"])

    @command("Prioritise a flank at the end of the movement phase: no flanking Hindrance "
             "from those groups, doubled from the others.", who="player", when="any",
             actor="required", cost="free", rules=("Z-FLK-4", "Z-FLK-5"),
             groups=args.items("the group(s) prioritised (several only in very similar "
                               "directions)", required=True))
    def do_prioritize(self, state: EncounterState, command: Command,
                      dice: DiceSource) -> list[Event]:
        """Prioritise a flank at the end of the movement phase (Z-FLK-4): no flanking
        Hindrance from those groups, doubled from the others; several only in very similar
        directions (Z-FLK-5)."""
        actor = self.creature(state, self.actor(state, command).id)
        groups = names(command, "groups", command.a.groups)
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
    def apply_flank_prioritized(self, state: EncounterState,
                                data: payloads.FlankPrioritized) -> None:
        who = self.creature(state, data["target"])
        who.flanking = {**who.flanking, "prioritized": list(data["groups"])}


TOUCH_CHANGES = frozenset({"cover_taken", "cover_left", "moved", "displaced", "placed",
                           "engaged", "ruling_set"})
"""The events by which a creature takes or leaves cover (``condition_removed`` of ``cover``,
the GM's ``uncondition``, too) or changes place or engagement, or the GM changes a ruling
(ZR-10 to engaged): after them the touches that Z-COV-3 and ruling ZR-10 forbid end."""


def touches_ended(rules: ZonesBase, state: EncounterState, events: list[Event]) -> list[Event]:
    """``touch_ended`` for each touch forbidden once ``events`` have happened: a toucher in
    cover and an ally it touches not in cover (Z-COV-3: the toucher took cover, or the
    touched ally left it); two creatures no longer in one engagement (ruling ZR-10)."""
    if not any(c.touching for c in creatures(state)):
        return []
    after = rules.lookahead(state, events)
    near = rules.ruling_is(after, "ZR-10", "engaged")
    out: list[Event] = []
    for toucher in creatures(after):
        for name in toucher.touching:
            touched = entity_at(after.entities, name)
            if not isinstance(touched, Creature):
                continue
            if touch_forbidden(toucher, touched):
                why = f"{toucher.id} is in cover and {name}, an ally, is not (Z-COV-3)"
            elif near and not engaged(toucher, touched):
                why = f"{toucher.id} and {name} are no longer in one engagement (ZR-10)"
            else:
                continue
            out.append(Event("touch_ended", {"actor": toucher.id, "target": name,
                                             "why": why}))
    return out


def moved(rules: ZonesBase, state: EncounterState, command: Command, who: Creature,
          extra: dict[str, Any], kind: str) -> list[Event]:
    """The events of ``who`` moving (``kind`` moved) or being moved (displaced) where
    ``command`` says, and leaving cover when that ends it (Z-COV-10, Z-COV-2)."""
    a = command.a
    altitude: int = who.altitude if a.altitude is None else a.altitude
    place: dict[str, Any] = {
        "zone": who.zone if a.zone is None else a.zone,
        "group": who.group if a.group is None else a.group,
        "altitude": altitude,
    }
    joined = next((c.engagement for c in creatures(state) if c.id != who.id
                   and c.group == place["group"] and c.zone == place["zone"]),
                  place["group"])
    place["engagement"] = a.engagement if a.engagement is not None else (
        joined if place["group"] != who.group or place["zone"] != who.zone
        else who.engagement)
    events = [Event(kind, {"actor": who.id, "target": who.id, **place, **extra})]
    leaves = kind == "moved" or RANGE_BANDS.index(extra.get("distance", "engagement")) >= 1
    if who.has("cover") and (leaves or altitude > 0):
        why = ("left as part of movement" if kind == "moved"
               else "moved at least short range" if leaves
               else "flying: no cover (Z-COV-2)")
        events.append(Event("cover_left", {"target": who.id, "why": why}))
    return events


def flanking_type(rules: ZonesBase, state: EncounterState,
                  defender: Creature) -> tuple[str, list[str]]:
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
    basic, severe = FLANK_CUTOFFS[rules.ruling(state, "AZ-22")]
    widest = 0
    for a, b in combinations(counting, 2):
        widest = max(widest, _separation(info["angles"][a], info["angles"][b]))
    kind = "severe" if widest >= severe else "basic" if widest >= basic else "none"
    return kind, counting  # the most severe pair applies to every group (Z-FLK-5)


def flank_hindrance(rules: ZonesBase, state: EncounterState, defender: Creature, attacker: Creature,
                    range_band: str) -> dict[str, int]:
    """The flanking Hindrance on ``defender``'s defense roll against ``attacker``
    (Z-FLK-1..7)."""
    if range_band == "engagement":
        return {}  # never at engagement range (Z-FLK-6)
    if not defender.flanking:
        return {}  # flanking_type's "none": no group flanks it (every ranged hit asks)
    kind, counting = flanking_type(rules, state, defender)
    if kind == "none":
        return {}
    base = FLANK_HINDRANCE[kind]
    prioritized = [g for g in defender.flanking.get("prioritized", []) if g in counting]
    if attacker.group in prioritized:
        return {}
    if prioritized:
        return {f"{kind} flanking, doubled (a flank is prioritised)": 2 * base}
    return {f"{kind} flanking": base}


def _separation(a: int, b: int) -> int:
    """Degrees between two directions seen from the defender (0 to 180)."""
    gap = abs(a - b) % 360
    return min(gap, 360 - gap)
