"""Dice notation, rolling with injected dice sources, and exact distributions.

>>> from arbiter.dice import roll, ForcedDice, distribution
>>> roll("1d20+5", ForcedDice([13])).total
18
>>> str(distribution("2d6").at_least(7))
'7/12'
"""

from .ast import Node
from .errors import (
    DiceError,
    DiceEvalError,
    DiceLimitError,
    DiceSyntaxError,
    DistributionTooLarge,
    ForcedDiceError,
)
from .exact import Distribution, distribution
from .parser import parse
from .roller import Die, RollResult, roll
from .sources import DiceSource, ForcedDice, RecordingDice, SeededDice

__all__ = [
    "DiceError",
    "DiceEvalError",
    "DiceLimitError",
    "DiceSource",
    "DiceSyntaxError",
    "Die",
    "Distribution",
    "DistributionTooLarge",
    "ForcedDice",
    "ForcedDiceError",
    "Node",
    "RecordingDice",
    "RollResult",
    "SeededDice",
    "distribution",
    "parse",
    "roll",
]
