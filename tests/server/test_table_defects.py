"""At the table, part 3 (issue 33): the server's and the rulesets' side of the defects a game
master met: the busy port, numbered names, zones' damage past armor, a realms move that
would end in another's space, Polemos' time in words and its odds said once."""

from __future__ import annotations

import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from arbiter.cli import app as cli
from arbiter.core import Command, load_ruleset
from arbiter.core.catalogue import events_of
from arbiter.rulesets.polemos.lasting import time_words

from .conftest import set_game


# -- arbiter serve --------------------------------------------------------------------------
def test_a_busy_port_is_said_before_any_database_is_made(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        db = tmp_path / "arbiter.db"
        result = CliRunner().invoke(cli, ["serve", "--port", str(port), "--db", str(db)])
    assert result.exit_code == 2, result.output
    assert f"--port {port}: 127.0.0.1:{port} is already in use" in result.output
    assert f"make run PORT={port + 1}" in result.output
    assert not db.exists(), "a database was made for a server that could not start"


def test_serve_says_how_to_stop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    from arbiter.server import run_server

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    run_server(host="127.0.0.1", port=8999, db=tmp_path / "a.db")
    err = capsys.readouterr().err
    assert "game master console: http://127.0.0.1:8999/#campaigns=" in err
    assert err.rstrip().endswith("press Ctrl+C to stop")
    assert "arbiter: the rules engine runs its pure build (docs/performance.md)" in err


# -- names: two creatures of one entry are told apart ----------------------------------------
def names_in(client: TestClient, game: Any) -> dict[str, str]:
    state = client.get(f"/api/encounters/{game.encounter}", headers=game.gm).json()
    return {k: e["name"] for k, e in state["entities"].items()}


def test_two_creatures_of_one_bestiary_entry_are_numbered(client: TestClient) -> None:
    r = client.post("/api/campaigns", json={"name": "Salt", "ruleset": "zones"})
    cid, gm = r.json()["campaign"]["id"], {"Authorization": f"Bearer {r.json()['gm_token']}"}
    r = client.post(f"/api/campaigns/{cid}/encounters", json={"name": "Marsh"}, headers=gm)
    game = SimpleNamespace(encounter=r.json()["encounter"]["id"], gm=gm)
    r = client.post(f"/api/campaigns/{cid}/bestiary",
                    json={"id": "raider", "name": "Salt raider", "template": "bandit"},
                    headers=gm)
    assert r.status_code == 201, r.text
    for ident in ("raider1", "raider2", "raider3"):
        r = client.post(f"/api/encounters/{game.encounter}/actors",
                        json={"id": ident, "template": "raider"}, headers=gm)
        assert r.status_code == 201, r.text
    # a name the game master types is kept, even a taken one
    r = client.post(f"/api/encounters/{game.encounter}/actors",
                    json={"id": "twin", "template": "raider", "name": "Salt raider"},
                    headers=gm)
    assert r.status_code == 201, r.text
    # a template the ruleset ships: the same
    for ident in ("b1", "b2"):
        r = client.post(f"/api/encounters/{game.encounter}/actors",
                        json={"id": ident, "template": "bandit"}, headers=gm)
        assert r.status_code == 201, r.text
    assert names_in(client, game) == {
        "raider1": "Salt raider", "raider2": "Salt raider 2", "raider3": "Salt raider 3",
        "twin": "Salt raider", "b1": "Bandit", "b2": "Bandit 2"}
    log = client.get(f"/api/encounters/{game.encounter}/log", headers=gm).json()
    records = log["records"] if isinstance(log, dict) else log
    texts = [r.get("text", "") for r in records]
    assert any("Salt raider 2 joins" in t for t in texts), texts
    # a new encounter from the roster: three of one entry
    r = client.post(f"/api/campaigns/{cid}/encounters",
                    json={"name": "Again", "creatures": [{"template": "raider"}] * 3},
                    headers=gm)
    assert r.status_code == 201, r.text
    eid = r.json()["encounter"]["id"]
    state = client.get(f"/api/encounters/{eid}", headers=gm).json()
    assert sorted(e["name"] for e in state["entities"].values()) == [
        "Salt raider", "Salt raider 2", "Salt raider 3"]


# -- zones: the game master's damage past armor ----------------------------------------------
def test_zones_damage_takes_armor_false_from_the_game_master_only(client: TestClient) -> None:
    game = set_game(client, "zones", [
        {"id": "rook", "template": "soldier", "side": "heroes"},
        {"id": "ogre", "template": "ogre", "side": "raiders"}], ["rook"])
    before = client.get(f"/api/encounters/{game.encounter}", headers=game.gm).json()
    ogre = before["entities"]["ogre"]
    assert ogre["armor"] > 0
    r = client.post(f"/api/encounters/{game.encounter}/commands",
                    json={"command": {"do": "damage", "target": "ogre", "amount": 5}},
                    headers=game.gm)
    assert r.status_code == 201, r.text
    assert r.json()["state"]["entities"]["ogre"]["health"] == ogre["health"] - max(
        5 - ogre["armor"], 0)
    r = client.post(f"/api/encounters/{game.encounter}/commands",
                    json={"command": {"do": "damage", "target": "ogre", "amount": 5,
                                      "armor": False}}, headers=game.gm)
    assert r.status_code == 201, r.text
    after = r.json()
    assert after["state"]["entities"]["ogre"]["health"] == ogre["health"] - max(
        5 - ogre["armor"], 0) - 5
    assert "takes 5 damage" in after["record"]["text"]
    spec = load_ruleset("zones").catalogue["damage"]
    assert spec.args["armor"].who == "gm" and spec.args["armor"].default is True


# -- realms: a move that ends in another's space ---------------------------------------------
def test_a_realms_move_preview_warns_of_an_occupied_square(client: TestClient) -> None:
    game = set_game(client, "realms", [
        {"id": "nia", "template": "knight", "side": "heroes", "position": [0, 0]},
        {"id": "hound", "template": "hound", "side": "heroes", "position": [1, 0]},
        {"id": "bandit", "template": "bandit", "side": "brigands", "position": [6, 0]}],
        ["nia"])
    r = client.post(f"/api/encounters/{game.encounter}/commands",
                    json={"command": {"do": "start", "initiative": {"nia": 30}}},
                    headers=game.gm)
    assert r.status_code == 201, r.text

    def odds(path: list[list[int]]) -> dict[str, Any]:
        r = client.post(f"/api/encounters/{game.encounter}/odds",
                        json={"command": {"do": "move", "actor": "nia", "path": path}},
                        headers=game.gm)
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()["odds"]
        return out

    assert odds([[1, 0]])["ends_in_space_of"] == ["hound"]
    assert odds([[0, 1]])["ends_in_space_of"] == []
    # the same rule that refuses the end of the turn there (R-SIZ-5)
    client.post(f"/api/encounters/{game.encounter}/commands",
                json={"command": {"do": "move", "actor": "nia", "path": [[1, 0]]}},
                headers=game.gm)
    r = client.post(f"/api/encounters/{game.encounter}/commands",
                    json={"command": {"do": "next"}}, headers=game.gm)
    assert r.status_code == 409 or r.status_code == 422, r.text
    assert "hound's space" in r.text


# -- Polemos: time in words, the odds said once ----------------------------------------------
def test_polemos_time_reads_in_words() -> None:
    assert [time_words(r) for r in (86400, 28800, 1200, 20, 5, 29000, 201600)] == [
        "3 days", "a day", "an hour", "a minute", "5 rounds", "1 day 10 minutes", "a week"]


def test_polemos_rest_says_its_time_in_words() -> None:
    from arbiter.core import EncounterState
    from arbiter.dice import SeededDice

    rules = load_ruleset("polemos")
    state = EncounterState(ruleset="polemos")
    for event in rules.decide(state, Command("add", args={"id": "vera",
                                                         "template": "soldier"}),
                              SeededDice(1)):
        rules.evolve(state, event)
    events = rules.decide(state, Command("rest", args={"target": "vera", "activity": "sleep",
                                                      "amount": 3, "unit": "days"}),
                          SeededDice(1))
    rested = next(e for e in events if e.type == "rested")
    assert rested.data["time"] == "3 days"
    spec = events_of(type(rules))["rested"]
    assert spec.text(rested.data, {"vera": "Vera"}, gm=True).startswith("Vera: sleep for 3 days")
