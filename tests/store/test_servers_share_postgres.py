"""Two server processes on one PostgreSQL: commands through either are seen by both, and a
WebSocket subscriber on one hears of commands sent to the other."""

from __future__ import annotations

from starlette.testclient import TestClient

from arbiter.server import create_app

from .conftest import Postgres


def test_two_servers_serve_one_campaign(postgres: Postgres) -> None:
    url = postgres.new_database()
    with TestClient(create_app(db=url)) as one, TestClient(create_app(db=url)) as two:
        r = one.post("/api/campaigns", json={"name": "Shared", "ruleset": "demo"})
        cid, token = r.json()["campaign"]["id"], r.json()["gm_token"]
        gm = {"Authorization": f"Bearer {token}"}
        eid = one.post(f"/api/campaigns/{cid}/encounters", json={"name": "E"},
                       headers=gm).json()["encounter"]["id"]
        r = two.post(f"/api/encounters/{eid}/actors", json={"id": "ogre", "health": 50},
                     headers=gm)
        assert r.status_code == 201, r.text
        with one.websocket_connect(f"/api/encounters/{eid}/ws") as ws:
            ws.send_json({"token": token})
            assert ws.receive_json()["state"]["entities"]["ogre"]["health"] == 50
            for client in (two, one, two):
                r = client.post(f"/api/encounters/{eid}/commands", headers=gm, json={
                    "command": {"do": "damage", "target": "ogre", "amount": 5}})
                assert r.status_code == 201, r.text
            messages = [ws.receive_json() for _ in range(3)]
            # every record, in order; each with the newest state the server knew then
            assert [m["record"]["seq"] for m in messages] == [3, 4, 5]
            assert messages[-1]["state"]["entities"]["ogre"]["health"] == 35
        for client in (one, two):
            state = client.get(f"/api/encounters/{eid}", headers=gm).json()
            assert state["entities"]["ogre"]["health"] == 35 and state["version"] == 5
