"""The roster and bestiary routes, with the game master's and a player's tokens: what each
may read and change, the errors (401, 403, 404, 409, 422 naming the field), new encounters
that bring characters and bestiary creatures in, write-back, the campaign's own log with
its undo and redo, and the campaign file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arbiter.server import create_app


@dataclass
class Campaign:
    client: TestClient
    id: str
    gm: dict[str, str]
    player: dict[str, str]

    def url(self, tail: str = "") -> str:
        return f"/api/campaigns/{self.id}{tail}"


CHARACTERS: list[dict[str, Any]] = [
    {"id": "kit", "name": "Kit", "template": "soldier", "side": "crew", "owner": "Ann",
     "notes": "owes the quartermaster"},
    {"id": "vel", "name": "Vel", "template": "sniper", "side": "crew", "owner": "Bo",
     "notes": "a spy for the gang"},
    {"id": "boss", "name": "Boss Mara", "template": "bandit", "side": "gang", "health": 90,
     "notes": "wants the map"},
    {"id": "mole", "name": "The Mole", "template": "bandit", "side": "gang", "hidden": True},
]


@pytest.fixture
def game(client: TestClient) -> Campaign:
    """A zones campaign with four roster characters (one hidden), a bestiary entry, and a
    player whose character is kit."""
    r = client.post("/api/campaigns", json={"name": "Long road", "ruleset": "zones"})
    cid, token = r.json()["campaign"]["id"], r.json()["gm_token"]
    gm = {"Authorization": f"Bearer {token}"}
    for character in CHARACTERS:
        r = client.post(f"/api/campaigns/{cid}/characters", json=character, headers=gm)
        assert r.status_code == 201, r.text
    r = client.post(f"/api/campaigns/{cid}/bestiary", headers=gm, json={
        "id": "raider", "name": "Raider", "template": "bandit", "health": 40,
        "notes": "from the salt flats"})
    assert r.status_code == 201, r.text
    r = client.post(f"/api/campaigns/{cid}/players", headers=gm,
                    json={"name": "Ann", "characters": ["kit"]})
    return Campaign(client, cid, gm, {"Authorization": f"Bearer {r.json()['token']}"})


def test_the_game_master_reads_and_changes_the_roster(game: Campaign) -> None:
    c = game.client
    r = c.get(game.url("/characters"), headers=game.gm)
    assert r.status_code == 200
    assert r.json()["version"] == 5
    assert [x["id"] for x in r.json()["characters"]] == ["kit", "vel", "boss", "mole"]
    assert r.json()["characters"][0] == {**CHARACTERS[0], "lasting": {}}
    r = c.get(game.url("/characters/mole"), headers=game.gm)
    assert r.json()["character"]["hidden"] is True
    # PUT replaces the sheet, keeps the lasting state unless given
    r = c.put(game.url("/characters/boss"), headers=game.gm,
              json={"name": "Boss Mara", "template": "bandit", "side": "gang",
                    "lasting": {"health_now": 30}})
    assert r.status_code == 200, r.text
    assert r.json()["character"] == {"id": "boss", "name": "Boss Mara", "template": "bandit",
                                     "side": "gang", "lasting": {"health_now": 30}}
    assert r.json()["record"]["text"] == "Boss Mara's sheet changes."
    r = c.put(game.url("/characters/boss"), headers=game.gm,
              json={"name": "Mara", "template": "bandit", "side": "gang"})
    assert r.json()["character"]["lasting"] == {"health_now": 30}
    r = c.delete(game.url("/characters/mole"), headers=game.gm)
    assert r.status_code == 200 and r.json()["removed"] == "mole"
    assert r.json()["record"]["text"] == "Mole leaves the roster."
    assert c.get(game.url("/characters/mole"), headers=game.gm).status_code == 404


def test_a_player_reads_their_own_in_full_and_others_as_the_player_view(
        game: Campaign) -> None:
    c = game.client
    game.client.put(game.url("/characters/boss"), headers=game.gm, json={
        "name": "Boss Mara", "template": "bandit", "side": "gang", "health": 90,
        "lasting": {"health_now": 20, "conditions": [{"name": "prone"}]}})
    r = c.get(game.url("/characters"), headers=game.player)
    assert r.status_code == 200, r.text
    shown = {x["id"]: x for x in r.json()["characters"]}
    assert list(shown) == ["kit", "vel", "boss"]  # the hidden mole is not there at all
    assert shown["kit"] == {k: v for k, v in {**CHARACTERS[0], "lasting": {}}.items()
                            if k != "notes"}
    assert "notes" not in shown["vel"] and shown["vel"]["template"] == "sniper"  # an ally
    assert shown["boss"] == {"id": "boss", "name": "Boss Mara", "kind": "creature",
                             "side": "gang", "conditions": [{"name": "prone", "level": 1}],
                             "status": "bloodied"}
    assert c.get(game.url("/characters/boss"), headers=game.player).json()["character"] \
        == shown["boss"]
    for ident in ("mole", "nobody"):  # hidden and missing answer alike
        r = c.get(game.url(f"/characters/{ident}"), headers=game.player)
        assert r.status_code == 404
        assert r.json() == {"error": f"no character {ident!r}", "field": None}


def test_changes_and_the_bestiary_are_the_game_masters(game: Campaign) -> None:
    c = game.client
    calls: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", "/characters", {"id": "zed"}),
        ("PUT", "/characters/kit", {"name": "Kat"}),
        ("DELETE", "/characters/kit", None),
        ("GET", "/bestiary", None),
        ("POST", "/bestiary", {"id": "ghoul"}),
        ("GET", "/bestiary/raider", None),
        ("PUT", "/bestiary/raider", {"health": 3}),
        ("DELETE", "/bestiary/raider", None),
        ("GET", "/log", None),
        ("POST", "/undo", None),
        ("POST", "/redo", None),
    ]
    for method, tail, body in calls:
        r = c.request(method, game.url(tail), headers=game.player, json=body)
        assert r.status_code == 403, (method, tail, r.text)
        assert r.json()["error"] == "only the game master may do this"
        r = c.request(method, game.url(tail), json=body)
        assert r.status_code == 401, (method, tail)
        assert r.json()["field"] == "authorization"
        r = c.request(method, game.url(tail), json=body,
                      headers={"Authorization": "Bearer " + "z" * 43})
        assert r.status_code == 401
        r = c.request(method, f"/api/campaigns/c-0000000000{tail}", headers=game.gm,
                      json=body)
        assert r.status_code == 404, (method, tail)
    for tail in ("/characters", "/characters/kit"):
        assert c.get(game.url(tail)).status_code == 401
    r = c.post(f"/api/encounters/{new_encounter(game, [])}/write-back", headers=game.player)
    assert r.status_code == 403
    assert c.get(game.url("/characters/kit"), headers=game.player).json()["character"][
        "name"] == "Kit"  # nothing changed


@pytest.mark.parametrize(("body", "status", "field", "message"), [
    ({"id": "kit"}, 409, "id", "the roster already has a character 'kit'"),
    ({"id": "x", "name": 3}, 422, "name", "must be text"),
    ({"id": "bad id"}, 422, "id", "must be letters, digits"),
    ({"name": "No id"}, 422, "id", "is required"),
    ({"id": "x", "wings": 2}, 422, "wings", "unknown stat-block key(s) wings"),
    ({"id": "x", "template": "dragon"}, 422, "template", "zones has no template 'dragon'"),
    ({"id": "x", "lasting": []}, 422, "lasting", "must be an object"),
    ({"id": "x", "lasting": {"health_now": "lots"}}, 422, None, "malformed stat block"),
    ({"id": "x", "initiative": 3}, 422, "initiative", "not a stat-block key here"),
    ({"id": "x", "lasting": {"template": "bandit"}}, 422, "lasting",
     "'template' is not part of a lasting state"),
    ({"id": "x", **{f"k{i}": 1 for i in range(64)}}, 400, None, "has more than 64 keys"),
])
def test_a_bad_character_is_refused_naming_the_field(
        game: Campaign, body: dict[str, Any], status: int, field: str | None,
        message: str) -> None:
    r = game.client.post(game.url("/characters"), json=body, headers=game.gm)
    assert r.status_code == status, r.text
    assert r.json()["field"] == field
    assert message in r.json()["error"]


def test_put_and_delete_of_unknown_ids_are_404_and_ids_never_change(game: Campaign) -> None:
    c = game.client
    assert c.put(game.url("/characters/ghost"), headers=game.gm,
                 json={"name": "G"}).status_code == 404
    assert c.delete(game.url("/characters/ghost"), headers=game.gm).status_code == 404
    assert c.put(game.url("/bestiary/ghost"), headers=game.gm, json={}).status_code == 404
    assert c.delete(game.url("/bestiary/ghost"), headers=game.gm).status_code == 404
    assert c.get(game.url("/bestiary/ghost"), headers=game.gm).status_code == 404
    assert c.get(game.url("/characters/bad%20id"), headers=game.gm).status_code == 404
    r = c.put(game.url("/characters/kit"), headers=game.gm, json={"id": "kat"})
    assert r.status_code == 422 and r.json()["field"] == "id"
    r = c.put(game.url("/bestiary/raider"), headers=game.gm, json={"id": "ghoul"})
    assert r.status_code == 422 and r.json()["field"] == "id"
    r = c.put(game.url("/characters/kit"), headers=game.gm, json={"expected_version": 1})
    assert r.status_code == 409 and r.json()["version"] == 5


def test_the_bestiary_routes(game: Campaign) -> None:
    c = game.client
    r = c.get(game.url("/bestiary"), headers=game.gm)
    assert r.json()["bestiary"] == [{"id": "raider", "name": "Raider", "template": "bandit",
                                     "health": 40, "notes": "from the salt flats"}]
    r = c.get(game.url("/bestiary/raider"), headers=game.gm)
    assert r.json()["stat_block"]["health"] == 40
    assert r.json()["stat_block"]["weapons"] == ["pistol", "knife"]  # from the template
    r = c.post(game.url("/bestiary"), headers=game.gm, json={"id": "raider"})
    assert r.status_code == 409 and r.json()["field"] == "id"
    r = c.post(game.url("/bestiary"), headers=game.gm, json={"id": "wolf", "health": 3})
    assert r.status_code == 422 and "template zones ships" in r.json()["error"]
    r = c.post(game.url("/bestiary"), headers=game.gm, json={"id": "x", "template": "raider"})
    assert r.status_code == 422 and r.json()["field"] == "template"
    r = c.put(game.url("/bestiary/raider"), headers=game.gm,
              json={"name": "Salt Raider", "template": "bandit", "health": 45})
    assert r.status_code == 200 and r.json()["creature"]["health"] == 45
    assert r.json()["record"]["text"] == "The bestiary updates raider."
    r = c.get(game.url("/templates"), headers=game.gm)
    assert r.json()["bestiary"]["raider"]["name"] == "Salt Raider"
    assert "bandit" in r.json()["templates"] and "raider" not in r.json()["templates"]
    r = c.delete(game.url("/bestiary/raider"), headers=game.gm)
    assert r.status_code == 200 and r.json()["record"]["text"] == "The bestiary loses raider."
    assert c.get(game.url("/bestiary"), headers=game.gm).json()["bestiary"] == []


def new_encounter(game: Campaign, characters: list[str],
                  creatures: list[dict[str, Any]] | None = None) -> str:
    r = game.client.post(game.url("/encounters"), headers=game.gm, json={
        "name": "Ford", "characters": characters, "creatures": creatures or []})
    assert r.status_code == 201, r.text
    return str(r.json()["encounter"]["id"])


def test_an_encounter_with_characters_creatures_and_a_write_back(game: Campaign) -> None:
    c = game.client
    eid = new_encounter(game, ["kit", "boss"],
                        [{"template": "raider", "side": "gang"},
                         {"template": "raider", "side": "gang"},
                         {"template": "bandit", "id": "guard", "side": "gang"}])
    state = c.get(f"/api/encounters/{eid}", headers=game.gm).json()
    assert list(state["entities"]) == ["kit", "boss", "raider", "raider-2", "guard"]
    assert state["entities"]["raider"]["health"] == 40
    assert state["entities"]["boss"]["health_max"] == 90
    # the player plays kit there: their token names it
    assert c.get(f"/api/encounters/{eid}", headers=game.player).json()["characters"] == [
        "kit"]
    r = c.post(f"/api/encounters/{eid}/commands", headers=game.gm, json={
        "command": {"do": "damage", "target": "boss", "amount": 50}})
    assert r.status_code == 201, r.text
    r = c.post(f"/api/encounters/{eid}/commands", headers=game.gm, json={
        "command": {"do": "damage", "target": "raider", "amount": 20}})
    r = c.post(f"/api/encounters/{eid}/write-back", headers=game.gm)
    assert r.status_code == 201, r.text
    hurt = c.get(f"/api/encounters/{eid}", headers=game.gm).json()["entities"]["boss"][
        "health"]
    assert [x["id"] for x in r.json()["characters"]] == ["kit", "boss"]  # not the raiders
    assert r.json()["characters"][1]["lasting"] == {"health_now": hurt,
                                                    "ammo": {"pistol": 12}}
    assert r.json()["record"]["text"] == (
        "The lasting state of Kit, Boss Mara is written back from the encounter Ford "
        f"({eid}).")
    # the player sees what it did to the boss as a wound status only
    boss = c.get(game.url("/characters/boss"), headers=game.player).json()["character"]
    assert boss["status"] == "bloodied" and "lasting" not in boss
    again = new_encounter(game, ["boss"])
    assert c.get(f"/api/encounters/{again}", headers=game.gm).json()["entities"]["boss"][
        "health"] == hurt
    # the campaign's own log, its undo and redo
    log = c.get(game.url("/log?after=4"), headers=game.gm).json()
    assert log["version"] == 6
    assert [x["text"] for x in log["records"]] == [
        "The bestiary gains raider.", r.json()["record"]["text"]]
    assert c.get(game.url("/log?limit=0"), headers=game.gm).status_code == 400
    r = c.post(game.url("/undo"), headers=game.gm)
    assert r.status_code == 201 and r.json()["record"]["text"] == "The game master undoes #6."
    assert c.get(game.url("/characters/boss"), headers=game.gm).json()["character"][
        "lasting"] == {}
    r = c.post(game.url("/redo"), headers=game.gm, json={"expected_version": 6})
    assert r.status_code == 409 and r.json()["version"] == 7
    r = c.post(game.url("/redo"), headers=game.gm, json={"expected_version": 7})
    assert r.status_code == 201 and r.json()["version"] == 8
    r = c.post(game.url("/redo"), headers=game.gm)
    assert r.status_code == 409 and "nothing to redo" in r.json()["error"]


def test_refused_encounters_and_write_backs(game: Campaign) -> None:
    c = game.client
    for body, field in (({"characters": ["ghost"]}, "characters.0"),
                        ({"characters": ["kit", "kit"]}, "characters.1"),
                        ({"creatures": [{"template": "dragon"}]}, "creatures.0.template"),
                        ({"creatures": [{"template": "raider", "hp": 3}]}, "creatures.0.hp"),
                        ({"characters": ["bad id"]}, "characters.0")):
        r = c.post(game.url("/encounters"), headers=game.gm, json={"name": "E", **body})
        assert r.status_code == 422, (body, r.text)
        assert r.json()["field"] == field
    campaign = c.get(game.url(), headers=game.gm).json()
    assert campaign["encounters"] == []
    eid = new_encounter(game, [], [{"template": "raider"}])
    r = c.post(f"/api/encounters/{eid}/write-back", headers=game.gm)
    assert r.status_code == 422
    assert r.json()["error"].startswith("no character of the roster (boss, kit, mole, vel)")
    assert c.post("/api/encounters/e-0000000000/write-back",
                  headers=game.gm).status_code == 404
    r = c.post(f"/api/encounters/{eid}/write-back", headers=game.gm,
               json={"expected_version": "x"})
    assert r.status_code == 422 and r.json()["field"] == "expected_version"


def test_the_campaign_file_keeps_the_roster(game: Campaign, tmp_path: Path) -> None:
    c = game.client
    document = c.get(game.url("/export"), headers=game.gm).json()
    assert document["v"] == 2 and len(document["log"]) == 5
    with TestClient(create_app(db=tmp_path / "other.db")) as other:
        r = other.post("/api/campaigns/import", json=document)
        assert r.status_code == 201, r.text
        assert other.get(game.url("/export"), headers=game.gm).json() == document
        r = other.get(game.url("/characters"), headers=game.player)
        assert [x["id"] for x in r.json()["characters"]] == ["kit", "vel", "boss"]
        broken = {**document, "log": [{**document["log"][0], "v": 5}]}
        broken["campaign"] = {**document["campaign"], "id": "c-other"}
        r = other.post("/api/campaigns/import", json=broken)
        assert r.status_code == 422 and r.json()["field"] == "log.0.v"


# -- campaign time, settings, and a roster character joining an encounter (issue 17) ------
@pytest.mark.rules("ZR-9")
def test_time_passes_for_the_roster_and_undo_takes_it_back(game: Campaign) -> None:
    """A wounded character heals as days of rest pass (zones: ZR-9, a tenth of maximum
    Health a complete day); the route is the game master's; undo restores the lasting
    state and the campaign's time."""
    c = game.client
    eid = new_encounter(game, ["kit"])
    r = c.post(f"/api/encounters/{eid}/commands", headers=game.gm,
               json={"command": {"do": "damage", "target": "kit", "amount": 30}})
    assert r.status_code == 201, r.text
    assert c.post(f"/api/encounters/{eid}/write-back", headers=game.gm).status_code == 201
    r = c.post(game.url("/time"), headers=game.player, json={"amount": 2, "unit": "days"})
    assert r.status_code == 403
    r = c.post(game.url("/time"), headers=game.gm, json={"amount": 2, "unit": "weeks"})
    assert r.status_code == 422 and r.json()["field"] == "unit"
    r = c.post(game.url("/time"), headers=game.gm,
               json={"amount": 2, "unit": "days", "activity": "dance"})
    assert r.status_code == 422 and r.json()["field"] == "activity"
    assert "rest, none" in r.json()["error"]
    r = c.post(game.url("/time"), headers=game.gm,
               json={"amount": 2, "unit": "days", "characters": ["kit", "nobody"]})
    assert r.status_code == 422 and r.json()["field"] == "characters.1"
    r = c.post(game.url("/time"), headers=game.gm,
               json={"amount": 36, "unit": "hours", "characters": ["kit"]})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["time"] == 36 * 3600
    assert body["record"]["text"] == "36 hours pass (rest) for Kit."
    assert body["record"]["events"][0]["data"]["happened"]["kit"] == [
        "Kit rests and regains 8 Health (now 73)."]  # 30 damage, 15 through the armor
    kit = c.get(game.url("/characters/kit"), headers=game.gm).json()["character"]
    assert kit["lasting"]["health_now"] == 73
    shown = c.get(game.url(), headers=game.player).json()["campaign"]
    assert shown["time"] == 36 * 3600
    assert c.post(game.url("/undo"), headers=game.gm).status_code == 201
    kit = c.get(game.url("/characters/kit"), headers=game.gm).json()["character"]
    assert kit["lasting"]["health_now"] == 65
    assert c.get(game.url(), headers=game.gm).json()["campaign"]["time"] == 0


def test_the_campaign_settings_are_the_game_masters(game: Campaign) -> None:
    c = game.client
    assert c.get(game.url(), headers=game.player).json()["campaign"]["settings"] == {
        "dice_dialect": "arbiter", "players_roll": False}
    r = c.put(game.url("/settings"), headers=game.player, json={"dice_dialect": "roll20"})
    assert r.status_code == 403
    r = c.put(game.url("/settings"), headers=game.gm, json={"dice_dialect": "gurps"})
    assert r.status_code == 422 and r.json()["field"] == "dice_dialect"
    r = c.put(game.url("/settings"), headers=game.gm, json={"dice_dialect": "roll20"})
    assert r.status_code == 200, r.text
    assert r.json()["settings"] == {"dice_dialect": "roll20", "players_roll": False}
    assert r.json()["record"]["text"] == \
        "The campaign's settings change: dice dialect roll20."
    for who in (game.gm, game.player):
        shown = c.get(game.url(), headers=who).json()["campaign"]
        assert shown["settings"] == {"dice_dialect": "roll20", "players_roll": False}


def test_a_roster_character_joins_an_encounter_under_way(game: Campaign) -> None:
    c = game.client
    first = new_encounter(game, ["kit"])
    c.post(f"/api/encounters/{first}/commands", headers=game.gm,
           json={"command": {"do": "damage", "target": "kit", "amount": 30}})
    c.post(f"/api/encounters/{first}/write-back", headers=game.gm)
    eid = new_encounter(game, [])
    url = f"/api/encounters/{eid}/actors"
    assert c.post(url, headers=game.player, json={"character": "kit"}).status_code == 403
    r = c.post(url, headers=game.gm, json={"character": "nobody"})
    assert r.status_code == 422 and r.json()["field"] == "character"
    r = c.post(url, headers=game.gm, json={"character": "kit", "health": 5})
    assert r.status_code == 422 and r.json()["field"] == "health"
    r = c.post(url, headers=game.gm, json={"template": "bandit"})
    assert r.status_code == 422 and r.json()["field"] == "id"
    r = c.post(url, headers=game.gm, json={"character": "kit"})
    assert r.status_code == 201, r.text
    kit = r.json()["state"]["entities"]["kit"]
    assert (kit["name"], kit["health"], kit["side"]) == ("Kit", 65, "crew")
    r = c.post(url, headers=game.gm, json={"character": "kit"})
    assert r.status_code == 422  # already there
