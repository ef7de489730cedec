"""Slow clients: uvicorn's HTTP protocol with a deadline for reading each request.

uvicorn has no header timeout: a connection that sends half a request line and waits holds a
file descriptor for ever, and once the process has none left (19,990 such connections opened
in 12 s did it) the server accepts nobody. :class:`GuardedHttp` (``arbiter serve`` runs
uvicorn with it, :func:`arbiter.server.uvicorn_options`):

- closes a connection whose request headers are not all in :data:`~arbiter.limits.HEADER_SECONDS`
  after the request began (its connection, or its first byte on a kept-alive connection),
  and one whose body is not all in :data:`~arbiter.limits.REQUEST_SECONDS`;
- keeps at most :func:`pending_cap` connections waiting for their headers at once (a
  quarter of the process's file descriptors, at most :data:`~arbiter.limits.PENDING_REQUESTS`):
  a new connection past it closes the one that has waited longest, so a flood of half-sent
  requests can never use up the descriptors that the next client needs.

- keeps at most :data:`~arbiter.limits.CONNECTIONS_PER_ADDRESS` connections open per
  client address (loopback addresses, :data:`UNCOUNTED`, aside): one more is answered 429
  naming the limit and closed, before any of its request is read.

A WebSocket upgrade leaves the guard once its request is read (the WebSocket has its own
limits: WS_PER_ADDRESS, WS_PER_TOKEN). See docs/server.md, "Slow clients".
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import json
import os
import resource
import weakref
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .. import limits


def pending_cap() -> int:
    """Connections that may wait for their request headers at once: a quarter of the file
    descriptors this process may open, at most PENDING_REQUESTS."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limits.PENDING_REQUESTS
    return max(8, min(limits.PENDING_REQUESTS, soft // 4))


_WAITING: weakref.WeakKeyDictionary[Any, dict[GuardedHttp, None]] = (
    weakref.WeakKeyDictionary())
"""Per server (its uvicorn ``ServerState``): connections waiting for their request
headers, oldest first (a dict keeps insertion order)."""


UNCOUNTED = frozenset({"127.0.0.1", "::1"})
"""Client addresses whose connections are not capped: the loopback ones (a reverse proxy
on the same machine holds many connections for many clients)."""

_OPEN: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()
"""Per server: open connections by client address (the counted ones)."""


PER_ADDRESS_ENV = "ARBITER_CONNECTIONS_PER_ADDRESS"
"""The environment variable that sets the cap on open connections per client address
(default :data:`~arbiter.limits.CONNECTIONS_PER_ADDRESS`)."""


def per_address_cap() -> int:
    """Open connections one client address may hold: ``$ARBITER_CONNECTIONS_PER_ADDRESS``
    when set (a whole number from 1), else CONNECTIONS_PER_ADDRESS. ``arbiter serve`` reads
    it once at start (:func:`arbiter.server.uvicorn_options`), so a bad value stops it with
    a message naming the variable."""
    raw = os.environ.get(PER_ADDRESS_ENV, "").strip()
    if not raw:
        return limits.CONNECTIONS_PER_ADDRESS
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{PER_ADDRESS_ENV} must be a whole number from 1 (the open "
                         f"connections one client address may hold), not {raw[:40]!r}")
    return int(raw)


def too_many_connections() -> bytes:
    """The whole answer to a connection past CONNECTIONS_PER_ADDRESS."""
    body = json.dumps({"error": "too many open connections from your address: at most "
                                f"{per_address_cap()} at once (limit "
                                "CONNECTIONS_PER_ADDRESS)", "limit": "CONNECTIONS_PER_ADDRESS"
                       }).encode()
    return (b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n"
            b"retry-after: 5\r\nconnection: close\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline for each request's headers and body, a
    cap on connections waiting for their headers (the oldest is closed past it) and a cap
    on open connections per client address."""

    _timer: asyncio.TimerHandle | None = None
    _counted: str | None = None
    """The client address this connection counts against, when it is counted."""

    def _admit(self) -> bool:
        """Count this connection against its address; False (and answered 429, closed)
        when that address has CONNECTIONS_PER_ADDRESS open already."""
        host = self.client[0] if self.client else None
        if host is None or host in UNCOUNTED:
            return True
        counts = _OPEN.setdefault(self.server_state, {})
        if counts.get(host, 0) >= per_address_cap():
            self.transport.write(too_many_connections())
            self.transport.close()
            return False
        counts[host] = counts.get(host, 0) + 1
        self._counted = host
        return True

    def _release(self) -> None:
        host, self._counted = self._counted, None
        if host is not None:
            counts = _OPEN.setdefault(self.server_state, {})
            left = counts.get(host, 1) - 1
            if left > 0:
                counts[host] = left
            else:
                counts.pop(host, None)

    def _waiting(self) -> dict[GuardedHttp, None]:
        return _WAITING.setdefault(self.server_state, {})

    def _begin(self) -> None:
        """A request begins: its headers are due in HEADER_SECONDS."""
        if self._timer is not None:
            return
        waiting = self._waiting()
        waiting[self] = None
        self._timer = self.loop.call_later(limits.HEADER_SECONDS, self._too_slow)
        cap = pending_cap()
        while len(waiting) > cap:
            oldest = next(iter(waiting))
            oldest._too_slow()

    def _headers_read(self) -> None:
        """The headers are in: no longer waiting; the body is due in REQUEST_SECONDS."""
        self._waiting().pop(self, None)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = self.loop.call_later(limits.REQUEST_SECONDS, self._too_slow)

    def _done(self) -> None:
        self._waiting().pop(self, None)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _too_slow(self) -> None:
        self._done()
        if not self.transport.is_closing():
            self.transport.close()  # (connection_lost tells a running request's cycle)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self._admit():
            self._begin()

    def connection_lost(self, exc: Exception | None) -> None:
        self._done()
        self._release()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._begin()

    def on_headers_complete(self) -> None:
        self._headers_read()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._done()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._done()
        self._release()  # the WebSocket protocol takes the connection over (its own limits)
        super().handle_websocket_upgrade()


TRIM_BYTES = 1 << 20
"""An answer or a request body this large gives the allocator's free memory back after it
(:func:`trim_memory`)."""


def _libc(symbol: str) -> Any:
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), symbol, None) if name else None
    except OSError:
        return None


_TRIM = _libc("malloc_trim")
_MALLOPT = _libc("mallopt")
_M_ARENA_MAX = -8  # glibc's malloc.h
_M_MMAP_THRESHOLD = -3
_MMAP_FROM = 256 << 10


def steady_allocator() -> None:
    """Set glibc's allocator so that what a large answer took goes back once it is freed
    (nothing elsewhere). Two settings, each measured on five rounds of a 150-character
    roster, its log and export (10-18 MB answers) after a first round:

    - a fixed mmap threshold (256 KiB): by default glibc raises it to the size of the
      largest block it has freed, so the next answer's bytes came from the heap, where
      freed memory stays held among live blocks: the server stayed 18-36 MB above where
      it began after the second round, and stays flat with this;
    - one arena for every thread: by default each thread of the pool that writes large
      answers gets an arena of its own, which :func:`trim_memory` reaches only once that
      thread allocates again (+21 MB, against +4 MB with one). The server's threads hold
      the GIL while they allocate, so one arena costs them no waiting.

    Call it before the server's threads start."""
    if _MALLOPT is not None:
        _MALLOPT(_M_ARENA_MAX, 1)
        _MALLOPT(_M_MMAP_THRESHOLD, _MMAP_FROM)


def trim_memory() -> None:
    """Give the memory the C allocator holds free back to the system (glibc's
    ``malloc_trim``; nothing elsewhere). A large answer or import leaves many freed small
    blocks among the ones still used, which glibc keeps: without this the server's memory
    stayed 60-170 MB above where it began after a few large answers (issue: bounded work).
    The call releases the GIL (ctypes); run it off the event loop."""
    if _TRIM is not None:
        _TRIM(0)


def trim_soon(seconds: float = 0.5) -> None:
    """:func:`trim_memory` in a worker thread ``seconds`` from now, once the request that
    asks has let go of its data (its answer or its error sent)."""
    loop = asyncio.get_running_loop()
    loop.call_later(seconds, lambda: loop.run_in_executor(None, trim_memory))


__all__ = ["PER_ADDRESS_ENV", "TRIM_BYTES", "UNCOUNTED", "GuardedHttp", "pending_cap",
           "per_address_cap", "steady_allocator", "too_many_connections", "trim_memory",
           "trim_soon"]
