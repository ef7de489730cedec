"""The simulate routes (issue 36): win odds of an encounter from its current state, and of
a new encounter's body, for the game master only, bounded, seeded, changing nothing."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from arbiter.server.app import new_encounter_events
from arbiter.sim import SimError
from arbiter.sim.from_state import job_from_events, odds

from .conftest import Table


def _simulate(table: Table, body: dict[str, Any], headers: dict[str, str] | None = None,
              eid: str | None = None) -> Any:
    return table.client.post(f"/api/encounters/{eid or table.encounter}/simulate",
                             json=body, headers=headers or table.gm)


def _stable(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k != "seconds"}


def test_the_gm_reads_each_sides_odds_and_the_same_seed_gives_the_same_answer(
        table: Table) -> None:
    r = _simulate(table, {"runs": 200, "seed": 7})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["runs"] == 200 and out["asked"] == 200 and out["seed"] == 7
    assert out["cut_short"] is False
    sides = {s["side"]: s for s in out["sides"]}
    assert set(sides) == {"heroes", "beasts"}
    total = sum(s["win"] for s in sides.values()) + out["draw"] + out["unfinished"]
    assert total == pytest.approx(1.0)
    for s in sides.values():
        lo, hi = s["ci95"]
        assert 0 <= lo <= s["win"] <= hi <= 1
    assert out["rounds"] >= 1
    assert [c["id"] for c in out["creatures"]] == ["nia", "bram", "wolf", "lurker"]
    for c in out["creatures"]:
        assert 0 <= c["dead"] <= c["down"] <= 1
    again = _simulate(table, {"runs": 200, "seed": 7}).json()
    assert _stable(again) == _stable(out)
    other = _simulate(table, {"runs": 200, "seed": 8}).json()
    assert _stable(other) != _stable(out)


def test_the_stored_encounter_is_unchanged_after(table: Table) -> None:
    c = table.client
    table.command({"do": "start"})
    before = c.get(f"/api/encounters/{table.encounter}", headers=table.gm).json()
    r = _simulate(table, {"runs": 50})
    assert r.status_code == 200, r.text
    assert r.json()["runs"] == 50
    after = c.get(f"/api/encounters/{table.encounter}", headers=table.gm).json()
    assert after == before


def test_a_player_is_refused_and_an_unknown_encounter_is_404(table: Table) -> None:
    r = _simulate(table, {"runs": 10}, table.player)
    assert r.status_code == 403, r.text
    r = _simulate(table, {"runs": 10}, eid="e-nosuch")
    assert r.status_code == 404, r.text


@pytest.mark.parametrize("body", [{"runs": 0}, {"runs": 10_001}, {"runs": "many"},
                                  {"runs": 1.5}])
def test_runs_out_of_bounds_is_a_422_naming_runs(table: Table, body: dict[str, Any]) -> None:
    r = _simulate(table, body)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "runs"


def test_unknown_fields_and_a_bad_seed_are_named(table: Table) -> None:
    r = _simulate(table, {"runs": 10, "sead": 1})
    assert r.status_code == 422 and r.json()["field"] == "sead", r.text
    r = _simulate(table, {"runs": 10, "seed": -1})
    assert r.status_code == 422 and r.json()["field"] == "seed", r.text


def test_the_deadline_cuts_the_runs_short_and_says_so(client: TestClient) -> None:
    events = _builder_events(client, [{"template": "guard", "side": "heroes"},
                                      {"template": "wolf", "side": "beasts"}])
    job = job_from_events("demo", events, seed=3)
    out = odds(job, 10_000, seconds=0.0, batch=25)
    assert out["runs"] == 25 and out["asked"] == 10_000 and out["cut_short"] is True
    full = odds(job, 25, seconds=60.0, batch=25)
    assert {k: v for k, v in full.items() if k not in ("seconds", "asked", "cut_short")} == {
        k: v for k, v in out.items() if k not in ("seconds", "asked", "cut_short")}


def _campaign(client: TestClient) -> tuple[str, dict[str, str]]:
    r = client.post("/api/campaigns", json={"name": "Ford", "ruleset": "demo"})
    assert r.status_code == 201, r.text
    return r.json()["campaign"]["id"], {"Authorization": f"Bearer {r.json()['gm_token']}"}


def _builder_events(client: TestClient, creatures: list[dict[str, Any]]) -> list[Any]:
    cid, _ = _campaign(client)
    app: Any = client.app
    return new_encounter_events(app.state.api.games, cid, {}, [], creatures)[1]


def test_a_new_encounters_odds_move_as_creatures_are_added(client: TestClient) -> None:
    cid, gm = _campaign(client)
    url = f"/api/campaigns/{cid}/simulate"
    duel = [{"template": "guard", "side": "heroes"}, {"template": "wolf", "side": "beasts"}]
    r = client.post(url, json={"creatures": duel, "runs": 300, "seed": 1}, headers=gm)
    assert r.status_code == 200, r.text
    one = {s["side"]: s["win"] for s in r.json()["sides"]}
    pack = [*duel, {"template": "wolf", "side": "beasts"}, {"template": "wolf", "side": "beasts"}]
    r = client.post(url, json={"creatures": pack, "runs": 300, "seed": 1}, headers=gm)
    assert r.status_code == 200, r.text
    three = {s["side"]: s["win"] for s in r.json()["sides"]}
    assert three["heroes"] < one["heroes"]
    assert [c["id"] for c in r.json()["creatures"]] == ["guard", "wolf", "wolf-2", "wolf-3"]
    # nothing was stored
    assert client.get(f"/api/campaigns/{cid}", headers=gm).json()["encounters"] == []


def test_a_new_encounters_bad_body_is_named(client: TestClient) -> None:
    cid, gm = _campaign(client)
    url = f"/api/campaigns/{cid}/simulate"
    r = client.post(url, json={"creatures": [{"template": "dragon", "side": "x"}]}, headers=gm)
    assert r.status_code == 422 and r.json()["field"] == "creatures.0.template", r.text
    r = client.post(url, json={"creatures": [{"template": "wolf", "side": "beasts"}]},
                    headers=gm)
    assert r.status_code == 422 and "two sides" in r.json()["error"], r.text
    r = client.post(url, json={"creatures": [], "runs": 0}, headers=gm)
    assert r.status_code == 422 and r.json()["field"] == "runs", r.text


def test_a_player_may_not_simulate_a_new_encounter(table: Table) -> None:
    r = table.client.post(f"/api/campaigns/{table.campaign}/simulate",
                          json={"creatures": []}, headers=table.player)
    assert r.status_code == 403, r.text


def test_job_from_events_refuses_one_side() -> None:
    with pytest.raises(SimError, match="two sides"):
        job_from_events("demo", [], seed=0)


def test_the_two_workers_halves_add_up_to_the_runs_played_in_order(table: Table) -> None:
    """The route splits the runs over its workers; the answer is the one of the same runs
    played one after the other in this process."""
    from arbiter.store.replay import effective_entries

    app: Any = table.client.app
    records = app.state.api.games.store.records(table.encounter)
    events = [e for entry in effective_entries(records) for e in entry.events]
    here = odds(job_from_events("demo", events, seed=5), 101, seconds=60.0)
    there = _simulate(table, {"runs": 101, "seed": 5}).json()
    assert _stable(there) == _stable(here)
