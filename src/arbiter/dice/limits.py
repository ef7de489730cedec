"""Limits on everything in a dice expression that a user (or an attacker) controls.

Each limit is checked before any work proportional to it is done, so hostile input fails
in well under a millisecond with a :class:`~arbiter.dice.errors.DiceLimitError` (or its
subclass :class:`~arbiter.dice.errors.DistributionTooLarge` for exact odds). docs/dice.md
has them as a table.
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
EXPLOSIONS = 20
"""A die explodes (``!``, ``!!``, ``!p``) up to this many times in a chain, or more when a
longer chain would still have a chance of ``10 ** -EXPLOSION_TAIL_DIGITS`` or more (see
``EXPLOSION_TAIL_DIGITS``). The roller and exact odds use the same bound."""
EXPLOSION_TAIL_DIGITS = 12
"""The chance that a chain would go on past its bound is below ``10 ** -12``: a die
explodes up to ``max(EXPLOSIONS, k)`` times, ``k`` the least with ``p ** (k + 1) < 1e-12``
for ``p`` the chance that one roll (after its rerolls) explodes. So a d2 exploding on 2
explodes up to 39 times, a d3 on 3 up to 25, a d6 on 4 or more up to 39, and a d4 or
bigger on its highest face up to 20 (``(1/4) ** 21`` is about ``2.3e-13``)."""
MAX_EXPLOSIONS = 1000
"""The most explosions any die may have under ``EXPLOSION_TAIL_DIGITS``: a die that
explodes so often that it would need more (a d100 exploding on 3 or more, say) is refused
before anything is rolled."""
MAX_REROLLS = 20
"""A reroll until (``r``) goes on until the die shows a face that does not match, and its
exact odds are conditioned on those faces (issue 35). For the dice budget (``MAX_ROLLS``)
one roll counts ``max(MAX_REROLLS, k)`` rerolls, ``k`` the least with
``q ** (k + 1) < 10 ** -EXPLOSION_TAIL_DIGITS`` for ``q`` the share of faces that match (a
d20 rerolled on 1 counts 20, on 1 to 19 counts 538); a source still matching after them is
told it is not rolling fairly. ``ro`` rerolls once and the reroll stands."""
MAX_ROLLS = 10_000
"""Physical dice one expression may roll at the worst: every die counted with all the
rerolls and explosions its bounds allow, checked before anything is rolled (so a roll that
was accepted never fails for lack of dice, whatever the dice show)."""
MAX_EXACT_OUTCOMES = 1_000_000
"""Width of the support of an exact distribution, and pairs combined by ``*`` and ``/``."""
MAX_EXACT_BITS = 14_000
"""Bits of the exact fractions an exact distribution gives: the total of its integer
weights (every probability's denominator), plus the bits of its largest outcome for its
mean; estimated before any work. Below Python's default limit of 4,300 decimal digits for
printing an integer, so every probability and the mean print as exact fractions."""
MAX_EXACT_WORK = 800_000_000
"""Estimated work of one exact distribution, the whole expression together and the
writing of every outcome as an exact fraction included, in units of about a nanosecond of
one core (``dice/exact.py`` says what each step counts): 0.8 s estimated, which leaves
room for the estimate's error and a busy machine within about a second."""
MAX_EXACT_MAGNITUDE = 10**300
"""Largest outcome (either sign) of an exact distribution, so that its mean and every
outcome convert to a float."""
ESTIMATE_ROLLS = 100_000
"""Rolls of a Monte-Carlo estimate, for an expression with no exact odds (fewer when the
expression is so big that 100,000 rolls would exceed ``MAX_ESTIMATE_DICE``)."""
MAX_ESTIMATE_DICE = 1_500_000
"""Dice (expected, counting rerolls and explosions at their mean) that one Monte-Carlo
estimate may roll in all: about a second of rolling."""
