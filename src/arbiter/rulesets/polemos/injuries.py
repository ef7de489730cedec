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
    Event,
    IllegalCommand,
    InvalidCommand,
)
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
    kind_of,
    roll_skill,
    success,
)
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


class InjuryRules(PolemosBase):
    """Wounds, bleeding, afflictions, time, rest and stress."""

    def _round_effects(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """Per-round effects of one creature (P-CON-9): per-round damage conditions, bleeding
        (P-BLD-1), fatigue wounds from physical and mental fatigue (P-FAT-4)."""
        events: list[Event] = []
        creature = state.entities.get(who)
        if not isinstance(creature, Creature) or creature.down:
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

    def apply_wound_added(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        wound = Wound(**data["wound"])
        creature.wounds = [*creature.wounds, wound]
        state.extra["wound_count"] = max(int(state.extra.get("wound_count", 0)), data["count"])
        self._wound_effects(creature, wound, int(data.get("bleeding", 0)), data.get("source"))
        if "vital" in wound.tags and self.rule(state, "AP-11") == "applied":
            self._reset_bleeding(creature, None)  # P-BLD-5, AP-11: when it lands

    def do_wound(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Give a wound: target, name, [area] (none: whole body), [tags], [fatigue], [known],
        [cause], [conditions], [bleeding], [max_days], [source]."""
        target = self.creature(state, self.arg(command, "target", str))
        raw = {k: v for k, v in command.args.items() if k != "target"}
        events = [self._new_wound(state, target, raw, why="given")]
        return events + self._consequences(state, events)

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
        if wound.cause is not None and self._cause_present(creature, wound.cause):
            # P-WND-8: removed while its cause remains: back 24 hours later
            events.append(Event("readd_scheduled", {
                "due": self.clock(state) + DAY, "target": creature.id, "kind": "wound",
                "payload": wound.to_json(), "cause": wound.cause}))
        return events

    def apply_wound_removed(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.wounds = [w for w in creature.wounds if w.id != data["wound"]]
        creature.conditions = [c for c in creature.conditions  # P-CON-6: cause gone
                               if not (c.duration.kind == "caused"
                                       and c.duration.cause == data["wound"])]
        creature.bleeding = [b for b in creature.bleeding if b.id != f"b-{data['wound']}"]

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

    def apply_wound_revealed(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.wounds = [w for w in creature.wounds if w.id != data["wound"]]
        self.apply_wound_added(state, {"target": creature.id, "wound": data["revealed"],
                                       "count": 0, "bleeding": data["bleeding"]})

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

    def apply_bleeding_started(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.bleeding = [*creature.bleeding, Bleed(data["id"], data["origin"], data["damage"],
                                                       [data["origin"]], [], data.get("source"))]
        state.extra["bleed_count"] = data["count"]

    def _bleeding_tick(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """P-BLD-1 at the start of the bearer's turn (P-CON-9), every area independently
        (AP-10); a bandaged origin stops it while the bandage lasts (P-BLD-3, P-BLD-4)."""
        creature = self.creature(state, who)
        events: list[Event] = []
        independent = self.rule(state, "AP-10") == "independent"
        for bleed in creature.bleeding:
            if creature.has(f"bandaged {bleed.origin}"):
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

    def apply_bleeding_ticked(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.bleeding = [replace(bleed, areas=list(data["areas"]),
                                     pending=list(data["pending"]))
                             if bleed.id == data["id"] else bleed for bleed in creature.bleeding]

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

    def apply_bleeding_reset(self, state: EncounterState, data: dict[str, Any]) -> None:
        self._reset_bleeding(self.creature(state, data["target"]), data.get("origin"))

    def do_afflict(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Give an affliction: target, name, [area], [cause], [tags], [wound] (true: also a
        wound of the same name, P-AFF-2). Afflictions stack (P-AFF-4)."""
        target = self.creature(state, self.arg(command, "target", str))
        area = self.opt(command, "area", str)
        if area is not None:
            target.area(area)
        events = [self._new_affliction(state, target, {
            "name": self.arg(command, "name", str), "area": area,
            "cause": self.opt(command, "cause", str),
            "tags": self.arg(command, "tags", list, [])})]
        if self.arg(command, "wound", bool, False):
            after = self.lookahead(state, events)
            aff_id = events[0].data["affliction"]["id"]
            events.append(self._new_wound(after, target, {"name": events[0].data["affliction"]
                                                          ["name"], "area": area,
                                                          "cause": aff_id}, why="affliction"))
        return events + self._consequences(state, events)

    def apply_affliction_added(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.afflictions = [*creature.afflictions, Affliction(**data["affliction"])]
        state.extra["affliction_count"] = data["count"]

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
        if aff.cause is not None and self._cause_present(target, aff.cause):
            events.append(Event("readd_scheduled", {
                "due": self.clock(state) + WEEK, "target": target.id, "kind": "affliction",
                "payload": aff.to_json(), "cause": aff.cause}))
        return events + self._consequences(state, events)

    def apply_affliction_removed(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.afflictions = [a for a in creature.afflictions if a.id != data["affliction"]]

    def apply_readd_scheduled(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra.setdefault("readd", []).append(
            {k: data[k] for k in ("due", "target", "kind", "payload", "cause")})

    def _due_readds(self, state: EncounterState, now: int) -> list[Event]:
        events = []
        for index, item in enumerate(state.extra.get("readd", [])):
            if item["due"] > now:
                continue
            creature = state.entities.get(item["target"])
            present = creature is not None and self._cause_present(creature, item["cause"])
            events.append(Event("readded", {"index": index, "target": item["target"],
                                            "kind": item["kind"], "payload": item["payload"],
                                            "present": present}))
        return events

    def apply_readded(self, state: EncounterState, data: dict[str, Any]) -> None:
        queue = state.extra.get("readd", [])
        queue[:] = [q for q in queue if not (q["target"] == data["target"]
                                             and q["payload"] == data["payload"])]
        creature = state.entities.get(data["target"])
        if not data["present"] or not isinstance(creature, Creature):
            return
        payload = data["payload"]
        if data["kind"] == "wound":
            creature.wounds = [*creature.wounds, Wound(**payload)]
        elif data["kind"] == "affliction":
            creature.afflictions = [*creature.afflictions, Affliction(**payload)]
        else:
            cond = Condition.from_json(payload)
            creature.conditions = [c for c in creature.conditions if c.name != cond.name]
            creature.conditions.append(cond)

    def _pass_time(self, state: EncounterState, rounds: int, dice: DiceSource) -> list[Event]:
        start = self.clock(state)
        end = start + rounds
        events: list[Event] = [Event("time_passed", {"from": start, "to": end})]
        heal_at, worsen_at = ENDURANCE[self.rule(state, "POL-2")]
        for creature in state.entities.values():
            if not isinstance(creature, Creature):
                continue
            for wound in creature.wounds:
                events += self._wound_days(state, creature, wound, start, end, heal_at,
                                           worsen_at, dice)
        after = self.lookahead(state, events)
        events += self._due_readds(after, end)
        events += self._expire_clock(self.lookahead(state, events), end)
        return events

    def _wound_days(self, state: EncounterState, creature: Creature, wound: Wound, start: int,
                    end: int, heal_at: int, worsen_at: int, dice: DiceSource) -> list[Event]:
        """The daily [endurance] rolls of one wound from ``start`` to ``end`` (P-WND-4) and
        its maximum duration (P-WND-5), in time order."""
        expires = (wound.received + int(wound.max_days) * DAY
                   if wound.max_days is not None else None)
        check = wound.received + DAY
        while check <= start:
            check += DAY
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

    def apply_time_passed(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra["clock"] = data["to"]

    def apply_endurance_rolled(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        if data["outcome"] == "heals":
            self.apply_wound_removed(state, {"target": creature.id, "wound": data["wound"]})
            return
        creature.wounds = [replace(wound, level=data["level"]) if wound.id == data["wound"]
                           else wound for wound in creature.wounds]

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
        after = self.lookahead(state, events)
        events += self._pass_time(after, rounds, dice)
        return events + self._consequences(state, events)

    def apply_rested(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.sp, creature.fp = data["sp"], data["fp"]
        for wound_id in data["removed"]:
            self.apply_wound_removed(state, {"target": creature.id, "wound": wound_id})

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

    def do_indulge(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Lose stress by indulging a corruption or at the GM's word (P-STS-6): target, amount."""
        target = self.creature(state, self.arg(command, "target", str))
        amount = self.arg(command, "amount", int)
        events = [Event("stress_changed", {"target": target.id, "amount": -amount,
                                           "stress": max(target.stress - amount, 0)})]
        return events + self._consequences(state, events)

    def apply_stress_changed(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["target"]).stress = data["stress"]
