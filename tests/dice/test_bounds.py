"""Rolls and exact odds follow one rule for rerolls and explosions (``dice/bounds.py``).

Whatever ``distribution`` accepts rolls without error for every seed, and every rolled total
lies in its support, also for dice that show the worst faces every time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from arbiter.dice import (
    DiceError,
    DiceLimitError,
    DiceSource,
    ForcedDice,
    SeededDice,
    distribution,
    limits,
    roll,
)
from arbiter.dice.ast import Compare, Dice, Keep, Node, Num
from arbiter.dice.bounds import most_rolls

from .strategies import compares, expressions


class Always:
    """A dice source that answers every roll with ``pick(faces, n)`` for the n-th roll."""

    def __init__(self, pick: Callable[[int, int], int]) -> None:
        self.pick = pick
        self.n = 0

    def roll(self, faces: int) -> int:
        self.n += 1
        return self.pick(faces, self.n)


def adversaries() -> list[Always]:
    """Sources that make every reroll and explosion happen that can: always the highest
    face, always the lowest, the second highest, and highest and lowest in turn."""
    return [
        Always(lambda faces, n: faces),
        Always(lambda faces, n: 1),
        Always(lambda faces, n: max(faces - 1, 1)),
        Always(lambda faces, n: faces if n % 2 else 1),
    ]


@st.composite
def bounded_dice(draw: st.DrawFn) -> Dice:
    """A small ``NdX`` that rerolls or explodes (or both), with any other modifiers."""
    faces = draw(st.integers(1, 8))
    point = compares(faces + 1)
    reroll: Compare | None = draw(st.none() | point)
    if reroll is not None and reroll.matches_every_face(faces):
        reroll = None  # the parser refuses a reroll that could never stop
    explode: Compare | None = draw(point if reroll is None else st.none() | point)
    if explode is not None and explode.matches_every_face(faces):
        explode = None  # ... and an explosion
    keep = draw(st.none() | st.builds(Keep, st.sampled_from(["kh", "kl", "dh", "dl"]),
                                      st.integers(0, 3)))
    return Dice(
        draw(st.integers(0, 3)),
        faces,
        False,
        reroll,
        draw(st.booleans()) if reroll else False,
        explode,
        draw(st.booleans()) if explode else False,
        keep,
        draw(st.none() | compares(faces)),
    )


nodes: st.SearchStrategy[Node] = expressions(
    bounded_dice() | st.builds(Num, st.integers(0, 5)), group_right=False
)


@settings(max_examples=400, deadline=None)
@given(nodes, st.lists(st.integers(0, 2**32), min_size=1, max_size=5))
def test_what_odds_accept_rolls_without_error_inside_the_support(
    node: Node, seeds: list[int]
) -> None:
    try:
        dist = distribution(node)
    except DiceError as err:
        event(f"odds refused: {type(err).__name__}")
        if "dice in one expression" in str(err):  # the roll limit: roll refuses alike
            with pytest.raises(DiceLimitError, match="dice in one expression"):
                roll(node, SeededDice(0))
        return
    event("odds accepted")
    json.dumps(dist.to_json())  # every accepted distribution prints
    sources: list[DiceSource] = [*(SeededDice(seed) for seed in seeds), *adversaries()]
    for source in sources:
        total = roll(node, source).total  # never raises: no limit, no division by zero
        assert dist.probability(total) > 0, (str(node), total)


@pytest.mark.parametrize(
    "text", ["1d6!>6", "1d6!<1", "1d6r6!", "4d4!r>3", "1d10000r<=9999", "3d6!>6kh2",
             "2d6!!<1>=4", "5d6!6>=5", "4d6r<6!!kh3", "6d6r6!"]
)
def test_odds_and_the_roller_agree_on_every_seed(text: str) -> None:
    dist = distribution(text)
    sources: list[DiceSource] = [*(SeededDice(seed) for seed in range(300)), *adversaries()]
    for source in sources:
        assert dist.probability(roll(text, source).total) > 0


def test_an_explosion_that_cannot_happen_never_happens() -> None:
    d6 = distribution("1d6")
    for text in ("1d6!>6", "1d6!<1", "1d6!7", "1d6!!>=7", "1d6!<1>=1"):
        result = roll(text, ForcedDice([6]))
        assert not any(die.exploded for die in result.dice())
    assert distribution("1d6!>6") == distribution("1d6!<1") == distribution("1d6!!>6") == d6
    assert distribution("3d6!>6kh2") == distribution("3d6kh2")
    assert distribution("1d6!<1>=4") == distribution("1d6>=4")


def test_a_reroll_stands_after_its_bound() -> None:
    r = limits.MAX_REROLLS
    # the roller: twenty rerolls, then the 21st roll stands whatever it shows
    result = roll("1d10000r<=9999", ForcedDice([5] * (r + 1)))
    assert result.total == 5
    assert [d.fate for d in result.dice()] == ["rerolled"] * r + ["kept"]
    assert roll("1d20ro1", ForcedDice([1, 1])).total == 1
    # the odds: out of 10000**21 equal sequences, 10000 stands after k rerolls of the
    # 9999 faces that match, k = 0..20; each matching face stands only after all 20
    dist = distribution("1d10000r<=9999")
    sequences = Fraction(1, 10_000 ** (r + 1))
    assert dist.probability(10_000) == sum(9999**k * 10_000 ** (r - k) for k in range(r + 1)) \
        * sequences
    assert dist.probability(5) == 9999**r * sequences
    assert dist.support() == list(range(1, 10_001))


def test_the_worst_case_is_counted_per_die() -> None:
    assert most_rolls(Dice(3, 6)) == 3
    assert most_rolls(Dice(3, 6, reroll=Compare("=", 1))) == 3 * 21
    assert most_rolls(Dice(3, 6, reroll=Compare("=", 1), reroll_once=True)) == 3 * 2
    assert most_rolls(Dice(3, 6, explode=Compare("=", 6))) == 3 * 21
    assert most_rolls(Dice(3, 6, reroll=Compare("<", 3), explode=Compare(">", 4))) == 3 * 441
    # a point that matches no face costs nothing
    assert most_rolls(Dice(3, 6, reroll=Compare("=", 7), explode=Compare(">", 6))) == 3


def test_counting_matching_faces_agrees_with_listing_them() -> None:
    for op in ("=", ">", ">=", "<", "<="):
        for value in range(-1, 14):
            point = Compare(op, value)
            for faces in range(1, 12):
                assert point.count_matching(faces) == len(point.faces_matching(faces))
