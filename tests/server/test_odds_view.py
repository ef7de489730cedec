"""Odds through the API: a player is not told an enemy's Health by the chance of taking it
down, which the game master sees (``views.SECRET_ODDS_KEYS``)."""

from __future__ import annotations

from starlette.testclient import TestClient


def test_a_player_sees_the_odds_of_a_hit_but_not_what_they_tell_of_an_enemys_health(
        client: TestClient) -> None:
    r = client.post("/api/campaigns", json={"name": "Ford", "ruleset": "realms"})
    cid, gm_token = r.json()["campaign"]["id"], r.json()["gm_token"]
    gm = {"Authorization": f"Bearer {gm_token}"}
    eid = client.post(f"/api/campaigns/{cid}/encounters", json={"name": "Ford"},
                      headers=gm).json()["encounter"]["id"]
    for actor in ({"id": "nia", "template": "knight", "side": "heroes"},
                  {"id": "sel", "template": "bandit", "side": "heroes"},
                  {"id": "cap", "template": "bandit", "side": "bandits", "health": 3}):
        assert client.post(f"/api/encounters/{eid}/actors", json=actor,
                           headers=gm).status_code == 201
    r = client.post(f"/api/campaigns/{cid}/players",
                    json={"name": "Ann", "characters": ["nia"]}, headers=gm)
    player = {"Authorization": f"Bearer {r.json()['token']}"}

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
