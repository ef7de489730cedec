"""Monte-Carlo estimates, for expressions whose exact odds have no model here.

:func:`estimate` rolls an expression :data:`~arbiter.dice.limits.ESTIMATE_ROLLS` times
(100,000) with seeded dice, the same dice and rules as :func:`~arbiter.dice.roll` but
adding up totals only, and gives each outcome's frequency with its standard error. An
expression so big that 100,000 rolls would take more than about a second
(:data:`~arbiter.dice.limits.MAX_ESTIMATE_DICE` dice, counted at their mean) is rolled
fewer times, and says so; one that could not be rolled at all is refused as
:func:`~arbiter.dice.roll` refuses it.
"""

from __future__ import annotations

import math
from typing import Any

from . import limits
from .ast import Dice, Node, children
from .bounds import check_rolls, explosion_chance, explosions_allowed, rerolls_allowed
from .dialects import Dialect
from .errors import DiceLimitError
from .parser import parse_uncached
from .roller import _compile_total
from .sources import SeededDice

MIN_ROLLS = 100
"""Fewer rolls than this would say little: such an expression is refused instead."""


class Estimate:
    """How often each total came up in ``rolls`` rolls.

    >>> e = estimate("3d6!kh2", rolls=2000, seed=1)
    >>> 2 <= e.mean <= 20, e.rolls
    (True, 2000)
    """

    __slots__ = ("counts", "expression", "reason", "rolls", "seed")

    def __init__(self, expression: Node, counts: dict[int, int], rolls: int, seed: int,
                 reason: str = "") -> None:
        self.expression = expression
        self.counts = dict(sorted(counts.items()))
        self.rolls = rolls
        self.seed = seed
        self.reason = reason

    def probability(self, value: int) -> float:
        return self.counts.get(value, 0) / self.rolls

    def error(self, p: float) -> float:
        """The standard error of a frequency ``p`` over these rolls."""
        return math.sqrt(max(p * (1 - p), 0.0) / self.rolls)

    def at_least(self, k: int) -> float:
        return sum(c for v, c in self.counts.items() if v >= k) / self.rolls

    def at_most(self, k: int) -> float:
        return sum(c for v, c in self.counts.items() if v <= k) / self.rolls

    def items(self) -> list[tuple[int, float]]:
        return [(v, c / self.rolls) for v, c in self.counts.items()]

    @property
    def mean(self) -> float:
        return sum(v * c for v, c in self.counts.items()) / self.rolls

    @property
    def stdev(self) -> float:
        mean = self.mean
        second = sum((v - mean) ** 2 * c for v, c in self.counts.items())
        return math.sqrt(second / max(self.rolls - 1, 1))

    @property
    def mean_error(self) -> float:
        """The standard error of :attr:`mean`."""
        return self.stdev / math.sqrt(self.rolls)

    def to_json(self) -> dict[str, Any]:
        return {
            "exact": False,
            "rolls": self.rolls,
            "seed": self.seed,
            "reason": self.reason,
            "min": min(self.counts),
            "max": max(self.counts),
            "mean": self.mean,
            "mean_error": self.mean_error,
            "stdev": self.stdev,
            "outcomes": {str(v): {"p": p, "error": self.error(p)} for v, p in self.items()},
        }


def expected_dice(node: Node) -> float:
    """The mean number of physical dice one roll of ``node`` takes (rerolls and explosions
    at their mean), plus one for each other step."""
    if isinstance(node, Dice):
        size = 3 if node.kind == "F" else 10 if node.kind == "T" else node.faces
        rerolls = rerolls_allowed(node)
        q = node.count_matching(node.reroll) / size if rerolls and node.reroll else 0.0
        # ro: one reroll at most; a reroll until: 1 / (1 - q) rolls on average
        per_roll = 1 + q if node.reroll_once else 1 / (1 - q)
        explosions = explosions_allowed(node)
        p = explosion_chance(node) if explosions else 0.0
        chain = sum(p**k for k in range(explosions + 1))
        return node.count * per_roll * chain + 1
    return 1 + sum(expected_dice(child) for child in children(node))


def estimate(
    expression: str | Node,
    rolls: int = limits.ESTIMATE_ROLLS,
    seed: int = 0,
    dialect: str | Dialect = "arbiter",
    reason: str = "",
) -> Estimate:
    """Roll ``expression`` ``rolls`` times (fewer for a very big one) with
    ``SeededDice(seed)`` and count the totals."""
    node = parse_uncached(expression, dialect) if isinstance(expression, str) else expression
    check_rolls(node)
    per_roll = expected_dice(node)
    affordable = int(limits.MAX_ESTIMATE_DICE // per_roll)
    if affordable < MIN_ROLLS:
        raise DiceLimitError(
            f"{str(node)[:60]!r} rolls about {per_roll:,.0f} dice each time: too many to "
            f"estimate its odds from {MIN_ROLLS} rolls or more within the limit of "
            f"{limits.MAX_ESTIMATE_DICE:,} dice"
        )
    rolls = max(1, min(rolls, affordable))
    total = _compile_total(node)
    source = SeededDice(seed)
    roll, many = source.roll, source.roll_many
    counts: dict[int, int] = {}
    get = counts.get
    for _ in range(rolls):
        value = int(total(roll, many))
        counts[value] = get(value, 0) + 1
    return Estimate(node, counts, rolls, seed, reason)
