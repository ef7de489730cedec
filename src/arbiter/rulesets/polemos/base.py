"""The shared machinery of the Polemos rules: stat blocks, rulings, the clock, spending
actions, dealing damage and what follows from it (thresholds, defeat).

``injuries.py`` (wounds, bleeding, afflictions, time, rest, stress) builds on it, and
``rules.py`` (turns, actions, attacks, conditions, cover, odds) on both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from typing import Any, TypeVar

from ...core import (
    Command,
    Condition,
    Duration,
    EncounterState,
    Entity,
    Event,
    IllegalCommand,
    InvalidCommand,
    Ruleset,
)
from ...core import catalogue as args
from ...core.catalogue import event
from ...core.rounding import round_down
from ...core.ruleset import ENTITY_KEYS
from ...dice import DiceSource
from .damage import resolve_damage
from .economy import PolemosEconomy
from .model import (
    ROUNDS_PER,
    WORLD_KEYS,
    Affliction,
    Bleed,
    Creature,
    DamageType,
    Wound,
    condition_catalogue,
    make_areas,
    make_armor,
    make_weapon,
    set_world_stats,
    wound_catalogue,
)

T = TypeVar("T")

POLEMOS_KEYS = {"skills", "body", "vitality", "sp", "fp", "stress", "weapons", "armor",
                "wounds", "afflictions", "critical_threshold", "location", "vitality_now",
                "sp_now", "fp_now", *WORLD_KEYS}

DAY = ROUNDS_PER["day"]
WEEK = ROUNDS_PER["week"]
HOUR = ROUNDS_PER["hour"]

CRITICAL_EFFECTS = {"unknown-wound": 1, "fatigue-wounds": 1, "daze": 2}
"""The default critical damage point menu and costs (P-CDP-7)."""

FATIGUE_THRESHOLDS = {"4-8": (4, 8), "every-4": (4, 8, 12)}  # AP-13
STRESS_THRESHOLDS = {"5-10-15": (5, 10, 15), "10-20-30": (10, 20, 30)}  # AP-16
ENDURANCE = {"10-6": (10, 6), "12-7": (12, 7)}  # POL-2: heal at or above, worsen at or below


PROCESS_CAUSE = "processes"
"""The cause of a condition a network process gives its members (P-NET-17): it lasts while
a process on one of its networks gives it; its level is how many do (their effects stack)."""

STATUS_CONDITIONS = frozenset({"physical fatigue", "mental fatigue", "fatigue 4", "fatigue 8",
                               "fatigue 12", "stress 1", "stress 2"})
"""The conditions ``_consequences`` gives and takes as a creature's values change."""


@cache
def _status_steps(fatigue_rule: str, stress_rule: str) -> tuple[
        tuple[tuple[str, str, int | None], ...], dict[str, float]]:
    """The status conditions ``_consequences`` keeps in step with a creature, in order: the
    name, the value it reads (SP and FP negated: the condition comes at 0 or below) and the
    threshold at or above which it applies (None: never, under these rulings); and the
    lowest threshold of each value (below all of them, no status condition applies)."""
    fatigue_steps = FATIGUE_THRESHOLDS[fatigue_rule]  # AP-13
    stress_steps = STRESS_THRESHOLDS[stress_rule][:-1]  # AP-16: the last is a breakdown
    steps: list[tuple[str, str, int | None]] = [("physical fatigue", "sp", 0),
                                                ("mental fatigue", "fp", 0)]
    steps += [(f"fatigue {step}", "fatigue", step if step in fatigue_steps else None)
              for step in FATIGUE_THRESHOLDS["every-4"]]
    steps += [(f"stress {i + 1}", "stress", stress_steps[i])
              for i in range(len(STRESS_THRESHOLDS["5-10-15"]) - 1)]
    assert {name for name, _, _ in steps} == STATUS_CONDITIONS
    lowest: dict[str, float] = dict.fromkeys(("sp", "fp", "fatigue", "stress"), math.inf)
    for _, measure, threshold in steps:
        if threshold is not None:
            lowest[measure] = min(lowest[measure], threshold)
    return tuple(steps), lowest


class PolemosBase(Ruleset):
    """Helpers every part of the Polemos rules uses."""

    entity_type = Creature
    economy = PolemosEconomy()

    def make_entity(self, entity_id: str, spec: Mapping[str, Any]) -> Entity:
        """A creature from a stat block (keys: docs/rulesets/polemos.md)."""
        try:
            return self._make_creature(entity_id, spec)
        except (TypeError, ValueError, KeyError, AttributeError) as err:
            raise InvalidCommand(f"{entity_id}: a stat-block value is malformed ({err!r}); "
                                 "see docs/rulesets/polemos.md") from None

    def _make_creature(self, entity_id: str, spec: Mapping[str, Any]) -> Creature:
        unknown = set(spec) - ENTITY_KEYS - POLEMOS_KEYS
        if unknown:
            raise InvalidCommand(
                f"{entity_id}: unknown stat-block key(s) {', '.join(sorted(unknown))} "
                f"(known: {', '.join(sorted(ENTITY_KEYS | POLEMOS_KEYS))})")
        base = super().make_entity(entity_id, {k: v for k, v in spec.items() if k in ENTITY_KEYS})
        assert isinstance(base, Creature)
        creature = base
        creature.skills = {str(k): int(v) for k, v in dict(spec.get("skills", {})).items()}
        creature.body_plan = str(spec.get("body", "human"))
        creature.areas = make_areas(entity_id, creature.body_plan, dict(spec.get("vitality", {})))
        creature.sp = creature.sp_max = int(spec.get("sp", 10))
        creature.fp = creature.fp_max = int(spec.get("fp", 10))
        creature.sp = int(spec.get("sp_now", creature.sp))  # a roster character's lasting state
        creature.fp = int(spec.get("fp_now", creature.fp))
        for name, value in dict(spec.get("vitality_now", {})).items():
            creature.area(str(name)).vitality = int(value)
        creature.stress = int(spec.get("stress", 0))
        creature.critical_threshold = int(spec.get("critical_threshold", 3))
        if creature.critical_threshold < 1:
            raise InvalidCommand(f"{entity_id}: critical_threshold must be at least 1")
        creature.location = spec.get("location")
        for weapon in spec.get("weapons", []):
            name, made = make_weapon(entity_id, weapon)
            creature.weapons[name] = made
        creature.armor = [make_armor(entity_id, a) for a in spec.get("armor", [])]
        for piece in creature.armor:
            for area in piece.areas:
                if area not in creature.areas:
                    raise InvalidCommand(f"{entity_id}: armor {piece.name!r} covers {area!r}, "
                                         f"which a {creature.body_plan} body does not have")
        for index, raw in enumerate(spec.get("wounds", [])):
            raw = {"name": raw} if isinstance(raw, str) else dict(raw)
            # a roster character's wound keeps its age (P-WND-4: its daily rolls' clock)
            data = self._wound_data(entity_id, creature, raw, f"{entity_id}-w{index + 1}",
                                    -int(raw.get("age", 0)))
            wound = Wound(**data)
            creature.wounds.append(wound)
            self._wound_effects(creature, wound, wound.bleeding, wound.source)
        for index, raw in enumerate(spec.get("afflictions", [])):
            raw = {"name": raw} if isinstance(raw, str) else dict(raw)
            creature.afflictions.append(Affliction(
                id=f"{entity_id}-a{index + 1}", name=str(raw["name"]), area=raw.get("area"),
                cause=raw.get("cause"), tags=list(raw.get("tags", [])),
                wound=bool(raw.get("wound", False))))
        set_world_stats(creature, spec)
        return creature

    def do_add(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Add a creature or object: id, and its stat block (docs/rulesets/polemos.md)."""
        events = super().do_add(state, command, dice)
        return events + self._consequences(state, events)

    def creature(self, state: EncounterState, name: str) -> Creature:
        return state.entity_of(name, Creature)

    def acting(self, state: EncounterState, command: Command) -> Creature:
        actor = self.creature(state, self.actor(state, command).id)
        if actor.down:
            raise IllegalCommand(f"{actor.id} is down and cannot act")
        return actor

    def rule(self, state: EncounterState, ruling: str) -> str:
        """The value of a ruling here: ``Ruleset.ruling`` (its default lives in rulings.toml
        only)."""
        return self.ruling(state, ruling)

    @staticmethod
    def clock(state: EncounterState) -> int:
        """Rounds elapsed since the encounter was created (P-TIM-1)."""
        return int(state.extra.get("clock", 0))

    @staticmethod
    def _is_down(state: EncounterState, who: str) -> bool:
        entity = state.entities.get(who)
        return isinstance(entity, Creature) and entity.down

    def duration(self, state: EncounterState, rounds: int) -> Duration:
        """A duration of ``rounds`` rounds: to the start of the giver's turn in turn-by-turn
        play, by the clock otherwise (P-CON-4)."""
        if rounds <= 0:
            return Duration()
        if state.in_combat and state.current is not None:
            return Duration.for_rounds(state, rounds)
        return Duration("timed", round=self.clock(state) + rounds, at="start")

    def use(self, state: EncounterState, actor: Creature, kind: str,
            ability: str) -> dict[str, Any]:
        """Check and spend an action of ``kind`` for ``ability``: the event data it adds."""
        if not state.in_combat:
            return {"actor": actor.id, "ability": ability, "kind": kind}  # P-ORD-1 free-form
        if kind == "minor":
            if state.current != actor.id:
                raise IllegalCommand(f"{actor.id} can use minor actions only on their own turn",
                                     rule="P-ACT-4")
            if any(p["command"].get("do") and p["kind"] != "free"
                   for p in state.extra.get("pending", [])):
                raise IllegalCommand(
                    "a minor action cannot be used while another action is being resolved",
                    rule="P-ACT-4")
        counts = (self.rule(state, "AP-6") == "every-use") or state.current == actor.id
        if counts and actor.used_round == state.round and ability in actor.used:
            raise IllegalCommand(f"{actor.id} has already used {ability!r} this round",
                                 rule="P-ACT-1")
        if kind == "free" and state.current != actor.id and actor.channel \
                and self.rule(state, "AP-5") == "whole-span":
            raise IllegalCommand(f"{actor.id} is in the middle of a full action",
                                 rule="P-ACT-6")
        economy = self.spend(state, actor.id, kind)
        return {"actor": actor.id, "ability": ability, "kind": kind, "economy": economy,
                "round": state.round, "counts": counts}

    def evolve(self, state: EncounterState, event: Event) -> EncounterState:
        super().evolve(state, event)
        data = event.data
        if data.get("counts") and "ability" in data:
            creature = state.entities.get(data["actor"])
            if isinstance(creature, Creature):
                if creature.used_round != data["round"]:
                    creature.used, creature.used_round = [], data["round"]
                creature.used = [*creature.used, data["ability"]]
        return state

    def _damage_events(self, state: EncounterState, target_id: str, area: str,
                       dtype: DamageType, amount: int, rating: int, source: str | None,
                       targeted: bool, extra: dict[str, Any], dice: DiceSource,
                       armor: bool = True) -> list[Event]:
        target = self.creature(state, target_id)
        covered = bool(extra.get("covered")) and self.rule(state, "AP-18") == "nullify"
        result = resolve_damage(target, area, dtype, amount, rating, covered=covered,
                                armor_rule=self.rule(state, "AP-8"),
                                measures=self.rule(state, "AP-19"),
                                clamp=self.rule(state, "AP-9") == "clamp", armor=armor)
        threshold = target.critical_threshold
        if source is not None and isinstance(state.entities.get(source), Creature):
            threshold = self.creature(state, source).critical_threshold
        # P-CDP-1, P-CDP-2: one point per full threshold of the damage dealt before armor
        points = round_down(amount, threshold)
        if self.rule(state, "AP-7") == "extra":
            points += round_down(result["armor_damage"], threshold)
        data = {"target": target_id, "source": source, "actor": source, "amount": amount,
                "taken": sum(result["taken"].values()),
                "targeted": targeted, "result": result, "critical_points": points,
                "text": " | ".join(i["text"] for i in result["instances"]), **extra}
        return [Event("damaged", data)]

    @event("{target} takes {taken} {result.type} damage[ on the {result.area}] ({amount} "
           "before armor)[: {text}][; {critical_points} critical damage points][ for "
           "{source}].",
           target=args.creature("who is damaged"),
           source=args.creature("who earns the critical damage points (none: the GM spends "
                                "them, P-CDP-8)"),
           actor=args.creature("the same as source"),
           amount=args.integer("the damage dealt, before armor (P-CDP-2)"),
           taken=args.integer("the damage that got through the armor"),
           targeted=args.flag("the body area was chosen, not rolled"),
           result=args.mapping("the damage resolved: area, type, rating, instances, armor "
                               "damage, armor values, vitality, SP, FP, overflow"),
           critical_points=args.integer("critical damage points earned (P-CDP-1)"),
           text=args.text("each damage instance in words"),
           covered=args.flag("the body area hit was in cover (P-COV-3)"),
           damage_roll=args.mapping("the weapon damage roll, 1D6 + modifier"),
           per_round=args.text("the condition that deals it each round (P-CON-9)"),
           bleeding=args.text("the bleeding that deals it (P-BLD-1)"))
    def apply_damaged(self, state: EncounterState, data: dict[str, Any]) -> None:
        target = self.creature(state, data["target"])
        result = data["result"]
        if result["armor"]:  # replaced, never changed in place (model.SHARED_IN_SCRATCH)
            armor = list(target.armor)
            for index, value in result["armor"].items():
                armor[int(index)] = replace(armor[int(index)], value=value)
            target.armor = armor
        if result["vitality"]:
            areas = dict(target.areas)
            for area, value in result["vitality"].items():
                areas[area] = replace(areas[area], vitality=value)
            target.areas = areas
        target.sp, target.fp = result["sp"], result["fp"]
        source = data.get("source")
        owner = state.entities.get(source) if source else None
        if isinstance(owner, Creature):  # P-CDP-3, P-CDP-5: the (original) attacker spends
            owner.critical_points = data["critical_points"]
            owner.critical_target = data["target"]
            owner.critical_area = result["area"] if data.get("targeted") else None
            state.extra.setdefault("critical_area_hit", {})[owner.id] = result["area"]
        else:  # P-CDP-8: no attacker: the GM decides how to spend them
            state.extra["gm_critical"] = {
                "points": data["critical_points"], "target": data["target"],
                "area": result["area"] if data.get("targeted") else None}

    def _cause_present(self, state: EncounterState, target: Entity, cause: str | None,
                       name: str | None = None) -> bool:
        """Whether what keeps a caused wound, affliction or condition (``name``) is still
        there: a wound, an affliction, a condition, an aspect (tag), or the network processes
        that give the condition (P-CON-6, P-WND-8, P-AFF-3, P-NET-17)."""
        if cause is None or not isinstance(target, Creature):
            return False
        if cause == PROCESS_CAUSE:
            return name is not None and self._given_by_processes(state, target.id, name)
        return any(w.id == cause for w in target.wounds) or \
            any(a.id == cause for a in target.afflictions) or target.has(cause) or \
            cause in target.tags

    def _given_by_processes(self, state: EncounterState, who: str, name: str) -> bool:
        """Whether a network process gives ``who`` the condition ``name`` (networks.py)."""
        return False

    def _process_events(self, state: EncounterState) -> list[Event]:
        """The conditions network processes give and take as membership and processes
        change (networks.py)."""
        return []

    def _wound_data(self, owner: str, creature: Creature, raw: dict[str, Any], wound_id: str,
                    received: int) -> dict[str, Any]:
        name = str(raw.get("name", ""))
        if not name:
            raise InvalidCommand(f"{owner}: a wound needs a 'name'")
        spec = {**wound_catalogue().get(name, {}), **raw}
        area = spec.get("area")
        if spec.get("whole_body"):
            area = None
        if area is not None:
            creature.area(str(area))
        return {"id": wound_id, "name": name, "area": area,
                "tags": [str(t) for t in spec.get("tags", [])],
                "fatigue": int(spec.get("fatigue", 0)), "level": int(spec.get("level", 1)),
                "known": bool(spec.get("known", True)), "cause": spec.get("cause"),
                "received": received, "max_days": spec.get("max_days"),
                "conditions": [str(c) for c in spec.get("conditions", [])],
                "bleeding": int(spec.get("bleeding", 0)), "source": spec.get("source")}

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
            spec = condition_catalogue().get(name, {})
            cond = Condition(name, 1, tuple(spec.get("tags", [])), wound.id,
                             Duration("caused", cause=wound.id))
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

    def _consequences(self, state: EncounterState, events: list[Event]) -> list[Event]:
        """Events that follow from the state after ``events``: physical/mental fatigue
        (P-FAT-3), fatigue and stress threshold conditions (P-FAT-2, P-STS-4), defeat
        (POL-1), sustained conditions ending (P-CON-7), and the end of the fight."""
        after = self.lookahead(state, events)
        out: list[Event] = []
        steps, low = _status_steps(self.rule(state, "AP-13"), self.rule(state, "AP-16"))
        low_sp, low_fp, low_fatigue, low_stress = low["sp"], low["fp"], low["fatigue"], \
            low["stress"]
        vital_zero = self.rule(state, "POL-1") == "vital-zero"
        entities = list(after.entities.values())
        downed: list[str] = []
        for creature in entities:
            if not isinstance(creature, Creature):
                continue
            fatigue = creature.fatigue
            if -creature.sp >= low_sp or -creature.fp >= low_fp or fatigue >= low_fatigue \
                    or creature.stress >= low_stress:
                out += self._status_events(creature, steps, fatigue)
            else:  # no status condition applies: only those it has go
                for cond in creature.conditions:
                    if cond.name in STATUS_CONDITIONS:
                        out += self._status_events(creature, steps, fatigue)
                        break
            if not creature.down and vital_zero:
                for area in creature.areas.values():
                    if area.vitality <= 0 and area.vital:
                        out.append(Event("downed", {"target": creature.id}))
                        downed.append(creature.id)
                        break
        sustained = [(other, cond) for other in entities for cond in other.conditions
                     if cond.duration.kind == "sustained"]
        for creature in entities if sustained else ():  # P-CON-7
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
            standing = {c.side for c in entities
                        if isinstance(c, Creature) and c.kind == "creature" and not c.down
                        and c.id not in downed}
            if len(standing) <= 1:
                out.append(Event("encounter_won", {"side": next(iter(standing), None)}))
                out.append(Event("combat_ended", {"round": after.round}))
                out += self._leave_turns(self.lookahead(after, out))
        return out

    def _leave_turns(self, state: EncounterState) -> list[Event]:
        """As turn-by-turn play ends: every condition timed in turns keeps the rounds it has
        left and ends by the clock from now on, three seconds a round (P-CON-4, P-TIM-1); one
        whose end falls in the round just played ends now."""
        now, round_ = self.clock(state), state.round
        out: list[Event] = []
        for entity in state.entities.values():
            for cond in entity.conditions:
                d = cond.duration
                if d.kind != "timed" or d.turn_of is None or d.round is None:
                    continue
                left = d.round - round_
                if left <= 0:
                    out.append(Event("condition_removed", {"target": entity.id,
                                                           "name": cond.name,
                                                           "why": "expired"}))
                else:
                    timed = Duration("timed", round=now + left, at="start")
                    out.append(Event("condition_retimed", {"target": entity.id,
                                                           "name": cond.name,
                                                           "duration": timed.to_json()}))
        return out

    @event("{target}'s {name} now ends by the clock, at round {duration.round}.",
           target=args.creature("whose condition"), name=args.text("the condition"),
           duration=args.mapping("its new duration (timed by the clock)"))
    def apply_condition_retimed(self, state: EncounterState, data: dict[str, Any]) -> None:
        entity = state.entity(data["target"])
        duration = Duration(**data["duration"])
        entity.conditions = [replace(c, duration=duration) if c.name == data["name"] else c
                             for c in entity.conditions]

    @staticmethod
    def _status_events(creature: Creature, steps: tuple[tuple[str, str, int | None], ...],
                       fatigue: int) -> list[Event]:
        """The status conditions to give ``creature`` and to take from it (``_status_steps``;
        ``fatigue``: its fatigue value)."""
        values = {"sp": -creature.sp, "fp": -creature.fp, "fatigue": fatigue,
                  "stress": creature.stress}
        names = {c.name for c in creature.conditions}
        out: list[Event] = []
        for name, measure, threshold in steps:
            want = threshold is not None and values[measure] >= threshold
            has = name in names
            if want and not has:
                spec = condition_catalogue().get(name, {})
                cond = Condition(name, 1, tuple(spec.get("tags", [])), None,
                                 Duration("caused", cause="status"))
                out.append(Event("condition_added", {"target": creature.id,
                                                     "condition": cond.to_json()}))
            elif has and not want:
                out.append(Event("condition_removed", {"target": creature.id, "name": name,
                                                       "why": "no longer applies"}))
        return out

    @event("{target} is down (a vital body area at 0 vitality) and unconscious.",
           target=args.creature("who goes down (ruling POL-1)"))
    def apply_downed(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["target"])
        creature.down = True
        if not creature.has("unconscious"):
            creature.conditions.append(Condition("unconscious", 1, ("mental",)))

    @event("The fight is over[: side {side} wins].",
           side=args.text("the side still standing (none: nobody)"))
    def apply_encounter_won(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra["winner"] = data["side"]

    def stack_condition(self, existing: Condition | None, new: Condition) -> Condition:
        """Levels add for conditions whose catalogue entry says ``stack = "add"`` (daze);
        otherwise the higher level stays."""
        spec = condition_catalogue().get(new.name, {})
        if existing is not None and spec.get("stack") == "add":
            return Condition(new.name, existing.level + new.level, new.tags, new.source,
                             new.duration, {**existing.data, **new.data})
        return super().stack_condition(existing, new)
