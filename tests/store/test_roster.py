"""A campaign's own log (roster and bestiary) in the store, on SQLite and PostgreSQL: its
records and versions, undo and redo, concurrency, write-back, new encounters that bring
characters and bestiary creatures in, the migration that made it, and export and import."""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from arbiter.core import Command, IllegalCommand, InvalidCommand
from arbiter.core.catalogue import InvalidArgument
from arbiter.core.roster import AlreadyListed, NotListed
from arbiter.rulesets.zones.model import Creature
from arbiter.store import (
    Conflict,
    EventStore,
    ExportFormatError,
    GameService,
    LogRecord,
    NotFound,
    NothingToUndo,
)
from arbiter.store.backends import open_backend
from arbiter.store.migrations import MIGRATIONS, migrate

NIA = {"id": "nia", "name": "Nia", "side": "heroes", "owner": "Ann", "health": 24,
       "attack": 6, "defense": 15, "damage": "1d8+3", "notes": "owes the ferryman"}


def campaign(service: GameService, ruleset: str = "demo") -> str:
    record, _ = service.create_campaign("Long road", ruleset)
    return record.id


def roster(service: GameService, cid: str, do: str, **args: Any) -> LogRecord:
    return service.roster_submit(cid, Command(do, args=args))[1]


def zones_creature(service: GameService, eid: str, who: str) -> Creature:
    found = service.read(eid, lambda ld: ld.state.entities[who])
    assert isinstance(found, Creature)
    return found


def characters(service: GameService, cid: str) -> dict[str, dict[str, Any]]:
    return service.roster(cid, lambda r: dict(r.state.characters))


def test_the_campaign_log_is_numbered_versioned_and_refuses_a_stale_append(
        store: EventStore) -> None:
    service = GameService(store)
    cid = campaign(service)
    assert store.campaign_log(cid) == (0, [])
    first = roster(service, cid, "character_add", **NIA)
    assert (first.seq, first.kind, first.author) == (1, "entry", "gm")
    assert first.payload["events"][0]["type"] == "character_added"
    assert store.campaign_log_version(cid) == 1
    with pytest.raises(Conflict) as caught:
        store.append_campaign(cid, 0, [first])
    assert caught.value.actual == 1
    assert "the log of campaign" in str(caught.value)
    with pytest.raises(Conflict):
        service.roster_submit(cid, Command("creature_save", args={"id": "ghoul"}),
                              expected_version=0)
    with pytest.raises(NotFound):
        store.campaign_log("c-missing")
    # the encounter logs are untouched: a campaign's own log is a log of its own
    assert store.encounters(cid) == []


def test_characters_and_the_bestiary_change_only_through_declared_commands(
        store: EventStore) -> None:
    service = GameService(store)
    cid = campaign(service)
    roster(service, cid, "character_add", **NIA)
    with pytest.raises(AlreadyListed):
        roster(service, cid, "character_add", **NIA)
    with pytest.raises(InvalidCommand, match="unknown stat-block key"):
        roster(service, cid, "character_add", id="bram", wings=2)
    with pytest.raises(InvalidArgument) as bad:
        roster(service, cid, "character_add", id="bram", template="dragon")
    assert bad.value.field == "command.template"
    assert "the bestiary: none" in str(bad.value)
    roster(service, cid, "character_update", id="nia", name="Nia the Bold", side="heroes",
           health=30)
    nia = characters(service, cid)["nia"]
    assert nia["name"] == "Nia the Bold" and nia["health"] == 30 and "notes" not in nia
    with pytest.raises(NotListed):
        roster(service, cid, "character_update", id="ghost")
    # the bestiary: never a shipped template's name; built on a shipped template
    with pytest.raises(IllegalCommand, match="template demo ships"):
        roster(service, cid, "creature_save", id="wolf", health=3)
    with pytest.raises(InvalidArgument, match="builds on a template demo ships"):
        roster(service, cid, "creature_save", id="ghoul", template="ghast")
    roster(service, cid, "creature_save", id="ghoul", name="Ghoul", template="wolf",
           health=30)
    roster(service, cid, "character_add", id="thrall", template="ghoul", side="dead")
    with pytest.raises(IllegalCommand, match="thrall is built on 'ghoul'"):
        roster(service, cid, "creature_remove", id="ghoul")
    with pytest.raises(InvalidCommand, match="unknown stat-block key"):
        roster(service, cid, "creature_save", id="ghoul", wings=3)
    roster(service, cid, "character_remove", id="thrall")
    roster(service, cid, "creature_remove", id="ghoul")
    texts = service.roster(cid, lambda r: [
        r.roster.describe(e["type"], e["data"], r.roster.names(r.state))
        for rec in service.roster_records(cid) for e in rec.payload["events"]])
    assert texts == ["Nia the Bold joins the roster.", "Nia the Bold's sheet changes.",
                     "The bestiary gains ghoul.", "Thrall joins the roster.",
                     "Thrall leaves the roster.", "The bestiary loses ghoul."]


def test_a_bestiary_change_that_would_break_a_character_is_refused(
        store: EventStore) -> None:
    service = GameService(store)
    cid = campaign(service, "realms")
    roster(service, cid, "creature_save", id="brute", name="Brute", strength=2)
    roster(service, cid, "character_add", id="weak", template="brute", strength=0)
    with pytest.raises(IllegalCommand, match=r"weak is built on 'brute' and would no longer "
                                             r"be.*plate needs Strength 2"):
        roster(service, cid, "creature_save", id="brute", strength=2, armor="plate")
    assert service.roster(cid, lambda r: r.state.bestiary["brute"]) == {
        "id": "brute", "name": "Brute", "strength": 2}


def test_undo_and_redo_of_the_campaign_log_are_records(store_url: str) -> None:
    service = GameService(EventStore.open(store_url))
    cid = campaign(service)
    with pytest.raises(NothingToUndo):
        service.roster_undo(cid)
    roster(service, cid, "character_add", **NIA)
    roster(service, cid, "character_update", id="nia", name="Nia", health=99)
    _, undo = service.roster_undo(cid)
    assert (undo.kind, undo.target) == ("undo", 2)
    assert characters(service, cid)["nia"]["health"] == 24
    _, redo = service.roster_redo(cid)
    assert (redo.kind, redo.target) == ("redo", 2)
    assert characters(service, cid)["nia"]["health"] == 99
    service.roster_undo(cid)
    service.roster_undo(cid)  # the first entry of a campaign's log may be undone too
    assert characters(service, cid) == {}
    roster(service, cid, "creature_save", id="ghoul", health=5)
    with pytest.raises(NothingToUndo):
        service.roster_redo(cid)  # a new command clears what can be redone
    assert [r.kind for r in service.roster_records(cid)] == [
        "entry", "entry", "undo", "redo", "undo", "undo", "entry"]
    # a restart replays the same roster from the log
    service.store.close()
    again = GameService(EventStore.open(store_url))
    assert characters(again, cid) == {}
    assert again.roster(cid, lambda r: list(r.state.bestiary)) == ["ghoul"]
    again.store.close()


def test_two_services_on_one_database_lose_no_roster_change(store_url: str) -> None:
    stores = [EventStore.open(store_url), EventStore.open(store_url)]
    services = [GameService(s) for s in stores]
    cid = campaign(services[0])
    errors: list[BaseException] = []

    def hit(service: GameService, n: int) -> None:
        try:
            for i in range(5):
                service.roster_submit(cid, Command("character_add", args={
                    "id": f"c{n}-{i}", "health": 5}))
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=hit, args=(services[n % 2], n)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    fresh = GameService(stores[0])
    assert len(characters(fresh, cid)) == 30
    assert [r.seq for r in stores[1].campaign_records(cid)] == list(range(1, 31))
    # the other service's cache catches up with what the first one wrote
    assert len(characters(services[1], cid)) == 30
    for s in stores:
        s.close()


def test_write_back_carries_what_lasts_into_the_next_encounter(store: EventStore) -> None:
    service = GameService(store)
    cid = campaign(service, "zones")
    roster(service, cid, "character_add", id="kit", name="Kit", template="soldier",
           side="crew", owner="Ann")
    roster(service, cid, "creature_save", id="raider", name="Raider", template="bandit",
           health=40)
    first = service.create_encounter(cid, "Ford", characters=["kit"],
                                     creatures=[{"template": "raider", "side": "gang"},
                                                {"template": "raider", "side": "gang"},
                                                {"template": "bandit", "id": "boss"}])
    state = service.read(first.id, lambda ld: ld.state)
    assert list(state.entities) == ["kit", "raider", "raider-2", "boss"]
    assert state.entities["raider"].health_max == 40  # type: ignore[attr-defined]
    assert state.entities["raider"].name == "Raider"
    records = store.records(first.id)
    assert [r.payload["command"]["do"] for r in records] == ["create", "batch"]
    service.submit(first.id, Command("damage", args={"target": "kit", "amount": 30}))
    with pytest.raises(IllegalCommand, match="no character of the roster"):
        service.write_back(service.create_encounter(cid, "Empty").id)
    _, record = service.write_back(first.id)
    data = record.payload["events"][0]["data"]
    assert data["who"] == ["kit"] and data["encounter"] == first.id
    assert data["name"] == "Ford" and data["version"] == 3
    hurt = zones_creature(service, first.id, "kit").health
    lasting = characters(service, cid)["kit"]["lasting"]
    assert lasting == {"health_now": hurt, "ammo": {"assault-rifle": 30, "grenade": 2}}
    second = service.create_encounter(cid, "Bridge", characters=["kit"])
    kit = zones_creature(service, second.id, "kit")
    assert kit.health == lasting["health_now"] and kit.health < kit.health_max
    # undoing the write-back gives the character back as it was before
    service.roster_undo(cid)
    third = service.create_encounter(cid, "Tower", characters=["kit"])
    kit = zones_creature(service, third.id, "kit")
    assert kit.health == kit.health_max


def test_a_bestiary_template_works_in_a_submitted_add_and_batch(store: EventStore) -> None:
    service = GameService(store)
    cid = campaign(service)
    roster(service, cid, "creature_save", id="ghoul", name="Ghoul", template="wolf",
           health=30, stats={"initiative": 5})
    eid = service.create_encounter(cid, "Crypt").id
    service.submit(eid, Command("add", args={"id": "g1", "template": "ghoul",
                                             "side": "dead", "stats": {"speed": 3}}))
    service.submit(eid, Command("batch", args={"commands": [
        {"do": "add", "id": "g2", "template": "ghoul"},
        {"do": "add", "id": "w1", "template": "wolf"}]}))
    state = service.read(eid, lambda ld: ld.state)
    g1 = state.entities["g1"]
    assert (g1.name, g1.health, g1.side) == ("Ghoul", 30, "dead")  # type: ignore[attr-defined]
    assert g1.stats == {"initiative": 5, "speed": 3}  # mappings merged, as templates are
    assert state.entities["g2"].health == 30  # type: ignore[attr-defined]
    assert state.entities["w1"].health == 11  # type: ignore[attr-defined]
    with pytest.raises(InvalidArgument, match="the bestiary: ghoul"):
        service.submit(eid, Command("add", args={"id": "x", "template": "ghast"}))
    # the log keeps what was decided: the whole stat block, replayed without the bestiary
    assert store.records(eid)[1].payload["command"]["health"] == 30


def test_a_refused_new_encounter_names_the_field_and_stores_nothing(
        store: EventStore) -> None:
    service = GameService(store)
    cid = campaign(service)
    roster(service, cid, "character_add", **NIA)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"characters": ["nia", "ghost"]}, "characters.1"),
        ({"characters": ["nia", "nia"]}, "characters.1"),
        ({"creatures": [{"template": "dragon"}]}, "creatures.0.template"),
        ({"characters": ["nia"], "creatures": [{"template": "wolf", "id": "nia"}]},
         "creatures.0.id"),
    ]
    for given, field in cases:
        with pytest.raises((InvalidArgument, NotListed)) as caught:
            service.create_encounter(cid, "E", **given)
        assert getattr(caught.value, "field", None) == field, given
    assert store.encounters(cid) == []


def test_a_database_of_schema_2_gains_campaign_logs(tmp_path: Path) -> None:
    """Migration 3 on a database written before it: every campaign's log starts empty."""
    path = tmp_path / "old.db"
    backend = open_backend(str(path))
    assert migrate(backend, MIGRATIONS[:2]) == [1, 2]
    with backend.transaction() as tx:
        tx.run("INSERT INTO campaigns (id, name, ruleset, rulings, created_at) "
               "VALUES ('c-old', 'Old', 'demo', '{}', '2025-01-01')")
    backend.close()
    store = EventStore.open(path)
    assert store.migrated == [3, 4]  # and the images table
    assert store.campaign_log("c-old") == (0, [])
    service = GameService(store)
    roster(service, "c-old", "character_add", **NIA)
    assert store.campaign_log_version("c-old") == 1
    store.close()


def test_export_and_import_keep_the_roster_exactly(store_url: str, tmp_path: Path) -> None:
    source = GameService(EventStore.open(store_url))
    cid = campaign(source, "zones")
    roster(source, cid, "character_add", id="kit", template="soldier", side="crew")
    roster(source, cid, "creature_save", id="raider", template="bandit", health=40)
    eid = source.create_encounter(cid, "Ford", characters=["kit"]).id
    source.submit(eid, Command("damage", args={"target": "kit", "amount": 12}))
    source.write_back(eid)
    roster(source, cid, "character_add", id="bo", template="raider")
    source.roster_undo(cid)  # bo could still be redone
    document = source.export_campaign(cid)
    assert document["v"] == 2 and [r["seq"] for r in document["log"]] == [1, 2, 3, 4, 5]
    text = json.dumps(document)
    target = GameService(EventStore.open(str(tmp_path / "copy.db")))
    target.import_campaign(json.loads(text))
    assert json.dumps(target.export_campaign(cid)) == text
    assert characters(target, cid) == characters(source, cid)
    target.roster_redo(cid)  # the undone command came along, and can be redone
    assert set(characters(target, cid)) == {"kit", "bo"}
    source.store.close()
    target.store.close()


def test_an_export_of_version_1_imports_with_an_empty_roster(tmp_path: Path) -> None:
    source = GameService(EventStore.open(tmp_path / "a.db"))
    cid = campaign(source)
    source.create_encounter(cid, "Gate")
    document = source.export_campaign(cid)
    old = {k: v for k, v in document.items() if k != "log"}
    old["v"] = 1
    target = GameService(EventStore.open(tmp_path / "b.db"))
    target.import_campaign(old)
    assert characters(target, cid) == {}
    assert target.export_campaign(cid) == document  # upcast: version 2, an empty log
    source.store.close()
    target.store.close()


@pytest.mark.parametrize(("change", "field", "message"), [
    (lambda d: d.update(log={}), "log",
     "must be a list of log records: the campaign's own log (its roster and bestiary)"),
    (lambda d: d["log"][0]["payload"]["command"].update(do="attack"),
     "log.0.payload.command.do", "the campaign's log holds the roster's commands"),
    (lambda d: d["log"][1]["payload"]["events"][0].update(type="entity_added"),
     "log.1.payload.events", "the events are not those the command 'creature_save' makes"),
    # records play never writes (issue 30): an id no route reaches, an event no command
    # makes, a payload of another shape, a command the roster would refuse
    (lambda d: d["log"][0]["payload"]["events"][0]["data"].update(id="../../x"),
     "log.0.payload.events", "the events are not those the command 'character_add' makes"),
    (lambda d: d["log"][0]["payload"]["events"].append(d["log"][0]["payload"]["events"][0]),
     "log.0.payload.events", "play would not have written this record"),
    (lambda d: d["log"][1]["payload"]["events"][0]["data"].update(entry="not a sheet"),
     "log.1.payload.events", "the events are not those the command 'creature_save' makes"),
    (lambda d: d["log"][0]["payload"]["command"].update(id="../../x"),
     "log.0.payload.command", "the command 'character_add' would be refused here"),
    (lambda d: d["log"].append({**d["log"][0], "seq": 4, "kind": "undo", "target": 2}),
     "log.3.target", "an undo withdraws the latest entry in effect (1), not record 2"),
    (lambda d: d["log"][2].update(v=9), "log.2.v",
     "log record schema version 9 is newer than this Arbiter reads (1)"),
    (lambda d: d["log"].pop(0), "log.0.seq", "records are numbered 1, 2, 3..."),
])
def test_a_broken_campaign_log_is_refused_naming_the_field(
        tmp_path: Path, change: Any, field: str, message: str) -> None:
    source = GameService(EventStore.open(tmp_path / "a.db"))
    cid = campaign(source)
    roster(source, cid, "character_add", **NIA)
    roster(source, cid, "creature_save", id="ghoul", health=5)
    source.roster_undo(cid)
    document = copy.deepcopy(source.export_campaign(cid))
    change(document)
    target = GameService(EventStore.open(tmp_path / "b.db"))
    with pytest.raises(ExportFormatError) as caught:
        target.import_campaign(document)
    assert caught.value.field == field
    assert message in str(caught.value)
    assert target.store.campaigns() == []
    source.store.close()
    target.store.close()
