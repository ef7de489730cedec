"""Exact distributions: checked against icepool, an independent exact library."""

from __future__ import annotations

import itertools
import re
import time
from fractions import Fraction
from typing import Any

import icepool
import pytest

from arbiter.dice import DistributionTooLarge, NoExactOdds, distribution, limits, parse
from arbiter.dice.errors import DiceEvalError
from arbiter.dice.exact import Distribution, check


def as_dict(die: Any) -> dict[int, Fraction]:
    den = die.denominator()
    return {int(k): Fraction(int(v), den) for k, v in die.items() if v}


def ours(expr: str) -> dict[int, Fraction]:
    return dict(distribution(expr).items())


d6, d20, d10 = icepool.d6, icepool.d20, icepool.d10
EXPLOSIONS = limits.EXPLOSIONS


@pytest.mark.parametrize(
    ("expr", "reference"),
    [
        ("2d6", lambda: 2 @ d6),
        ("3d6+2d4-1", lambda: 3 @ d6 + 2 @ icepool.d4 - 1),
        ("4d6kh3", lambda: d6.highest(4, 3)),
        ("2d20kl1", lambda: d20.lowest(2, 1)),
        ("5d6dl2", lambda: d6.highest(5, 3)),
        ("5d6dh2", lambda: d6.lowest(5, 3)),
        ("10d10kh5+2", lambda: d10.highest(10, 5) + 2),
        ("d20r1", lambda: d20.reroll([1], depth="inf")),
        ("1d10r<=9", lambda: d10.reroll(range(1, 10), depth="inf")),
        ("1d6r6!", lambda: d6.reroll([6], depth="inf").explode([6], depth=EXPLOSIONS)),
        ("4d4!r>3", lambda: 4 @ icepool.d4.reroll([4], depth="inf").explode([4], depth=EXPLOSIONS)),
        ("2d6ro<3!!", lambda: 2 @ d6.reroll([1, 2], depth=1).explode(depth=EXPLOSIONS)),
        ("1d6!>6", lambda: d6),
        ("1d6!<1", lambda: d6),
        ("3d6!<1kh2", lambda: d6.highest(3, 2)),
        ("2d6!!>6>=5", lambda: 2 @ (d6 >= 5)),
        ("d20ro1", lambda: d20.reroll([1], depth=1)),
        ("2d6!", lambda: 2 @ d6.explode(depth=20)),
        ("d6!!", lambda: d6.explode(depth=20)),
        ("d6!>4", lambda: d6.explode([5, 6], depth=25)),  # (1/3)**26 < 1e-12 <= (1/3)**25
        ("3d6!!kh2", lambda: d6.explode(depth=20).highest(3, 2)),
        ("6d10>=7", lambda: 6 @ (d10 >= 7)),
        ("1d8/2", lambda: d6.map(lambda x: x) if False else icepool.d8 // 2),
        ("-1d4*3", lambda: -(icepool.d4 * 3)),
        ("1d6*1d6", lambda: d6 * d6),
    ],
)
def test_matches_icepool(expr: str, reference: Any) -> None:
    assert ours(expr) == as_dict(reference())


def test_round_up_division() -> None:
    dist = distribution("1d8/^3")
    assert dict(dist.items()) == {1: Fraction(3, 8), 2: Fraction(3, 8), 3: Fraction(2, 8)}


def test_statistics() -> None:
    dist = distribution("2d6")
    assert dist.mean == 7
    assert dist.variance == Fraction(35, 6)
    assert dist.at_least(7) == Fraction(7, 12)
    assert dist.at_most(4) == Fraction(1, 6)
    assert dist.at_least(13) == 0
    assert dist.at_most(1) == 0
    assert abs(dist.stdev - 2.41523) < 1e-5


def test_exploding_successes_count_each_die() -> None:
    # d6 exploding on 6, counting 5+: chain of 6s each count, then one more die
    dist = distribution("1d6!>=5")  # explode on 5 or 6; success counting needs its own clause
    assert dist.at_least(7) > 0
    s = distribution("1d6!6>=5")
    assert s.probability(0) == Fraction(4, 6)
    assert s.probability(1) == Fraction(1, 6) + Fraction(1, 6) * Fraction(4, 6)


def test_json_uses_exact_fraction_strings() -> None:
    data = distribution("1d6").to_json()
    assert data["outcomes"]["3"] == "1/6"
    assert data["mean"] == "7/2"


def test_large_pool_is_exact_and_quick() -> None:
    start = time.perf_counter()
    dist = distribution("1000d6")
    assert time.perf_counter() - start < 5
    assert dist.mean == 3500
    assert dist.probability(1000) == Fraction(1, 6**1000)


def test_too_large_says_so() -> None:
    with pytest.raises(DistributionTooLarge):
        distribution("1000d10000*1000d10000")
    with pytest.raises(DiceEvalError, match="division by zero is possible"):
        distribution("1d6/(1d2-1)")
    with pytest.raises(NoExactOdds, match=re.escape(
            "no exact odds for '{1d100+1,1d90+1,1d80+1,1d70+1,1d60+1,1d…': keeping 2 of 7 "
            "members takes up to 1,524,100 steps")):
        distribution("{1d100+1,1d90+1,1d80+1,1d70+1,1d60+1,1d50+1,1d40+1}kh2")


def test_members_written_alike_are_kept_as_kinds_of_dice() -> None:
    """Members written alike have one distribution, so ``check`` prices keeping them as
    ``_keep_mixed`` does the work (kinds of "dice"), not as the fold of every member: four
    d100 members are exact, and a bigger member is refused for its work, not its steps.
    (Bare single dice are kept as the dice they are: a member in parentheses is not.)"""
    assert distribution("{1d100,1d100,1d100,1d100}kh2") == distribution("4d100kh2")
    assert distribution("{2d6,2d6,1d8}kl2") == _brute_keep_lowest_two()
    check(parse("{(1d4180),(1d4180),(1d4180),(1d4180)}kh2"))
    with pytest.raises(DistributionTooLarge, match="would take about"):
        check(parse("{(1d4181),(1d4181),(1d4181),(1d4181)}kh2"))
    assert check(parse("{1d4181,1d4181,1d4181,1d4181}kh2")) == check(parse("4d4181kh2"))


def _brute_keep_lowest_two() -> Distribution:
    weights: dict[int, int] = {}
    for a in itertools.product(range(1, 7), repeat=2):
        for b in itertools.product(range(1, 7), repeat=2):
            for c in range(1, 9):
                total = sum(sorted([sum(a), sum(b), c])[:2])
                weights[total] = weights.get(total, 0) + 1
    lo = min(weights)
    return Distribution(lo, [weights.get(v, 0) for v in range(lo, max(weights) + 1)])
