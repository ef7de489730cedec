"""``arbiter roll`` and ``arbiter odds`` with ``--dialect``: what was read is always shown
back in Arbiter's spelling, and odds with no exact model come as a Monte-Carlo estimate."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arbiter.cli import app

runner = CliRunner()


def test_roll_shows_what_it_read() -> None:
    result = runner.invoke(app, ["roll", "4d6k3", "--dialect", "d20", "--seed", "3"])
    assert result.exit_code == 0, result.output
    first, second = result.stdout.splitlines()
    assert first == "read as 4d6k=3"
    assert second.startswith("4d6k=3 (")
    result = runner.invoke(app, ["roll", "4d6k3", "--seed", "3"])
    assert result.stdout.splitlines()[0] == "read as 4d6kh3"


def test_roll_json_has_the_reading_and_the_fates() -> None:
    result = runner.invoke(app, ["roll", "1d20+5 Roll for Initiative", "--dialect", "roll20",
                                 "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["read_as"] == data["expression"] == "1d20+5 # Roll for Initiative"
    assert data["comment"] == "Roll for Initiative"
    assert data["dialect"] == "roll20"
    result = runner.invoke(app, ["roll", "2d6!!cs6", "--seed", "4", "--json"])
    data = json.loads(result.stdout)
    assert {"value", "faces", "fate"} <= set(data["dice"][0])


def test_odds_in_a_dialect() -> None:
    result = runner.invoke(app, ["odds", "2d20kh", "--dialect", "foundry", "--at-least", "15",
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["read_as"] == "2d20kh1" and data["exact"] is True
    assert data["expression"] == "2d20kh"
    assert data["at_least"] == {"k": 15, "p": "51/100"}
    text = runner.invoke(app, ["odds", "d%", "--dialect", "d20"]).stdout
    assert text.splitlines()[0] == "read as 1dT"


def test_odds_without_an_exact_model_give_an_estimate() -> None:
    text = "{1d100+1,1d90+1,1d80+1,1d70+1,1d60+1,1d50+1,1d40+1}kh2"
    result = runner.invoke(app, ["odds", text, "--at-least", "150"])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("arbiter: no exact odds for '{1d100+1,1d90+1,1d80+1,"
                                    "1d70+1,1d60+1,1d…': keeping 2 of 7 "
                                    "members takes up to 1,524,100 steps")
    out = result.stdout
    assert out.splitlines()[0] == f"read as {text}"
    # (51,724 rolls, not 100,000: more would pass the dice of one estimate,
    # limits.MAX_ESTIMATE_DICE)
    assert "Monte-Carlo estimate from 51,724 rolls (seed 0)" in out
    assert "P(total ≥ 150) ≈ 20.16% ± 0.18% (estimated)" in out
    data = json.loads(runner.invoke(app, ["odds", text, "--json", "--at-least", "150",
                                          "--seed", "5"]).stdout)
    assert data["exact"] is False and data["rolls"] == 51_724 and data["seed"] == 5
    assert data["reason"] == result.stderr.removeprefix("arbiter: ").strip()
    # icepool: the highest two of a d100+1, d90+1, ... d40+1 reach 150 with chance 0.20266180
    assert abs(data["at_least"]["p"] - 0.20266180) < 5 * data["at_least"]["error"] + 0.003
    assert 0 < data["at_least"]["error"] < 0.002


def test_odds_of_keeping_exploding_dice_are_exact() -> None:
    data = json.loads(runner.invoke(app, ["odds", "5d6!kh3", "--json"]).stdout)
    assert data["exact"] is True and data["read_as"] == "5d6!kh3"
    assert (data["min"], data["max"]) == (3, 18)


def test_bad_dialects_and_bad_dice_exit_2_with_one_line() -> None:
    for args in (["roll", "1d20", "--dialect", "hackmaster"],
                 ["odds", "4d6kh3r1", "--dialect", "foundry"],
                 ["roll", "1d6x", "--dialect", "arbiter"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("arbiter: error: ")
        assert len(result.stderr.strip().splitlines()) == 1
    result = runner.invoke(app, ["roll", "1d20", "--dialect", "hackmaster"])
    assert result.stderr.strip() == ("arbiter: error: unknown dice dialect 'hackmaster'; the "
                                     "dialects are arbiter, roll20, foundry, d20")


@pytest.mark.parametrize(("text", "note", "rows"), [
    ("1d62", "(62 outcomes; every 2nd one shown)", 31),
    ("2d61", "(121 outcomes; every 3rd one shown)", 41),
    ("1d1300", "(1,300 outcomes; every 22nd one shown)", 60),
    ("1d60", None, 60),
])
def test_a_long_odds_table_says_which_outcomes_it_shows(text: str, note: str | None,
                                                        rows: int) -> None:
    out = runner.invoke(app, ["odds", text]).stdout
    lines = out.splitlines()
    assert (note in lines) if note else not any("outcomes; every" in x for x in lines)
    assert sum(1 for x in lines if x.startswith("│")) == rows
