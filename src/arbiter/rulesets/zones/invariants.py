"""What the zones rules keep true of every state (``core/invariants.py``): touches that cover
and distance allow, cover only where it can be used, grapples held by both sides, and Health,
ammunition and altitude within their bounds."""

from __future__ import annotations

from collections.abc import Iterator

from mypy_extensions import mypyc_attr

from ...core import EncounterState, Event
from ...core.invariants import invariant
from ...core.model import entity_at
from ...dice import DiceSource
from .checks import Checks  # the topic below (a chain)
from .model import ALTITUDE, Creature, creatures, engaged, touch_forbidden
from .movement import touches_ended

HIGHEST = max(ALTITUDE.values())


@mypyc_attr(allow_interpreted_subclasses=True)
class Invariants(Checks):
    """The zones ruleset's invariants, and what keeps them true after the GM sets a value
    (``settle``) or removes a creature (``departures``)."""

    def settle(self, state: EncounterState, events: list[Event],
               dice: DiceSource) -> list[Event]:
        """What follows from a value the GM set: the touches that cover or distance now
        forbid end (Z-COV-3, ZR-10)."""
        return touches_ended(self, state, events)

    def departures(self, state: EncounterState, who: str) -> list[Event]:
        """A creature leaving the encounter ends its grapple for its partner and every
        touch on it (Z-RA-8, Z-AOE-3)."""
        out: list[Event] = []
        for other in creatures(state):
            if other.id == who:
                continue
            if other.grappling() == who:
                out.append(Event("condition_removed", {"target": other.id, "name": "grappling",
                                                       "why": f"{who} left"}))
            if who in other.touching:
                out.append(Event("touch_ended", {"actor": other.id, "target": who,
                                                 "why": f"{who} left"}))
        return out

    @invariant("Z-COV-3", "no creature in cover touches an ally that is not", after="command")
    def holds_touch_and_cover(self, state: EncounterState) -> Iterator[str]:
        for toucher in creatures(state):
            for name in toucher.touching:
                touched = entity_at(state.entities, name)
                if isinstance(touched, Creature) and touch_forbidden(toucher, touched):
                    yield f"{toucher.id} is in cover and touches {name}, an ally not in cover"

    @invariant("ZR-10", "a touch is between creatures present (in one engagement when the "
               "ruling says a touch needs it)", after="command")
    def holds_touch_in_reach(self, state: EncounterState) -> Iterator[str]:
        near = self.ruling_is(state, "ZR-10", "engaged")
        for toucher in creatures(state):
            for name in toucher.touching:
                touched = entity_at(state.entities, name)
                if not isinstance(touched, Creature):
                    yield f"{toucher.id} touches {name!r}, who is not in the encounter"
                elif near and not engaged(toucher, touched):
                    yield f"{toucher.id} touches {name} from another engagement"

    @invariant("Z-COV-2", "no creature uses cover while grappling, flying or mounted, nor "
               "at 25 WGT or more behind cover not improved for it (Z-COV-11)",
               after="command")
    def holds_cover_usable(self, state: EncounterState) -> Iterator[str]:
        for who in creatures(state):
            cover = who.condition("cover")
            if cover is None:
                continue
            for why, cannot in (("grappling", who.has("grappling")),
                                ("flying", who.flying or who.altitude > 0),
                                ("mounted", bool(who.mount))):
                if cannot:
                    yield f"{who.id} is in cover while {why}"
            if who.heavy and not cover.data.get("improved"):
                yield f"{who.id} ({who.stat('WGT')} WGT) is behind cover not improved for it"

    @invariant("Z-RA-8", "a grapple holds both creatures, each naming the other",
               after="command")
    def holds_grapples_mutual(self, state: EncounterState) -> Iterator[str]:
        for who in creatures(state):
            other = who.grappling()
            if other is None:
                continue
            partner = entity_at(state.entities, other)
            if not isinstance(partner, Creature):
                yield f"{who.id} grapples {other!r}, who is not in the encounter"
            elif partner.grappling() != who.id:
                yield f"{who.id} grapples {other}, but {other} grapples {partner.grappling()}"

    @invariant("ZR-2", "Health at most its maximum; ammunition never below 0; altitude "
               "from the ground to long range")
    def holds_bounds(self, state: EncounterState) -> Iterator[str]:
        for who in creatures(state):
            if who.health > who.health_max:
                yield f"{who.id} has {who.health} Health, above its {who.health_max}"
            for weapon, left in who.ammo.items():
                if left < 0:
                    yield f"{who.id}'s {weapon} has {left} rounds"
            if not 0 <= who.altitude <= HIGHEST:
                yield f"{who.id} is at altitude {who.altitude}"
