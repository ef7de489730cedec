"""The roster's pure decide/evolve (``core/roster.py``): declared commands and events,
decide never changes the state, and what a character brings into an encounter."""

from __future__ import annotations

import copy

import pytest

from arbiter.core import (
    Command,
    Condition,
    Duration,
    EncounterState,
    Entity,
    InvalidCommand,
    load_ruleset,
)
from arbiter.core.catalogue import InvalidArgument
from arbiter.core.roster import NotListed, Roster, RosterState, lasting_conditions
from arbiter.dice import SeededDice

DEMO = load_ruleset("demo")


def played(roster: Roster, *commands: Command) -> RosterState:
    state = RosterState()
    for command in commands:
        before = copy.deepcopy(state)
        events = roster.decide(state, command)
        assert state == before  # decide reads, evolve writes
        for event in events:
            assert not roster.events[event.type].check(event.data)  # every field declared
            roster.evolve(state, event)
    return state


def test_every_roster_command_is_declared_and_checked() -> None:
    roster = Roster(DEMO)
    assert sorted(roster.catalogue) == ["advance_time", "character_add", "character_remove",
                                        "character_update", "configure", "creature_remove",
                                        "creature_save", "picture", "scene_save",
                                        "write_back"]
    assert all(spec.who == "gm" for spec in roster.catalogue.values())
    with pytest.raises(InvalidArgument) as caught:
        roster.decide(RosterState(), Command("character_add", args={"name": "Nia"}))
    assert caught.value.field == "command.id"
    with pytest.raises(InvalidArgument) as caught:
        roster.decide(RosterState(), Command("attack", args={}))
    assert caught.value.field == "command.do"


def test_a_character_joins_with_its_lasting_state_over_its_sheet() -> None:
    roster = Roster(DEMO)
    state = played(
        roster,
        Command("creature_save", args={"id": "ghoul", "template": "wolf", "health": 30,
                                       "notes": "cold"}),
        Command("character_add", args={"id": "nia", "template": "ghoul", "side": "heroes",
                                       "notes": "the GM's", "stats": {"speed": 3}}),
        Command("write_back", args={"encounter": "e-1", "version": 9,
                                    "characters": {"nia": {"health": 12}}}),
    )
    # the bestiary entry filled in; the template the ruleset ships left for its 'add'
    assert roster.joining(state, "nia") == {
        "id": "nia", "template": "wolf", "health": 12, "stats": {"speed": 3},
        "side": "heroes"}
    nia = roster.entity(state, "nia")
    assert (nia.name, nia.health, nia.stats) == (  # type: ignore[attr-defined]
        "Wolf", 12, {"initiative": 2, "speed": 3})
    with pytest.raises(InvalidArgument) as caught:
        roster.decide(state, Command("write_back", args={
            "encounter": "e-1", "characters": {"nia": {"id": "bram"}}}))
    assert caught.value.field == "command.characters.nia.lasting"


def test_conditions_that_outlast_the_fight() -> None:
    state = EncounterState(ruleset="demo", round=3, in_combat=False)
    nia = Entity("nia", conditions=[
        Condition("cursed"),
        Condition("prone"),
        Condition("blessed", source="priest", duration=Duration("timed", round=5,
                                                                  turn_of="priest")),
        Condition("dazed", duration=Duration("timed", round=3, turn_of="orc", at="start")),
        Condition("held", duration=Duration("sustained", by="mage")),
        Condition("unseen", data={"detected_by": ["orc"], "score": 14}),
    ])
    assert lasting_conditions(state, nia, {"prone"}) == [
        {"name": "cursed", "level": 1},
        {"name": "blessed", "level": 1,
         "duration": {"kind": "timed", "round": 3, "turn_of": "nia", "at": "start"}},
        {"name": "unseen", "level": 1, "data": {"score": 14}},
    ]


def test_time_and_settings_are_declared_commands_of_the_campaign_log() -> None:
    """``advance_time`` needs dice, names its characters and activity; ``configure`` takes
    only the listed dice dialects; undoing either is replaying the log without it."""
    roster = Roster(DEMO)
    state = played(roster, Command("character_add", args={"id": "nia", "health": 9}),
                   Command("configure", args={"dice_dialect": "roll20"}))
    assert state.settings == {"dice_dialect": "roll20"}
    with pytest.raises(InvalidArgument) as caught:
        roster.decide(state, Command("configure", args={"dice_dialect": "gurps"}))
    assert caught.value.field == "command.dice_dialect"
    with pytest.raises(InvalidCommand, match="rolls dice"):
        roster.decide(state, Command("advance_time", args={"amount": 2}))
    dice = SeededDice(1)
    with pytest.raises(InvalidArgument) as caught:
        roster.decide(state, Command("advance_time", args={"amount": 2, "activity": "nap"}),
                      dice)
    assert caught.value.field == "command.activity" and "rest, none" in str(caught.value)
    with pytest.raises(NotListed) as listed:
        roster.decide(state, Command("advance_time", args={"amount": 2,
                                                          "characters": ["bram"]}), dice)
    assert listed.value.field == "command.characters.0"
    with pytest.raises(InvalidArgument) as caught:
        roster.decide(state, Command("advance_time", args={"amount": 0}), dice)
    assert caught.value.field == "command.amount"
    [made] = roster.decide(state, Command("advance_time", args={"amount": 3,
                                                               "unit": "days"}), dice)
    assert made.data["seconds"] == 3 * 86400 and made.data["who"] == ["nia"]
    assert made.data["activity"] == "rest"  # the demo's time changes nothing
    assert made.data["characters"] == {"nia": {}} and made.data["happened"] == {"nia": []}
    roster.evolve(state, made)
    assert state.clock == 3 * 86400
    assert roster.describe(made.type, made.data, roster.names(state)) == \
        "3 days pass (rest) for nia."
