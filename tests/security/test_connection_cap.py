"""At most CONNECTIONS_PER_ADDRESS open connections per client address (issue: bounded work).

The guard (``arbiter.server.guard``) counts each client address's open connections; one
past the limit is answered 429 naming it and closed before any of its request is read.
Loopback clients are not counted (a local reverse proxy); the tests count them by emptying
``guard.UNCOUNTED``, and use a limit of 4.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arbiter import limits
from arbiter.server import guard, uvicorn_options

from .live import LiveServer

CAP = 4
HEALTH = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


@pytest.fixture
def port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """The real server (uvicorn with the guarded protocol) in a thread, allowing CAP
    connections per address."""
    monkeypatch.setattr(limits, "CONNECTIONS_PER_ADDRESS", CAP)
    with LiveServer(tmp_path / "cap.db", guarded=True) as live:
        yield live.port


def kept(port: int) -> socket.socket:
    """A connection that asked /api/health once and stays open (kept alive)."""
    conn = socket.create_connection(("127.0.0.1", port))
    conn.settimeout(5)
    conn.sendall(HEALTH)
    assert conn.recv(65536).startswith(b"HTTP/1.1 200"), "not answered 200"
    return conn


def refused(port: int) -> bytes:
    conn = socket.create_connection(("127.0.0.1", port))
    conn.settimeout(5)
    answer = b""
    while chunk := conn.recv(65536):
        answer += chunk
    conn.close()
    return answer


def test_one_connection_past_the_cap_is_answered_429_and_closed(
        port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "UNCOUNTED", frozenset())
    held = [kept(port) for _ in range(CAP)]
    answer = refused(port)
    assert answer.startswith(b"HTTP/1.1 429 Too Many Requests\r\n"), answer
    assert b"retry-after: 5" in answer
    assert answer.endswith(b'"error": "too many open connections from your address: at most '
                           b'4 at once (limit CONNECTIONS_PER_ADDRESS)", "limit": '
                           b'"CONNECTIONS_PER_ADDRESS"}'), answer
    for conn in held:  # the ones already open are still served
        conn.sendall(HEALTH)
        assert conn.recv(65536).startswith(b"HTTP/1.1 200")
    held.pop().close()
    time.sleep(0.2)
    held.append(kept(port))  # a closed one was given back
    assert refused(port).startswith(b"HTTP/1.1 429")
    for conn in held:
        conn.close()


def test_half_sent_and_websocket_connections_give_their_place_back(
        port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Connections the guard closes (headers too slow) and ones that became WebSockets no
    longer count."""
    monkeypatch.setattr(guard, "UNCOUNTED", frozenset())
    monkeypatch.setattr(limits, "HEADER_SECONDS", 0.3)
    half = [socket.create_connection(("127.0.0.1", port)) for _ in range(CAP)]
    for conn in half:
        conn.sendall(b"GET /api/health HTTP/1.1\r\n")
    assert refused(port).startswith(b"HTTP/1.1 429")
    time.sleep(0.8)  # past HEADER_SECONDS: all closed by the server
    conns = [kept(port) for _ in range(CAP)]
    for conn in half + conns:
        conn.close()
    time.sleep(0.2)
    from websockets.sync.client import connect
    url = f"ws://127.0.0.1:{port}/api/encounters/e-none/ws"
    sockets = [connect(url, open_timeout=5, close_timeout=1) for _ in range(CAP + 2)]
    try:
        kept(port).close()  # the upgraded ones are the WebSocket's to limit
    finally:
        for ws in sockets:
            ws.close()


def test_loopback_clients_are_not_counted(port: int) -> None:
    held = [kept(port) for _ in range(CAP + 3)]
    for conn in held:
        conn.close()


def test_the_cap_is_set_by_an_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(guard.PER_ADDRESS_ENV, "3")
    assert guard.per_address_cap() == 3
    assert b"at most 3 at once (limit CONNECTIONS_PER_ADDRESS)" in guard.too_many_connections()
    monkeypatch.delenv(guard.PER_ADDRESS_ENV)
    assert guard.per_address_cap() == limits.CONNECTIONS_PER_ADDRESS == 64
    for bad in ("0", "-2", "lots", "1.5"):
        monkeypatch.setenv(guard.PER_ADDRESS_ENV, bad)
        with pytest.raises(SystemExit, match="ARBITER_CONNECTIONS_PER_ADDRESS must be a "
                                             "whole number from 1"):
            uvicorn_options()
