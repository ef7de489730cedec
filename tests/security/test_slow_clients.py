"""Slow clients cannot stop the server answering (issue: bounded work).

The tester's finding: 19,990 half-sent requests opened in 12 s used up the server's file
descriptors (its limit was 20,000) and nobody got an answer until they were closed. Here the
same situation at a small scale: ``arbiter serve`` in a subprocess allowed 128 file
descriptors, 200 half-sent requests, and a concurrent pinger that must get every
``/api/health`` answered within a second meanwhile. ``arbiter.server.guard`` closes the
connection that has waited longest for its headers past a quarter of the descriptors, and
any whose headers take longer than HEADER_SECONDS.
"""

from __future__ import annotations

import contextlib
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from arbiter import limits
from arbiter.server import uvicorn_options
from arbiter.server.guard import GuardedHttp

from .live import LiveServer, free_port

pytestmark = pytest.mark.serial  # timed: run alone (pyproject.toml, make test)

FILES = 128
"""File descriptors the server process may open."""
HALF_SENT = 200
REQUEST_LINE = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # the blank line never comes


def _few_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, FILES))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """``arbiter serve`` in a subprocess with FILES file descriptors; its base URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", "from arbiter.cli import app; app()", "serve",
         "--port", str(port), "--db", str(tmp_path / "served.db")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_few_files,
        env=os.environ.copy())
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("arbiter serve did not start")
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def test_health_answers_within_a_second_while_200_requests_are_half_sent(served: str
                                                                        ) -> None:
    port = int(served.rsplit(":", 1)[1])
    answers: list[tuple[float, int | str]] = []
    holding = threading.Event()
    stop = threading.Event()

    def pinger() -> None:
        """A new connection each time (what a used-up server cannot accept)."""
        while not stop.is_set():
            start = time.monotonic()
            try:
                status: int | str = httpx.get(f"{served}/api/health", timeout=3).status_code
            except httpx.HTTPError as err:
                status = type(err).__name__
            answers.append((time.monotonic() - start, status))
            time.sleep(0.05)

    thread = threading.Thread(target=pinger)
    thread.start()
    sockets: list[socket.socket] = []
    try:
        for i in range(HALF_SENT):
            conn = socket.create_connection(("127.0.0.1", port))
            with contextlib.suppress(OSError):  # closed already (the guard): it counts
                conn.sendall(REQUEST_LINE)
            sockets.append(conn)
            if i % 10 == 9:
                time.sleep(0.005)
        holding.set()
        during = len(answers)
        time.sleep(2.0)  # hold them all while the pinger goes on
        held = answers[during:]
    finally:
        stop.set()
        thread.join(10)
        for conn in sockets:
            conn.close()
    assert len(held) >= 10, held
    assert all(status == 200 for _, status in answers), answers
    assert max(seconds for seconds, _ in answers) < 1.0, answers


def test_a_request_whose_headers_never_end_is_closed(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Past HEADER_SECONDS (0.5 s here) the half-sent connection is closed; a kept-alive
    connection that starts a second request and stops is closed too."""
    monkeypatch.setattr(limits, "HEADER_SECONDS", 0.5)
    assert uvicorn_options()["http"] is GuardedHttp
    with LiveServer(tmp_path / "a.db", guarded=True) as live:
        port = live.port
        half = socket.create_connection(("127.0.0.1", port))
        half.sendall(REQUEST_LINE)
        kept = socket.create_connection(("127.0.0.1", port))
        kept.sendall(REQUEST_LINE + b"\r\n")
        half.settimeout(5)
        kept.settimeout(5)
        start = time.monotonic()
        assert kept.recv(65536).startswith(b"HTTP/1.1 200")
        kept.sendall(b"GET /api/health HTTP/1.1\r\n")  # a second request, never finished
        assert half.recv(1) == b""  # closed by the server
        assert 0.4 < time.monotonic() - start < 3
        assert kept.recv(65536) == b""
        half.close()
        kept.close()
