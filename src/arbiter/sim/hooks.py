"""What the simulator asks a ruleset that the kernel does not: who can still act, how each
creature ended up, and who dealt how much damage to whom. Who won is the kernel's question
first (``Ruleset.outcome``, what the ruleset's ``side_won`` recorded); who can still act
decides only a fight the ruleset has not (the demo's, or one side out before the rules say).

Each ruleset may register its own :class:`Outcomes` (``register_outcomes``) in its tactics
module (``arbiter.sim.tactics.<ruleset>``); the generic default reads common names:
a ``down`` flag, a ``health`` attribute or stat, and conditions such as ``dead`` or
``unconscious``; damage from the events whose data has ``target`` and a whole ``taken``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..core import Command, EncounterState, Entity, Event

STANDING = "standing"
STATUSES = (STANDING, "down", "dying", "dead")
"""What became of a creature at the end of a run, from best to worst."""

DamageRecord = tuple[str | None, str, int]
"""One instance of damage: who dealt it (None when nobody did), who took it, how much."""

Defeated = Callable[[EncounterState, Entity], bool]
Status = Callable[[EncounterState, Entity], str]
Damage = Callable[[Command, list[Event]], Iterable[DamageRecord]]

OUT_OF_FIGHT = frozenset({"dead", "dying", "unconscious", "down", "defeated", "incapacitated",
                          "fled", "destroyed", "out"})
"""Condition names that, by default, put a creature out of the fight."""


def health_of(entity: Entity) -> int | None:
    """A creature's health by the common names (an attribute or a stat), or None."""
    value = getattr(entity, "health", None)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return entity.stats.get("health")


def generic_status(state: EncounterState, entity: Entity) -> str:
    """``dead`` or ``dying`` by a flag (``entity.dead is True``) or a condition of that name;
    ``down`` when out of the fight by a ``down`` flag, health at or below 0, or a condition
    in :data:`OUT_OF_FIGHT`."""
    names = {c.name.lower() for c in entity.conditions} if entity.conditions else set()
    if getattr(entity, "dead", None) is True or "dead" in names or "destroyed" in names:
        return "dead"
    if getattr(entity, "dying", None) is True or "dying" in names:
        return "dying"
    down = getattr(entity, "down", None)
    if isinstance(down, bool):
        if down:
            return "down"
    else:
        health = health_of(entity)
        if health is not None and health <= 0:
            return "down"
    if names & OUT_OF_FIGHT:
        return "down"
    return STANDING


def generic_defeated(state: EncounterState, entity: Entity) -> bool:
    """Out of the fight: any status but standing."""
    return generic_status(state, entity) != STANDING


def generic_damage(command: Command, events: list[Event]) -> Iterable[DamageRecord]:
    """Damage from the events of one command whose data names a ``target`` and a whole
    number ``taken``. When some of them are ``damaged`` events, only those count (a ruleset
    may repeat the amount in its ``attacked`` event). The dealer is the event's ``actor`` or
    ``source``, else the command's actor (unless it is the target)."""
    found = [e for e in events if type(e.data.get("taken")) is int and e.data["taken"]
             and isinstance(e.data.get("target"), str)]
    if not found:
        return ()
    if len(found) > 1 and any(e.type == "damaged" for e in found):
        found = [e for e in found if e.type == "damaged"]
    out = []
    for event in found:
        data = event.data
        target = data["target"]
        dealer = data.get("actor") or data.get("source")
        if not isinstance(dealer, str):
            dealer = command.actor if command.actor != target else None
        out.append((dealer, target, data["taken"]))
    return out


@dataclass(frozen=True, slots=True)
class Outcomes:
    """The three questions the simulator asks a ruleset."""

    defeated: Defeated = generic_defeated
    status: Status = generic_status
    damage: Damage = generic_damage


GENERIC = Outcomes()
_OUTCOMES: dict[str, Outcomes] = {}


def register_outcomes(
    ruleset: str,
    *,
    defeated: Defeated | None = None,
    status: Status | None = None,
    damage: Damage | None = None,
) -> Outcomes:
    """Override some of the generic answers for ``ruleset``; the others stay generic.

    When only ``status`` is given, ``defeated`` follows it (anything but standing).
    """
    if defeated is None and status is not None:
        chosen = status

        def defeated(state: EncounterState, entity: Entity) -> bool:
            return chosen(state, entity) != STANDING

    outcomes = Outcomes(defeated or generic_defeated, status or generic_status,
                        damage or generic_damage)
    _OUTCOMES[ruleset] = outcomes
    return outcomes


def outcomes_for(ruleset: str) -> Outcomes:
    """The outcomes registered for ``ruleset`` (loading its tactics module), else generic."""
    from .tactics import load_tactics

    load_tactics(ruleset)
    return _OUTCOMES.get(ruleset, GENERIC)
