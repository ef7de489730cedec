"""Injuries and time in Polemos: wounds (P-WND-*), bleeding (P-BLD-*), afflictions (P-AFF-*),
fatigue and rest (P-FAT-*), stress (P-STS-*), time passing (P-TIM-*) and per-round effects
(P-CON-9).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...core import (
    Command,
    Condition,
    EncounterState,
    Entity,
    Event,
    IllegalCommand,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.rounding import round_down
from ...dice import DiceSource, roll
from .base import (
    DAY,
    ENDURANCE,
    HOUR,
    STRESS_THRESHOLDS,
    WEEK,
    PolemosBase,
)
from .commands import (
    KINDS,
    also,
    kind_of,
    roll_skill,
    success,
)
from .damage import resolve_damage
from .model import (
    Affliction,
    Bleed,
    Creature,
    DamageType,
    Wound,
    reveal_table,
    rounds_in,
    wound_catalogue,
)

ROUND_BY_ROUND = HOUR
"""The most rounds whose per-round effects keep changing something that one 'wait' or 'rest'
plays one by one (1,200: an hour, P-TIM-2); a longer stretch is refused (P-CON-9)."""


class InjuryRules(PolemosBase):
    """Wounds, bleeding, afflictions, time, rest and stress."""

    def _round_effects(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """Per-round effects of one creature (P-CON-9): per-round damage conditions, bleeding
        (P-BLD-1), fatigue wounds from physical and mental fatigue (P-FAT-4). A creature that
        is down still has them: it has no turn, so they take effect every three seconds
        (P-CON-9; in turn-by-turn play where, by ruling POL-9)."""
        events: list[Event] = []
        creature = state.entities.get(who)
        if not isinstance(creature, Creature):
            return events
        for cond in creature.conditions:
            if "damage" in cond.data:
                events += self._per_round_damage(self.lookahead(state, events), who, cond, dice)
        events += self._bleeding_tick(self.lookahead(state, events), who, dice)
        points = 2 if self.rule(state, "AP-14") == "two-point" else 1
        for name in ("physical fatigue", "mental fatigue"):
            after = self.lookahead(state, events)
            current = self.creature(after, who)
            if current.has(name):  # P-FAT-4, AP-14
                events.append(self._new_wound(after, current, {"name": "fatigue",
                                                               "fatigue": points}, why=name))
        return events

    @staticmethod
    def _expire_clock(state: EncounterState, now: int) -> list[Event]:
        """Conditions timed by the clock (given outside turn-by-turn play) that have ended."""
        out = []
        for entity in state.entities.values():
            for cond in entity.conditions:
                d = cond.duration
                if d.kind == "timed" and d.turn_of is None and d.round is not None \
                        and d.round <= now:
                    out.append(Event("condition_removed", {"target": entity.id,
                                                           "name": cond.name,
                                                           "why": "expired"}))
        return out

    @command("Outside turn-by-turn play, let rounds pass one by one with their per-round "
             "effects (bleeding, per-round damage, fatigue wounds).",
             rules=("P-CON-9", "P-TIM-1", "P-BLD-1", "P-FAT-4"),
             rounds=args.integer("rounds of three seconds (use 'wait' for longer)", lo=1,
                                 hi=100, default=1),
             target=args.creature("whose per-round effects fire (default: every creature)"))
    def do_tick(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Outside turn-by-turn play, per-round effects happen every three seconds (P-CON-9):
        [rounds] (1 to 100, default 1), [target] (default: every creature)."""
        if state.in_combat:
            raise IllegalCommand("in turn-by-turn play per-round effects come at the start of "
                                 "each turn: use 'next'", rule="P-CON-9")
        rounds = self.arg(command, "rounds", int, 1)
        if not 1 <= rounds <= 100:
            raise InvalidCommand("tick: rounds must be from 1 to 100 (use 'wait' for longer)")
        target = self.opt(command, "target", str)
        who = [self.creature(state, target).id] if target else [
            e.id for e in state.entities.values() if isinstance(e, Creature)]
        events: list[Event] = []
        for _ in range(rounds):
            now = self.clock(self.lookahead(state, events))
            events.append(Event("time_passed", {"from": now, "to": now + 1}))
            events += self._due_readds(self.lookahead(state, events), now + 1)
            events += self._expire_clock(self.lookahead(state, events), now + 1)
            for name in who:
                events += self._round_effects(self.lookahead(state, events), name, dice)
            events += self._consequences(state, events)
        return events

    def _per_round_damage(self, state: EncounterState, who: str, cond: Condition,
                          dice: DiceSource) -> list[Event]:
        """P-CON-9 per-round damage; P-CDP-5, P-CDP-6: each tick earns its own points for the
        condition's source."""
        creature = self.creature(state, who)
        area = cond.data.get("area")
        if area is None:
            areas = list(creature.areas)
            area = areas[roll(f"1d{len(areas)}", dice).total - 1]
        amount = int(cond.data["damage"]) * cond.level
        dtype = DamageType.parse(str(cond.data.get("type", "heat")))
        return self._damage_events(state, who, area, dtype, amount, 0, cond.source, False,
                                   {"per_round": cond.name}, dice)

    @event("{target} gets a wound: {wound.name}[ on the {wound.area}][ ({why})].",
           target=args.creature("who is wounded"),
           wound=args.mapping("the wound: id, name, area, tags, fatigue, level, known, "
                              "cause, received, max_days, conditions"),
           why=args.text("given, critical, affliction, or the fatigue condition"),
           count=args.integer("wounds numbered so far"),
           bleeding=args.integer("bleeding damage per round it starts (0: none)"),
           source=args.creature("who caused it (earns the bleeding's critical damage "
                                "points)"))
    def apply_wound_added(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        # a payload written before the record kept its bleeding takes the event's
        wound = Wound(**{"bleeding": int(data.get("bleeding", 0)), "source": data.get("source"),
                         **data["wound"]})
        creature.wounds = [*creature.wounds, wound]
        state.extra["wound_count"] = max(int(state.extra.get("wound_count", 0)), data["count"])
        self._wound_effects(creature, wound, wound.bleeding, wound.source)
        if "vital" in wound.tags and self.rule(state, "AP-11") == "applied":
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
        """Give a wound: target, name, [area] (none: whole body), [tags], [fatigue], [known],
        [cause], [conditions], [bleeding], [max_days], [source]."""
        target = self.creature(state, self.arg(command, "target", str))
        raw = {k: v for k, v in command.args.items() if k != "target"}
        events = [self._new_wound(state, target, raw, why="given")]
        return events + self._consequences(state, events)

    @command("Remove a wound (healing or an ability), by its id or by a tag.",
             rules=("P-WND-2", "P-WND-8"),
             target=args.creature("whose wound", required=True),
             wound=args.text("the wound's id", max_len=64),
             tag=args.text("remove a wound with this tag", max_len=64))
    def do_heal(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Remove a wound (healing or an ability): target, wound (its id) or tag (P-WND-2)."""
        target = self.creature(state, self.arg(command, "target", str))
        wound_id = self.opt(command, "wound", str)
        tag = self.opt(command, "tag", str)
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
        if wound.cause is not None and self._cause_present(state, creature, wound.cause):
            # P-WND-8: removed while its cause remains: back 24 hours later
            events.append(Event("readd_scheduled", {
                "due": self.clock(state) + DAY, "target": creature.id, "kind": "wound",
                "payload": wound.to_json(), "cause": wound.cause}))
        return events

    @event("{target}'s wound {wound} is gone[ ({why})].",
           target=args.creature("whose wound"), wound=args.text("the wound's id"),
           why=args.text("healed, maximum duration, cause removed..."))
    def apply_wound_removed(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.wounds = [w for w in creature.wounds if w.id != data["wound"]]
        creature.conditions = [c for c in creature.conditions  # P-CON-6: cause gone
                               if not (c.duration.kind == "caused"
                                       and c.duration.cause == data["wound"])]
        creature.bleeding = [b for b in creature.bleeding if b.id != f"b-{data['wound']}"]

    @command("Reveal an unknown wound: 3D6 on the reveal list (or the GM's result), and a "
             "random body area if it has none.",
             rules=("P-WND-6", "P-WND-7", "AP-31"),
             target=args.creature("whose wound", required=True),
             wound=args.text("the unknown wound's id", required=True, max_len=64),
             result=args.text("the GM's wound name instead of the reveal list", max_len=64))
    def do_reveal(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Reveal an unknown wound (P-WND-6): target, wound, [result] (the GM's wound name,
        instead of the 3D6 reveal list). Dice: 3D6, then the body area if it has none."""
        target = self.creature(state, self.arg(command, "target", str))
        wound = target.wound(self.arg(command, "wound", str))
        if wound.known:
            raise IllegalCommand(f"{wound.id} ({wound.name}) is already known", rule="P-WND-6")
        data: dict[str, Any] = {"target": target.id, "wound": wound.id}
        result = self.opt(command, "result", str)
        if result is None and self.rule(state, "AP-31") == "default-table":
            reveal = roll("3d6", dice)
            data["roll"] = reveal.to_json()
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
           bleeding=args.integer("bleeding damage per round it starts"))
    def apply_wound_revealed(self, state: EncounterState, data: dict[str, Any]) -> None:
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
        """Start bleeding on a body area: target, area, [damage] per round, [source]."""
        target = self.creature(state, self.arg(command, "target", str))
        area = self.arg(command, "area", str)
        target.area(area)
        count = int(state.extra.get("bleed_count", 0)) + 1
        return [Event("bleeding_started", {
            "target": target.id, "id": f"b{count}", "origin": area, "count": count,
            "damage": self.arg(command, "damage", int, 1),
            "source": self.opt(command, "source", str)})]

    @event("{target} starts bleeding from the {origin}[, {damage} damage a round].",
           target=args.creature("who bleeds"), id=args.text("the bleeding's id"),
           origin=args.text("the body area it starts on"),
           count=args.integer("bleedings numbered so far"),
           damage=args.integer("damage per round"),
           source=args.creature("who caused it"))
    def apply_bleeding_started(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.bleeding = [*creature.bleeding, Bleed(data["id"], data["origin"], data["damage"],
                                                       [data["origin"]], [], data.get("source"))]
        state.extra["bleed_count"] = data["count"]

    @staticmethod
    def _bandaged(creature: Creature, area: str) -> bool:
        """A bandage condition on ``area`` (the bandage command's ``bandaged AREA``, or any
        condition tagged bandage given with that area): the bleeding that began there stays
        stopped while it lasts (P-BLD-3, P-BLD-4, AP-10)."""
        return any(c.name == f"bandaged {area}" or ("bandage" in c.tags
                                                      and c.data.get("area") == area)
                   for c in creature.conditions)

    def lasting(self, state: EncounterState, entity: Entity) -> dict[str, Any]:
        """What outlasts the encounter (docs/rulesets/polemos.md): each body area's vitality,
        SP, FP and stress, the wounds (with their fatigue, P-FAT-1, and their ``age`` in
        rounds, so the daily [endurance] rolls keep their clock, P-WND-4) and the
        afflictions. A wound whose bleeding still runs, unbandaged, bleeds again in the next
        encounter; who caused it belongs to this one."""
        if not isinstance(entity, Creature):
            return {}
        running = {b.id for b in entity.bleeding}
        now = self.clock(state)
        wounds = [{"name": w.name, "area": w.area, "tags": list(w.tags), "fatigue": w.fatigue,
                   "level": w.level, "known": w.known, "cause": w.cause,
                   "age": now - w.received,
                   "max_days": w.max_days, "conditions": list(w.conditions),
                   "bleeding": w.bleeding if (f"b-{w.id}" in running and w.area is not None
                                              and not self._bandaged(entity, w.area)) else 0}
                  for w in entity.wounds]
        out: dict[str, Any] = {
            "stress": entity.stress, "wounds": wounds,
            "afflictions": [{"name": a.name, "area": a.area, "cause": a.cause,
                             "tags": list(a.tags), "wound": a.wound}
                            for a in entity.afflictions]}
        hurt = {name: area.vitality for name, area in entity.areas.items()
                if area.vitality != area.vitality_max}
        if hurt:
            out["vitality_now"] = hurt
        if entity.sp != entity.sp_max:
            out["sp_now"] = entity.sp
        if entity.fp != entity.fp_max:
            out["fp_now"] = entity.fp
        return out

    time_activities = ("rest", "relax", "sleep", "none")

    def time_commands(self, state: EncounterState, who: str, amount: int, unit: str,
                      activity: str) -> list[Command]:
        """Campaign time between encounters (docs/rulesets/polemos.md, "Time between
        encounters"): the character rests, relaxes or sleeps the whole time (``rest``:
        SP back, fatigue wounds by the hour, FP in sleep, P-FAT-5..9) or does none of it
        (``wait``); either way wounds roll [endurance] each day and run out (P-WND-4,
        P-WND-5) and timed effects end."""
        passing = {"amount": amount, "unit": unit}
        if activity == "none":
            first = Command("wait", args=passing)
        else:
            first = Command("rest", args={"target": who, "activity": activity, **passing})
        return [first, Command("mend", args={"target": who, **passing})]

    @command("Body areas regain vitality as time passes outside turn-by-turn play: one a "
             "complete day each, up to the maximum (POL-10; 'none': only healing does).",
             rules=("POL-10", "AP-30"),
             amount=args.integer("how many units", lo=0, hi=99999, required=True),
             unit=args.text("round, second, minute, hour, day, week, month or year (plurals "
                            "too)", default="day", max_len=16),
             target=args.creature("whose body areas (default: every creature's)"))
    def do_mend(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Vitality back over time (POL-10): amount, [unit], [target]."""
        if state.in_combat:
            raise IllegalCommand("time passes round by round in turn-by-turn play: use 'next'")
        rounds = rounds_in(self.arg(command, "amount", int),
                           self.arg(command, "unit", str, "day"), self.rule(state, "AP-30"))
        days = rounds // DAY
        who = self.opt(command, "target", str)
        creatures = [self.creature(state, who)] if who is not None else [
            e for e in state.entities.values() if isinstance(e, Creature)]
        if days == 0 or self.rule(state, "POL-10") == "none":
            return []
        events: list[Event] = []
        for creature in creatures:
            back = {name: min(area.vitality + days, area.vitality_max)
                    for name, area in creature.areas.items()
                    if area.vitality < area.vitality_max}
            if back:
                events.append(Event("mended", {"target": creature.id, "days": days,
                                               "vitality": back}))
        return events + self._consequences(state, events)

    @event("{target}'s body mends over {days} day(s): vitality {vitality}.",
           target=args.creature("whose body"), days=args.integer("complete days"),
           vitality=args.mapping("each mended area's vitality after"))
    def apply_mended(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        areas = dict(creature.areas)  # replaced, never changed in place (SHARED_IN_SCRATCH)
        for name, value in data["vitality"].items():
            areas[name] = replace(areas[name], vitality=int(value))
        creature.areas = areas

    def _bleeding_tick(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """P-BLD-1 at the start of the bearer's turn (P-CON-9), every area independently
        (AP-10); a bandaged origin stops it while the bandage lasts (P-BLD-3, P-BLD-4)."""
        creature = self.creature(state, who)
        events: list[Event] = []
        independent = self.rule(state, "AP-10") == "independent"
        for bleed in creature.bleeding:
            if self._bandaged(creature, bleed.origin):
                continue
            now = self.lookahead(state, events)
            current = self.creature(now, who)
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
                events += self._damage_events(self.lookahead(state, events), who, area,
                                              DamageType("bleeding"), bleed.damage, 0,
                                              bleed.source, False, {"bleeding": bleed.id},
                                              dice, armor=False)
        return events

    @event("{target}'s bleeding {id} fires on {areas}[; it spreads to {pending}].",
           target=args.creature("who bleeds"), id=args.text("the bleeding's id"),
           areas=args.items("the body areas it reaches"),
           pending=args.items("the areas it spreads to, damaged from the next turn"))
    def apply_bleeding_ticked(self, state: EncounterState, data: dict[str, Any]) -> None:
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
                              default="primary"),
             rounds=args.integer("rounds it lasts (0: until removed)", lo=0, hi=99999,
                                 default=0))
    def do_bandage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Bandage a body area (P-BLD-3): target, area, [actor], [rounds] (default: until
        removed)."""
        target = self.creature(state, self.arg(command, "target", str))
        area = self.arg(command, "area", str)
        target.area(area)
        events: list[Event] = []
        if command.actor is not None:
            actor = self.acting(state, command)
            events.append(Event("acted", self.use(state, actor, kind_of(command), "bandage")))
        duration = self.duration(state, self.arg(command, "rounds", int, 0))
        cond = Condition(f"bandaged {area}", 1, ("bandage",), command.actor, duration,
                         {"area": area})
        events += [Event("condition_added", {"target": target.id, "condition": cond.to_json()}),
                   Event("bleeding_reset", {"target": target.id, "origin": area})]
        return events

    @event("{target}'s bleeding[ from the {origin}] shrinks back to where it started.",
           target=args.creature("who bleeds"),
           origin=args.text("the bandaged area (none: every bleeding)"))
    def apply_bleeding_reset(self, state: EncounterState, data: dict[str, Any]) -> None:
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
        """Give an affliction: target, name, [area], [cause], [tags], [wound] (true: also a
        wound of the same name, P-AFF-2). Afflictions stack (P-AFF-4)."""
        target = self.creature(state, self.arg(command, "target", str))
        area = self.opt(command, "area", str)
        if area is not None:
            target.area(area)
        added = self._new_affliction(state, target, {
            "name": self.arg(command, "name", str), "area": area,
            "cause": self.opt(command, "cause", str),
            "tags": self.arg(command, "tags", list, []),
            "wound": self.arg(command, "wound", bool, False)})
        events = [added, *self._affliction_wounds(self.lookahead(state, [added]), target.id,
                                                  added.data["affliction"])]
        return events + self._consequences(state, events)

    def _affliction_wounds(self, state: EncounterState, who: str,
                           affliction: dict[str, Any]) -> list[Event]:
        """The wound of the same name an affliction applies, caused by it (P-AFF-2), given
        ``state`` with the affliction added: when it is first given and whenever it comes
        back (P-AFF-3)."""
        if not affliction.get("wound"):
            return []
        return [self._new_wound(state, self.creature(state, who), {
            "name": affliction["name"], "area": affliction.get("area"),
            "cause": affliction["id"]}, why="affliction")]

    @event("{target} is afflicted with {affliction.name}[ ({affliction.area})].",
           target=args.creature("who is afflicted"),
           affliction=args.mapping("the affliction: id, name, area, cause, tags, wound"),
           count=args.integer("afflictions numbered so far"),
           why=args.text("why it is given again (it came back)"))
    def apply_affliction_added(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.afflictions = [*creature.afflictions, Affliction(**data["affliction"])]
        state.extra["affliction_count"] = max(int(state.extra.get("affliction_count", 0)),
                                              data["count"])

    @command("Remove an affliction, and the wounds it caused.",
             rules=("P-AFF-3", "P-WND-8"),
             target=args.creature("whose affliction", required=True),
             affliction=args.text("the affliction's id", required=True, max_len=64))
    def do_cure(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Remove an affliction: target, affliction (its id). One caused by something that
        remains comes back a week later (P-AFF-3); its wounds go with it (P-WND-8)."""
        target = self.creature(state, self.arg(command, "target", str))
        aff_id = self.arg(command, "affliction", str)
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
        if aff.cause is not None and self._cause_present(state, target, aff.cause):
            events.append(Event("readd_scheduled", {
                "due": self.clock(state) + WEEK, "target": target.id, "kind": "affliction",
                "payload": aff.to_json(), "cause": aff.cause}))
        return events + self._consequences(state, events)

    @event("{target}'s affliction {affliction} is removed.",
           target=args.creature("whose affliction"),
           affliction=args.text("the affliction's id"))
    def apply_affliction_removed(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.afflictions = [a for a in creature.afflictions if a.id != data["affliction"]]

    @event("{target}'s {kind} will come back at round {due} while its cause {cause} "
           "remains.",
           due=args.integer("the clock round it comes back"),
           target=args.creature("whose"), kind=args.text("wound, affliction or condition"),
           payload=args.mapping("what comes back"),
           cause=args.text("the cause that remains"))
    def apply_readd_scheduled(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra.setdefault("readd", []).append(
            {k: data[k] for k in ("due", "target", "kind", "payload", "cause")})

    def _due_readds(self, state: EncounterState, now: int) -> list[Event]:
        """What falls due by ``now`` in the re-add queue: each item leaves the queue and, when
        its cause is still there, comes back through the same events as when it was first
        given, with everything they bring (``_reapplied``): a wound its conditions and its
        bleeding, an affliction its wound (P-CON-6, P-WND-8, P-AFF-3)."""
        events: list[Event] = []
        for index, item in enumerate(state.extra.get("readd", [])):
            if item["due"] > now:
                continue
            after = self.lookahead(state, events)
            creature = after.entities.get(item["target"])
            payload = item["payload"]
            present = creature is not None and self._cause_present(
                after, creature, item["cause"], payload.get("name"))
            events.append(Event("readded", {"index": index, "target": item["target"],
                                            "kind": item["kind"], "payload": payload,
                                            "present": present, "reapplied": True}))
            if present:
                events += self._reapplied(self.lookahead(state, events), item["target"],
                                          item["kind"], payload)
        return events

    def _reapplied(self, state: EncounterState, who: str, kind: str,
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
            return [added, *self._affliction_wounds(self.lookahead(state, [added]), who,
                                                    payload)]
        return [Event("condition_added", {"target": who, "condition": payload,
                                          "why": "its cause remains"})]

    @event("{target}'s {kind} {present?comes back: its cause remains|does not come back: "
           "its cause is gone}.",
           index=args.integer("its place in the queue"), target=args.creature("whose"),
           kind=args.text("wound, affliction or condition"),
           payload=args.mapping("what comes back"),
           present=args.flag("its cause is still there"),
           reapplied=args.flag("the events that give it back follow this one"))
    def apply_readded(self, state: EncounterState, data: dict[str, Any]) -> None:
        queue = state.extra.get("readd", [])
        queue[:] = [q for q in queue if not (q["target"] == data["target"]
                                             and q["payload"] == data["payload"])]
        creature = state.entities.get(data["target"])
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

    def _pass_time(self, state: EncounterState, rounds: int, dice: DiceSource) -> list[Event]:
        """``rounds`` rounds pass outside turn-by-turn play, in time order: each wound's daily
        [endurance] rolls and maximum duration (P-WND-4, P-WND-5), what comes back (P-CON-6,
        P-WND-8, P-AFF-3), timed conditions ending (P-CON-4), and every three seconds the
        per-round effects of every creature (P-CON-9).

        While per-round effects can change something, rounds pass one by one. Once a round
        of them changes nothing and no die could make it change anything (bleeding with
        nowhere left to go, burning on an area at its minimum), the following rounds would
        change nothing either: time runs on to the next moment something else may start them
        again (a return, a condition's end, the end). Without per-round effects time runs
        from one such moment to the next. More than ``ROUND_BY_ROUND`` rounds that keep
        changing something (e.g. a fatigue wound every round at 0 SP) are refused, naming
        the limit."""
        start = self.clock(state)
        end = start + rounds
        heal_at, worsen_at = ENDURANCE[self.rule(state, "POL-2")]
        events: list[Event] = []
        scratch, now, settled, changing = state, start, False, 0
        while True:
            active = self._per_round_active(scratch)
            step = active and not settled
            target = min(now + 1, end) if step else self._next_moment(scratch, now, end)
            part: list[Event] = [Event("time_passed", {"from": now, "to": target})]
            for creature in scratch.entities.values():
                if isinstance(creature, Creature):
                    for wound in creature.wounds:
                        part += self._wound_days(scratch, creature, wound, now, target,
                                                 heal_at, worsen_at, dice)
            after = self.lookahead(scratch, part)
            due = self._due_readds(after, target)
            due += self._expire_clock(self.lookahead(after, due), target)
            after = self.lookahead(after, due)
            part += due
            fired: list[Event] = []
            firing = target > now and self._per_round_active(after)
            if firing:  # the round at ``target``: every creature's per-round effects
                for who in [e.id for e in after.entities.values() if isinstance(e, Creature)]:
                    fired += self._round_effects(self.lookahead(after, fired), who, dice)
            fired += self._consequences(after, fired)
            done = self.lookahead(after, fired)
            settled = firing and self._unchanged(after, done) and self._idle(done)
            if firing and not settled:
                changing += 1
                if changing > ROUND_BY_ROUND:
                    raise IllegalCommand(
                        f"per-round effects still change something after {ROUND_BY_ROUND} "
                        f"rounds (an hour), the most that pass round by round at once: "
                        f"{self._per_round_list(done)}; let less time pass, or end them "
                        "first", rule="P-CON-9")
            events += part + fired
            scratch, now = done, target
            if now >= end:
                return events

    @staticmethod
    def _per_round_active(state: EncounterState) -> bool:
        """Whether any creature has a per-round effect (P-CON-9): per-round damage, bleeding
        not stopped by a bandage, physical or mental fatigue."""
        for creature in state.entities.values():
            if not isinstance(creature, Creature):
                continue
            if creature.has("physical fatigue") or creature.has("mental fatigue"):
                return True
            if any("damage" in c.data for c in creature.conditions):
                return True
            if any(not InjuryRules._bandaged(creature, b.origin) for b in creature.bleeding):
                return True
        return False

    @staticmethod
    def _per_round_list(state: EncounterState) -> str:
        """The per-round effects still at work, for a refusal."""
        out = []
        for creature in state.entities.values():
            if not isinstance(creature, Creature):
                continue
            names = [c.name for c in creature.conditions
                     if "damage" in c.data or c.name in ("physical fatigue", "mental fatigue")]
            if any(not InjuryRules._bandaged(creature, b.origin) for b in creature.bleeding):
                names.append("bleeding")
            if names:
                out.append(f"{creature.id} ({', '.join(names)})")
        return ", ".join(out)

    @staticmethod
    def _unchanged(before: EncounterState, after: EncounterState) -> bool:
        """Nothing but the clock (and the note of the area last hit, which nothing reads)
        differs between two states."""
        if before.entities != after.entities:
            return False
        skip = ("clock", "critical_area_hit")
        return {k: v for k, v in before.extra.items() if k not in skip} == \
            {k: v for k, v in after.extra.items() if k not in skip}

    def _idle(self, state: EncounterState) -> bool:
        """Whether per-round damage that hits a random body area (a die each round) would
        change nothing on any area it could roll: armor, vitality, SP and FP stay."""
        for creature in state.entities.values():
            if not isinstance(creature, Creature):
                continue
            for cond in creature.conditions:
                if "damage" not in cond.data or cond.data.get("area") is not None:
                    continue
                amount = int(cond.data["damage"]) * cond.level
                dtype = DamageType.parse(str(cond.data.get("type", "heat")))
                for area in creature.areas:
                    result = resolve_damage(
                        creature, area, dtype, amount, 0,
                        armor_rule=self.ruling(state, "AP-8"),
                        measures=self.ruling(state, "AP-19"),
                        clamp=self.ruling_is(state, "AP-9", "clamp"))
                    if result["armor"] or result["sp"] != creature.sp or \
                            result["fp"] != creature.fp or any(
                                creature.areas[a].vitality != v
                                for a, v in result["vitality"].items()):
                        return False
        return True

    @staticmethod
    def _next_moment(state: EncounterState, now: int, end: int) -> int:
        """The next round after ``now`` (at most ``end``) at which per-round effects may start
        changing things again: something comes back (a wound that bleeds, a condition that
        burns), or a timed condition ends (a bandage: the bleeding starts again). What else
        falls due meanwhile (a wound healing, its bleeding stopping) only takes effects
        away."""
        moments = [end]
        moments += [int(item["due"]) for item in state.extra.get("readd", [])
                    if item["due"] > now]
        for entity in state.entities.values():
            for cond in entity.conditions:
                d = cond.duration
                if d.kind == "timed" and d.turn_of is None and d.round is not None \
                        and d.round > now:
                    moments.append(d.round)
        return min(moments)

    def _wound_days(self, state: EncounterState, creature: Creature, wound: Wound, start: int,
                    end: int, heal_at: int, worsen_at: int, dice: DiceSource) -> list[Event]:
        """The daily [endurance] rolls of one wound from ``start`` to ``end`` (P-WND-4) and
        its maximum duration (P-WND-5), in time order."""
        expires = (wound.received + int(wound.max_days) * DAY
                   if wound.max_days is not None else None)
        if wound.cause is not None:  # no rolls: it stays while its cause does (P-WND-8)
            if expires is not None and expires <= end:  # P-WND-5
                return [Event("wound_removed", {"target": creature.id, "wound": wound.id,
                                                "why": "maximum duration"})]
            return []
        # the first daily roll after ``start`` (24 hours after it was received, then daily)
        check = wound.received + DAY * (max(start - wound.received, 0) // DAY + 1)
        level = wound.level
        events: list[Event] = []
        while True:
            if expires is not None and expires <= min(check, end):  # P-WND-5
                events.append(Event("wound_removed", {"target": creature.id, "wound": wound.id,
                                                      "why": "maximum duration"}))
                return events
            if check > end:
                return events
            if wound.cause is None:  # a caused wound stays while its cause does (P-WND-8)
                result = roll_skill(creature.skill("endurance"), 0, 0,
                                    self.rule(state, "AP-2"), dice)
                outcome = ("heals" if result.total >= heal_at else
                           "worsens" if result.total <= worsen_at else "stays")
                if outcome == "worsens":
                    level += 1
                events.append(Event("endurance_rolled", {
                    "target": creature.id, "wound": wound.id, "at": check,
                    "total": result.total, "roll": result.to_json(), "outcome": outcome,
                    "level": level}))
                if outcome == "heals":
                    return events
            check += DAY

    @also(**{"from": args.integer("the clock before (rounds)")},
          to=args.integer("the clock after (rounds)"))
    @event("Time passes: round {from} to round {to}.")
    def apply_time_passed(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra["clock"] = data["to"]

    @event("{target}'s [endurance] roll for wound {wound}: {total}; it {outcome}.",
           target=args.creature("whose wound"), wound=args.text("the wound's id"),
           at=args.integer("the clock round of the roll"),
           total=args.integer("the roll's total"), roll=args.mapping("the roll"),
           outcome=args.text("heals, stays or worsens"),
           level=args.integer("the wound's level after"))
    def apply_endurance_rolled(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        if data["outcome"] == "heals":
            self.apply_wound_removed(state, {"target": creature.id, "wound": data["wound"]})
            return
        creature.wounds = [replace(wound, level=data["level"]) if wound.id == data["wound"]
                           else wound for wound in creature.wounds]

    @command("Let time pass outside turn-by-turn play: wounds roll [endurance] each day, "
             "timed effects end.",
             rules=("P-TIM-1", "P-TIM-2", "P-TIM-3", "P-WND-4", "P-WND-5", "AP-30"),
             amount=args.integer("how many units", lo=0, hi=99999, required=True),
             unit=args.text("round, second, minute, hour, day, week, month or year (plurals "
                            "too)", default="round", max_len=16))
    def do_wait(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Let time pass (P-TIM-*): amount, unit (round, minute, hour, day, week, month,
        year). Dice: the daily [endurance] rolls of wounds that fall due (P-WND-4)."""
        if state.in_combat:
            raise IllegalCommand("time passes round by round in turn-by-turn play: use 'next'")
        amount = self.arg(command, "amount", int)
        if amount < 0:
            raise InvalidCommand("wait: amount must not be negative")
        rounds = rounds_in(amount, self.arg(command, "unit", str, "round"),
                           self.rule(state, "AP-30"))
        events = self._pass_time(state, rounds, dice)
        return events + self._consequences(state, events)

    @command("A creature rests, relaxes or sleeps: SP back, fatigue wounds removed by the "
             "hour, FP back in sleep; time passes.",
             rules=("P-FAT-5", "P-FAT-6", "P-FAT-7", "P-FAT-8", "P-FAT-9", "P-CON-7",
                    "AP-15", "AP-29"),
             target=args.creature("who rests", required=True),
             activity=args.choice("rest, relax or sleep", "rest", "relax", "sleep",
                                  default="rest"),
             amount=args.integer("how many units", lo=0, hi=99999, required=True),
             unit=args.text("round, second, minute, hour, day, week, month or year (plurals "
                            "too)", default="round", max_len=16),
             wound=args.text("the fatigue wound relaxing removes first (AP-15)", max_len=64))
    def do_rest(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Rest, relax or sleep: target, [activity] (rest, relax, sleep), amount, [unit],
        [wound] (the fatigue wound relaxing removes, AP-15)."""
        if state.in_combat:
            raise IllegalCommand("resting is not possible in turn-by-turn play", rule="P-FAT-8")
        target = self.creature(state, self.arg(command, "target", str))
        activity = self.arg(command, "activity", str, "rest")
        if activity not in ("rest", "relax", "sleep"):
            raise InvalidCommand("rest: activity is rest, relax or sleep")
        rounds = rounds_in(self.arg(command, "amount", int),
                           self.arg(command, "unit", str, "round"), self.rule(state, "AP-30"))
        hours = round_down(rounds, HOUR)  # P-FAT-7: only complete hours count
        sp = min(target.sp + rounds, target.sp_max)  # P-FAT-5; AP-29 capped at maximum
        fp = target.fp
        removed: list[str] = []
        if activity in ("relax", "sleep"):  # P-FAT-6, P-FAT-9: sleeping counts as relaxing
            fatigue = [w for w in target.wounds if "fatigue" in w.tags]
            chosen = self.opt(command, "wound", str)
            if chosen is not None:
                pick = target.wound(chosen)
                if "fatigue" not in pick.tags:
                    raise IllegalCommand(f"{pick.id} ({pick.name}) is not a fatigue wound",
                                         rule="P-FAT-6")
                fatigue = [pick] + [w for w in fatigue if w.id != pick.id]
            elif self.rule(state, "AP-15") == "most-points":
                fatigue.sort(key=lambda w: -w.fatigue)
            removed = [w.id for w in fatigue[:hours]]
        if activity == "sleep":  # P-FAT-9: one FP per hour (AP-29: per complete hour)
            started = hours if self.rule(state, "AP-29") == "full-hours" else \
                -((-rounds) // HOUR)
            fp = min(target.fp + started, target.fp_max)
        events = [Event("rested", {"target": target.id, "activity": activity, "rounds": rounds,
                                   "hours": hours, "sp": sp, "fp": fp, "removed": removed})]
        if activity == "sleep":  # P-CON-7: sustained conditions end when the sustainer sleeps
            for other in state.entities.values():
                for cond in other.conditions:
                    if cond.duration.kind == "sustained" and cond.duration.by == target.id:
                        events.append(Event("condition_removed", {
                            "target": other.id, "name": cond.name,
                            "why": f"{target.id} fell asleep"}))
        events += self._consequences(state, events)  # e.g. SP back: no physical fatigue
        events += self._pass_time(self.lookahead(state, events), rounds, dice)
        return events + self._consequences(state, events)

    @event("{target}: {activity} for {rounds} rounds[, SP {sp}][, FP {fp}][; fatigue wounds "
           "removed: {removed}].",
           target=args.creature("who rests"), activity=args.text("rest, relax or sleep"),
           rounds=args.integer("rounds of rest"), hours=args.integer("complete hours"),
           sp=args.integer("SP after"), fp=args.integer("FP after"),
           removed=args.items("the fatigue wounds removed"))
    def apply_rested(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.sp, creature.fp = data["sp"], data["fp"]
        for wound_id in data["removed"]:
            self.apply_wound_removed(state, {"target": creature.id, "wound": wound_id})

    @command("Give a creature stress; a discipline roll may avoid it; the final threshold "
             "is a breakdown (a new corruption).",
             rules=("P-STS-1", "P-STS-2", "P-STS-3", "P-STS-4", "P-STS-5", "AP-16"),
             target=args.creature("who takes the stress", required=True),
             amount=args.integer("stress points", lo=0, hi=999, required=True),
             discipline=args.integer("the target number of a discipline roll that avoids it"),
             corruption=args.text("the breakdown affliction's name", default="corruption",
                                  max_len=64))
    def do_stress(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Give stress: target, amount, [discipline] (a target number: the discipline roll
        that avoids it, P-STS-3), [corruption] (the breakdown affliction's name)."""
        target = self.creature(state, self.arg(command, "target", str))
        amount = self.arg(command, "amount", int)
        if amount < 0:
            raise InvalidCommand("stress: amount must not be negative (use 'indulge')")
        data: dict[str, Any] = {"target": target.id, "amount": amount}
        if "discipline" in command.args:
            result = roll_skill(target.skill("discipline"), 0, 0, self.rule(state, "AP-2"), dice)
            avoided = success(result.total, self.arg(command, "discipline", int),
                              self.rule(state, "AP-1"))
            data.update(discipline=result.to_json(), avoided=avoided)
            if avoided:
                amount = 0
        stress = target.stress + amount
        final = STRESS_THRESHOLDS[self.rule(state, "AP-16")][-1]
        breakdown = stress >= final  # P-STS-5: stress resets (AP-16: to 0)
        data.update(stress=0 if breakdown else stress, breakdown=breakdown)
        events = [Event("stress_changed", data)]
        if breakdown:
            events.append(self._new_affliction(state, target, {
                "name": self.arg(command, "corruption", str, "corruption"),
                "tags": ["corruption"]}))
        return events + self._consequences(state, events)

    @command("A creature loses stress by indulging a corruption, or at the GM's word.",
             rules=("P-STS-6",),
             target=args.creature("who loses stress", required=True),
             amount=args.integer("stress points lost", lo=0, hi=999, required=True))
    def do_indulge(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Lose stress by indulging a corruption or at the GM's word (P-STS-6): target, amount."""
        target = self.creature(state, self.arg(command, "target", str))
        amount = self.arg(command, "amount", int)
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
           breakdown=args.flag("the final threshold was reached (P-STS-5)"))
    def apply_stress_changed(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["target"]).stress = data["stress"]
