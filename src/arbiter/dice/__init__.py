"""Dice notation, rolling with injected dice sources, and exact distributions.

>>> from arbiter.dice import roll, ForcedDice, distribution
>>> roll("1d20+5", ForcedDice([13])).total
18
>>> str(distribution("2d6").at_least(7))
'7/12'
>>> str(parse("4d6k3", dialect="d20"))
'4d6k=3'
"""

from .ast import Node
from .dialects import DIALECTS, Dialect
from .errors import (
    DiceError,
    DiceEvalError,
    DiceLimitError,
    DiceSyntaxError,
    DistributionTooLarge,
    ForcedDiceError,
    NoExactOdds,
)
from .estimate import Estimate, estimate
from .exact import Distribution, distribution
from .parser import parse
from .roller import Die, RollResult, roll
from .sources import DiceSource, ForcedDice, RecordingDice, SeededDice

__all__ = [
    "DIALECTS",
    "Dialect",
    "DiceError",
    "DiceEvalError",
    "DiceLimitError",
    "DiceSource",
    "DiceSyntaxError",
    "Die",
    "Distribution",
    "DistributionTooLarge",
    "Estimate",
    "ForcedDice",
    "ForcedDiceError",
    "NoExactOdds",
    "Node",
    "RecordingDice",
    "RollResult",
    "SeededDice",
    "distribution",
    "estimate",
    "parse",
    "roll",
]
