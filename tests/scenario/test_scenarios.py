"""Every scenario under scenarios/ passes; malformed scenarios name file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.scenario import ScenarioError, run_scenario, scenario_files
from arbiter.scenario.loader import load_yaml

from ..support import Played

ROOT = Path(__file__).resolve().parents[2] / "scenarios"
FILES = scenario_files([ROOT])


def test_there_are_scenarios() -> None:
    assert len(FILES) >= 3


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_scenario_passes(path: Path, played: Played) -> None:
    result = played(path)
    assert result.passed, "\n".join(map(str, result.failures))


def run_text(text: str) -> object:
    return run_scenario(load_yaml(text, "t.yaml"), "t.yaml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ruleset: demo\nsteps: [}", "t.yaml:2: not valid YAML"),
        ("ruleset: nope\n", "t.yaml:1: ruleset: unknown ruleset 'nope'"),
        ("ruleset: demo\nactorz: {}\n", "t.yaml:2: actorz: unknown key"),
        ("ruleset: demo\nactors:\n  nia: {health: 3, wings: 2}\n",
         "t.yaml:3: nia: unknown stat-block key(s) wings"),
        ("ruleset: demo\nsteps:\n  - {do: next, dice: [a]}\n", "t.yaml:3: dice: must be a list"),
        ("ruleset: demo\nsteps:\n  - {foo: 1}\n", "t.yaml:3: steps[1]: a step needs 'do'"),
        ("ruleset: demo\nrulings: {DEMO-1: nope}\n", "t.yaml:2: rulings: ruling DEMO-1"),
        ("ruleset: demo\nruleset: demo\n", "t.yaml:2: ruleset: duplicate key"),
        ("", "t.yaml:1: the file is empty"),
    ],
)
def test_malformed_scenarios_name_file_line_and_key(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as info:
        run_text(text)
    assert str(info.value).startswith(message)


def test_failed_expectations_report_expected_and_actual() -> None:
    result = run_text(
        "ruleset: demo\nactors:\n  nia: {health: 5}\nsteps:\n"
        "  - {do: damage, target: nia, amount: 2}\n"
        "  - expect: {nia.health: 4, last.taken: 2}\n"
    )
    assert not result.passed  # type: ignore[attr-defined]
    (failure,) = result.failures  # type: ignore[attr-defined]
    assert str(failure) == "step 2 (line 6): nia.health: expected 4, got 3"


def test_an_odds_step_refuses_a_misspelt_argument_as_a_command_step_does() -> None:
    result = run_text(
        "ruleset: demo\nactors:\n  nia: {health: 5}\n  orc: {health: 5}\nsteps:\n"
        "  - odds: {do: attack, actor: nia, target: orc, bonsu: 2}\n"
    )
    (failure,) = result.failures  # type: ignore[attr-defined]
    assert "attack: no argument 'bonsu'" in str(failure)


def test_unused_forced_dice_fail_the_step() -> None:
    result = run_text("ruleset: demo\nactors:\n  nia: {health: 5}\nsteps:\n"
                      "  - {do: heal, target: nia, amount: 1, dice: [3]}\n")
    assert "forced dice not used: [3]" in str(result.failures[0])  # type: ignore[attr-defined]
