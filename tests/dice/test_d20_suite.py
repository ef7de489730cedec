"""The d20 library's own test-suite expressions, read in Arbiter under ``dialect="d20"``
and compared with what d20 itself does (issue 35).

Each expression (``d20_suite.py``) is rolled by d20 as Avrae rolls it (comments allowed)
and read by Arbiter in the d20 dialect. Where both accept it, the two must mean the same,
exactly: d20's distribution is enumerated roll by roll (d20 draws every die from
``random.randrange``, which is replaced here by an enumerator of every sequence of faces
with its exact probability) and must equal Arbiter's exact distribution, fraction for
fraction. Where d20 refuses it (an error) Arbiter must refuse it too (reading, odds or
rolling). Where Arbiter refuses what d20 accepts, the expression must be in ``REFUSED``
with the reason it cannot be read; the list is exact, so an expression that becomes
readable fails the test until it is taken off.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

from arbiter.dice import DiceError, NoExactOdds, SeededDice, distribution, parse, roll

from .d20_suite import D20_SUITE

d20 = pytest.importorskip("d20")
d20_expression = pytest.importorskip("d20.expression")

REFUSED: dict[str, str] = {
    # one term keeping or dropping twice: d20 applies each set operator in turn, and a keep
    # with several selectors keeps what any of them selects (kh1kl1: the highest and the
    # lowest); Arbiter keeps or drops once per term, by rank or by value
    "((10d6kh5)kl2)kh1": "keep or drop given twice",
    "10d6k1k2k3": "keep or drop given twice",
    "10d6k1ph1": "keep or drop given twice",
    "(1, 2, 3, 4, 5)kh1kl1": "keep or drop given twice",
    "(1, 2, 3, 4, 5)ph1pl1": "keep or drop given twice",
    # d20's k and p with a number on a set keep or drop the members equal to it; Arbiter's
    # groups keep and drop by rank only
    "(1, 2, 3)k1k2": "has no Arbiter spelling",
    "(1, 2, 3, 4, 5)k3": "has no Arbiter spelling",
    "(1, 2, 3, 4, 5)k<3": "has no Arbiter spelling",
    "(1, 2, 3, 4, 5)k>3": "has no Arbiter spelling",
    "(1)k1": "has no Arbiter spelling",
    "(1)k2": "has no Arbiter spelling",
    "(1, 2, 3, 4, 5)k1k2": "has no Arbiter spelling",
    "(1, 2, 3, 4, 5)p3": "unexpected 'p'",
    "(1, 2, 3, 4, 5)p1p2": "unexpected 'p'",
    # decimal numbers: Arbiter's numbers are whole (d20 truncates the total at the end)
    "1.5": "unexpected character '.'",
    "0.5": "unexpected character '.'",
    ".5": "unexpected character '.'",
    # rerolls by rank (l1: the lowest die) have no Arbiter spelling: its rerolls go by face
    "1d6rol1": "unexpected character 'l'",
    "1d6ral1": "unexpected character 'l'",
}


# -- d20's exact distribution, by enumerating its dice ----------------------------------------


class _Enumerator:
    """Stands in for d20's ``random``: gives the faces of one sequence of rolls, and then
    the next sequence, until every sequence has been rolled (an odometer over the rolls
    each run asked for)."""

    def __init__(self, max_rolls: int) -> None:
        self.prefix: list[tuple[int, int]] = []  # (index of the face, number of faces)
        self.used = 0
        self.max_rolls = max_rolls

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        faces = len(range(start, stop, step))
        if self.used == len(self.prefix):
            if self.used >= self.max_rolls:
                raise _TooDeep
            self.prefix.append((0, faces))
        index, known = self.prefix[self.used]
        assert known == faces
        self.used += 1
        return start + index * step

    def runs(self) -> Iterator[Fraction]:
        """Yields before each run the probability of the sequence it will roll."""
        while True:
            self.used = 0
            yield Fraction(1)
            del self.prefix[self.used:]
            while self.prefix and self.prefix[-1][0] + 1 == self.prefix[-1][1]:
                self.prefix.pop()
            if not self.prefix:
                return
            index, faces = self.prefix[-1]
            self.prefix[-1] = (index + 1, faces)

    def probability(self) -> Fraction:
        p = Fraction(1)
        for _, faces in self.prefix[: self.used]:
            p /= faces
        return p


class _TooDeep(Exception):
    pass


def d20_distribution(
    text: str, max_rolls: int = 6, max_runs: int = 50_000
) -> dict[int, Fraction] | None:
    """d20's exact distribution of ``text``'s total, or None when some sequence would take
    more than ``max_rolls`` dice or there are more than ``max_runs`` sequences."""
    enumerator = _Enumerator(max_rolls)
    saved = d20_expression.random
    d20_expression.random = enumerator
    weights: Counter[int] = Counter()
    try:
        for count, _ in enumerate(enumerator.runs()):
            if count >= max_runs:
                return None
            try:
                total = d20.roll(text, allow_comments=True).total
            except _TooDeep:
                return None
            weights[int(total)] += enumerator.probability()  # type: ignore[assignment]
    finally:
        d20_expression.random = saved
    assert sum(weights.values()) == 1
    return {v: Fraction(p) for v, p in sorted(weights.items()) if p}


def d20_outcome(text: str) -> tuple[str, Any]:
    """("error", the error's type) or ("ok", d20's total with a seeded random)."""
    state = random.getstate()
    random.seed(35)
    try:
        return "ok", d20.roll(text, allow_comments=True).total
    except d20.RollError as err:
        return "error", type(err).__name__
    finally:
        random.setstate(state)


def arbiter_outcome(text: str) -> tuple[str, Any]:
    """("error", the message), ("exact", its distribution) or ("rolled", a total)."""
    try:
        return "exact", dict(distribution(text, "d20").items())
    except NoExactOdds:
        pass
    except DiceError as err:
        return "error", str(err)
    try:
        return "rolled", roll(text, SeededDice(35), "d20").total
    except DiceError as err:
        return "error", str(err)


TEXTS = list(dict.fromkeys(text for _, text in D20_SUITE))


def test_the_suite_is_all_there() -> None:
    assert len(D20_SUITE) == len(TEXTS) == 116


@pytest.mark.parametrize("text", TEXTS)
def test_d20_suite_expression_means_the_same(text: str) -> None:
    theirs, their_value = d20_outcome(text)
    ours, our_value = arbiter_outcome(text)
    if theirs == "error":
        assert ours == "error", f"d20 refuses {text!r} ({their_value}), Arbiter gives {our_value}"
        assert text not in REFUSED
        return
    if ours == "error":
        assert text in REFUSED, f"Arbiter refuses {text!r}, which d20 reads: {our_value}"
        assert REFUSED[text] in our_value
        return
    assert text not in REFUSED, f"{text!r} is read now: take it off REFUSED"
    exact = d20_distribution(text)
    if ours == "exact":
        if exact is not None:
            assert our_value == exact, text
        else:  # too many dice to enumerate d20: d20's totals lie in Arbiter's support
            for seed in range(200):
                random.seed(seed)
                assert d20.roll(text, allow_comments=True).total in our_value, (text, seed)
    else:
        assert exact is None  # (every suite expression with a roll only has exact odds)


def test_what_is_compared_exactly() -> None:
    """Most of the suite is compared as exact distributions, the rest by support."""
    exact = sum(1 for t in TEXTS if t not in REFUSED and d20_outcome(t)[0] == "ok"
                and d20_distribution(t) is not None)
    assert exact >= 60


def test_the_enumerator_is_exact() -> None:
    assert d20_distribution("2d6") == dict(distribution("2d6").items())
    assert d20_distribution("4d6kh3") == dict(distribution("4d6kh3").items())
    assert d20_distribution("1d20rr<20", max_rolls=3) is None  # would go on
    assert d20_distribution("1d%") == {v: Fraction(1, 10) for v in range(0, 100, 10)}


def test_rr_in_the_suite_is_d20s_reroll_until() -> None:
    """d20's own assertions on rr: 1d20rr<20 is always 20, 1d20rr>1 always 1."""
    assert dict(distribution("1d20rr<20", "d20").items()) == {20: 1}
    assert dict(distribution("1d20rr>1", "d20").items()) == {1: 1}
    assert str(parse("1d20rr<20", "d20")) == "1d20r<20"
