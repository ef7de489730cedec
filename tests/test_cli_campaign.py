"""``arbiter campaign export/import/characters`` and ``arbiter sim --campaign``: a campaign's
roster and bestiary travel in its file, a roster listing says what each character carries,
and the simulator can field roster characters with their lasting state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from arbiter import cli
from arbiter.cli import app
from arbiter.core import Command
from arbiter.store import EventStore, GameService

runner = CliRunner()
ENCOUNTER = """\
ruleset: zones
seed: 3
actors:
  bob: {template: bandit, side: gang, zone: yard}
steps: []
sim: {max_rounds: 30}
"""


@pytest.fixture
def campaign(tmp_path: Path) -> tuple[Path, str]:
    """A zones campaign in a database: Vee (shot: 15 Health of 40, 5 rifle rounds), Kit
    (unhurt) and a bestiary raider."""
    db = tmp_path / "arbiter.db"
    store = EventStore.open(db)
    service = GameService(store)
    record, _ = service.create_campaign("Ridge", "zones")
    cid = record.id
    service.roster_submit(cid, Command("creature_save", args={
        "id": "raider", "name": "Raider", "template": "bandit", "health": 40}))
    service.roster_submit(cid, Command("character_add", args={
        "id": "vee", "name": "Vee", "side": "crew", "health": 40, "armor": 0, "DEX": 14,
        "ammo": {"rifle": 12}, "owner": "Ann", "zone": "yard"}))
    service.roster_submit(cid, Command("character_add", args={
        "id": "kit", "name": "Kit", "template": "raider", "side": "crew", "zone": "yard"}))
    fight = service.create_encounter(cid, "Yard", characters=["vee"])
    service.submit(fight.id, Command("damage", args={"target": "vee", "amount": 25}))
    service.submit(fight.id, Command("override", args={"path": "vee.ammo.rifle", "value": 5,
                                                       "reason": "shots fired"}))
    service.write_back(fight.id)
    store.close()
    return db, cid


def test_export_import_and_list_the_roster(campaign: tuple[Path, str], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "console", Console(width=200, highlight=False, soft_wrap=True))
    db, cid = campaign
    file = tmp_path / "ridge.json"
    result = runner.invoke(app, ["campaign", "export", cid, "--db", str(db), "--out",
                                 str(file)])
    assert result.exit_code == 0, result.output
    document = json.loads(file.read_text())
    assert document["v"] == 2 and len(document["log"]) == 4  # the campaign's own log
    result = runner.invoke(app, ["campaign", "characters", str(file)])
    assert result.exit_code == 0, result.output
    assert "vee" in result.output and "ammo rifle 5; health 15" in result.output
    assert "unhurt" in result.output and "raider (Raider)" in result.output
    result = runner.invoke(app, ["campaign", "characters", str(file), "--json"])
    listed = json.loads(result.output)
    assert [c["id"] for c in listed["characters"]] == ["vee", "kit"]
    assert listed["characters"][0]["lasting"] == {"ammo": {"rifle": 5}, "health_now": 15}
    assert [b["id"] for b in listed["bestiary"]] == ["raider"]
    # imported into another server's database: the roster and bestiary come along
    other = tmp_path / "other.db"
    result = runner.invoke(app, ["campaign", "import", str(file), "--db", str(other)])
    assert result.exit_code == 0, result.output
    assert "2 character(s), 1 bestiary creature(s)" in result.output
    store = EventStore.open(other)
    try:
        kept = GameService(store).roster(cid, lambda r: r.state.characters["vee"]["lasting"])
    finally:
        store.close()
    assert kept == {"ammo": {"rifle": 5}, "health_now": 15}
    result = runner.invoke(app, ["campaign", "import", str(file), "--db", str(other)])
    assert result.exit_code == 2 and "already" in result.output


def test_bad_campaign_files_and_databases_are_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = runner.invoke(app, ["campaign", "characters", str(bad)])
    assert result.exit_code == 2 and "not JSON (line 1" in result.output
    bad.write_text(json.dumps({"format": "arbiter-campaign", "v": 2}))
    result = runner.invoke(app, ["campaign", "characters", str(bad)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    result = runner.invoke(app, ["campaign", "export", "c-x", "--db",
                                 str(tmp_path / "none.db")])
    assert result.exit_code == 2 and "no such database file" in result.output


def test_sim_fields_roster_characters_with_what_they_carry(
        campaign: tuple[Path, str], tmp_path: Path) -> None:
    db, cid = campaign
    file = tmp_path / "ridge.json"
    runner.invoke(app, ["campaign", "export", cid, "--db", str(db), "--out", str(file)])
    encounter = tmp_path / "yard.yaml"
    encounter.write_text(ENCOUNTER)
    result = runner.invoke(app, ["sim", str(encounter), "--runs", "20", "--workers", "1",
                                 "--campaign", str(file), "--characters", "vee,kit",
                                 "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert set(summary["creatures"]) == {"bob", "vee", "kit"}
    assert summary["creatures"]["vee"]["side"] == "crew"
    result = runner.invoke(app, ["sim", str(encounter), "--runs", "5", "--campaign",
                                 str(file), "--characters", "zed"])
    assert result.exit_code == 2 and "no character 'zed'" in result.output
    result = runner.invoke(app, ["sim", str(encounter), "--runs", "5", "--characters",
                                 "vee"])
    assert result.exit_code == 2 and "go together" in result.output
