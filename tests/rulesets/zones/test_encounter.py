"""The playable encounter, replay, templates, rulings and the coverage of the inventory."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from arbiter.core import Encounter, Entry, RulesError, load_ruleset
from arbiter.coverage import (
    Inventory,
    measure,
    named_by_rulings,
    named_by_scenarios,
    named_by_tests,
)
from arbiter.dice import SeededDice
from arbiter.rulesets.zones.model import Creature, condition_catalogue
from arbiter.rulesets.zones.model import catalogue as weapons
from arbiter.scenario import scenario_files

from ...support import Played, templates_in_file
from .helpers import ZONES, encounter

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = scenario_files([ROOT / "scenarios" / "zones"]) + sorted(
    (ROOT / "scenarios" / "encounters").glob("zones-*.yaml"))
ENCOUNTERS = sorted((ROOT / "scenarios" / "encounters").glob("zones-*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_scenario_passes(path: Path, played: Played) -> None:
    result = played(path)
    assert result.passed, "\n".join(map(str, result.failures))


@pytest.mark.rules("Z-RA-3")
@pytest.mark.parametrize("path", ENCOUNTERS, ids=[p.name for p in ENCOUNTERS])
def test_the_encounter_plays_to_the_end_and_replays_identically(path: Path,
                                                                 played: Played) -> None:
    """Z-RA-3: a whole fight from initiative to the last creature standing; replaying the log
    (through JSON) gives the identical state.

    Rule ids: Z-RA-3
    """
    result = played(path)
    assert result.passed and result.encounter is not None
    enc = result.encounter
    assert enc.state.extra["winner"] == "crew"
    gang = [e for e in enc.state.entities.values() if e.side == "gang"]
    assert gang and all(isinstance(e, Creature) and e.down for e in gang)
    again = Encounter.replay(ZONES, [Entry.from_json(e.to_json()) for e in enc.log])
    assert again.state == enc.state


def test_random_play_replays_identically() -> None:
    """Replay gives the same state whatever the commands, refused ones included."""
    for seed in range(12):
        enc = encounter({
            "nia": {"template": "soldier", "side": "crew", "group": "crew"},
            "ari": {"template": "arcanist", "side": "crew", "group": "crew", "cover": "light"},
            "bob": {"template": "bandit", "side": "gang", "group": "gang"},
            "ugo": {"template": "ogre", "side": "gang", "group": "gang", "engagement": "crew"},
        })
        dice = SeededDice(seed)
        enc.execute({"do": "start"}, dice)
        options: list[dict[str, Any]] = [
            {"do": "attack", "target": "bob"}, {"do": "attack", "target": "nia"},
            {"do": "attack", "target": "bob", "weapon": "grenade"},
            {"do": "attack", "target": "ugo", "weapon": "laser-rifle", "aoe": "burst"},
            {"do": "melee", "target": "nia"}, {"do": "melee", "target": "ugo"},
            {"do": "cover", "environment": "light"}, {"do": "leave_cover"},
            {"do": "roll", "stat": "SPD"}, {"do": "next"}, {"do": "next"},
        ]
        for i in range(60):
            command = dict(options[(seed * 7 + i * 5) % len(options)])
            command["actor"] = enc.state.current
            with contextlib.suppress(RulesError):
                enc.execute(command, dice)
        again = Encounter.replay(ZONES, [Entry.from_json(e.to_json()) for e in enc.log])
        assert again.state == enc.state


def test_every_template_of_the_file_loads() -> None:
    assert ZONES.templates == templates_in_file(ZONES)
    enc = encounter({name: {"template": name} for name in ZONES.templates})
    assert all(isinstance(e, Creature) for e in enc.state.entities.values())


def test_every_ambiguity_is_a_ruling_that_cites_it() -> None:
    ids = {r.id for r in ZONES.rulings}
    assert {f"AZ-{n}" for n in range(1, 27)} <= ids
    for ruling in ZONES.rulings:
        assert ruling.citation.startswith("002_f87c09dfc02f1736.txt")
        assert ruling.default in ruling.choices


def test_every_mech_and_hook_rule_is_covered() -> None:
    """The coverage report: every MECH and HOOK id of the inventory is checked by a scenario's
    ``rules:``, a ruling's ``rules`` or a test's ``Rule ids:`` line (arbiter.coverage), and
    every id those name is in the inventory."""
    rules = load_ruleset("zones").inventory.rules
    kinds = list(rules.values())
    assert kinds.count("MECH") and kinds.count("HOOK") and kinds.count("NARR")
    cov = measure("zones", Inventory(rules=rules), ROOT)
    assert cov.by_class["MECH"][1] == [], f"uncovered: {cov.by_class['MECH'][1]}"
    assert cov.by_class["HOOK"][1] == [], f"uncovered: {cov.by_class['HOOK'][1]}"
    assert len(cov.by_class["MECH"][0]) == kinds.count("MECH")
    named = set(named_by_scenarios(ROOT)) | set(named_by_tests(ROOT)) | set(
        named_by_rulings(ROOT / "src" / "arbiter" / "rulesets" / "zones")[0])
    unknown = sorted(i for i in named if i.startswith("Z-") and i not in rules)
    assert not unknown, f"ids not in the inventory: {unknown}"
    assert all(cov.checked_by[i] for i in cov.by_class["MECH"][0])


@pytest.mark.rules("Z-BLI-1", "Z-RA-2", "Z-COV-1")
def test_conditions_the_rules_read_are_in_the_catalogue() -> None:
    """Z-BLI-1, Z-RA-2, Z-COV-1: the conditions the ruleset reads are catalogued as data.

    Rule ids: Z-BLI-1, Z-RA-2, Z-COV-1
    """
    catalogue = condition_catalogue()
    assert {"blinded", "unseen", "grappling", "cover", "prone", "down"} <= set(catalogue)
    effects = {spec["effect"] for spec in weapons().values() if "effect" in spec}
    assert effects and effects <= set(catalogue)
