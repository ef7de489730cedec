"""What a player learns of an enemy's numbers through the API: not its Health through the
odds of taking it down (``views.SECRET_ODDS_KEYS``), not its stat block through a readout
such as realms' ``check`` (``Ruleset.private_events``); the game master sees both."""

from __future__ import annotations

import json

from starlette.testclient import TestClient

from .conftest import set_game


def test_a_player_sees_the_odds_of_a_hit_but_not_what_they_tell_of_an_enemys_health(
        client: TestClient) -> None:
    game = set_game(client, "realms", [
        {"id": "nia", "template": "knight", "side": "heroes"},
        {"id": "sel", "template": "bandit", "side": "heroes"},
        {"id": "cap", "template": "bandit", "side": "bandits", "health": 3}], ["nia"])
    eid, gm, player = game.encounter, game.gm, game.player

    def odds(headers: dict[str, str], target: str) -> dict[str, object]:
        r = client.post(f"/api/encounters/{eid}/odds", headers=headers, json={
            "command": {"do": "attack", "actor": "nia", "target": target}})
        assert r.status_code == 200, r.text
        result: dict[str, object] = r.json()["odds"]
        return result

    told = odds(gm, "cap")
    assert {"hit", "damage_mean", "down", "dead"} <= set(told)
    seen = odds(player, "cap")
    assert "down" not in seen and "dead" not in seen
    assert seen["hit"] == told["hit"] and seen["damage_mean"] == told["damage_mean"]
    assert {"down", "dead"} <= set(odds(player, "sel"))  # an ally's Health she knows


def test_a_player_checks_their_own_numbers_but_not_an_enemys(client: TestClient) -> None:
    game = set_game(client, "realms", [{"id": "nia", "template": "knight", "side": "heroes"},
                                       {"id": "cap", "template": "bandit", "side": "bandits"}],
                    ["nia"])
    eid, gm, player = game.encounter, game.gm, game.player

    def check(target: str) -> dict[str, object]:
        r = client.post(f"/api/encounters/{eid}/commands", headers=player, json={
            "command": {"do": "check", "actor": "nia", "target": target}})
        assert r.status_code == 201, r.text
        data: dict[str, object] = r.json()["record"]["events"][0]["data"]
        return data

    assert check("cap") == {"target": "cap"}
    assert check("nia")["evasion"] == 11
    log = client.get(f"/api/encounters/{eid}/log", headers=player).json()["records"]
    of_cap = [e for e in log if e["kind"] == "entry" and e["command"].get("target") == "cap"]
    assert len(of_cap) == 1 and "evasion" not in json.dumps(of_cap)
    gm_log = client.get(f"/api/encounters/{eid}/log", headers=gm).json()["records"]
    assert any(e.get("events", [{}])[0].get("data", {}).get("evasion") == 12 for e in gm_log
               if e["kind"] == "entry" and e["command"].get("target") == "cap")
