"""Fixtures: the app on a temporary SQLite file, and a table set for play."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arbiter.server import create_app

HIDDEN_ID = "lurker"
HIDDEN_NAME = "Shadow Lurker"


@dataclass
class Table:
    client: TestClient
    campaign: str
    encounter: str
    gm_token: str
    player_token: str

    @property
    def gm(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.gm_token}"}

    @property
    def player(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.player_token}"}

    def command(self, command: dict[str, Any], headers: dict[str, str] | None = None,
                **extra: Any) -> Any:
        return self.client.post(f"/api/encounters/{self.encounter}/commands",
                                json={"command": command, **extra},
                                headers=headers or self.gm)


def set_table(client: TestClient) -> Table:
    """A demo campaign: nia (the player's), bram (her ally), a wolf, and a hidden lurker."""
    r = client.post("/api/campaigns", json={"name": "Ford", "ruleset": "demo"})
    assert r.status_code == 201, r.text
    cid, gm_token = r.json()["campaign"]["id"], r.json()["gm_token"]
    gm = {"Authorization": f"Bearer {gm_token}"}
    r = client.post(f"/api/campaigns/{cid}/encounters", json={"name": "Ambush"}, headers=gm)
    assert r.status_code == 201, r.text
    eid = r.json()["encounter"]["id"]
    actors: list[dict[str, Any]] = [
        {"id": "nia", "side": "heroes", "health": 24, "attack": 6, "defense": 15,
         "damage": "1d8+3"},
        {"id": "bram", "side": "heroes", "template": "guard"},
        {"id": "wolf", "side": "beasts", "template": "wolf"},
        {"id": HIDDEN_ID, "name": HIDDEN_NAME, "side": "beasts", "template": "wolf",
         "hidden": True, "defense": 19},
    ]
    for actor in actors:
        r = client.post(f"/api/encounters/{eid}/actors", json=actor, headers=gm)
        assert r.status_code == 201, r.text
    r = client.post(f"/api/campaigns/{cid}/players", json={"name": "Ann",
                                                          "characters": ["nia"]}, headers=gm)
    assert r.status_code == 201, r.text
    return Table(client, cid, eid, gm_token, r.json()["token"])


@dataclass
class Game:
    """One encounter of a campaign set up through the API, with a player's token."""

    client: TestClient
    encounter: str
    gm: dict[str, str]
    player: dict[str, str]


def set_game(client: TestClient, ruleset: str, actors: list[dict[str, Any]],
             characters: list[str]) -> Game:
    """A ``ruleset`` campaign with one encounter of ``actors`` (each added through the API)
    and a player whose characters are ``characters``."""
    r = client.post("/api/campaigns", json={"name": "Game", "ruleset": ruleset})
    assert r.status_code == 201, r.text
    cid, gm_token = r.json()["campaign"]["id"], r.json()["gm_token"]
    gm = {"Authorization": f"Bearer {gm_token}"}
    eid = client.post(f"/api/campaigns/{cid}/encounters", json={"name": "E"},
                      headers=gm).json()["encounter"]["id"]
    for actor in actors:
        r = client.post(f"/api/encounters/{eid}/actors", json=actor, headers=gm)
        assert r.status_code == 201, r.text
    r = client.post(f"/api/campaigns/{cid}/players",
                    json={"name": "Ann", "characters": characters}, headers=gm)
    assert r.status_code == 201, r.text
    return Game(client, eid, gm, {"Authorization": f"Bearer {r.json()['token']}"})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db=tmp_path / "arbiter.db", snapshot_every=4)) as c:
        yield c


@pytest.fixture
def table(client: TestClient) -> Table:
    return set_table(client)
