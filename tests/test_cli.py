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


INVENTORY = """\
## 1. Demo
- `P-GEN-1` **MECH**: Fractions round down.
- `P-SKL-1` **HOOK**: The GM decides.
- `P-SKL-2` **MECH**: Two dice.
- `P-GEN-2` **NARR**: Flavour.
### ambiguities
- **AP-1: Success.** text
- **AP-2: Order.** text
"""


def test_coverage_counts_scenarios_tests_and_rulings(tmp_path: Path) -> None:
    from arbiter.coverage import measure, parse_inventory

    inventory = parse_inventory(INVENTORY)
    assert inventory.rules == {"P-GEN-1": "MECH", "P-SKL-1": "HOOK", "P-SKL-2": "MECH",
                               "P-GEN-2": "NARR"}
    assert inventory.ambiguities == ["AP-1", "AP-2"]
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "a.yaml").write_text("ruleset: polemos\nrules: [P-GEN-1]\n")
    (tmp_path / "tests").mkdir()
    # only a test's "Rule ids:" line counts: not the module docstring, a comment or a string
    (tmp_path / "tests" / "test_x.py").write_text(
        '"""P-SKL-2 and P-GEN-2 are named here, and that counts for nothing."""\n'
        "# P-SKL-2\n"
        "def test_asked() -> None:\n"
        '    """The GM is asked (P-SKL-2 in passing).\n\n    Rule ids: P-SKL-1\n    """\n'
        '    assert "P-SKL-2"\n')
    package = tmp_path / "src" / "arbiter" / "rulesets" / "polemos"
    package.mkdir(parents=True)
    (package / "rulings.toml").write_text('[[ruling]]\nid = "AP-2"\n')
    report = measure("polemos", inventory, tmp_path).to_json()
    assert report["classes"] == {
        "MECH": {"covered": 1, "uncovered": ["P-SKL-2"], "total": 2},
        "HOOK": {"covered": 1, "uncovered": [], "total": 1},
        "NARR": {"covered": 0, "uncovered": ["P-GEN-2"], "total": 1},
        "ambiguity": {"covered": 1, "uncovered": ["AP-1"], "total": 2},
    }
    ids = report["ids"]
    assert isinstance(ids, dict)
    assert ids["P-GEN-1"] == {"class": "MECH", "checked_by": ["scenarios/a.yaml"]}
    assert ids["P-SKL-1"]["checked_by"] == ["tests/test_x.py::test_asked"]
    assert ids["AP-2"]["checked_by"] == ["rulings.toml AP-2"]
    assert ids["P-SKL-2"]["checked_by"] == []


def test_coverage_command(tmp_path: Path) -> None:
    path = tmp_path / "inventory.md"
    path.write_text(INVENTORY)
    result = runner.invoke(app, ["rulings", "demo", "--coverage", "--inventory", str(path)])
    assert result.exit_code == 0
    assert "inventory coverage of demo" in result.stdout
