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
