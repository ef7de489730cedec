"""What the Polemos rules keep true of every state (``core/invariants.py``): the status
conditions and defeat that follow a creature's values, initiative only in turn-by-turn play,
sustained conditions with a sustainer, and SP, FP, stress, vitality and points within their
bounds."""

from __future__ import annotations

from collections.abc import Iterator

from mypy_extensions import mypyc_attr

from ...core import EncounterState, Event
from ...core.invariants import invariant
from ...core.model import entity_at
from ...dice import DiceSource
from .damage import DamageRules  # the topic below (a chain)
from .model import Creature


def _creatures(state: EncounterState) -> list[Creature]:
    return [e for e in state.entities.values() if isinstance(e, Creature)]


@mypyc_attr(allow_interpreted_subclasses=True)
class Invariants(DamageRules):
    """The Polemos ruleset's invariants, and ``settle``, which keeps the first of them true
    after the GM sets a value."""

    def settle(self, state: EncounterState, events: list[Event],
               dice: DiceSource) -> list[Event]:
        """What follows from a value the GM set: the status conditions and defeat of
        :meth:`_consequences` (0 SP: physical fatigue, P-FAT-3)."""
        return self._consequences(state, events)

    @invariant("P-FAT-2", "what follows from a creature's values is settled after each "
               "command: fatigue, physical and mental fatigue and stress conditions "
               "(P-FAT-2, P-FAT-3, P-STS-4), defeat (POL-1) and the end of sustained "
               "conditions of a sustainer out cold (P-CON-7)", after="command")
    def holds_status_settled(self, state: EncounterState) -> Iterator[str]:
        for event in self._consequences_in(state, state):
            yield f"{event.type} {event.data} is owed"

    @invariant("P-ORD-3", "initiative values exist only in turn-by-turn play (kept until it "
               "ends)", after="command")
    def holds_initiative_in_turns(self, state: EncounterState) -> Iterator[str]:
        if state.initiative and not state.in_combat:
            yield f"initiative {state.initiative} outside turn-by-turn play"

    @invariant("P-CON-7", "a sustained condition's sustainer is in the encounter")
    def holds_sustainer_present(self, state: EncounterState) -> Iterator[str]:
        for entity in state.entities.values():
            for cond in entity.conditions:
                by = cond.duration.by
                if cond.duration.kind == "sustained" and by is not None \
                        and by not in state.entities:
                    yield f"{entity.id}'s {cond.name} is sustained by {by!r}, who is gone"

    @invariant("P-FAT-5", "SP and FP at most their maximums; stress, critical damage points "
               "and MP never below 0, MP at most its maximum; each body area's vitality at "
               "most its maximum")
    def holds_bounds(self, state: EncounterState) -> Iterator[str]:
        for me in _creatures(state):
            if me.sp > me.sp_max:
                yield f"{me.id} has {me.sp} SP, above its {me.sp_max}"
            if me.fp > me.fp_max:
                yield f"{me.id} has {me.fp} FP, above its {me.fp_max}"
            if me.stress < 0:
                yield f"{me.id} has {me.stress} stress"
            if me.critical_points < 0:
                yield f"{me.id} has {me.critical_points} critical damage points"
            if me.mp < 0 or (me.mp_max and me.mp > me.mp_max):
                yield f"{me.id} has {me.mp} MP (maximum {me.mp_max})"
            for name, area in me.areas.items():
                if area.vitality > area.vitality_max:
                    yield f"{me.id}'s {name} has {area.vitality} vitality, above its " \
                          f"{area.vitality_max}"

    @invariant("P-TGT-2", "what carries a thing or has it installed is in the encounter, "
               "and no collection holds itself")
    def holds_collections(self, state: EncounterState) -> Iterator[str]:
        for me in _creatures(state):
            seen = {me.id}
            holder = me.carried_by or me.installed_in
            while holder is not None:
                found = entity_at(state.entities, holder)
                if not isinstance(found, Creature):
                    yield f"{me.id} is held by {holder!r}, who is gone"
                    break
                if found.id in seen:
                    yield f"{me.id} is part of a collection that holds itself ({found.id})"
                    break
                seen.add(found.id)
                holder = found.carried_by or found.installed_in
