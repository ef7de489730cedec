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

from mypy_extensions import mypyc_attr

from ..core import Command, EncounterState, Entity, Event
from ..core.outcomes import OUT_OF_FIGHT, STANDING, STATUSES, health_of
from ..core.outcomes import generic_status as _generic_status

DamageRecord = tuple[str | None, str, int]
"""One instance of damage: who dealt it (None when nobody did), who took it, how much."""

Defeated = Callable[[EncounterState, Entity], bool]
Status = Callable[[EncounterState, Entity], str]
Damage = Callable[[Command, list[Event]], Iterable[DamageRecord]]


def generic_status(state: EncounterState, entity: Entity) -> str:
    """The kernel's reading of the common names (``core/outcomes.py``)."""
    return _generic_status(entity)


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


@mypyc_attr(native_class=False)  # a frozen dataclass of functions: a plain class
@dataclass(frozen=True, slots=True)
class Outcomes:
    """The three questions the simulator asks a ruleset."""

    defeated: Defeated = generic_defeated
    status: Status = generic_status
    damage: Damage = generic_damage


GENERIC = Outcomes()
_OUTCOMES: dict[str, Outcomes] = {}
_RESOLVED: dict[str, Outcomes] = {}
"""What :func:`outcomes_for` answered, by ruleset (forgotten when one registers again)."""


def _not_standing(status: Status) -> Defeated:
    """Out of the fight by ``status``: anything but standing. (A function of its own: a
    parameter redefined as a nested function does not compile.)"""

    def defeated(state: EncounterState, entity: Entity) -> bool:
        return status(state, entity) != STANDING

    return defeated


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
        defeated = _not_standing(status)
    outcomes = Outcomes(defeated or generic_defeated, status or generic_status,
                        damage or generic_damage)
    _OUTCOMES[ruleset] = outcomes
    _RESOLVED.pop(ruleset, None)
    return outcomes


def outcomes_for(ruleset: str) -> Outcomes:
    """The simulator's three questions for ``ruleset``: who is out of the fight and what
    became of each creature are the ruleset's own answers (``Ruleset.is_down`` and
    ``status``, the kernel hooks the console and the tactics read too), unless its tactics
    module registered others (``register_outcomes``); the damage dealt is the registered
    reading, else the generic one."""
    found = _RESOLVED.get(ruleset)
    if found is not None:
        return found
    from ..core import load_ruleset
    from .tactics import load_tactics

    load_tactics(ruleset)
    registered = _OUTCOMES.get(ruleset)
    try:
        rules = load_ruleset(ruleset)
    except Exception:  # not installed: what was registered, else the generic readings
        return registered or GENERIC
    found = Outcomes(
        registered.defeated if registered and registered.defeated is not generic_defeated
        else rules.is_down,
        registered.status if registered and registered.status is not generic_status
        else rules.status,
        registered.damage if registered else generic_damage)
    _RESOLVED[ruleset] = found
    return found


__all__ = ["GENERIC", "OUT_OF_FIGHT", "STANDING", "STATUSES", "Damage", "DamageRecord",
           "Defeated", "Outcomes", "Status", "generic_damage", "generic_defeated",
           "generic_status", "health_of", "outcomes_for", "register_outcomes"]
