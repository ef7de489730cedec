"""Campaign scenarios (docs/scenarios.md, "Campaign scenarios"): a roster, encounters started
from it, write-back and campaign time as scenario steps; a malformed campaign step is refused
naming its file and line, a refusal by the rules fails the step unless ``error`` expects it."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.scenario import ScenarioError, ScenarioResult, run_scenario, scenario_files
from arbiter.scenario.loader import load_yaml

ROOT = Path(__file__).resolve().parents[2] / "scenarios"

VEE = """ruleset: zones
campaign:
  characters:
    vee: {name: Vee, side: crew, health: 40, armor: 0, ammo: {rifle: 12}}
steps:
"""
"""A zones campaign of one character (line 4); steps follow from line 6."""


def run_text(text: str) -> ScenarioResult:
    return run_scenario(load_yaml(text, "t.yaml"), "t.yaml")


def failures(result: ScenarioResult) -> list[str]:
    return [str(f) for f in result.failures]


def test_every_ruleset_has_a_campaign_scenario_and_the_suite_runs_it() -> None:
    campaign = scenario_files([ROOT / "campaign"])
    rulesets = {load_yaml(p.read_text(encoding="utf-8"), str(p))["ruleset"] for p in campaign}
    assert rulesets == {"polemos", "realms", "zones"}
    assert set(campaign) <= set(scenario_files([ROOT]))  # what test_scenarios runs


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # a campaign step in a file without a campaign
        (
            "ruleset: zones\nsteps:\n  - time: {amount: 1}\n",
            "t.yaml:3: time: a campaign step: the file needs 'campaign: {characters: ...}'",
        ),
        ("ruleset: zones\ncampaign: [vee]\n", "t.yaml:2: campaign: must be a mapping"),
        (
            "ruleset: zones\ncampaign:\n  characterz: {}\n",
            "t.yaml:3: characterz: unknown key of campaign (known: characters, bestiary)",
        ),
        (
            "ruleset: zones\ncampaign:\n  characters:\n    vee: {health: 40, wings: 2}\n",
            "t.yaml:4: vee: unknown stat-block key(s) wings",
        ),
        (
            "ruleset: zones\ncampaign:\n  characters:\n    vee: 40\n",
            "t.yaml:4: vee: a stat block is a mapping",
        ),
        (
            "ruleset: zones\ncampaign:\n  bestiary:\n    bandit: {health: 3}\n",
            "t.yaml:4: bandit: 'bandit' is a template zones ships",
        ),
        # encounter steps
        (
            VEE + "  - encounter:\n      characters: [vee,\n        kit]\n",
            "t.yaml:8: characters[2]: no character 'kit' in the campaign (it holds: vee)",
        ),
        (
            VEE + "  - encounter: {characters: [vee, vee]}\n",
            "t.yaml:6: characters[2]: 'vee' is named twice",
        ),
        (
            VEE + "  - encounter: {characters: vee}\n",
            "t.yaml:6: characters: must be a list of character ids",
        ),
        (
            VEE + "  - encounter: {name: Yard, creaturez: {}}\n",
            "t.yaml:6: creaturez: unknown key of encounter (known: name, characters, "
            "creatures, rulings)",
        ),
        (
            VEE + "  - encounter:\n      creatures:\n        bob: {template: goblin}\n",
            "t.yaml:8: bob: zones has no template 'goblin' (templates: ",
        ),
        (
            VEE + "  - encounter:\n      characters: [vee]\n      creatures:\n"
            "        vee: {template: bandit}\n",
            "t.yaml:9: vee: a roster character of this encounter has that id",
        ),
        (VEE + "  - encounter: {rulings: {ZR-9: weekly}}\n", "t.yaml:6: rulings: ruling ZR-9"),
        (
            VEE + "  - encounter: {}\n    error: nope\n",
            "t.yaml:7: error: unknown key beside 'encounter' (known: encounter, expect)",
        ),
        # time steps
        (VEE + "  - time: {unit: days}\n", "t.yaml:6: time: amount: missing"),
        (VEE + "  - time: {amount: two}\n", "t.yaml:6: amount: must be a whole number"),
        (
            VEE + "  - time:\n      amount: 2\n      unit: weeks\n",
            "t.yaml:8: unit: advance_time: 'unit' must be one of minutes, hours, days",
        ),
        (
            VEE + "  - time:\n      amount: 2\n      activity: dance\n",
            "t.yaml:8: activity: the activity is one of rest, none (zones), not 'dance'",
        ),
        (
            VEE + "  - time:\n      amount: 2\n      characters:\n        - vee\n        - kit\n",
            "t.yaml:10: characters: no character 'kit' (the roster holds: vee)",
        ),
        (
            VEE + "  - time: {amount: 1, dice: [a]}\n",
            "t.yaml:6: dice: must be a list of whole numbers",
        ),
        (
            VEE + "  - time: {amount: 1, hourz: 2}\n",
            "t.yaml:6: hourz: unknown key of time (known: amount, unit, activity, "
            "characters, dice)",
        ),
        (VEE + "  - time: 3\n", "t.yaml:6: time: must be a mapping"),
        (
            VEE + "  - time: {amount: 1}\n    dice: [3]\n",
            "t.yaml:7: dice: unknown key beside 'time' (known: error, expect, time)",
        ),
        (
            VEE + "  - time: {amount: 1}\n    write_back: {}\n",
            "t.yaml:7: write_back: one campaign step at a time (this one is 'time')",
        ),
        # write_back steps and the rest
        (
            VEE + "  - write_back: {characters: [vee]}\n",
            "t.yaml:6: characters: unknown key of write_back (it takes no keys)",
        ),
        (
            VEE + "  - {foo: 1}\n",
            "t.yaml:6: steps[1]: a step needs 'do' (a command), 'odds' or 'expect', or a "
            "campaign step: 'encounter', 'write_back' or 'time'",
        ),
    ],
)
def test_a_malformed_campaign_step_is_refused_with_its_line(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as info:
        run_text(text)
    assert str(info.value).startswith(message), str(info.value)


def test_write_back_and_time_carry_the_state_and_roster_paths_read_it() -> None:
    result = run_text(
        VEE
        + """\
  - encounter: {name: Yard, characters: [vee], creatures: {bob: {template: bandit}}}
  - {do: damage, target: vee, amount: 25}
  - write_back: {}
    expect:
      last.events: [written_back]
      last.name: Yard
      roster.vee.lasting: {ammo: {rifle: 12}, health_now: 15}
      roster.vee.health: 40
  - encounter: {characters: [vee]}
  - expect: {vee.health: 15, bob.health: 1}
  - time: {amount: 2, unit: days}
    expect: {roster.vee.health_now: 23, roster.vee.ammo.rifle: 13, roster.kit.health: 1}
  - {do: damage, target: vee, amount: 1}
  - expect: {last.taken: 1, last.clock: 0}
"""
    )
    assert failures(result) == [
        # the new encounter has only the roster character asked for
        "step 5 (line 15): 'bob.health': nothing named 'bob' here",
        # 2 days of rest: 2 tenths of 40 back; the ammunition does not come back
        "step 6 (line 17): roster.vee.ammo.rifle: expected 13, got 12",
        "step 6 (line 17): 'roster.kit.health': the roster has no 'kit'",
        # after an encounter command, `last` is that command's again
        "step 8 (line 19): 'last.clock': the last result has no 'clock'",
    ]
    assert result.campaign is not None
    assert result.campaign.state.clock == 2 * 86400
    # time passed on the roster, not in the encounter still in play (15, then 1 damage)
    assert result.encounter is not None
    assert getattr(result.encounter.state.entities["vee"], "health", None) == 14


def test_a_refused_campaign_step_fails_unless_error_expects_it() -> None:
    result = run_text(
        VEE
        + """\
  - write_back: {}
  - write_back: {}
    error: "no character of the roster (vee) is in this encounter"
  - encounter: {characters: [vee]}
  - write_back: {}
    error: "no character"
  - time: {amount: 1}
    error: "not 'dance'"
"""
    )
    assert failures(result) == [
        "step 1 (line 6): write_back was refused: no character of the roster (vee) is in "
        "this encounter",
        "step 4 (line 11): expected refusal containing 'no character', but the write_back "
        "step succeeded",
        "step 5 (line 13): expected refusal containing \"not 'dance'\", but the time step "
        "succeeded",
    ]


def test_an_argument_refusal_is_matched_by_error_when_one_is_given() -> None:
    result = run_text(VEE + "  - time: {amount: 1, activity: dance}\n    error: \"not 'dance'\"\n")
    assert result.passed, failures(result)
    result = run_text(VEE + "  - time: {amount: 1, activity: dance}\n    error: sleep\n")
    (failure,) = result.failures
    assert failure.line == 7 and failure.path == "error"
    assert "not 'dance'" in str(failure.actual)


def test_forced_dice_of_a_time_step_are_checked_to_be_used_and_recorded() -> None:
    polemos = """ruleset: polemos
campaign:
  characters:
    kit: {template: soldier, wounds: [{name: gash, area: left_arm, age: 28700}]}
steps:
  - time:
      amount: 100
      unit: minutes
      activity: none
      dice: [6, 6, 2]
    expect: {last.dice: [6, 6], roster.kit.wounds: []}
  - time: {amount: 1, unit: days, activity: none}
"""
    result = run_text(polemos)
    assert failures(result) == ["step 1 (line 10): forced dice not used: [2]"]
    # the gash, 28,700 rounds old, rolls [endurance] after 100 rounds: 6 + 6 + 2 heals it
    assert result.campaign is not None
    assert result.campaign.state.characters["kit"]["lasting"]["wounds"] == []
    # too few: the step is refused and nothing changes (so its expectations fail too)
    result = run_text(polemos.replace("[6, 6, 2]", "[6]"))
    assert failures(result) == [
        "step 1 (line 6): time was refused: time cannot pass for kit: forced dice ran out: "
        "roll number 2 (a d6) has no value; 1 forced value(s) were used",
        "step 1 (line 11): last.dice: expected [6, 6], got []",
        "step 1 (line 11): roster.kit.wounds: expected [], got [{'name': 'gash', "
        "'area': 'left_arm', 'age': 28700}]",
    ]


def test_the_example_of_the_docs_passes() -> None:
    docs = (ROOT.parent / "docs" / "scenarios.md").read_text(encoding="utf-8")
    section = docs.split("## Campaign scenarios", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    result = run_scenario(load_yaml(example, "docs/scenarios.md"), "docs/scenarios.md")
    assert result.steps == 6 and result.passed, failures(result)
