"""Building zones encounters in tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arbiter.core import Encounter, Entry, load_ruleset
from arbiter.dice import ForcedDice

ZONES = load_ruleset("zones")


def encounter(actors: Mapping[str, Mapping[str, Any]],
              rulings: dict[str, str] | None = None) -> Encounter:
    enc = Encounter.create(ZONES, rulings)
    for name, spec in actors.items():
        enc.execute({"do": "add", "id": name, **spec}, ForcedDice([]))
    return enc


def run(enc: Encounter, command: dict[str, Any], dice: list[int] | None = None) -> dict[str, Any]:
    """Execute a command with forced dice (all of them used) and merge its events' data."""
    forced = ForcedDice(dice or [])
    entry: Entry = enc.execute(command, forced)
    assert forced.remaining == [], f"unused dice {forced.remaining}"
    merged: dict[str, Any] = {}
    for event in entry.events:
        merged.update(event.data)
    merged["events"] = [e.type for e in entry.events]
    return merged


# -- the small world of the condition matrix (test_condition_matrix.py) ----------------
WORLD: dict[str, dict[str, Any]] = {
    "nia": {"side": "crew", "group": "crew", "zone": "yard", "DEX": 13, "STR": 11, "SPD": 10,
            "WGT": 9, "armor": 5,
            "weapons": ["rifle", "knife", "grenade", "adhesive-grenade"],
            "competent": ["rifle", "knife", "grenade", "adhesive-grenade"]},
    "kim": {"side": "crew", "group": "crew", "zone": "yard", "DEX": 13, "SPD": 10,
            "armor": 5},
    "bob": {"side": "gang", "group": "gang", "zone": "yard", "DEX": 11, "armor": 5,
            "weapons": ["pistol"], "competent": ["pistol"]},
    "cal": {"side": "gang", "group": "gang", "zone": "yard", "DEX": 11, "armor": 5},
    "ali": {"side": "crew", "group": "allies", "engagement": "gang", "zone": "yard",
            "DEX": 11, "armor": 5},
    "rex": {"side": "gang", "group": "pack", "engagement": "crew", "zone": "yard", "DEX": 13,
            "armor": 5, "weapons": ["pistol", "knife"], "competent": ["pistol", "knife"]},
}
"""nia and kim (crew); bob and cal (gang) at short range; ali, nia's ally, engaged with the
gang; rex of the gang engaged with the crew. Health 100 each."""
PARTNER = {"nia": "rex", "kim": "rex", "bob": "cal", "cal": "bob", "ali": "bob", "rex": "nia"}
"""Whom each creature grapples when the row's condition is ``grappling``."""
ORDER = {name: 20 - i for i, name in enumerate(WORLD)}


def world() -> Encounter:
    return encounter({name: {"health": 100, **spec} for name, spec in WORLD.items()})


def give(enc: Encounter, condition: str, holder: str, level: int = 1, rounds: int = 0) -> None:
    """Give a condition as the game master does: ``condition`` (a grapple with the holder's
    partner of :data:`PARTNER`); cover with ``cover`` (moderate: armor bonus 20)."""
    if condition == "cover":
        run(enc, {"do": "cover", "actor": holder, "environment": "moderate"})
        return
    command: dict[str, Any] = {"do": "condition", "target": holder, "name": condition,
                               "level": level, "rounds": rounds}
    if condition == "grappling":
        command["source"] = PARTNER[holder]
    run(enc, command)
