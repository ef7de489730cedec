"""Structural copies and copy-on-write lookahead: independent of the state they came from."""

from __future__ import annotations

import copy

from arbiter.core import Condition, Encounter, EncounterState, Event, load_ruleset
from arbiter.core.copying import CowEntities, clone
from arbiter.dice import SeededDice

DEMO = load_ruleset("demo")


def _fight() -> EncounterState:
    enc = Encounter.create(DEMO)
    dice = SeededDice(7)
    enc.execute({"do": "add", "id": "nia", "health": 20, "attack": 5, "defense": 12}, dice)
    enc.execute({"do": "add", "id": "orc", "health": 15, "attack": 3, "defense": 11}, dice)
    enc.execute({"do": "condition", "target": "orc", "name": "slowed", "rounds": 2}, dice)
    enc.execute({"do": "start"}, dice)
    return enc.state


def test_copy_is_structural_and_independent() -> None:
    state = _fight()
    copied = state.copy()
    assert copied == copy.deepcopy(state)
    copied.entities["orc"].conditions[0].level = 9
    copied.entities["nia"].stats["health"] = 1
    copied.order.append("ghost")
    assert state.entities["orc"].conditions[0].level == 1
    assert state.entities["nia"].stats.get("health") != 1
    assert "ghost" not in state.order
    assert clone(state) == state


def test_lookahead_shares_untouched_entities_and_never_changes_the_state() -> None:
    state = _fight()
    before = copy.deepcopy(state)
    cond = Condition("stunned")
    events = [Event("condition_added", {"target": "orc", "condition": cond.to_json()})]
    scratch = DEMO.lookahead(state, events)
    assert type(scratch.entities) is CowEntities
    assert scratch.entities["orc"].has("stunned")
    assert dict.__getitem__(scratch.entities, "nia") is state.entities["nia"]
    assert state == before
    further = DEMO.lookahead(scratch, [Event("condition_removed", {
        "target": "orc", "name": "slowed", "why": "removed"})])
    assert not further.entities["orc"].has("slowed")
    assert scratch.entities["orc"].has("slowed") and state == before
    assert DEMO.lookahead(state, []) is state


def test_lookahead_copies_everything_before_an_override() -> None:
    state = _fight()
    before = copy.deepcopy(state)
    path = "orc.conditions"
    scratch = DEMO.lookahead(state, [Event("overridden", {
        "path": path, "value": [], "old": None, "reason": "test"})])
    assert scratch.entities["orc"].conditions == []
    assert state == before
