"""What the battle map may show a player (issue 20): the creatures they can see with where
they are (position, size, zone, engagement), the public part of ``extra`` (terrain, walls,
zones and lights) and the ruleset's ``map`` block, computed for those creatures only; a
hidden creature is absent everywhere, its id and its square, in the state, the WebSocket
messages and a move's preview."""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.testclient import TestClient

from .conftest import Game, set_game

IMP_SQUARE = [37, 41]
IMP_AT = re.compile(r"37,\s*41")


def realms_game(client: TestClient) -> Game:
    """nia (the player's), a bandit and an ogre in sight, a hidden imp at (37, 41)."""
    game = set_game(client, "realms", [
        {"id": "nia", "template": "knight", "side": "heroes", "position": [2, 2]},
        {"id": "bandit", "template": "bandit", "side": "brigands", "position": [1, 2]},
        {"id": "ogre", "template": "ogre", "side": "brigands", "position": [6, 6]},
        {"id": "imp", "name": "Fire imp", "template": "fire_imp", "side": "brigands",
         "position": IMP_SQUARE, "hidden": True}], ["nia"])
    for body in ({"do": "terrain", "squares": [[4, 4], [5, 4]]},
                 {"do": "start", "initiative": {"nia": 20, "bandit": 9, "ogre": 5, "imp": 3}}):
        r = game.client.post(f"/api/encounters/{game.encounter}/commands",
                             json={"command": body}, headers=game.gm)
        assert r.status_code == 201, r.text
    return game


def command(game: Game, body: dict[str, Any]) -> None:
    r = game.client.post(f"/api/encounters/{game.encounter}/commands",
                         json={"command": body}, headers=game.gm)
    assert r.status_code == 201, r.text


def player_state(game: Game) -> dict[str, Any]:
    r = game.client.get(f"/api/encounters/{game.encounter}", headers=game.player)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def assert_no_imp(text: str) -> None:
    assert "imp" not in re.findall(r"[a-z_]+", text), text
    assert "Fire imp" not in text
    assert not IMP_AT.search(text), text


def test_a_player_sees_where_visible_creatures_are_and_nothing_of_a_hidden_one(
        client: TestClient) -> None:
    game = realms_game(client)
    st = player_state(game)
    assert set(st["entities"]) == {"nia", "bandit", "ogre"}
    bandit, ogre = st["entities"]["bandit"], st["entities"]["ogre"]
    assert bandit["position"] == [1, 2] and bandit["size"] == "medium"
    assert ogre["position"] == [6, 6] and ogre["size"] != "medium"
    assert "health" not in bandit and "ap" not in bandit  # still only the public face
    # the terrain is public; what the rules keep for the GM is not
    assert st["extra"] == {"difficult": [[4, 4], [5, 4]]}
    # the map block: the ogre's footprint, reach of the creatures seen only
    assert len(st["map"]["footprints"]["ogre"]) > 1
    assert set(st["map"]["reach"]) == {"nia", "bandit", "ogre"}
    assert_no_imp(json.dumps(st))
    gm = client.get(f"/api/encounters/{game.encounter}", headers=game.gm).json()
    assert gm["entities"]["imp"]["position"] == IMP_SQUARE
    assert "imp" in gm["map"]["reach"]


def test_the_websocket_never_carries_the_hidden_creature_or_its_square(
        client: TestClient) -> None:
    game = realms_game(client)
    seen: list[str] = []
    with client.websocket_connect(f"/api/encounters/{game.encounter}/ws") as ws:
        ws.send_json({"token": game.player["Authorization"].split()[1]})
        seen.append(json.dumps(ws.receive_json()))
        moves: list[dict[str, Any]] = [
            {"do": "place", "target": "imp", "at": [38, 41]},
            {"do": "place", "target": "imp", "at": IMP_SQUARE},
            {"do": "place", "target": "bandit", "at": [3, 2]},
            {"do": "terrain", "squares": [[7, 7]]},
        ]
        for body in moves:
            command(game, body)
        command(game, {"do": "note", "text": "the last one"})
        # the imp's two placements send the player nothing: the bandit's move, the terrain
        # and the note arrive
        for _ in range(3):
            seen.append(json.dumps(ws.receive_json()))
        assert json.loads(seen[-1])["record"]["text"] == "Note: the last one"
    assert any('"position": [3, 2]' in text for text in seen)  # the bandit's move arrives
    for text in seen:
        assert_no_imp(text)


def test_a_move_preview_names_no_hidden_flanker(client: TestClient) -> None:
    game = realms_game(client)
    command(game, {"do": "place", "target": "imp", "at": [3, 2]})  # flanks nia, unseen
    move = {"command": {"do": "move", "actor": "nia", "path": [[2, 3], [2, 4]]}}
    gm = client.post(f"/api/encounters/{game.encounter}/odds", json=move, headers=game.gm)
    assert sorted(gm.json()["odds"]["flank_reaction"]) == ["bandit", "imp"]
    r = client.post(f"/api/encounters/{game.encounter}/odds", json=move, headers=game.player)
    assert r.status_code == 200, r.text
    odds = r.json()["odds"]
    # the preview is the rules' answer with nobody where the imp is: the bandit alone does
    # not flank nia, so nobody gets the flanking reaction (the GM adjudicates the imp's)
    assert odds["flank_reaction"] == [] and odds["leaves_reach"] == ["bandit"]
    assert odds["ap_left"] == 3 and odds["spaces"] == 2
    assert "imp" not in r.text
    # and nia's state, after the move, still shows no imp
    r = client.post(f"/api/encounters/{game.encounter}/commands", json=move,
                    headers=game.player)
    assert r.status_code == 201, r.text
    assert_no_imp(r.text)
    assert_no_imp(json.dumps(player_state(game)))


def test_zones_a_player_sees_zones_lights_and_bands_among_the_creatures_seen(
        client: TestClient) -> None:
    game = set_game(client, "zones", [
        {"id": "rook", "side": "crew", "group": "crew", "zone": "yard"},
        {"id": "bob", "side": "gang", "group": "gang", "zone": "ridge"},
        {"id": "wolf", "side": "gang", "group": "wolf", "zone": "yard", "engagement": "crew",
         "hidden": True}], ["rook"])
    command(game, {"do": "zone", "id": "yard", "adjacent": ["ridge"], "indoor": True})
    st = player_state(game)
    assert set(st["entities"]) == {"rook", "bob"}
    assert (st["entities"]["bob"]["zone"], st["entities"]["bob"]["engagement"]) == \
        ("ridge", "gang")
    assert st["extra"]["zones"]["yard"] == {"adjacent": ["ridge"], "indoor": True}
    assert st["map"]["bands"] == {"rook": {"bob": "medium"}, "bob": {"rook": "medium"}}
    assert "wolf" not in json.dumps(st)


def test_polemos_walls_are_public_and_lines_of_sight_only_among_the_seen(
        client: TestClient) -> None:
    game = set_game(client, "polemos", [
        {"id": "vera", "template": "soldier", "position": [0, 0]},
        {"id": "ganger", "template": "ganger", "position": [6, 0]},
        {"id": "spy", "template": "ganger", "position": [6, 2], "hidden": True}], ["vera"])
    command(game, {"do": "terrain", "squares": [[3, 0], [3, 1]], "what": "wall"})
    st = player_state(game)
    assert st["extra"] == {"terrain": {"3,0": "wall", "3,1": "wall"}}
    assert st["entities"]["ganger"]["position"] == [6, 0]
    assert st["map"]["sight"] == {"vera": {"ganger": [3, 0]}, "ganger": {"vera": [3, 0]}}
    assert "spy" not in json.dumps(st)


def test_a_players_move_previews_are_the_same_with_or_without_a_hidden_creature(
        client: TestClient) -> None:
    """The issue's finding: a hidden creature beside a player's path changed the preview
    (``flanked_at_end``, difficult steps, spaces). Previews are now the rules' answer on the
    player's view of the state, in which the hidden creature does not exist: the same
    answers, byte for byte, as after the GM removes it."""
    game = realms_game(client)
    moves = [[[2, 3], [2, 4]], [[3, 3], [4, 4]], [[3, 2], [4, 3], [5, 4]], [[1, 3]]]
    spots = [[3, 3], [2, 4], [4, 4], [3, 1]]

    def previews() -> list[str]:
        out = []
        for path in moves:
            r = client.post(f"/api/encounters/{game.encounter}/odds", headers=game.player,
                            json={"command": {"do": "move", "actor": "nia", "path": path}})
            out.append(f"{r.status_code} {r.text}")
        options = client.get(f"/api/encounters/{game.encounter}/options?actor=nia",
                             headers=game.player).json()
        out.append(json.dumps({k: v for k, v in options.items() if k != "version"}))
        return out

    with_imp = []
    for spot in spots:
        command(game, {"do": "place", "target": "imp", "at": spot})
        with_imp.append(previews())
    command(game, {"do": "remove", "target": "imp"})
    without = previews()
    for seen in with_imp:
        assert seen == without
