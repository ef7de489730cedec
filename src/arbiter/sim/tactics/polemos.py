"""Tactics for Polemos (2D6 skill attacks against defense, body areas, critical points).

``aim`` (the default) plays a creature's turn with Polemos' own commands, asking the rules
before each one (the ruleset's ``check``: the checks ``decide`` makes before rolling) so that
it offers only what they accept:

1. a creature that is down does nothing;
2. the target is the most wounded enemy still standing: the lowest vitality on a vital area
   (a vital area at 0 puts a creature down, ruling POL-1), then the lowest total vitality;
   ties: the first added;
3. the best attack is the weapon and damage type with the highest expected damage (the
   ruleset's exact ``odds``: hit chance × mean damage) among those the rules accept now
   (range, reach, line of sight, the economy, one ``attack`` a round, P-ACT-1);
4. with no attack accepted on the grid, it moves straight toward the target (up to its
   speed, shorter until the rules accept the move: walls, POL-5) and tries again;
5. after a hit it spends its critical damage points (P-CDP-7): ``daze`` (2 points) while it
   can, then ``fatigue-wounds`` (1 point).

The generic outcomes fit Polemos: ``down`` (a flag) is down, and the ``damaged`` events name
their ``target`` and ``taken``; ``defeated`` only looks at the flag first.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

from ...core import Command, EncounterState, Entity, Ruleset
from ...core.memo import kept
from ...core.model import entity_at
from ...rulesets.polemos.attacks import Expected, attack_choice_accepted, attack_choices
from ...rulesets.polemos.base import PolemosBase
from ...rulesets.polemos.model import Creature, area_facts
from ..policy import register_policy
from .common import accepted, sign

CRITICALS = (("daze", 2), ("fatigue-wounds", 1))
"""Critical damage point effects the policy buys, best first, with their cost."""


def _wounds(creature: Creature) -> tuple[int, int]:
    """The lowest vitality on a vital area (0 with none) and the total vitality (asked for
    every enemy every turn; remembered per map of areas, ``model.area_facts``)."""
    _, lowest, total = area_facts(creature.areas)
    return (lowest, total)




_SHARED: dict[tuple[str, str, object, object], Command] = {}
"""The moves and critical point spendings this tactic offers, by what they say: the same
few every fight, each bound once (a command is never changed once made). Bounded: emptied
when it reaches :data:`_SHARED_KEPT`."""
_SHARED_KEPT = 4096


def _target(state: EncounterState, me: Creature) -> Creature | None:
    best: Creature | None = None
    best_key: tuple[int, int] = (0, 0)
    for other in state.entities.values():
        if (isinstance(other, Creature) and other.kind == "creature" and not other.down
                and other.side is not None and other.side != me.side):
            key = _wounds(other)
            if best is None or key < best_key:
                best, best_key = other, key
    return best


def _ordered(scored: list[tuple[Expected, Command]]) -> list[Command]:
    """The attacks ``attack_choices`` gave, highest expected damage first, ties in the order
    given (a reverse sort is stable too), by its keys (``Expected``: the float, then the
    fraction where equal)."""
    keys = [expected for expected, _ in scored]
    order = sorted(range(len(scored)), key=keys.__getitem__, reverse=True)
    return [scored[i][1] for i in order]


def _best_attack(state: EncounterState, ruleset: Ruleset, me: Creature,
                 target: Creature) -> Command | None:
    """The first attack on ``target``, by highest expected damage (those the odds refuse, e.g.
    out of range, left out), that the rules accept: the ruleset's ``odds`` of each, asked
    through ``attack_choices``, which reads what they share once (measured: the odds asked
    one command at a time were a fifth of a run). They all spend the same action, which is
    all ``attack_choice_accepted`` asks of them, so the best is found by one pass (the
    first of the highest, as the stable sort puts it) and asked first; the sort and the
    others are asked only when it is refused."""
    rules = cast(PolemosBase, ruleset)
    scored = attack_choices(rules, state, me.id, target.id)
    if not scored:
        return None
    best_key, best = scored[0]
    for index in range(1, len(scored)):  # the fraction compared only where the floats tie
        key = scored[index][0]  # (its comparison is interpreted code)
        if key[0] > best_key[0] or (key[0] == best_key[0] and key[1] > best_key[1]):
            best_key, best = scored[index]
    if attack_choice_accepted(rules, state, best):
        return best
    for command in _ordered(scored):  # ``accepted``, for these
        if command is not best and attack_choice_accepted(rules, state, command):
            return command
    return None


def _approach(state: EncounterState, ruleset: Ruleset, me: Creature,
              target: Creature) -> Command | None:
    """A move straight toward ``target``, as far as the rules accept (never onto it)."""
    if me.position is None or target.position is None:
        return None
    x, y = me.position
    tx, ty = target.position
    steps = max(abs(tx - x), abs(ty - y)) - 1
    for n in range(min(steps, me.speed), 0, -1):
        to = [x + sign(tx - x) * min(n, abs(tx - x)), y + sign(ty - y) * min(n, abs(ty - y))]
        if to == [tx, ty]:
            continue
        key = ("move", me.id, to[0], to[1])
        command = _SHARED.get(key) or kept(
            _SHARED, key, Command("move", me.id, {"to": to}), _SHARED_KEPT)
        if accepted(ruleset, state, command):
            return command
    return None


@register_policy("aim", ruleset="polemos", default=True)
class Aim:
    """Attack the most wounded enemy with the attack of highest expected damage (moving
    into range on the grid), then spend critical damage points."""

    def choose(self, state: EncounterState, actor: Entity,
               ruleset: Ruleset) -> Iterator[Command]:
        me = entity_at(state.entities, actor.id)
        if not isinstance(me, Creature) or me.down or me.kind != "creature":
            return
        target = _target(state, me)
        if target is None:
            return
        attack = _best_attack(state, ruleset, me, target)
        if attack is None:
            move = _approach(state, ruleset, me, target)
            if move is None:
                return
            yield move
            me = cast(Creature, state.entities[me.id])
            target = cast(Creature, state.entities[target.id])
            attack = _best_attack(state, ruleset, me, target)
            if attack is None:
                return
        yield attack
        for _ in range(4):
            me = cast(Creature, state.entities[me.id])
            spend: Command | None = None
            for effect, cost in CRITICALS:  # the best the points buy
                if me.critical_points >= cost:
                    key = ("critical", me.id, effect, 0)
                    spend = _SHARED.get(key) or kept(
                        _SHARED, key, Command("critical", me.id, {"effect": effect}),
                        _SHARED_KEPT)
                    break
            if spend is None or not accepted(ruleset, state, spend):
                return
            yield spend
