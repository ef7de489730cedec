"""Fixtures: a store on SQLite and on a real PostgreSQL started for the test session.

The PostgreSQL server comes from Debian's ``postgresql`` package (``make test`` installs it
when missing): ``initdb`` on a temporary data directory, ``pg_ctl start`` on a free port of
127.0.0.1, one fresh database per test, ``pg_ctl stop`` at the end. As root, the server
runs as the ``postgres`` user (``initdb`` refuses root).
"""

from __future__ import annotations

import glob
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arbiter.store import EventStore


@dataclass(frozen=True)
class Postgres:
    port: int
    user: str

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        pytest.skip("PostgreSQL binaries not found (run `make test`, which installs the "
                    "Debian 'postgresql' package)")
    as_root = os.geteuid() == 0
    prefix: list[str] = ["runuser", "-u", "postgres", "--"] if as_root else []
    data = tempfile.mkdtemp(prefix="arbiter-pg-")
    if as_root:
        shutil.chown(data, "postgres", "postgres")
    port = _free_port()
    user = "arbiter"
    log = Path(data) / "server.log"
    try:
        subprocess.run([*prefix, initdb, "-D", data, "-U", user, "-A", "trust",
                        "--no-sync", "-E", "UTF8"], check=True, capture_output=True,
                       timeout=120)
        subprocess.run([*prefix, pg_ctl, "-D", data, "-l", str(log), "-w", "-t", "60",
                        "-o", f"-p {port} -k {data} -c listen_addresses=127.0.0.1 "
                              "-c max_connections=60", "start"],
                       check=True, capture_output=True, timeout=90)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as err:
        shutil.rmtree(data, ignore_errors=True)
        detail = getattr(err, "stderr", b"") or b""
        pytest.skip(f"cannot start PostgreSQL: {err} {detail.decode(errors='replace')[:300]}")
    # Should this process die without cleaning up (kill -9), a watcher stops the server.
    stop = shlex.join([*prefix, pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"])
    watcher = subprocess.Popen(
        ["sh", "-c", f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 2; done; "
                     f"{stop} >/dev/null 2>&1; rm -rf {shlex.quote(data)}"],
        start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield Postgres(port, user)
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"],
                       capture_output=True, timeout=60, check=False)
        shutil.rmtree(data, ignore_errors=True)
        watcher.kill()
        watcher.wait(timeout=10)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a fresh store lives: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "arbiter.db")
    pg: Postgres = request.getfixturevalue("postgres")
    return pg.new_database()


@pytest.fixture
def store(store_url: str) -> Iterator[EventStore]:
    store = EventStore.open(store_url)
    try:
        yield store
    finally:
        store.close()
