"""Sums of dice whose faces are every g-th value (tens dice): ``exact._power`` works them out
on the faces alone and spreads the result back, with the weights of a plain convolution."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

from hypothesis import example, given
from hypothesis import strategies as st

from arbiter.dice import distribution, exact, parse
from arbiter.dice.ast import Dice


@given(st.lists(st.integers(0, 5), min_size=1, max_size=6), st.integers(2, 9),
       st.integers(1, 5))
@example([0, 1, 0], 3, 2)  # weights on every 6th value of a list whose length is not 6k + 1
def test_a_strided_power_is_the_plain_convolution(faces: list[int], step: int, n: int) -> None:
    weights = [1, *faces]  # a die's lowest value always has weight
    strided = [0] * ((len(weights) - 1) * step + 1)
    strided[::step] = weights
    plain = strided
    for _ in range(n - 1):
        plain = exact._convolve(plain, strided)
    assert exact._power(strided, n) == plain


def test_tens_dice_by_every_roll() -> None:
    for text in ("3dT", "2dT", "4dT"):
        node = parse(text)
        assert isinstance(node, Dice)
        faces = list(node.face_values())
        ways = Counter(sum(roll) for roll in itertools.product(faces, repeat=node.count))
        total = len(faces) ** node.count
        dist = distribution(text)
        assert {v: dist.probability(v) for v in ways} == {
            v: Fraction(c, total) for v, c in ways.items()}
        assert sum(dist.probability(v) for v in ways) == 1


@given(st.lists(st.integers(0, 3), max_size=40))
def test_the_stride_is_the_gcd_of_the_places_of_the_weights(counts: list[int]) -> None:
    places = [i for i, c in enumerate(counts) if c and i]
    expected = 0
    for i in places:
        expected = math.gcd(expected, i)
    assert exact._stride(counts) == expected
    spaced = [c if i % 3 == 0 else 0 for i, c in enumerate(counts)]
    assert exact._stride(spaced) % 3 == 0 or not any(spaced[1:])
