"""Issue 35: "reroll until" is exact.

``r`` (Roll20's ``r``, Foundry's and d20's ``rr``) rerolls a roll until it shows a face
that does not match: its odds are those of the die conditioned on the faces that stop it,
with no bound leaving a matching face standing, and the roller rerolls until one shows.
Refused only when no face can stop it. Every probability here is an exact fraction.
"""

from __future__ import annotations

from fractions import Fraction

import icepool
import pytest

from arbiter.dice import (
    DiceError,
    DiceSyntaxError,
    ForcedDice,
    SeededDice,
    distribution,
    roll,
)

F = Fraction


def as_dict(die: icepool.Die) -> dict[int, Fraction]:
    den = die.denominator()
    return {int(k): F(int(v), den) for k, v in die.items() if v}


def test_d20_rr_below_20_is_always_20() -> None:
    """The case the issue names: d20's 1d20rr<20 is always 20 (Arbiter gave 20 only 66%
    of the time when it stopped after 20 rerolls)."""
    dist = distribution("1d20rr<20", "d20")
    assert dict(dist.items()) == {20: F(1)}
    for seed in range(200):
        assert roll("1d20rr<20", SeededDice(seed), "d20").total == 20
    result = roll("1d20rr<20", ForcedDice([3, 19, 7, 20]), "d20")
    assert result.total == 20
    assert [d.fate for d in result.dice()] == ["rerolled"] * 3 + ["kept"]


@pytest.mark.parametrize(
    ("text", "dialect", "expected"),
    [
        ("1d6r1", "arbiter", {v: F(1, 5) for v in range(2, 7)}),
        ("1d6r<3", "arbiter", {v: F(1, 4) for v in range(3, 7)}),
        ("1d6r<3", "roll20", {v: F(1, 3) for v in range(4, 7)}),  # Roll20: <3 is <=3
        ("1d10r1r3", "roll20", {v: F(1, 8) for v in (2, *range(4, 11))}),
        ("1d20rr1", "foundry", {v: F(1, 19) for v in range(2, 21)}),
        ("1d20r1", "foundry", {1: F(1, 400), **{v: F(21, 400) for v in range(2, 21)}}),
        ("2d6r1", "arbiter", {4: F(1, 25), 5: F(2, 25), 6: F(3, 25), 7: F(4, 25),
                              8: F(5, 25), 9: F(4, 25), 10: F(3, 25), 11: F(2, 25),
                              12: F(1, 25)}),
        ("1dFr0", "arbiter", {-1: F(1, 2), 1: F(1, 2)}),
        ("1d6r<6", "arbiter", {6: F(1)}),
    ],
)
def test_reroll_until_is_the_die_conditioned_on_the_faces_that_stop_it(
    text: str, dialect: str, expected: dict[int, Fraction]
) -> None:
    assert dict(distribution(text, dialect).items()) == expected


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("4d6r1kh3", lambda: icepool.d6.reroll([1], depth="inf").highest(4, 3)),
        ("3d8r<3+2", lambda: 3 @ icepool.d8.reroll([1, 2], depth="inf") + 2),
        ("1d6r<3!", lambda: icepool.d6.reroll([1, 2], depth="inf").explode([6], depth=20)),
        ("2d10r>8!!<2", lambda: 2 @ icepool.d10.reroll([9, 10], depth="inf").explode(
            [1], depth=20)),
        ("5d6r6>=4", lambda: 5 @ icepool.d6.reroll([6], depth="inf").map(lambda v: int(v >= 4))),
    ],
)
def test_reroll_until_matches_icepool_exactly(text: str, reference: object) -> None:
    assert dict(distribution(text).items()) == as_dict(reference())  # type: ignore[operator]


def test_an_explosion_after_a_reroll_until_counts_only_the_faces_that_stand() -> None:
    # a d6 rerolled on 6 can never show 6: it never explodes on 6
    assert distribution("1d6r6!") == distribution("1d5")
    assert roll("1d6r6!", ForcedDice([6, 6, 4])).total == 4


def test_the_roller_rerolls_until_it_stops() -> None:
    result = roll("1d6r<3", ForcedDice([1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2,
                                       1, 2, 1, 2, 1, 2, 5]))
    assert result.total == 5  # 24 rerolls: past the old bound of 20, no 2 stands
    assert [d.fate for d in result.dice()].count("rerolled") == 24
    seen = {roll("1d6r<3", SeededDice(seed)).total for seed in range(300)}
    assert seen == {3, 4, 5, 6}


def test_refused_only_when_no_face_can_stop_it() -> None:
    for text, dialect in [("1d6r<7", "arbiter"), ("1d6r<6", "roll20"), ("1d4r1r2r<5", "roll20"),
                          ("1d20rr>0", "d20"), ("2d6rr<=6", "foundry")]:
        with pytest.raises(DiceSyntaxError, match=r"match(es)? every face of d"):
            distribution(text, dialect)
    # once is fine on every face: the reroll stands
    assert distribution("1d6ro<7") == distribution("1d6")


def test_a_source_that_never_stops_is_told_so() -> None:
    with pytest.raises(DiceError, match=r"1d6r1 rerolls until a die stops, and the dice source "
                       r"still gave a face it rerolls \(1\) after 20 rerolls"):
        roll("1d6r1", ForcedDice([1] * 21))
