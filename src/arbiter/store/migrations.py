"""Versioned schema migrations, run automatically when a store opens.

Each migration has a number and statements valid in both SQLite and PostgreSQL. The table
``schema_migrations`` records which ran; opening a database runs the missing ones in order
inside one transaction (PostgreSQL takes an advisory lock, so two servers starting at once
do not race). A database migrated by a newer Arbiter is refused rather than misread.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from .backends import Backend
from .errors import StoreError


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: list[Migration] = [
    Migration(1, "campaigns, tokens, encounters, the log and snapshots", (
        """CREATE TABLE campaigns (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            ruleset TEXT NOT NULL,
            rulings TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE tokens (
            campaign_id TEXT NOT NULL REFERENCES campaigns(id),
            digest TEXT NOT NULL,
            role TEXT NOT NULL,
            name TEXT NOT NULL,
            characters TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (campaign_id, digest)
        )""",
        """CREATE TABLE encounters (
            id TEXT PRIMARY KEY,
            campaign_id TEXT NOT NULL REFERENCES campaigns(id),
            name TEXT NOT NULL,
            version BIGINT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX encounters_by_campaign ON encounters (campaign_id)",
        """CREATE TABLE log (
            encounter_id TEXT NOT NULL REFERENCES encounters(id),
            seq BIGINT NOT NULL,
            kind TEXT NOT NULL,
            target BIGINT,
            v INTEGER NOT NULL,
            author TEXT NOT NULL,
            created_at TEXT NOT NULL,
            payload TEXT NOT NULL,
            PRIMARY KEY (encounter_id, seq)
        )""",
        """CREATE TABLE snapshots (
            encounter_id TEXT NOT NULL REFERENCES encounters(id),
            seq BIGINT NOT NULL,
            v INTEGER NOT NULL,
            meta TEXT NOT NULL,
            payload TEXT NOT NULL,
            PRIMARY KEY (encounter_id, seq)
        )""",
    )),
    Migration(2, "find undo and redo markers without scanning the log", (
        "CREATE INDEX log_markers ON log (encounter_id, kind, seq)",
    )),
    Migration(3, "each campaign's own log: the roster of characters and the bestiary", (
        "ALTER TABLE campaigns ADD COLUMN log_version BIGINT NOT NULL DEFAULT 0",
        """CREATE TABLE campaign_log (
            campaign_id TEXT NOT NULL REFERENCES campaigns(id),
            seq BIGINT NOT NULL,
            kind TEXT NOT NULL,
            target BIGINT,
            v INTEGER NOT NULL,
            author TEXT NOT NULL,
            created_at TEXT NOT NULL,
            payload TEXT NOT NULL,
            PRIMARY KEY (campaign_id, seq)
        )""",
    )),
    # BYTEA is PostgreSQL's bytes; SQLite keeps a BLOB as it is under any column type
    Migration(4, "scene images, by campaign and content hash", (
        """CREATE TABLE images (
            campaign_id TEXT NOT NULL REFERENCES campaigns(id),
            hash TEXT NOT NULL,
            content_type TEXT NOT NULL,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            size BIGINT NOT NULL,
            data BYTEA NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (campaign_id, hash)
        )""",
    )),
]


def latest_version(migrations: list[Migration] | None = None) -> int:
    return max(m.version for m in (migrations or MIGRATIONS))


def migrate(backend: Backend, migrations: list[Migration] | None = None) -> list[int]:
    """Run the migrations the database lacks; the versions that ran."""
    migrations = sorted(migrations or MIGRATIONS, key=lambda m: m.version)
    ran: list[int] = []
    with backend.transaction() as tx:
        if backend.kind == "postgresql":
            tx.rows("SELECT pg_advisory_xact_lock(7470107)")
        tx.run(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        done = {int(r[0]) for r in tx.rows("SELECT version FROM schema_migrations")}
        newest = latest_version(migrations)
        if done and max(done) > newest:
            raise StoreError(
                f"the database has schema version {max(done)}, newer than this Arbiter "
                f"understands ({newest}); upgrade Arbiter"
            )
        for migration in migrations:
            if migration.version in done:
                continue
            for statement in migration.statements:
                tx.run(statement)
            tx.run(
                "INSERT INTO schema_migrations (version, description, applied_at) "
                "VALUES (?, ?, ?)",
                (migration.version, migration.description, datetime.now(UTC).isoformat()),
            )
            ran.append(migration.version)
    return ran


def schema_version(backend: Backend) -> int:
    with backend.transaction() as tx:
        rows = tx.rows("SELECT MAX(version) FROM schema_migrations")
    return int(rows[0][0] or 0)
