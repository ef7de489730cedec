"""Dialects: how other dice tools spell things, read into Arbiter's one notation.

Arbiter reads its own notation by default. With ``dialect="roll20"``, ``"foundry"`` or
``"d20"`` (Avrae's d20 library) the parser reads that tool's spellings with that tool's
meaning where the two differ, and builds the same trees; ``str(tree)`` is always the
Arbiter spelling ("read as ..."). docs/dice.md has the table of every difference.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .errors import DiceError

DialectName = Literal["arbiter", "roll20", "foundry", "d20"]
DIALECTS: tuple[DialectName, ...] = ("arbiter", "roll20", "foundry", "d20")


@dataclass(frozen=True, slots=True)
class Dialect:
    """What one tool's notation means where it differs from Arbiter's."""

    name: DialectName
    title: str
    tens_percentile: bool = False
    """``d%`` is one tens die, 0 to 90 (d20); otherwise 1 to 100."""
    k_selects: bool = False
    """``k3``/``p3`` keep or drop the dice showing 3, ``k>3`` those above (d20); otherwise
    ``k3`` keeps the highest three."""
    compares_totals: bool = False
    """``3d6>=10`` compares the total (d20); otherwise it counts the dice."""
    inclusive_points: bool = False
    """``>N`` means at least N and ``<N`` at most N in every compare point (Roll20)."""
    reroll_once: bool = False
    """``r`` rerolls once and ``rr`` again and again (Foundry); otherwise ``r`` rerolls
    again and again and ``ro`` once."""
    written_order: bool = False
    """Modifiers apply in the order written (Foundry, d20). Arbiter applies them in one
    fixed order, so an order that would mean something else is refused."""
    rounding: Literal["", "floor", "trunc"] = ""
    """``""``: ``/`` rounds down at each division. Otherwise ``/`` divides exactly and the
    total is rounded once at the end: down (Roll20, Foundry, whose totals can be
    fractions; Arbiter's are whole numbers) or toward zero (d20 truncates)."""
    js_remainder: bool = False
    """``%`` keeps the sign of the number divided, as JavaScript's does (Roll20, Foundry);
    Arbiter's (and d20's) keeps the sign of the divisor."""
    trailing_text: bool = False
    """Text after a complete expression, after a space, is a comment (Roll20, d20)."""
    single_member_dice: bool = True
    """A group of one expression, ``{4d6+3d8}kh4``, keeps and counts its dice (Arbiter,
    Roll20); otherwise its total (Foundry)."""
    counting_cs: bool = False
    """``cs``/``cf``/``df`` count successes, count failures and deduct failures (Foundry);
    otherwise ``cs``/``cf`` mark critical successes and failures and change no total."""
    sets: bool = False
    """``(a, b)kh1`` is a group (d20's sets) and ``p`` drops."""
    explode_x: bool = False
    """``x`` explodes and ``xo`` explodes once (Foundry)."""
    explode_e: bool = False
    """``e`` explodes and ``ra`` rerolls and adds (d20)."""
    not_equal_bang: bool = False
    """``!=`` is "not equal" and ``==`` "equal" between totals (d20)."""
    floor_division: bool = False
    """``//`` divides rounding down (d20)."""
    drop_without_count: bool = False
    """``d`` with no count drops the lowest die and ``df`` deducts failures (Foundry)."""


ARBITER = Dialect("arbiter", "Arbiter")
ROLL20 = Dialect(
    "roll20", "Roll20", inclusive_points=True, rounding="floor", js_remainder=True,
    trailing_text=True,
)
FOUNDRY = Dialect(
    "foundry", "Foundry VTT", reroll_once=True, written_order=True, rounding="floor",
    js_remainder=True, single_member_dice=False, counting_cs=True, explode_x=True,
    drop_without_count=True,
)
D20 = Dialect(
    "d20", "d20 (Avrae)", tens_percentile=True, k_selects=True, compares_totals=True,
    written_order=True, rounding="trunc", trailing_text=True, single_member_dice=False,
    sets=True, explode_e=True, not_equal_bang=True, floor_division=True,
)

BY_NAME: dict[str, Dialect] = {d.name: d for d in (ARBITER, ROLL20, FOUNDRY, D20)}


def dialect(name: str | Dialect) -> Dialect:
    """The dialect called ``name`` (one of :data:`DIALECTS`), or a clear error."""
    if isinstance(name, Dialect):
        return name
    found = BY_NAME.get(name)
    if found is None:
        raise DiceError(
            f"unknown dice dialect {str(name)[:40]!r}; the dialects are " + ", ".join(DIALECTS)
        )
    return found
