"""The command line: output, JSON, and exit status 2 with one line for bad input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arbiter.cli import app

runner = CliRunner()


def test_roll_json_has_total_expression_and_dice() -> None:
    result = runner.invoke(app, ["roll", "4d6kh3", "--seed", "3", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["expression"] == "4d6kh3"
    assert len(data["dice"]) == 4
    assert data["total"] == sum(d["value"] for d in data["dice"] if d["fate"] == "kept")


def test_odds_json_gives_exact_fractions() -> None:
    result = runner.invoke(app, ["odds", "2d6", "--at-least", "8", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["outcomes"]["7"] == "1/6"
    assert data["at_least"] == {"k": 8, "p": "5/12"}


def test_odds_table() -> None:
    result = runner.invoke(app, ["odds", "1d4", "--at-most", "2"])
    assert result.exit_code == 0
    assert "P(total ≤ 2) = 1/2" in result.stdout


def test_bad_dice_exit_2_with_one_line() -> None:
    for args in (["roll", "1d0"], ["roll", "(((("], ["odds", "1000000d1000000"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2
        assert result.stderr.startswith("arbiter: error: ")
        assert len(result.stderr.strip().splitlines()) == 1
        assert "Traceback" not in result.output


def test_run_reports_each_scenario(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("ruleset: demo\nactors: {nia: {health: 5}}\nexpect: {nia.health: 5}\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: demo\nactors: {nia: {health: 5}}\nexpect: {nia.health: 4}\n")
    result = runner.invoke(app, ["run", str(good)])
    assert result.exit_code == 0
    assert f"PASS {good}" in result.stdout
    result = runner.invoke(app, ["run", str(tmp_path)])
    assert result.exit_code == 1
    assert "nia.health: expected 4, got 5" in result.stdout
    assert "1 passed, 1 failed" in result.stdout
    result = runner.invoke(app, ["run", str(tmp_path / "missing.yaml")])
    assert result.exit_code == 2


def test_rulings_lists_choices() -> None:
    result = runner.invoke(app, ["rulings", "demo", "--json"])
    assert result.exit_code == 0
    (ruling,) = json.loads(result.stdout)
    assert ruling["id"] == "DEMO-1" and ruling["default"] == "double-dice"
    assert runner.invoke(app, ["rulings", "nope"]).exit_code == 2


def test_demo_plays_to_the_end() -> None:
    result = runner.invoke(app, ["demo", "--seed", "7"])
    assert result.exit_code == 0
    assert "Initiative:" in result.stdout and "Standing:" in result.stdout
