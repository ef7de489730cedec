"""What outlasts an encounter in realms, and time outside encounters
(docs/rulesets/realms.md, "What lasts" and "Time between encounters").

What outlasts the encounter is Health, Energy and the conditions whose durations go on (not
those of where a creature stands: ``FIGHT_ONLY``). A round is 10 seconds (seed 003, Speed).
While time passes outside turn-by-turn play, timed conditions run out; resting, each 8
complete hours are a full recovery (overheal ends, Exhaustion drops 1: R-OVH-2, R-C-EXH; what
else a recovery gives is ruling RLM-10); Bleed and Dying, whose damage comes each turn, are
settled first (ruling RLM-9). A campaign's roster lets its time pass through the ``wait``
command (``time_commands``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Command, EncounterState, Entity, Event, IllegalCommand, InvalidCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.roster import lasting_conditions
from ...dice import DiceSource
from . import payloads
from .invariants import Invariants  # the topic below (a chain)
from .model import RealmsCreature

ROUND_SECONDS = 10
"""One round is 10 seconds (seed 003, Speed)."""
UNIT_SECONDS = {"round": ROUND_SECONDS, "minute": 60, "hour": 3600, "day": 86400}
UNITS = tuple(name for unit in UNIT_SECONDS for name in (unit, f"{unit}s"))
"""The units ``wait`` takes: each of ``UNIT_SECONDS``, singular or plural."""
RECOVERY_HOURS = 8
"""Hours of rest that make a full recovery (ruling RLM-10)."""
FIGHT_ONLY = frozenset({"prone", "grappled", "restrained", "hidden", "dodging", "terminal",
                        "suffocating"})
"""Conditions of where a creature stands and whom it holds, left behind when a roster
character's lasting state is written back (``lasting``)."""


def seconds_in(amount: int, unit: str) -> int:
    """``amount`` ``unit`` (round, minute, hour or day; plurals too) in seconds."""
    single = unit[:-1] if unit.endswith("s") else unit
    if single not in UNIT_SECONDS:
        raise InvalidCommand(f"unknown time unit {unit!r} (units: {', '.join(UNIT_SECONDS)})")
    return amount * UNIT_SECONDS[single]


@mypyc_attr(allow_interpreted_subclasses=True)
class LastingRules(Invariants):
    """What outlasts an encounter, the ``wait`` command and the roster's time hook of realms
    (a topic of ``RealmsRuleset``)."""

    time_activities = ("rest", "none")

    def lasting(self, state: EncounterState, entity: Entity) -> dict[str, Any]:
        """What outlasts the encounter (docs/rulesets/realms.md): Health and Energy, and the
        conditions whose durations go on (not those of where it stands: FIGHT_ONLY)."""
        if not isinstance(entity, RealmsCreature):
            return {}
        out: dict[str, Any] = {"conditions": lasting_conditions(state, entity, FIGHT_ONLY)}
        if entity.health != entity.health_max:  # unhurt: the stat block's maximum
            out["health_now"] = entity.health
        if entity.energy != entity.energy_max:
            out["energy_now"] = entity.energy
        return out

    def time_commands(self, state: EncounterState, who: str, amount: int, unit: str,
                      activity: str) -> list[Command]:
        """Campaign time between encounters: ``wait``, resting unless ``none``."""
        return [Command("wait", args={"amount": amount, "unit": unit,
                                      "rest": activity == "rest"})]

    @command("Let time pass outside turn-by-turn play (10 s a round): timed conditions run "
             "out; resting, each 8 complete hours are a full recovery; Bleed and Dying are "
             "settled first (RLM-9).",
             rules=("R-OVH-2", "R-C-EXH", "RLM-9", "RLM-10"),
             amount=args.integer("how many units", lo=0, hi=99999, required=True),
             unit=args.choice("the unit of time", *UNITS, default="round"),
             rest=args.flag("they rest: a full recovery for each 8 complete hours"))
    def do_wait(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Time passes outside turn-by-turn play: timed conditions run out, and resting
        gives a full recovery for each 8 complete hours."""
        if state.in_combat:
            raise IllegalCommand("time passes turn by turn in turn-by-turn play: use 'next'")
        seconds = seconds_in(command.a.amount, command.a.unit)
        rounds = seconds // ROUND_SECONDS
        creatures = [e for e in state.entities.values()
                     if isinstance(e, RealmsCreature) and not e.dead]
        events: list[Event] = []
        for me in creatures:
            events += self._settle(state, me)
        for me in creatures:
            for cond in me.conditions:
                left = cond.duration.remaining_rounds(state)
                if left is not None and left <= rounds and cond.name not in ("bleed", "dying"):
                    events.append(Event("condition_removed", {
                        "target": me.id, "name": cond.name, "why": "its time ran out"}))
        if rounds:
            events.append(Event("time_passed", {"rounds": rounds, "seconds": seconds}))
        if command.a.rest:
            after = self.lookahead(state, events)
            recoveries = seconds // (RECOVERY_HOURS * 3600)
            for me in creatures:
                events += self._recoveries(after, me.id, recoveries)
        return events

    def _settle(self, state: EncounterState, me: RealmsCreature) -> list[Event]:
        """RLM-9: Bleed and Dying take their damage each turn; outside turn-by-turn play
        they are settled first (refused), or tended (Bleed ends, the Dying come up to 1)."""
        bleed = me.level("bleed")
        if not bleed and not me.dying:
            return []
        what = " and ".join(([f"Bleeding {bleed}"] if bleed else []) +
                            (["Dying"] if me.dying else []))
        if self.ruling_is(state, "RLM-9", "settle-first"):
            raise IllegalCommand(f"{me.id} is {what}: heal or stabilize it in an encounter "
                                 "before time passes (or rule RLM-9 'tended')", rule="RLM-9")
        return [Event("tended", {"target": me.id, "health": max(me.health, 1)})]

    def _recoveries(self, state: EncounterState, who: str, count: int) -> list[Event]:
        """Up to ``count`` full recoveries of ``who``, while one still changes something."""
        events: list[Event] = []
        whole = self.ruling_is(state, "RLM-10", "whole")
        for _ in range(count):
            me = state.entity_of(who, RealmsCreature)
            health = me.health_max if whole else min(me.health, me.health_max)
            exhausted = max(me.level("exhausted") - 1, 0)
            energy = me.energy_max if whole else me.energy
            if (health, exhausted, energy) == (me.health, me.level("exhausted"), me.energy):
                break
            made = [Event("recovered", {"target": who, "health": health,
                                        "exhausted": exhausted})]
            if energy != me.energy:
                made.append(Event("energy_changed", {"target": who, "energy": energy,
                                                     "deficit": 0}))
            events += made
            state = self.lookahead(state, made)
        return events

    @event("{target} is tended after the fight: Bleed and Dying end[, Health {health}].",
           target=args.creature("who"), health=args.integer("Health after"))
    def apply_tended(self, state: EncounterState, data: payloads.Tended) -> None:
        me = state.entity_of(data["target"], RealmsCreature)
        me.health = data["health"]
        me.conditions = [x for x in me.conditions if x.name not in ("bleed", "dying")]
        me.stabilized, me.dying_turns = False, 0

    @event("Time passes: {rounds} rounds.", rounds=args.integer("rounds (10 s each)"),
           seconds=args.integer("seconds"))
    def apply_time_passed(self, state: EncounterState, data: payloads.TimePassed) -> None:
        """Timed conditions come ``rounds`` rounds nearer their end (their end points are
        absolute rounds of the encounter, whose round stays while no turns are played)."""
        rounds = int(data["rounds"])
        for me in state.entities.values():
            if any(x.duration.kind == "timed" and x.duration.round is not None
                   for x in me.conditions):
                me.conditions = [
                    replace(x, duration=replace(x.duration, round=x.duration.round - rounds))
                    if x.duration.kind == "timed" and x.duration.round is not None else x
                    for x in me.conditions]
