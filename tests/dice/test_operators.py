"""Each operator a game master types: how it reads, how it rolls (every die's fate in the
result), and its exact odds against icepool where icepool can express it, or the clear
"no exact odds" error and a Monte-Carlo estimate where there is no exact model here."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import icepool
import pytest

from arbiter.dice import (
    DiceError,
    DiceEvalError,
    DiceLimitError,
    DiceSyntaxError,
    ForcedDice,
    NoExactOdds,
    SeededDice,
    distribution,
    estimate,
    exact,
    limits,
    parse,
    roll,
    sources,
)
from arbiter.dice.ast import Label, RollGroup
from arbiter.dice.estimate import expected_dice

from .icepool_model import as_dict, model

d6, d20 = icepool.d6, icepool.d20


def ours(text: str, dialect: str = "arbiter") -> dict[int, Fraction]:
    return dict(distribution(text, dialect).items())


def shown(text: str, forced: list[int], dialect: str = "arbiter") -> str:
    return roll(text, ForcedDice(forced), dialect).render()


# -- how each one reads and rolls ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical", "forced", "rendered"),
    [
        # penetrating: each die an explosion adds counts one less than it shows
        ("1d6!p", "1d6!p", [6, 6, 3], "1d6!p (6!, 6→5!, 3→2) = 13"),
        ("2d10!p>=9", "2d10!p>=9", [9, 1, 4], "2d10!p>=9 (9!, 1→0, 4) = 13"),
        # explode once
        ("1d6!o", "1d6!o", [6, 6], "1d6!o (6!, 6) = 12"),
        # keep and drop with no count keep or drop one
        ("2d20kh", "2d20kh1", [4, 17], "2d20kh1 (~~4~~, 17) = 17"),
        ("2d20kl", "2d20kl1", [4, 17], "2d20kl1 (4, ~~17~~) = 4"),
        ("4d6d1", "4d6dl1", [3, 1, 6, 1], "4d6dl1 (3, 1, 6, ~~1~~) = 10"),  # the later of a tie
        # keep or drop the dice that match
        ("5d6k>4", "5d6k>4", [5, 6, 1, 2, 5], "5d6k>4 (5, 6, ~~1~~, ~~2~~, 5) = 16"),
        ("4d6d=1", "4d6d=1", [1, 1, 3, 4], "4d6d=1 (~~1~~, ~~1~~, 3, 4) = 7"),
        # critical marks change no total
        ("2d20cs20cf1", "2d20cs20cf1", [1, 20], "2d20cs20cf1 (1 fumble, 20 crit) = 21"),
        ("1d20cs>=19", "1d20cs>=19", [19], "1d20cs>=19 (19 crit) = 19"),
        # failures count against successes
        ("3d6>=4f1", "3d6>=4f1", [1, 4, 6], "3d6>=4f1 (__1__, **4**, **6**) = 1"),
        # per-die minimum and maximum
        ("4d6min2", "4d6min2", [1, 3, 1, 6], "4d6min2 (1→2, 3, 1→2, 6) = 13"),
        ("4d6mi2", "4d6min2", [1, 3, 1, 6], "4d6min2 (1→2, 3, 1→2, 6) = 13"),
        ("3d6max4kh2", "3d6max4kh2", [6, 5, 1], "3d6max4kh2 (6→4, 5→4, ~~1~~) = 8"),
        # Fudge and tens dice (rolled as a d3 and a d10)
        ("4dF", "4dF", [1, 2, 3, 3], "4dF (-1, 0, +1, +1) = 1"),
        ("3dT", "3dT", [1, 10, 5], "3dT (0, 90, 40) = 130"),
        # sorting: the order shown, not the total
        ("4d6s", "4d6s", [2, 5, 1, 6], "4d6s (1, 2, 5, 6) = 14"),
        ("4d6sd", "4d6sd", [2, 5, 1, 6], "4d6sd (6, 5, 2, 1) = 14"),
        ("4d6sa", "4d6s", [2, 5, 1, 6], "4d6s (1, 2, 5, 6) = 14"),
        # groups of members, and of the dice of one member
        ("{1d20+5, 2d6}kh1", "{1d20+5,2d6}kh1", [12, 3, 4],
         "{1d20 (12) + 5 = 17, 2d6 (3, 4) = ~~7~~}kh1 = 17"),
        ("{3d6+2d8}kh2", "{3d6+2d8}kh2", [6, 1, 2, 8, 7],
         "{3d6 (~~6~~, ~~1~~, ~~2~~) + 2d8 (8, 7)}kh2 = 15"),
        ("{2d6, 1d8+1}>=7", "{2d6,1d8+1}>=7", [3, 5, 2],
         "{2d6 (3, 5) = **8**, 1d8 (2) + 1 = 3}>=7 = 1"),
        ("{1d20+2,}kh1", "{1d20+2,}kh1", [9], "{1d20 (9) + 2 = 11}kh1 = 11"),
        # modulo, rounding functions, comparisons of totals
        ("1d6 % 4", "1d6%4", [6], "1d6 (6) % 4 = 2"),
        ("(1d6-5)%4", "(1d6-5)%4", [1], "(1d6 (1) - 5) % 4 = 0"),
        ("rem(1d6-6,4)", "rem(1d6-6,4)", [1], "rem(1d6 (1) - 6, 4) = -1"),
        ("floor(1d7/2)", "floor(1d7/2)", [7], "floor(1d7 (7) / 2) = 3"),
        ("ceil(1d7/2)", "ceil(1d7/2)", [7], "ceil(1d7 (7) / 2) = 4"),
        ("round(1d5/2)", "round(1d5/2)", [5], "round(1d5 (5) / 2) = 3"),
        ("floor(1d6/4*4)", "floor(1d6/4*4)", [3], "floor(1d6 (3) / 4 * 4) = 3"),
        ("1d6/4*4", "1d6/4*4", [3], "1d6 (3) / 4 * 4 = 0"),
        ("abs(1d6-5)", "abs(1d6-5)", [1], "abs(1d6 (1) - 5) = 4"),
        ("(2d6)>=7", "(2d6)>=7", [3, 4], "(2d6 (3, 4)) >= 7 = 1"),
        ("1d20+5<>10", "1d20+5<>10", [5], "1d20 (5) + 5 <> 10 = 0"),
        # labels and comments
        ("2d6[fire] + 1d4[cold] # with a torch", "2d6[fire]+1d4[cold] # with a torch",
         [1, 2, 3], "2d6 (1, 2) [fire] + 1d4 (3) [cold] = 6 # with a torch"),
        ("1d20 [Attaque réussie ?]", "1d20[Attaque réussie ?]", [4],
         "1d20 (4) [Attaque réussie ?] = 4"),
    ],
)
def test_each_operator_reads_and_rolls(text: str, canonical: str, forced: list[int],
                                       rendered: str) -> None:
    node = parse(text)
    assert str(node) == canonical
    assert parse(canonical) == node
    assert shown(text, forced) == rendered
    try:
        dist = distribution(node)
    except NoExactOdds:
        return
    assert dist.probability(roll(node, ForcedDice(forced)).total) > 0


def test_every_fate_is_in_the_result_tree() -> None:
    result = roll("4d6r1!kh3cs6cf2", ForcedDice([1, 6, 4, 2, 3, 5]))
    fates = [(d.value, d.fate, d.exploded, d.critical) for d in result.dice()]
    assert fates == [
        (1, "rerolled", False, None),   # rerolled (a 1)
        (6, "kept", True, "success"),   # exploded, a critical success
        (4, "kept", False, None),       # added by the explosion
        (2, "dropped", False, "failure"),  # dropped as lowest, marked a fumble
        (3, "dropped", False, None),
        (5, "kept", False, None),
    ]
    assert result.total == 15
    data = result.to_json()["dice"]
    assert data[0] == {"value": 1, "faces": 6, "fate": "rerolled"}
    assert data[1] == {"value": 6, "faces": 6, "fate": "kept", "exploded": True,
                       "critical": "success"}
    assert data[3]["critical"] == "failure" and data[3]["fate"] == "dropped"
    counted = roll("3d6>=5f1", ForcedDice([5, 1, 3])).to_json()["dice"]
    assert [(d.get("success"), d.get("failure")) for d in counted] == [
        (True, None), (False, True), (False, None)]
    clamped = roll("1dFmin0", ForcedDice([1])).to_json()["dice"][0]
    assert clamped == {"value": 0, "faces": 3, "fate": "kept", "rolled": -1, "kind": "fudge"}


def test_a_roll_result_keeps_labels_and_the_comment() -> None:
    result = roll("1d20+5[dex] # initiative", ForcedDice([7]))
    assert result.comment == "initiative"
    assert result.to_json()["comment"] == "initiative"
    assert result.to_json()["expression"] == "1d20+5[dex] # initiative"
    assert isinstance(parse("1d20+5[dex]").right, Label)  # type: ignore[union-attr]


# -- exact odds ---------------------------------------------------------------------------------

E6 = 20  # a d6 exploding on 6 explodes up to 20 times: (1/6)**21 < 1e-12


def penetrating(die: Any, depth: int) -> Any:
    """A penetrating chain written out: a die showing its top face adds a chain one lower."""
    top = die.max_outcome()

    def chain(k: int, shift: int) -> Any:
        if k == 0:
            return die - shift
        rest = chain(k - 1, 1)
        return die.map(lambda v: v - shift + rest if v == top else v - shift)

    return chain(depth, 0)


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("1d6!p", lambda: penetrating(d6, E6)),
        ("2d6!p", lambda: 2 @ penetrating(d6, E6)),
        ("1d6!o", lambda: d6.explode(depth=1)),
        ("3d6!o", lambda: 3 @ d6.explode(depth=1)),
        ("2d20kh", lambda: d20.highest(2, 1)),
        ("3d20kl", lambda: d20.lowest(3, 1)),
        ("5d6dl", lambda: d6.highest(5, 4)),
        ("4d6min2", lambda: 4 @ d6.clip(2, 6)),
        ("4d6max5kh3", lambda: d6.clip(1, 5).highest(4, 3)),
        ("1d20mi10", lambda: d20.clip(10, 20)),
        ("4dF", lambda: 4 @ icepool.Die([-1, 0, 1])),
        ("4dFkh2", lambda: icepool.Die([-1, 0, 1]).highest(4, 2)),
        ("2dT", lambda: 2 @ icepool.Die(range(0, 100, 10))),
        ("3d6>=4f1", lambda: 3 @ d6.map(lambda v: 1 if v >= 4 else -1 if v == 1 else 0)),
        ("5d6k>4", lambda: 5 @ d6.map(lambda v: v if v > 4 else 0)),
        ("4d6d=1", lambda: 4 @ d6.map(lambda v: 0 if v == 1 else v)),
        ("2d20cs>=19cf1", lambda: 2 @ d20),
        ("4d6sd", lambda: 4 @ d6),
        ("{2d20, 1d20+5}kh1", lambda: icepool.Pool([2 @ d20, d20 + 5]).highest(1).sum()),
        ("{1d20, 1d20, 1d20}kh2", lambda: d20.highest(3, 2)),
        ("{1d20+4, 1d20+2, 1d20}kl2",
         lambda: icepool.Pool([d20 + 4, d20 + 2, d20]).lowest(2).sum()),
        ("{2d6, 1d12}>=7", lambda: (2 @ d6).map(lambda v: int(v >= 7))
         + icepool.d12.map(lambda v: int(v >= 7))),
        ("{4d6}kh3", lambda: d6.highest(4, 3)),
        ("{3d6+2d8}>=6", lambda: 3 @ d6.map(lambda v: int(v >= 6))
         + 2 @ icepool.d8.map(lambda v: int(v >= 6))),
        ("1d20 % 3", lambda: d20.map(lambda v: v % 3)),
        ("(1d6-4) % 3", lambda: d6.map(lambda v: (v - 4) % 3)),
        ("rem(1d6-4, 3)", lambda: d6.map(lambda v: int(math.fmod(v - 4, 3)))),
        ("floor(1d20/3)", lambda: d20.map(lambda v: v // 3)),
        ("ceil(2d6/4)", lambda: (2 @ d6).map(lambda v: -(-v // 4))),
        ("round(1d10/4)", lambda: icepool.d10.map(lambda v: math.floor(Fraction(v, 4) + 0.5))),
        ("trunc((1d6-4)/3)", lambda: d6.map(lambda v: math.trunc(Fraction(v - 4, 3)))),
        ("floor(1d20/2+1d6/3)", lambda: icepool.map(
            lambda a, b: math.floor(Fraction(a, 2) + Fraction(b, 3)), d20, d6)),
        ("abs(1d6-1d6)", lambda: (d6 - d6).map(abs)),
        ("(3d6)>=10", lambda: (3 @ d6).map(lambda v: int(v >= 10))),
        ("1d20+5>=2d6+8", lambda: icepool.map(lambda a, b: int(a + 5 >= b + 8), d20, 2 @ d6)),
        ("2d6[fire]+1d4[cold] # note", lambda: 2 @ d6 + icepool.d4),
    ],
)
def test_exact_odds_match_icepool(text: str, reference: Any) -> None:
    assert ours(text) == as_dict(reference())


@pytest.mark.parametrize(
    "text",
    ["4d6!o>=5", "2dF!min0", "3d6r1!p>4f1>=4", "{1d20/2, 1d8}kh1", "{1d6!!, 1d8, 2d4}kl2>=4",
     "5d6!!d<3>=4", "floor({1d6, 1d6}kh1/2)", "{3d6!+2d8!p}>=5f1", "{2d6!!+2d6!!}kh3",
     "{4d6+3d8}kh4", "{2d6+1d8}kl2", "{1d4+1d6+1d8+1d10+1d12}kh2", "{2dF+2d4}kh2",
     "{2d6!!+1d8min3}kh1", "{1d6+1d6+1d8}dh1", "{2d10+3d4}kl3>=3f1", "{3d6+2d8}kh2>=5"],
)
def test_exact_odds_match_the_icepool_model(text: str) -> None:
    node = parse(text)
    assert dict(distribution(node).items()) == as_dict(model(node))


def test_a_penetrating_die_can_show_zero_but_never_less() -> None:
    dist = distribution("1d6!p")
    assert dist.lo == 1  # the first die shows 1 to 6; only later ones lose one
    assert dist.probability(6) == Fraction(1, 36)  # a 6, then a 1 that counts 0
    assert dist.probability(10) == Fraction(1, 36)  # a 6, then a 5 that counts 4
    assert dist.probability(11) == Fraction(1, 216)  # 6, a 6 counted 5, a 1 counted 0
    assert roll("2d6!p", ForcedDice([6, 1, 2])).total == 8  # 6, then 1 counted 0, then 2


# -- no exact model: a clear error, and an estimate ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{1d100+1,1d90+1,1d80+1,1d70+1,1d60+1,1d50+1,1d40+1}kh2",
         "keeping 2 of 7 members takes up to 1,524,100 steps, more than the 1,000,000"),
    ],
)
def test_no_exact_odds_says_so_before_any_work(
    text: str, why: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def called(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("exact work started")

    monkeypatch.setattr(exact, "_eval", called)
    exact.clear_cache()
    with pytest.raises(NoExactOdds) as raised:
        distribution(text)
    assert str(raised.value) == (
        f"no exact odds for {exact._short(parse(text))}: {why}"  # (cut after 39 characters)
        + str(raised.value).split(why)[1]
    )
    assert str(raised.value).endswith("; a Monte-Carlo estimate gives them approximately")
    assert isinstance(raised.value, DiceError)


def test_an_estimate_has_100000_rolls_and_its_standard_error() -> None:
    guess = estimate("3d6!kh2", seed=7)
    assert guess.rolls == limits.ESTIMATE_ROLLS == 100_000
    exact_mean = float(as_dict_mean(d6.explode_to_pool(3, depth=E6).highest(2).sum()))
    assert abs(guess.mean - exact_mean) < 4 * guess.mean_error
    assert 0.005 < guess.mean_error < 0.01  # sd about 2.4 over sqrt(100,000)
    p = guess.at_least(12)
    theirs = d6.explode_to_pool(3, depth=E6).highest(2).sum()
    truth = float(sum(q for v, q in as_dict(theirs).items() if v >= 12))
    assert abs(p - truth) < 4 * guess.error(p)
    data = guess.to_json()
    assert data["exact"] is False and data["rolls"] == 100_000
    assert set(data["outcomes"]["12"]) == {"p", "error"}


def as_dict_mean(die: Any) -> Fraction:
    return sum((v * p for v, p in as_dict(die).items()), Fraction(0))


def test_an_estimate_rolls_the_same_dice_as_roll() -> None:
    """The estimate adds up totals without building result trees, from the same dice in
    the same order: the first total of seed s is the roll of seed s."""
    for text in ("3d6!kh2", "{4d6+3d8}kh4", "5d10!o>=8kh3", "4dF!pkl2", "{1d20,2d8}kh1",
                 "2d6r1!min2k>3s", "floor((2d10!p)/3)"):
        for seed in range(40):
            first = estimate(text, rolls=1, seed=seed)
            assert first.counts == {roll(text, SeededDice(seed)).total: 1}, (text, seed)


def test_a_big_expression_gets_fewer_rolls_and_a_huge_one_none(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    guess = estimate("200d6!kh100", seed=1)
    assert 1000 < guess.rolls < 100_000
    assert guess.rolls == int(limits.MAX_ESTIMATE_DICE // expected_dice(parse("200d6!kh100")))

    def called(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a die was rolled")

    monkeypatch.setattr(sources.SeededDice, "roll", called)
    monkeypatch.setattr(sources.SeededDice, "roll_many", called)
    with pytest.raises(DiceLimitError, match="more than 10,000 dice in one expression"):
        estimate("500d6!kh2")
    # every expression the roll limit accepts gets 100 rolls at least (10,000 dice each,
    # 150 rolls); were the estimate's own budget smaller, it would say so before rolling
    assert estimate_rolls("+".join(["1000d6"] * 9) + "+999d6!kh2") >= 100
    monkeypatch.setattr(limits, "MAX_ESTIMATE_DICE", 20_000)
    with pytest.raises(DiceLimitError, match="rolls about 541 dice each time: too many to "
                       "estimate its odds from 100 rolls or more within the limit of 20,000"):
        estimate("450d6!kh200")


def estimate_rolls(text: str) -> int:
    return int(limits.MAX_ESTIMATE_DICE // expected_dice(parse(text)))


# -- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3d6f1", "a failure count needs a success count before it, e.g. >=4f1"),
        ("{1d20+5}kh1", "the modifiers of a group of one expression apply to its dice"),
        ("{4d6kh3+1d8}kh2", "4d6kh3 keeps or counts its own dice inside a group"),
        ("4d6kh3k>2", "keep or drop given twice on one die"),
        ("4d6!!!p", "explode given twice on one die"),
        ("floor(1d6, 2)", "floor takes one number"),
        ("rem(1d6)", "rem needs two numbers: rem(a, b)"),
        ("1d20>=5>=3", "success count given twice on one die"),
        ("(1d20)>5>3", "comparisons cannot be chained; use parentheses"),
        ("2d6[a][b]", "a term has at most one label"),
        ("2d6[fire", "a label opened with '[' is never closed with ']'"),
        ("# just a note", "a comment needs an expression before it"),
        ("1d6 x 2", "unexpected character 'x'"),
        ("4d6ra6", "unexpected 'ra'"),
        ("{1d6", "missing '}'"),
        ("4dFr>=-1", "reroll >=-1 matches every face of dF"),
        ("1dT!<100", "explosion <100 matches every face of dT"),
    ],
)
def test_what_is_wrong_is_said(text: str, message: str) -> None:
    with pytest.raises(DiceSyntaxError) as raised:
        parse(text)
    assert message in str(raised.value)


def test_labels_and_comments_take_printable_text_only() -> None:
    with pytest.raises(DiceSyntaxError, match="a label may not contain the character"):
        parse("1d6[\x1b[31m]")
    with pytest.raises(DiceSyntaxError, match="a comment may not contain the character"):
        parse("1d6 # \u202eevil")
    assert parse("1d6 # 火の玉").text == "火の玉"  # type: ignore[union-attr]


def test_division_and_modulo_by_zero() -> None:
    with pytest.raises(DiceEvalError, match="division by zero is possible"):
        distribution("1d6 % (1d2-1)")
    with pytest.raises(DiceEvalError, match="division by zero is possible"):
        distribution("rem(6, 1d2-1)")
    with pytest.raises(DiceEvalError, match="division by zero"):
        roll("floor(1d6/(1d2-1))", ForcedDice([3, 1]))
    with pytest.raises(DiceEvalError, match=r"division by zero \(in %\)"):
        roll("1d6 % (1d2-1)", ForcedDice([3, 1]))


def test_groups_are_groups() -> None:
    node = parse("{1d20+5, 2d6}kh1")
    assert isinstance(node, RollGroup) and not node.dice_level
    assert isinstance(parse("{4d6+2d8}kh3"), RollGroup)
    assert parse("{4d6+2d8}kh3").dice_level  # type: ignore[union-attr]
    assert not parse("{4d6+2d8,}kh1").dice_level  # type: ignore[union-attr]
