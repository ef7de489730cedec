"""Skill rolls in Polemos (P-SKL-*, P-DICE-*): the dice pool of a skill roll with bonus and
penalty dice, success against a target number or an opposed roll (AP-1, AP-2), and the
``skill`` command.

>>> skill_pool(5, 1, 0)
'3d6+5'
>>> skill_pool(5, 0, 2)
'5'
>>> skill_pool(5, 0, 3)
'5-1d6'
>>> skill_pool(5, 1, 4, rule="remove-then-add")
'1d6+5-2d6'
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Deferred,
    EncounterState,
    Event,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.memo import kept
from ...dice import DiceSource, Distribution, RollResult, distribution, roll
from . import payloads
from .base import also
from .cover import defense_concealment
from .devices import DeviceRules  # the topic below (a chain)

BASE_DICE = 2
"""A skill roll rolls 2D6 and adds the skill value (P-SKL-2)."""


_POOLS: dict[tuple[int, int, int, str], str] = {}
"""Skill roll expressions already written, by value, bonus, penalty and ruling (every
attack rolls two, of the same few). Bounded: emptied when it reaches :data:`_POOLS_KEPT`."""
_POOLS_KEPT = 1024


def skill_pool(value: int, bonus: int = 0, penalty: int = 0, rule: str = "net") -> str:
    """The dice expression of a skill roll with ``bonus`` and ``penalty`` dice.

    P-DICE-1: a bonus adds dice; P-DICE-2: a penalty first removes dice; P-DICE-3: penalty
    dice beyond the pool are rolled and subtracted. How both combine (AP-2): ``net`` nets them
    first (2 + bonus − penalty); ``remove-then-add`` removes base dice, subtracts the excess
    and adds the bonus dice.
    """
    key = (value, bonus, penalty, rule)
    text = _POOLS.get(key)
    if text is None:
        text = kept(_POOLS, key, _pool_text(value, bonus, penalty, rule), _POOLS_KEPT)
    return text


def _pool_text(value: int, bonus: int, penalty: int, rule: str) -> str:
    """:func:`skill_pool`, written out."""
    check_dice_counts(bonus, penalty)
    if rule == "remove-then-add":
        removed = min(penalty, BASE_DICE)
        added, subtracted = BASE_DICE - removed + bonus, penalty - removed
    else:
        net = BASE_DICE + bonus - penalty
        added, subtracted = max(net, 0), max(-net, 0)
    parts = []
    if added:
        parts.append(f"{added}d6")
    if value or not (added or subtracted):
        parts.append(str(value))
    if subtracted:
        parts.append(f"-{subtracted}d6")
    text = "+".join(parts).replace("+-", "-")
    return text


def check_dice_counts(bonus: int, penalty: int) -> None:
    """Refuse negative bonus or penalty dice (``skill_pool``'s first check, on its own for
    the checks that build no pool)."""
    if bonus < 0 or penalty < 0:
        raise InvalidCommand("bonus and penalty dice are counted as positive numbers")


def dice_modifier(command: Command) -> tuple[int, int]:
    """The ``bonus`` and ``penalty`` dice of a bound command that declares them
    (``DICE_ARGS``); ``dice_mod: -3`` is a shorthand."""
    a = command.a
    bonus, penalty, mod = a.bonus or 0, a.penalty or 0, a.dice_mod or 0
    if mod > 0:
        bonus += mod
    else:
        penalty -= mod
    return bonus, penalty


def roll_skill(value: int, bonus: int, penalty: int, rule: str, dice: DiceSource) -> RollResult:
    return roll(skill_pool(value, bonus, penalty, rule), dice)


def skill_distribution(value: int, bonus: int, penalty: int, rule: str) -> Distribution:
    return distribution(skill_pool(value, bonus, penalty, rule))


def success(total: int, target: int, ties: str) -> bool:
    """AP-1: a total equal to the target succeeds (``ties-succeed``) unless ruled otherwise."""
    return total >= target if ties == "ties-succeed" else total > target


def chance(dist: Distribution, target: int, ties: str) -> Fraction:
    return dist.at_least(target) if ties == "ties-succeed" else dist.at_least(target + 1)


DICE_ARGS = {
    "bonus": args.integer("bonus dice, +ND6 (P-DICE-1): the situation's, the GM's", lo=0,
                          hi=20, default=0, who="gm"),
    "penalty": args.integer("penalty dice, -ND6 (P-DICE-2, P-DICE-3): the situation's, the "
                            "GM's", lo=0, hi=20, default=0, who="gm"),
    "dice_mod": args.integer("shorthand: bonus (+) or penalty (-) dice (the GM's)", lo=-20,
                             hi=20, who="gm"),
}
"""The dice modifiers of a skill roll (``dice_modifier``)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class CheckRules(DeviceRules):
    """Skill rolls."""

    @also(**DICE_ARGS)
    @command("Roll a skill: 2D6 + the skill value, with bonus or penalty dice; against a "
             "target number or opposed.", who="player", when="any", actor="optional",
             rules=("P-SKL-1", "P-SKL-2", "P-DICE-1", "P-DICE-2", "P-DICE-3", "P-DICE-4",
                    "P-COV-2", "AP-1", "AP-2", "AP-17"),
             skill=args.text("the actor's skill", max_len=64),
             value=args.integer("a skill value instead of the actor's skill (the GM's: the "
                                "sheet holds the actor's)", lo=-99, hi=99, who="gm"),
             target=args.integer("the target number (the GM's; left out: the total only)",
                                 lo=-99, hi=250, who="gm"),
             against=args.creature("an opposed roll against this creature", refers="enemy"),
             against_skill=args.text("the opposing creature's skill (the GM's; default: the "
                                     "same)", max_len=64, who="gm"))
    def do_skill(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Roll a skill: 2D6 + the actor's skill value (or the GM's value), with bonus and
        penalty dice, against a target number or an opposed roll."""
        a = command.a
        actor = self.creature(state, self.actor(state, command).id) if command.actor else None
        skill = a.skill or ""
        if a.value is not None:
            value = a.value
        elif actor is not None and skill:
            value = actor.skill(skill)
        else:
            raise InvalidCommand("skill: give 'actor' and 'skill', or a 'value'")
        bonus, penalty = dice_modifier(command)
        ties = self.ruling(state, "AP-1")
        level, flat, more = defense_concealment(self, state, actor, skill)
        result = roll_skill(value + flat, bonus + more, penalty, self.ruling(state, "AP-2"), dice)
        data: dict[str, Any] = {"actor": command.actor, "skill": skill, "value": value,
                                "bonus": bonus, "penalty": penalty, "total": result.total,
                                "roll": Deferred(result.to_json)}
        if level != "none":
            data["concealment"] = level
        if a.against is not None:
            other = self.creature(state, a.against)
            other_skill = a.against_skill or skill
            other_level, other_flat, other_more = defense_concealment(self, state, other,
                                                                            other_skill)
            opposed = roll_skill(other.skill(other_skill) + other_flat, other_more, 0,
                                 self.ruling(state, "AP-2"), dice)
            data.update(against=other.id, opposed=opposed.total,
                        opposed_roll=Deferred(opposed.to_json),
                        success=success(result.total, opposed.total, ties))
            if other_level != "none":
                data["against_concealment"] = other_level
        elif a.target is not None:
            target = a.target
            data.update(target=target, success=success(result.total, target, ties))
        return [Event("skill_rolled", data)]

    @event("[{actor} rolls ]{skill?|a roll}{skill}[ (value {value})]: {total}[ against "
           "{target}][ against {against}'s {opposed}][, {success?a success|a failure}].",
           actor=args.creature("who rolls"), skill=args.text("the skill"),
           value=args.integer("the skill value"), bonus=args.integer("bonus dice"),
           penalty=args.integer("penalty dice"), total=args.integer("the total"),
           roll=args.mapping("the roll"), target=args.integer("the target number"),
           against=args.creature("the opposing creature"),
           opposed=args.integer("the opposing roll's total"),
           opposed_roll=args.mapping("the opposing roll"),
           success=args.flag("it succeeds (ruling AP-1)"),
           concealment=args.text("the roller's concealment on a [firearm defense] roll "
                                 "(P-COV-2)"),
           against_concealment=args.text("the opposing creature's concealment on its "
                                         "[firearm defense] roll (P-COV-2)"),
           optional=("against", "against_concealment", "concealment", "opposed", "opposed_roll",
                     "success", "target"))
    def apply_skill_rolled(self, state: EncounterState, data: payloads.SkillRolled) -> None:
        return None
