"""Benchmark of the game server: durable commands per second and latency on SQLite.

Starts ``arbiter serve`` (uvicorn, SQLite in WAL mode with ``synchronous=FULL``) as a child
process on 127.0.0.1 with a temporary database, then for 1, 8 and 32 concurrent clients
sends ``damage`` commands over keep-alive HTTP/1.1 connections. A command is answered only
after its log record is committed and fsynced, so every acknowledged command is durable.
Each client plays its own encounter (``--shared``: all play one encounter). Every level is
bounded: at most ``--commands`` commands and ``--seconds`` seconds. The child is stopped at
the end.

    python bench/server.py            # a table
    python bench/server.py --json     # {"clients": {"1": {"per_s", "p50_ms", "p99_ms"}, ...}}
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

LEVELS = (1, 8, 32)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


STURDY = ({"id": "ogre", "health": 10**9},)


def prepare(db: Path, encounters: int, ruleset: str = "demo",
            actors: Sequence[dict[str, Any]] = STURDY) -> tuple[str, str, list[str]]:
    """A ``ruleset`` campaign with ``encounters`` encounters, each with ``actors`` (by
    default a very sturdy creature): its id, its GM token and the encounter ids."""
    from arbiter.core import Command
    from arbiter.store import EventStore, GameService

    service = GameService(EventStore.open(db))
    campaign, token = service.create_campaign("Benchmark", ruleset)
    ids = []
    for i in range(encounters):
        eid = service.create_encounter(campaign.id, f"table {i}").id
        for actor in actors:
            service.submit(eid, Command("add", args=dict(actor)))
        ids.append(eid)
    service.store.close()
    return campaign.id, token, ids


class Connection:
    """A minimal keep-alive HTTP/1.1 client, so the client costs little CPU."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 port: int) -> None:
        self.reader, self.writer, self.port = reader, writer, port

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(reader, writer, port)

    async def post(self, path: str, token: str, body: bytes) -> tuple[int, bytes]:
        head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        self.writer.write(head + body)
        await self.writer.drain()
        status_line = await self.reader.readline()
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value.strip())
        payload = await self.reader.readexactly(length)
        return int(status_line.split()[1]), payload

    def close(self) -> None:
        self.writer.close()


async def level(port: int, token: str, encounters: list[str], clients: int, commands: int,
                seconds: float) -> dict[str, float]:
    latencies: list[float] = []
    budget = {"left": commands}
    deadline = time.perf_counter() + seconds
    body = json.dumps({"command": {"do": "damage", "target": "ogre", "amount": 1}}).encode()

    async def client(i: int) -> None:
        conn = await Connection.open(port)
        path = f"/api/encounters/{encounters[i % len(encounters)]}/commands"
        try:
            for _ in range(3):  # warm up the connection and the encounter's state
                await conn.post(path, token, body)
            while budget["left"] > 0 and time.perf_counter() < deadline:
                budget["left"] -= 1
                started = time.perf_counter()
                status, payload = await conn.post(path, token, body)
                latencies.append(time.perf_counter() - started)
                if status != 201:
                    raise RuntimeError(f"HTTP {status}: {payload[:200]!r}")
        finally:
            conn.close()

    started = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    return figures(latencies, time.perf_counter() - started)


def figures(latencies: list[float], elapsed: float) -> dict[str, Any]:
    """Commands per second over ``elapsed`` seconds, and the median, 99th percentile and
    slowest of the ``latencies`` (seconds) in milliseconds."""
    latencies = sorted(latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return {"per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": round(statistics.median(latencies) * 1000, 2),
            "p99_ms": round(p99 * 1000, 2), "max_ms": round(latencies[-1] * 1000, 2),
            "commands": len(latencies)}


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (Linux /proc), or 0 elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_ready(port: int, child: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise RuntimeError("the server exited at start")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not answer within 60 s")


@contextlib.contextmanager
def serving(db: Path | None, env: dict[str, str] | None = None
            ) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """``arbiter serve`` on ``db`` (None: the database ``env`` names) as a child process on
    a free port of 127.0.0.1, ready to answer; stopped on leaving. Yields the port and the
    child."""
    port = free_port()
    where = "None" if db is None else f"Path({str(db)!r})"
    code = ("from pathlib import Path; from arbiter.server import run_server; "
            f"run_server('127.0.0.1', {port}, {where})")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})})
    try:
        wait_ready(port, child)
        yield port, child
    finally:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--commands", type=int, default=3000,
                        help="at most this many commands per level (default 3000)")
    parser.add_argument("--seconds", type=float, default=6.0,
                        help="at most this long per level (default 6)")
    parser.add_argument("--shared", action="store_true",
                        help="every client plays the same encounter")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-") as folder:
        db = Path(folder) / "bench.db"
        _, token, encounters = prepare(db, 1 if args.shared else max(LEVELS))
        with serving(db) as (port, child):
            results: dict[str, Any] = {}
            for clients in LEVELS:
                cpu = cpu_seconds(child.pid)
                result = asyncio.run(level(
                    port, token, encounters, clients, args.commands, args.seconds))
                used = cpu_seconds(child.pid) - cpu
                result["server_cpu_ms"] = round(used / max(result["commands"], 1) * 1000, 3)
                results[str(clients)] = result
    report = {"clients": results, "database": "sqlite (WAL, synchronous=FULL)",
              "encounters": "shared" if args.shared else "one per client",
              "load_average": [round(x, 2) for x in os.getloadavg()]}
    if args.json:
        print(json.dumps(report))
        return
    print(f"durable commands on SQLite, {report['encounters']} "
          f"(load average {report['load_average']})")
    print(f"{'clients':>8} {'per s':>10} {'p50 ms':>8} {'p99 ms':>8} {'commands':>9} "
          f"{'server CPU ms/command':>22}")
    for name, r in results.items():
        print(f"{name:>8} {r['per_s']:>10} {r['p50_ms']:>8} {r['p99_ms']:>8} "
              f"{r['commands']:>9} {r['server_cpu_ms']:>22}")


if __name__ == "__main__":
    main()
