"""The reveal at a hidden creature's turn is the server's (the kernel's rule, on for the
encounters the server makes), not a console's: two open consoles give one reveal; the GM
turns it off and on with a logged, undoable command; the ruleset's ``visible_to`` hook
decides a player's view when it answers."""

from __future__ import annotations

from typing import Any

from arbiter.core import Command, Encounter, EncounterState, Entity, load_ruleset
from arbiter.dice import ForcedDice
from arbiter.rulesets.demo.rules import DemoRuleset
from arbiter.server.views import View
from arbiter.store import Principal

from .conftest import HIDDEN_ID, HIDDEN_NAME, Table

ORDER = {"nia": 20, "bram": 15, HIDDEN_ID: 12, "wolf": 10}


def log_events(table: Table) -> list[dict[str, Any]]:
    records = table.client.get(f"/api/encounters/{table.encounter}/log", headers=table.gm).json()[
        "records"
    ]
    return [e for r in records if r["kind"] == "entry" for e in r["events"]]


def state(table: Table, headers: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = table.client.get(
        f"/api/encounters/{table.encounter}", headers=headers
    ).json()
    return out


def test_two_open_consoles_see_one_reveal(table: Table) -> None:
    c, url = table.client, f"/api/encounters/{table.encounter}/ws"
    assert state(table, table.gm)["reveal_on_turn"] is True  # the server's encounters
    assert "reveal_on_turn" not in state(table, table.player)
    with (
        c.websocket_connect(url) as one,
        c.websocket_connect(url) as two,
        c.websocket_connect(url) as player,
    ):
        for ws, token in (
            (one, table.gm_token),
            (two, table.gm_token),
            (player, table.player_token),
        ):
            ws.send_json({"token": token})
            assert ws.receive_json()["type"] == "hello"
        assert table.command({"do": "start", "initiative": ORDER}).status_code == 201
        for _ in range(2):  # nia's turn ends, then bram's: the lurker's begins
            assert table.command({"do": "next"}).status_code == 201
        seen = {
            name: [ws.receive_json() for _ in range(3)]
            for name, ws in (("one", one), ("two", two), ("player", player))
        }
    revealing = [m["record"] for m in seen["one"][2:]]
    assert revealing == [m["record"] for m in seen["two"][2:]]  # the same record, once
    assert [e["type"] for e in revealing[0]["events"]] == ["turn_ended", "turn_started", "revealed"]
    # The player learns of it with the reveal, not before.
    before, after = seen["player"][1], seen["player"][2]
    assert HIDDEN_ID not in str(before) and HIDDEN_NAME not in str(before)
    assert after["state"]["entities"][HIDDEN_ID]["name"] == HIDDEN_NAME
    assert after["record"]["events"][-1] == {
        "type": "revealed",
        "v": 1,
        "data": {"target": HIDDEN_ID},
    }
    assert [e["type"] for e in log_events(table)].count("revealed") == 1
    assert state(table, table.gm)["entities"][HIDDEN_ID]["hidden"] is False


def test_the_gm_turns_it_off_with_a_logged_undoable_command(table: Table) -> None:
    r = table.command({"do": "reveal_on_turn", "enabled": False}, table.player)
    assert r.status_code == 403, r.text
    r = table.command({"do": "reveal_on_turn", "enabled": False})
    assert r.status_code == 201, r.text
    assert r.json()["state"]["reveal_on_turn"] is False
    assert r.json()["record"]["text"] == (
        "A creature the GM hid is no longer revealed when its turn starts."
    )
    r = table.command({"do": "reveal_on_turn", "enabled": False})
    assert r.status_code == 422
    assert "already stays hidden on its turn" in r.json()["error"]
    undo = table.client.post(f"/api/encounters/{table.encounter}/undo", headers=table.gm)
    assert undo.status_code == 201, undo.text
    assert state(table, table.gm)["reveal_on_turn"] is True
    redo = table.client.post(f"/api/encounters/{table.encounter}/redo", headers=table.gm)
    assert redo.status_code == 201, redo.text
    assert table.command({"do": "start", "initiative": ORDER}).status_code == 201
    for _ in range(4):  # a whole round: the lurker acts, still hidden
        assert table.command({"do": "next"}).status_code == 201
    assert "revealed" not in [e["type"] for e in log_events(table)]
    assert HIDDEN_ID not in state(table, table.player)["entities"]


class Seer(DemoRuleset):
    """The demo, with a ruleset's own sight rule: the wolf is never seen, the lurker always
    (even hidden by the GM), anyone else by the kernel's rule."""

    name = "demo"

    def visible_to(
        self, state: EncounterState, entity: Entity, characters: frozenset[str]
    ) -> bool | None:
        return {"wolf": False, HIDDEN_ID: True}.get(entity.id)


def test_the_visible_to_hook_answers_for_the_creatures_it_names() -> None:
    ruleset = Seer()
    enc = Encounter.create(ruleset)
    for spec in (
        {"id": "nia", "side": "heroes", "health": 9},
        {"id": "wolf", "side": "beasts", "health": 5},
        {"id": HIDDEN_ID, "side": "beasts", "health": 5, "hidden": True},
        {"id": "ghost", "side": "beasts", "health": 5, "hidden": True},
    ):
        enc.execute(Command("add", args=spec), ForcedDice([]))
    player = Principal("c1", "player", "Ann", frozenset({"nia"}))
    assert View(enc.state, player, ruleset).concealed == {"wolf", "ghost"}
    assert View(enc.state, player, load_ruleset("demo")).concealed == {HIDDEN_ID, "ghost"}
