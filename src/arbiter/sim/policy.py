"""Tactics: who does what on their turn, as pluggable policies registered by ruleset name.

A policy answers one question, ``choose(state, actor, ruleset)``: the commands ``actor``
plays this turn, in order. The simulator decides and applies them with the ruleset's own
``decide``/``evolve`` (a refused command ends the turn and is counted), then plays ``next``.
Policies must be deterministic functions of the state: all chance comes from the dice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Protocol, runtime_checkable

from ..core import Command, EncounterState, Entity, Ruleset
from ..core.model import entity_at
from .hooks import health_of, outcomes_for

ANY = "*"
"""The ruleset name under which generic policies (that work for any ruleset) register."""


@runtime_checkable
class Policy(Protocol):
    """Chooses the commands of one creature's turn."""

    def choose(
        self, state: EncounterState, actor: Entity, ruleset: Ruleset
    ) -> Iterable[Command]:
        """The commands ``actor`` plays this turn (``next`` is added by the simulator).

        A list, or any iterable: it is consumed one command at a time, each decided and
        applied before the next is asked for, so a generator can look at the state again.
        """
        ...


PolicyFactory = Callable[[], Policy]
_POLICIES: dict[tuple[str, str], PolicyFactory] = {}
_DEFAULTS: dict[str, str] = {}
_DOCS: dict[tuple[str, str], str] = {}


def register_policy(
    name: str, ruleset: str = ANY, *, default: bool = False
) -> Callable[[PolicyFactory], PolicyFactory]:
    """Register a policy class (or factory) as ``name`` for ``ruleset`` (``*``: any ruleset).

    ``default=True`` makes it what the sides of that ruleset play unless a file names another.
    """

    def register(factory: PolicyFactory) -> PolicyFactory:
        _POLICIES[(ruleset, name)] = factory
        _DOCS[(ruleset, name)] = ((factory.__doc__ or "").strip().splitlines() or [""])[0]
        if default:
            _DEFAULTS[ruleset] = name
        return factory

    return register


def policy_names(ruleset: str) -> dict[str, str]:
    """Every policy a side of ``ruleset`` may play, with the first line of its description."""
    from .tactics import load_tactics

    load_tactics(ruleset)
    out = {name: doc for (rs, name), doc in _DOCS.items() if rs == ANY}
    out.update({name: doc for (rs, name), doc in _DOCS.items() if rs == ruleset})
    return dict(sorted(out.items()))


def default_policy_name(ruleset: str) -> str:
    from .tactics import load_tactics

    load_tactics(ruleset)
    return _DEFAULTS.get(ruleset, _DEFAULTS[ANY])


def get_policy(ruleset: str, name: str | None = None) -> Policy:
    """The policy ``name`` for ``ruleset`` (its default when None); KeyError names the known."""
    from .tactics import load_tactics

    load_tactics(ruleset)
    name = name or default_policy_name(ruleset)
    factory = _POLICIES.get((ruleset, name)) or _POLICIES.get((ANY, name))
    if factory is None:
        known = ", ".join(policy_names(ruleset))
        raise KeyError(f"no policy {name!r} for {ruleset} (policies: {known})")
    return factory()


# -- helpers for policies ----------------------------------------------------------------
def enemies(state: EncounterState, actor: Entity, ruleset: Ruleset) -> list[Entity]:
    """Creatures of other sides still able to act, in the order they were added."""
    defeated = outcomes_for(ruleset.name).defeated
    return [e for e in state.entities.values()
            if e.kind == "creature" and e.side != actor.side and not defeated(state, e)]


def allies(state: EncounterState, actor: Entity, ruleset: Ruleset) -> list[Entity]:
    """Creatures of the actor's side (the actor included), whatever their state."""
    return [e for e in state.entities.values() if e.kind == "creature" and e.side == actor.side]


def most_wounded(candidates: list[Entity]) -> Entity | None:
    """The candidate with the least health (ties: the first added), or None."""
    best: Entity | None = None
    best_health = 0
    for entity in candidates:
        health = health_of(entity)
        health = health if health is not None else 0
        if best is None or health < best_health:
            best, best_health = entity, health
    return best


# -- generic policies --------------------------------------------------------------------
MAX_COMMANDS = 8
"""The most commands the generic policy tries in one turn."""


def has_budget(economy: object) -> bool:
    """Whether a turn's economy (``state.economy[actor]``) has anything left to spend: some
    positive count in it. A ruleset's economy is its own; this is the generic guess."""
    if not isinstance(economy, dict):
        return True
    return any(type(v) is int and v > 0 for v in economy.values())


@register_policy("default", default=True)
class AttackMostWounded:
    """Attack the most wounded enemy still able to act while the turn's economy allows
    (needs an 'attack' command taking a 'target')."""

    def choose(
        self, state: EncounterState, actor: Entity, ruleset: Ruleset
    ) -> Iterator[Command]:
        defeated = outcomes_for(ruleset.name).defeated
        for _ in range(MAX_COMMANDS):
            actor = (entity_at(state.entities, actor.id) or actor)
            if defeated(state, actor):
                return
            target = most_wounded(enemies(state, actor, ruleset))
            if target is None:
                return
            before = state.economy.get(actor.id)
            yield Command("attack", actor.id, {"target": target.id})
            after = state.economy.get(actor.id)
            if after == before or not has_budget(after):
                return


@register_policy("passive")
class Passive:
    """Do nothing: end the turn at once (a training dummy, or a side that will not fight)."""

    def choose(
        self, state: EncounterState, actor: Entity, ruleset: Ruleset
    ) -> Iterable[Command]:
        return []
