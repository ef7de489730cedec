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

from collections.abc import Iterator
from typing import cast

from ...core import Command, EncounterState, Entity, Ruleset
from ...rulesets.zones.model import Creature, engaged
from ..hooks import STANDING, register_outcomes
from ..policy import register_policy
from .common import accepted, first_accepted

COVER = "moderate"
"""The cover environment (``cover.toml``) a shooter is assumed to find where it stands."""


def status(state: EncounterState, entity: Entity) -> str:
    """``down`` at 0 health or less (or with a ``down`` condition), else standing."""
    return "down" if defeated(state, entity) else STANDING


def defeated(state: EncounterState, entity: Entity) -> bool:
    """At 0 health or less, or with a ``down`` condition (asked after every command)."""
    if not isinstance(entity, Creature):
        return False
    if entity.health <= 0:
        return True
    return any(cond.name == "down" for cond in entity.conditions)


register_outcomes("zones", defeated=defeated, status=status)


def _standing_enemies(state: EncounterState, me: Creature) -> list[Creature]:
    return [e for e in state.entities.values()
            if isinstance(e, Creature) and e.side is not None and e.side != me.side
            and not defeated(state, e)]


def _most_wounded(candidates: list[Creature]) -> Creature | None:
    best: Creature | None = None
    for entity in candidates:
        if best is None or entity.health < best.health:
            best = entity
    return best


def _arms(me: Creature) -> tuple[list[str], str | None]:
    """The creature's shots (competent ranged weapons that hit one target, most damage
    first) and its melee weapon of most damage (the first listed among equals).
    ``Creature.weapon`` caches each weapon, so this is a short loop."""
    shots = []
    best: tuple[int, str] | None = None
    for name in me.weapons:
        weapon = me.weapon(name)
        if (weapon.kind in ("ranged", "thrown") and name in me.competent and not weapon.aoe
                and not weapon.zaoe and weapon.damage > 0):
            shots.append((-weapon.damage, name))
        if weapon.kind == "melee" and (best is None or weapon.damage > best[0]):
            best = (weapon.damage, name)
    return [name for _, name in sorted(shots)], best[1] if best else None


@register_policy("cover", ruleset="zones", default=True)
class TakeCoverAndShoot:
    """Shooters take cover and shoot the most wounded enemy with their best accepted
    weapon; melee fighters close in and melee it."""

    def choose(self, state: EncounterState, actor: Entity,
               ruleset: Ruleset) -> Iterator[Command]:
        me = state.entities.get(actor.id)
        if not isinstance(me, Creature) or defeated(state, me):
            return
        foes = _standing_enemies(state, me)
        target = _most_wounded(foes)
        if target is None:
            return
        close = [e for e in foes if engaged(me, e)]
        shots, melee = _arms(me)
        if shots:
            if not close and not me.has("cover"):
                cover = Command("cover", me.id, {"environment": COVER})
                if accepted(ruleset, state, cover):
                    yield cover
            shot = first_accepted(ruleset, state, [
                Command("attack", me.id, {"target": target.id, "weapon": name})
                for name in shots])
            if shot is not None:
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
