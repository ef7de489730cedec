"""What the realms rules keep true of every state (``core/invariants.py``): death and Dying
follow Health and Exhaustion, AP and Energy within their bounds, conditions at the levels
they take, no turn ended in another's space, and riders on mounts present."""

from __future__ import annotations

from collections.abc import Iterator

from mypy_extensions import mypyc_attr

from ...core import EncounterState, Event
from ...core.invariants import invariant
from ...core.model import entity_at
from ...dice import DiceSource
from .energy import EnergyRules  # the topic below (a chain)
from .model import RealmsCreature, conditions_catalogue


def _creatures(state: EncounterState) -> list[RealmsCreature]:
    return [e for e in state.entities.values() if isinstance(e, RealmsCreature)]


@mypyc_attr(allow_interpreted_subclasses=True)
class Invariants(EnergyRules):
    """The realms ruleset's invariants, and what keeps them true after the GM sets a value
    (``settle``: Dying and death) or removes a creature (``departures``: its riders)."""

    def settle(self, state: EncounterState, events: list[Event],
               dice: DiceSource) -> list[Event]:
        """What follows from a value the GM set: a creature at 0 Health or below is Dying,
        or dead (R-DY-1, R-DTH-1), as damage would leave it."""
        after = self.lookahead(state, events)
        out: list[Event] = []
        for me in _creatures(after):
            if me.health <= 0 and not (me.dead or me.unsummoned or me.dying):
                out += self.consequences(after, me.id, me.health, dice)
        return out

    def departures(self, state: EncounterState, who: str) -> list[Event]:
        """A mount leaving the encounter leaves its riders on the ground where they are
        (R-MNT-1: dismounted, no movement spent)."""
        return [Event("dismounted", {"actor": me.id, "move_actions": 0, "at": None})
                for me in _creatures(state) if me.mounted_on == who and me.id != who]

    @invariant("R-DTH-1", "a creature at −(maximum Health) or below is dead (AR-5); one "
               "above 10 Exhaustion too (R-DTH-2)", after="command")
    def holds_death(self, state: EncounterState) -> Iterator[str]:
        for me in _creatures(state):
            if me.dead:
                continue
            if me.health <= -me.health_max:
                yield f"{me.id} has {me.health} Health (maximum {me.health_max}) and lives"
            catalogue = conditions_catalogue()
            for cond in me.conditions:  # R-DTH-2: above its ``most`` (Exhausted 10) it dies
                entry = catalogue.get(cond.name)
                if entry is not None and entry.most is not None and cond.level > entry.most:
                    yield f"{me.id} is at {cond.name.capitalize()} {cond.level} and lives"

    @invariant("R-DY-1", "a living creature at 0 Health or below is Dying (R-DY-5: until "
               "healed above 0; the GM may give Dying by hand)", after="command")
    def holds_dying(self, state: EncounterState) -> Iterator[str]:
        for me in _creatures(state):
            if not (me.dead or me.unsummoned) and me.health <= 0 and not me.dying:
                yield f"{me.id} has {me.health} Health and is not Dying"

    @invariant("R-AP-1", "AP and Energy never below 0; Energy at most its maximum")
    def holds_points(self, state: EncounterState) -> Iterator[str]:
        for me in _creatures(state):
            if me.ap < 0:
                yield f"{me.id} has {me.ap} AP"
            if not 0 <= me.energy <= max(me.energy_max, 0):
                yield f"{me.id} has {me.energy} Energy (maximum {me.energy_max})"
        for who, economy in state.economy.items():
            if isinstance(economy, dict) and int(economy.get("ap", 0)) < 0:
                yield f"{who}'s turn has {economy['ap']} AP left"

    @invariant("R-CON-4", "a condition that takes no level is at level 1")
    def holds_levels(self, state: EncounterState) -> Iterator[str]:
        catalogue = conditions_catalogue()
        for me in _creatures(state):
            for cond in me.conditions:
                entry = catalogue.get(cond.name)
                if entry is not None and not entry.leveled and cond.level != 1:
                    yield f"{me.id}'s {cond.name} is at level {cond.level}"

    @invariant("R-SIZ-5", "no creature ends its turn in another's space, unless that one "
               "fills more than double its spaces or one rides the other", after="turn_end")
    def holds_own_space(self, state: EncounterState, who: str) -> Iterator[str]:
        me = entity_at(state.entities, who)
        if not isinstance(me, RealmsCreature) or me.position is None or me.mounted_on \
                or me.dead or me.unsummoned:
            return
        mine = set(me.squares())
        for other in _creatures(state):
            if (other.id == me.id or other.position is None or other.dead
                    or other.mounted_on == me.id or other.spaces > 2 * me.spaces):
                continue
            if mine & set(other.squares()):
                yield f"{me.id} ended its turn in {other.id}'s space"

    @invariant("R-MNT-1", "a rider's mount is in the encounter")
    def holds_links(self, state: EncounterState) -> Iterator[str]:
        for me in _creatures(state):
            if me.mounted_on is not None and me.mounted_on not in state.entities:
                yield f"{me.id} rides {me.mounted_on!r}, who is not in the encounter"
