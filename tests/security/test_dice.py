"""Hostile dice input: refused before the work, with the same limits for ``arbiter roll``,
``arbiter odds`` and the library functions the server calls (``parse``, ``distribution``,
``roll``, through ``arbiter.web.dice_json``).

The inputs are those a tester used (issue: hostile dice input). "Before the work" is shown
by making the expensive functions fail if they are called at all (the exact evaluator, its
convolutions and products, the dice sources), not by racing a clock.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from arbiter.cli import app as cli
from arbiter.dice import (
    DiceLimitError,
    DiceSyntaxError,
    DistributionTooLarge,
    ForcedDice,
    SeededDice,
    distribution,
    exact,
    limits,
    parse,
    roll,
    roller,
    sources,
)
from arbiter.dice import parser as dice_parser
from arbiter.server import create_app
from arbiter.web import dice_json

runner = CliRunner()

FIVE_POOLS = "1000d6+1000d6+1000d6+1000d6+1000d6"
ELEVEN_POOLS = "+".join(["1000d6"] * 11)
HUGE_TERM = "1000000d1000000"
FULLWIDTH = "１d６"
NEVER_EXPLODE = ["1d6!>6", "1d6!<1", "1d6r6!", "4d4!r>3"]
BIG_MEAN = "(" + "{}d10000>=10000)/2+" + "*".join(["1000000000"] * 33)
"""Fractions that grow with the dice (each 1 in 10,000) over outcomes of 297 digits: the
odds' size limits. (It rerolled 1s once: a reroll now stops only on a face it keeps, so its
odds are in 9,999ths and stay small.)"""
"""Outcomes of 298 digits and probabilities of about 4,000: the mean, a fraction, would
need more digits than Python prints (4,300) for 48 dice."""

ROLLS_MESSAGE = (
    "the expression rolls up to 11,000 dice, more than 10,000 dice in one expression "
    "(counting every reroll, at most 20 per roll, and every explosion, at most 20 per die)"
)
FIVE_POOLS_MESSAGE = (
    r"the exact distribution of '1000d6\+1000d6\+1000d6\+1000d6\+1000d6' would take about "
    r"2\d\.\d s of work \([\d,]+ units, estimated\); the limit is about 0\.8 s "
    r"\(800,000,000 units\): roll it instead, or ask for fewer or smaller dice"
)
HUGE_TERM_MESSAGE = "1,000,000 dice in one term is more than the limit of 1,000"
FULLWIDTH_MESSAGE = (
    "unexpected character '１' (U+FF11, not an ASCII digit 0-9; dice notation is ASCII) "
    "at column 1 in '１d６'"
)


class Called(AssertionError):
    """Expensive work started although the input should have been refused first."""


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every expensive step of exact odds and rolling fails if called; caches are empty."""
    exact.clear_cache()
    roller.clear_plans()
    parse.cache_clear()
    calls: list[str] = []

    def trap(name: str) -> Any:
        def called(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            raise Called(f"{name} was called")
        return called

    for name in ("_eval", "_convolve", "_power", "_uniform_power", "_keep", "_chain",
                 "_combine", "_single_die", "_separate_chain_successes"):
        monkeypatch.setattr(exact, name, trap(f"exact.{name}"))
    monkeypatch.setattr(roller, "_compile", trap("roller._compile"))
    for name in ("roll", "roll_many"):
        monkeypatch.setattr(sources.SeededDice, name, trap(f"SeededDice.{name}"))
    yield calls
    assert calls == []


def cli_error(args: list[str]) -> str:
    result = runner.invoke(cli, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arbiter: error: ")
    return lines[0].removeprefix("arbiter: error: ")


# -- 1. five pools of 1000d6 on the dice endpoint; 1000000d1000000 ---------------------------


def test_five_big_pools_are_refused_before_any_exact_work(no_work: list[str]) -> None:
    with pytest.raises(DistributionTooLarge) as raised:
        dice_json(FIVE_POOLS, True)
    assert re.fullmatch(FIVE_POOLS_MESSAGE, str(raised.value))
    assert isinstance(raised.value, DiceLimitError)
    with pytest.raises(DistributionTooLarge, match=FIVE_POOLS_MESSAGE):
        distribution(parse(FIVE_POOLS))
    assert cli_error(["odds", FIVE_POOLS]) == str(raised.value)


def test_two_big_pools_are_refused_for_their_work(no_work: list[str]) -> None:
    message = (
        r"the exact distribution of '1000d6\+1000d6' would take about 2\.\d s of work "
        r"\([\d,]+ units, estimated\); the limit is about 0\.8 s \(800,000,000 units\)"
    )
    with pytest.raises(DistributionTooLarge, match=message):
        dice_json("1000d6+1000d6", True)


def test_the_dice_endpoint_answers_422_with_the_limit(tmp_path: Path) -> None:
    with TestClient(create_app(db=tmp_path / "a.db", rate_per_minute=10_000)) as client:
        for text, message in [(FIVE_POOLS, FIVE_POOLS_MESSAGE),
                              (HUGE_TERM, re.escape(HUGE_TERM_MESSAGE)),
                              (ELEVEN_POOLS, re.escape(ROLLS_MESSAGE))]:
            r = client.post("/api/dice", json={"expression": text, "roll": True})
            assert r.status_code == 422
            assert r.json()["field"] == "expression"
            assert re.fullmatch(message, r.json()["error"])


def test_a_huge_term_is_refused_by_the_parser_before_it_is_built(
    no_work: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def built(*args: Any, **kwargs: Any) -> Any:
        raise Called("a Dice node was built")

    monkeypatch.setattr(dice_parser, "new_dice", built)
    with pytest.raises(DiceLimitError) as raised:
        parse(HUGE_TERM)
    assert str(raised.value) == HUGE_TERM_MESSAGE
    for call in (lambda: distribution(HUGE_TERM), lambda: dice_json(HUGE_TERM, True),
                 lambda: roll(HUGE_TERM, SeededDice(1))):
        with pytest.raises(DiceLimitError, match=HUGE_TERM_MESSAGE):
            call()
    assert cli_error(["roll", HUGE_TERM]) == HUGE_TERM_MESSAGE
    assert cli_error(["odds", HUGE_TERM]) == HUGE_TERM_MESSAGE


# -- 2. eleven pools of 1000d6: the same check for roll and odds ------------------------------


def test_eleven_pools_are_refused_alike_by_roll_and_odds(no_work: list[str]) -> None:
    assert cli_error(["odds", ELEVEN_POOLS]) == ROLLS_MESSAGE
    assert cli_error(["roll", ELEVEN_POOLS]) == ROLLS_MESSAGE
    assert cli_error(["roll", ELEVEN_POOLS, "--seed", "3", "--json"]) == ROLLS_MESSAGE
    for call in (lambda: distribution(ELEVEN_POOLS), lambda: dice_json(ELEVEN_POOLS, True),
                 lambda: roll(ELEVEN_POOLS, ForcedDice([]))):
        with pytest.raises(DiceLimitError) as raised:
            call()
        assert str(raised.value) == ROLLS_MESSAGE


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("100d100kh50", r"'100d100kh50' would take about [\d.]+ s of work"),
        ("1d10000!>5000", r"'1d10000!>5000' would take about [\d.]+ s of work"),
        ("1d1000*1d1000", r"'1d1000\*1d1000' would take about [\d.]+ s of work"),
        ("1000d10000*1000d10000", "'1000d10000' would span 9,999,001 outcomes; the limit is "
                                  "1,000,000 outcomes"),
        ("1d10000*1d10000", "combining the distributions of '1d10000\\*1d10000' takes up to "
                            "100,000,000 pairs of outcomes; the limit is 1,000,000 pairs"),
        ("400d6!", "'400d6!' would be fractions of up to 6,542 digits \\(21,730 bits\\); the "
                   "limit is 14,000 bits"),
        ("+".join(["1000d6"] * 6), "would be fractions of up to 4,674 digits \\(15,526 bits\\)"),
        (BIG_MEAN.format(1000), "would be fractions of up to 4,298 digits \\(14,275 bits\\)"),
        ("1d2+" + "*".join(["1000000000"] * 34), "would have outcomes of 307 digits; the "
                                                  r"limit for exact odds is ±10\^300"),
    ],
)
def test_exact_odds_estimate_the_whole_expression_before_any_work(
    no_work: list[str], text: str, message: str
) -> None:
    with pytest.raises(DistributionTooLarge, match=message) as raised:
        distribution(text)
    assert cli_error(["odds", text]) == str(raised.value)


def test_whatever_odds_accept_they_can_print() -> None:
    text = BIG_MEAN.format(40)
    result = runner.invoke(cli, ["odds", text, "--json", "--at-least", "5"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert Fraction(data["mean"]) == distribution(text).mean
    assert runner.invoke(cli, ["odds", text]).exit_code == 0
    assert dice_json(text, True)["min"] == 10**297


def test_every_exact_limit_is_checked_before_a_single_step(no_work: list[str]) -> None:
    """The estimate alone decides: with every step trapped, an accepted expression reaches
    the first step (and fails there), a refused one never does."""
    assert exact.check(parse("1000d6")) <= limits.MAX_EXACT_WORK
    with pytest.raises(Called):
        distribution("1000d6")
    no_work.clear()


# -- 3. 1d10000r<=9999: the odds are what the roller does ------------------------------------


def test_a_long_reroll_is_refused_alike_by_roll_and_odds() -> None:
    """A reroll rerolls until a face it keeps shows (issue 35): ``1d10000r<=9999`` would need
    276,296 rerolls a roll to make going on less likely than 10^-12, past the dice limit, so
    the roller and the odds refuse it with the same words; a reroll that stops is exact."""
    text = "1d10000r<=9999"
    messages = set()
    for call in (lambda: distribution(text), lambda: roll(text, SeededDice(1))):
        with pytest.raises(DiceLimitError) as raised:
            call()
        messages.add(str(raised.value))
    assert len(messages) == 1 and "276,296 per roll of 1d10000r<=9999" in messages.pop()
    assert cli_error(["odds", text]) == cli_error(["roll", text])
    dist = distribution("1d20r<20")  # only a 20 stops it
    assert dist.probability(20) == 1
    for seed in range(200):  # used to be 20 only 66% of the time (20 rerolls at most)
        assert roll("1d20r<20", SeededDice(seed)).total == 20
    assert distribution("1d10r<=8").probability(10) == Fraction(1, 2)


# -- 4. fullwidth digits ----------------------------------------------------------------------


def test_fullwidth_digits_are_not_dice(no_work: list[str]) -> None:
    with pytest.raises(DiceSyntaxError) as raised:
        parse(FULLWIDTH)
    assert raised.value.position == 0
    assert str(raised.value) == FULLWIDTH_MESSAGE
    for call in (lambda: distribution(FULLWIDTH), lambda: dice_json(FULLWIDTH, True),
                 lambda: roll(FULLWIDTH, SeededDice(1))):
        with pytest.raises(DiceSyntaxError, match="U\\+FF11"):
            call()
    assert cli_error(["roll", FULLWIDTH]) == FULLWIDTH_MESSAGE
    assert cli_error(["odds", FULLWIDTH]) == FULLWIDTH_MESSAGE
    with pytest.raises(DiceSyntaxError, match=r"'６' \(U\+FF16.*at column 3"):
        parse("1d６")


# -- 5. explosions that can never happen -----------------------------------------------------


@pytest.mark.parametrize("text", NEVER_EXPLODE)
def test_odds_of_impossible_explosions_match_the_roller(text: str) -> None:
    result = runner.invoke(cli, ["odds", text, "--json"])
    assert result.exit_code == 0, result.output
    outcomes = {int(k): Fraction(v) for k, v in json.loads(result.stdout)["outcomes"].items()}
    assert sum(outcomes.values()) == 1
    dist = distribution(text)
    for seed in range(300):
        assert dist.probability(roll(text, SeededDice(seed)).total) > 0
    assert runner.invoke(cli, ["odds", text]).exit_code == 0


def test_an_explosion_on_no_face_is_the_plain_die() -> None:
    assert distribution("1d6!>6") == distribution("1d6!<1") == distribution("1d6")
    # a 6 is rerolled until it is not a 6 (issue 35: rerolls are exact), so it never
    # stands to explode: 1 to 5, each a fifth
    assert distribution("1d6r6!") == distribution("1d5")
    assert distribution("1d6r6!").probability(7) == 0
