"""Time outside encounters in zones (docs/rulesets/zones.md, "Time between encounters").

The excerpt (seed 002) stops before any rule of recovery, so what rest gives back is ruling
ZR-9. Ammunition never comes back by itself: the game master resupplies a character (its
sheet's ``ammo``). A campaign's roster lets its time pass through the ``rest`` command
(``time_commands``).
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Command, EncounterState, Entity, Event, IllegalCommand, InvalidCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from . import payloads
from .cover import Cover  # the topic below (a chain)
from .model import Creature

UNIT_SECONDS = {"minute": 60, "hour": 3600, "day": 86400}
NIGHT_HOURS = 8
"""Hours of rest that give all Health back under ZR-9 ``full-a-night``."""


def seconds_in(amount: int, unit: str) -> int:
    """``amount`` ``unit`` (minute, hour or day; plurals too) in seconds."""
    single = unit[:-1] if unit.endswith("s") else unit
    if single not in UNIT_SECONDS:
        raise InvalidCommand(f"unknown time unit {unit!r} (units: {', '.join(UNIT_SECONDS)})")
    return amount * UNIT_SECONDS[single]


@mypyc_attr(allow_interpreted_subclasses=True)
class Lasting(Cover):
    """What outlasts an encounter, the ``rest`` command and the roster's time hook."""

    time_activities = ("rest", "none")

    def lasting(self, state: EncounterState, entity: Entity) -> dict[str, Any]:
        """What outlasts the encounter (docs/rulesets/zones.md): Health and ammunition."""
        if not isinstance(entity, Creature):
            return {}
        out: dict[str, Any] = {"ammo": dict(entity.ammo)}
        if entity.health != entity.health_max:  # unhurt: the stat block's maximum
            out["health_now"] = entity.health
        return out

    def time_commands(self, state: EncounterState, who: str, amount: int, unit: str,
                      activity: str) -> list[Command]:
        """Campaign time between encounters: ``rest`` for the character, unless ``none``
        (time passes and nothing changes)."""
        if activity == "none":
            return []
        return [Command("rest", args={"target": who, "amount": amount, "unit": unit})]

    @command("A creature rests outside turn-by-turn play and regains Health as ruling ZR-9 "
             "says (a tenth of its maximum a complete day, by default).",
             rules=("ZR-9",),
             target=args.creature("who rests", required=True),
             amount=args.integer("how many units", lo=0, hi=99999, required=True),
             unit=args.choice("the unit of time", *UNIT_SECONDS,
                              *(f"{u}s" for u in UNIT_SECONDS), default="hour"))
    def do_rest(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Rest outside turn-by-turn play: Health comes back as ruling ZR-9 says."""
        if state.in_combat:
            raise IllegalCommand("nobody rests in turn-by-turn play", rule="ZR-9")
        target = state.entity_of(command.a.target, Creature)
        seconds = seconds_in(command.a.amount, command.a.unit)
        if self.ruling_is(state, "ZR-9", "tenth-a-day"):
            days = seconds // UNIT_SECONDS["day"]
            gain = days * max(target.health_max // 10, 1)
        elif self.ruling_is(state, "ZR-9", "full-a-night"):
            gain = target.health_max if seconds >= NIGHT_HOURS * 3600 else 0
        else:
            gain = 0
        health = min(target.health + gain, target.health_max)
        if health <= target.health:
            return []
        events = [Event("rested", {"target": target.id, "seconds": seconds,
                                   "health": health, "regained": health - target.health})]
        if target.down and health > 0:
            events.append(Event("condition_removed", {"target": target.id, "name": "down",
                                                      "why": "rested"}))
        return events

    @event("{target} rests and regains {regained} Health[ (now {health})].",
           target=args.creature("who rests"), seconds=args.integer("seconds of rest"),
           health=args.integer("Health after"), regained=args.integer("Health regained"))
    def apply_rested(self, state: EncounterState, data: payloads.Rested) -> None:
        state.entity_of(data["target"], Creature).health = data["health"]
