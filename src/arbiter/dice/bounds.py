"""The bounds on one die's rerolls and explosions, shared by the roller and exact odds.

One rule for both, so that whatever :func:`~arbiter.dice.exact.distribution` accepts can
be rolled for every seed and every rolled total lies in its support:

* ``r`` rerolls a roll at most :data:`~arbiter.dice.limits.MAX_REROLLS` times and ``ro``
  once; if the last reroll still matches, it stands.
* ``!`` and ``!!`` explode at most :data:`~arbiter.dice.limits.MAX_EXPLOSIONS` times in a
  chain; the last roll of a full chain does not explode, whatever it shows.
* A reroll or explosion point that matches no face never happens.

So one die rolls at most ``(1 + rerolls) * (1 + explosions)`` physical dice (each roll of a
chain has its own rerolls), and :func:`check_rolls` refuses, before anything is rolled or
computed, an expression whose dice could together exceed
:data:`~arbiter.dice.limits.MAX_ROLLS`.
"""

from __future__ import annotations

from . import limits
from .ast import BinOp, Dice, Group, Neg, Node
from .errors import DiceLimitError


def rerolls_allowed(node: Dice) -> int:
    """How many times one roll of this die may be rerolled."""
    if node.reroll is None or not node.reroll.count_matching(node.faces):
        return 0
    return 1 if node.reroll_once else limits.MAX_REROLLS


def explosions_allowed(node: Dice) -> int:
    """How many times one die of this term may explode in a chain."""
    if node.explode is None or not node.explode.count_matching(node.faces):
        return 0
    return limits.MAX_EXPLOSIONS


def rolls_per_die(node: Dice) -> int:
    """The most physical dice one die of this term can take."""
    return (1 + rerolls_allowed(node)) * (1 + explosions_allowed(node))


def most_rolls(node: Node) -> int:
    """The most physical dice rolling ``node`` can take, whatever the dice show."""
    if isinstance(node, Dice):
        return node.count * rolls_per_die(node)
    if isinstance(node, BinOp):
        return most_rolls(node.left) + most_rolls(node.right)
    if isinstance(node, Neg):
        return most_rolls(node.operand)
    if isinstance(node, Group):
        return most_rolls(node.inner)
    return 0


def check_rolls(node: Node) -> int:
    """:func:`most_rolls`, or :class:`DiceLimitError` when it exceeds ``MAX_ROLLS``."""
    most = most_rolls(node)
    if most > limits.MAX_ROLLS:
        raise DiceLimitError(
            f"the expression rolls up to {most:,} dice, more than {limits.MAX_ROLLS:,} dice "
            f"in one expression (counting every reroll, at most {limits.MAX_REROLLS} per "
            f"roll, and every explosion, at most {limits.MAX_EXPLOSIONS} per die)"
        )
    return most
