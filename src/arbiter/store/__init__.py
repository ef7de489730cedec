"""The event store: campaigns, encounters and their append-only logs, in SQLite or PostgreSQL.

``open_store()`` opens the database named by ``ARBITER_DATABASE_URL`` (a
``postgresql://`` URL) when it is set, else a SQLite file (``arbiter.db`` in the working
folder unless a path is given). Schema migrations run on opening. See ``docs/server.md``.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import (
    AlreadyExists,
    Conflict,
    ExportFormatError,
    NotFound,
    NothingToUndo,
    SnapshotError,
    StoreError,
)
from .service import GameService, Loaded, Principal
from .store import (
    LOG_SCHEMA,
    CampaignRecord,
    EncounterRecord,
    EventStore,
    LogRecord,
    TokenRecord,
)

DEFAULT_DB = Path("arbiter.db")
DATABASE_URL_ENV = "ARBITER_DATABASE_URL"


def database_target(db: Path | str | None = None) -> str:
    """Where the store lives: ``db`` if given, else ``$ARBITER_DATABASE_URL``, else
    ``./arbiter.db``."""
    if db is not None:
        return str(db)
    return os.environ.get(DATABASE_URL_ENV) or str(DEFAULT_DB)


def open_store(db: Path | str | None = None) -> EventStore:
    return EventStore.open(database_target(db))


__all__ = [
    "DATABASE_URL_ENV",
    "LOG_SCHEMA",
    "AlreadyExists",
    "CampaignRecord",
    "Conflict",
    "EncounterRecord",
    "EventStore",
    "ExportFormatError",
    "GameService",
    "Loaded",
    "LogRecord",
    "NotFound",
    "NothingToUndo",
    "Principal",
    "SnapshotError",
    "StoreError",
    "TokenRecord",
    "database_target",
    "open_store",
]
