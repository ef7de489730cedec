"""Kill -9 the server in the middle of a stream of commands: every acknowledged command is
in the log after a restart, and the log replays."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from arbiter.core import Command, EncounterState, load_ruleset
from arbiter.store import EventStore, GameService
from arbiter.store.replay import apply_entries, effective_entries


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def server(db: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``arbiter serve`` as a child process; always stopped (killed) on the way out."""
    port = free_port()
    code = ("from pathlib import Path; from arbiter.server import run_server; "
            f"run_server('127.0.0.1', {port}, Path({str(db)!r}))")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert child.poll() is None, "the server did not start"
            assert time.monotonic() < deadline, "the server did not answer in 30 s"
            time.sleep(0.05)
        yield child, base
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=30)


def test_kill_9_loses_no_acknowledged_command(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    service = GameService(EventStore.open(db))
    campaign, token = service.create_campaign("Crash", "demo")
    eid = service.create_encounter(campaign.id, "Stream").id
    service.submit(eid, Command("add", args={"id": "nia", "health": 100_000}))
    service.store.close()
    headers = {"Authorization": f"Bearer {token}"}
    acknowledged: dict[int, int] = {}  # log seq -> amount
    with server(db) as (child, base), httpx.Client(base_url=base, headers=headers) as http:
        # After 25 acknowledged commands, a timer kills the server while more are sent.
        killer = threading.Timer(0.02 + (os.getpid() % 7) / 50,
                                 lambda: os.kill(child.pid, signal.SIGKILL))
        try:
            for amount in range(1, 5000):  # bounded; the kill comes long before the end
                if amount == 26:
                    killer.start()
                try:
                    r = http.post(f"/api/encounters/{eid}/commands", timeout=5, json={
                        "command": {"do": "damage", "target": "nia", "amount": amount}})
                except httpx.HTTPError:
                    break
                assert r.status_code == 201, r.text
                acknowledged[r.json()["version"]] = amount
        finally:
            killer.cancel()
        child.wait(timeout=30)
        assert child.returncode == -signal.SIGKILL
    assert len(acknowledged) >= 25
    with server(db) as (_, base):
        log = []
        after = 0
        while True:
            page = httpx.get(f"{base}/api/encounters/{eid}/log", params={"after": after},
                             headers=headers, timeout=10).json()["records"]
            if not page:
                break
            log += page
            after = page[-1]["seq"]
        by_seq = {rec["seq"]: rec for rec in log}
        for seq, amount in acknowledged.items():
            assert by_seq[seq]["command"]["amount"] == amount
        assert [rec["seq"] for rec in log] == list(range(1, len(log) + 1))
        state = httpx.get(f"{base}/api/encounters/{eid}", headers=headers, timeout=10).json()
    store = EventStore.open(db)
    replayed = EncounterState(ruleset="")
    apply_entries(load_ruleset("demo"), replayed, effective_entries(store.records(eid)))
    store.close()
    total = sum(rec["command"]["amount"] for rec in log[2:])
    assert replayed.entity("nia").health == 100_000 - total  # type: ignore[attr-defined]
    assert state["entities"]["nia"]["health"] == 100_000 - total
