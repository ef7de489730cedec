"""Limits on everything in a dice expression that a user (or an attacker) controls.

Each limit is checked before any work proportional to it is done, so hostile input fails
in well under a millisecond with a :class:`~arbiter.dice.errors.DiceLimitError`.
"""

from __future__ import annotations

MAX_EXPRESSION_LENGTH = 500
"""Characters in one expression."""
MAX_DICE_PER_TERM = 1000
"""The N of one ``NdX`` term."""
MAX_FACES = 10_000
"""The X of one ``NdX`` term."""
MAX_NUMBER = 10**9
"""Largest integer literal (also the keep/drop counts and comparison targets)."""
MAX_DEPTH = 32
"""Nesting depth of parentheses and unary minus."""
MAX_TERMS = 100
"""Dice terms plus numbers in one expression."""
MAX_EXPLOSIONS = 20
"""A die explodes at most this many times in a chain; exact odds use the same bound."""
MAX_ROLLS = 10_000
"""Physical dice rolled for one expression, rerolls and explosions included."""
MAX_EXACT_OUTCOMES = 1_000_000
"""Width of the support of an exact distribution, and pairs combined by ``*`` and ``/``."""
MAX_EXACT_WORK = 50_000_000
"""Estimated coefficient-bits of big-integer work for one exact distribution step."""
