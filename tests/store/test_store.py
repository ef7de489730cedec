"""The event store on SQLite and PostgreSQL: the same tests against both back ends."""

from __future__ import annotations

import functools
import json
import threading
import time
from typing import Any

import pytest

from arbiter.core import Command, Encounter, EncounterState, load_ruleset
from arbiter.dice import SeededDice
from arbiter.store import (
    Conflict,
    EventStore,
    ExportFormatError,
    GameService,
    LogRecord,
    NotFound,
    NothingToUndo,
)
from arbiter.store.codec import decode_state, encode_state
from arbiter.store.errors import StoreError
from arbiter.store.migrations import MIGRATIONS, Migration, migrate, schema_version
from arbiter.store.replay import apply_entries, effective_entries

DEMO = load_ruleset("demo")
HERO = {"health": 1000, "attack": 4, "defense": 13, "side": "heroes"}


def table(service: GameService) -> tuple[str, str]:
    campaign, _ = service.create_campaign("Campaign", "demo")
    encounter = service.create_encounter(campaign.id, "Fight")
    return campaign.id, encounter.id


def add(service: GameService, eid: str, who: str, **spec: Any) -> None:
    service.submit(eid, Command("add", args={"id": who, **(spec or HERO)}))


def replayed(store: EventStore, eid: str) -> EncounterState:
    """The state from the whole log, without snapshots or caches."""
    state = EncounterState(ruleset="")
    apply_entries(DEMO, state, effective_entries(store.records(eid)))
    return state


def test_fresh_store_runs_every_migration(store: EventStore) -> None:
    assert schema_version(store.backend) == max(m.version for m in MIGRATIONS)
    assert migrate(store.backend) == []  # running again changes nothing


def test_missing_migrations_run_and_newer_database_is_refused(store: EventStore) -> None:
    extra = Migration(99, "a column added later", ("ALTER TABLE campaigns ADD COLUMN notes TEXT",))
    assert migrate(store.backend, [*MIGRATIONS, extra]) == [99]
    with pytest.raises(StoreError, match="newer than this Arbiter"):
        migrate(store.backend)


def test_campaign_tokens_are_stored_as_digests_and_compared(store: EventStore) -> None:
    service = GameService(store)
    campaign, gm = service.create_campaign("C", "demo", {"DEMO-1": "max-damage"})
    player = service.issue_token(campaign.id, "player", "Ann", ["nia"])
    assert gm not in json.dumps(service.export_campaign(campaign.id))
    principal = service.authenticate(campaign.id, player)
    assert principal is not None and principal.characters == {"nia"} and not principal.is_gm
    gm_principal = service.authenticate(campaign.id, gm)
    assert gm_principal is not None and gm_principal.is_gm
    assert service.authenticate(campaign.id, gm + "x") is None
    assert store.campaign(campaign.id).rulings == {"DEMO-1": "max-damage"}
    with pytest.raises(NotFound):
        store.campaign("c-nope")


def test_restart_keeps_everything(store_url: str) -> None:
    store = EventStore.open(store_url)
    service = GameService(store)
    _, eid = table(service)
    add(service, eid, "nia")
    service.submit(eid, Command("damage", args={"target": "nia", "amount": 7}))
    store.close()
    again = GameService(EventStore.open(store_url))
    state = again.read(eid, lambda loaded: loaded.state)
    assert state.entity("nia").health == 993  # type: ignore[attr-defined]
    assert [r.seq for r in again.records(eid)] == [1, 2, 3]
    again.store.close()


def test_stale_append_is_refused(store: EventStore) -> None:
    service = GameService(store)
    _, eid = table(service)
    record = LogRecord(2, "entry", {"command": {"do": "note", "text": "x"},
                                    "events": [{"type": "noted", "v": 1,
                                                "data": {"text": "x"}}], "dice": []})
    assert store.append(eid, 1, [record]) == 2
    with pytest.raises(Conflict) as caught:
        store.append(eid, 1, [record])
    assert caught.value.actual == 2
    with pytest.raises(Conflict):
        service.submit(eid, Command("note", args={"text": "y"}), expected_version=1)


def test_concurrent_clients_lose_no_update(store_url: str) -> None:
    """Two services on one database (as two server processes), four threads each."""
    stores = [EventStore.open(store_url), EventStore.open(store_url)]
    services = [GameService(s) for s in stores]
    _, eid = table(services[0])
    add(services[0], eid, "nia")
    per_thread = 15
    errors: list[BaseException] = []

    def hit(service: GameService) -> None:
        try:
            for _ in range(per_thread):
                service.submit(eid, Command("damage", args={"target": "nia", "amount": 1}))
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=hit, args=(services[i % 2],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    fresh = GameService(stores[0])
    health = fresh.read(eid, lambda loaded: loaded.state.entity("nia").health)  # type: ignore[attr-defined]
    assert health == 1000 - 8 * per_thread
    records = stores[0].records(eid)
    assert [r.seq for r in records] == list(range(1, 3 + 8 * per_thread))
    # each decision saw the previous one: health goes down by exactly one each time
    healths = [r.payload["events"][0]["data"]["health"] for r in records[2:]]
    assert healths == list(range(999, 999 - 8 * per_thread, -1))
    for s in stores:
        s.close()


def test_undo_and_redo_are_records_and_replay(store: EventStore) -> None:
    service = GameService(store, snapshot_every=3)
    _, eid = table(service)
    add(service, eid, "nia")
    for amount in (1, 2, 3, 4, 5):
        service.submit(eid, Command("damage", args={"target": "nia", "amount": amount}))

    def health() -> int:
        return service.read(eid, lambda ld: ld.state.entity("nia").health)  # type: ignore[no-any-return, attr-defined]

    assert health() == 985
    _, undo = service.undo(eid)
    assert (undo.kind, undo.target) == ("undo", 7)
    service.undo(eid)
    assert health() == 994
    _, redo = service.redo(eid)
    assert (redo.kind, redo.target) == ("redo", 6)
    assert health() == 990
    assert replayed(store, eid).entity("nia").health == 990  # type: ignore[attr-defined]
    service.submit(eid, Command("damage", args={"target": "nia", "amount": 100}))
    with pytest.raises(NothingToUndo):
        service.redo(eid)  # a new command clears what can be redone
    for _ in range(6):
        service.undo(eid)
    with pytest.raises(NothingToUndo):
        service.undo(eid)  # the encounter's creation stays
    assert not replayed(store, eid).entities
    cold = GameService(store)
    assert not cold.read(eid, lambda ld: ld.state.entities)
    kinds = [r.kind for r in store.records(eid)]
    assert kinds.count("undo") == 8 and kinds.count("redo") == 1 and len(kinds) == 17


def test_snapshots_match_replay_and_old_ones_are_ignored(store: EventStore) -> None:
    service = GameService(store, snapshot_every=5)
    _, eid = table(service)
    add(service, eid, "nia")
    add(service, eid, "orc", template="guard", side="beasts")
    service.submit(eid, Command("start"), dice=[10, 5])
    for i in range(12):
        service.submit(eid, Command("next"))
        service.submit(eid, Command("condition", args={"target": "orc", "name": f"c{i % 3}",
                                                       "rounds": 2}))
    live = service.read(eid, lambda ld: ld.state)
    assert decode_state(encode_state(live)) == live
    cold = GameService(store).read(eid, lambda ld: ld.state)
    assert cold == live == replayed(store, eid)
    # a snapshot from another Arbiter version is not trusted: the log is replayed instead
    with store.backend.transaction() as tx:
        tx.run("UPDATE snapshots SET meta = ?", (json.dumps({"arbiter": "0.0.0"}),))
    assert GameService(store).read(eid, lambda ld: ld.state) == live


def test_export_import_round_trip_is_exact(store_url: str, tmp_path: Any) -> None:
    source = GameService(EventStore.open(store_url))
    cid, eid = table(source)
    add(source, eid, "nia")
    source.submit(eid, Command("damage", args={"target": "nia", "amount": 3}))
    source.undo(eid)
    source.issue_token(cid, "player", "Ann", ["nia"])
    document = source.export_campaign(cid)
    text = json.dumps(document)
    target = GameService(EventStore.open(str(tmp_path / "copy.db")))
    target.import_campaign(json.loads(text))
    assert json.dumps(target.export_campaign(cid)) == text
    with pytest.raises(StoreError, match="already exists"):
        target.import_campaign(json.loads(text))
    assert target.read(eid, lambda ld: ld.state) == source.read(eid, lambda ld: ld.state)
    source.store.close()
    target.store.close()


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d.update(v=99), "v"),
    (lambda d: d.update(format="zip"), "format"),
    (lambda d: d["encounters"][0]["log"].pop(1), "encounters.0.log.1.seq"),
    (lambda d: d["encounters"][0]["log"][1]["payload"]["events"][0].update(type="nope"),
     "encounters.0.log.1.payload.events.0.type"),
    (lambda d: d["campaign"].update(id="../x"), "campaign.id"),
])
def test_import_refuses_a_broken_file_naming_the_field(
    change: Any, field: str, tmp_path: Any
) -> None:
    service = GameService(EventStore.open(str(tmp_path / "a.db")))
    cid, eid = table(service)
    add(service, eid, "nia")
    add(service, eid, "orc")
    document = service.export_campaign(cid)
    service.store.close()
    change(document)
    other = GameService(EventStore.open(str(tmp_path / "b.db")))
    with pytest.raises(ExportFormatError) as caught:
        other.import_campaign(document)
    assert caught.value.field == field
    assert other.store.campaigns() == []
    other.store.close()


@functools.cache
def long_fight() -> Encounter:
    """Three creatures passing turns until the log holds 10,000 events (built once), created
    as the service creates an encounter (with ``reveal_on_turn``)."""
    encounter = Encounter.create(DEMO, reveal_on_turn=True)
    dice = SeededDice(3)
    for who in ("nia", "bram", "orc"):
        encounter.execute({"do": "add", "id": who, **HERO}, dice)
    encounter.execute({"do": "start"}, dice)
    while sum(len(e.events) for e in encounter.log) < 10_000:
        encounter.execute({"do": "next"}, dice)
    return encounter


def test_ten_thousand_events_load_well_under_100_ms(store: EventStore) -> None:
    """Bulk-write a long fight, snapshot it, and time a cold load."""
    service = GameService(store)
    _, eid = table(service)
    encounter = long_fight()
    events = sum(len(e.events) for e in encounter.log)
    records = [LogRecord(e.seq, "entry", {k: v for k, v in e.to_json().items() if k != "seq"},
                         author="gm") for e in encounter.log[1:]]
    version = 1
    for start in range(0, len(records), 1000):
        version = store.append(eid, version, records[start:start + 1000])
    service.snapshot(eid)
    timings = []
    for _ in range(3):
        cold = GameService(store)
        started = time.perf_counter()
        state = cold.read(eid, lambda ld: ld.state)
        timings.append(time.perf_counter() - started)
    assert state == encounter.state
    full = time.perf_counter()
    assert replayed(store, eid) == encounter.state
    full = time.perf_counter() - full
    best = min(timings)
    print(f"\n{store.kind}: {events} events; cold load with snapshot {best * 1000:.1f} ms, "
          f"full replay {full * 1000:.1f} ms")
    assert best < 0.1


def test_racing_appends_one_wins_the_others_conflict(store: EventStore) -> None:
    """Appends racing for the same version (sharing one commit on SQLite): exactly one is
    stored, every other one is refused, and appends to other encounters are unharmed."""
    service = GameService(store)
    cid, eid = table(service)
    others = [service.create_encounter(cid, f"other {i}").id for i in range(4)]
    note = {"command": {"do": "note", "text": "x"},
            "events": [{"type": "noted", "v": 1, "data": {"text": "x"}}], "dice": []}
    outcomes: list[str] = []
    barrier = threading.Barrier(12)

    def race(target: str) -> None:
        barrier.wait()
        try:
            store.append(target, 1, [LogRecord(2, "entry", note, author="gm")])
            outcomes.append(f"{target} stored")
        except Conflict:
            outcomes.append(f"{target} conflict")

    threads = [threading.Thread(target=race, args=(eid,)) for _ in range(8)]
    threads += [threading.Thread(target=race, args=(o,)) for o in others]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert outcomes.count(f"{eid} stored") == 1
    assert outcomes.count(f"{eid} conflict") == 7
    assert all(f"{o} stored" in outcomes for o in others)
    assert [r.seq for r in store.records(eid)] == [1, 2]
    assert all(store.version(o) == 2 for o in others)


def test_images_are_kept_once_by_hash_within_the_campaign_limit(store: EventStore) -> None:
    """Scene images in both stores (SQLite BLOB, PostgreSQL bytea): bytes back exactly,
    one row per content hash, and the campaign's total bounded."""
    import io

    from PIL import Image

    from arbiter.store.errors import TooMuch
    from arbiter.store.images import clean_image

    campaign = store.create_campaign("c-img", "Pictures", "demo", {})
    out = io.BytesIO()
    Image.new("RGB", (40, 20), (1, 2, 3)).save(out, "PNG")
    image = clean_image(out.getvalue() + b"\0\xff trailing")
    assert store.put_image(campaign.id, image, 10_000) is True
    assert store.put_image(campaign.id, image, 10_000) is False  # kept once
    back = store.image(campaign.id, image.hash)
    assert back == image and isinstance(back.data, bytes)
    assert store.image("c-other", image.hash) is None
    assert clean_image(out.getvalue()).hash == image.hash  # the same pixels, trailer gone
    bigger = io.BytesIO()
    Image.new("RGB", (400, 400), (9, 9, 9)).save(bigger, "JPEG")
    with pytest.raises(TooMuch, match=f"at most {len(image.data) + 10} together"):
        store.put_image(campaign.id, clean_image(bigger.getvalue()), len(image.data) + 10)
    assert [i.hash for i in store.images(campaign.id)] == [image.hash]
