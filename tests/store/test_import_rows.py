"""Writing an imported campaign on SQLite and PostgreSQL: an id taken between the check and
the write (another import at the same moment) refuses the whole campaign cleanly, never
with the database's key error, and leaves what was stored untouched."""

from __future__ import annotations

import copy
import json
import threading
from typing import Any

import pytest

from arbiter.core import Command
from arbiter.store import AlreadyExists, EventStore, ExportFormatError, GameService

TABLES = ("campaigns", "tokens", "encounters", "log", "snapshots")


def rows(store: EventStore) -> dict[str, int]:
    with store.backend.read() as tx:
        return {t: int(tx.rows(f"SELECT COUNT(*) FROM {t}")[0][0]) for t in TABLES}


def exported(tmp_path: Any) -> dict[str, Any]:
    store = EventStore.open(str(tmp_path / "source.db"))
    service = GameService(store)
    campaign, _ = service.create_campaign("Keep", "demo")
    eid = service.create_encounter(campaign.id, "Gate").id
    service.submit(eid, Command("add", args={"id": "nia", "health": 9, "attack": 1,
                                             "defense": 10, "side": "heroes"}))
    document = service.export_campaign(campaign.id)
    store.close()
    return document


def skip_the_checks(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """As if another import wrote the same ids just after this one looked."""
    monkeypatch.setattr(store, "has_campaign", lambda cid: False)
    monkeypatch.setattr(store, "taken_encounter_ids", lambda ids: set())


def test_a_campaign_written_meanwhile_refuses_the_import(
    store: EventStore, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = exported(tmp_path)
    service = GameService(store)
    service.import_campaign(copy.deepcopy(document))
    before = rows(store)
    skip_the_checks(store, monkeypatch)
    with pytest.raises(AlreadyExists) as caught:
        service.import_campaign(document)
    assert caught.value.field == "campaign.id"
    assert rows(store) == before


def test_an_encounter_written_meanwhile_refuses_the_whole_campaign(
    store: EventStore, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = exported(tmp_path)
    service = GameService(store)
    service.import_campaign(copy.deepcopy(document))
    before = rows(store)
    original = document["campaign"]["id"]
    document["campaign"]["id"] = "c-second"
    skip_the_checks(store, monkeypatch)
    with pytest.raises(ExportFormatError) as caught:
        service.import_campaign(document)
    eid = document["encounters"][0]["id"]
    assert caught.value.field == "encounters.0.id"
    assert str(caught.value) == (f"encounters.0.id: an encounter {eid!r} already exists in "
                                 "this store; an import never replaces one")
    assert rows(store) == before  # the campaign and tokens written first were rolled back
    assert [c.id for c in store.campaigns()] == [original]


def test_racing_imports_of_one_campaign_store_it_once(
    store: EventStore, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six threads import the same file at once, all past the checks: one stores it, the
    others are refused with AlreadyExists (not the database's unique-key error)."""
    document = exported(tmp_path)
    text = json.dumps(document)
    service = GameService(store)
    skip_the_checks(store, monkeypatch)
    barrier = threading.Barrier(6)
    outcomes: list[str] = []

    def race() -> None:
        barrier.wait()
        try:
            service.import_campaign(json.loads(text))
            outcomes.append("stored")
        except AlreadyExists:
            outcomes.append("refused")
        except Exception as err:  # the test reports any other failure
            outcomes.append(f"{type(err).__name__}: {err}")

    threads = [threading.Thread(target=race) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes) == ["refused"] * 5 + ["stored"]
    assert json.dumps(service.export_campaign(document["campaign"]["id"])) == text
