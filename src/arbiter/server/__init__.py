"""The game server: an HTTP and WebSocket API over the event store. See ``docs/server.md``.

``arbiter serve`` calls :func:`run_server`.
"""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

from ..build import build
from ..store import GameService, database_target, open_store
from .app import create_app
from .hardening import allowed_hosts_for

LOOPBACK = ("127.", "::1", "localhost")


def admin_token_for(host: str, given: str | None) -> str | None:
    """The admin token a server on ``host`` uses: the one given, else none on the loopback
    address, else a fresh one.

    >>> admin_token_for("127.0.0.1", None) is None, admin_token_for("::1", "x")
    (True, 'x')
    >>> len(admin_token_for("0.0.0.0", None) or "") >= 32
    True
    """
    if given is None and not host.startswith(LOOPBACK):
        return secrets.token_urlsafe(24)
    return given


def uvicorn_options() -> dict[str, object]:
    """What ``run_server`` tells uvicorn beyond the address: uvicorn never rewrites the
    client's address from ``X-Forwarded-For`` (by default it trusts any loopback client's
    header); the API reads that header itself, and only from ``--trusted-proxy`` addresses
    (``Api.address``). Slow clients (docs/server.md): the HTTP protocol is
    :class:`~arbiter.server.guard.GuardedHttp` (a deadline for each request's headers and
    body, a cap on half-sent requests), idle kept-alive connections close after
    KEEP_ALIVE_SECONDS, and past CONNECTIONS (at most half the file descriptors) a request
    is answered 503 at once."""
    import resource

    from ..limits import CONNECTIONS, KEEP_ALIVE_SECONDS
    from .guard import GuardedHttp, per_address_cap

    try:  # read at each connection; a bad $ARBITER_CONNECTIONS_PER_ADDRESS stops the start
        per_address_cap()
    except ValueError as err:
        raise SystemExit(f"arbiter: {err}") from None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    connections = CONNECTIONS if soft == resource.RLIM_INFINITY else max(
        16, min(CONNECTIONS, soft // 2))
    return {"access_log": False, "log_level": "warning", "ws_max_size": 64 * 1024,
            "h11_max_incomplete_event_size": 64 * 1024, "proxy_headers": False,
            "forwarded_allow_ips": "", "http": GuardedHttp,
            "timeout_keep_alive": KEEP_ALIVE_SECONDS, "limit_concurrency": connections,
            "backlog": 2048}


def run_server(host: str, port: int, db: Path | None, admin_token: str | None = None,
               trusted_proxies: tuple[str, ...] = (),
               allowed_hosts: tuple[str, ...] = ()) -> None:
    """Serve the API on ``host:port`` with the store at ``db`` (or ``$ARBITER_DATABASE_URL``,
    or ``./arbiter.db``). On an empty store, create a demo campaign and print its game
    master's URL once (tokens are stored only as digests, so it cannot be shown again).

    Creating and importing campaigns needs ``admin_token`` when one is given; on an address
    other than the loopback one, a fresh admin token is made when none is given, so nobody
    on the network can fill the database. Its link is printed. ``X-Forwarded-For`` is read
    for the rate limit only from the ``trusted_proxies`` addresses. Only the loopback
    names, ``host`` and ``allowed_hosts`` are answered as the Host (any Host on a wildcard
    address with no ``allowed_hosts``, with a warning)."""
    import uvicorn

    admin_token = admin_token_for(host, admin_token)
    hosts = allowed_hosts_for(host, allowed_hosts)
    if hosts is None:
        print(f"arbiter: warning: serving on {host} with no --allowed-host: any Host header "
              "is accepted, so a page on another site could reach this server through DNS "
              "rebinding (give --allowed-host NAME for each name it is reached by)",
              file=sys.stderr)

    target = database_target(db)
    store = open_store(target)
    service = GameService(store)
    base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    if not store.campaigns():
        from ..web.demo import create_demo_tables, player_link

        tables = create_demo_tables(service)
        print(f"arbiter: created demo campaigns (polemos, zones, realms) in {target}",
              file=sys.stderr)
        for table in tables:
            print(f"  player of {table.player_character} ({table.ruleset}): "
                  f"{player_link(base, table)}", file=sys.stderr)
    # Tokens are stored only as digests, so a link cannot be shown again: whoever starts
    # the server owns its database, so each start issues a fresh game-master link. The token
    # rides after '#', which browsers never send, so no access log can hold it.
    campaigns = store.campaigns()[:12]
    pairs = ",".join(
        f"{c.id}:{service.issue_token(c.id, 'gm', 'game master (console link)', [])}"
        for c in campaigns)
    names = ", ".join(f"{c.id} ({c.name})" for c in campaigns)
    print(f"arbiter: serving {target}: {names}", file=sys.stderr)
    print(f"  game master console: {base}/#campaigns={pairs}", file=sys.stderr)
    if admin_token:
        print(f"  admin (creating and importing campaigns): {base}/#admin={admin_token}",
              file=sys.stderr)
    print(f"arbiter: API on {base}/api (description: {base}/openapi.json)", file=sys.stderr)
    print(f"arbiter: the rules engine runs its {build()} build (docs/performance.md)",
          file=sys.stderr)
    print("arbiter: press Ctrl+C to stop", file=sys.stderr)
    app = create_app(service=service, admin_token=admin_token,
                     trusted_proxies=tuple(trusted_proxies), allowed_hosts=hosts)
    try:
        uvicorn.run(app, host=host, port=port, **uvicorn_options())  # type: ignore[arg-type]
    finally:
        store.close()


__all__ = ["admin_token_for", "create_app", "run_server", "uvicorn_options"]
