"""A concealed creature appears to a player once one of their characters has detected it:
``Ruleset.detected`` decides, by default from a concealing condition's ``detected_by`` list,
in Polemos from its searches and the GM's ``detect``."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from starlette.testclient import TestClient

from arbiter.core import Command, Encounter, IllegalCommand, load_ruleset
from arbiter.dice import ForcedDice
from arbiter.server.views import View
from arbiter.store import Principal

from .conftest import set_game, set_table

PLAYER = Principal("c1", "player", "Ann", frozenset({"nia"}))


def demo_view(ghost: dict[str, Any], ally: bool = False) -> View:
    ruleset = load_ruleset("demo")
    enc = Encounter.create(ruleset)
    enc.execute(Command("add", args={"id": "nia", "side": "heroes", "health": 10}), ForcedDice([]))
    enc.execute(Command("add", args={"id": "ghost", "side": "heroes" if ally else "beasts",
                                     "health": 5, **ghost}), ForcedDice([]))
    return View(enc.state, PLAYER, ruleset)


def invisible(*found: str) -> dict[str, Any]:
    return {"conditions": [{"name": "invisible", "data": {"detected_by": list(found)}}]}


def test_a_concealing_condition_hides_until_it_lists_one_of_the_players_characters() -> None:
    assert demo_view(invisible()).concealed == {"ghost"}
    assert demo_view(invisible("bram")).concealed == {"ghost"}
    assert demo_view(invisible("nia")).concealed == set()
    assert demo_view(invisible(), ally=True).concealed == set()  # its own side knows


def test_what_the_game_master_hides_stays_hidden_by_default() -> None:
    assert demo_view({"hidden": True, **invisible("nia")}).concealed == {"ghost"}
    assert demo_view({"hidden": True}, ally=True).concealed == {"ghost"}


def test_a_polemos_search_shows_the_player_what_their_character_found(
        client: TestClient) -> None:
    game = set_game(client, "polemos", [
        {"id": "nia", "template": "soldier", "position": [0, 0], "skills": {"search": 2}},
        {"id": "spy", "template": "ganger", "position": [1, 0]}], ["nia"])
    eid, gm, player = game.encounter, game.gm, game.player

    def command(body: dict[str, Any], dice: list[int]) -> None:
        r = client.post(f"/api/encounters/{eid}/commands",
                        json={"command": body, "dice": dice}, headers=gm)
        assert r.status_code == 201, r.text

    def seen() -> set[str]:
        r = client.get(f"/api/encounters/{eid}", headers=player)
        return set(r.json()["entities"])

    def odds_status() -> int:
        return client.post(f"/api/encounters/{eid}/odds", headers=player, json={
            "command": {"do": "attack", "actor": "nia", "target": "spy",
                        "weapon": "knife", "type": "slashing"}}).status_code

    command({"do": "hide", "actor": "spy", "defense": 10}, [])
    assert seen() == {"nia"} and odds_status() == 422
    command({"do": "search", "actor": "nia"}, [2, 3])  # 2D6 + 2 = 7 < 10: not found
    assert seen() == {"nia"}
    log = client.get(f"/api/encounters/{eid}/log", headers=player).json()["records"]
    missed = log[-1]  # as if nobody hid: the roll is there, and nothing names the spy
    assert [d[1] for d in missed["dice"]] == [2, 3]
    assert missed["events"][-1]["data"]["found"] == []
    command({"do": "search", "actor": "nia"}, [4, 4])  # 10: found (ties succeed)
    assert seen() == {"nia", "spy"} and odds_status() == 200
    command({"do": "detect", "actor": "nia", "target": "spy", "detected": False}, [])
    assert seen() == {"nia"}


def test_a_realms_search_that_finds_the_hider_shows_it_to_the_searchers_player() -> None:
    ruleset = load_ruleset("realms")
    enc = Encounter.create(ruleset)
    for actor in ({"id": "ava", "side": "rogues"}, {"id": "nia", "template": "bandit",
                                                   "side": "heroes"}):
        enc.execute(Command("add", args=actor), ForcedDice([]))
    enc.execute(Command("condition", args={"target": "ava", "name": "hidden", "score": 14}),
                ForcedDice([]))
    search = Command("search", "nia", {"target": "ava"})
    # Perceive +1 against 14: a d20 of 13 or more
    assert ruleset.odds(enc.state, search)["success"] == Fraction(8, 20)
    assert View(enc.state, PLAYER, ruleset).concealed == {"ava"}
    enc.execute(search, ForcedDice([12]))
    assert View(enc.state, PLAYER, ruleset).concealed == {"ava"}
    enc.execute(search, ForcedDice([13]))
    assert View(enc.state, PLAYER, ruleset).concealed == set()


@pytest.mark.rules("Z-BLI-6", "Z-RA-2")
def test_a_zones_blind_attack_tells_the_player_nothing_of_who_was_there(
        client: TestClient) -> None:
    """Z-BLI-6: nobody there, or the unseen enemy there defended: the attacker's player gets
    the same record; a hit, only that it hit. Unseen enemies are concealed (Z-RA-2)."""
    unseen = [{"name": "unseen"}]
    game = set_game(client, "zones", [
        {"id": "nia", "template": "soldier", "side": "crew"},
        {"id": "ann", "template": "soldier", "side": "crew", "group": "ann",
         "engagement": "fight"},
        {"id": "gh1", "template": "bandit", "side": "ghosts", "group": "gh",
         "engagement": "fight", "conditions": unseen},
        {"id": "gh3", "template": "bandit", "side": "ghosts", "group": "lone",
         "engagement": "lone", "conditions": unseen}], ["nia", "ann"])
    eid, gm, player = game.encounter, game.gm, game.player
    assert set(client.get(f"/api/encounters/{eid}", headers=player).json()["entities"]) == {
        "nia", "ann"}

    def attack(engagement: str, dice: list[int], **more: Any) -> dict[str, Any]:
        r = client.post(f"/api/encounters/{eid}/commands", headers=gm, json={
            "command": {"do": "attack", "actor": "nia", "engagement": engagement,
                        "blind": True, **more}, "dice": dice})
        assert r.status_code == 201, r.text
        seq = r.json()["record"]["seq"]
        log = client.get(f"/api/encounters/{eid}/log", headers=player).json()
        entry: dict[str, Any] = next(e for e in log["records"] if e["seq"] == seq)
        entry.pop("seq")
        entry.pop("command")  # the player's own words
        data = entry["events"][0]["data"]
        assert data.pop("engagement") == engagement
        data.pop("ammo")  # one round fewer each time
        return entry

    defended = attack("fight", [9, 2])  # offense 9 ≤ DEX 13, gh1's defense 2 ≤ 11
    client.post(f"/api/encounters/{eid}/commands", headers=gm, json={"command": {
        "do": "move", "actor": "gh3", "group": "gone", "engagement": "gone"}})
    nobody = attack("lone", [9], location_known=True)
    assert defended == nobody
    assert defended["dice"] == [] and defended["events"][0]["data"]["attacker_learns"]
    assert "target" not in defended["events"][0]["data"]
    hit = attack("fight", [9, 18, 10])  # gh1 fails its defense: injured
    assert [e["type"] for e in hit["events"]] == ["attacked"]
    assert hit["events"][0]["data"]["hit"] is True
    assert "gh1" not in json.dumps(hit) and "taken" not in hit["events"][0]["data"]
    gm_log = client.get(f"/api/encounters/{eid}/log", headers=gm).json()["records"]
    assert [e["events"][0]["data"].get("outcome") for e in gm_log
            if e["kind"] == "entry" and e["command"]["do"] == "attack"] == [
        None, "nobody there", None]


def test_the_gm_rules_who_has_detected_a_concealed_creature() -> None:
    """``detect``, in every ruleset: the GM's word that a character knows where a creature
    under a concealing condition is (an invisible one here), and takes it back."""
    for name in ("demo", "realms", "zones"):
        ruleset = load_ruleset(name)
        enc = Encounter.create(ruleset)
        hidden_by = "unseen" if name == "zones" else "invisible"
        for actor in ({"id": "nia", "side": "heroes"},
                      {"id": "ghost", "side": "beasts",
                       "conditions": [{"name": hidden_by}]},
                      {"id": "wolf", "side": "beasts"}):
            enc.execute(Command("add", args=actor), ForcedDice([]))
        assert View(enc.state, PLAYER, ruleset).concealed == {"ghost"}, name
        enc.execute(Command("detect", "nia", {"target": "ghost"}), ForcedDice([]))
        assert View(enc.state, PLAYER, ruleset).concealed == set(), name
        enc.execute(Command("detect", "nia", {"target": "ghost", "detected": False}),
                    ForcedDice([]))
        assert View(enc.state, PLAYER, ruleset).concealed == {"ghost"}, name
        with pytest.raises(IllegalCommand, match="wolf has no concealing condition"):
            ruleset.decide(enc.state, Command("detect", "nia", {"target": "wolf"}),
                           ForcedDice([]))


def test_only_the_game_master_may_rule_on_detection(client: TestClient) -> None:
    table = set_table(client)
    r = table.command({"do": "detect", "actor": "nia", "target": "wolf"}, table.player)
    assert r.status_code == 403 and "game master" in r.json()["error"]


def test_a_player_searching_learns_nothing_of_hiders_they_do_not_find(
        client: TestClient) -> None:
    """A realms search without a target, by the player: the odds and the record look the
    same whether somebody hides there or not, until the roll finds them."""
    game = set_game(client, "realms", [{"id": "nia", "template": "bandit", "side": "heroes"},
                                       {"id": "ava", "side": "thieves"}], ["nia"])
    eid, gm, player = game.encounter, game.gm, game.player
    search = {"do": "search", "actor": "nia"}

    def odds(headers: dict[str, str]) -> Any:
        r = client.post(f"/api/encounters/{eid}/odds", headers=headers,
                        json={"command": search})
        assert r.status_code == 200, r.text
        return r.json()["odds"]

    def searched(dice: list[int]) -> Any:
        r = client.post(f"/api/encounters/{eid}/commands", headers=gm,
                        json={"command": search, "dice": dice})
        assert r.status_code == 201, r.text
        seq = r.json()["record"]["seq"]
        log = client.get(f"/api/encounters/{eid}/log", headers=player).json()["records"]
        entry = next(e for e in log if e["seq"] == seq)
        return entry["events"][0]["data"], entry["dice"]

    alone_odds, alone = odds(player), searched([3])
    client.post(f"/api/encounters/{eid}/commands", headers=gm, json={"command": {
        "do": "condition", "target": "ava", "name": "hidden", "score": 15}})
    assert odds(player) == alone_odds == {"found": {}}
    assert odds(gm)["found"]["ava"]["exact"] == "7/20"  # 14 or more on the d20, Perceive +1
    assert searched([3]) == alone  # missed: the same record, dice and all
    found, dice = searched([14])
    assert found["found"] == ["ava"] and dice == [[20, 14]]
