"""Named rounding helpers. The seeds say which way to round; float rounding never decides.

>>> round_down(7, 2), round_up(7, 2), round_down(-7, 2)
(3, 4, -4)
>>> half_round_up(7)
4
"""

from __future__ import annotations

from fractions import Fraction


def round_down(numerator: int, denominator: int = 1) -> int:
    """``numerator / denominator`` rounded toward minus infinity."""
    return numerator // denominator


def round_up(numerator: int, denominator: int = 1) -> int:
    """``numerator / denominator`` rounded toward plus infinity."""
    return -((-numerator) // denominator)


def half_round_up(value: int) -> int:
    """Half of ``value``, rounded up."""
    return round_up(value, 2)


def half_round_down(value: int) -> int:
    """Half of ``value``, rounded down."""
    return round_down(value, 2)


def fraction_down(value: Fraction) -> int:
    """An exact fraction rounded toward minus infinity."""
    return value.numerator // value.denominator
