"""Injuries in Polemos: wounds (P-WND-*), bleeding (P-BLD-*), afflictions (P-AFF-*), stress
(P-STS-*), what comes back while its cause remains (P-WND-8, P-AFF-3, P-CON-6), and the
per-round effects of a creature (P-CON-9, P-BLD-1, P-FAT-4).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    Deferred,
    EncounterState,
    Event,
    IllegalCommand,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.ahead import Ahead
from ...core.catalogue import command, event
from ...core.conditions import UNLISTED
from ...core.memo import kept
from ...core.model import caused, entity_at
from ...dice import DiceSource, roll
from . import payloads
from .actions import KINDS
from .base import DAY, STRESS_THRESHOLDS, WEEK, PolemosBase
from .checks import (
    CheckRules,  # the topic below (a chain)
    roll_skill,
    success,
)
from .conditions import cause_present
from .damage import damage_events
from .model import (
    Affliction,
    Bleed,
    Creature,
    DamageType,
    Wound,
    condition_catalogue,
    reveal_table,
    wound_catalogue,
    wound_of,
)

FATIGUE_CONDITIONS = ("physical fatigue", "mental fatigue")
"""The conditions that give a fatigue wound each round (P-FAT-4), in that order."""


def round_effects(rules: PolemosBase, state: EncounterState, who: str,
                  dice: DiceSource) -> list[Event]:
    """Per-round effects of one creature (P-CON-9): per-round damage conditions, bleeding
    (P-BLD-1), fatigue wounds from physical and mental fatigue (P-FAT-4). A creature that
    is down still has them: it has no turn, so they take effect every three seconds
    (P-CON-9; in turn-by-turn play where, by ruling POL-9)."""
    events: list[Event] = []
    creature = entity_at(state.entities, who)
    if not isinstance(creature, Creature):
        return events
    if not creature.bleeding:  # nothing due: said at once (every turn start asks)
        for cond in creature.conditions:
            if "damage" in cond.data or cond.name in FATIGUE_CONDITIONS:
                break
        else:
            return events
    ahead = Ahead(rules, state)
    for cond in creature.conditions:
        if "damage" in cond.data:
            events += per_round_damage(rules, ahead.of(events), who, cond, dice)
    events += bleeding_tick(rules, ahead.of(events), who, dice)
    points = 2 if rules.ruling(state, "AP-14") == "two-point" else 1
    for name in FATIGUE_CONDITIONS:
        after = ahead.of(events)
        current = rules.creature(after, who)
        if current.has(name):  # P-FAT-4, AP-14
            events.append(rules._new_wound(after, current, {"name": "fatigue",
                                                           "fatigue": points}, why=name))
    return events


def per_round_damage(rules: PolemosBase, state: EncounterState, who: str, cond: Condition,
                     dice: DiceSource) -> list[Event]:
    """P-CON-9 per-round damage; P-CDP-5, P-CDP-6: each tick earns its own points for the
    condition's source."""
    creature = rules.creature(state, who)
    area = cond.data.get("area")
    if area is None:
        areas = list(creature.areas)
        area = areas[roll(f"1d{len(areas)}", dice).total - 1]
    amount = int(cond.data["damage"]) * cond.level
    dtype = DamageType.parse(str(cond.data.get("type", "heat")))
    return damage_events(rules, state, who, area, dtype, amount, 0, cond.source, False,
                               {"per_round": cond.name}, dice)


def bleeding_tick(rules: PolemosBase, state: EncounterState, who: str,
                  dice: DiceSource) -> list[Event]:
    """P-BLD-1 at the start of the bearer's turn (P-CON-9), every area independently
    (AP-10); a bandaged origin stops it while the bandage lasts (P-BLD-3, P-BLD-4)."""
    creature = rules.creature(state, who)
    events: list[Event] = []
    independent = rules.ruling(state, "AP-10") == "independent"
    ahead = Ahead(rules, state)
    for bleed in creature.bleeding:
        if bandaged(creature, bleed.origin):
            continue
        now = ahead.of(events)
        current = rules.creature(now, who)
        areas = list(dict.fromkeys(bleed.areas + bleed.pending))
        spread: list[str] = []
        for area in areas:
            part = current.areas[area]
            vitality = part.vitality
            if vitality <= part.minimum:
                if independent or area == bleed.origin:
                    spread += [a for a in part.adjacent
                               if a not in areas and a not in spread]
                continue
        hits = [a for a in areas if current.areas[a].vitality > current.areas[a].minimum]
        events.append(Event("bleeding_ticked", {"target": who, "id": bleed.id,
                                                "areas": areas, "pending": spread}))
        for area in hits:
            events += damage_events(rules, ahead.of(events), who, area,
                                          DamageType("bleeding"), bleed.damage, 0,
                                          bleed.source, False, {"bleeding": bleed.id},
                                          dice, armor=False)
    return events


def bandaged(creature: Creature, area: str) -> bool:
    """A bandage condition on ``area`` (the bandage command's ``bandaged AREA``, or any
    condition tagged bandage given with that area): the bleeding that began there stays
    stopped while it lasts (P-BLD-3, P-BLD-4, AP-10)."""
    return any(c.name == f"bandaged {area}" or ("bandage" in c.tags
                                                  and c.data.get("area") == area)
               for c in creature.conditions)


def wound_removed(creature: Creature, wound_id: str) -> None:
    """A wound leaves ``creature`` with what it brought: the conditions it caused (P-CON-6) and
    its bleeding (what the ``wound_removed`` event writes)."""
    creature.wounds = [w for w in creature.wounds if w.id != wound_id]
    creature.conditions = [c for c in creature.conditions  # P-CON-6: cause gone
                           if not (c.duration.kind == "caused"
                                   and c.duration.cause == wound_id)]
    creature.bleeding = [b for b in creature.bleeding if b.id != f"b-{wound_id}"]


def affliction_wounds(rules: PolemosBase, state: EncounterState, who: str,
                      affliction: dict[str, Any]) -> list[Event]:
    """The wound of the same name an affliction applies, caused by it (P-AFF-2), given
    ``state`` with the affliction added: when it is first given and whenever it comes
    back (P-AFF-3)."""
    if not affliction.get("wound"):
        return []
    return [rules._new_wound(state, rules.creature(state, who), {
        "name": affliction["name"], "area": affliction.get("area"),
        "cause": affliction["id"]}, why="affliction")]


def due_readds(rules: PolemosBase, state: EncounterState, now: int) -> list[Event]:
    """What falls due by ``now`` in the re-add queue: each item leaves the queue and, when
    its cause is still there, comes back through the same events as when it was first
    given, with everything they bring (``reapplied``): a wound its conditions and its
    bleeding, an affliction its wound (P-CON-6, P-WND-8, P-AFF-3)."""
    events: list[Event] = []
    for index, item in enumerate(state.extra.get("readd", [])):
        if item["due"] > now:
            continue
        after = rules.lookahead(state, events)
        creature = entity_at(after.entities, item["target"])
        payload = item["payload"]
        present = creature is not None and cause_present(
            after, creature, item["cause"], payload.get("name"))
        events.append(Event("readded", {"index": index, "target": item["target"],
                                        "kind": item["kind"], "payload": payload,
                                        "present": present, "reapplied": True}))
        if present:
            events += reapplied(rules, rules.lookahead(state, events), item["target"],
                                      item["kind"], payload)
    return events


def reapplied(rules: PolemosBase, state: EncounterState, who: str, kind: str,
              payload: dict[str, Any]) -> list[Event]:
    """The events that give back a wound, an affliction or a condition: the ones that
    gave it the first time."""
    if kind == "wound":
        return [Event("wound_added", {
            "target": who, "wound": payload, "why": "its cause remains",
            "count": int(state.extra.get("wound_count", 0)),
            "bleeding": int(payload.get("bleeding", 0)), "source": payload.get("source")})]
    if kind == "affliction":
        added = Event("affliction_added", {
            "target": who, "affliction": payload, "why": "its cause remains",
            "count": int(state.extra.get("affliction_count", 0))})
        return [added, *affliction_wounds(rules, rules.lookahead(state, [added]), who,
                                                payload)]
    return [Event("condition_added", {"target": who, "condition": payload,
                                      "why": "its cause remains"})]


WoundFields = tuple[Any, tuple[str, ...], int, int, bool, Any, Any, tuple[str, ...], int, Any]
"""A new wound's fields but its id, name and when it was received (``_wound_data``): its
area, tags, fatigue, level, known, cause, maximum days, conditions, bleeding and source."""

_WOUND_FIELDS: dict[tuple[Any, ...], WoundFields] = {}
"""Wound fields already read from the catalogue and a wound's own (``raw``), by ``raw``'s
items when they are all small scalars (critical damage points give the same few wounds every
fight; merging a read-only catalogue entry took 4% of a simulated Polemos fight). Bounded:
emptied when it reaches :data:`_WOUND_FIELDS_KEPT`."""
_WOUND_FIELDS_KEPT = 1024
_RAW_SCALARS = frozenset({str, int, bool, type(None)})


def _raw_key(raw: dict[str, Any]) -> tuple[Any, ...] | None:
    """The key of ``raw`` in :data:`_WOUND_FIELDS` (each item with its value's type, as
    ``1`` and ``True`` read differently), or None when it is not kept there."""
    if len(raw) > 16:
        return None
    key: list[Any] = []
    for name, value in raw.items():
        kind = type(value)
        if kind not in _RAW_SCALARS or (kind is str and len(value) > 64):
            return None
        key += (name, kind, value)
    return tuple(key)


def _wound_fields(name: str, raw: dict[str, Any]) -> WoundFields:
    """A wound's fields from the catalogue's entry ``name`` and its own ``raw`` ones."""
    spec = {**wound_catalogue().get(name, {}), **raw}
    area = spec.get("area")
    if spec.get("whole_body"):
        area = None
    return (area, tuple(str(t) for t in spec.get("tags", [])), int(spec.get("fatigue", 0)),
            int(spec.get("level", 1)), bool(spec.get("known", True)), spec.get("cause"),
            spec.get("max_days"), tuple(str(c) for c in spec.get("conditions", [])),
            int(spec.get("bleeding", 0)), spec.get("source"))


@mypyc_attr(allow_interpreted_subclasses=True)
class InjuryRules(CheckRules):
    """Wounds, bleeding, afflictions and stress."""

    @event("{target} gets a wound: {wound.name}[ on the {wound.area}][ ({why})].",
           target=args.creature("who is wounded"),
           wound=args.mapping("the wound: id, name, area, tags, fatigue, level, known, "
                              "cause, received, max_days, conditions"),
           why=args.text("given, critical, affliction, or the fatigue condition"),
           count=args.integer("wounds numbered so far"),
           bleeding=args.integer("bleeding damage per round it starts (0: none)"),
           source=args.creature("who caused it (earns the bleeding's critical damage "
                                "points)"),
           optional=("bleeding", "source", "why"))
    def apply_wound_added(self, state: EncounterState, data: payloads.WoundAdded) -> None:
        creature = self.creature(state, data["target"])
        # a payload written before the record kept its bleeding takes the event's
        wound = wound_of(data["wound"], int(data.get("bleeding") or 0), data.get("source"))
        creature.wounds = [*creature.wounds, wound]
        state.extra["wound_count"] = max(int(state.extra.get("wound_count", 0)), data["count"])
        self._wound_effects(creature, wound, wound.bleeding, wound.source)
        if "vital" in wound.tags and self.ruling(state, "AP-11") == "applied":
            self._reset_bleeding(creature, None)  # P-BLD-5, AP-11: when it lands

    @command("Give a creature a wound (from wounds.toml, or described here).",
             rules=("P-WND-1", "P-WND-2", "P-WND-3", "P-WND-5", "P-FAT-1", "P-BLD-1"),
             target=args.creature("who is wounded", required=True),
             name=args.text("the wound's name (wounds.toml fills in the rest)", required=True,
                            max_len=64),
             area=args.text("the body area (none: the whole body)", max_len=64),
             whole_body=args.flag("it affects the whole body, not one area"),
             tags=args.items("tags, e.g. fatigue, vital, bleeding"),
             fatigue=args.integer("fatigue points on it", lo=0, hi=999),
             level=args.integer("its level", lo=0, hi=99, default=1),
             known=args.flag("known (false: an unknown wound, to be revealed)", default=True),
             cause=args.text("what keeps it (a wound, an affliction, a condition or a tag)",
                             max_len=64),
             conditions=args.items("the conditions it causes"),
             bleeding=args.integer("bleeding damage per round it starts on its area", lo=0,
                                   hi=999),
             max_days=args.integer("days after which it heals by itself", lo=0, hi=99999),
             source=args.creature("who caused it (earns its bleeding's critical damage "
                                  "points)"))
    def do_wound(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Give a wound (P-WND-1): wounds.toml fills in what the GM leaves out."""
        target = self.creature(state, command.a.target)
        # the wound as given, passed on whole: ``_wound_data`` tells given from left out
        raw = {k: v for k, v in command.args.items() if k != "target"}
        events = [self._new_wound(state, target, raw, why="given")]
        return events + self._consequences(state, events)

    @command("Remove a wound (healing or an ability), by its id or by a tag.",
             rules=("P-WND-2", "P-WND-8"),
             target=args.creature("whose wound", required=True),
             wound=args.text("the wound's id", max_len=64),
             tag=args.text("remove a wound with this tag", max_len=64))
    def do_heal(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Remove a wound (healing or an ability), by its id or by a tag (P-WND-2)."""
        target = self.creature(state, command.a.target)
        wound_id = command.a.wound
        tag = command.a.tag
        if wound_id is not None:
            wound = target.wound(wound_id)
            if tag is not None and tag not in wound.tags:
                raise IllegalCommand(f"{wound.name} is not tagged {tag!r}", rule="P-WND-2")
        elif tag is not None:
            tagged = [w for w in target.wounds if tag in w.tags]
            if not tagged:
                raise IllegalCommand(f"{target.id} has no wound tagged {tag!r}", rule="P-WND-2")
            wound = tagged[0]
        else:
            raise InvalidCommand("heal: give the 'wound' id or a 'tag'")
        events = self._remove_wound(state, target, wound, "healed")
        return events + self._consequences(state, events)

    def _remove_wound(self, state: EncounterState, creature: Creature, wound: Wound,
                      why: str) -> list[Event]:
        events = [Event("wound_removed", {"target": creature.id, "wound": wound.id, "why": why})]
        if wound.cause is not None and cause_present(state, creature, wound.cause):
            # P-WND-8: removed while its cause remains: back 24 hours later
            events.append(Event("readd_scheduled", {
                "due": self.clock(state) + DAY, "target": creature.id, "kind": "wound",
                "payload": wound.to_json(), "cause": wound.cause}))
        return events

    @event("{target}'s wound {wound} is gone[ ({why})].",
           target=args.creature("whose wound"), wound=args.text("the wound's id"),
           why=args.text("healed, maximum duration, cause removed..."))
    def apply_wound_removed(self, state: EncounterState, data: payloads.WoundRemoved) -> None:
        wound_removed(self.creature(state, data["target"]), data["wound"])

    @command("Reveal an unknown wound: 3D6 on the reveal list (or the GM's result), and a "
             "random body area if it has none.",
             rules=("P-WND-6", "P-WND-7", "AP-31"),
             target=args.creature("whose wound", required=True),
             wound=args.text("the unknown wound's id", required=True, max_len=64),
             result=args.text("the GM's wound name instead of the reveal list", max_len=64))
    def do_reveal(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Reveal an unknown wound (P-WND-6): 3D6 on the reveal list (ruling AP-31) or the
        GM's result, then a random body area if it has none (P-WND-7)."""
        target = self.creature(state, command.a.target)
        wound = target.wound(command.a.wound)
        if wound.known:
            raise IllegalCommand(f"{wound.id} ({wound.name}) is already known", rule="P-WND-6")
        data: dict[str, Any] = {"target": target.id, "wound": wound.id}
        result = command.a.result
        if result is None and self.ruling(state, "AP-31") == "default-table":
            reveal = roll("3d6", dice)
            data["roll"] = Deferred(reveal.to_json)
            result = next(r["wound"] for r in reveal_table() if reveal.total <= r["upto"])
        elif result is None:
            raise InvalidCommand("reveal: the GM names the 'result' (ruling AP-31 gm-decides)")
        area = wound.area
        if area is None and not wound_catalogue().get(result, {}).get("whole_body"):
            areas = list(target.areas)  # P-WND-7: a random body area when identified
            area = areas[roll(f"1d{len(areas)}", dice).total - 1]
        revealed = self._wound_data(target.id, target, {"name": result, "area": area},
                                    wound.id, wound.received)
        spec = wound_catalogue().get(result, {})
        data.update(result=result, area=area, revealed=revealed,
                    bleeding=int(spec.get("bleeding", 0)))
        events = [Event("wound_revealed", data)]
        return events + self._consequences(state, events)

    @event("{target}'s unknown wound {wound} is revealed: {result}[ on the {area}][ (3D6: "
           "{roll})].",
           target=args.creature("whose wound"), wound=args.text("the wound's id"),
           roll=args.mapping("the 3D6 reveal roll"), result=args.text("the wound it is"),
           area=args.text("its body area (none: the whole body)"),
           revealed=args.mapping("the wound as it now is"),
           bleeding=args.integer("bleeding damage per round it starts"),
           optional=("roll",))
    def apply_wound_revealed(self, state: EncounterState, data: payloads.WoundRevealed) -> None:
        creature = self.creature(state, data["target"])
        creature.wounds = [w for w in creature.wounds if w.id != data["wound"]]
        self.apply_wound_added(state, {"target": creature.id, "wound": data["revealed"],
                                       "count": 0, "bleeding": data["bleeding"]})

    @command("Start bleeding on a body area.", rules=("P-BLD-1",),
             target=args.creature("who bleeds", required=True),
             area=args.text("the body area it starts on", required=True, max_len=64),
             damage=args.integer("damage per round", lo=0, hi=999, default=1),
             source=args.creature("who caused it (earns its critical damage points)"))
    def do_bleed(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Start bleeding on a body area (P-BLD-1)."""
        target = self.creature(state, command.a.target)
        area = command.a.area
        target.area(area)
        count = int(state.extra.get("bleed_count", 0)) + 1
        return [Event("bleeding_started", {
            "target": target.id, "id": f"b{count}", "origin": area, "count": count,
            "damage": command.a.damage, "source": command.a.source})]

    @event("{target} starts bleeding from the {origin}[, {damage} damage a round].",
           target=args.creature("who bleeds"), id=args.text("the bleeding's id"),
           origin=args.text("the body area it starts on"),
           count=args.integer("bleedings numbered so far"),
           damage=args.integer("damage per round"),
           source=args.creature("who caused it"),
           optional=("source",))
    def apply_bleeding_started(self, state: EncounterState, data: payloads.BleedingStarted) -> None:
        creature = self.creature(state, data["target"])
        creature.bleeding = [*creature.bleeding, Bleed(data["id"], data["origin"], data["damage"],
                                                       [data["origin"]], [], data.get("source"))]
        state.extra["bleed_count"] = data["count"]

    @event("{target}'s bleeding {id} fires on {areas}[; it spreads to {pending}].",
           target=args.creature("who bleeds"), id=args.text("the bleeding's id"),
           areas=args.items("the body areas it reaches"),
           pending=args.items("the areas it spreads to, damaged from the next turn"))
    def apply_bleeding_ticked(self, state: EncounterState, data: payloads.BleedingTicked) -> None:
        creature = self.creature(state, data["target"])
        creature.bleeding = [replace(bleed, areas=list(data["areas"]),
                                     pending=list(data["pending"]))
                             if bleed.id == data["id"] else bleed for bleed in creature.bleeding]

    @command("Bandage a body area: the bleeding that started there is reset and stops "
             "while the bandage lasts.", who="player", actor="optional", cost="primary",
             rules=("P-BLD-3", "P-BLD-4"),
             target=args.creature("who is bandaged", refers="ally", required=True),
             area=args.text("the body area", required=True, max_len=64),
             kind=args.choice("the action it takes (with an actor)", *KINDS,
                              default="primary", who="gm"),
             rounds=args.integer("rounds it lasts (0: until removed)", lo=0, hi=99999,
                                 default=0, who="gm"))
    def do_bandage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Bandage a body area (P-BLD-3): the bleeding that began there is reset, and stays
        stopped while the bandage lasts (P-BLD-4)."""
        target = self.creature(state, command.a.target)
        area = command.a.area
        target.area(area)
        events: list[Event] = []
        if command.actor is not None:
            actor = self.acting(state, command)
            events.append(Event("acted", self.use(state, actor, command.a.kind, "bandage")))
        duration = self.duration(state, command.a.rounds)
        cond = Condition(f"bandaged {area}", 1, ("bandage",), command.actor, duration,
                         {"area": area})
        events += [Event("condition_added", {"target": target.id, "condition": cond.to_json()}),
                   Event("bleeding_reset", {"target": target.id, "origin": area})]
        return events

    @event("{target}'s bleeding[ from the {origin}] shrinks back to where it started.",
           target=args.creature("who bleeds"),
           origin=args.text("the bandaged area (none: every bleeding)"),
           optional=("origin",))
    def apply_bleeding_reset(self, state: EncounterState, data: payloads.BleedingReset) -> None:
        self._reset_bleeding(self.creature(state, data["target"]), data.get("origin"))

    @command("Give a creature an affliction (they stack); optionally a wound of the same "
             "name.", rules=("P-AFF-1", "P-AFF-2", "P-AFF-4", "P-AFF-5"),
             target=args.creature("who is afflicted", required=True),
             name=args.text("the affliction's name", required=True, max_len=64),
             area=args.text("the body area (none: the whole body or mind)", max_len=64),
             cause=args.text("what keeps it (it comes back a week after removal while the "
                             "cause remains)", max_len=64),
             tags=args.items("tags, e.g. corruption"),
             wound=args.flag("also a wound of the same name, caused by it"))
    def do_afflict(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Give an affliction (P-AFF-1), and with ``wound`` a wound of the same name it
        causes (P-AFF-2). Afflictions stack (P-AFF-4)."""
        a = command.a
        target = self.creature(state, a.target)
        area = a.area
        if area is not None:
            target.area(area)
        added = self._new_affliction(state, target, {
            "name": a.name, "area": area, "cause": a.cause,
            "tags": a.tags if a.tags is not None else [], "wound": a.wound})
        events = [added, *affliction_wounds(self, self.lookahead(state, [added]), target.id,
                                                  added.data["affliction"])]
        return events + self._consequences(state, events)

    @event("{target} is afflicted with {affliction.name}[ ({affliction.area})].",
           target=args.creature("who is afflicted"),
           affliction=args.mapping("the affliction: id, name, area, cause, tags, wound"),
           count=args.integer("afflictions numbered so far"),
           why=args.text("why it is given again (it came back)"),
           optional=("why",))
    def apply_affliction_added(self, state: EncounterState, data: payloads.AfflictionAdded) -> None:
        creature = self.creature(state, data["target"])
        creature.afflictions = [*creature.afflictions, Affliction(**data["affliction"])]
        state.extra["affliction_count"] = max(int(state.extra.get("affliction_count", 0)),
                                              data["count"])

    @command("Remove an affliction, and the wounds it caused.",
             rules=("P-AFF-3", "P-WND-8"),
             target=args.creature("whose affliction", required=True),
             affliction=args.text("the affliction's id", required=True, max_len=64))
    def do_cure(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Remove an affliction: one caused by something that remains comes back a week later
        (P-AFF-3); its wounds go with it (P-WND-8)."""
        target = self.creature(state, command.a.target)
        aff_id = command.a.affliction
        found = [a for a in target.afflictions if a.id == aff_id]
        if not found:
            shown = ", ".join(f"{a.id} ({a.name})" for a in target.afflictions) or "none"
            raise InvalidCommand(f"{target.id} has no affliction {aff_id!r} "
                                 f"(afflictions: {shown})")
        aff = found[0]
        events = [Event("affliction_removed", {"target": target.id, "affliction": aff.id})]
        for wound in target.wounds:
            if wound.cause == aff.id:  # P-WND-8: removed with its cause
                events.append(Event("wound_removed", {"target": target.id, "wound": wound.id,
                                                      "why": "cause removed"}))
        if aff.cause is not None and cause_present(state, target, aff.cause):
            events.append(Event("readd_scheduled", {
                "due": self.clock(state) + WEEK, "target": target.id, "kind": "affliction",
                "payload": aff.to_json(), "cause": aff.cause}))
        return events + self._consequences(state, events)

    @event("{target}'s affliction {affliction} is removed.",
           target=args.creature("whose affliction"),
           affliction=args.text("the affliction's id"))
    def apply_affliction_removed(self, state: EncounterState,
                                 data: payloads.AfflictionRemoved) -> None:
        creature = self.creature(state, data["target"])
        creature.afflictions = [a for a in creature.afflictions if a.id != data["affliction"]]

    @event("{target}'s {kind} will come back at round {due} while its cause {cause} "
           "remains.",
           due=args.integer("the clock round it comes back"),
           target=args.creature("whose"), kind=args.text("wound, affliction or condition"),
           payload=args.mapping("what comes back"),
           cause=args.text("the cause that remains"))
    def apply_readd_scheduled(self, state: EncounterState, data: payloads.ReaddScheduled) -> None:
        state.extra.setdefault("readd", []).append(
            {k: data[k] for k in ("due", "target", "kind", "payload", "cause")})

    @event("{target}'s {kind} {present?comes back: its cause remains|does not come back: "
           "its cause is gone}.",
           index=args.integer("its place in the queue"), target=args.creature("whose"),
           kind=args.text("wound, affliction or condition"),
           payload=args.mapping("what comes back"),
           present=args.flag("its cause is still there"),
           reapplied=args.flag("the events that give it back follow this one"),
           optional=("reapplied",))
    def apply_readded(self, state: EncounterState, data: payloads.Readded) -> None:
        queue = state.extra.get("readd", [])
        queue[:] = [q for q in queue if not (q["target"] == data["target"]
                                             and q["payload"] == data["payload"])]
        creature = entity_at(state.entities, data["target"])
        if data.get("reapplied") or not data["present"] or not isinstance(creature, Creature):
            return
        # a record written before the events that give it back followed: give it back here,
        # through the same apply methods
        payload = data["payload"]
        if data["kind"] == "wound":
            self.apply_wound_added(state, {"target": creature.id, "wound": payload, "count": 0})
        elif data["kind"] == "affliction":
            self.apply_affliction_added(state, {"target": creature.id, "affliction": payload,
                                                "count": 0})
        else:
            self.apply_condition_added(state, {"target": creature.id, "condition": payload})

    @command("Give a creature stress; a discipline roll may avoid it; the final threshold "
             "is a breakdown (a new corruption).",
             rules=("P-STS-1", "P-STS-2", "P-STS-3", "P-STS-4", "P-STS-5", "AP-16"),
             target=args.creature("who takes the stress", required=True),
             amount=args.integer("stress points", lo=0, hi=999, required=True),
             discipline=args.integer("the target number of a discipline roll that avoids it",
                                     lo=0, hi=99),
             corruption=args.text("the breakdown affliction's name", default="corruption",
                                  max_len=64))
    def do_stress(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Give stress (P-STS-1): a discipline roll against the GM's target number may avoid
        it (P-STS-3); the final threshold is a breakdown, a new corruption (P-STS-5)."""
        a = command.a
        target = self.creature(state, a.target)
        amount = a.amount
        if amount < 0:
            raise InvalidCommand("stress: amount must not be negative (use 'indulge')")
        data: dict[str, Any] = {"target": target.id, "amount": amount}
        if a.discipline is not None:
            result = roll_skill(target.skill("discipline"), 0, 0, self.ruling(state, "AP-2"), dice)
            avoided = success(result.total, a.discipline, self.ruling(state, "AP-1"))
            data.update(discipline=Deferred(result.to_json), avoided=avoided)
            if avoided:
                amount = 0
        stress = target.stress + amount
        final = STRESS_THRESHOLDS[self.ruling(state, "AP-16")][-1]
        breakdown = stress >= final  # P-STS-5: stress resets (AP-16: to 0)
        data.update(stress=0 if breakdown else stress, breakdown=breakdown)
        events = [Event("stress_changed", data)]
        if breakdown:
            events.append(self._new_affliction(state, target, {
                "name": a.corruption,
                "tags": ["corruption"]}))
        return events + self._consequences(state, events)

    @command("A creature loses stress by indulging a corruption, or at the GM's word.",
             rules=("P-STS-6",),
             target=args.creature("who loses stress", required=True),
             amount=args.integer("stress points lost", lo=0, hi=999, required=True))
    def do_indulge(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Lose stress by indulging a corruption or at the GM's word (P-STS-6)."""
        target = self.creature(state, command.a.target)
        amount = command.a.amount
        events = [Event("stress_changed", {"target": target.id, "amount": -amount,
                                           "stress": max(target.stress - amount, 0)})]
        return events + self._consequences(state, events)

    @event("{target}'s stress changes by {amount}[ (discipline roll {discipline}: "
           "{avoided?avoided|not avoided})] to {stress}[{breakdown?: a breakdown|}].",
           target=args.creature("whose stress"),
           amount=args.integer("stress given (negative: lost)"),
           discipline=args.mapping("the discipline roll"),
           avoided=args.flag("the discipline roll avoided it"),
           stress=args.integer("stress after"),
           breakdown=args.flag("the final threshold was reached (P-STS-5)"),
           optional=("avoided", "breakdown", "discipline"))
    def apply_stress_changed(self, state: EncounterState, data: payloads.StressChanged) -> None:
        self.creature(state, data["target"]).stress = data["stress"]

    def _wound_data(self, owner: str, creature: Creature, raw: dict[str, Any], wound_id: str,
                    received: int) -> dict[str, Any]:
        name = str(raw.get("name", ""))
        if not name:
            raise InvalidCommand(f"{owner}: a wound needs a 'name'")
        key = _raw_key(raw)
        made = _WOUND_FIELDS.get(key) if key is not None else None
        if made is None:
            made = _wound_fields(name, raw)
            if key is not None:
                kept(_WOUND_FIELDS, key, made, _WOUND_FIELDS_KEPT)
        area, tags, fatigue, level, known, cause, max_days, conditions, bleeding, source = made
        if area is not None:
            creature.area(str(area))
        return {"id": wound_id, "name": name, "area": area, "tags": list(tags),
                "fatigue": fatigue, "level": level, "known": known, "cause": cause,
                "received": received, "max_days": max_days, "conditions": list(conditions),
                "bleeding": bleeding, "source": source}

    def _new_wound(self, state: EncounterState, creature: Creature, raw: dict[str, Any],
                   why: str, index: int = 0) -> Event:
        count = int(state.extra.get("wound_count", 0)) + 1 + index
        data = self._wound_data(creature.id, creature, raw, f"w{count}", self.clock(state))
        return Event("wound_added", {"target": creature.id, "wound": data, "why": why,
                                     "count": count, "bleeding": data["bleeding"],
                                     "source": data["source"]})

    def _wound_effects(self, creature: Creature, wound: Wound, bleeding: int,
                       source: str | None) -> None:
        """What a known wound brings: its caused conditions (P-WND-1 via P-CON-6) and the
        bleeding it starts on its body area (P-BLD-*)."""
        if not wound.known:
            return
        for name in wound.conditions:
            spec = condition_catalogue().get(name, UNLISTED)
            cond = Condition(name, 1, spec.tags, wound.id,
                             caused(wound.id))
            kept = self.stack_condition(creature.condition(name), cond)
            creature.conditions = [c for c in creature.conditions if c.name != name] + [kept]
        if bleeding and wound.area is not None:
            creature.bleeding = [*creature.bleeding, Bleed(f"b-{wound.id}", wound.area,
                                                           bleeding, [wound.area], [], source)]

    @staticmethod
    def _reset_bleeding(creature: Creature, origin: str | None) -> None:
        creature.bleeding = [  # P-BLD-2
            replace(bleed, areas=[bleed.origin], pending=[])
            if origin is None or bleed.origin == origin else bleed
            for bleed in creature.bleeding]

    def _new_affliction(self, state: EncounterState, creature: Creature,
                        raw: dict[str, Any]) -> Event:
        count = int(state.extra.get("affliction_count", 0)) + 1
        data = {"id": f"a{count}", "name": str(raw["name"]), "area": raw.get("area"),
                "cause": raw.get("cause"), "tags": [str(t) for t in raw.get("tags", [])],
                "wound": bool(raw.get("wound", False))}
        return Event("affliction_added", {"target": creature.id, "affliction": data,
                                          "count": count})
