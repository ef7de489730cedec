"""Benchmark: two servers on one PostgreSQL database, all clients on one encounter.

Starts a throw-away PostgreSQL (``initdb`` and ``pg_ctl`` from Debian's ``postgresql``
package, as ``make postgresql`` installs it; as root the server runs as ``postgres``), then
two ``arbiter serve`` processes on that database. For 8 and 32 concurrent clients (half on
each server) every client sends ``damage`` commands on the same encounter, with no
``expected_version``: a command that loses the race for the next log position to the other
server is decided again (``GameService``: jittered back-off, for up to RETRY_SECONDS), so
contention alone must never answer 409. Prints p50/p99 latency, commands per second and the
count of answers other than 201 (409s apart) per level; ``--json`` prints JSON only.

    python bench/postgres.py            # a table
    python bench/postgres.py --json     # {"clients": {"8": {"p50_ms", "p99_ms", "conflicts", ...}}}
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server import Connection, figures, free_port  # (bench/server.py)
from server import serving as served

LEVELS = (8, 32)
SERVERS = 2


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    path = found[-1] if found else shutil.which(name)
    if path is None:
        raise SystemExit(f"{name} not found: run `make postgresql`")
    return path


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """A fresh PostgreSQL cluster on a free port of 127.0.0.1: the URL of its database."""
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    data = tempfile.mkdtemp(prefix="arbiter-bench-pg-")
    if prefix:
        shutil.chown(data, "postgres", "postgres")
    port, user = free_port(), "arbiter"
    pg_ctl = _bin("pg_ctl")
    try:
        subprocess.run([*prefix, _bin("initdb"), "-D", data, "-U", user, "-A", "trust",
                        "--no-sync", "-E", "UTF8"], check=True, capture_output=True,
                       timeout=120)
        subprocess.run([*prefix, pg_ctl, "-D", data, "-l", f"{data}/server.log", "-w",
                        "-t", "60", "-o", f"-p {port} -k {data} "
                        "-c listen_addresses=127.0.0.1 -c max_connections=100", "start"],
                       check=True, capture_output=True, timeout=90)
        yield f"postgresql://{user}@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"],
                       capture_output=True, timeout=60, check=False)
        shutil.rmtree(data, ignore_errors=True)


def prepare(url: str) -> tuple[str, str]:
    """A demo campaign with one encounter holding a very sturdy ogre: its GM token and the
    encounter's id."""
    from arbiter.core import Command
    from arbiter.store import EventStore, GameService

    service = GameService(EventStore.open(url))
    campaign, token = service.create_campaign("Benchmark", "demo")
    eid = service.create_encounter(campaign.id, "shared").id
    service.submit(eid, Command("add", args={"id": "ogre", "health": 10**9}))
    service.store.close()
    return token, eid


@contextlib.contextmanager
def serving(url: str) -> Iterator[int]:
    """``arbiter serve`` (``run_server``) on the database at ``url``; yields its port."""
    with served(None, {"ARBITER_DATABASE_URL": url}) as (port, _):
        yield port


async def level(ports: list[int], token: str, eid: str, clients: int, commands: int,
                seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    budget = {"left": commands}
    deadline = time.perf_counter() + seconds
    body = json.dumps({"command": {"do": "damage", "target": "ogre", "amount": 1}}).encode()
    path = f"/api/encounters/{eid}/commands"

    async def client(i: int) -> None:
        conn = await Connection.open(ports[i % len(ports)])
        try:
            await conn.post(path, token, body)  # warm up
            while budget["left"] > 0 and time.perf_counter() < deadline:
                budget["left"] -= 1
                started = time.perf_counter()
                status, _ = await conn.post(path, token, body)
                latencies.append(time.perf_counter() - started)
                statuses[status] = statuses.get(status, 0) + 1
        finally:
            conn.close()

    started = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    return {**figures(latencies, time.perf_counter() - started),
            "conflicts": statuses.get(409, 0),
            "other_errors": sum(n for s, n in statuses.items() if s not in (201, 409))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--commands", type=int, default=2000,
                        help="at most this many commands per level (default 2000)")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="at most this long per level (default 10)")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with postgres() as url:
        token, eid = prepare(url)
        with contextlib.ExitStack() as stack:
            ports = [stack.enter_context(serving(url)) for _ in range(SERVERS)]
            for clients in LEVELS:
                results[str(clients)] = asyncio.run(level(
                    ports, token, eid, clients, args.commands, args.seconds))
    report = {"clients": results, "servers": SERVERS, "database": "postgresql",
              "encounters": "one, shared", "load_average": [round(x, 2)
                                                           for x in os.getloadavg()]}
    if args.json:
        print(json.dumps(report))
        return
    print(f"{SERVERS} servers on one PostgreSQL, every client on one encounter "
          f"(load average {report['load_average']})")
    print(f"{'clients':>8} {'per s':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
          f"{'commands':>9} {'409s':>6} {'other':>6}")
    for name, r in results.items():
        print(f"{name:>8} {r['per_s']:>8} {r['p50_ms']:>8} {r['p99_ms']:>8} {r['max_ms']:>8} "
              f"{r['commands']:>9} {r['conflicts']:>6} {r['other_errors']:>6}")


if __name__ == "__main__":
    main()
