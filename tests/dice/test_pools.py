"""Exact odds of keeping or dropping dice that explode into separate dice (``dice/pools.py``):
fraction for fraction what icepool gives for the same pools (``icepool_model``), the new
operators' odds against icepool, and a refusal, before any work, of what is too big."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from arbiter.dice import DistributionTooLarge, ForcedDice, distribution, exact, parse, roll
from arbiter.dice.ast import Dice
from arbiter.dice.bounds import explosions_allowed

from .icepool_model import as_dict, model

KEPT_FROM_EXPLODING = [
    "5d6!kh3",
    "4d10!kh2",
    "2d20!kh1",
    "2d4!kh3",
    "3d6!kl2",
    "3d6!pkh1",
    "3d6!pkl2",
    "3d6!pdl1",
    "2d6!odh1",
    "5d10!o>=8kh3",
    "3d6!>4kh2",
    "3d6!<2kl2",
    "4d6!min2kh3",
    "3d6!max4kh2",
    "3d6r1!kh2",
    "4d6!kh2>=4",
    "4d6!kh2>=5f1",
    "4dF!kh2",
    "3dF!dl1",
    "2d10!p>=9kl1",
    "4d6!dl1",
    "3d6!dh1",
    "3d4!pmin2dh1",
    "{3d6!+2d8}kh3",
    "{4d6!+3d8}kh4",
    "{2d6!p+2d4}dl2",
    "{2d6!+1d6!!}kh2",
    "3d6!kh2sf2",
    "4d6!kh2even",
    "2d6!dl1>=5sf1",
    "3d6!dl1df1",
]


@pytest.mark.parametrize("text", KEPT_FROM_EXPLODING)
def test_keeping_exploding_dice_is_what_icepool_gives(text: str) -> None:
    node = parse(text)
    ours = dict(distribution(node).items())
    assert ours == as_dict(model(node)), text


@pytest.mark.parametrize(
    "text",
    [
        "1d10r1r3",
        "2d8r<=2r>=7",
        "3d6ro1ro2",
        "6d6even",
        "5d10odd",
        "10d6df<2",
        "4d6sf<3",
        "6d6>4sf1",
        "4d6!df1",
        "3d6!psf2",
        "4d6r1r6>=4f2",
        "(15-2d20)",
    ],
)
def test_the_new_operators_are_what_icepool_gives(text: str) -> None:
    node = parse(text)
    assert dict(distribution(node).items()) == as_dict(model(node)), text


def test_the_weights_count_every_chain_at_its_bound() -> None:
    """Every chain is padded to its bound, so the weights total ``6 ** (21 * 5)`` before
    common factors come out, and a pool of nothing but sixes (21 * 5 of them) has the
    chance of that many sixes in a row."""
    five = parse("5d6!")
    assert isinstance(five, Dice) and explosions_allowed(five) == 20
    dist = distribution("5d6!kh3")
    assert 6**105 % dist.denominator == 0
    # the three highest are sixes unless at most two of the 5 first rolls show 6 and no
    # chain goes on: P(kh3 = 18) = 1 - P(fewer than three sixes among all the rolls)
    assert dist.probability(18) == 1 - sum(dist.probability(t) for t in range(3, 18))
    # one six that stops at once (a six, then a non-six) among 5 chains
    assert dist.probability(3) == Fraction(1, 6**5)  # five 1s, nothing explodes


def test_fewer_dice_than_kept_keeps_them_all() -> None:
    # 2d6!kh3 keeps three only when a die exploded; otherwise both
    dist = distribution("2d6!kh3")
    assert dist.lo == 2 and dist.probability(2) == Fraction(1, 36)
    assert distribution("2d6!kh0") == distribution("0")
    assert distribution("2d6!dl100") == distribution("0")
    assert distribution("2d6!dl0") == distribution("2d6!")
    assert distribution("2d6!kh100") == distribution("2d6!")


def test_a_roll_keeps_from_the_whole_pool() -> None:
    # 6 explodes into 6, which explodes into 3: the pool is 6, 6, 3, 2, 1, 1
    result = roll("4d6!kh3", ForcedDice([6, 6, 3, 2, 1, 1]))
    assert result.total == 15
    assert [d.fate for d in result.dice()] == [
        "kept",
        "kept",
        "kept",
        "dropped",
        "dropped",
        "dropped",
    ]
    assert distribution("4d6!kh3").probability(15) > 0


def test_too_big_is_refused_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    def called(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("exact work started")

    monkeypatch.setattr(exact, "_eval", called)
    exact.clear_cache()
    with pytest.raises(DistributionTooLarge, match="would take about"):
        distribution("100d6!kh60")
    with pytest.raises(DistributionTooLarge, match="ways to have placed the 90 dice kept"):
        distribution("100d6!pkh90")
