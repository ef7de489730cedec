"""The game server: an HTTP and WebSocket API over the event store. See ``docs/server.md``.

``arbiter serve`` calls :func:`run_server`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..store import GameService, database_target, open_store
from .app import create_app


def run_server(host: str, port: int, db: Path | None) -> None:
    """Serve the API on ``host:port`` with the store at ``db`` (or ``$ARBITER_DATABASE_URL``,
    or ``./arbiter.db``). On an empty store, create a demo campaign and print its game
    master's URL once (tokens are stored only as digests, so it cannot be shown again)."""
    import uvicorn

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
    print(f"arbiter: API on {base}/api (description: {base}/openapi.json)", file=sys.stderr)
    app = create_app(service=service)
    try:
        uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning",
                    ws_max_size=64 * 1024, h11_max_incomplete_event_size=64 * 1024)
    finally:
        store.close()


__all__ = ["create_app", "run_server"]
