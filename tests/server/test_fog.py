"""Fog of war (issue 34): the game master's fog commands, what a player receives of a
creature in fog (nothing, as of a hidden one) and of the map under it, and the creature
back once its square is revealed."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from arbiter.core import Command, RulesError, load_ruleset
from arbiter.core.encounter import Encounter
from arbiter.dice import SeededDice
from arbiter.limits import MAP_SQUARES

from .test_scene import picture
from .test_table_dice import Table

ACTORS = [{"id": "nia", "template": "knight", "side": "heroes", "position": [1, 1]},
          {"id": "bandit", "template": "bandit", "side": "raiders", "position": [6, 1]}]


def state(table: Table, who: dict[str, str]) -> Any:
    return table.client.get(f"/api/encounters/{table.eid}", headers=who).json()


def test_a_creature_in_fog_is_absent_until_its_square_is_revealed(client: TestClient) -> None:
    table = Table(client, "realms", ACTORS, ["nia"])
    r = table.post(table.gm, {"command": {"do": "terrain", "squares": [[5, 5], [2, 2]]}})
    assert r.status_code == 201, r.text
    r = table.post(table.gm, {"command": {"do": "fog", "enabled": True,
                                          "corners": [[0, 0], [3, 3]]}})
    assert r.status_code == 201, r.text
    assert r.json()["record"]["text"].startswith("Fog of war on: ")
    seen = state(table, table.player)
    assert sorted(seen["entities"]) == ["nia"]  # the bandit stands in fog
    assert seen["fog"]["enabled"] is True and len(seen["fog"]["squares"]) == 16
    assert seen["extra"]["difficult"] == [[2, 2]]  # the terrain under the fog is not shown
    assert sorted(state(table, table.gm)["entities"]) == ["bandit", "nia"]
    odds = table.client.post(f"/api/encounters/{table.eid}/odds", headers=table.player,
                             json={"command": {"do": "attack", "actor": "nia",
                                               "target": "bandit"}})
    assert odds.status_code == 422 and "bandit" not in odds.text.replace("'bandit'", "")
    log = table.client.get(f"/api/encounters/{table.eid}/log", headers=table.player).json()
    said = [r.get("text") or "" for r in log["records"]]
    assert said[-1] == "The fog of war shifts."  # which squares: the GM's alone
    assert "Bandit" not in str(log)
    r = table.post(table.gm, {"command": {"do": "fog", "squares": [[6, 1]]}})
    assert r.status_code == 201, r.text
    assert sorted(state(table, table.player)["entities"]) == ["bandit", "nia"]
    r = table.post(table.gm, {"command": {"do": "fog", "enabled": False}})
    assert r.status_code == 201
    assert state(table, table.player)["extra"]["difficult"] == [[2, 2], [5, 5]]


def test_fog_commands_are_bounded_and_the_game_masters() -> None:
    rules = load_ruleset("realms")
    enc = Encounter.create(rules)

    def refused(args: dict[str, Any]) -> str:
        try:
            enc.execute(Command("fog", args=args), SeededDice(1))
        except RulesError as err:
            return str(err)
        raise AssertionError(f"fog {args} was accepted")

    side = int(MAP_SQUARES ** 0.5) + 1
    assert "at most 40000 (limit MAP_SQUARES)" in refused(
        {"corners": [[0, 0], [side, side]]})
    assert "corners are two squares" in refused({"corners": [[0, 0]]})
    assert "the fog is already so" in refused({"enabled": False})
    enc.execute(Command("fog", args={"enabled": True, "squares": [[1, 1], [2, 2]]}),
                SeededDice(1))
    enc.execute(Command("fog", args={"squares": [[1, 1]], "hide": True}), SeededDice(1))
    assert enc.state.extra["fog"] == {"enabled": True, "squares": [[2, 2]], "zones": [],
                                      "rev": 2}
    assert rules.catalogue["fog"].who == "gm"


def test_a_staged_creature_waits_out_of_the_order_until_brought_in(
        client: TestClient) -> None:
    """Preparation (issue 34): a creature staged on the map is left out when initiative is
    rolled and joins the order, rolling or taking its initiative, when brought in."""
    table = Table(client, "realms", [*ACTORS, {"id": "ogre", "template": "ogre",
                                               "side": "raiders", "position": [9, 1]}], ["nia"])
    assert table.post(table.gm, {"command": {"do": "stage", "target": "ogre"}}).status_code == 201
    r = table.post(table.gm, {"command": {"do": "start", "initiative": {"nia": 20,
                                                                        "bandit": 10}}})
    assert r.status_code == 201, r.text
    assert r.json()["state"]["order"] == ["nia", "bandit"]
    assert r.json()["state"]["extra"]["staged"] == ["ogre"]
    r = table.post(table.gm, {"command": {"do": "initiative", "target": "ogre", "value": 15}})
    assert r.status_code == 422 and "ogre is staged" in r.json()["error"]  # found by random play
    r = table.post(table.gm, {"command": {"do": "stage", "target": "ogre", "ready": False,
                                          "initiative": 15}})
    assert r.status_code == 201, r.text
    assert r.json()["state"]["order"] == ["nia", "ogre", "bandit"]
    log = table.client.get(f"/api/encounters/{table.eid}/log", headers=table.player).json()
    assert log["records"][-1]["text"].startswith("Ogre comes into play.")
    r = table.post(table.gm, {"command": {"do": "stage", "target": "nia"}})
    assert r.status_code == 422 and "it is nia's turn" in r.json()["error"]


def test_a_saved_scene_is_drawn_again_in_a_new_encounter(client: TestClient) -> None:
    """Scenes saved per campaign (issue 34): the image and grid, the terrain and the fog of
    one encounter, kept under a name and drawn again on another's map in one record."""
    table = Table(client, "realms", ACTORS, ["nia"])
    png = picture()
    r = table.client.put(f"/api/encounters/{table.eid}/scene/image", content=png,
                         headers={**table.gm, "Content-Type": "image/png"})
    assert r.status_code == 201, r.text
    for command in ({"do": "scene", "square": 50}, {"do": "terrain", "squares": [[3, 3]]},
                    {"do": "fog", "enabled": True, "corners": [[0, 0], [2, 1]]}):
        assert table.post(table.gm, {"command": command}).status_code == 201
    before = state(table, table.gm)
    r = table.client.post(f"/api/encounters/{table.eid}/scene/save", json={"name": "The ford"},
                          headers=table.gm)
    assert r.status_code == 201, r.text
    assert r.json()["scenes"] == [{"name": "The ford", "commands": 6, "image": True,
                                   "fog": True, "placements": 2}]
    assert table.client.post(f"/api/encounters/{table.eid}/scene/save", json={"name": "x"},
                             headers=table.player).status_code == 403
    other = table.client.post(f"/api/campaigns/{table.cid}/encounters", json={"name": "Again"},
                              headers=table.gm).json()["encounter"]["id"]
    r = table.client.post(f"/api/encounters/{other}/scene/load", json={"name": "The ford"},
                          headers=table.gm)
    assert r.status_code == 201, r.text
    assert r.json()["not_here"] == 2  # nia and the bandit are not in this encounter
    after = r.json()["state"]
    for key in ("scene", "fog"):
        assert after[key] == {**before[key], **({"rev": 2} if key == "fog" else {})}
    assert after["extra"]["difficult"] == before["extra"]["difficult"] == [[3, 3]]
    assert table.client.post(f"/api/encounters/{other}/undo", headers=table.gm).status_code == 201
    assert "scene" not in state_of(table, other)
    r = table.client.post(f"/api/encounters/{other}/scene/load", json={"name": "nope"},
                          headers=table.gm)
    assert r.status_code == 404 and r.json()["error"] == "no saved scene 'nope' in this campaign"
    listed = table.client.get(f"/api/campaigns/{table.cid}/scenes", headers=table.gm).json()
    assert [s["name"] for s in listed["scenes"]] == ["The ford"]


def state_of(table: Table, eid: str) -> Any:
    return table.client.get(f"/api/encounters/{eid}", headers=table.gm).json()


@pytest.mark.parametrize("ruleset", ["realms", "polemos", "zones"])
def test_a_saved_scene_puts_the_creatures_of_it_that_are_here_where_they_stood(
        client: TestClient, ruleset: str) -> None:
    """Placements are part of a saved scene (issue 34): loaded in another encounter, each
    creature of the scene that is there (a roster character keeps its id) goes where it
    stood; the others are counted in ``not_here``; loading again changes nothing (409)."""
    r = client.post("/api/campaigns", json={"name": "Scenes", "ruleset": ruleset})
    cid, gm = r.json()["campaign"]["id"], {"Authorization": f"Bearer {r.json()['gm_token']}"}
    template = next(iter(load_ruleset(ruleset).templates))
    for ident in ("ann", "bo"):
        r = client.post(f"/api/campaigns/{cid}/characters", headers=gm, json={
            "id": ident, "template": template, "side": "heroes"})
        assert r.status_code == 201, r.text

    def encounter(name: str, characters: list[str]) -> str:
        r = client.post(f"/api/campaigns/{cid}/encounters", headers=gm,
                        json={"name": name, "characters": characters})
        assert r.status_code == 201, r.text
        return str(r.json()["encounter"]["id"])

    def post(eid: str, command: dict[str, Any]) -> Any:
        r = client.post(f"/api/encounters/{eid}/commands", json={"command": command},
                        headers=gm)
        assert r.status_code == 201, r.text
        return r.json()["state"]

    first = encounter("First", ["ann", "bo"])
    grid = ruleset != "zones"
    spots = {"ann": [2, 3], "bo": [4, 1]} if grid else {"ann": "bridge", "bo": "tower"}
    for ident, where in spots.items():
        post(first, {"do": "place", "target": ident,
                     **({"at": where} if grid else {"zone": where})})
    r = client.post(f"/api/encounters/{first}/scene/save", json={"name": "Gate"}, headers=gm)
    assert r.status_code == 201, r.text
    assert r.json()["scenes"][0]["placements"] == 2

    second = encounter("Second", ["ann"])
    r = client.post(f"/api/encounters/{second}/scene/load", json={"name": "Gate"}, headers=gm)
    assert r.status_code == 201, r.text
    assert r.json()["not_here"] == 1  # bo is not in this encounter
    ann = r.json()["state"]["entities"]["ann"]
    assert (ann["position"] if grid else ann["zone"]) == spots["ann"]
    again = client.post(f"/api/encounters/{second}/scene/load", json={"name": "Gate"},
                        headers=gm)
    assert again.status_code == 409 and "drawn here already" in again.json()["error"]


def test_a_roster_picture_follows_the_character_and_the_bestiary_creature_into_encounters(
        client: TestClient) -> None:
    """Token pictures per roster and bestiary entry (issue 34): set once in the campaign,
    shown on every creature that joins from there (a new encounter's arrivals, an actor
    added later), served to the GM and to a player who may read the character; removed
    with the entry; refused for an entry that does not exist and as a stat-block key."""
    table = Table(client, "realms", [], [])
    gm, cid = table.gm, table.cid
    r = client.post(f"/api/campaigns/{cid}/characters", headers=gm, json={
        "id": "ann", "template": "knight", "side": "heroes"})
    assert r.status_code == 201, r.text
    r = client.post(f"/api/campaigns/{cid}/bestiary", headers=gm, json={
        "id": "marsh-bandit", "template": "bandit", "name": "Marsh bandit"})
    assert r.status_code == 201, r.text
    player = {"Authorization": "Bearer " + client.post(
        f"/api/campaigns/{cid}/players", headers=gm,
        json={"name": "Ann", "characters": ["ann"]}).json()["token"]}
    png = picture(size=(600, 400))
    r = client.put(f"/api/campaigns/{cid}/characters/ann/image", content=png,
                   headers={**gm, "Content-Type": "image/png"})
    assert r.status_code == 201, r.text
    ann = r.json()["image"]
    assert (ann["width"], ann["height"]) == (256, 171)  # scaled to a token's size
    r = client.put(f"/api/campaigns/{cid}/bestiary/marsh-bandit/image",
                   content=picture("WEBP", (64, 64)),
                   headers={**gm, "Content-Type": "image/webp"})
    assert r.status_code == 201, r.text
    bandit = r.json()["image"]["hash"]
    assert client.put(f"/api/campaigns/{cid}/characters/ann/image", content=png,
                      headers={**player, "Content-Type": "image/png"}).status_code == 403
    r = client.put(f"/api/campaigns/{cid}/characters/nobody/image", content=png,
                   headers={**gm, "Content-Type": "image/png"})
    assert r.status_code == 404 and "nobody" in r.json()["error"]
    r = client.put(f"/api/campaigns/{cid}/bestiary/marsh-bandit/image", content=b"<svg/>",
                   headers={**gm, "Content-Type": "image/png"})
    assert r.status_code == 415
    roster = client.get(f"/api/campaigns/{cid}/characters", headers=player).json()
    assert roster["pictures"] == {"ann": ann["hash"]}
    assert client.get(f"/api/campaigns/{cid}/bestiary", headers=gm).json()["pictures"] == {
        "marsh-bandit": bandit}
    for who in (gm, player):
        got = client.get(f"/api/campaigns/{cid}/images/{ann['hash']}", headers=who)
        assert got.status_code == 200 and got.headers["content-type"] == "image/png"
    assert client.get(f"/api/campaigns/{cid}/images/{bandit}",
                      headers=player).status_code == 404  # the bestiary is the GM's

    r = client.post(f"/api/campaigns/{cid}/encounters", headers=gm, json={
        "name": "Ford", "characters": ["ann"], "creatures": [{"template": "marsh-bandit"}]})
    assert r.status_code == 201, r.text
    eid = r.json()["encounter"]["id"]
    tokens = client.get(f"/api/encounters/{eid}", headers=gm).json()["extra"]["tokens"]
    assert tokens == {"ann": ann["hash"], "marsh-bandit": bandit}
    r = client.post(f"/api/encounters/{eid}/actors", headers=gm,
                    json={"id": "second", "template": "marsh-bandit"})
    assert r.status_code == 201, r.text
    assert r.json()["state"]["extra"]["tokens"]["second"] == bandit
    assert client.get(f"/api/encounters/{eid}/images/{ann['hash']}",
                      headers=player).status_code == 200

    document = client.get(f"/api/campaigns/{cid}/export", headers=gm).json()
    document["campaign"]["id"] = "c-pictured"
    for n, enc in enumerate(document["encounters"]):
        enc["id"] = f"e-pictured-{n}"
    r = client.post("/api/campaigns/import", json=document)
    assert r.status_code == 201, r.text  # the picture commands are decided again there
    got = client.get(f"/api/campaigns/c-pictured/images/{ann['hash']}", headers=gm)
    assert got.status_code == 200 and got.headers["content-type"] == "image/png"

    r = client.post(f"/api/campaigns/{cid}/characters", headers=gm, json={
        "id": "cy", "template": "knight", "image": ann["hash"]})
    assert r.status_code == 422 and "token picture" in r.json()["error"]
    r = client.delete(f"/api/campaigns/{cid}/characters/ann/image", headers=gm)
    assert r.status_code == 200, r.text
    assert client.get(f"/api/campaigns/{cid}/characters", headers=gm).json()["pictures"] == {}
    r = client.delete(f"/api/campaigns/{cid}/bestiary/marsh-bandit", headers=gm)
    assert r.status_code == 200, r.text
    assert client.get(f"/api/campaigns/{cid}/images/{bandit}", headers=gm).status_code == 404


@pytest.mark.rules("P-REQ-4")
def test_a_players_characters_see_through_the_fog_by_line_of_sight(
        client: TestClient) -> None:
    """Vision (issue 34): with the fog's ``vision`` at 4, a player's map also reveals what
    their character sees within 4 squares by line of sight (Polemos: walls and smoke stop
    it, P-REQ-4). A ganger in plain view shows; one behind the wall and one too far stay
    absent from the player's state and odds; the GM's fog is unchanged; another player's
    character sees its own surroundings, not Vera's."""
    actors = [{"id": "vera", "template": "soldier", "side": "heroes", "position": [2, 2]},
              {"id": "doc", "template": "soldier", "side": "heroes", "position": [20, 20]},
              {"id": "near", "template": "ganger", "side": "gang", "position": [4, 3]},
              {"id": "behind", "template": "ganger", "side": "gang", "position": [5, 2]},
              {"id": "far", "template": "ganger", "side": "gang", "position": [9, 2]}]
    table = Table(client, "polemos", actors, ["vera"])
    doc = {"Authorization": "Bearer " + client.post(
        f"/api/campaigns/{table.cid}/players", headers=table.gm,
        json={"name": "Bo", "characters": ["doc"]}).json()["token"]}
    r = table.post(table.gm, {"command": {"do": "terrain", "squares": [[4, 1], [4, 2]],
                                          "what": "wall"}})
    assert r.status_code == 201, r.text
    r = table.post(table.gm, {"command": {"do": "fog", "enabled": True}})
    assert r.status_code == 201, r.text
    assert sorted(state(table, table.player)["entities"]) == ["vera"]  # all in fog
    r = table.post(table.gm, {"command": {"do": "fog", "vision": 4}})
    assert r.status_code == 201, r.text
    seen = state(table, table.player)
    assert sorted(seen["entities"]) == ["near", "vera"]  # behind the wall, too far: not
    squares = {tuple(q) for q in seen["fog"]["squares"]}
    assert (4, 3) in squares and (4, 2) in squares  # the wall itself is seen
    assert (5, 2) not in squares and (6, 2) not in squares and (9, 2) not in squares
    assert (2, 6) in squares and (6, 6) in squares  # open ground, within 4 squares
    assert len(squares) < 81  # the wall hides part of the box
    gm_fog = state(table, table.gm)["fog"]
    assert gm_fog["squares"] == [] and gm_fog["vision"] == 4
    assert sorted(state(table, doc)["entities"]) == ["doc"]  # nobody near Doc
    odds = table.client.post(f"/api/encounters/{table.eid}/odds", headers=table.player,
                             json={"command": {"do": "attack", "actor": "vera",
                                               "target": "behind"}})
    options = table.client.get(f"/api/encounters/{table.eid}/options?actor=vera",
                               headers=table.player).json()
    attack = next(o for o in options["options"] if o["command"] == "attack")
    assert sorted(t["id"] for t in attack["targets"]) == ["near", "vera"]
    assert odds.status_code == 422  # as of a creature that is not there
    assert odds.json()["error"] == ("no creature or object named 'behind' here (known: "
                                    "near, vera)")
    r = table.post(table.gm, {"command": {"do": "fog", "vision": 0}})
    assert r.status_code == 201, r.text
    assert sorted(state(table, table.player)["entities"]) == ["vera"]
    r = table.post(table.gm, {"command": {"do": "fog", "vision": 0}})
    assert r.status_code == 422 and "already so" in r.json()["error"]
    r = table.post(table.gm, {"command": {"do": "fog", "vision": 99}})
    assert r.status_code == 422 and r.json()["field"] == "command.vision"
