"""What became of a creature: standing, down (out of the fight), dying or dead.

The kernel asks it of a ruleset (:meth:`~arbiter.core.ruleset.Ruleset.status`, with
``is_down`` and ``is_dead``), and everything that needs it reads it there: the simulator's
tally and end of a fight, its tactics, the console's labels (``server/views.py``). A ruleset
answers by its own rules; the default below reads the common names, for a ruleset that has
none of its own (a ruleset in progress, the demo)."""

from __future__ import annotations

from .model import Entity

STANDING = "standing"
STATUSES = (STANDING, "down", "dying", "dead")
"""What became of a creature, from best to worst."""

OUT_OF_FIGHT = frozenset({"dead", "dying", "unconscious", "down", "defeated", "incapacitated",
                          "fled", "destroyed", "out"})
"""Condition names that, by default, put a creature out of the fight."""


def health_of(entity: Entity) -> int | None:
    """A creature's health by the common names (an attribute or a stat), or None."""
    value = getattr(entity, "health", None)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    found = entity.stats.get("health")
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def generic_status(entity: Entity) -> str:
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


__all__ = ["OUT_OF_FIGHT", "STANDING", "STATUSES", "generic_status", "health_of"]
