"""Errors of the dice engine: each one says what was wrong and what would be accepted."""

from __future__ import annotations


class DiceError(ValueError):
    """Base class: any problem with a dice expression, a dice source or a distribution."""


class DiceSyntaxError(DiceError):
    """The text is not a dice expression; ``position`` is the 0-based offending column."""

    def __init__(self, message: str, text: str, position: int) -> None:
        self.text = text
        self.position = position
        pointer = f" at column {position + 1}" if 0 <= position <= len(text) else ""
        super().__init__(f"{message}{pointer} in {text[:60]!r}")


class DiceLimitError(DiceError):
    """The expression is well formed but exceeds a safety limit (dice, faces, depth...)."""


class DiceEvalError(DiceError):
    """Evaluating the expression failed, e.g. division by zero."""


class ForcedDiceError(DiceError):
    """A forced dice queue ran out, or a forced value cannot occur on that die."""


class DistributionTooLarge(DiceLimitError):
    """An exact distribution would be too large to compute in bounded time and memory
    (found by an estimate made before any of the work)."""


class NoExactOdds(DiceError):
    """The expression is fine to roll, but its exact distribution has no model here (such
    as keeping the highest of dice that explode into separate dice); a Monte-Carlo
    estimate (:func:`arbiter.dice.estimate`) gives its odds approximately."""
