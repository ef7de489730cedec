"""Conditions in Polemos (P-CON-*): giving and removing them, what keeps a caused one
(P-CON-6), mutually exclusive ones (P-CON-11), their ends by the clock (P-CON-4) and a
location's field conditions (P-CON-12).
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import cache
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    Duration,
    EncounterState,
    Entity,
    Event,
    IllegalCommand,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.conditions import UNLISTED
from ...core.copying import touched
from ...core.model import caused, entity_at
from ...dice import DiceSource
from . import payloads
from .base import (
    FATIGUE_THRESHOLDS,
    PROCESS_CAUSE,
    STATUS_CONDITIONS,
    STATUS_MEASURES,
    STRESS_THRESHOLDS,
    UNSEEN_BY_CONSEQUENCES,
)
from .model import Creature, area_facts, condition_catalogue, unlisted_condition
from .networks import given_by_processes
from .spheres import SphereRules  # the topic below (a chain)

NO_IDS: frozenset[str] = frozenset()


def _out_cold(entity: Entity | None, downed: list[str]) -> bool:
    """Whether a sustainer is out cold (P-CON-7): unconscious, down, or going down now."""
    if entity is None:
        return False
    return entity.has("unconscious") or entity.id in downed or (
        isinstance(entity, Creature) and entity.down)


def _sustaining_settled(entities: dict[str, Entity], looked: list[Entity],
                        sustained: list[tuple[Entity, Condition]], downed: list[str]) -> bool:
    """Whether no sustained condition ends (P-CON-7) in a state that was settled before the
    creatures ``looked`` changed: none of them is out cold, and none holds a sustained
    condition (``sustained``: theirs) whose sustainer is. Otherwise the whole look is due."""
    for creature in looked:
        if _out_cold(creature, downed):
            return False
    for _, cond in sustained:
        by = cond.duration.by
        if by is not None and _out_cold(entity_at(entities, by), downed):
            return False
    return True


def cause_present(state: EncounterState, target: Entity, cause: str | None,
                  name: str | None = None) -> bool:
    """Whether what keeps a caused wound, affliction or condition (``name``) is still
    there: a wound, an affliction, a condition, an aspect (tag), or the network processes
    that give the condition (P-CON-6, P-WND-8, P-AFF-3, P-NET-17)."""
    if cause is None or not isinstance(target, Creature):
        return False
    if cause == PROCESS_CAUSE:
        return name is not None and given_by_processes(state, target.id, name)
    return any(w.id == cause for w in target.wounds) or \
        any(a.id == cause for a in target.afflictions) or target.has(cause) or \
        cause in target.tags


def whole_rounds(given: Any) -> int:
    """A condition's ``rounds`` as a whole number (0 when left out): an integer, or digits
    written as text."""
    if given is None:
        return 0
    if isinstance(given, str) and given.lstrip("+-").isdigit():
        return int(given)
    if not isinstance(given, int) or isinstance(given, bool):
        raise InvalidCommand(f"condition: 'rounds' must be a whole number or \"level\", not "
                             f"{given!r}")
    return given


def expire_clock(state: EncounterState, now: int) -> list[Event]:
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


_RULED: list[Any] = [None, None, None]
"""What ``_consequences_in`` reads of the rulings (``_status_steps`` and POL-1), for the last
ruleset and map of rulings it read them from (by identity: an encounter's rulings are
replaced, never changed in place; ``rulings`` is declared ``SHARED``): three rulings and a
cached call at nearly every command."""


@cache
def _status_steps(fatigue_rule: str, stress_rule: str) -> tuple[
        tuple[tuple[str, int, int | None], ...], tuple[float, float, float, float]]:
    """The status conditions ``_consequences`` keeps in step with a creature, in order: the
    name, the value it reads (its index in ``STATUS_MEASURES``; SP and FP negated: the
    condition comes at 0 or below) and the threshold at or above which it applies (None:
    never, under these rulings); and the lowest threshold of each value, in that order
    (below all of them, no status condition applies). Read-only: it is shared."""
    fatigue_steps = FATIGUE_THRESHOLDS[fatigue_rule]  # AP-13
    stress_steps = STRESS_THRESHOLDS[stress_rule][:-1]  # AP-16: the last is a breakdown
    steps: list[tuple[str, str, int | None]] = [("physical fatigue", "sp", 0),
                                                ("mental fatigue", "fp", 0)]
    steps += [(f"fatigue {step}", "fatigue", step if step in fatigue_steps else None)
              for step in FATIGUE_THRESHOLDS["every-4"]]
    steps += [(f"stress {i + 1}", "stress", stress_steps[i])
              for i in range(len(STRESS_THRESHOLDS["5-10-15"]) - 1)]
    assert {name for name, _, _ in steps} == STATUS_CONDITIONS
    lowest: dict[str, float] = dict.fromkeys(STATUS_MEASURES, math.inf)
    for _, measure, threshold in steps:
        if threshold is not None:
            lowest[measure] = min(lowest[measure], threshold)
    sp, fp, fatigue, stress = (lowest[m] for m in STATUS_MEASURES)
    return tuple((name, STATUS_MEASURES.index(measure), threshold)
                 for name, measure, threshold in steps), (sp, fp, fatigue, stress)


@mypyc_attr(allow_interpreted_subclasses=True)
class ConditionRules(SphereRules):
    """Giving, removing and re-timing conditions; field conditions."""

    @command("Give a creature a condition of conditions.toml (another name only with "
             "custom: true): timed, until removed, sustained, caused, or dealing damage each "
             "round.",
             rules=("P-CON-1", "P-CON-4", "P-CON-5", "P-CON-6", "P-CON-7", "P-CON-8",
                    "P-CON-9", "P-CON-10", "P-CON-11"),
             target=args.creature("who gets the condition", required=True),
             name=args.text("the condition's name (conditions.toml, or any with custom)",
                            required=True, max_len=64),
             custom=args.flag("a condition conditions.toml does not list, given on purpose "
                              "(without it such a name is refused as a typo)"),
             level=args.integer("its level", lo=0, hi=99, default=1),
             rounds=args.value("how many rounds it lasts (0: until removed; \"level\": as "
                               "many as its level)"),
             tags=args.items("tags (added to the catalogue's)"),
             source=args.text("who or what causes it (earns its damage's critical damage "
                              "points)", max_len=64),
             sustained_by=args.creature("who sustains it"),
             cause=args.text("what causes it: it lasts while that does", max_len=64),
             area=args.text("the body area its per-round damage hits (default: a random "
                            "one), or that it bandages", max_len=64),
             damage=args.integer("damage per round (times its level; default: the "
                                 "catalogue's)", lo=0, hi=999),
             type=args.text("the per-round damage type (default: heat)", max_len=64),
             excludes=args.items("conditions, or tags, it removes (P-CON-11)"))
    def do_condition(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """Give a condition (P-CON-1): timed, until removed, sustained or caused. A name
        ``conditions.toml`` does not list is refused (with the names it does list, nearest
        first) unless the GM gives it on purpose with ``custom: true``."""
        a = command.a
        target = state.entity(a.target)
        name = a.name
        listed = condition_catalogue()
        if name not in listed and not a.custom:
            raise InvalidCommand(unlisted_condition(name, listed, "polemos"))
        spec = listed.get(name, UNLISTED)
        level = a.level
        rounds = level if a.rounds == "level" else whole_rounds(a.rounds)
        sustainer = a.sustained_by
        cause = a.cause
        if sustainer is not None:
            state.entity(sustainer)
            duration = Duration("sustained", by=sustainer)
        elif cause is not None:
            duration = caused(cause)
        else:
            duration = self.duration(state, rounds)  # P-CON-10: e.g. level 3, 3 turns
        tags = tuple(dict.fromkeys([*spec.tags, *(a.tags or [])]))
        data: dict[str, Any] = {}
        if a.area is not None:
            data["area"] = a.area
        if a.type is not None:
            data["type"] = a.type
        if "area" in data and isinstance(target, Creature):
            target.area(data["area"])
        if a.damage is not None:
            data["damage"] = a.damage
        elif "damage" in spec.modifiers:  # the catalogue's per-round damage (burning, P-CON-9)
            data["damage"] = int(spec.modifiers["damage"])
            data.setdefault("type", spec.damage_type or "heat")
        bandage = "bandage" in tags
        if bandage and "area" not in data:
            raise InvalidCommand(f"{name}: name the body area it bandages ('area')")
        cond = Condition(name, level, tags, a.source, duration, data)
        events = []
        excludes = set(spec.excludes) | set(a.excludes or [])
        for other in target.conditions:  # P-CON-11: mutually exclusive conditions
            if other.name != name and (other.name in excludes or excludes & set(other.tags)):
                events.append(Event("condition_removed", {"target": target.id,
                                                          "name": other.name,
                                                          "why": f"excluded by {name}"}))
        events.append(Event("condition_added", {"target": target.id,
                                                "condition": cond.to_json()}))
        if bandage:  # P-BLD-3: a bandaged area resets the bleeding that began there
            events.append(Event("bleeding_reset", {"target": target.id,
                                                   "origin": data["area"]}))
        return events + self._consequences(state, events)

    @command("Remove one condition, by name or tag; a caused one comes back while its "
             "cause remains.", rules=("P-CON-2", "P-CON-3", "P-CON-6", "AP-20"),
             target=args.creature("who loses the condition", required=True),
             name=args.text("the condition's name", max_len=64),
             tag=args.text("remove a condition with this tag", max_len=64),
             rounds=args.integer("rounds the removing effect lasts (0: instantaneous)", lo=0,
                                 hi=99999, default=0))
    def do_uncondition(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """Remove one condition, by name or tag (P-CON-2, P-CON-3)."""
        target = state.entity(command.a.target)
        name = command.a.name
        tag = command.a.tag
        if name is None and tag is None:
            raise InvalidCommand("uncondition: give the condition's 'name' or a 'tag'")
        matching = [c for c in target.conditions
                    if (name is None or c.name == name) and (tag is None or tag in c.tags)]
        if not matching:
            what = f"condition {name!r}" if name else f"condition tagged {tag!r}"
            raise IllegalCommand(f"{target.id} has no {what}", rule="P-CON-3")
        cond = matching[0]  # P-CON-2: one at a time
        events = [Event("condition_removed", {"target": target.id, "name": cond.name,
                                              "why": "removed"})]
        if cond.duration.kind == "caused" and cause_present(state, target,
                                                                  cond.duration.cause,
                                                                  cond.name):
            if self.ruling(state, "AP-20") == "refuse":
                raise IllegalCommand(f"{cond.name} is caused by {cond.duration.cause} and "
                                     "cannot be removed while it remains", rule="P-CON-6")
            rounds = command.a.rounds
            if rounds > 0:  # removed by a lasting effect: back when that effect ends
                events.append(Event("readd_scheduled", {
                    "due": self.clock(state) + rounds, "target": target.id, "kind": "condition",
                    "payload": cond.to_json(), "cause": cond.duration.cause}))
            else:  # AP-20: an instantaneous removal is undone at once
                events.append(Event("condition_added", {"target": target.id,
                                                        "condition": cond.to_json(),
                                                        "why": "its cause remains"}))
        return events + self._consequences(state, events)

    @event("{target} is {condition.name}[ ({condition.level})][ again: {why}].",
           target=args.creature("who"), condition=args.mapping("the condition"),
           why=args.text("why it is given back"),
           optional=("why",))
    def apply_condition_added(  # type: ignore[override]  # the kernel's fields and more
            self, state: EncounterState, data: payloads.ConditionAdded) -> None:
        self.kernel_condition_added(state, data)

    @event("{target}'s {name} now ends by the clock, at round {duration.round}.",
           target=args.creature("whose condition"), name=args.text("the condition"),
           duration=args.mapping("its new duration (timed by the clock)"))
    def apply_condition_retimed(self, state: EncounterState,
                                data: payloads.ConditionRetimed) -> None:
        entity = state.entity(data["target"])
        duration = Duration(**data["duration"])
        entity.conditions = [replace(c, duration=duration) if c.name == data["name"] else c
                             for c in entity.conditions]

    @command("Set a location's field conditions: those in it have them.",
             rules=("P-CON-12",),
             location=args.text("the location", required=True, max_len=64),
             conditions=args.items("the conditions' names", required=True))
    def do_field(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """The GM sets a location's field conditions (P-CON-12)."""
        location = command.a.location
        names = [str(n) for n in command.a.conditions]
        return [Event("field_set", {"location": location, "conditions": names})]

    @event("Field conditions at {location}: {conditions}.",
           location=args.text("the location"), conditions=args.items("the conditions"))
    def apply_field_set(self, state: EncounterState, data: payloads.FieldSet) -> None:
        state.extra.setdefault("fields", {})[data["location"]] = list(data["conditions"])

    def _consequences(self, state: EncounterState, events: list[Event]) -> list[Event]:
        """Events that follow from the state after ``events``: physical/mental fatigue
        (P-FAT-3), fatigue and stress threshold conditions (P-FAT-2, P-STS-4), defeat
        (POL-1), sustained conditions ending (P-CON-7), and the end of the fight."""
        # what an attack or critical points change this does not read, nor do the events
        # after them: looked past without them (a miss, no copy at all)
        seen = [event for event in events if event.type not in UNSEEN_BY_CONSEQUENCES]
        if not seen:  # the state as the command found it: settled (a miss, a daze)
            return self._consequences_in(state, state, settled=True)
        if self.owns(state):  # under ``advance`` (a handler declared ``looks_past``): all of
            # them applied in place, once, and what they touched noted (``reads_touched``)
            return self._consequences_in(state, self.past(state, events))
        return self._consequences_in(state, self.lookahead(state, seen))

    def _consequences_of_damage(self, state: EncounterState, damaged: Event) -> list[Event]:
        """``_consequences(state, [damaged])`` without a lookahead: ``apply_damaged`` changes
        the target's SP, FP, body areas' vitality and armor, and who earns the critical
        damage points; of those ``_consequences`` reads the first three, which the event
        holds (each hit: 26 lookahead copies a fight on polemos-4v4)."""
        return self._consequences_in(state, state, damaged.data, settled=True)

    def _consequences_in(self, state: EncounterState, after: EncounterState,
                         hit: dict[str, Any] | None = None, *,
                         settled: bool = False) -> list[Event]:
        """``_consequences`` given the state after the events too (``after``: a lookahead
        already taken; ``hit``: a ``damaged`` event's data, not applied to it, whose new
        values are read for its target).

        What it derives is settled after every command (the invariant P-FAT-2), so in a
        lookahead it looks again only at the creatures the lookahead changed
        (``copying.touched``) and the hit's target; ``settled``: ``after`` is the state a
        command found (a lookahead of it or itself), so only they need a look. On any other
        state (the invariant's own check) it looks at every creature. (A fight's cost grew
        with the square of its size when each command looked at every creature: 33% of a
        Polemos 32-against-32.)"""
        out: list[Event] = []
        # the rulings in force after the events (an override may have changed one): read
        # once for each map of rulings (replaced when one changes, never changed in place)
        rulings = after.rulings
        memo = _RULED
        if memo[0] is self and memo[1] is rulings:
            steps, low, vital_zero = memo[2]
        else:
            steps, low = _status_steps(self.ruling(after, "AP-13"),
                                       self.ruling(after, "AP-16"))
            vital_zero = self.ruling(after, "POL-1") == "vital-zero"
            memo[0], memo[1], memo[2] = self, rulings, (steps, low, vital_zero)
        low_sp, low_fp, low_fatigue, low_stress = low
        entities = after.entities
        hit_target = hit["target"] if hit is not None else None
        changed = touched(after)
        if changed is None and settled:
            changed = NO_IDS  # the state a command found, and the hit's target
        looked: list[Entity]  # a list, compiled: iterated without an iterator object
        if changed is None:
            looked = list(entities.values())
        else:
            if hit_target is not None and hit_target not in changed:
                changed = {*changed, hit_target}
            if not changed:  # nothing touched (a turn start with nothing due)
                looked = []
            elif len(changed) == 1:
                only = entity_at(entities, next(iter(changed)))
                looked = [] if only is None else [only]
            else:  # in the entities' order, as a full look would give its events
                looked = [e for k, e in entities.items() if k in changed]
        downed: list[str] = []
        sustained: list[tuple[Entity, Condition]] = []
        # one pass over each entity's conditions, wounds and areas (it runs after nearly
        # every command: 24 → 22 µs a call on states of polemos-4v4)
        status_names = STATUS_CONDITIONS
        for creature in looked:
            had: list[str] = []  # its status conditions: those that no longer apply go
            for cond in creature.conditions:
                if cond.name in status_names:
                    had.append(cond.name)
                if cond.duration.kind == "sustained":
                    sustained.append((creature, cond))
            if not isinstance(creature, Creature):
                continue
            sp, fp = creature.sp, creature.fp
            vitality: dict[str, int] | None = None  # the hit's new values (apply_damaged)
            if hit is not None and creature.id == hit_target:
                result = hit["result"]
                sp, fp, vitality = result["sp"], result["fp"], result["vitality"] or None
            fatigue = 0  # Creature.fatigue (a loop: faster than sum() on a few wounds)
            for wound in creature.wounds:
                fatigue += wound.fatigue
            if had or -sp >= low_sp or -fp >= low_fp or fatigue >= low_fatigue \
                    or creature.stress >= low_stress:
                out += self._status_events(creature, steps,
                                           (-sp, -fp, fatigue, creature.stress), had)
            if vital_zero and not creature.down:
                zero = False  # a vital area at 0 or below
                if vitality is None:
                    zero = area_facts(creature.areas)[0]
                else:
                    for name, area in creature.areas.items():
                        if vitality.get(name, area.vitality) <= 0 and area.vital:
                            zero = True
                            break
                if zero:
                    out.append(Event("downed", {"target": creature.id}))
                    downed.append(creature.id)
        if changed is not None and _sustaining_settled(entities, looked, sustained, downed):
            sustained = []
        elif changed is not None:  # a sustainer went out cold, or a sustained one came:
            sustained = [(e, c) for e in entities.values() for c in e.conditions
                         if c.duration.kind == "sustained"]  # all of them, in their order
        for creature in entities.values() if sustained else ():  # P-CON-7
            out_cold = creature.has("unconscious") or creature.id in downed or (
                isinstance(creature, Creature) and creature.down)
            if not out_cold:
                continue
            for other, cond in sustained:
                if cond.duration.by == creature.id:
                    out.append(Event("condition_removed", {
                        "target": other.id, "name": cond.name,
                        "why": f"{creature.id} is unconscious"}))
        if downed and after.in_combat:
            out += self.end_of_fight(after, downed, out)
        return out

    @staticmethod
    def _status_events(creature: Creature, steps: tuple[tuple[str, int, int | None], ...],
                       values: tuple[int, int, int, int], had: list[str]) -> list[Event]:
        """The status conditions to give ``creature`` and to take from it (``_status_steps``;
        ``values``: those of ``STATUS_MEASURES``, SP and FP negated; ``had``: the status
        conditions it has)."""
        out: list[Event] = []
        for name, measure, threshold in steps:
            want = threshold is not None and values[measure] >= threshold
            has = name in had
            if want and not has:
                spec = condition_catalogue().get(name, UNLISTED)
                cond = Condition(name, 1, spec.tags, None,
                                 caused("status"))
                out.append(Event("condition_added", {"target": creature.id,
                                                     "condition": cond.to_json()}))
            elif has and not want:
                out.append(Event("condition_removed", {"target": creature.id, "name": name,
                                                       "why": "no longer applies"}))
        return out
