"""The event store: campaigns, their tokens and encounters, an append-only log per encounter,
and snapshots of replayed state.

The log of an encounter is a sequence of records numbered from 1 without gaps. A record is
an ``entry`` (one decided command: the kernel's :class:`~arbiter.core.Entry` as JSON, with
its events and dice) or a marker: ``undo`` or ``redo`` with the ``target`` entry it undoes
or redoes. Records are never changed or deleted. The encounter's *version* is the number of
its last record; every append names the version it was decided on and is refused with
:class:`Conflict` when that is no longer the latest.

Snapshots are a cache of replayed state (see :mod:`arbiter.store.replay`); deleting every
snapshot never changes what an encounter loads as.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from ..core import Entry
from .backends import Backend, Tx, open_backend
from .errors import (
    AlreadyExists,
    Conflict,
    ExportFormatError,
    NotFound,
    StoreError,
    TooMuch,
)
from .images import StoredImage
from .migrations import migrate

LOG_SCHEMA = 1
"""Schema version of a log record's envelope (the events inside carry their own ``v``)."""

T = TypeVar("T")
NOTIFY_CHANNEL = "arbiter_log"
"""PostgreSQL channel on which every append announces its encounter id."""
RecordKind = Literal["entry", "undo", "redo"]
Role = Literal["gm", "player"]


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


@dataclass(frozen=True, slots=True)
class CampaignRecord:
    id: str
    name: str
    ruleset: str
    rulings: dict[str, str]
    created_at: str


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """A token's SHA-256 digest (the token itself is never stored) and what it may do."""

    campaign_id: str
    digest: str
    role: Role
    name: str
    characters: tuple[str, ...]
    created_at: str


@dataclass(frozen=True, slots=True)
class EncounterRecord:
    id: str
    campaign_id: str
    name: str
    version: int
    created_at: str


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One record of an encounter's log."""

    seq: int
    kind: RecordKind
    payload: dict[str, Any] = field(default_factory=dict)
    target: int | None = None
    author: str = ""
    created_at: str = ""
    v: int = LOG_SCHEMA

    def entry(self) -> Entry:
        """The decided command of an ``entry`` record (events upcast to the current schema)."""
        if self.kind != "entry":
            raise StoreError(f"log record {self.seq} is an {self.kind} marker, not an entry")
        return Entry.from_json({**self.payload, "seq": self.seq})

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seq": self.seq, "kind": self.kind, "v": self.v,
                               "author": self.author, "created_at": self.created_at}
        if self.target is not None:
            out["target"] = self.target
        if self.kind == "entry":
            out["payload"] = self.payload
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LogRecord:
        kind = data["kind"]
        if kind not in ("entry", "undo", "redo"):
            raise ValueError(f"unknown record kind {kind!r}")
        target = data.get("target")
        return cls(
            seq=int(data["seq"]), kind=kind, payload=dict(data.get("payload", {})),
            target=None if target is None else int(target), author=str(data["author"]),
            created_at=str(data["created_at"]), v=int(data.get("v", 1)),
        )


@dataclass(frozen=True, slots=True)
class Snapshot:
    seq: int
    v: int
    meta: dict[str, Any]
    payload: dict[str, Any]


def _upcast_record(row: tuple[Any, ...]) -> LogRecord:
    seq, kind, target, v, author, created_at, payload = row
    if int(v) > LOG_SCHEMA:
        raise StoreError(f"log record {seq} has schema version {v}, newer than this Arbiter")
    # Version 1 is the only envelope so far; an older one would be upcast here.
    return LogRecord(int(seq), kind, json.loads(payload) if kind == "entry" else {},
                     None if target is None else int(target), author, created_at, LOG_SCHEMA)


_RECORD_COLUMNS = "seq, kind, target, v, author, created_at, payload"


class EventStore:
    """Campaigns, encounters and their logs in SQLite or PostgreSQL.

    >>> store = EventStore.open(":memory:")
    >>> c = store.create_campaign("c1", "Night at the mill", "demo", {})
    >>> store.campaign("c1").name
    'Night at the mill'
    """

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.migrated = migrate(backend)
        # SQLite has one writer: appends from many threads share commits (one fsync each).
        # PostgreSQL commits concurrent transactions on its own.
        self._group = GroupCommit(backend) if backend.kind == "sqlite" else None

    @classmethod
    def open(cls, target: str | Path) -> EventStore:
        """A store on a SQLite file path or a ``postgresql://`` URL, migrated to the latest."""
        return cls(open_backend(target))

    @property
    def kind(self) -> str:
        return self.backend.kind

    def close(self) -> None:
        self.backend.close()

    # -- campaigns and tokens -----------------------------------------------------------
    def create_campaign(
        self, campaign_id: str, name: str, ruleset: str, rulings: dict[str, str],
        created_at: str | None = None,
    ) -> CampaignRecord:
        record = CampaignRecord(campaign_id, name, ruleset, dict(rulings), created_at or now())
        with self.backend.transaction() as tx:
            if tx.rows("SELECT 1 FROM campaigns WHERE id = ?", (campaign_id,)):
                raise StoreError(f"a campaign {campaign_id!r} already exists")
            self._insert_campaign(tx, record)
        return record

    @staticmethod
    def _insert_campaign(tx: Tx, record: CampaignRecord) -> None:
        tx.run("INSERT INTO campaigns (id, name, ruleset, rulings, created_at) "
               "VALUES (?, ?, ?, ?, ?)",
               (record.id, record.name, record.ruleset, dumps(record.rulings),
                record.created_at))

    def campaign(self, campaign_id: str) -> CampaignRecord:
        with self.backend.read() as tx:
            rows = tx.rows("SELECT id, name, ruleset, rulings, created_at FROM campaigns "
                           "WHERE id = ?", (campaign_id,))
        if not rows:
            raise NotFound("campaign", campaign_id)
        cid, name, ruleset, rulings, created = rows[0]
        return CampaignRecord(cid, name, ruleset, json.loads(rulings), created)

    def campaigns(self) -> list[CampaignRecord]:
        with self.backend.read() as tx:
            rows = tx.rows("SELECT id, name, ruleset, rulings, created_at FROM campaigns "
                           "ORDER BY created_at, id")
        return [CampaignRecord(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows]

    def set_campaign_rulings(self, campaign_id: str, rulings: dict[str, str]) -> None:
        with self.backend.transaction() as tx:
            if not tx.run("UPDATE campaigns SET rulings = ? WHERE id = ?",
                          (dumps(rulings), campaign_id)):
                raise NotFound("campaign", campaign_id)

    def add_token(self, token: TokenRecord) -> None:
        with self.backend.transaction() as tx:
            self._insert_token(tx, token)

    @staticmethod
    def _insert_token(tx: Tx, token: TokenRecord) -> None:
        tx.run("INSERT INTO tokens (campaign_id, digest, role, name, characters, created_at) "
               "VALUES (?, ?, ?, ?, ?, ?)",
               (token.campaign_id, token.digest, token.role, token.name,
                dumps(list(token.characters)), token.created_at))

    def tokens(self, campaign_id: str) -> list[TokenRecord]:
        with self.backend.read() as tx:
            rows = tx.rows("SELECT campaign_id, digest, role, name, characters, created_at "
                           "FROM tokens WHERE campaign_id = ? ORDER BY created_at, digest",
                           (campaign_id,))
        return [TokenRecord(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), r[5])
                for r in rows]

    # -- encounters and the log ---------------------------------------------------------
    def create_encounter(
        self, encounter_id: str, campaign_id: str, name: str, first: Sequence[LogRecord],
        created_at: str | None = None,
    ) -> EncounterRecord:
        """A new encounter whose log starts with ``first`` (its ``create`` entry)."""
        record = EncounterRecord(encounter_id, campaign_id, name, len(first),
                                 created_at or now())
        with self.backend.transaction() as tx:
            if not tx.rows("SELECT 1 FROM campaigns WHERE id = ?", (campaign_id,)):
                raise NotFound("campaign", campaign_id)
            if tx.rows("SELECT 1 FROM encounters WHERE id = ?", (encounter_id,)):
                raise StoreError(f"an encounter {encounter_id!r} already exists")
            tx.run("INSERT INTO encounters (id, campaign_id, name, version, created_at) "
                   "VALUES (?, ?, ?, ?, ?)",
                   (encounter_id, campaign_id, name, record.version, record.created_at))
            self._insert_records(tx, encounter_id, 0, first)
        return record

    def encounter(self, encounter_id: str) -> EncounterRecord:
        with self.backend.read() as tx:
            rows = tx.rows("SELECT id, campaign_id, name, version, created_at FROM encounters "
                           "WHERE id = ?", (encounter_id,))
        if not rows:
            raise NotFound("encounter", encounter_id)
        r = rows[0]
        return EncounterRecord(r[0], r[1], r[2], int(r[3]), r[4])

    def encounters(self, campaign_id: str) -> list[EncounterRecord]:
        with self.backend.read() as tx:
            rows = tx.rows("SELECT id, campaign_id, name, version, created_at FROM encounters "
                           "WHERE campaign_id = ? ORDER BY created_at, id", (campaign_id,))
        return [EncounterRecord(r[0], r[1], r[2], int(r[3]), r[4]) for r in rows]

    def version(self, encounter_id: str) -> int:
        with self.backend.read() as tx:
            rows = tx.rows("SELECT version FROM encounters WHERE id = ?", (encounter_id,))
        if not rows:
            raise NotFound("encounter", encounter_id)
        return int(rows[0][0])

    @staticmethod
    def _insert_records(
        tx: Tx, encounter_id: str, expected: int, records: Sequence[LogRecord],
        table: str = "log (encounter_id",
    ) -> None:
        """Write ``records`` after record ``expected`` of an encounter's log (or, with
        ``table`` ``"campaign_log (campaign_id"``, of a campaign's own log)."""
        for i, rec in enumerate(records):
            if rec.seq != expected + 1 + i:
                raise StoreError(f"record {rec.seq} appended at position {expected + 1 + i}")
            tx.run(f"INSERT INTO {table}, {_RECORD_COLUMNS}) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (encounter_id, rec.seq, rec.kind, rec.target, rec.v, rec.author,
                    rec.created_at or now(),
                    dumps(rec.payload) if rec.kind == "entry" else "{}"))

    def append(
        self, encounter_id: str, expected_version: int, records: Sequence[LogRecord],
        drop_snapshots_from: int | None = None,
    ) -> int:
        """Append ``records`` (numbered from ``expected_version + 1``) atomically and durably.

        Refuses with :class:`Conflict` when the log is no longer at ``expected_version``.
        ``drop_snapshots_from`` deletes snapshots at or after that record (an undo or redo
        makes them stale) in the same transaction. Returns the new version.
        """
        new_version = expected_version + len(records)

        def write(tx: Tx) -> int:
            changed = tx.run("UPDATE encounters SET version = ? WHERE id = ? AND version = ?",
                             (new_version, encounter_id, expected_version))
            if changed != 1:
                rows = tx.rows("SELECT version FROM encounters WHERE id = ?", (encounter_id,))
                if not rows:
                    raise NotFound("encounter", encounter_id)
                raise Conflict(encounter_id, expected_version, int(rows[0][0]))
            self._insert_records(tx, encounter_id, expected_version, records)
            if drop_snapshots_from is not None:
                tx.run("DELETE FROM snapshots WHERE encounter_id = ? AND seq >= ?",
                       (encounter_id, drop_snapshots_from))
            if self.backend.kind == "postgresql":  # wake the other servers (on commit)
                tx.rows("SELECT pg_notify(?, ?)", (NOTIFY_CHANNEL, encounter_id))
            return new_version

        if self._group is not None:
            return self._group.run(write)
        with self.backend.transaction() as tx:
            return write(tx)

    def records(
        self, encounter_id: str, after: int = 0, limit: int | None = None
    ) -> list[LogRecord]:
        """Log records with ``seq > after``, oldest first."""
        return self._records("log", "encounter_id", encounter_id, after, limit)

    def _records(self, table: str, key: str, owner: str, after: int,
                 limit: int | None) -> list[LogRecord]:
        """Records of one log (an encounter's or a campaign's: ``table`` and its ``key``
        column are the store's own names, never a caller's) with ``seq > after``."""
        sql = f"SELECT {_RECORD_COLUMNS} FROM {table} WHERE {key} = ? AND seq > ? ORDER BY seq"
        params: list[Any] = [owner, after]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self.backend.read() as tx:
            rows = tx.rows(sql, params)
        return [_upcast_record(r) for r in rows]

    def _markers(self, table: str, key: str,
                 owner: str) -> list[tuple[int, RecordKind, int | None]]:
        with self.backend.read() as tx:
            rows = tx.rows(f"SELECT seq, kind, target FROM {table} WHERE {key} = ? "
                           "ORDER BY seq", (owner,))
        return [(int(s), k, None if t is None else int(t)) for s, k, t in rows]

    def markers(self, encounter_id: str) -> list[tuple[int, RecordKind, int | None]]:
        """``(seq, kind, target)`` of every record, without payloads (for undo and redo)."""
        return self._markers("log", "encounter_id", encounter_id)

    # -- the campaign's own log: its roster and bestiary -----------------------------------
    def campaign_log(self, campaign_id: str) -> tuple[int, list[LogRecord]]:
        """The version of a campaign's own log and its records up to it, in one read."""
        with self.backend.read() as tx:
            rows = tx.rows("SELECT log_version FROM campaigns WHERE id = ?", (campaign_id,))
            if not rows:
                raise NotFound("campaign", campaign_id)
            version = int(rows[0][0])
            records = [_upcast_record(r) for r in tx.rows(
                f"SELECT {_RECORD_COLUMNS} FROM campaign_log WHERE campaign_id = ? "
                "AND seq <= ? ORDER BY seq", (campaign_id, version))]
        return version, records

    def campaign_log_version(self, campaign_id: str) -> int:
        with self.backend.read() as tx:
            rows = tx.rows("SELECT log_version FROM campaigns WHERE id = ?", (campaign_id,))
        if not rows:
            raise NotFound("campaign", campaign_id)
        return int(rows[0][0])

    def campaign_records(
        self, campaign_id: str, after: int = 0, limit: int | None = None
    ) -> list[LogRecord]:
        """Records of a campaign's own log with ``seq > after``, oldest first."""
        return self._records("campaign_log", "campaign_id", campaign_id, after, limit)

    def campaign_markers(self, campaign_id: str) -> list[tuple[int, RecordKind, int | None]]:
        """``(seq, kind, target)`` of every record of a campaign's own log."""
        return self._markers("campaign_log", "campaign_id", campaign_id)

    def append_campaign(
        self, campaign_id: str, expected_version: int, records: Sequence[LogRecord]
    ) -> int:
        """Append ``records`` to a campaign's own log, atomically and durably, as
        :meth:`append` does to an encounter's: :class:`Conflict` when the log is no longer
        at ``expected_version``. Returns the new version."""
        new_version = expected_version + len(records)

        def write(tx: Tx) -> int:
            changed = tx.run("UPDATE campaigns SET log_version = ? WHERE id = ? "
                             "AND log_version = ?", (new_version, campaign_id,
                                                     expected_version))
            if changed != 1:
                rows = tx.rows("SELECT log_version FROM campaigns WHERE id = ?",
                               (campaign_id,))
                if not rows:
                    raise NotFound("campaign", campaign_id)
                raise Conflict(campaign_id, expected_version, int(rows[0][0]),
                               "the log of campaign")
            self._insert_records(tx, campaign_id, expected_version, records,
                                 "campaign_log (campaign_id")
            return new_version

        if self._group is not None:
            return self._group.run(write)
        with self.backend.transaction() as tx:
            return write(tx)

    # -- snapshots ----------------------------------------------------------------------
    def save_snapshot(self, encounter_id: str, snapshot: Snapshot) -> None:
        with self.backend.transaction() as tx:
            tx.run("DELETE FROM snapshots WHERE encounter_id = ? AND seq = ?",
                   (encounter_id, snapshot.seq))
            tx.run("INSERT INTO snapshots (encounter_id, seq, v, meta, payload) "
                   "VALUES (?, ?, ?, ?, ?)",
                   (encounter_id, snapshot.seq, snapshot.v, dumps(snapshot.meta),
                    dumps(snapshot.payload)))
            # Keep the newest few: they are a cache, and undo may need an older one.
            tx.run("DELETE FROM snapshots WHERE encounter_id = ? AND seq < ("
                   "SELECT MIN(seq) FROM (SELECT seq FROM snapshots WHERE encounter_id = ? "
                   "ORDER BY seq DESC LIMIT 3) AS newest)", (encounter_id, encounter_id))

    def load(self, encounter_id: str) -> tuple[EncounterRecord, Snapshot | None, list[LogRecord]]:
        """Everything needed to rebuild an encounter, read in one transaction: its record,
        the newest usable snapshot, and the log records after it."""
        with self.backend.read() as tx:
            rows = tx.rows("SELECT id, campaign_id, name, version, created_at FROM encounters "
                           "WHERE id = ?", (encounter_id,))
            if not rows:
                raise NotFound("encounter", encounter_id)
            r = rows[0]
            encounter = EncounterRecord(r[0], r[1], r[2], int(r[3]), r[4])
            seqs = [int(s[0]) for s in tx.rows(
                "SELECT seq FROM snapshots WHERE encounter_id = ? AND seq <= ? "
                "ORDER BY seq DESC", (encounter_id, encounter.version))]
            marks = tx.rows("SELECT seq, target FROM log WHERE encounter_id = ? "
                            "AND kind <> 'entry'", (encounter_id,))
            chosen = usable_snapshot(seqs, [(int(s), int(t)) for s, t in marks])
            snapshot = None
            after = 0
            if chosen is not None:
                srow = tx.rows("SELECT seq, v, meta, payload FROM snapshots "
                               "WHERE encounter_id = ? AND seq = ?", (encounter_id, chosen))[0]
                snapshot = Snapshot(int(srow[0]), int(srow[1]), json.loads(srow[2]),
                                    json.loads(srow[3]))
                after = snapshot.seq
            records = [_upcast_record(row) for row in tx.rows(
                f"SELECT {_RECORD_COLUMNS} FROM log WHERE encounter_id = ? AND seq > ? "
                "AND seq <= ? ORDER BY seq", (encounter_id, after, encounter.version))]
        return encounter, snapshot, records

    # -- scene images ---------------------------------------------------------------------
    def put_image(self, campaign_id: str, image: StoredImage, limit: int) -> bool:
        """Keep ``image`` for the campaign (once per content hash); False when it was kept
        already. Refused with :class:`TooMuch` when the campaign's images would pass
        ``limit`` bytes together."""
        with self.backend.transaction() as tx:
            if tx.rows("SELECT 1 FROM images WHERE campaign_id = ? AND hash = ?",
                       (campaign_id, image.hash)):
                return False
            used = int(tx.rows("SELECT COALESCE(SUM(size), 0) FROM images WHERE "
                               "campaign_id = ?", (campaign_id,))[0][0])
            if used + len(image.data) > limit:
                raise TooMuch(f"the campaign's images would take {used + len(image.data)} "
                              f"bytes: at most {limit} together (remove a scene image "
                              "first)")
            self._insert_image(tx, campaign_id, image, now())
        return True

    @staticmethod
    def _insert_image(tx: Tx, campaign_id: str, image: StoredImage, created_at: str) -> None:
        tx.run("INSERT INTO images (campaign_id, hash, content_type, width, height, size, "
               "data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
               (campaign_id, image.hash, image.content_type, image.width, image.height,
                len(image.data), image.data, created_at))

    def image(self, campaign_id: str, digest: str) -> StoredImage | None:
        with self.backend.read() as tx:
            rows = tx.rows("SELECT hash, content_type, width, height, data FROM images "
                           "WHERE campaign_id = ? AND hash = ?", (campaign_id, digest))
        if not rows:
            return None
        h, kind, width, height, data = rows[0]
        return StoredImage(h, kind, int(width), int(height), bytes(data))

    def images(self, campaign_id: str) -> list[StoredImage]:
        with self.backend.read() as tx:
            rows = tx.rows("SELECT hash, content_type, width, height, data FROM images "
                           "WHERE campaign_id = ? ORDER BY hash", (campaign_id,))
        return [StoredImage(h, k, int(w), int(ht), bytes(d)) for h, k, w, ht, d in rows]

    # -- export and import --------------------------------------------------------------
    def export_rows(self, campaign_id: str) -> dict[str, Any]:
        """The campaign, its tokens (digests only), encounters and full logs, in one read."""
        with self.backend.read() as tx:
            rows = tx.rows("SELECT id, name, ruleset, rulings, created_at FROM campaigns "
                           "WHERE id = ?", (campaign_id,))
            if not rows:
                raise NotFound("campaign", campaign_id)
            cid, name, ruleset, rulings, created = rows[0]
            version = int(tx.rows("SELECT log_version FROM campaigns WHERE id = ?",
                                  (cid,))[0][0])
            campaign_log = [_upcast_record(row).to_json() for row in tx.rows(
                f"SELECT {_RECORD_COLUMNS} FROM campaign_log WHERE campaign_id = ? "
                "AND seq <= ? ORDER BY seq", (cid, version))]
            tokens = tx.rows("SELECT digest, role, name, characters, created_at FROM tokens "
                             "WHERE campaign_id = ? ORDER BY created_at, digest", (cid,))
            encounters = tx.rows("SELECT id, name, version, created_at FROM encounters "
                                 "WHERE campaign_id = ? ORDER BY created_at, id", (cid,))
            out_encounters = []
            for eid, ename, version, ecreated in encounters:
                records = [_upcast_record(row) for row in tx.rows(
                    f"SELECT {_RECORD_COLUMNS} FROM log WHERE encounter_id = ? ORDER BY seq",
                    (eid,))]
                out_encounters.append({"id": eid, "name": ename, "version": int(version),
                                       "created_at": ecreated,
                                       "log": [r.to_json() for r in records]})
            images = tx.rows("SELECT hash, content_type, width, height, data FROM images "
                             "WHERE campaign_id = ? ORDER BY hash", (cid,))
        return {
            "campaign": {"id": cid, "name": name, "ruleset": ruleset,
                         "rulings": json.loads(rulings), "created_at": created},
            "images": [{"hash": h, "content_type": k, "width": int(w), "height": int(ht),
                        "data": base64.b64encode(bytes(d)).decode("ascii")}
                       for h, k, w, ht, d in images],
            "log": campaign_log,
            "tokens": [{"digest": d, "role": role, "name": n, "characters": json.loads(ch),
                        "created_at": tc} for d, role, n, ch, tc in tokens],
            "encounters": out_encounters,
        }

    def has_campaign(self, campaign_id: str) -> bool:
        with self.backend.read() as tx:
            return bool(tx.rows("SELECT 1 FROM campaigns WHERE id = ?", (campaign_id,)))

    def taken_encounter_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` name an encounter already in the store."""
        taken: set[str] = set()
        with self.backend.read() as tx:
            for start in range(0, len(ids), 500):
                chunk = list(ids[start:start + 500])
                marks = ", ".join("?" * len(chunk))
                taken.update(r[0] for r in tx.rows(
                    f"SELECT id FROM encounters WHERE id IN ({marks})", chunk))
        return taken

    def import_rows(
        self, campaign: CampaignRecord, tokens: Iterable[TokenRecord],
        encounters: Iterable[tuple[EncounterRecord, list[LogRecord]]],
        campaign_log: Sequence[LogRecord] = (),
        before_commit: Callable[[], None] | None = None,
        images: Sequence[StoredImage] = (),
    ) -> None:
        """Write a whole campaign in one transaction (all of it or nothing).

        ``before_commit`` (an import's deadline check) runs last inside the transaction:
        if it raises, the transaction is rolled back and nothing of the campaign is stored.

        An id already taken, even by an import running at the same moment, refuses the
        whole campaign (:class:`AlreadyExists` for the campaign, :class:`ExportFormatError`
        naming ``encounters.N.id`` for an encounter) rather than failing on the key."""
        with self.backend.transaction() as tx:
            if not tx.run("INSERT INTO campaigns (id, name, ruleset, rulings, created_at) "
                          "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                          (campaign.id, campaign.name, campaign.ruleset,
                           dumps(campaign.rulings), campaign.created_at)):
                raise AlreadyExists("campaign", campaign.id, "campaign.id")
            if campaign_log:
                tx.run("UPDATE campaigns SET log_version = ? WHERE id = ?",
                       (len(campaign_log), campaign.id))
                self._insert_records(tx, campaign.id, 0, campaign_log,
                                     "campaign_log (campaign_id")
            for token in tokens:
                self._insert_token(tx, token)
            for image in images:
                self._insert_image(tx, campaign.id, image, now())
            for i, (enc, records) in enumerate(encounters):
                if not tx.run("INSERT INTO encounters (id, campaign_id, name, version, "
                              "created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                              (enc.id, campaign.id, enc.name, len(records), enc.created_at)):
                    raise ExportFormatError(
                        f"an encounter {enc.id!r} already exists in this store; an import "
                        "never replaces one", f"encounters.{i}.id")
                self._insert_records(tx, enc.id, 0, records)
            if before_commit is not None:
                before_commit()


class GroupCommit:
    """Group commit: appends waiting at the same time share one transaction and one fsync.

    A caller queues its work and takes the leader's lock. If its work was committed by the
    previous leader meanwhile, it is done; otherwise it commits everything queued, each
    piece in its own savepoint, so one piece failing (a conflict) does not undo the rest.
    Nobody is answered before the transaction holding their work has committed.
    """

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._queue: list[tuple[Callable[[Tx], Any], Future[Any]]] = []
        self._queue_lock = threading.Lock()
        self._leader = threading.Lock()

    def run(self, work: Callable[[Tx], T]) -> T:
        done: Future[T] = Future()
        with self._queue_lock:
            self._queue.append((work, done))
        with self._leader:
            if not done.done():
                with self._queue_lock:
                    batch, self._queue = self._queue, []
                self._commit(batch)
        return done.result()

    def _commit(self, batch: list[tuple[Callable[[Tx], Any], Future[Any]]]) -> None:
        outcomes: list[tuple[Future[Any], Any, BaseException | None]] = []
        if len(batch) == 1:  # alone: no savepoint needed
            work, done = batch[0]
            try:
                with self.backend.transaction() as tx:
                    result = work(tx)
            except BaseException as err:
                done.set_exception(err)
                if not isinstance(err, Exception):
                    raise
                return
            done.set_result(result)
            return
        try:
            with self.backend.transaction() as tx:
                for work, done in batch:
                    tx.run("SAVEPOINT piece")
                    try:
                        result = work(tx)
                    except Exception as err:
                        tx.run("ROLLBACK TO piece")
                        tx.run("RELEASE piece")
                        outcomes.append((done, None, err))
                    else:
                        tx.run("RELEASE piece")
                        outcomes.append((done, result, None))
        except BaseException as err:  # the commit itself failed: nothing in it happened
            for _, done in batch:
                done.set_exception(err)
            if not isinstance(err, Exception):
                raise
            return
        for done, result, error in outcomes:
            if error is not None:
                done.set_exception(error)
            else:
                done.set_result(result)


def usable_snapshot(seqs: Sequence[int], markers: Sequence[tuple[int, int]]) -> int | None:
    """The newest snapshot no later undo or redo reaches behind.

    A snapshot at ``s`` holds the state after records ``<= s``. An undo or redo recorded
    after ``s`` whose target is ``<= s`` changes what those records mean, so that snapshot
    cannot be used (undo and redo also delete such snapshots; this covers a snapshot
    written concurrently by another server).

    >>> usable_snapshot([300, 200], [(310, 250)])
    200
    """
    for s in sorted(seqs, reverse=True):
        if all(not (seq > s and target <= s) for seq, target in markers):
            return s
    return None
