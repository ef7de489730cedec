"""Browser hardening (docs/server.md, "Browser hardening"): security headers on every
answer, ``Cache-Control: no-store`` on the API's, and a Host and Origin check against DNS
rebinding and cross-site requests.

A pure ASGI middleware (no per-request objects beyond the header list), so it costs next to
nothing on the hot paths.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_HOSTS: tuple[str, ...] = ("localhost", "127.0.0.1", "::1")
"""The names a loopback server always answers to."""

TEST_HOST = "testserver"
"""The Host header of Starlette's TestClient: :func:`~arbiter.server.create_app` accepts it
by default (``arbiter serve`` never does)."""

CSP = ("default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
       "script-src 'self'; connect-src 'self' ws: wss:; frame-ancestors 'none'; "
       "base-uri 'none'; form-action 'self'")

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
_SET = {name for name, _ in SECURITY_HEADERS} | {b"cache-control"}
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def allowed_hosts_for(host: str, given: Iterable[str] = ()) -> tuple[str, ...] | None:
    """The Host names ``arbiter serve --host host --allowed-host ...`` accepts: the loopback
    names, ``host`` unless it is a wildcard address, and every ``given`` one; None (any
    Host) on a wildcard address with none given.

    >>> allowed_hosts_for("127.0.0.1")
    ('localhost', '127.0.0.1', '::1')
    >>> allowed_hosts_for("10.0.0.5", ["Arbiter.Lan"])
    ('localhost', '127.0.0.1', '::1', '10.0.0.5', 'arbiter.lan')
    >>> allowed_hosts_for("0.0.0.0") is None, allowed_hosts_for("::", ["a"])[-1]
    (True, 'a')
    """
    names = [name.strip().lower().strip("[]") for name in given if name.strip()]
    wildcard = host in ("0.0.0.0", "::", "")
    if wildcard and not names:
        return None
    out = list(LOOPBACK_HOSTS)
    for name in ([] if wildcard else [host.lower().strip("[]")]) + names:
        if name not in out:
            out.append(name)
    return tuple(out)


def host_name(value: str) -> str:
    """The host part of a ``Host`` header or an origin's netloc, lowercased, without port
    or IPv6 brackets.

    >>> host_name("Example.org:8000"), host_name("[::1]:80"), host_name("127.0.0.1")
    ('example.org', '::1', '127.0.0.1')
    """
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    if value.count(":") > 1:  # a bare IPv6 address
        return value
    return value.split(":", 1)[0]


class Hardening:
    """The middleware. ``allowed_hosts`` None accepts any Host; an ``Origin`` must then
    name the host the request was sent to."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] | None) -> None:
        self.app = app
        self.allowed = None if allowed_hosts is None else frozenset(
            host_name(name) for name in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = origin = ""
        for name, value in scope.get("headers", ()):
            if name == b"host":
                host = value.decode("latin-1")
            elif name == b"origin":
                origin = value.decode("latin-1")
        refusal = self.refusal(kind, scope.get("method", "GET"), host, origin)
        if refusal is not None:
            status, message = refusal
            if kind == "websocket":  # closed before the handshake: the client sees 403
                await send({"type": "websocket.close", "code": 1008, "reason": message})
                return
            await self.refuse(send, status, message)
            return
        api = scope.get("path", "").startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ())
                           if k.lower() not in _SET or (k.lower() == b"cache-control"
                                                        and not api)]
                headers.extend(SECURITY_HEADERS)
                if api:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers if kind == "http" else send)

    def refusal(self, kind: str, method: str, host: str,
                origin: str) -> tuple[int, str] | None:
        """Why a request is refused (status and message), or None."""
        name = host_name(host)
        if self.allowed is not None and name not in self.allowed:
            return 400, (f"Host {host[:100]!r} is not one this server answers to "
                         "(arbiter serve --allowed-host NAME adds one)")
        if not origin or (kind == "http" and method in _SAFE_METHODS):
            return None
        netloc = urlsplit(origin).netloc if origin != "null" else ""
        ok = (host_name(netloc) in self.allowed if self.allowed is not None
              else bool(netloc) and netloc.lower() == host.strip().lower())
        if not ok:
            return 403, (f"Origin {origin[:100]!r} is not one of this server's "
                         "(a page elsewhere may not change its state)")
        return None

    @staticmethod
    async def refuse(send: Send, status: int, message: str) -> None:
        body = json.dumps({"error": message, "field": None}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"cache-control", b"no-store"), *SECURITY_HEADERS]})
        await send({"type": "http.response.body", "body": body})
