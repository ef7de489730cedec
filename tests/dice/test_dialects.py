"""Conformance vectors per dialect: what a game master types in each tool, how Arbiter
reads it (its canonical spelling, "read as"), and the range or distribution that must come
out. The examples follow what each tool's public documentation describes, in our own words
and numbers; d20 (Avrae's library, installed for the benchmarks) is also rolled itself with
the same forced dice, as a second check of that dialect.
"""

from __future__ import annotations

import warnings
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pytest

with warnings.catch_warnings():  # d20's parser library imports modules Python deprecates
    warnings.simplefilter("ignore", DeprecationWarning)
    import d20

from arbiter.dice import (
    DIALECTS,
    DiceError,
    DiceSyntaxError,
    ForcedDice,
    NoExactOdds,
    distribution,
    parse,
    roll,
)
from arbiter.dice.dialects import dialect as dialect_named


@dataclass(frozen=True)
class Vector:
    """``text`` read in ``dialect`` is ``read_as``; its totals run from ``lo`` to ``hi``
    (None: no exact odds); ``facts`` are probabilities or the mean; ``forced`` dice give
    ``total``."""

    dialect: str
    text: str
    read_as: str
    lo: int | None
    hi: int | None
    facts: dict[str, Fraction] = field(default_factory=dict)
    forced: tuple[int, ...] = ()
    total: int | None = None

    def __str__(self) -> str:
        return f"{self.dialect}:{self.text}"


F = Fraction
VECTORS = [
    # -- Arbiter: the canonical notation -------------------------------------------------
    Vector("arbiter", "4d6k3", "4d6kh3", 3, 18, {"mean": F(15869, 1296)}, (6, 1, 4, 4), 14),
    Vector("arbiter", "d%", "1d%", 1, 100, {"mean": F(101, 2)}),
    Vector("arbiter", "3d6>=5", "3d6>=5", 0, 3, {"mean": F(1)}, (5, 4, 6), 2),
    Vector("arbiter", "3d6>=10", "3d6>=10", 0, 0),  # counts dice: no d6 shows 10
    Vector("arbiter", "(3d6)>=10", "(3d6)>=10", 0, 1, {"P=1": F(5, 8)}),
    # a d6 exploding on 5 or 6 explodes up to 25 times: (1/3)**26 < 1e-12 <= (1/3)**25
    Vector("arbiter", "1d6!>4", "1d6!>4", 1, 26 * 6, {"P=5": F(0)}, (5, 6, 2), 13),
    Vector("arbiter", "1d20r1", "1d20r1", 2, 20, {"P=2": F(1, 19)}, (1, 1, 9), 9),
    Vector("arbiter", "7/2", "7/2", 3, 3),
    Vector("arbiter", "7/^2", "7/^2", 4, 4),
    Vector("arbiter", "-7%3", "-7%3", 2, 2),  # the remainder has the divisor's sign
    Vector("arbiter", "{2d20, 1d20+5}kh1", "{2d20,1d20+5}kh1", 6, 40,
           forced=(3, 4, 2), total=7),
    Vector("arbiter", "floor(1d20/2+1d20/2)", "floor(1d20/2+1d20/2)", 1, 20,
           {"mean": F(21, 2) - F(1, 4)}),
    Vector("arbiter", "1d20+5 # to hit", "1d20+5 # to hit", 6, 25),
    # -- Roll20 ----------------------------------------------------------------------------
    # a target number counts the dice at or over it; "<" counts those at or under
    Vector("roll20", "3d6>3", "3d6>=3", 0, 3, {"mean": F(2)}, (2, 3, 6), 2),
    Vector("roll20", "5d10<2", "5d10<=2", 0, 5, {"mean": F(1)}),
    # rerolls go on until the die misses; ro once
    Vector("roll20", "2d10r<2", "2d10r<=2", 6, 20, {"P=6": F(1, 64)}, (1, 2, 7, 10), 17),
    Vector("roll20", "1d10ro<2", "1d10ro<=2", 1, 10, {"P=1": F(2, 100)}, (2, 2), 2),
    # exploding at or over a point, compounding, penetrating
    Vector("roll20", "1d6!>5", "1d6!>=5", 1, 26 * 6, {}, (5, 6, 1), 12),
    Vector("roll20", "{5d6!!}>8", "{5d6!!}>=8", 0, 5, {}, (6, 3, 2, 2, 2, 6, 6, 1), 2),
    Vector("roll20", "2d6!p", "2d6!p", 2, 12 + 2 * 20 * 5, {}, (6, 6, 1, 3), 14),
    # critical marks change nothing; failures count against successes
    Vector("roll20", "1d20cs>18cf<3", "1d20cs>=18cf<=3", 1, 20, {"mean": F(21, 2)}),
    Vector("roll20", "4d6>4f1", "4d6>=4f1", -4, 4, {"mean": F(4, 3)}, (1, 4, 5, 1), 0),
    Vector("roll20", "8d100d3", "8d100dl3", 5, 500),
    Vector("roll20", "4d6s", "4d6s", 4, 24),
    # a group of one roll keeps from its dice; of several, from their totals
    Vector("roll20", "{4d6+3d8}k4", "{4d6+3d8}kh4", 4, 30, {}, (1, 2, 3, 4, 8, 7, 6), 25),
    # exploding dice join the pool before the highest four are kept
    Vector("roll20", "{4d6!+3d8}k4", "{4d6!+3d8}kh4", 4, 30,
           {"mean": F(42219133, 1990656)}, (1, 2, 3, 4, 8, 7, 6), 25),
    Vector("roll20", "5d6!kh3", "5d6!kh3", 3, 18, {}, (6, 2, 1, 1, 1, 6, 6, 3), 18),
    # several reroll points: a roll is rerolled while it shows any of them
    Vector("roll20", "1d10r1r3", "1d10r1r3", 2, 10, {"P=2": F(1, 8), "P=3": F(0)}, (3, 1, 8),
           8),
    Vector("roll20", "2d8r<2r>7", "2d8r<=2r>=7", 6, 12, {"mean": F(9)}, (1, 8, 5, 2, 4), 9),
    Vector("roll20", "{1d20+5, 1d20+2}kh1", "{1d20+5,1d20+2}kh1", 6, 25),
    # totals may be fractions in Roll20; Arbiter rounds the whole down once
    Vector("roll20", "1d20/2", "floor(1d20/2)", 0, 10, {"mean": F(5)}),
    Vector("roll20", "1d20/2+1d20/2", "floor(1d20/2+1d20/2)", 1, 20,
           {"mean": F(41, 4)}, (3, 4), 3),
    Vector("roll20", "round(7/2)", "round(7/2)", 4, 4),
    Vector("roll20", "ceil(1d6/4)", "ceil(1d6/4)", 1, 2, {"P=2": F(1, 3)}),
    # % keeps the sign of the number divided (JavaScript's)
    Vector("roll20", "1d20%5", "1d20%5", 0, 4),
    Vector("roll20", "(1d6-7)%4", "rem((1d6-7),4)", -3, 0, {"P=0": F(1, 6)}),
    Vector("roll20", "-7%3", "rem(-7,3)", -1, -1),
    Vector("roll20", "1d20+5 Roll for Initiative", "1d20+5 # Roll for Initiative", 6, 25),
    Vector("roll20", "2d6[fire]+1d4[cold]", "2d6[fire]+1d4[cold]", 3, 16),
    # -- Foundry VTT ------------------------------------------------------------------------
    Vector("foundry", "2d20kh", "2d20kh1", 1, 20, {"mean": F(553, 40)}, (4, 17), 17),
    Vector("foundry", "2d20kl", "2d20kl1", 1, 20, {"mean": F(287, 40)}),
    Vector("foundry", "4d6dl", "4d6dl1", 3, 18),
    Vector("foundry", "20d20d", "20d20dl1", 19, 380),
    # r rerolls once (the second roll stands), rr again and again
    Vector("foundry", "1d20r1", "1d20ro1", 1, 20, {"P=1": F(1, 400)}, (1, 1), 1),
    Vector("foundry", "1d20r", "1d20ro1", 1, 20, {"P=1": F(1, 400)}),
    Vector("foundry", "1d20rr1", "1d20r1", 2, 20, {"P=2": F(1, 19)}, (1, 1, 8), 8),
    Vector("foundry", "2d10rr<3", "2d10r<3", 6, 20, {"P=6": F(1, 64)}),
    # x explodes (">" is strict), xo once
    Vector("foundry", "1d6x", "1d6!", 1, 21 * 6, {"P=6": F(0)}, (6, 2), 8),
    Vector("foundry", "1d10x>8", "1d10!>8", 1, 21 * 10, {}, (9, 10, 3), 22),
    Vector("foundry", "3d6xo", "3d6!o", 3, 36, {}, (6, 6, 1, 2), 15),
    # cs counts successes, cf failures, df takes failures away from successes
    Vector("foundry", "6d6cs>4", "6d6>4", 0, 6, {"mean": F(2)}, (5, 4, 6, 1, 1, 2), 2),
    Vector("foundry", "6d6cs>=5df=1", "6d6>=5f1", -6, 6, {"mean": F(1)},
           (5, 1, 6, 1, 1, 2), -1),
    Vector("foundry", "6d6cf<3", "6d6<3", 0, 6, {"mean": F(2)}),
    Vector("foundry", "4d6min3", "4d6min3", 12, 24),
    Vector("foundry", "1d20max15", "1d20max15", 1, 15, {"P=15": F(6, 20)}),
    Vector("foundry", "4dF", "4dF", -4, 4, {"P=0": F(19, 81)}, (1, 3, 2, 2), 0),
    # a pool keeps from its terms' totals, even with one term
    Vector("foundry", "{1d20, 1d20+5}kh", "{1d20,1d20+5}kh1", 6, 25),
    Vector("foundry", "{4d6}kh", "{4d6,}kh1", 4, 24, {"mean": F(14)}),
    Vector("foundry", "{3d6, 3d6, 3d6}kh2", "{3d6,3d6,3d6}kh2", 6, 36),
    Vector("foundry", "1d20/3", "floor(1d20/3)", 0, 6),
    Vector("foundry", "(2d6-8)%5", "rem((2d6-8),5)", -4, 4),
    Vector("foundry", "2d6[fire] + 1d4[cold] # flaming sword",
           "2d6[fire]+1d4[cold] # flaming sword", 3, 16),
    # -- d20 (Avrae) ------------------------------------------------------------------------
    # k and p with a number keep or drop the dice showing it; h and l pick highest, lowest
    Vector("d20", "4d6k3", "4d6k=3", 0, 12, {"P=0": F(5**4, 6**4)}, (6, 1, 4, 3), 3),
    Vector("d20", "4d6kh3", "4d6kh3", 3, 18, {"mean": F(15869, 1296)}, (6, 1, 4, 3), 13),
    Vector("d20", "4d6p1", "4d6d=1", 0, 24, {}, (1, 5, 1, 2), 7),
    Vector("d20", "4d6pl1", "4d6dl1", 3, 18),
    Vector("d20", "4d6k>4", "4d6k>4", 0, 24, {}, (5, 4, 6, 1), 11),
    # a percentile die is one tens die
    Vector("d20", "d%", "1dT", 0, 90, {"P=0": F(1, 10), "P=5": F(0)}, (10,), 90),
    # a comparison compares totals
    Vector("d20", "3d6>=10", "(3d6)>=10", 0, 1, {"P=1": F(5, 8)}, (3, 4, 2), 0),
    Vector("d20", "1d20!=1", "1d20<>1", 0, 1, {"P=1": F(19, 20)}),
    Vector("d20", "1d20+5==25", "1d20+5=25", 0, 1, {"P=1": F(1, 20)}),
    # reroll again and again, once; explode; reroll and add (one die)
    Vector("d20", "2d20rr1", "2d20r1", 4, 40, {"P=4": F(1, 361)}),
    Vector("d20", "1d20ro1", "1d20ro1", 1, 20, {"P=1": F(1, 400)}),
    Vector("d20", "1d6e6", "1d6!", 1, 21 * 6),
    Vector("d20", "1d6ra6", "1d6!o", 1, 12),
    Vector("d20", "1d20mi10", "1d20min10", 10, 20, {"P=10": F(10, 20)}),
    Vector("d20", "2d6ma4", "2d6max4", 2, 8),
    # / divides exactly and the total is truncated at the end; // rounds down
    Vector("d20", "1d20/2", "trunc(1d20/2)", 0, 10, {"mean": F(5)}, (7,), 3),
    Vector("d20", "(1d6-4)/2", "trunc((1d6-4)/2)", -1, 1, {"P=0": F(3, 6)}, (1,), -1),
    Vector("d20", "(1d6-4)//2", "floor((1d6-4)/2)", -2, 1, {}, (1,), -2),
    Vector("d20", "1d20/2+1d6/3", "trunc(1d20/2+1d6/3)", 0, 12, {}, (7, 5), 5),
    Vector("d20", "(1d6-7)%3", "(1d6-7)%3", 0, 2),
    # sets
    Vector("d20", "(1d20, 1d20)kh1", "{1d20,1d20}kh1", 1, 20, {"mean": F(553, 40)}),
    Vector("d20", "(1d20+5, 1d20)kh1", "{1d20+5,1d20}kh1", 6, 25, {}, (9, 14), 14),
    Vector("d20", "(4d6)kh3", "4d6kh3", 3, 18),
    Vector("d20", "(4d6+1)kh1", "{4d6+1,}kh1", 5, 25),
    Vector("d20", "(4d6, 4d6, 4d6)kh2", "{4d6,4d6,4d6}kh2", 8, 48),
    Vector("d20", "1d20+5 to hit the orc", "1d20+5 # to hit the orc", 6, 25),
    Vector("d20", "1d20 [str] + 3", "1d20[str]+3", 4, 23),
    # -- Foundry's counting modifiers, and their Arbiter spellings -------------------------
    # even and odd count the dice showing an even or odd number
    Vector("foundry", "6d6even", "6d6even", 0, 6, {"P=0": F(1, 64), "mean": F(3)},
           (2, 4, 6, 1, 3, 5), 3),
    Vector("foundry", "5d10odd", "5d10odd", 0, 5, {"mean": F(5, 2)}),
    # ms: the term's total minus a target (or, with < and <=, the target minus the total)
    Vector("foundry", "10d6ms>4", "(10d6-4)", 6, 56, {"mean": F(31)}),
    Vector("foundry", "2d20ms<15", "(15-2d20)", -25, 13, {"mean": F(-6)}, (7, 3), 5),
    # df counts each failure -1 and every other die its value; sf minus its value
    Vector("foundry", "10d6df<2", "10d6df<2", -10, 60, {"mean": F(95, 3)},
           (1, 1, 6, 5, 4, 3, 2, 2, 2, 2), 24),
    Vector("foundry", "4d6sf<3", "4d6sf<3", -8, 24, {"mean": F(10)}, (1, 2, 6, 5), 8),
    Vector("foundry", "6d6cs>4sf1", "6d6>4sf1", -6, 6, {"mean": F(1)}, (5, 6, 1, 2, 3, 1), 0),
    Vector("arbiter", "4d6df1", "4d6df1", -4, 24, {"mean": F(38, 3)}, (1, 6, 6, 2), 13),
    Vector("arbiter", "3d6ro1ro2", "3d6ro1ro2", 3, 18, {"mean": F(25, 2)}),
    Vector("arbiter", "3d6!pkh1", "3d6!pkh1", 1, 6, {}, (5, 6, 6, 2, 1), 6),
]


@pytest.mark.parametrize("vector", VECTORS, ids=str)
def test_conformance(vector: Vector) -> None:
    node = parse(vector.text, vector.dialect)
    assert str(node) == vector.read_as
    assert parse(vector.read_as) == node  # the canonical spelling reads back the same
    if vector.lo is None:
        with pytest.raises(NoExactOdds):
            distribution(vector.text, vector.dialect)
    else:
        dist = distribution(vector.text, vector.dialect)
        assert (dist.lo, dist.hi) == (vector.lo, vector.hi)
        for fact, value in vector.facts.items():
            if fact == "mean":
                assert dist.mean == value
            else:
                assert dist.probability(int(fact.removeprefix("P="))) == value, fact
    if vector.forced:
        result = roll(vector.text, ForcedDice(vector.forced), vector.dialect)
        assert result.total == vector.total, result.render()


def test_every_dialect_has_vectors() -> None:
    counts = {name: sum(v.dialect == name for v in VECTORS) for name in DIALECTS}
    assert all(n >= 12 for n in counts.values()), counts


# -- the differences, side by side ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "readings"),
    [
        ("d%", {"arbiter": "1d%", "roll20": "1d%", "foundry": "1d%", "d20": "1dT"}),
        ("4d6k3", {"arbiter": "4d6kh3", "roll20": "4d6kh3", "foundry": "4d6kh3",
                   "d20": "4d6k=3"}),
        ("3d6>=10", {"arbiter": "3d6>=10", "roll20": "3d6>=10", "foundry": "3d6>=10",
                     "d20": "(3d6)>=10"}),
        ("1d6!>4", {"arbiter": "1d6!>4", "roll20": "1d6!>=4", "foundry": "1d6!>4",
                    "d20": "1d6!>4"}),
        ("2d10r<3", {"arbiter": "2d10r<3", "roll20": "2d10r<=3", "foundry": "2d10ro<3",
                     "d20": "2d10r<3"}),
        ("5d10>7", {"arbiter": "5d10>7", "roll20": "5d10>=7", "foundry": "5d10>7",
                    "d20": "(5d10)>7"}),
        ("1d20/2", {"arbiter": "1d20/2", "roll20": "floor(1d20/2)",
                    "foundry": "floor(1d20/2)", "d20": "trunc(1d20/2)"}),
        ("(1d6-4)%3", {"arbiter": "(1d6-4)%3", "roll20": "rem((1d6-4),3)",
                       "foundry": "rem((1d6-4),3)", "d20": "(1d6-4)%3"}),
        ("{4d6}kh1", {"arbiter": "{4d6}kh1", "roll20": "{4d6}kh1", "foundry": "{4d6,}kh1",
                      "d20": "{4d6,}kh1"}),
    ],
)
def test_one_spelling_many_meanings(text: str, readings: dict[str, str]) -> None:
    for name, canonical in readings.items():
        assert str(parse(text, name)) == canonical, name


def test_the_differences_change_the_odds() -> None:
    assert distribution("4d6k3").mean != distribution("4d6k3", "d20").mean
    assert distribution("d%").hi == 100 and distribution("d%", "d20").hi == 90
    assert distribution("3d6>=4").hi == 3 and distribution("3d6>=4", "d20").hi == 1
    # Roll20's <3 is at most 3: the die is rerolled until it shows 4 or more
    assert distribution("1d6r<3").probability(3) == Fraction(1, 4)
    assert distribution("1d6r<3", "roll20").probability(3) == 0
    assert distribution("1d6r<3", "roll20").probability(4) == Fraction(1, 3)
    # Foundry's r is Arbiter's ro: a 1 may stand
    assert distribution("1d20r1", "foundry").probability(1) == Fraction(1, 400)
    # d20 truncates toward zero once, Arbiter rounds down at each division
    assert distribution("(1d6-4)/2").lo == -2 and distribution("(1d6-4)/2", "d20").lo == -1


# -- refused with a reason ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dialect", "text", "message"),
    [
        ("foundry", "4d6kh3r1", "in Foundry VTT modifiers apply in the order written, and "
                                "Arbiter applies rerolls before keeping and dropping: write "
                                "'r' before 'kh'"),
        ("d20", "4d6kh3ro1", "in d20 (Avrae) modifiers apply in the order written"),
        ("d20", "4d6mi2rr1", "Arbiter applies rerolls before minimums and maximums"),
        ("foundry", "2d6x2>5", "Foundry's capped form"),
        ("foundry", "2d6r1=1", "Foundry's capped form"),
        ("foundry", "1d20X", "Foundry's X (a big explosion) is not supported"),
        ("foundry", "10d6cs>4cf<2", "Foundry's cs and cf both count dice"),
        ("foundry", "10d6ms", "expected a target number after 'ms', as in 6d6ms>12"),
        ("foundry", "10d6sf", "expected a failure point after 'sf', as in 6d6sf<3"),
        ("foundry", "1d10r1r3", "reroll given twice on one die"),
        ("arbiter", "2d6r1ro2", "several reroll points on one die must all be r or all be ro"),
        ("roll20", "1d4r1r2r<5", "rerolls 1 or 2 or <=5 match every face of d4"),
        ("roll20", "4d6f1", "a failure count needs a success count before it"),
        ("d20", "4d6ra6", "d20's ra adds one die to the whole pool"),
        ("d20", "(1d20, 1d20)k20", "d20's k with a number on a set"),
        ("roll20", "1d20+", "expression ends too early"),
        ("arbiter", "1d20+5 to hit", "unexpected 't'"),
    ],
)
def test_what_a_dialect_cannot_say_is_refused_clearly(dialect: str, text: str,
                                                      message: str) -> None:
    with pytest.raises(DiceSyntaxError) as raised:
        parse(text, dialect)
    assert message in str(raised.value)


def test_an_unknown_dialect_is_named() -> None:
    with pytest.raises(DiceError, match="unknown dice dialect 'fantasy grounds'; the "
                                        "dialects are arbiter, roll20, foundry, d20"):
        parse("1d20", "fantasy grounds")
    with pytest.raises(DiceError, match="unknown dice dialect"):
        dialect_named("roll21")


def test_trailing_text_is_a_comment_only_after_a_space_and_not_a_modifier() -> None:
    assert str(parse("4d6 kh3 best of", "roll20")) == "4d6kh3 # best of"
    assert str(parse("1d20 Roll", "roll20")) == "1d20 # Roll"
    assert str(parse("1d20 dex check", "d20")) == "1d20 # dex check"
    with pytest.raises(DiceSyntaxError, match="unexpected character 'x'"):
        parse("1d20x", "roll20")


# -- d20 itself, with the same dice ----------------------------------------------------------


class _Forced:
    """Stands in for the ``random`` module inside d20: ``randrange`` gives the forced dice
    (``randrange(n)`` is a die showing one more, ``randrange(0, 100, 10)`` a tens die)."""

    def __init__(self, values: tuple[int, ...]) -> None:
        self.values = deque(values)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        value = self.values.popleft()
        return (value - 1) * step if stop is not None else value - 1


@pytest.mark.parametrize(
    "vector", [v for v in VECTORS if v.dialect == "d20" and v.forced], ids=str
)
def test_d20_itself_agrees(vector: Vector, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rolled by Avrae's d20 with the same dice, each vector gives the same total."""
    monkeypatch.setattr(d20.expression, "random", _Forced(vector.forced))
    theirs: Any = d20.roll(vector.text, allow_comments=True)
    assert theirs.total == vector.total


@pytest.mark.parametrize(
    ("text", "forced"),
    [
        ("4d6k3", (3, 3, 1, 6)), ("4d6kl2", (5, 2, 6, 2)), ("4d6p6", (6, 1, 6, 2)),
        ("4d6k<3", (1, 2, 3, 6)), ("5d6p>4", (5, 6, 4, 1, 2)), ("d%+d%", (1, 10)),
        ("1d20>=11", (11,)), ("1d20<11", (11,)), ("2d6!=7", (3, 4)), ("-7//2", ()),
        ("(0-7)/2", ()), ("1d20/3+1d20/3", (2, 2)), ("(1d6-7)%3", (2,)),
        ("(1d20, 1d20)kl1", (8, 3)), ("(4d6)kh2", (1, 6, 2, 5)),
        ("(2d6+1, 1d8)kh1", (1, 1, 4)), ("1d20mi5", (2,)), ("3d6ma4", (6, 2, 5)),
        ("1d20 [dex] + 4", (12,)), ("(1d20)kh1 + 2", (5,)),
    ],
)
def test_d20_itself_agrees_on_more(text: str, forced: tuple[int, ...],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ours = roll(text, ForcedDice(forced), "d20").total
    monkeypatch.setattr(d20.expression, "random", _Forced(forced))
    assert ours == d20.roll(text).total
    dist = distribution(text, "d20")
    assert dist.probability(ours) > 0
