"""Helpers shared by the Polemos commands: skill-roll pools, action kinds, names, and
``also`` (arguments added to a declaration).

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

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any, TypeVar

from ...core import Command, InvalidCommand
from ...core.catalogue import Arg, CommandSpec, EventSpec
from ...dice import DiceSource, Distribution, RollResult, distribution, roll

F = TypeVar("F", bound=Callable[..., Any])

BASE_DICE = 2
"""A skill roll rolls 2D6 and adds the skill value (P-SKL-2)."""

KINDS = ("primary", "secondary", "minor", "free", "full")
"""Kinds of action in turn-by-turn play (P-ACT-2..7)."""

DEFAULT_KIND = {"attack": "primary", "take_cover": "minor", "bandage": "primary",
                "act": "primary"}

CONCEALMENT = {"none": 0, "quarter": 1, "half": 2, "total": 4}
"""Bonus to [firearm defense] by concealment level (P-COV-2)."""


def skill_pool(value: int, bonus: int = 0, penalty: int = 0, rule: str = "net") -> str:
    """The dice expression of a skill roll with ``bonus`` and ``penalty`` dice.

    P-DICE-1: a bonus adds dice; P-DICE-2: a penalty first removes dice; P-DICE-3: penalty
    dice beyond the pool are rolled and subtracted. How both combine (AP-2): ``net`` nets them
    first (2 + bonus − penalty); ``remove-then-add`` removes base dice, subtracts the excess
    and adds the bonus dice.
    """
    if bonus < 0 or penalty < 0:
        raise InvalidCommand("bonus and penalty dice are counted as positive numbers")
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


def dice_modifier(command: Command) -> tuple[int, int]:
    """The ``bonus`` and ``penalty`` dice of a command; ``dice_mod: -3`` is a shorthand."""
    bonus = command.args.get("bonus", 0)
    penalty = command.args.get("penalty", 0)
    mod = command.args.get("dice_mod", 0)
    for key, value in (("bonus", bonus), ("penalty", penalty), ("dice_mod", mod)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidCommand(f"{command.name}: {key!r} must be a whole number of dice")
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


def kind_of(command: Command) -> str:
    kind = command.args.get("kind", DEFAULT_KIND.get(command.name, "primary"))
    if kind not in KINDS:
        raise InvalidCommand(f"{command.name}: kind must be one of {', '.join(KINDS)}, "
                             f"not {kind!r}")
    return str(kind)


def concealment_level(value: Any) -> str:
    """A concealment level by name, or a percentage of silhouette rounded down to the listed
    level below it (AP-17)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= 100:
            raise InvalidCommand("concealment is a percentage from 0 to 100")
        if value >= 100:
            return "total"
        if value >= 50:
            return "half"
        return "quarter" if value >= 25 else "none"
    if value not in CONCEALMENT:
        raise InvalidCommand(f"concealment must be one of {', '.join(CONCEALMENT)} or a "
                             f"percentage, not {value!r}")
    return str(value)


def also(**more: Arg) -> Callable[[F], F]:
    """Add arguments to the ``@command`` declaration below it (or fields to the ``@event``
    one): a set of arguments several commands share, or a name the decorators take as a
    keyword of their own (``cost``) or that Python reserves (``from``, ``as``)."""
    def mark(fn: F) -> F:
        spec: CommandSpec | None = getattr(fn, "__command__", None)
        if spec is not None:
            fn.__command__ = replace(  # type: ignore[attr-defined]
                spec, args={**spec.args, **more})
            return fn
        found: EventSpec = fn.__event__  # type: ignore[attr-defined]
        fn.__event__ = replace(found, fields={**found.fields, **more})  # type: ignore[attr-defined]
        return fn
    return mark
