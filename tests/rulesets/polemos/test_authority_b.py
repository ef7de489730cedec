"""Who may set each argument of Polemos' player commands for injuries, conditions, networks,
devices, stealth and society (docs/rulesets/polemos.md, "What the game master sets"): a
player choosing a number or a fact the rules leave to the game master is refused, naming the
argument; the game master's same command still plays; a player who leaves such a number out
gets the rules' default; a closed vocabulary refuses a word it does not hold, whoever sends
it."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from arbiter.core import Command, Encounter, load_ruleset
from arbiter.core.catalogue import InvalidArgument
from arbiter.dice import ForcedDice

from ..authority import Player

POLEMOS = load_ruleset("polemos")
PLAYER = frozenset({"nia", "kit"})
"""The player's characters: Nia and her drone Kit. Doc is another player's."""
NONE = ForcedDice([])


PLAYING = Player(POLEMOS, PLAYER)
as_player, refused, out_of_bounds = PLAYING.send, PLAYING.refused, PLAYING.invalid


ACTORS: dict[str, dict[str, Any]] = {
    "nia": {"side": "heroes", "position": [0, 0], "tags": ["networked"],
            "skills": {"search": 2, "stealth": 1, "community": 2}},
    "kit": {"side": "heroes", "position": [0, 1], "kind": "item",
            "device": {"personal": True}},
    "doc": {"side": "heroes", "position": [1, 1], "tags": ["networked"]},
    "orc": {"side": "foes", "position": [1, 0], "tags": ["networked"]},
    "spy": {"side": "foes", "position": [3, 0], "skills": {"stealth": 2}},
}


def scene(combat: bool = True) -> Encounter:
    """Nia's turn; the spy hides with a detection defense of 9; Nia's bleeding left arm."""
    enc = Encounter.create(POLEMOS)
    for name, spec in ACTORS.items():
        enc.execute({"do": "add", "id": name, **spec}, NONE)
    enc.execute({"do": "hide", "target": "spy", "defense": 9}, NONE)
    enc.execute({"do": "bleed", "target": "nia", "area": "left_arm"}, NONE)
    if combat:
        enc.execute({"do": "start", "initiative": {"nia": 20, "doc": 15, "orc": 10,
                                                   "spy": 5}}, NONE)
        assert enc.state.current == "nia"
    return enc


def events(enc: Encounter, payload: dict[str, Any], dice: list[int]) -> dict[str, Any]:
    """The events the game master's ``payload`` gives in ``enc`` (by type, the last of each)."""
    out = POLEMOS.decide(enc.state, Command.from_json(payload), ForcedDice(dice))
    return {e.type: e.data for e in out}


# -- the known abuses ----------------------------------------------------------------------
@pytest.mark.rules("P-STL-4", "P-STL-5")
@pytest.mark.parametrize("field, value", [
    ("stealth_modifier", 20), ("detection_modifier", -20), ("bonus", 3), ("penalty", 0),
    ("dice_mod", 2), ("blind_spots", ["spy"]), ("kind", "free")])
def test_a_player_may_not_set_the_game_masters_numbers_of_a_search(field: str,
                                                                   value: Any) -> None:
    """P-STL-4, P-STL-5: the situational modifiers, the blind spots and the action the search
    takes are the GM's."""
    refused({"do": "search", "actor": "nia", field: value}, field)


def test_a_search_modifier_beyond_the_rules_is_refused_for_anyone() -> None:
    out_of_bounds({"do": "search", "actor": "nia", "stealth_modifier": 99},
                  "stealth_modifier")
    out_of_bounds({"do": "search", "actor": "nia", "detection_modifier": 99},
                  "detection_modifier")


@pytest.mark.rules("P-STL-5")
def test_the_game_masters_search_modifier_still_counts() -> None:
    """P-STL-5: 2D6 (3 + 2) + 2 = 7 misses the spy's 9; with the GM's +2 it is found."""
    enc = scene()
    assert events(enc, {"do": "search", "actor": "nia"}, [3, 2])["searched"]["found"] == []
    found = events(enc, {"do": "search", "actor": "nia", "stealth_modifier": 2}, [3, 2])
    assert found["searched"]["found"] == ["spy"] and found["searched"]["total"] == 9


def test_a_players_search_takes_a_primary_action_with_no_modifier() -> None:
    """Left out: no modifier, and the search takes a primary action."""
    enc = scene()
    payload = {"do": "search", "actor": "nia"}
    as_player(payload)
    got = events(enc, payload, [4, 3])
    assert got["searched"]["total"] == 9 and got["searched"]["found"] == ["spy"]
    assert got["acted"]["kind"] == "primary"
    assert POLEMOS.odds(enc.state, Command.from_json(payload))["found"] == {
        "spy": Fraction(21, 36)}  # 2D6 + 2 reaching 9: 7 or more on 2D6


@pytest.mark.rules("P-STL-2")
def test_a_player_may_not_set_a_detection_defense() -> None:
    """P-STL-2: the [stealth] roll is the detection defense; a set number is the GM's."""
    refused({"do": "hide", "actor": "nia", "defense": 12}, "defense")
    out_of_bounds({"do": "hide", "actor": "nia", "defense": 9999}, "defense")
    refused({"do": "hide", "actor": "nia", "kind": "free"}, "kind")
    enc = scene()
    assert events(enc, {"do": "hide", "actor": "nia", "defense": 12}, [])["hid"]["defense"] == 12


def test_a_players_hiding_rolls_its_detection_defense() -> None:
    """Left out: 2D6 + [stealth] (1), a primary action."""
    enc = scene()
    payload = {"do": "hide", "actor": "nia"}
    as_player(payload)
    hid = events(enc, payload, [5, 4])["hid"]
    assert hid["defense"] == 10 and hid["kind"] == "primary"


def test_a_player_hides_only_their_own() -> None:
    """Hiding another player's character (or an enemy) is not the player's to do; their own
    drone they may camouflage."""
    refused({"do": "hide", "actor": "nia", "target": "doc"}, "target")
    refused({"do": "hide", "actor": "nia", "target": "orc", "method": "camouflage"},
            "target")
    as_player({"do": "hide", "actor": "nia", "target": "kit", "method": "camouflage"})
    as_player({"do": "hide", "actor": "nia", "target": "nia"})


@pytest.mark.rules("P-SOC-6")
def test_a_player_may_not_set_the_target_number_of_knowing_restrictions() -> None:
    """P-SOC-6: the target number, and whether the culture is foreign, are the GM's."""
    refused({"do": "restrictions", "actor": "nia", "location": "feast", "target": 2},
            "target")
    out_of_bounds({"do": "restrictions", "actor": "nia", "location": "feast",
                   "target": -9999}, "target")
    refused({"do": "restrictions", "actor": "nia", "location": "feast", "foreign": True},
            "foreign")


@pytest.mark.rules("P-SOC-6")
def test_knowing_restrictions_abroad_defaults_to_eight() -> None:
    """P-SOC-6: a player's question is answered as at home (no roll); the GM's foreign
    culture rolls [community] (2) against 8 unless the GM names another number."""
    enc = scene(combat=False)
    enc.execute({"do": "restrict", "location": "feast", "tags": ["military"]}, NONE)
    home = {"do": "restrictions", "actor": "nia", "location": "feast"}
    as_player(home)
    known = events(enc, home, [])["restrictions_known"]
    assert known["known"] and known["tags"] == ["military"]
    abroad = {**home, "foreign": True}
    assert events(enc, abroad, [3, 2])["restrictions_known"]["known"] is False  # 7 < 8
    assert events(enc, abroad, [3, 3])["restrictions_known"]["known"] is True  # 8
    assert POLEMOS.odds(enc.state, Command.from_json(abroad))["success"] == Fraction(26, 36)
    harder = events(enc, {**abroad, "target": 9}, [3, 3])["restrictions_known"]
    assert harder["known"] is False


@pytest.mark.rules("P-SOC-5")
def test_entering_with_restricted_items_is_the_game_masters_word() -> None:
    """P-SOC-5: whether restricted items are let in is the GM's ruling."""
    refused({"do": "enter", "actor": "nia", "location": "feast", "allowed": True}, "allowed")


# -- the rest of the audit -------------------------------------------------------------------
@pytest.mark.rules("P-BLD-3", "P-BLD-4")
def test_bandaging_takes_its_action_and_lasts_until_removed_unless_the_gm_says() -> None:
    """P-BLD-3, P-BLD-4: which action bandaging takes and how long the bandage lasts are the
    GM's; left out, a primary action and until removed."""
    refused({"do": "bandage", "actor": "nia", "target": "nia", "area": "left_arm",
             "kind": "free"}, "kind")
    refused({"do": "bandage", "actor": "nia", "target": "nia", "area": "left_arm",
             "rounds": 3}, "rounds")
    enc = scene()
    payload = {"do": "bandage", "actor": "nia", "target": "nia", "area": "left_arm"}
    as_player(payload)
    got = events(enc, payload, [])
    assert got["acted"]["kind"] == "primary"
    assert "duration" not in got["condition_added"]["condition"]  # until removed
    timed = events(enc, {**payload, "rounds": 3}, [])["condition_added"]
    assert timed["condition"]["duration"]["kind"] == "timed"


def test_operating_a_device_takes_a_minor_action_the_player_does_not_choose() -> None:
    refused({"do": "operate", "actor": "nia", "device": "kit", "kind": "free"}, "kind")
    as_player({"do": "operate", "actor": "nia", "device": "kit", "action": "activate"})


@pytest.mark.rules("P-NET-17")
def test_a_processs_effect_is_the_game_masters() -> None:
    """P-NET-17: what a process does to every member is the GM's ruling, not the player's;
    a player's process gives no condition."""
    refused({"do": "run", "actor": "nia", "network": "nia-pn", "process": "p",
             "condition": "daze"}, "condition")
    enc = scene()
    payload = {"do": "run", "actor": "nia", "network": "nia-pn", "process": "p"}
    as_player(payload)
    assert events(enc, payload, [])["process_started"]["condition"] == ""
    gm = events(enc, {**payload, "condition": "shaken"}, [])
    assert gm["process_started"]["condition"] == "shaken"


@pytest.mark.rules("P-NET-24", "POL-7")
def test_a_networks_reach_is_the_game_masters() -> None:
    """P-NET-24, POL-7: the reach comes from the transmitter, the GM's; left out, the kind's
    (an ad hoc network: ruling POL-7, 100 squares)."""
    refused({"do": "network", "actor": "nia", "name": "den", "range": -1}, "range")
    enc = scene()
    payload = {"do": "network", "actor": "nia", "name": "den"}
    as_player(payload)
    made = events(enc, payload, [])["network_created"]
    assert made["kind"] == "adhoc" and made["range"] == 100 and made["public"] is False
    assert events(enc, {**payload, "range": 7}, [])["network_created"]["range"] == 7


@pytest.mark.rules("P-NET-9", "P-NET-13")
def test_connecting_the_signal_and_the_approval_are_not_the_players_to_give() -> None:
    """P-NET-9: the GM's word on the signal; P-NET-13: an administrator decides, so a player
    names only their own character as the one approving."""
    refused({"do": "connect", "actor": "nia", "network": "orc-pn", "in_range": True},
            "in_range")
    refused({"do": "connect", "actor": "nia", "network": "orc-pn", "approved_by": "orc"},
            "approved_by")
    as_player({"do": "connect", "actor": "kit", "network": "nia-pn", "approved_by": "nia"},
              current="kit")


def test_the_network_commands_a_player_gives_are_checked_by_the_rules() -> None:
    """Nothing in them is the GM's: which network, process, device or system (the rules
    then check the actor administers, hosts, carries or is connected)."""
    for payload in ({"do": "stop", "actor": "nia", "process": "p1"},
                    {"do": "processes", "actor": "nia", "network": "nia-pn"},
                    {"do": "pair", "actor": "nia", "device": "kit"},
                    {"do": "destroy", "actor": "nia", "network": "den"},
                    {"do": "authorize", "actor": "nia", "network": "nia-pn", "system": "kit"},
                    {"do": "disconnect", "actor": "nia", "network": "nia-pn"},
                    {"do": "map", "actor": "nia", "network": "nia-pn"},
                    {"do": "unpack", "actor": "nia", "item": "kit", "packed": True},
                    {"do": "connect", "actor": "nia", "network": "orc-pn", "hack": True}):
        as_player(payload)


# -- closed vocabularies --------------------------------------------------------------------
@pytest.mark.parametrize("payload, field", [
    ({"do": "network", "actor": "nia", "example": "moon_net"}, "example"),
    ({"do": "network", "actor": "nia", "name": "den", "kind": "personal"}, "kind"),
    ({"do": "search", "actor": "nia", "kind": "extra"}, "kind"),
    ({"do": "hide", "actor": "nia", "kind": "extra"}, "kind"),
    ({"do": "operate", "actor": "nia", "device": "kit", "kind": "extra"}, "kind"),
])
def test_a_word_the_rules_do_not_hold_is_refused(payload: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as info:
        POLEMOS.validate(Command.from_json(payload))
    assert info.value.field == f"command.{field}"


def test_an_example_network_takes_its_kind() -> None:
    enc = scene()
    made = events(enc, {"do": "network", "actor": "nia", "example": "city_net"}, [])
    assert made["network_created"]["name"] == "city_net"
    assert made["network_created"]["kind"] == "city"
