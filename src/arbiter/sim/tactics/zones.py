"""Tactics for the zones ruleset (zones, groups and engagements; roll-under attacks; cover).

``cover`` (the default) plays a creature's turn with zones' own commands, asking the rules
before each one (``ZonesRuleset.check``: the answer of ``decide``, checking an attack up to
its first roll), so it offers only what they accept:

1. a creature that is down does nothing;
2. the target is the most wounded enemy still standing (least health; ties: the first
   added);
3. a shooter (a competent ranged weapon that is not an area weapon) takes cover first when
   it is not in cover and no enemy is engaged with it (a slowing minor action that adds the
   cover's bonus against drive: the ruleset rewards it, Z-COV-*; in melee cover would be a
   disadvantage; the policy assumes ``moderate`` cover is at hand, :data:`COVER`), then
   shoots the target with the weapon of most damage that the rules accept at that range
   (ammo, range bands, engagement range under AZ-7);
4. otherwise (no shot accepted, or a melee fighter) it melee-attacks the most wounded enemy it is
   engaged with, or moves into the target's engagement and melee-attacks it (melee is a major
   action that is not slowing, so moving first is allowed, ZR-7).

The outcomes: a creature at 0 health or less is ``down`` (zones kills nobody). Damage is the
generic reading: every hit, area attacks included, has a ``damaged`` event per target with
its ``taken`` (the ``attacked`` event repeats it, and is not counted twice).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, cast

from ...core import Command, EncounterState, Entity, Event, Ruleset
from ...core.copying import clone
from ...core.model import entity_at
from ...rulesets.zones.model import Creature
from ..hooks import DamageRecord, generic_damage, register_outcomes
from ..policy import register_policy
from .common import accepted

COVER = "moderate"
"""The cover environment (``cover.toml``) a shooter is assumed to find where it stands."""


def defeated(state: EncounterState, entity: Entity) -> bool:
    """Out of the fight: the ruleset's own answer (``Turns.is_down``: the creature's
    ``down``), asked here without a call through the ruleset."""
    return isinstance(entity, Creature) and entity.down


def damage(command: Command, events: list[Event]) -> Iterable[DamageRecord]:
    """The generic reading (``generic_damage``), asked only when some event says what was
    ``taken``: most commands (turns, moves, cover, misses) deal none."""
    for event in events:
        if "taken" in event.data:
            return generic_damage(command, events)
    return ()


register_outcomes("zones", damage=damage)


def _target_and_close(state: EncounterState,
                      me: Creature) -> tuple[Creature | None, list[Creature]]:
    """The most wounded enemy still standing (least health; ties: the first added) and the
    standing enemies engaged with ``me``, in the order they were added: one pass over the
    creatures, once per turn."""
    side, zone, engagement = me.side, me.zone, me.engagement
    target: Creature | None = None
    close: list[Creature] = []
    for entity in state.entities.values():
        if not isinstance(entity, Creature) or entity.side is None or entity.side == side:
            continue
        health = entity.health
        if health <= 0 or (entity.conditions and entity.down):  # defeated(), inline
            continue
        if target is None or health < target.health:
            target = entity
        if entity.zone == zone and entity.engagement == engagement:  # engaged(me, entity)
            close.append(entity)
    return target, close


def _most_wounded(candidates: list[Creature]) -> Creature | None:
    best: Creature | None = None
    for entity in candidates:
        if best is None or entity.health < best.health:
            best = entity
    return best


Arms = tuple[tuple[tuple[str, int], ...], str | None]
"""A creature's shots (weapon name and rounds a shot uses) and its melee weapon."""

_ARMS: dict[str, tuple[dict[str, dict[str, Any]], list[str], Arms]] = {}
"""Each creature's arms (:func:`_arms`) by its id, with a copy of the weapon specs and the
competences they were worked out from: asked every turn, and a pure function of both."""


def _arms(me: Creature) -> Arms:
    """The creature's shots (competent ranged weapons that hit one target, most damage
    first, with the rounds a shot uses) and its melee weapon of most damage (the first
    listed among equals).

    Kept per creature while its specs and competences are unchanged: comparing them with
    the copy kept costs less than asking ``Creature.weapon`` for each weapon every turn,
    which for each new run's copy of the specs builds its key from their text (an override
    may change a spec in place, so they are compared, not identified). Measured on
    bench/sim.py's zones-4v4 with callgrind: 50.0M instructions per encounter without it,
    45.5M with it (-9%)."""
    weapons, competent = me.weapons, me.competent
    cached = _ARMS.get(me.id)
    if cached is not None and cached[1] == competent and cached[0] == weapons:
        return cached[2]
    shots = []
    best: tuple[int, str] | None = None
    for name in weapons:
        weapon = me.weapon(name)
        if (weapon.kind in ("ranged", "thrown") and name in competent and not weapon.aoe
                and not weapon.zaoe and weapon.damage > 0):
            shots.append((-weapon.damage, name, weapon.ammo_per_shot))
        if weapon.kind == "melee" and (best is None or weapon.damage > best[0]):
            best = (weapon.damage, name)
    arms = tuple((name, cost) for _, name, cost in sorted(shots)), best[1] if best else None
    if len(_ARMS) >= 4096:
        _ARMS.clear()
    _ARMS[me.id] = (clone(weapons), list(competent), arms)
    return arms


@register_policy("cover", ruleset="zones", default=True)
class TakeCoverAndShoot:
    """Shooters take cover and shoot the most wounded enemy with their best accepted
    weapon; melee fighters close in and melee it."""

    def choose(self, state: EncounterState, actor: Entity,
               ruleset: Ruleset) -> Iterator[Command]:
        me = entity_at(state.entities, actor.id)
        if not isinstance(me, Creature) or defeated(state, me):
            return
        target, close = _target_and_close(state, me)
        if target is None:
            return
        shots, melee = _arms(me)
        if shots:
            if not close and not me.has("cover"):
                cover = Command("cover", me.id, {"environment": COVER})
                if accepted(ruleset, state, cover):
                    yield cover
            ammo = me.ammo
            for name, cost in shots:  # most damage first; built one at a time, as asked
                left = ammo.get(name)
                if left is not None and left < cost:
                    # the rules refuse a shot without its rounds (Z-RA-3, plan_shot): not
                    # asked (a sixth of the checks, each planning a whole shot; callgrind
                    # on zones-4v4: 46.3M instructions per encounter asking, 45.5M not)
                    continue
                shot = Command("attack", me.id, {"target": target.id, "weapon": name})
                if accepted(ruleset, state, shot):
                    yield shot
                    return
        if melee is None:
            return
        if close:
            victim = _most_wounded(close)
            assert victim is not None
            hit = Command("melee", me.id, {"target": victim.id, "weapon": melee})
            if accepted(ruleset, state, hit):
                yield hit
            return
        move = Command("move", me.id, {"zone": target.zone, "group": me.id,
                                       "engagement": target.engagement})
        if not accepted(ruleset, state, move):
            return
        yield move
        me = cast(Creature, state.entities[me.id])
        target = cast(Creature, state.entities[target.id])
        hit = Command("melee", me.id, {"target": target.id, "weapon": melee})
        if accepted(ruleset, state, hit):
            yield hit
