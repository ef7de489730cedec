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
from arbiter.dice.bounds import explosions_allowed, most_rolls, rerolls_allowed

from .strategies import compares, expressions

UNFAIR = "not rolling fairly"


def roll_total(node: Node | str, source: DiceSource) -> int | None:
    """The roll's total; None when a source that always shows the same faces keeps a
    reroll until from ever stopping (the roller says so; a seeded source never does)."""
    try:
        return roll(node, source).total
    except DiceError as err:
        if isinstance(source, Always) and UNFAIR in str(err):
            return None
        raise


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
        total = roll_total(node, source)  # never raises: no limit, no division by zero
        assert total is None or dist.probability(total) > 0, (str(node), total)


@pytest.mark.parametrize(
    "text", ["1d6!>6", "1d6!<1", "1d6r6!", "4d4!r>3", "1d20r<=19", "3d6!>6kh2",
             "2d6!!<1>=4", "5d6!6>=5", "4d6r<4!!kh3", "6d6r6!", "1d2!", "2d3!!kh1",
             "3d6!p", "2dF!", "2d4!o", "4d6!!min2>=4f1"]
)
def test_odds_and_the_roller_agree_on_every_seed(text: str) -> None:
    dist = distribution(text)
    sources: list[DiceSource] = [*(SeededDice(seed) for seed in range(300)), *adversaries()]
    for source in sources:
        total = roll_total(text, source)
        assert total is None or dist.probability(total) > 0


def test_an_explosion_that_cannot_happen_never_happens() -> None:
    d6 = distribution("1d6")
    for text in ("1d6!>6", "1d6!<1", "1d6!7", "1d6!!>=7", "1d6!<1>=1"):
        result = roll(text, ForcedDice([6]))
        assert not any(die.exploded for die in result.dice())
    assert distribution("1d6!>6") == distribution("1d6!<1") == distribution("1d6!!>6") == d6
    assert distribution("3d6!>6kh2") == distribution("3d6kh2")
    assert distribution("1d6!<1>=4") == distribution("1d6>=4")


def test_a_reroll_until_stops_only_on_a_face_that_does_not_match() -> None:
    """Issue 35: ``r`` rerolls until it stops; its odds are conditioned on the faces that
    stop it (no bound leaves a matching face standing)."""
    node = parse("1d20r<=19")
    assert isinstance(node, Dice)
    bound = rerolls_allowed(node)  # (19/20) ** (k + 1) < 1e-12 first at k = 538
    assert bound == 538
    assert Fraction(19, 20) ** (bound + 1) < Fraction(1, 10**12) <= Fraction(19, 20) ** bound
    result = roll("1d20r<=19", ForcedDice([5] * 100 + [20]))
    assert result.total == 20
    assert [d.fate for d in result.dice()] == ["rerolled"] * 100 + ["kept"]
    assert distribution("1d20r<=19").probability(20) == 1
    # a source that keeps matching past every reroll counted is told so, not believed
    with pytest.raises(DiceError, match=r"still gave a face it rerolls \(5\) after 538 "
                       "rerolls"):
        roll("1d20r<=19", ForcedDice([5] * (bound + 1)))
    assert roll("1d20ro1", ForcedDice([1, 1])).total == 1  # once: the reroll stands
    dist = distribution("1d10r<=3")
    assert dist.support() == list(range(4, 11))
    assert all(dist.probability(v) == Fraction(1, 7) for v in range(4, 11))
    # a reroll so long that a roll could take more than MAX_ROLLS dice is refused alike
    why = r"up to 276,296 per roll of 1d10000r<=9999, which rerolls until it stops"
    with pytest.raises(DiceLimitError, match=why):
        roll("1d10000r<=9999", ForcedDice([]))
    with pytest.raises(DiceLimitError, match=why):
        distribution("1d10000r<=9999")


def test_the_worst_case_is_counted_per_die() -> None:
    assert most_rolls(Dice(3, 6)) == 3
    assert most_rolls(Dice(3, 6, reroll=Compare("=", 1))) == 3 * 21
    assert most_rolls(Dice(3, 6, reroll=Compare("=", 1), reroll_once=True)) == 3 * 2
    assert most_rolls(Dice(3, 6, explode=Compare("=", 6))) == 3 * 21
    # a d6 rerolled until it shows 3 or more (counted with 25 rerolls: (1/3) ** 26 < 1e-12)
    # ... and rerolled until it shows 3 or more, it explodes on 5 or 6 half the time
    assert most_rolls(Dice(3, 6, reroll=Compare("<", 3), explode=Compare(">", 4))) == 3 * 26 * 40
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
    face: after a reroll until, one of the faces that do not match, each alike; after
    ``ro``, a face the reroll matches stands only as the reroll."""
    faces = node.face_values()
    size = len(faces)
    point = node.reroll
    matching = [v for v in faces if point is not None and point.matches(v)]
    assert node.explode is not None
    booms = [v for v in faces if node.explode.matches(v)]
    if not matching:
        return Fraction(len(booms), size)
    if not node.reroll_once:
        stands = [v for v in faces if v not in matching]
        return Fraction(len([v for v in booms if v in stands]), len(stands))
    m = len(matching)
    return sum((Fraction(m, size**2) if v in matching else Fraction(size + m, size**2)
                for v in booms), Fraction(0))


@pytest.mark.parametrize(
    ("text", "bound"),
    [("1d2!", 39), ("1d3!", 25), ("1d4!", 20), ("1d6!", 20), ("1d100!!", 20),
     ("1d6!>4", 25), ("1d6!>3", 39), ("1d6!>=3", 68), ("1d10!>8", 20), ("1d20!>10", 39),
     ("1dF!", 25), ("1dF!>-1", 68), ("1dT!", 20), ("1d6r6!", 0), ("1d6ro<3!>4", 34),
     ("1d6r<3!>4", 39), ("1d6r1!", 20),
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
    for text in ("1d100!>2", "1d10000!>1"):
        source = ForcedDice([])
        with pytest.raises(DiceLimitError, match="so often that a chain would need more "
                           "than 1,000 explosions"):
            roll(text, source)
        assert source.used == 0
    # rerolled until it shows a 6, a d6 exploding on 6 would never stop
    with pytest.raises(DiceLimitError, match="explosion on =6 matches every face of a d6 "
                       "that a reroll until on <6 lets stand: it would never stop"):
        roll("4d6r<6!!kh3", ForcedDice([]))
    assert explosions_allowed(parse("1d100!>3")) <= limits.MAX_EXPLOSIONS  # type: ignore[arg-type]
