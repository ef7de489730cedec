"""A creature hidden from the players hits one of their characters: the player's log shows
the hit on their character (the damage taken, a condition given) without the creature that
caused it (``Ruleset.public_event``, ``unseen_doer_events``). Before, the whole record was
left out and only the lower numbers showed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arbiter.server import create_app

from .test_differential import Table


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("hidden-attacker") / "a.db"
    with TestClient(create_app(db=path, rate_per_minute=100_000)) as c:
        yield c


def hidden_hit(client: TestClient, ruleset: str, command: dict[str, object],
               dice: list[int] | None, *before: dict[str, object]) -> tuple[Table, str]:
    table = Table(client, ruleset, True, placed=True)
    table.gm_command({"do": "reveal_on_turn", "enabled": False})
    for step in before:
        table.gm_command(step)
    table.gm_command({"do": "start", "initiative": {table.hidden: 99}})
    body: dict[str, object] = {"command": {**command, "actor": table.hidden}}
    if dice is not None:
        body["dice"] = dice
    r = client.post(f"/api/encounters/{table.eid}/commands", headers=table.gm, json=body)
    assert r.status_code == 201, r.text
    return table, r.json()["record"]["text"]


def test_a_hidden_dogs_bite_reads_as_the_wound_without_the_dog(client: TestClient) -> None:
    table, gm_text = hidden_hit(client, "polemos", {"do": "attack", "target": "vera"},
                                [6, 6, 1, 1, 4, 4], {"do": "place", "target": "dog",
                                                     "at": [3, 3]})
    assert gm_text.startswith("Guard dog uses the claws (slashing) on Vera (soldier)")
    assert "critical damage points for Guard dog" in gm_text
    last = table.log()[-1]
    assert [e["type"] for e in last["events"]] == ["damaged"]
    assert last["text"].startswith("Vera (soldier) takes 3 slashing damage on the ")
    assert "dog" not in str(last).lower() and "critical" not in last["text"]
    assert last["command"] == {} and last["dice"] == []


def test_a_condition_from_a_hidden_creature_reads_without_its_source(
        client: TestClient) -> None:
    table = Table(client, "zones", True)
    table.gm_command({"do": "condition", "target": table.hero, "name": "blinded",
                      "source": table.hidden})
    last = table.log()[-1]
    assert [e["type"] for e in last["events"]] == ["condition_added"]
    assert "source" not in last["events"][0]["data"]["condition"]
    assert table.hidden not in str(last)
