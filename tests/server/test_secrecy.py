"""A player learns only what the player's view shows (issue: secrecy): the exact inputs a
tester used, each of which told a player something of a creature the GM hid."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from arbiter.web.demo import demo_rulesets, table_of

from .conftest import HIDDEN_ID, HIDDEN_NAME, Game, Table, set_game


def demo_game(client: TestClient, ruleset: str) -> tuple[Game, str, str, str]:
    """A ruleset's demo table: the game, the player's character, the hidden creature's id
    and name."""
    _title, actors = table_of(ruleset)
    game = set_game(client, ruleset, [{"id": i, **spec} for i, spec in actors],
                    [actors[0][0]])
    hidden = next((i, spec["name"]) for i, spec in actors if spec.get("hidden"))
    return game, actors[0][0], hidden[0], hidden[1]


def player_log(client: TestClient, game: Game) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = client.get(f"/api/encounters/{game.encounter}/log",
                                               headers=game.player).json()["records"]
    return records


# -- 1. the player's own free text -----------------------------------------------------------
OWN_TEXT = [
    ("realms", lambda hero, word: {"do": "skill", "actor": hero, "skill": word}),
    ("polemos", lambda hero, word: {"do": "restrictions", "actor": hero, "location": word}),
    ("zones", lambda hero, word: {"do": "prioritize", "actor": hero, "groups": [word]}),
]


@pytest.mark.parametrize(("ruleset", "build"), OWN_TEXT, ids=[r for r, _ in OWN_TEXT])
@pytest.mark.parametrize("which", ["name", "id"])
def test_the_players_own_text_comes_back_as_sent_whatever_the_hidden_are_called(
        client: TestClient, ruleset: str, build: Any, which: str) -> None:
    """The tester's guesses: the player's free text equal to the hidden creature's name
    (or id) came back blanked (the record replaced by "something happened out of sight"),
    while any other word came back as sent. Now both answer alike."""
    answers = []
    for guess in (True, False):
        game, hero, hidden, name = demo_game(client, ruleset)
        secret = name if which == "name" else hidden
        word = secret if guess else "Xq" + secret[2:]  # a word the same length, no creature's
        r = client.post(f"/api/encounters/{game.encounter}/commands", headers=game.player,
                        json={"command": build(hero, word)})
        assert r.status_code == 201, r.text
        record = r.json()["record"]
        assert record is not None and "redacted" not in record
        assert record["command"] == build(hero, word)
        assert word in record["text"]
        assert player_log(client, game)[-1] == record
        # the same answer but for the word and the dice (the two tables roll apart)
        answers.append((json.dumps(record["command"]).replace(word, "WORD"),
                        [(e["type"], sorted(e["data"])) for e in record["events"]],
                        sorted(record)))
    assert answers[0] == answers[1]


def test_a_flank_the_player_prioritised_shows_in_their_state_by_the_name_they_gave(
        client: TestClient) -> None:
    game, hero, _hidden, name = demo_game(client, "zones")
    r = client.post(f"/api/encounters/{game.encounter}/commands", headers=game.player,
                    json={"command": {"do": "prioritize", "actor": hero, "groups": [name]}})
    assert r.status_code == 201, r.text
    assert r.json()["state"]["entities"][hero]["flanking"]["prioritized"] == [name]


# -- 2. the log does not count the hidden -----------------------------------------------------
@pytest.mark.parametrize("ruleset", demo_rulesets())
def test_the_hidden_creatures_arrival_leaves_no_trace_in_the_players_log(
        client: TestClient, ruleset: str) -> None:
    game, _hero, hidden, name = demo_game(client, ruleset)
    log = player_log(client, game)
    # the encounter's creation and the four creatures the player sees join: no fifth line
    assert len(log) == 5 and all(r["events"] for r in log), log
    assert "redacted" not in json.dumps(log)
    # the GM places it and gives it a condition: nothing for the player
    for command in ({"do": "note", "text": f"{name} lurks"},
                    {"do": "condition", "target": hidden, "name": "lurking", "custom": True}):
        client.post(f"/api/encounters/{game.encounter}/commands", headers=game.gm,
                    json={"command": command})
    assert player_log(client, game) == log


def test_turning_auto_reveal_off_is_not_announced_nor_sent(table: Table) -> None:
    """It was "The game master changes a setting." in the player's log, and a WebSocket
    message: a setting only an encounter with a hidden creature needs."""
    before = table.client.get(f"/api/encounters/{table.encounter}/log",
                              headers=table.player).json()["records"]
    with table.client.websocket_connect(f"/api/encounters/{table.encounter}/ws") as ws:
        ws.send_json({"token": table.player_token})
        assert ws.receive_json()["type"] == "hello"
        assert table.command({"do": "reveal_on_turn", "enabled": False}).status_code == 201
        assert table.command({"do": "note", "text": "next"}).status_code == 201
        message = ws.receive_json()  # the note's, the first the player is sent
        assert message["record"]["text"] == "Note: next"
    after = table.client.get(f"/api/encounters/{table.encounter}/log",
                             headers=table.player).json()["records"]
    assert after[:-1] == before and after[-1]["text"] == "Note: next"
    assert "setting" not in json.dumps(after)


def test_a_hidden_creature_opening_round_1_shows_as_the_first_one_the_player_sees(
        table: Table) -> None:
    """The header read "Round 0 · —" while the lurker opened round 1: with no lurker it would
    read round 1, nia's turn."""
    table.command({"do": "reveal_on_turn", "enabled": False})
    r = table.command({"do": "start", "initiative": {HIDDEN_ID: 30, "nia": 20, "bram": 15,
                                                     "wolf": 10}})
    assert r.status_code == 201, r.text
    assert r.json()["state"]["current"] == HIDDEN_ID
    shown = table.client.get(f"/api/encounters/{table.encounter}",
                             headers=table.player).json()
    assert (shown["round"], shown["current"]) == (1, "nia")
    log = table.client.get(f"/api/encounters/{table.encounter}/log",
                           headers=table.player).json()["records"]
    assert HIDDEN_ID not in json.dumps(log) and HIDDEN_NAME not in json.dumps(log)
    # when the GM ends the lurker's turn, nia's starts: the player sees that one record
    table.command({"do": "next"})
    log = table.client.get(f"/api/encounters/{table.encounter}/log",
                           headers=table.player).json()["records"]
    assert log[-1]["text"] == "Round 1: nia's turn."


# -- 3. an initiative change reads with its number -------------------------------------------
def test_an_initiative_change_reads_with_its_number_for_the_player(client: TestClient) -> None:
    game, _hero, _hidden, _name = demo_game(client, "polemos")
    for command in ({"do": "start"}, {"do": "initiative", "target": "bruiser", "value": 12}):
        r = client.post(f"/api/encounters/{game.encounter}/commands", headers=game.gm,
                        json={"command": command})
        assert r.status_code == 201, r.text
    assert player_log(client, game)[-1]["text"] == "Bruiser's initiative changes to 12."
    state = client.get(f"/api/encounters/{game.encounter}", headers=game.player).json()
    assert state["initiative"]["bruiser"] == 12  # as the tracker shows it anyway


# -- 4. names ------------------------------------------------------------------------------------
BAD_NAMES = {
    "NUL": "Ogre\x00",
    "escape code": "\x1b[31mOgre\x1b[0m",
    "60,000 characters": "O" * 60_000,
    "a faked sentence": "Ogre.\nNia falls unconscious.",
    "a carriage return": "Ogre\rNia",
    "a right-to-left override": "Ogre\u202e",
}


@pytest.mark.parametrize("name", list(BAD_NAMES.values()), ids=list(BAD_NAMES))
def test_a_name_is_printable_one_line_and_short(table: Table, name: str) -> None:
    c, gm = table.client, table.gm
    answers = [
        (c.post(f"/api/encounters/{table.encounter}/actors", headers=gm,  # as its add
                json={"id": "ogre", "name": name, "template": "wolf"}), "command.name"),
        (table.command({"do": "add", "id": "ogre", "name": name, "template": "wolf"}),
         "command.name"),
        (c.post(f"/api/campaigns/{table.campaign}/characters", headers=gm,
                json={"id": "ogre", "name": name, "template": "wolf"}), "name"),
        (c.post(f"/api/campaigns/{table.campaign}/bestiary", headers=gm,
                json={"id": "ogre2", "name": name, "template": "wolf"}), "name"),
        (c.post(f"/api/campaigns/{table.campaign}/players", headers=gm,
                json={"name": name, "characters": []}), "name"),
        (c.post(f"/api/campaigns/{table.campaign}/encounters", headers=gm,
                json={"name": name}), "name"),
        (c.post("/api/campaigns", json={"name": name, "ruleset": "demo"}), "name"),
    ]
    for r, field in answers:
        assert r.status_code == 422, (r.request.url, r.text[:300])
        assert r.json()["field"] == field, (r.request.url, r.text[:300])
        assert "\x00" not in r.text and len(r.text) < 2000
    state = c.get(f"/api/encounters/{table.encounter}", headers=gm).json()
    assert "ogre" not in state["entities"]


def test_a_long_name_within_the_limit_in_any_script_is_taken(table: Table) -> None:
    name = "Ōgre the Grey — 大鬼 🐺 " + "x" * 70
    assert len(name) <= 100
    r = table.client.post(f"/api/encounters/{table.encounter}/actors", headers=table.gm,
                          json={"id": "ogre", "name": name, "template": "wolf"})
    assert r.status_code == 201, r.text
    log = table.client.get(f"/api/encounters/{table.encounter}/log",
                           headers=table.player).json()["records"]
    assert log[-1]["text"] == f"{name} joins the encounter."


def test_the_undo_of_something_the_player_never_saw_is_nothing_to_them(table: Table) -> None:
    """"The game master undoes #6" where #6 was not in the player's log counted it too."""
    r = table.command({"do": "condition", "target": HIDDEN_ID, "name": "stalking"})
    assert r.status_code == 201, r.text
    before = table.client.get(f"/api/encounters/{table.encounter}/log",
                              headers=table.player).json()["records"]
    with table.client.websocket_connect(f"/api/encounters/{table.encounter}/ws") as ws:
        ws.send_json({"token": table.player_token})
        assert ws.receive_json()["type"] == "hello"
        r = table.client.post(f"/api/encounters/{table.encounter}/undo", headers=table.gm,
                              json={})
        assert r.status_code == 201, r.text
        assert table.command({"do": "note", "text": "then"}).status_code == 201
        assert ws.receive_json()["record"]["text"] == "Note: then"
    after = table.client.get(f"/api/encounters/{table.encounter}/log",
                             headers=table.player).json()["records"]
    assert after[:-1] == before
    # the undo of what they saw is theirs to see
    r = table.client.post(f"/api/encounters/{table.encounter}/undo", headers=table.gm, json={})
    assert r.status_code == 201, r.text
    last = table.client.get(f"/api/encounters/{table.encounter}/log",
                            headers=table.player).json()["records"][-1]
    assert last["kind"] == "undo" and last["target"] == after[-1]["seq"]


def test_a_sentence_stays_one_line_whatever_its_text() -> None:
    from arbiter.core.catalogue import Arg, render
    sentence = render("{actor} says: {text}", {"actor": "nia", "text": "hi\nThe ogre dies.\u2028"},
                      {"nia": "Nia\r\nThe wolf flees."}, {"actor": Arg("creature")})
    assert sentence == "Nia The wolf flees. says: hi The ogre dies."
