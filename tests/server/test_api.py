"""The HTTP and WebSocket API: routes, roles, errors, persistence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from arbiter.server import create_app

from .conftest import HIDDEN_ID, HIDDEN_NAME, Table, set_table


def test_health_and_openapi(client: TestClient) -> None:
    assert client.get("/api/health").json() == {"ok": True, "build": "pure"}
    doc = client.get("/openapi.json").json()
    assert doc["openapi"].startswith("3.")
    assert "/api/encounters/{encounter_id}/commands" in doc["paths"]
    assert "Submit" in doc["components"]["schemas"]


def test_console_files_are_revalidated_on_every_load(client: TestClient) -> None:
    """After an upgrade a browser must not run cached modules: every static file says
    no-cache, and an unchanged one is answered 304 on its ETag."""
    for path in ("/", "/app.js", "/play/"):
        first = client.get(path)
        assert first.status_code == 200, path
        assert first.headers["cache-control"] == "no-cache", path
        again = client.get(path, headers={"If-None-Match": first.headers["etag"]})
        assert again.status_code == 304, path


def test_an_admin_token_guards_creating_and_importing_campaigns(tmp_path: Path) -> None:
    app = create_app(db=tmp_path / "arbiter.db", admin_token="s3cret-admin")
    body = {"name": "Tuesday", "ruleset": "realms"}
    with TestClient(app) as client:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            refused = client.post("/api/campaigns", json=body, headers=headers)
            assert refused.status_code == 401
            assert "needs its admin token" in refused.json()["error"]
            assert refused.json()["field"] == "authorization"
        made = client.post("/api/campaigns", json=body,
                           headers={"Authorization": "Bearer s3cret-admin"})
        assert made.status_code == 201, made.text
        cid, gm = made.json()["campaign"]["id"], made.json()["gm_token"]
        exported = client.get(f"/api/campaigns/{cid}/export",
                              headers={"Authorization": f"Bearer {gm}"})
        assert exported.status_code == 200, exported.text
        assert client.post("/api/campaigns/import", json=exported.json()).status_code == 401
        # a campaign's own token is not the admin token
        assert client.post("/api/campaigns", json=body,
                           headers={"Authorization": f"Bearer {gm}"}).status_code == 401


def test_a_turn_of_play(table: Table) -> None:
    r = table.command({"do": "start", "initiative": {"nia": 20, "bram": 15, "wolf": 10,
                                                     HIDDEN_ID: 5}})
    assert r.status_code == 201, r.text
    r = table.command({"do": "attack", "actor": "nia", "target": "wolf"}, table.player,
                      expected_version=r.json()["version"])
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["record"]["command"] == {"do": "attack", "actor": "nia", "target": "wolf"}
    assert body["state"]["current"] == "nia"
    r = table.command({"do": "next"}, table.player)
    assert r.status_code == 201 and r.json()["state"]["current"] == "bram"
    r = table.command({"do": "next"}, table.player)
    assert r.status_code == 403
    r = table.command({"do": "attack", "actor": "bram", "target": "wolf"}, table.player)
    assert r.status_code == 403 and r.json()["field"] == "command.actor"
    log = table.client.get(f"/api/encounters/{table.encounter}/log", headers=table.gm).json()
    assert [rec["seq"] for rec in log["records"]] == list(range(1, log["version"] + 1))
    assert log["records"][-1]["author"] == "player:Ann"


def test_odds_are_exact_fractions_with_a_percentage(table: Table) -> None:
    r = table.client.post(f"/api/encounters/{table.encounter}/odds",
                          json={"command": {"do": "attack", "actor": "nia", "target": "wolf"}},
                          headers=table.player)
    assert r.status_code == 200, r.text
    hit = r.json()["odds"]["hit"]
    # d20 + 6 against defense 13: 7..20 hit, 1 always misses: 14/20
    assert hit == {"exact": "7/10", "float": 0.7, "percent": 70.0}


def test_undo_redo_and_stale_versions(table: Table) -> None:
    eid, gm = table.encounter, table.gm
    r = table.command({"do": "damage", "target": "wolf", "amount": 5})
    version = r.json()["version"]
    assert r.json()["state"]["entities"]["wolf"]["health"] == 6
    r = table.client.post(f"/api/encounters/{eid}/undo", headers=gm)
    assert r.status_code == 201 and r.json()["state"]["entities"]["wolf"]["health"] == 11
    r = table.client.post(f"/api/encounters/{eid}/redo", json={"expected_version": version},
                          headers=gm)
    assert r.status_code == 409 and r.json()["field"] == "expected_version"
    r = table.client.post(f"/api/encounters/{eid}/redo", headers=gm)
    assert r.status_code == 201 and r.json()["state"]["entities"]["wolf"]["health"] == 6
    r = table.client.post(f"/api/encounters/{eid}/redo", headers=gm)
    assert r.status_code == 409 and "nothing to redo" in r.json()["error"]
    r = table.command({"do": "note", "text": "late"}, expected_version=version)
    assert r.status_code == 409 and r.json()["version"] == version + 2
    r = table.client.post(f"/api/encounters/{eid}/undo", headers=table.player)
    assert r.status_code == 403


def test_rulings_of_campaign_and_encounter(table: Table) -> None:
    cid, eid, gm = table.campaign, table.encounter, table.gm
    r = table.client.get(f"/api/campaigns/{cid}/rulings", headers=table.player)
    assert r.json()["rulings"][0]["id"] == "DEMO-1"
    r = table.client.put(f"/api/campaigns/{cid}/rulings", json={"rulings": {"DEMO-1": "x"}},
                         headers=gm)
    assert r.status_code == 422 and r.json()["field"] == "rulings"
    r = table.client.put(f"/api/campaigns/{cid}/rulings",
                         json={"rulings": {"DEMO-1": "max-damage"}}, headers=gm)
    assert r.json()["rulings"][0]["value"] == "max-damage"
    r = table.client.put(f"/api/encounters/{eid}/rulings/DEMO-1", json={"value": "max-damage"},
                         headers=gm)
    assert r.status_code == 201, r.text
    r = table.client.get(f"/api/encounters/{eid}/rulings", headers=gm)
    assert r.json()["rulings"][0]["value"] == "max-damage"
    r = table.client.post(f"/api/campaigns/{cid}/encounters", json={"name": "Next"},
                          headers=gm)
    new = r.json()["encounter"]["id"]
    state = table.client.get(f"/api/encounters/{new}", headers=gm).json()
    assert state["rulings"] == {"DEMO-1": "max-damage"}


def test_errors_are_json_with_the_field(table: Table) -> None:
    c, eid = table.client, table.encounter
    cases: list[tuple[Any, int, str | None]] = [
        (c.get(f"/api/encounters/{eid}"), 401, "authorization"),
        (c.get(f"/api/encounters/{eid}", headers={"Authorization": "Bearer nope"}), 401,
         "authorization"),
        (c.get("/api/encounters/e-missing", headers=table.gm), 404, None),
        (c.get("/api/nothing"), 404, None),
        (c.delete("/api/campaigns"), 405, None),
        (c.post("/api/campaigns", content=b"{not json"), 400, None),
        (c.post("/api/campaigns", json={"name": "x"}), 422, "ruleset"),
        (c.post("/api/campaigns", json={"name": "x", "ruleset": "chess"}), 422, "ruleset"),
        (c.post("/api/campaigns", json={"name": "x", "ruleset": "demo", "more": 1}), 422,
         "more"),
        (c.post("/api/campaigns", content=b"[" * 100 + b"]" * 100), 400, None),
        (c.post("/api/campaigns", content=b'{"name": NaN}'), 400, None),
        (c.post("/api/campaigns", content=b"x" * 70_000), 413, None),
        (table.command({"do": "attack", "actor": "nia"}), 422, "command.target"),
        (table.command({"do": "fly"}), 422, "command.do"),
        (table.command({"do": "attack", "actor": "nia", "target": "wolf", "trget": "x"}), 422,
         "command.trget"),
        (c.post(f"/api/encounters/{eid}/odds", headers=table.gm, json={"command": {
            "do": "attack", "actor": "nia", "target": "wolf", "bonsu": 2}}), 422,
         "command.bonsu"),
        (table.command({"do": "note", "text": "x"}, expected_version=-1), 422,
         "expected_version"),
        (table.command({"do": "attack", "actor": "nia", "target": "wolf"}, dice=[25]), 422,
         "command"),
        (table.command({"do": "note", "text": "x"}, table.player), 403, "command.do"),
        (table.command({"do": "note", "text": "x"}, table.player, dice=[3]), 403, "dice"),
        (c.get(f"/api/encounters/{eid}/log?after=x", headers=table.gm), 400, "after"),
    ]
    for response, status, field in cases:
        assert response.status_code == status, (response.request.url, response.text)
        body = response.json()
        assert isinstance(body["error"], str) and body["error"]
        assert body["field"] == field, body


def test_a_player_never_receives_the_hidden_creature(table: Table) -> None:
    """By any route: state, log, odds, errors, commands, campaign, WebSocket."""
    c, eid, cid, player = table.client, table.encounter, table.campaign, table.player
    seen: list[str] = []
    with c.websocket_connect(f"/api/encounters/{eid}/ws") as ws:
        ws.send_json({"token": table.player_token})
        seen.append(json.dumps(ws.receive_json()))
        gm_moves: list[dict[str, Any]] = [
            {"do": "reveal_on_turn", "enabled": False},  # it stays hidden while it acts
            {"do": "start", "initiative": {"nia": 20, HIDDEN_ID: 18, "bram": 15, "wolf": 10}},
            {"do": "note", "text": f"{HIDDEN_NAME} circles behind the reeds"},
            {"do": "condition", "target": HIDDEN_ID, "name": "stalking"},
        ]
        for move in gm_moves:
            assert table.command(move).status_code == 201
        # Naming it gets the answer naming nobody gets (the player's own word echoed); its
        # name is no creature id at all, like any other name with a space.
        answers = {}
        for name in (HIDDEN_ID, HIDDEN_NAME, "ghost", "Ghost Wolf"):
            r = table.command({"do": "attack", "actor": "nia", "target": name}, player)
            answers[name] = (r.status_code, r.text.replace(name, "X"))
            r = table.client.post(f"/api/encounters/{eid}/odds", headers=player, json={
                "command": {"do": "attack", "actor": "nia", "target": name}})
            answers[name + " odds"] = (r.status_code, r.text.replace(name, "X"))
        assert answers[HIDDEN_ID] == answers["ghost"]
        assert answers[HIDDEN_NAME] == answers["Ghost Wolf"]
        assert answers[HIDDEN_ID + " odds"] == answers["ghost odds"]
        assert answers[HIDDEN_NAME + " odds"] == answers["Ghost Wolf odds"]
        assert answers["ghost"][0] == 422
        for move in ({"do": "attack", "actor": "nia", "target": "wolf"}, {"do": "next"}):
            r = table.command(move, player)
            assert r.status_code == 201, r.text
            seen.append(r.text)
        r = table.command({"do": "attack", "actor": HIDDEN_ID, "target": "nia"}, dice=[15, 3, 3])
        assert r.status_code == 201, r.text
        assert table.command({"do": "note", "text": "the last one"}).status_code == 201
        # a record the player sees nothing of sends them nothing: the messages are those of
        # the start, the player's two commands and the last note (the unseen lurker's bite
        # shows only as nia's lower health)
        messages = [ws.receive_json() for _ in range(4)]
        assert messages[-1]["record"]["text"] == "Note: the last one"
        seen.extend(json.dumps(m) for m in messages)
    for path in ("", "/log", "/rulings", "/commands"):
        seen.append(c.get(f"/api/encounters/{eid}{path}", headers=player).text)
    seen.append(c.get(f"/api/campaigns/{cid}", headers=player).text)
    seen.append(c.post(f"/api/encounters/{eid}/odds", headers=player, json={
        "command": {"do": "attack", "actor": "nia", "target": "wolf"}}).text)
    for text in seen:
        assert HIDDEN_ID not in text and HIDDEN_NAME not in text, text
    # the game master sees it all, and the player sees the wolf's face but not its numbers
    gm_state = c.get(f"/api/encounters/{eid}", headers=table.gm).json()
    assert HIDDEN_ID in gm_state["entities"]
    wolf = c.get(f"/api/encounters/{eid}", headers=player).json()["entities"]["wolf"]
    assert "health" not in wolf and "defense" not in wolf and wolf["status"]
    nia_hit = c.get(f"/api/encounters/{eid}", headers=player).json()["entities"]["nia"]
    assert nia_hit["health"] < 24  # her own wounds she knows


def test_a_game_master_command_that_names_the_hidden_creature_still_shows_what_it_did(
        table: Table) -> None:
    """The start names the lurker in its initiative, which a player never sees (the GM's
    arguments are GM-only): the player's log shows the start, less the lurker, not an
    entry redacted whole."""
    r = table.command({"do": "start", "initiative": {"nia": 20, HIDDEN_ID: 18, "bram": 15,
                                                     "wolf": 10}})
    assert r.status_code == 201, r.text
    seq = r.json()["record"]["seq"]
    log = table.client.get(f"/api/encounters/{table.encounter}/log",
                           headers=table.player).json()["records"]
    entry = next(e for e in log if e["seq"] == seq)
    assert entry["command"] == {"do": "start"} and "redacted" not in entry
    started = entry["events"][0]["data"]
    assert started["order"] == ["nia", "bram", "wolf"] and entry["dice"] == []
    assert HIDDEN_ID not in json.dumps(log) and HIDDEN_NAME not in json.dumps(log)


def test_the_players_own_character_does_not_name_the_hidden_creature(table: Table) -> None:
    """A condition the lurker gave nia: she is shown in full, its source is not."""
    r = table.command({"do": "condition", "target": "nia", "name": "frightened",
                       "source": HIDDEN_ID})
    assert r.status_code == 201, r.text
    url = f"/api/encounters/{table.encounter}"
    seen = table.client.get(url, headers=table.player).json()["entities"]["nia"]
    assert seen["conditions"] == [{"name": "frightened", "level": 1, "source": None}]
    told = table.client.get(url, headers=table.gm).json()["entities"]["nia"]
    assert told["conditions"][0]["source"] == HIDDEN_ID


def test_a_player_sees_the_dice_of_a_hit_on_a_visible_enemy_but_not_its_health(
        table: Table) -> None:
    """What is kept from a player of a creature they see (its Health) is not in the dice,
    so the entry keeps them; only an entry that loses something about a concealed
    creature loses its dice."""
    r = table.command({"do": "attack", "actor": "nia", "target": "wolf"}, dice=[15, 3])
    assert r.status_code == 201, r.text
    seq = r.json()["record"]["seq"]
    log = table.client.get(f"/api/encounters/{table.encounter}/log",
                           headers=table.player).json()["records"]
    entry = next(e for e in log if e["seq"] == seq)
    assert [d[1] for d in entry["dice"]] == [15, 3]
    assert all("health" not in e["data"] for e in entry["events"])


def test_a_revealed_creature_appears(table: Table) -> None:
    r = table.command({"do": "override", "path": f"{HIDDEN_ID}.hidden", "value": False,
                       "reason": "it leaps out"})
    assert r.status_code == 201, r.text
    state = table.client.get(f"/api/encounters/{table.encounter}", headers=table.player).json()
    assert state["entities"][HIDDEN_ID]["name"] == HIDDEN_NAME


def test_restart_persistence(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    with TestClient(create_app(db=db)) as first:
        t = set_table(first)
        assert t.command({"do": "damage", "target": "wolf", "amount": 4}).status_code == 201
        before = first.get(f"/api/encounters/{t.encounter}", headers=t.gm).json()
    with TestClient(create_app(db=db)) as second:
        after = second.get(f"/api/encounters/{t.encounter}", headers=t.gm).json()
        assert after == before
        r = second.get(f"/api/encounters/{t.encounter}", headers=t.player)
        assert r.status_code == 200


def test_export_and_import_over_http(table: Table, tmp_path: Path) -> None:
    r = table.client.get(f"/api/campaigns/{table.campaign}/export", headers=table.gm)
    assert r.status_code == 200
    document = r.json()
    assert table.client.get(f"/api/campaigns/{table.campaign}/export",
                            headers=table.player).status_code == 403
    with TestClient(create_app(db=tmp_path / "other.db")) as other:
        r = other.post("/api/campaigns/import", json=document)
        assert r.status_code == 201, r.text
        again = other.get(f"/api/campaigns/{table.campaign}/export", headers=table.gm)
        assert again.json() == document
        r = other.post("/api/campaigns/import", json=document)
        assert r.status_code == 409
        broken = {**document, "v": 7}
        r = other.post("/api/campaigns/import", json=broken)
        assert r.status_code == 422 and r.json()["field"] == "v"


def test_guessing_a_hidden_name_inside_text_tells_nothing(table: Table) -> None:
    answers = set()
    for guess in (HIDDEN_ID, HIDDEN_NAME, "ghost", "Nobody At All"):
        for template in ("behind {}", "{}!", "the {} there"):
            word = template.format(guess)
            r = table.command({"do": "attack", "actor": "nia", "target": word}, table.player)
            answers.add((r.status_code, r.text.replace(word, "X")))
            r = table.client.post(f"/api/encounters/{table.encounter}/odds", json={
                "command": {"do": "attack", "actor": "nia", "target": word}},
                headers=table.player)
            answers.add((r.status_code, r.text.replace(word, "X")))
    assert len(answers) == 1, answers  # the same refusal, whatever was guessed
