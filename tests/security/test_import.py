"""Hostile campaign files given to ``GameService.import_campaign`` (what ``POST
/api/campaigns/import`` calls): each is refused whole, before anything is written, with an
:class:`ExportFormatError` naming the first bad place by its path in the document, and the
store keeps no trace of it.

The cases are those a tester found (issue: hostile input): a record of schema version 99
accepted and then answering 409 for good, a log with no ``create`` or no records at all
leaving a dead encounter, duplicate token digests and ``1e400`` (infinity to Python's
``json``) answering 500; and the rest of what a campaign file must be.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arbiter.core import Command, EncounterState, Ruleset
from arbiter.core import events as core_events
from arbiter.limits import IMPORT_RECORDS
from arbiter.rulesets.demo.rules import DemoCreature
from arbiter.store import (
    AlreadyExists,
    EventStore,
    ExportFormatError,
    GameService,
    StoreError,
    importing,
)

Doc = dict[str, Any]
TABLES = ("campaigns", "tokens", "encounters", "log", "snapshots", "campaign_log")
HERO = {"health": 30, "attack": 4, "defense": 13, "side": "heroes"}


def add(service: GameService, eid: str, who: str) -> None:
    service.submit(eid, Command("add", args={"id": who, **HERO}))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Doc:
    """A demo campaign with a player, and two encounters. The first's log:

    1 create, 2 add nia, 3 add orc, 4 damage nia 5, 5 undo 4 (so 4 could be redone).
    The second's: 1 create, 2 add bram."""
    store = EventStore.open(tmp_path_factory.mktemp("source") / "source.db")
    service = GameService(store)
    campaign, _ = service.create_campaign("Keep", "demo")
    service.issue_token(campaign.id, "player", "Ann", ["nia"])
    first = service.create_encounter(campaign.id, "Gate").id
    add(service, first, "nia")
    add(service, first, "orc")
    service.submit(first, Command("damage", args={"target": "nia", "amount": 5}))
    service.undo(first)
    second = service.create_encounter(campaign.id, "Hall").id
    add(service, second, "bram")
    document = service.export_campaign(campaign.id)
    store.close()
    return document


@pytest.fixture
def doc(exported: Doc) -> Doc:
    """A fresh copy of the exported campaign, to break."""
    return copy.deepcopy(exported)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[GameService]:
    """The service of an empty SQLite store, where the file is imported."""
    store = EventStore.open(tmp_path / "target.db")
    try:
        yield GameService(store)
    finally:
        store.close()


def rows(store: EventStore) -> dict[str, int]:
    """How many rows each table holds."""
    with store.backend.read() as tx:
        return {t: int(tx.rows(f"SELECT COUNT(*) FROM {t}")[0][0]) for t in TABLES}


def refused(service: GameService, document: Any, field: str | None, message: str) -> None:
    """The import is refused naming ``field`` with ``message``, and the (empty) store holds
    nothing afterwards: no campaign, token, encounter, record or snapshot."""
    with pytest.raises(ExportFormatError) as caught:
        service.import_campaign(document)
    assert caught.value.field == field
    assert str(caught.value) == (f"{field}: {message}" if field else message)
    assert rows(service.store) == dict.fromkeys(TABLES, 0)


def log(document: Doc, encounter: int = 0) -> list[Doc]:
    records: list[Doc] = document["encounters"][encounter]["log"]
    return records


def set_log(document: Doc, records: list[Doc], encounter: int = 0) -> None:
    """Replace an encounter's log (renumbered 1, 2, 3..., its version kept in step)."""
    for i, record in enumerate(records):
        record["seq"] = i + 1
    document["encounters"][encounter]["log"] = records
    document["encounters"][encounter]["version"] = len(records)


def note(text: str) -> Doc:
    return {"seq": 0, "kind": "entry", "v": 1, "author": "gm", "created_at": "2026-01-01",
            "payload": {"command": {"do": "note", "text": text},
                        "events": [{"type": "noted", "v": 1, "data": {"text": text}}],
                        "dice": []}}


# -- the valid file ------------------------------------------------------------------------
def test_the_exported_file_imports_and_plays(service: GameService, doc: Doc) -> None:
    text = json.dumps(doc)
    record = service.import_campaign(json.loads(text))
    assert json.dumps(service.export_campaign(record.id)) == text
    first = doc["encounters"][0]["id"]
    service.redo(first)  # the undone damage is put back, as recorded
    nia = service.read(first, lambda ld: ld.state.entity_of("nia", DemoCreature))
    assert nia.health == 25


# -- schema versions -----------------------------------------------------------------------
@pytest.mark.parametrize(("v", "message"), [
    (99, "log record schema version 99 is newer than this Arbiter reads (1)"),
    (2, "log record schema version 2 is newer than this Arbiter reads (1)"),
    (0, "must be the record's schema version (a whole number from 1)"),
    ("1", "must be the record's schema version (a whole number from 1)"),
    (True, "must be the record's schema version (a whole number from 1)"),
    (1.5, "must be the record's schema version (a whole number from 1)"),
    (None, "must be the record's schema version (a whole number from 1)"),
])
def test_a_record_of_an_unknown_schema_version_is_refused(
    service: GameService, doc: Doc, v: Any, message: str
) -> None:
    """The tester's file: ``"v": 99`` was stored, then the encounter's state, log and the
    campaign's export answered 409 for good."""
    log(doc)[3]["v"] = v
    refused(service, doc, "encounters.0.log.3.v", message)


def test_a_marker_of_an_unknown_schema_version_is_refused(service: GameService,
                                                          doc: Doc) -> None:
    assert log(doc)[4]["kind"] == "undo"
    log(doc)[4]["v"] = 99
    refused(service, doc, "encounters.0.log.4.v",
            "log record schema version 99 is newer than this Arbiter reads (1)")


def test_the_first_bad_record_is_named(service: GameService, doc: Doc) -> None:
    log(doc, 1)[1]["v"] = 7
    log(doc, 0)[2]["v"] = 9
    refused(service, doc, "encounters.0.log.2.v",
            "log record schema version 9 is newer than this Arbiter reads (1)")


@pytest.mark.parametrize(("v", "message"), [
    (99, "event schema version 99 is newer than this Arbiter reads (1)"),
    (0, "must be the event's schema version (a whole number from 1)"),
    ("1", "must be the event's schema version (a whole number from 1)"),
])
def test_an_event_of_an_unknown_schema_version_is_refused(
    service: GameService, doc: Doc, v: Any, message: str
) -> None:
    log(doc)[1]["payload"]["events"][0]["v"] = v
    refused(service, doc, "encounters.0.log.1.payload.events.0.v", message)


def test_an_event_without_its_version_is_refused(service: GameService, doc: Doc) -> None:
    del log(doc)[2]["payload"]["events"][0]["v"]
    refused(service, doc, "encounters.0.log.2.payload.events.0.v",
            "must be the event's schema version (a whole number from 1)")


def test_an_event_in_an_undone_entry_is_checked_too(service: GameService, doc: Doc) -> None:
    """Record 4 is undone (not replayed now), but a redo would bring it back."""
    log(doc)[3]["payload"]["events"][0]["v"] = 99
    refused(service, doc, "encounters.0.log.3.payload.events.0.v",
            "event schema version 99 is newer than this Arbiter reads (1)")


def test_an_older_event_version_is_read_only_through_an_upcaster(
    service: GameService, doc: Doc, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As if this Arbiter read events of schema version 2: a version-1 event without an
    upcaster is refused; with one, the file imports and plays."""
    monkeypatch.setattr(core_events, "EVENT_SCHEMA", 2)
    refused(service, copy.deepcopy(doc), "encounters.0.log.0.payload.events.0.v",
            "no upcaster for event 'encounter_created' from version 1")
    monkeypatch.setitem(core_events._UPCASTERS, ("*", 1), lambda data: data)
    record = service.import_campaign(doc)
    assert service.store.campaign(record.id).name == "Keep"
    eid = doc["encounters"][0]["id"]
    assert sorted(service.read(eid, lambda ld: ld.state.entities)) == ["nia", "orc"]


# -- the create command --------------------------------------------------------------------
def test_an_empty_log_is_refused(service: GameService, doc: Doc) -> None:
    set_log(doc, [], 1)
    refused(service, doc, "encounters.1.log",
            "a log starts with the 'create' command; an empty log is no encounter")


def test_a_log_without_its_create_record_is_refused(service: GameService, doc: Doc) -> None:
    """The tester's file: records renumbered after the create entry was taken out."""
    set_log(doc, log(doc)[1:])
    refused(service, doc, "encounters.0.log.0.payload.command.do",
            "a log starts with the 'create' command, which creates the encounter")


def test_a_log_starting_with_a_note_is_refused(service: GameService, doc: Doc) -> None:
    set_log(doc, [note("hello"), *log(doc, 1)], 1)
    refused(service, doc, "encounters.1.log.0.payload.command.do",
            "a log starts with the 'create' command, which creates the encounter")


def test_a_log_starting_with_a_marker_is_refused(service: GameService, doc: Doc) -> None:
    set_log(doc, log(doc)[4:])
    refused(service, doc, "encounters.0.log.0.kind",
            "a log starts with the 'create' command, which creates the encounter; this is "
            "an undo record")


def test_a_second_create_is_refused(service: GameService, doc: Doc) -> None:
    set_log(doc, [*log(doc, 1), copy.deepcopy(log(doc, 1)[0])], 1)
    refused(service, doc, "encounters.1.log.2.payload.command.do",
            "only the first record of a log creates the encounter")


def test_undoing_the_create_record_is_refused(service: GameService, doc: Doc) -> None:
    first = log(doc, 1)[0]
    undo = {"seq": 2, "kind": "undo", "v": 1, "target": 1, "author": "gm",
            "created_at": first["created_at"]}
    set_log(doc, [first, undo], 1)
    refused(service, doc, "encounters.1.log.1.target",
            "the first record creates the encounter and cannot be undone")


@pytest.mark.parametrize(("events", "left"), [([], "''"), (None, "'zones'")])
def test_a_create_record_that_creates_nothing_or_another_ruleset_is_refused(
    service: GameService, doc: Doc, events: Any, left: str
) -> None:
    created = log(doc)[0]["payload"]["events"]
    if events is None:
        created[0]["data"]["ruleset"] = "zones"
    else:
        log(doc)[0]["payload"]["events"] = events
    refused(service, doc, "encounters.0.log.0.payload.events",
            "the first record must create a 'demo' encounter, the campaign's ruleset (it "
            f"leaves the encounter's ruleset {left})")


# -- the log replays -----------------------------------------------------------------------
def test_a_gap_in_the_numbering_is_refused(service: GameService, doc: Doc) -> None:
    del log(doc)[2]
    refused(service, doc, "encounters.0.log.2.seq",
            "records are numbered 1, 2, 3... without gaps: this one must be 3")


def test_an_unknown_event_is_refused_where_it_is(service: GameService, doc: Doc) -> None:
    log(doc)[2]["payload"]["events"][0]["type"] = "nope"
    refused(service, doc, "encounters.0.log.2.payload.events.0.type",
            "demo has no event 'nope'")


@pytest.mark.parametrize(("change", "problem"), [
    (lambda d: d.update(health="lots"), "health: expected int | null, got str"),
    (lambda d: d.update(bogus=1), "'bogus' is not a field of 'damaged'"),
    (lambda d: d.pop("target"), "'target' is missing"),
    (lambda d: d.update(pipeline=[1, 2]), "pipeline: expected object | null, got array"),
])
def test_an_event_not_as_declared_is_refused_before_it_applies(
    service: GameService, doc: Doc, change: Callable[[Doc], object], problem: str
) -> None:
    """Each payload is checked against the type its @event declaration makes
    (core/payloads.py): a field it lacks, one it does not declare, a value of the wrong
    type. Record 4 is the demo's ``damaged`` event."""
    event = log(doc)[3]["payload"]["events"][0]
    assert event["type"] == "damaged"
    change(event["data"])
    refused(service, doc, "encounters.0.log.3.payload.events.0.data",
            f"event 'damaged' is not as declared: {problem}")


def test_an_entry_that_a_redo_would_bring_back_must_replay(service: GameService,
                                                           doc: Doc) -> None:
    """Record 4 (damage to nia) is undone: the file replays without it, but the redo
    stack holds it, so it must apply after the entries in effect."""
    log(doc)[3]["payload"]["events"][0]["data"]["target"] = "ghost"
    with pytest.raises(ExportFormatError) as caught:
        service.import_campaign(doc)
    assert caught.value.field == "encounters.0.log.3.payload.events.0"
    assert "the log does not replay: event 'damaged' cannot be applied" in str(caught.value)
    assert rows(service.store) == dict.fromkeys(TABLES, 0)


def test_an_undo_of_an_entry_not_the_latest_is_refused(service: GameService,
                                                       doc: Doc) -> None:
    log(doc)[4]["target"] = 2
    refused(service, doc, "encounters.0.log.4.target",
            "an undo withdraws the latest entry in effect (4), not record 2")


@pytest.mark.parametrize("target", [0, 5, 9, "4", None])
def test_a_marker_target_out_of_the_log_is_refused(service: GameService, doc: Doc,
                                                   target: Any) -> None:
    log(doc)[4]["target"] = target
    refused(service, doc, "encounters.0.log.4.target",
            "an undo record names the earlier entry it undoes (a record number from 1 to 4)")


def test_a_redo_of_nothing_undone_is_refused(service: GameService, doc: Doc) -> None:
    redo = {"seq": 3, "kind": "redo", "v": 1, "target": 2, "author": "gm",
            "created_at": "2026-01-01"}
    set_log(doc, [*log(doc, 1), redo], 1)
    refused(service, doc, "encounters.1.log.2.target",
            "a redo puts back the entry undone last (none is undone here), not record 2")


@pytest.mark.parametrize(("field", "value", "message"), [
    ("kind", "delete", "a record's kind is 'entry', 'undo' or 'redo'"),
    ("author", 7, "must be text, not a number"),
    ("created_at", None, "must be text, not null"),
    ("target", 1, "an entry has no target (only undo and redo do)"),
    ("payload", [], "an entry's payload is an object with command, events and dice"),
])
def test_a_malformed_record_is_refused(service: GameService, doc: Doc, field: str,
                                       value: Any, message: str) -> None:
    log(doc)[1][field] = value
    refused(service, doc, f"encounters.0.log.1.{field}", message)


def test_malformed_dice_are_refused(service: GameService, doc: Doc) -> None:
    log(doc)[1]["payload"]["dice"] = [[20, 3], [20, "4"]]
    refused(service, doc, "encounters.0.log.1.payload.dice.1",
            "a die is a [faces, value] pair of whole numbers")


@pytest.mark.parametrize(("payload", "field", "message"), [
    ({"typed": 3}, "typed", "how many of the dice were typed at the table: a whole number "
                            "from 0 to the number of dice"),
    ({"typed": "2"}, "typed", "how many of the dice were typed at the table: a whole number "
                              "from 0 to the number of dice"),
    ({"shown": "<b>"}, "shown", "an entry's payload has command, events, dice and typed "
                                "only, not 'shown'"),
])
def test_an_entry_payload_play_never_writes_is_refused(
        service: GameService, doc: Doc, payload: Doc, field: str, message: str) -> None:
    log(doc)[1]["payload"].update({"dice": [[20, 3], [20, 4]], **payload})
    refused(service, doc, f"encounters.0.log.1.payload.{field}", message)


def test_dice_typed_at_the_table_come_in_whole(service: GameService, doc: Doc) -> None:
    log(doc)[3]["payload"].update({"typed": 0})
    service.import_campaign(doc)


def test_an_encounter_version_out_of_step_with_its_log_is_refused(service: GameService,
                                                                  doc: Doc) -> None:
    doc["encounters"][0]["version"] = 99
    refused(service, doc, "encounters.0.version", "must be the number of the last log "
            "record (5)")


# -- tokens --------------------------------------------------------------------------------
def test_a_duplicate_token_digest_is_refused(service: GameService, doc: Doc) -> None:
    """The tester's file: the same digest twice answered 500 (the table's key)."""
    doc["tokens"].append({**doc["tokens"][1], "name": "Bob"})
    refused(service, doc, "tokens.2.digest",
            "this token digest appears twice (first as tokens.1.digest)")


@pytest.mark.parametrize("digest", [
    "ABC", "0" * 63, "0" * 65, "G" * 64, "A" * 64, 12, None, "0" * 63 + "\n",
])
def test_a_malformed_token_digest_is_refused(service: GameService, doc: Doc,
                                             digest: Any) -> None:
    doc["tokens"][0]["digest"] = digest
    refused(service, doc, "tokens.0.digest",
            "a token digest is a SHA-256 in 64 lowercase hexadecimal digits")


@pytest.mark.parametrize(("field", "value", "message"), [
    ("role", "admin", "a token's role is 'gm' or 'player'"),
    ("characters", ["nia", 3], "must be a list of character ids (text)"),
    ("name", "A\x00nn", "text must not hold the NUL character"),
])
def test_a_malformed_token_is_refused(service: GameService, doc: Doc, field: str,
                                      value: Any, message: str) -> None:
    doc["tokens"][1][field] = value
    refused(service, doc, f"tokens.1.{field}", message)


# -- numbers and text ----------------------------------------------------------------------
@pytest.mark.parametrize("number", ["1e400", "-1e400", "NaN", "Infinity"])
def test_a_number_that_is_not_finite_is_refused_wherever_it_is(
    service: GameService, doc: Doc, number: str
) -> None:
    """The tester's file: ``1e400`` reads as infinity and answered 500 when stored."""
    text = json.dumps(doc).replace('"amount": 5', f'"amount": {number}', 1)
    assert text != json.dumps(doc)
    document = json.loads(text)
    value = log(document)[3]["payload"]["command"]["amount"]
    refused(service, document, "encounters.0.log.3.payload.command.amount",
            f"numbers must be finite, not {value!r} (a number too large for a 64-bit "
            "float, such as 1e400, reads as infinity)")


@pytest.mark.parametrize(("place", "field"), [
    (lambda d: d.update(extra=float("inf")), "extra"),
    (lambda d: d["campaign"]["rulings"].update({"DEMO-1": float("nan")}),
     "campaign.rulings.DEMO-1"),
    (lambda d: d["tokens"][0].update(created_at=float("inf")), "tokens.0.created_at"),
    (lambda d: log(d, 1)[1]["payload"]["events"][0]["data"]["spec"].update(
        health=float("-inf")), "encounters.1.log.1.payload.events.0.data.spec.health"),
])
def test_no_infinity_or_nan_anywhere(service: GameService, doc: Doc,
                                     place: Callable[[Doc], None], field: str) -> None:
    place(doc)
    with pytest.raises(ExportFormatError, match="numbers must be finite") as caught:
        service.import_campaign(doc)
    assert caught.value.field == field
    assert rows(service.store) == dict.fromkeys(TABLES, 0)


def test_text_that_is_not_unicode_is_refused(service: GameService, doc: Doc) -> None:
    document = json.loads(json.dumps(doc).replace('"Ann"', '"\\ud800"', 1))
    refused(service, document, "tokens.1.name",
            "text must be valid Unicode (it holds a lone surrogate)")


def test_nul_in_a_stored_name_is_refused(service: GameService, doc: Doc) -> None:
    doc["campaign"]["name"] = "Keep\x00"
    refused(service, doc, "campaign.name", "text must not hold the NUL character")


# -- the number of records -----------------------------------------------------------------
def test_more_records_than_the_limit_are_refused_before_any_is_read(
    service: GameService, doc: Doc, monkeypatch: pytest.MonkeyPatch
) -> None:
    """IMPORT_RECORDS + 1 records in all (the same record many times: the count comes
    first, so nothing else is looked at; reading or replaying a record would fail here)."""
    def never(*_: Any) -> Any:
        raise AssertionError("the file was read past its record count")

    monkeypatch.setattr(importing, "_scan", never)
    monkeypatch.setattr(importing, "_record", never)
    monkeypatch.setattr(Ruleset, "evolve", never)
    before = len(log(doc)) + len(log(doc, 1))
    doc["encounters"].append({"id": "e-many", "name": "Many", "created_at": "2026-01-01",
                              "log": [note("x")] * (IMPORT_RECORDS + 1 - before)})
    refused(service, doc, f"encounters.2.log.{IMPORT_RECORDS - before}",
            f"a campaign file holds at most {IMPORT_RECORDS:,} log records, all encounters "
            f"together; this one holds {IMPORT_RECORDS + 1:,}")


def test_the_record_limit_counts_every_encounter_together(
    service: GameService, doc: Doc, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the limit at 7: the file's 5 + 2 records import; one more is refused, named
    as the first record past the limit."""
    monkeypatch.setattr(importing, "IMPORT_RECORDS", 7)
    bigger = copy.deepcopy(doc)
    set_log(bigger, [*log(bigger, 1), note("one more")], 1)
    refused(service, bigger, "encounters.1.log.2",
            "a campaign file holds at most 7 log records, all encounters together; this "
            "one holds 8")
    record = service.import_campaign(doc)
    assert len(service.store.encounters(record.id)) == 2


# -- ids -----------------------------------------------------------------------------------
def test_an_encounter_id_twice_in_the_file_is_refused(service: GameService, doc: Doc) -> None:
    first = doc["encounters"][0]["id"]
    doc["encounters"][1]["id"] = first
    refused(service, doc, "encounters.1.id",
            f"the encounter id {first!r} appears twice (first as encounters.0.id)")


@pytest.mark.parametrize("bad", ["../x", "", "a" * 65, "e-1\n", 5])
def test_a_malformed_encounter_id_is_refused(service: GameService, doc: Doc, bad: Any) -> None:
    doc["encounters"][1]["id"] = bad
    refused(service, doc, "encounters.1.id", "ids are 1 to 64 letters, digits, '-' or '_'")


def test_an_encounter_id_already_in_the_store_is_refused(service: GameService,
                                                         doc: Doc) -> None:
    """Another campaign already holds the file's second encounter id: nothing of the file
    is stored, and the other campaign is untouched."""
    other = copy.deepcopy(doc)
    other["campaign"]["id"] = "c-other"
    other["encounters"] = other["encounters"][1:]
    service.import_campaign(other)
    before = rows(service.store)
    exported_before = json.dumps(service.export_campaign("c-other"))
    taken = doc["encounters"][1]["id"]
    with pytest.raises(ExportFormatError) as caught:
        service.import_campaign(doc)
    assert caught.value.field == "encounters.1.id"
    assert str(caught.value) == (
        f"encounters.1.id: an encounter {taken!r} already exists in this store (in another "
        "campaign); an import never replaces one")
    assert rows(service.store) == before
    assert json.dumps(service.export_campaign("c-other")) == exported_before


def test_a_campaign_already_in_the_store_is_refused_not_overwritten(
    service: GameService, doc: Doc
) -> None:
    """Importing the same campaign again (or another file under its id) changes nothing:
    a clear refusal (a StoreError, 409 over HTTP), never a 500 or an overwrite."""
    cid = doc["campaign"]["id"]
    service.import_campaign(copy.deepcopy(doc))
    before, exported_before = rows(service.store), json.dumps(service.export_campaign(cid))
    impostor = copy.deepcopy(doc)
    impostor["campaign"]["name"] = "Taken over"
    impostor["tokens"] = [{**impostor["tokens"][0], "digest": "f" * 64}]
    for document in (doc, impostor):
        with pytest.raises(AlreadyExists) as caught:
            service.import_campaign(document)
        assert isinstance(caught.value, StoreError)
        assert not isinstance(caught.value, ExportFormatError)
        assert str(caught.value) == (f"a campaign {cid!r} already exists in this store; an "
                                     "import never replaces one (campaign.id)")
        assert caught.value.field == "campaign.id"
    assert rows(service.store) == before
    assert json.dumps(service.export_campaign(cid)) == exported_before


# -- the envelope --------------------------------------------------------------------------
@pytest.mark.parametrize(("change", "field", "message"), [
    (lambda d: d.update(v=3), "v", "schema version 3 is newer than this Arbiter reads (2)"),
    (lambda d: d.update(v=True), "v", "must be a schema version (a whole number from 1)"),
    (lambda d: d.update(tokens={}), "tokens", "must be a list of tokens"),
    (lambda d: d["encounters"].append([]), "encounters.2",
     "an encounter is an object with id, name, created_at and log"),
    (lambda d: d["encounters"][1].update(log={}), "encounters.1.log",
     "must be a list of log records"),
    (lambda d: d["campaign"].update(ruleset="chess"), "campaign.ruleset",
     "unknown ruleset 'chess' (installed: demo, polemos, realms, zones)"),
    (lambda d: d["campaign"].update(rulings={"DEMO-1": "never"}), "campaign.rulings",
     "ruling DEMO-1 has no choice 'never' (choices: double-dice, max-damage)"),
    (lambda d: d["campaign"].update(rulings={"DEMO-1": 3}), "campaign.rulings",
     "must be an object of ruling ids and their chosen values (text)"),
])
def test_a_broken_envelope_is_refused(service: GameService, doc: Doc,
                                      change: Callable[[Doc], None], field: str,
                                      message: str) -> None:
    change(doc)
    refused(service, doc, field, message)


def test_a_python_value_that_is_not_json_is_refused(service: GameService, doc: Doc) -> None:
    log(doc)[1]["payload"]["events"][0]["data"]["spec"]["tags"] = {"a", "b"}
    refused(service, doc, "encounters.0.log.1.payload.events.0.data.spec.tags",
            "set is not a JSON value")


def test_python_values_too_deep_or_circular_are_refused(service: GameService,
                                                        doc: Doc) -> None:
    """Only a Python caller can pass these (HTTP bodies nest at most JSON_DEPTH deep)."""
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    deeper = copy.deepcopy(doc)
    log(deeper)[1]["payload"]["events"][0]["data"]["spec"]["deep"] = deep
    refused(service, deeper, None, "the file nests too deeply to be stored")
    log(doc)[1]["payload"]["events"][0]["data"]["spec"]["self"] = doc
    refused(service, doc, None,
            "a campaign file is a tree of JSON values; this one contains itself")


def test_the_state_after_import_equals_the_source(service: GameService, doc: Doc) -> None:
    """What a replay at import time checked is what the encounter loads as."""
    service.import_campaign(doc)
    eid = doc["encounters"][0]["id"]
    state = service.read(eid, lambda ld: ld.state)
    assert isinstance(state, EncounterState)
    assert state.ruleset == "demo" and sorted(state.entities) == ["nia", "orc"]
