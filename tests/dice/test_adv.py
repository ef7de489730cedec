"""Issue 35: ``1d6!odd`` parses, and ``adv``/``dis`` read as each notation means them.

- ``!odd`` is an explosion followed by ``odd`` (count the odd dice), not ``!o`` (explode
  once) followed by ``dd``.
- d20 (as Avrae reads a roll): ``adv`` or ``dis`` as a word makes a leading plain 1d20
  2d20kh1 or 2d20kl1 (d20's ast_adv_copy), anywhere in the text outside labels.
- Roll20 has no such word: it would be read as a comment and the advantage lost, so it is
  refused with what to write instead. Arbiter and Foundry read no words after a roll.
"""

from __future__ import annotations

from fractions import Fraction

import d20
import pytest

from arbiter.dice import (
    DiceSyntaxError,
    ForcedDice,
    distribution,
    limits,
    parse,
    roll,
)


def test_explode_then_count_odd_parses() -> None:
    node = parse("1d6!odd")
    assert node == parse("1d6!6odd") == parse("1D6!ODD")
    assert str(node) == "1d6!6odd"
    assert parse("1d6!oodd") == parse("1d6!o6odd")  # explode once, then odd
    # a chain of sixes (even) ends on a roll that is odd half the time; a full chain's
    # last roll stands whatever it shows
    chain = Fraction(0)
    for k in range(limits.EXPLOSIONS + 1):
        chain += Fraction(1, 6) ** k
    dist = distribution("1d6!odd")
    assert dict(dist.items()) == {0: 1 - chain / 2, 1: chain / 2}
    result = roll("1d6!odd", ForcedDice([6, 6, 3]))
    assert result.total == 1
    assert [d.value for d in result.dice()] == [6, 6, 3]


@pytest.mark.parametrize(
    ("text", "read_as"),
    [
        ("1d20+5 adv", "2d20kh1+5"),
        ("1d20+5 dis", "2d20kl1+5"),
        ("1d20 ADV", "2d20kh1"),
        ("adv 1d20+5", "2d20kh1+5"),
        ("1d20+5 adv to hit", "2d20kh1+5 # to hit"),
        ("1d20 [sword] + 5 dis", "2d20kl1[sword]+5"),
        ("(1d20+5)>=15 adv", "(2d20kh1+5)>=15"),
        ("-1d20 adv", "-2d20kh1"),
        ("1d20mi10+5 adv", "2d20min10kh1+5"),
        ("1d20+5 [adv] ok", "1d20+5[adv] # ok"),  # inside a label: a label
        ("1d20 advantage", "1d20 # advantage"),  # not the word: a comment
    ],
)
def test_d20_reads_adv_and_dis_as_avrae_does(text: str, read_as: str) -> None:
    assert str(parse(text, "d20")) == read_as


@pytest.mark.parametrize(
    "text", ["1d20+5 adv", "1d20+5 dis", "(1d20+5)>=15 adv", "-1d20 adv"]
)
def test_d20_adv_is_what_d20_rolls_with_advantage(text: str) -> None:
    """The same odds as d20's own advantage (2d20kh1 on the leading 1d20), exactly."""
    expr, kind = text.rsplit(" ", 1)
    advantage = d20.AdvType.ADV if kind == "adv" else d20.AdvType.DIS
    d20_reading = str(d20.utils.ast_adv_copy(d20.parse(expr), advantage)).replace(" ", "")
    assert distribution(text, "d20") == distribution(d20_reading, "d20")


def test_d20_adv_with_a_minimum_keeps_after_it() -> None:
    """d20 writes 2d20kh1mi10 (keep, then the minimum); clamping each die and keeping the
    highest is clamping the highest, so Arbiter's order gives the same odds."""
    assert distribution("1d20mi10+5 adv", "d20") == distribution("2d20mi10kh1+5", "d20")
    # 15: both dice at most 10
    assert distribution("1d20mi10+5 adv", "d20").probability(15) == Fraction(1, 4)


def test_d20_adv_odds_exactly() -> None:
    dist = distribution("1d20+5 adv", "d20")
    assert dist.probability(25) == Fraction(39, 400)
    assert dist.probability(6) == Fraction(1, 400)
    assert distribution("1d20 dis", "d20").probability(1) == Fraction(39, 400)
    result = roll("1d20+5 adv", ForcedDice([3, 17]), "d20")
    assert result.total == 22
    assert [d.kept for d in result.dice()] == [False, True]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("2d6+1d20 adv", "does not start with a plain one"),
        ("1d20ro1 adv", "keeps first on a 1d20 with rerolls"),
        ("1d20 adv dis", "both 'adv' and 'dis' are given"),
        ("adv", "'adv' needs a roll with it"),
    ],
)
def test_d20_adv_refused_with_a_reason(text: str, why: str) -> None:
    with pytest.raises(DiceSyntaxError, match=why):
        parse(text, "d20")


def test_roll20_has_no_adv_and_says_what_to_write() -> None:
    with pytest.raises(DiceSyntaxError, match=r"Roll20 has no 'adv' \(it would be read as a "
                       r"comment and the advantage lost\): write 2d20kh1"):
        parse("1d20+5 adv", "roll20")
    with pytest.raises(DiceSyntaxError, match="write 2d20kl1"):
        parse("1d20+5 dis", "roll20")
    assert str(parse("1d20+5 [adv]", "roll20")) == "1d20+5[adv]"
    assert str(parse("1d20+5 for the advance", "roll20")) == "1d20+5 # for the advance"


@pytest.mark.parametrize("dialect", ["arbiter", "foundry"])
def test_no_words_after_a_roll_elsewhere(dialect: str) -> None:
    with pytest.raises(DiceSyntaxError):
        parse("1d20+5 adv", dialect)
