"""What outlasts a Polemos encounter (``lasting``: vitality, SP, FP, stress, wounds,
afflictions) and time passing outside turn-by-turn play (P-TIM-*): waiting, ticking round
by round, resting (P-FAT-5..9), mending (POL-10), the daily [endurance] rolls of wounds
(P-WND-4, P-WND-5) and campaign time between encounters.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Deferred,
    EncounterState,
    Entity,
    Event,
    IllegalCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.rounding import round_down
from ...dice import DiceSource
from . import payloads
from .base import DAY, HOUR, also
from .checks import roll_skill
from .conditions import expire_clock
from .damage import resolve_damage
from .injuries import bandaged, due_readds, round_effects, wound_removed
from .model import Creature, DamageType, Wound, rounds_in
from .stealth import StealthRules  # the topic below (a chain)

ROUND_BY_ROUND = HOUR
"""The most rounds whose per-round effects keep changing something that one 'wait' or 'rest'
plays one by one (1,200: an hour, P-TIM-2); a longer stretch is refused (P-CON-9)."""


ENDURANCE = {"10-6": (10, 6), "12-7": (12, 7)}  # POL-2: heal at or above, worsen at or below


def time_words(rounds: int) -> str:
    """Rounds in words for the log: "a day", "2 days 8 hours", "20 minutes", "5 rounds"
    (P-TIM-1, P-TIM-2: twenty rounds a minute)."""
    counts: list[tuple[int, str]] = []
    left = rounds
    for name, size in (("week", DAY * 7), ("day", DAY), ("hour", HOUR), ("minute", HOUR // 60),
                       ("round", 1)):
        count, left = divmod(left, size)
        if count:
            counts.append((count, name))
    if len(counts) == 1 and counts[0][0] == 1:
        return f"{'an' if counts[0][1] == 'hour' else 'a'} {counts[0][1]}"
    parts = [f"{count} {name}{'s' if count > 1 else ''}" for count, name in counts]
    return " ".join(parts) or "no time"


@mypyc_attr(allow_interpreted_subclasses=True)
class LastingRules(StealthRules):
    """What outlasts the encounter, and time passing."""

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
                                              and not bandaged(entity, w.area)) else 0}
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

    @command("Outside turn-by-turn play, let rounds pass one by one with their per-round "
             "effects (bleeding, per-round damage, fatigue wounds).",
             rules=("P-CON-9", "P-TIM-1", "P-BLD-1", "P-FAT-4"),
             rounds=args.integer("rounds of three seconds (use 'wait' for longer)", lo=1,
                                 hi=100, default=1),
             target=args.creature("whose per-round effects fire (default: every creature)"))
    def do_tick(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Outside turn-by-turn play, per-round effects happen every three seconds
        (P-CON-9)."""
        if state.in_combat:
            raise IllegalCommand("in turn-by-turn play per-round effects come at the start of "
                                 "each turn: use 'next'", rule="P-CON-9")
        rounds = command.a.rounds
        target = command.a.target
        who = [self.creature(state, target).id] if target else [
            e.id for e in state.entities.values() if isinstance(e, Creature)]
        events: list[Event] = []
        for _ in range(rounds):
            now = self.clock(self.lookahead(state, events))
            events.append(Event("time_passed", {"from": now, "to": now + 1}))
            events += due_readds(self, self.lookahead(state, events), now + 1)
            events += expire_clock(self.lookahead(state, events), now + 1)
            for name in who:
                events += round_effects(self, self.lookahead(state, events), name, dice)
            events += self._consequences(state, events)
        return events

    @command("Let time pass outside turn-by-turn play: wounds roll [endurance] each day, "
             "timed effects end.",
             rules=("P-TIM-1", "P-TIM-2", "P-TIM-3", "P-WND-4", "P-WND-5", "AP-30"),
             amount=args.integer("how many units", lo=0, hi=99999, required=True),
             unit=args.text("round, second, minute, hour, day, week, month or year (plurals "
                            "too)", default="round", max_len=16))
    def do_wait(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Let time pass outside turn-by-turn play (P-TIM-*): the daily [endurance] rolls of
        wounds that fall due (P-WND-4), what ends and what comes back."""
        if state.in_combat:
            raise IllegalCommand("time passes round by round in turn-by-turn play: use 'next'")
        rounds = rounds_in(command.a.amount, command.a.unit, self.ruling(state, "AP-30"))
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
        """Rest, relax or sleep outside turn-by-turn play: SP back (P-FAT-5), a fatigue wound
        removed each complete hour of relaxing (P-FAT-6, P-FAT-7, AP-15), FP back in sleep
        (P-FAT-9)."""
        if state.in_combat:
            raise IllegalCommand("resting is not possible in turn-by-turn play", rule="P-FAT-8")
        a = command.a
        target = self.creature(state, a.target)
        activity = a.activity
        rounds = rounds_in(a.amount, a.unit, self.ruling(state, "AP-30"))
        hours = round_down(rounds, HOUR)  # P-FAT-7: only complete hours count
        sp = min(target.sp + rounds, target.sp_max)  # P-FAT-5; AP-29 capped at maximum
        fp = target.fp
        removed: list[str] = []
        if activity in ("relax", "sleep"):  # P-FAT-6, P-FAT-9: sleeping counts as relaxing
            fatigue = [w for w in target.wounds if "fatigue" in w.tags]
            chosen = a.wound
            if chosen is not None:
                pick = target.wound(chosen)
                if "fatigue" not in pick.tags:
                    raise IllegalCommand(f"{pick.id} ({pick.name}) is not a fatigue wound",
                                         rule="P-FAT-6")
                fatigue = [pick] + [w for w in fatigue if w.id != pick.id]
            elif self.ruling(state, "AP-15") == "most-points":
                fatigue.sort(key=lambda w: -w.fatigue)
            removed = [w.id for w in fatigue[:hours]]
        if activity == "sleep":  # P-FAT-9: one FP per hour (AP-29: per complete hour)
            started = hours if self.ruling(state, "AP-29") == "full-hours" else \
                -((-rounds) // HOUR)
            fp = min(target.fp + started, target.fp_max)
        events = [Event("rested", {"target": target.id, "activity": activity, "rounds": rounds,
                                   "time": time_words(rounds), "hours": hours, "sp": sp,
                                   "fp": fp, "removed": removed})]
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

    @event("{target}: {activity}[ for {time}][, SP {sp}][, FP {fp}][; fatigue wounds "
           "removed: {removed}].",
           target=args.creature("who rests"), activity=args.text("rest, relax or sleep"),
           rounds=args.integer("rounds of rest"), hours=args.integer("complete hours"),
           time=args.text("the rounds in words: 'a day', '8 hours' (P-TIM-2)"),
           sp=args.integer("SP after"), fp=args.integer("FP after"),
           removed=args.items("the fatigue wounds removed"))
    def apply_rested(self, state: EncounterState, data: payloads.Rested) -> None:
        creature = self.creature(state, data["target"])
        creature.sp, creature.fp = data["sp"], data["fp"]
        for wound_id in data["removed"]:
            wound_removed(creature, wound_id)

    @command("Body areas regain vitality as time passes outside turn-by-turn play: one a "
             "complete day each, up to the maximum (POL-10; 'none': only healing does).",
             rules=("POL-10", "AP-30"),
             amount=args.integer("how many units", lo=0, hi=99999, required=True),
             unit=args.text("round, second, minute, hour, day, week, month or year (plurals "
                            "too)", default="day", max_len=16),
             target=args.creature("whose body areas (default: every creature's)"))
    def do_mend(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Vitality back over time (POL-10): one a complete day in each body area."""
        if state.in_combat:
            raise IllegalCommand("time passes round by round in turn-by-turn play: use 'next'")
        rounds = rounds_in(command.a.amount, command.a.unit, self.ruling(state, "AP-30"))
        days = rounds // DAY
        who = command.a.target
        creatures = [self.creature(state, who)] if who is not None else [
            e for e in state.entities.values() if isinstance(e, Creature)]
        if days == 0 or self.ruling(state, "POL-10") == "none":
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
    def apply_mended(self, state: EncounterState, data: payloads.Mended) -> None:
        creature = self.creature(state, data["target"])
        areas = dict(creature.areas)  # replaced, never changed in place (SHARED)
        for name, value in data["vitality"].items():
            areas[name] = areas[name].with_vitality(int(value))
        creature.areas = areas

    @also(**{"from": args.integer("the clock before (rounds)")},
          to=args.integer("the clock after (rounds)"))
    @event("Time passes: round {from} to round {to}.")
    def apply_time_passed(self, state: EncounterState, data: payloads.TimePassed) -> None:
        state.extra["clock"] = data["to"]

    @event("{target}'s [endurance] roll for wound {wound}: {total}; it {outcome}.",
           target=args.creature("whose wound"), wound=args.text("the wound's id"),
           at=args.integer("the clock round of the roll"),
           total=args.integer("the roll's total"), roll=args.mapping("the roll"),
           outcome=args.text("heals, stays or worsens"),
           level=args.integer("the wound's level after"))
    def apply_endurance_rolled(self, state: EncounterState, data: payloads.EnduranceRolled) -> None:
        creature = self.creature(state, data["target"])
        if data["outcome"] == "heals":
            wound_removed(creature, data["wound"])
            return
        creature.wounds = [replace(wound, level=data["level"]) if wound.id == data["wound"]
                           else wound for wound in creature.wounds]

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
        heal_at, worsen_at = ENDURANCE[self.ruling(state, "POL-2")]
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
            due = due_readds(self, after, target)
            due += expire_clock(self.lookahead(after, due), target)
            after = self.lookahead(after, due)
            part += due
            fired: list[Event] = []
            firing = target > now and self._per_round_active(after)
            if firing:  # the round at ``target``: every creature's per-round effects
                for who in [e.id for e in after.entities.values() if isinstance(e, Creature)]:
                    fired += round_effects(self, self.lookahead(after, fired), who, dice)
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
                                    self.ruling(state, "AP-2"), dice)
                outcome = ("heals" if result.total >= heal_at else
                           "worsens" if result.total <= worsen_at else "stays")
                if outcome == "worsens":
                    level += 1
                events.append(Event("endurance_rolled", {
                    "target": creature.id, "wound": wound.id, "at": check,
                    "total": result.total, "roll": Deferred(result.to_json), "outcome": outcome,
                    "level": level}))
                if outcome == "heals":
                    return events
            check += DAY

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
            if any(not bandaged(creature, b.origin) for b in creature.bleeding):
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
            if any(not bandaged(creature, b.origin) for b in creature.bleeding):
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
