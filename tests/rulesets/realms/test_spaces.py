"""Spaces between two creatures (R-SIZ-1): the nearest squares of their footprints, for
every size realms declares, including the short way for two creatures of one square each."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arbiter.rulesets.realms.model import RealmsCreature, sizes, spaces_between

SIZES = sorted(sizes())
SQUARE = st.one_of(st.none(), st.tuples(st.integers(-40, 40), st.integers(-40, 40)))


def _by_squares(a: RealmsCreature, b: RealmsCreature) -> int | None:
    """The nearest pair of squares, every pair compared."""
    mine, theirs = a.squares(), b.squares()
    if not mine or not theirs:
        return None
    return min(max(abs(x1 - x2), abs(y1 - y2)) for x1, y1 in mine for x2, y2 in theirs)


@given(SQUARE, SQUARE, st.sampled_from(SIZES), st.sampled_from(SIZES))
def test_spaces_between_is_the_nearest_pair_of_squares(
        at: tuple[int, int] | None, to: tuple[int, int] | None, size_a: str,
        size_b: str) -> None:
    a = RealmsCreature("a", size=size_a, position=None if at is None else list(at))
    b = RealmsCreature("b", size=size_b, position=None if to is None else list(to))
    assert spaces_between(a, b) == _by_squares(a, b)


def test_two_creatures_side_by_side_and_apart() -> None:
    one = min(SIZES, key=lambda name: len(sizes()[name].footprint))
    a = RealmsCreature("a", size=one, position=[0, 0])
    assert spaces_between(a, RealmsCreature("b", size=one, position=[1, 1])) == 1
    assert spaces_between(a, RealmsCreature("b", size=one, position=[-3, 2])) == 3
    assert spaces_between(a, RealmsCreature("b", size=one, position=None)) is None
    big = max(SIZES, key=lambda name: len(sizes()[name].footprint))
    assert len(sizes()[big].footprint) > 1  # the long way is tried too
