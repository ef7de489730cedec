"""Turns in Polemos: initiative (P-ORD-*), turn order, what happens as a turn starts and ends
(per-round effects, P-CON-9; multi-turn full actions, P-ACT-7), rounds and the clock
(P-TIM-1), creatures going down and the end of the fight (POL-1).
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    DataMap,
    Deferred,
    Duration,
    EncounterState,
    Entity,
    Event,
    IllegalCommand,
    kernel_payloads,
)
from ...core import catalogue as args
from ...core.ahead import Ahead
from ...core.catalogue import command, event
from ...core.model import entity_at
from ...core.outcomes import OUT_OF_FIGHT
from ...dice import DiceSource
from . import payloads
from .checks import roll_skill
from .conditions import expire_clock
from .injuries import due_readds, round_effects
from .lasting import LastingRules  # the topic below (a chain)
from .model import Creature
from .spheres import sphere_turn_start

_OUT_NAMES: dict[str, bool] = {}
"""Whether a condition name, in any case, is one of ``OUT_OF_FIGHT`` (asked again after
every command)."""


def _out_name(name: str) -> bool:
    out = _OUT_NAMES.get(name)
    if out is None:
        out = name.lower() in OUT_OF_FIGHT
        if len(_OUT_NAMES) < 4096:
            _OUT_NAMES[name] = out
    return out


def _initiative_skill(state: EncounterState, who: str, by_skill: bool) -> int:
    """AP-3: the [initiative] skill that breaks a tie, or 0 when the ruling does not."""
    entity = entity_at(state.entities, who)
    return entity.skill("initiative") if by_skill and isinstance(entity, Creature) else 0

ROUND_EFFECTS_UNREAD = frozenset({"per_round_passed"})
"""What the per-round effects, a sphere's turn start and ``_consequences`` do not read (the
round whose effects a creature that is down has had, ``extra.round_effects``, read only by
``_passed_over`` in the state before): the turn start looks ahead past the other events
only (for a creature that is down and neither bleeds nor tires, no copy: with ``Ahead``,
about 50 lookahead copies a fight at turn starts before, 9 after, on polemos-4v4)."""


def _down(entities: dict[str, Entity], who: str) -> bool:
    """``is_down`` by the flag alone (POL-1), as the turn order reads it."""
    entity = entity_at(entities, who)
    return isinstance(entity, Creature) and entity.down


@mypyc_attr(allow_interpreted_subclasses=True)
class TurnRules(LastingRules):
    """Initiative, turn order, turn start and end, rounds, the end of the fight."""

    def is_down(self, state: EncounterState, entity: Entity) -> bool:
        """Out of the fight: a creature whose ``down`` flag is set (POL-1), whatever else
        holds, is looked at first (the simulator asks after every command, about 500 times
        a fight); with the flag false, a condition that puts it out of the fight
        (``OUT_OF_FIGHT``: unconscious, dead...). Anything else by the common names."""
        if type(entity) is Creature:
            if entity.down:
                return True
            for cond in entity.conditions:  # noqa: SIM110 (any() of a generator: slower)
                if _out_name(cond.name):
                    return True
            return False
        return super().is_down(state, entity)

    def roll_initiative(
        self, state: EncounterState, entity: Entity, dice: DiceSource
    ) -> tuple[int, DataMap]:
        """P-ORD-3: one [initiative] skill roll when turn-by-turn play starts."""
        value = entity.skills.get("initiative", 0) if isinstance(entity, Creature) else 0
        result = roll_skill(value, 0, 0, self.ruling(state, "AP-2"), dice)
        return result.total, Deferred(result.to_json)

    def initiative_order(self, state: EncounterState, initiative: dict[str, int]) -> list[str]:
        """P-ORD-4 highest first; ties (AP-3): higher [initiative] skill, then listed order."""
        added = list(state.entities)
        by_skill = self.ruling(state, "AP-3") == "skill-then-listed"
        keys = {e: (-initiative[e], -_initiative_skill(state, e, by_skill),
                    added.index(e) if e in added else 0) for e in initiative}
        return sorted(initiative, key=keys.__getitem__)

    @command("Order creatures that try to act at the same moment by [initiative].",
             rules=("P-ORD-6", "AP-3", "AP-33"),
             actors=args.creatures("the creatures acting at once", required=True))
    def do_simultaneous(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """Order creatures acting at the same moment by their [initiative] (P-ORD-6, AP-33).
        The roll made as turn-by-turn play started holds only while it runs (P-ORD-3: "until
        the situation leaves turn-by-turn status"): after ``end``, a fresh roll each."""
        names: list[str] = command.a.actors
        creatures = [self.creature(state, str(n)) for n in names]
        fresh = self.ruling(state, "AP-33") == "fresh-roll" or not state.in_combat
        values: dict[str, int] = {}
        rolls: dict[str, Any] = {}
        for creature in creatures:
            if not fresh and creature.id in state.initiative:
                values[creature.id] = state.initiative[creature.id]
            else:
                values[creature.id], rolls[creature.id] = self.roll_initiative(
                    state, creature, dice)
        order = self.initiative_order(state, values)
        return [Event("simultaneous_ordered", {"order": order, "initiative": values,
                                               "rolls": rolls})]

    @event("Acting at the same moment, in order: {order}.",
           order=args.creatures("the order"),
           initiative=args.mapping("the initiative values used"),
           rolls=args.mapping("the fresh [initiative] rolls"))
    def apply_simultaneous_ordered(self, state: EncounterState,
                                   data: payloads.SimultaneousOrdered) -> None:
        return None

    def check_turn_end(self, state: EncounterState, who: str) -> None:
        if state.extra.get("pending"):
            raise IllegalCommand("declared actions are waiting: 'resolve' or 'withdraw' them "
                                 "before the turn ends", rule="P-ACT-5")

    def next_turn(
        self, state: EncounterState, who: str, round_: int
    ) -> tuple[str, int] | None:
        """The highest initiative who has not acted this round (P-ORD-4), or a new round
        when all have acted; creatures that are down are passed over."""
        if not state.in_combat or not state.order:
            return None
        acted = set(state.extra.get("acted", ()))
        entities = state.entities  # ``_is_down`` of each, inline (every turn)
        first: str | None = None  # the first creature standing, for a new round
        # it stops at the first one waiting (the next in the order, as a rule): a turn's
        # cost does not grow with the number of creatures after it
        for c in state.order:
            entity = entity_at(entities, c)
            if isinstance(entity, Creature) and entity.down:
                continue
            if c not in acted:
                return c, round_
            if first is None:
                first = c
        return (first, round_ + 1) if first is not None else None

    def apply_turn_started(self, state: EncounterState, data: kernel_payloads.TurnStarted) -> None:
        if data["round"] != state.round:
            if state.round >= 1:  # each new round is three more seconds (P-TIM-1)
                state.extra["clock"] = self.clock(state) + max(data["round"] - state.round, 0)
            state.extra["acted"] = []
        state.extra.setdefault("acted", []).append(data["actor"])
        # the round whose per-round effects have taken effect for the actor (P-CON-9)
        state.extra.setdefault("round_effects", {})[data["actor"]] = data["round"]
        self.kernel_turn_started(state, data)

    def _passed_over(self, ahead: Ahead, events: list[Event], who: str,
                     dice: DiceSource) -> None:
        """The per-round effects of creatures that are down, as ``who``'s turn starts (P-CON-9:
        no turn, so every three seconds; ruling POL-9): ``in-place``, those whose place in the
        order the turns just passed over (the round before for those after the last
        creature standing); ``round-start``, every one at the first turn of a round. Once a
        round each (``extra.round_effects``). Appended to the turn start's ``events``, each
        creature's read on the state after those before it (``ahead``: the turn start's, in
        place where ``advance`` owns the state)."""
        state = ahead.of(events)
        order = state.order
        if who not in order:
            return
        entities = state.entities
        places: list[tuple[str, int]] = []
        if self.ruling_is(state, "POL-9", "round-start"):
            if state.extra.get("acted") == [who]:  # the first turn of the round
                places = [(c, state.round) for c in order if c != who and _down(entities, c)]
        else:  # in-place: walk back from who's place to the last creature standing (the
            # creatures just before it only: a turn's cost does not grow with the order's)
            index, round_ = order.index(who), state.round
            for _ in range(len(order) - 1):
                index -= 1
                if index < 0:
                    index, round_ = len(order) - 1, round_ - 1
                if not _down(entities, order[index]):
                    break
                places.append((order[index], round_))
            places.reverse()
        if not places:
            return
        # (a copy: in place, each per_round_passed event writes into the state's own)
        done = dict(state.extra.get("round_effects", {}))
        for name, round_ in places:
            if round_ < 1 or int(done.get(name, 0)) >= round_:
                continue
            events.append(Event("per_round_passed", {"target": name, "round": round_}))
            events += round_effects(self, ahead.of(events), name, dice)

    @event("{target} is down: its per-round effects of round {round} take effect.",
           target=args.creature("the creature that is down (no turn, P-CON-9)"),
           round=args.integer("the round"))
    def apply_per_round_passed(self, state: EncounterState, data: payloads.PerRoundPassed) -> None:
        state.extra.setdefault("round_effects", {})[data["target"]] = data["round"]

    def apply_initiative_set(self, state: EncounterState,
                             data: kernel_payloads.InitiativeSet) -> None:
        super().apply_initiative_set(state, data)
        acted = state.extra.get("acted", [])
        if self.ruling(state, "AP-4") == "acts-again" and data["target"] != state.current \
                and data["target"] in acted:
            acted.remove(data["target"])

    def apply_combat_ended(self, state: EncounterState, data: kernel_payloads.CombatEnded) -> None:
        super().apply_combat_ended(state, data)
        state.extra["acted"] = []
        state.extra.pop("pending", None)
        state.extra.pop("round_effects", None)

    def do_end(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """End turn-by-turn play; conditions timed in turns go on by the clock (P-CON-4)."""
        events = super().do_end(state, command, dice)
        return events + self._leave_turns(self.lookahead(state, events))

    def end_of_fight(self, after: EncounterState, downed: list[str],
                     so_far: list[Event]) -> list[Event]:
        """When creatures go down (POL-1) and at most one side still has a creature standing:
        that side wins, turn-by-turn play ends, and conditions timed in turns go on by the
        clock (P-CON-4)."""
        standing = {c.side for c in after.entities.values()
                    if isinstance(c, Creature) and c.kind == "creature" and not c.down
                    and c.id not in downed}
        if len(standing) > 1:
            return []
        out = [self.side_won(next(iter(standing), None)),
               Event("combat_ended", {"round": after.round})]
        return out + self._leave_turns(self.lookahead(after, [*so_far, *out]))

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


    def turn_start_events(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """At the start of a turn: what falls due by the clock, then the bearer's per-round
        effects (P-CON-9)."""
        # each step looks past the events of those before it: in place under ``advance``
        # (``started_past``), where ``state`` is then the state they lead to
        ahead = Ahead(self, state, ROUND_EFFECTS_UNREAD, in_place=True)
        clock = self.clock(state)  # (read before any: a readded wound changes no clock)
        events = due_readds(self, state, clock)
        events += expire_clock(ahead.of(events), clock)
        self._passed_over(ahead, events, who, dice)
        events += round_effects(self, ahead.of(events), who, dice)
        events += sphere_turn_start(self, ahead.of(events), who)
        return events + self._consequences_in(state, ahead.of(events))

    def turn_end_events(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """P-ACT-7: a multi-turn full action advances at the end of each of its turns."""
        creature = entity_at(state.entities, who)
        if not isinstance(creature, Creature) or not creature.channel:
            return []
        channel = creature.channel
        done = int(channel["done"]) + 1
        if done >= int(channel["turns"]):
            cost = dict(channel.get("cost", {}))
            return [Event("full_action_completed", {
                "actor": who, "ability": channel["ability"], "cost": cost,
                "sp": max(creature.sp - int(cost.get("sp", 0)), 0),
                "fp": max(creature.fp - int(cost.get("fp", 0)), 0)})]
        return [Event("full_action_progressed", {"actor": who, "done": done})]

    @event("{target} is down (a vital body area at 0 vitality) and unconscious.",
           target=args.creature("who goes down (ruling POL-1)"))
    def apply_downed(self, state: EncounterState, data: payloads.Downed) -> None:
        creature = self.creature(state, data["target"])
        creature.down = True
        if not creature.has("unconscious"):
            creature.conditions.append(Condition("unconscious", 1, ("mental",)))
