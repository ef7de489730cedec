"""Dice the table throws (issue 33): the dice plan a command's odds carry, dice typed in
part with the rest rolled by the server, and players typing their own dice when the
campaign lets them."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from arbiter.core import Command, load_ruleset
from arbiter.core.dice_plan import SAMPLES, safe_plan
from arbiter.core.encounter import Encounter
from arbiter.dice import SeededDice

GANG = [{"id": "vera", "template": "soldier", "side": "heroes"},
        {"id": "ganger", "template": "ganger", "side": "gang"}]


class Table:
    def __init__(self, client: TestClient, ruleset: str, actors: list[dict[str, Any]],
                 characters: list[str]) -> None:
        self.client = client
        r = client.post("/api/campaigns", json={"name": "Dice", "ruleset": ruleset})
        assert r.status_code == 201, r.text
        self.cid = r.json()["campaign"]["id"]
        self.gm = {"Authorization": f"Bearer {r.json()['gm_token']}"}
        self.eid = client.post(f"/api/campaigns/{self.cid}/encounters", json={"name": "E"},
                               headers=self.gm).json()["encounter"]["id"]
        for actor in actors:
            r = client.post(f"/api/encounters/{self.eid}/actors", json=actor, headers=self.gm)
            assert r.status_code == 201, r.text
        r = client.post(f"/api/campaigns/{self.cid}/players", headers=self.gm,
                        json={"name": "Ann", "characters": characters})
        self.player = {"Authorization": f"Bearer {r.json()['token']}"}

    def post(self, who: dict[str, str], body: dict[str, Any]) -> Any:
        return self.client.post(f"/api/encounters/{self.eid}/commands", json=body, headers=who)

    def odds(self, who: dict[str, str], command: dict[str, Any]) -> Any:
        r = self.client.post(f"/api/encounters/{self.eid}/odds", json={"command": command},
                             headers=who)
        assert r.status_code == 200, r.text
        return r.json()


@pytest.fixture
def polemos(client: TestClient) -> Table:
    table = Table(client, "polemos", GANG, ["vera"])
    r = table.post(table.gm, {"command": {"do": "start", "initiative": {"vera": 9, "ganger": 1}}})
    assert r.status_code == 201, r.text
    return table


ATTACK = {"do": "attack", "actor": "vera", "target": "ganger"}


def test_the_odds_carry_the_dice_plan_in_order(polemos: Table) -> None:
    for who in (polemos.gm, polemos.player):
        plan = polemos.odds(who, ATTACK)["dice_plan"]
        assert plan["text"] == ("2d6 attack · 2d6 defense · d12 location on a hit · "
                                "d6 damage on a hit")
        assert plan["always"] == 4 and plan["most"] == 6 and not plan["cut"]
        assert plan["dice"][0] == {"faces": 6, "count": 2, "for": "attack", "when": "always"}


def test_a_command_of_no_dice_plans_none_in_one_try() -> None:
    rules = load_ruleset("realms")
    enc = Encounter.create(rules)
    enc.execute({"do": "add", "id": "nia", "template": "knight", "side": "heroes"},
                SeededDice(1))
    plan = safe_plan(rules, enc.state, Command.from_json(
        {"do": "condition", "target": "nia", "name": "prone"}))
    assert plan is not None and plan["dice"] == [] and plan["text"] == "no dice"
    assert SAMPLES == 24


def test_realms_damage_dice_of_a_critical_are_named(client: TestClient) -> None:
    table = Table(client, "realms", [{"id": "nia", "template": "knight", "side": "heroes"},
                                     {"id": "bandit", "template": "bandit", "side": "raiders"}],
                  ["nia"])
    table.post(table.gm, {"command": {"do": "start", "initiative": {"nia": 99, "bandit": 1}}})
    plan = table.odds(table.gm, {"do": "attack", "actor": "nia", "target": "bandit"})
    assert plan["dice_plan"]["text"] == "d20 attack · d8 damage on a hit · d8 damage on a critical"


def test_typed_dice_first_and_the_server_rolls_the_rest(polemos: Table) -> None:
    # 6+6 attack against 1+1 defense: a hit; location and damage are the server's
    r = polemos.post(polemos.gm, {"command": ATTACK, "dice": [6, 6, 1, 1], "dice_rest": "server"})
    assert r.status_code == 201, r.text
    record = r.json()["record"]
    assert [v for _, v in record["dice"][:4]] == [6, 6, 1, 1]
    assert [f for f, _ in record["dice"]] == [6, 6, 6, 6, 12, 6]
    assert record["typed"] == 4
    log = polemos.client.get(f"/api/encounters/{polemos.eid}/log", headers=polemos.gm).json()
    assert log["records"][-1]["typed"] == 4


def test_without_dice_rest_every_die_must_be_typed(polemos: Table) -> None:
    r = polemos.post(polemos.gm, {"command": ATTACK, "dice": [6, 6, 1, 1]})
    assert r.status_code == 422
    assert "forced dice ran out: roll number 5 (a d12)" in r.json()["error"]
    r = polemos.post(polemos.gm, {"command": ATTACK, "dice": [6, 6, 1, 1],
                                  "dice_rest": "table"})
    assert r.status_code == 422 and r.json()["field"] == "dice_rest"


def test_players_type_their_dice_only_when_the_campaign_lets_them(polemos: Table) -> None:
    body = {"command": ATTACK, "dice": [1, 1, 6, 6]}  # a miss: four dice
    r = polemos.post(polemos.player, body)
    assert r.status_code == 403
    assert r.json()["error"] == ("only the game master may type the dice here: the "
                                 "campaign's setting players_roll is off")
    r = polemos.client.put(f"/api/campaigns/{polemos.cid}/settings",
                           json={"players_roll": True}, headers=polemos.gm)
    assert r.status_code == 200, r.text
    assert r.json()["settings"] == {"dice_dialect": "arbiter", "players_roll": True}
    info = polemos.client.get(f"/api/campaigns/{polemos.cid}", headers=polemos.player).json()
    assert info["campaign"]["settings"]["players_roll"] is True
    r = polemos.post(polemos.player, body)
    assert r.status_code == 201, r.text
    assert r.json()["record"]["dice"] == [[6, 1], [6, 1], [6, 6], [6, 6]]
    r = polemos.client.put(f"/api/campaigns/{polemos.cid}/settings", json={},
                           headers=polemos.gm)
    assert r.status_code == 422 and "give a setting to change" in r.json()["error"]
