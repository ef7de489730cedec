"""Initiative, turns and the end of the fight in zones: d20 + SPD (ruling ZR-3), no turn for a
creature out of the fight (ZR-2), what ends at the end of a turn (melee interference, AZ-9;
a ZAoE's bright light, Z-ZAO-10) and the encounter won when one side alone stands."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ...core import DataMap, Deferred, EncounterState, Entity, Event
from ...core import catalogue as args
from ...core.catalogue import event
from ...core.model import entity_at
from ...core.outcomes import STANDING
from ...dice import DiceSource, roll
from . import payloads
from .base import ZonesBase
from .model import Creature, creatures
from .movement import Movement  # the topic below (a chain)

_HIT_EVENTS = frozenset({"damaged", "condition_added", "interfered"})
"""Events of a hit that change no creature's side and no health but a ``damaged`` event's
(``down`` is health at 0 or less): the encounter's end is read from them directly."""


@mypyc_attr(allow_interpreted_subclasses=True)
class Turns(Movement):
    """Initiative (ruling ZR-3), turn ends and the encounter won."""

    def status(self, state: EncounterState, entity: Entity) -> str:
        """``down`` at 0 Health or less, or marked down (ruling ZR-2), else standing:
        zones has no death of its own."""
        return "down" if self.is_down(state, entity) else STANDING

    def is_down(self, state: EncounterState, entity: Entity) -> bool:
        """The creature's own ``down`` (ZR-2)."""
        return isinstance(entity, Creature) and entity.down

    # -- initiative (ruling ZR-3) ---------------------------------------------------------
    def takes_turn(self, state: EncounterState, who: str) -> bool:
        """A creature out of the fight (0 Health, or marked down: ZR-2) gets no turn."""
        found = entity_at(state.entities, who)
        return not (isinstance(found, Creature) and (
            found.health <= 0 or (found.conditions and found.down)))  # .down, asked less

    def roll_initiative(
        self, state: EncounterState, entity: Entity, dice: DiceSource
    ) -> tuple[int, DataMap]:
        """d20 + SPD, highest first (ruling ZR-3; not a roll *on* SPD, so cover stays)."""
        result = roll(f"{self.initiative_dice}+{entity.stat('SPD')}", dice)
        return result.total, Deferred(result.to_json)

    # -- turns ----------------------------------------------------------------------------
    def turn_end_events(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """Melee interference lasts until the end of the creature's turn (AZ-9); bright light
        from an energy ZAoE ends at the end of its attacker's next turn (Z-ZAO-10)."""
        events = []
        entity = entity_at(state.entities, who)
        if isinstance(entity, Creature) and entity.interference:
            events.append(Event("interference_cleared", {"target": who}))
        lights = state.extra.get("lights")
        if lights:
            for zone, light in sorted(lights.items()):
                if light["by"] == who and light["round"] < state.round:
                    events.append(Event("light_faded", {"zone": zone, "by": who}))
        return events

    @event("{target}'s melee interference ends.",
           target=args.creature("who no longer suffers melee interference"))
    def apply_interference_cleared(self, state: EncounterState,
                                   data: payloads.InterferenceCleared) -> None:
        self.creature(state, data["target"]).interference = []

    @event("The bright light that {by}'s ZAoE left in zone {zone} fades.",
           zone=args.text("the zone no longer lit"),
           by=args.creature("the attacker whose energy ZAoE lit it"))
    def apply_light_faded(self, state: EncounterState, data: payloads.LightFaded) -> None:
        lights = state.extra.get("lights")
        if lights is not None and data["zone"] in lights:  # replaced, not changed in place
            state.extra["lights"] = {k: v for k, v in lights.items() if k != data["zone"]}


def aftermath(rules: ZonesBase, state: EncounterState, events: list[Event]) -> list[Event]:
    """The kernel's ``side_won`` when only one side has creatures standing, or none does
    (``winner`` None)."""
    if not events or "winner" in state.extra:
        return []
    health: dict[str, int] = {}
    downed: set[str] = set()
    for e in events:  # one pass (every hit asks)
        kind = e.type
        if kind not in _HIT_EVENTS:
            break
        if kind == "damaged":
            health[e.data["target"]] = e.data["health"]
        elif kind == "condition_added" and e.data["condition"].get("name") == "down":
            downed.add(e.data["target"])
    else:
        # only health and the down condition change, and they are in the events: no
        # lookahead needed; and once creatures of two sides stand, nobody has won
        standing: str | None = None
        all_sides: set[str] = set()
        for c in state.entities.values():  # creatures(state), without the list
            if not isinstance(c, Creature):
                continue
            side = c.side
            if side is None:
                continue
            all_sides.add(side)
            if health.get(c.id, c.health) > 0 and c.id not in downed and not (
                    c.conditions and c.has("down")):
                if standing is None:
                    standing = side
                elif side != standing:
                    return []
        return _won(rules, set() if standing is None else {standing}, all_sides)
    after = rules.lookahead(state, events)
    return _won(rules, {c.side for c in creatures(after) if not c.down and c.side is not None},
                {c.side for c in creatures(after) if c.side is not None})


def _won(rules: ZonesBase, sides: set[str], all_sides: set[str]) -> list[Event]:
    """``side_won`` when creatures of more than one side are in the fight and at most one
    side still stands."""
    if len(all_sides) > 1 and len(sides) <= 1:
        winner = next(iter(sides)) if sides else None
        return [rules.side_won(winner)]
    return []
