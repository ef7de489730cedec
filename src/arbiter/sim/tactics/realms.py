"""Tactics for the realms ruleset (Action Points, Dying, companions).

``skirmish`` (the default) plays a creature's turn with realms' own commands:

1. a creature that is dead, unsummoned or Dying does nothing (a Dying creature has 1 AP,
   and every useful action costs 2);
2. an uncommanded companion does nothing: at the end of its turn it dodges with its AP, as
   the rules make it (R-CMP-8);
3. a creature with the ``medicine`` skill first stabilizes a Dying ally below 0 Health that is
   not yet stabilized (2 AP, a Medicine roll against DS 10), the most hurt first;
4. on the grid, a melee fighter beyond its weapon's reach of its target (1 space unless the
   weapon says more, between the nearest squares of the footprints: RLM-11) walks toward
   it first (a path of single steps around other creatures; the rules price it);
5. then it attacks the most wounded enemy still standing (least Health; ties: the first
   added) while it has the AP for an attack; when the walk fell short of that enemy (the AP
   or the way ran out), it attacks the most wounded enemy within reach instead, and with
   none within reach its turn ends.

A move may be refused (terrain or AP): the policy asks the rules first (``decide`` with
throw-away dice) and shortens the path until they accept it. A melee attack out of reach
would be refused too (RLM-11 ``weapon-reach``), so the policy attacks only within reach.
The outcomes follow realms' own words: dead (or unsummoned) is ``dead``, Dying is
``dying``, and both are out of the fight.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import cast

from ...core import Command, EncounterState, Entity, Event, Ruleset
from ...core.model import entity_at
from ...rulesets.realms.model import RealmsCreature, ap_costs, out_of_fight, spaces_between
from ...rulesets.realms.movement import distance
from ..hooks import DamageRecord, register_outcomes
from ..policy import register_policy
from .common import accepted, sign

HURT = frozenset({"damaged", "dying_damage"})


def damage(command: Command, events: list[Event]) -> Iterable[DamageRecord]:
    """Health lost to ``damaged`` events (dealt by the command's actor) and to dying damage
    (dealt by nobody)."""
    out: list[DamageRecord] = []
    for event in events:
        if event.type in HURT:
            data = event.data
            taken = data["taken"]
            if taken:
                target = data["target"]
                dealer = (command.actor if event.type == "damaged" and command.actor != target
                          else None)
                out.append((dealer, target, taken))
    return out


register_outcomes("realms", damage=damage)


def _ap(state: EncounterState, me: RealmsCreature) -> int:
    economy = state.economy.get(me.id)
    return int(economy["ap"]) if economy else me.ap


def _target(state: EncounterState, me: RealmsCreature) -> RealmsCreature | None:
    """The enemy standing with the least Health (ties: the first added)."""
    best: RealmsCreature | None = None
    side = me.side
    for other in state.entities.values():
        if (type(other) is RealmsCreature or isinstance(other, RealmsCreature)) and \
                other.side != side and other.side is not None and not out_of_fight(state, other) \
                and (best is None or other.health < best.health):
            best = other
    return best


def _in_reach(state: EncounterState, ruleset: Ruleset, me: RealmsCreature,
              other: RealmsCreature) -> bool:
    """Whether ``me`` may attack ``other`` with its own weapon where they stand (RLM-11: a
    melee weapon's reach, between the footprints; off the map, ranged, or the GM's reach)."""
    if me.weapon_range != "melee":
        return True
    between = spaces_between(me, other)
    return (between is None or between <= me.weapon_reach
            or not ruleset.ruling_is(state, "RLM-11", "weapon-reach"))


def _target_in_reach(state: EncounterState, ruleset: Ruleset,
                     me: RealmsCreature) -> RealmsCreature | None:
    """The enemy standing within reach with the least Health (ties: the first added)."""
    best: RealmsCreature | None = None
    side = me.side
    for other in state.entities.values():
        if (isinstance(other, RealmsCreature) and other.side != side and other.side is not None
                and not out_of_fight(state, other) and (best is None or other.health < best.health)
                and _in_reach(state, ruleset, me, other)):
            best = other
    return best


def _dying_ally(state: EncounterState, me: RealmsCreature) -> RealmsCreature | None:
    """A Dying ally below 0 Health, not stabilized, not dead: the lowest Health first."""
    best: RealmsCreature | None = None
    for other in state.entities.values():
        if (isinstance(other, RealmsCreature) and other.side == me.side and other.id != me.id
                and not other.dead and not other.unsummoned and not other.stabilized
                and other.health < 0 and other.has("dying")
                and (best is None or other.health < best.health)):
            best = other
    return best


def _path(state: EncounterState, me: RealmsCreature,
          target: RealmsCreature) -> list[list[int]]:
    """Single steps from ``me`` toward ``target`` until within its weapon's reach (RLM-11),
    never onto another creature's squares (straight where the diagonal is taken)."""
    assert me.position is not None
    goal = target.squares()
    taken = {sq for other in state.entities.values()
             if isinstance(other, RealmsCreature) and other.id != me.id and not other.dead
             and other.id != me.mounted_on
             for sq in other.squares()}
    here = list(me.position)
    path: list[list[int]] = []
    for _ in range(64):
        if distance(me.squares(here), goal) <= me.weapon_reach:
            break
        tx = sum(x for x, _ in goal) / len(goal)
        ty = sum(y for _, y in goal) / len(goal)
        dx, dy = sign(round(tx - here[0])), sign(round(ty - here[1]))
        for step in ((dx, dy), (dx, 0), (0, dy)):
            if step == (0, 0):
                continue
            nxt = [here[0] + step[0], here[1] + step[1]]
            if taken.isdisjoint(me.squares(nxt)):
                break
        else:
            break
        here = nxt
        path.append(nxt)
    return path


@register_policy("skirmish", ruleset="realms", default=True)
class Skirmish:
    """Stabilize a Dying ally (with Medicine), walk into reach on the grid, then attack the
    most wounded enemy while the AP last; companions dodge unless commanded."""

    def choose(self, state: EncounterState, actor: Entity,
               ruleset: Ruleset) -> Iterator[Command]:
        me = entity_at(state.entities, actor.id)
        if not isinstance(me, RealmsCreature) or out_of_fight(state, me):
            return
        if me.companion_of is not None and not me.commanded:
            return
        costs = ap_costs(state)
        if "medicine" in me.skills and _ap(state, me) >= costs["stabilize"]:
            ally = _dying_ally(state, me)
            if ally is not None:
                yield Command("stabilize", me.id, {"target": ally.id})
        moved = False
        for _ in range(8):
            me = cast(RealmsCreature, state.entities[actor.id])
            if out_of_fight(state, me) or _ap(state, me) < costs["attack"]:
                return
            target = _target(state, me)
            if target is None:
                return
            if (not moved and me.position is not None and target.position is not None
                    and me.weapon_range == "melee"
                    and distance(me.squares(), target.squares()) > me.weapon_reach):
                moved = True
                path = _path(state, me, target)
                while path:
                    move = Command("move", me.id, {"path": path})
                    if accepted(ruleset, state, move):
                        yield move
                        break
                    path = path[:-1]
                continue
            if not _in_reach(state, ruleset, me, target):
                target = _target_in_reach(state, ruleset, me)
                if target is None:
                    return
            yield Command("attack", me.id, {"target": target.id})
