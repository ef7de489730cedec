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
    parse,
    roll,
)
from arbiter.dice.ast import Compare, Dice, Keep, Node, Num
from arbiter.dice.bounds import explosions_allowed, most_rolls

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
             "2d6!!<1>=4", "5d6!6>=5", "4d6r<4!!kh3", "6d6r6!", "1d2!", "2d3!!kh1",
             "3d6!p", "2dF!", "2d4!o", "4d6!!min2>=4f1"]
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
    # a d6 rerolled on 1 and 2 shows 5 or 6 about half the time: it may explode 39 times
    assert most_rolls(Dice(3, 6, reroll=Compare("<", 3), explode=Compare(">", 4))) == 3 * 21 * 40
    # a point that matches no face costs nothing
    assert most_rolls(Dice(3, 6, reroll=Compare("=", 7), explode=Compare(">", 6))) == 3


def test_counting_matching_faces_agrees_with_listing_them() -> None:
    for op in ("=", ">", ">=", "<", "<="):
        for value in range(-1, 14):
            point = Compare(op, value)
            for faces in range(1, 12):
                assert point.count_matching(faces) == len(point.faces_matching(faces))


# -- the explosion bound: what lies beyond it has a chance below 1e-12 ---------------------------


def _chance(node: Dice) -> Fraction:
    """The chance that one roll of ``node`` (after its rerolls) explodes, listed face by
    face: a face the reroll matches stands only after every reroll."""
    faces = node.face_values()
    size = len(faces)
    rerolls = 0
    if node.reroll is not None and any(node.reroll.matches(v) for v in faces):
        rerolls = 1 if node.reroll_once else limits.MAX_REROLLS
    assert node.explode is not None
    total = Fraction(0)
    for v in faces:
        if not node.explode.matches(v):
            continue
        if node.reroll is not None and rerolls and node.reroll.matches(v):
            m = sum(1 for u in faces if node.reroll.matches(u))
            total += Fraction(m**rerolls, size ** (rerolls + 1))
        elif rerolls:
            m = sum(1 for u in faces if node.reroll is not None and node.reroll.matches(u))
            total += sum((Fraction(m, size) ** k for k in range(rerolls + 1)), Fraction(0)) \
                / size
        else:
            total += Fraction(1, size)
    return total


@pytest.mark.parametrize(
    ("text", "bound"),
    [("1d2!", 39), ("1d3!", 25), ("1d4!", 20), ("1d6!", 20), ("1d100!!", 20),
     ("1d6!>4", 25), ("1d6!>3", 39), ("1d6!>=3", 68), ("1d10!>8", 20), ("1d20!>10", 39),
     ("1dF!", 25), ("1dF!>-1", 68), ("1dT!", 20), ("1d6r6!", 20), ("1d6ro<3!>4", 34),
     ("1d6!o", 1), ("1d6!p", 20), ("1d6!>6", 0), ("1d10!>1", 262)],
)
def test_the_chance_beyond_the_explosion_bound_is_below_1e_12(text: str, bound: int) -> None:
    node = parse(text)
    assert isinstance(node, Dice)
    assert explosions_allowed(node) == bound
    if bound in (0, 1):
        return
    p = _chance(node)
    assert p ** (bound + 1) < Fraction(1, 10**12)
    # and the bound is no higher than it must be (or the old 20, whichever is more)
    assert bound == limits.EXPLOSIONS or p**bound >= Fraction(1, 10**12)


def test_an_explosion_at_its_bound_rolls_and_is_counted_alike() -> None:
    """A chain that goes to its bound: the roller stops there, the odds count that total,
    and the roll limit counted the dice before anything was rolled."""
    for text, face in [("1d2!", 2), ("1d6!>=3", 6), ("1dF!", 3), ("1d20!>10", 20)]:
        node = parse(text)
        assert isinstance(node, Dice)
        bound = explosions_allowed(node)
        result = roll(text, ForcedDice([face] * (bound + 1)))
        assert len(result.dice()) == bound + 1
        assert [d.exploded for d in result.dice()] == [True] * bound + [False]
        assert distribution(text).probability(result.total) > 0
        assert most_rolls(node) == bound + 1
    with pytest.raises(DiceLimitError, match=r"rolls up to 10,140 dice, more than 10,000 "
                       r"dice in one expression \(counting every reroll, at most 20 per roll, "
                       r"and every explosion, at most 77 per die of 130d10!>3\)"):
        roll("130d10!>3", ForcedDice([]))


def test_a_die_that_would_explode_past_the_ceiling_is_refused_before_rolling() -> None:
    for text in ("1d100!>2", "4d6r<6!!kh3", "1d10000!>1"):
        source = ForcedDice([])
        with pytest.raises(DiceLimitError, match="so often that a chain would need more "
                           "than 1,000 explosions"):
            roll(text, source)
        assert source.used == 0
    assert explosions_allowed(parse("1d100!>3")) <= limits.MAX_EXPLOSIONS  # type: ignore[arg-type]
