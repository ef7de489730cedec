"""Database back ends: SQLite (the default) and PostgreSQL, behind one small interface.

Both speak the same SQL, written with ``?`` placeholders; the PostgreSQL back end turns them
into ``%s``. A back end hands out transactions: ``with backend.transaction() as tx``
commits when the block ends and rolls back when it raises. A committed transaction is
durable: SQLite runs in WAL mode with ``synchronous=FULL`` (the commit is fsynced before it
returns), PostgreSQL with its default ``synchronous_commit=on``.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from .errors import StoreError

Params = Sequence[Any]


class Tx(Protocol):
    """One open transaction."""

    def rows(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]: ...

    def run(self, sql: str, params: Params = ()) -> int:
        """Execute a statement; the number of rows it changed."""
        ...


class Backend(Protocol):
    kind: str
    """``sqlite`` or ``postgresql``."""

    def transaction(self) -> Any:
        """A context manager giving a :class:`Tx` that may write."""
        ...

    def read(self) -> Any:
        """A context manager giving a :class:`Tx` for reading only."""
        ...

    def close(self) -> None: ...


class _SqliteTx:
    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def rows(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        return self._conn.execute(sql, tuple(params)).fetchall()

    def run(self, sql: str, params: Params = ()) -> int:
        return self._conn.execute(sql, tuple(params)).rowcount


class SqliteBackend:
    """One SQLite file: a writing connection and a reading one, each behind a lock.

    SQLite has one writer at a time; in WAL mode readers do not wait for it, so reads
    (loading an encounter, the log) go through their own connection.
    """

    kind = "sqlite"

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = self._open()
        self._reader = self._open() if self.path != ":memory:" else self._conn
        self._lock = threading.Lock()
        self._read_lock = threading.Lock() if self._reader is not self._conn else self._lock

    def _open(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
        except sqlite3.Error as err:
            raise StoreError(f"cannot open the SQLite database {self.path}: {err}") from None
        return conn

    @contextmanager
    def read(self) -> Iterator[_SqliteTx]:
        with self._read_lock:
            conn = self._reader
            conn.execute("BEGIN")
            try:
                yield _SqliteTx(conn)
            finally:
                conn.execute("COMMIT")

    @contextmanager
    def transaction(self) -> Iterator[_SqliteTx]:
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteTx(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        if self._reader is not self._conn:
            with self._read_lock:
                self._reader.close()


class _PgTx:
    __slots__ = ("_conn",)

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def rows(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        cur = self._conn.execute(sql.replace("?", "%s"), tuple(params))
        return list(cur.fetchall()) if cur.description is not None else []

    def run(self, sql: str, params: Params = ()) -> int:
        cur = self._conn.execute(sql.replace("?", "%s"), tuple(params))
        return int(cur.rowcount)


class PostgresBackend:
    """PostgreSQL through psycopg 3, with a small pool of connections (one per thread in use).

    Several server processes may share one database: appends are guarded by the version
    check in ``UPDATE encounters ... WHERE version = ?``, which PostgreSQL serialises by
    row lock.
    """

    kind = "postgresql"

    def __init__(self, url: str, pool_size: int = 8) -> None:
        try:
            import psycopg
        except ImportError as err:  # pragma: no cover - psycopg is a dependency
            raise StoreError(f"PostgreSQL needs psycopg: {err}") from None
        self._psycopg = psycopg
        self.url = url
        self._pool: queue.LifoQueue[Any] = queue.LifoQueue()
        self._slots = threading.Semaphore(pool_size)
        self._all: list[Any] = []
        self._lock = threading.Lock()
        with self.transaction() as tx:  # fail now, with a clear message, if unreachable
            tx.rows("SELECT 1")

    def _connect(self) -> Any:
        try:
            conn = self._psycopg.connect(self.url, autocommit=True)
        except self._psycopg.Error as err:
            raise StoreError(f"cannot connect to PostgreSQL: {err}") from None
        with self._lock:
            self._all.append(conn)
        return conn

    @contextmanager
    def transaction(self) -> Iterator[_PgTx]:
        with self._slots:
            try:
                conn = self._pool.get_nowait()
            except queue.Empty:
                conn = self._connect()
            if conn.closed:
                conn = self._connect()
            try:
                with conn.transaction():
                    yield _PgTx(conn)
            finally:
                if not conn.closed:
                    self._pool.put(conn)

    @contextmanager
    def read(self) -> Iterator[_PgTx]:
        """A read-only transaction seeing one snapshot of the database throughout (several
        queries that rebuild an encounter must agree with each other)."""
        with self.transaction() as tx:
            tx.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield tx

    def listen(self, channel: str, callback: Callable[[str], None],
               stop: threading.Event) -> None:
        """Call ``callback(payload)`` for each NOTIFY on ``channel`` until ``stop`` is set
        (checked every half second). Runs in the caller's thread, on its own connection."""
        conn = self._psycopg.connect(self.url, autocommit=True)
        try:
            conn.execute(f"LISTEN {channel}")
            while not stop.is_set():
                for note in conn.notifies(timeout=0.5):
                    callback(note.payload)
        finally:
            conn.close()

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()


def open_backend(target: str | Path) -> Backend:
    """A back end for a PostgreSQL URL (``postgresql://...``) or a SQLite file path."""
    text = str(target)
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresBackend(text)
    if text.startswith("sqlite:///"):
        text = text[len("sqlite:///"):]
    return SqliteBackend(text)
