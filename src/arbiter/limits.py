"""One budget for every piece of work an attacker controls, checked before the work starts.

The CLI, scenario and content files, HTTP and the WebSocket all read their limits here (the
dice limits live in :mod:`arbiter.dice.limits`, since the dice package imports nothing of
the rest, and are re-exported below). docs/server.md and docs/dice.md list them.
"""

from __future__ import annotations

from .dice.limits import (
    MAX_DEPTH as DICE_MAX_DEPTH,
)
from .dice.limits import (
    MAX_DICE_PER_TERM,
    MAX_EXACT_BITS,
    MAX_EXACT_MAGNITUDE,
    MAX_EXACT_OUTCOMES,
    MAX_EXACT_WORK,
    MAX_EXPLOSIONS,
    MAX_EXPRESSION_LENGTH,
    MAX_FACES,
    MAX_NUMBER,
    MAX_REROLLS,
    MAX_ROLLS,
    MAX_TERMS,
)

# -- JSON (HTTP bodies, WebSocket messages, imports) --------------------------------------
BODY_BYTES = 64 * 1024
"""Bytes in one request body (every route but import)."""
IMPORT_BYTES = 32 * 1024 * 1024
"""Bytes in one imported campaign file."""
JSON_DEPTH = 24
"""How deeply lists and objects may nest in a request body or WebSocket message."""
WS_MESSAGE_BYTES = 4096
"""Bytes in one WebSocket message from a client (the first carries the token)."""
WS_PER_TOKEN = 8
"""WebSocket subscriptions one token may hold at once (all encounters together): the 9th is
closed with code 4429 saying so."""
WS_PER_ADDRESS = 32
"""WebSocket subscriptions one client address may hold at once (code 4429 past it)."""
WS_MESSAGES_PER_SECOND = 5
"""Messages (pings) a client may send on one WebSocket in a second: past it the socket is
closed with code 4429 saying so (the console pings every 20 s)."""
TEXT_CHARS = 200
"""Characters in a name (campaign, encounter, player)."""
IMPORT_RECORDS = 200_000
"""Log records in one imported campaign, all encounters together."""

# -- YAML (scenario files and content files) ----------------------------------------------
YAML_BYTES = 1_000_000
"""Bytes in one scenario or content file."""
YAML_ALIASES = 100
"""Alias uses (``*name``) in one YAML file: enough for any real scenario, far too few for
an alias bomb (whose expansion grows as the aliases' product)."""
YAML_DEPTH = 64
"""How deeply mappings and lists may nest in a YAML file."""
YAML_NODES = 200_000
"""Nodes (scalars, mappings, lists) in one YAML file once aliases are expanded."""

# -- time -----------------------------------------------------------------------------------
WORK_SECONDS = 5.0
"""Deadline of one CPU-heavy request (dice, odds, import) on the server: past it the
client gets a 503 saying so."""
SIMULATE_SECONDS = 3.0
"""Time one simulate request plays fights for (the runs done by then are answered, with
``cut_short``); under WORK_SECONDS, so the answer comes before the 503."""
RATE_PER_MINUTE = 120
"""Requests per minute one client address may make to the routes that need no token."""
HEADER_SECONDS = 10.0
"""Seconds a client has to send a request's headers (from its connection, or from the
request's first byte on a kept-alive connection): past it the connection is closed
(``arbiter.server.guard``; uvicorn has no header timeout)."""
REQUEST_SECONDS = 60.0
"""Seconds a client has to send a request's body once its headers are in (a full import,
IMPORT_BYTES, needs about 0.5 MB/s): past it the connection is closed."""
PENDING_REQUESTS = 1000
"""Connections that may wait for their request headers at once (at most a quarter of the
process's file descriptors): a new one past it closes the one that has waited longest."""
KEEP_ALIVE_SECONDS = 5
"""Seconds an idle kept-alive connection stays open between requests (uvicorn's
``timeout_keep_alive``)."""
CONNECTIONS = 2000
"""Connections and requests at once (uvicorn's ``limit_concurrency``, at most half the
process's file descriptors): past it a request is answered 503 at once."""
CONNECTIONS_PER_ADDRESS = 64
"""Connections one client address may hold open at once (``arbiter.server.guard``): a
connection past it is answered 429 naming this limit and closed. Loopback clients are not
counted (a reverse proxy on the same machine, whose clients the server cannot tell apart)."""

# -- the battle map ---------------------------------------------------------------------------
MOVE_SQUARES = 1000
"""Squares one move on a grid may cover (Polemos ``move``), whatever the rules would allow:
refused before any path is looked at. A creature's movement for the turn bounds it further
in turn-by-turn play."""
PAINT_SQUARES = 1000
"""Squares one terrain command may paint or clear (the command's list of squares; the same
bound as every list argument, ``core.catalogue.MAX_ITEMS``)."""
MAP_SQUARES = 40_000
"""Squares of terrain one encounter's map may hold (Polemos walls, windows and smoke;
realms difficult terrain): a paint past it is refused, clearing is always allowed."""
VISION_SQUARES = 20
"""The farthest a character's vision reveals the fog of war (``fog`` ``vision``), in squares
(Chebyshev): at most (2 x 20 + 1)² = 1,681 lines of sight per character a player view."""
IMAGE_BYTES = 10 * 1024 * 1024
"""Bytes of one uploaded scene image (PNG, JPEG or WebP), as sent."""
IMAGE_SIDE = 8192
"""Pixels of a scene image's longer side: checked from its header, before any pixel is
decoded (a small file can declare a huge image)."""
CAMPAIGN_IMAGE_BYTES = 20 * 1024 * 1024
"""Bytes of every image a campaign stores, together (each as stored, re-encoded): small
enough that the campaign's export (images in base64) stays within ``IMPORT_BYTES``."""

__all__ = [
    "BODY_BYTES",
    "CAMPAIGN_IMAGE_BYTES",
    "CONNECTIONS",
    "CONNECTIONS_PER_ADDRESS",
    "DICE_MAX_DEPTH",
    "HEADER_SECONDS",
    "IMAGE_BYTES",
    "IMAGE_SIDE",
    "IMPORT_BYTES",
    "IMPORT_RECORDS",
    "JSON_DEPTH",
    "KEEP_ALIVE_SECONDS",
    "MAP_SQUARES",
    "MAX_DICE_PER_TERM",
    "MAX_EXACT_BITS",
    "MAX_EXACT_MAGNITUDE",
    "MAX_EXACT_OUTCOMES",
    "MAX_EXACT_WORK",
    "MAX_EXPLOSIONS",
    "MAX_EXPRESSION_LENGTH",
    "MAX_FACES",
    "MAX_NUMBER",
    "MAX_REROLLS",
    "MAX_ROLLS",
    "MAX_TERMS",
    "MOVE_SQUARES",
    "PAINT_SQUARES",
    "PENDING_REQUESTS",
    "RATE_PER_MINUTE",
    "REQUEST_SECONDS",
    "SIMULATE_SECONDS",
    "TEXT_CHARS",
    "WORK_SECONDS",
    "WS_MESSAGES_PER_SECOND",
    "WS_MESSAGE_BYTES",
    "WS_PER_ADDRESS",
    "WS_PER_TOKEN",
    "YAML_ALIASES",
    "YAML_BYTES",
    "YAML_DEPTH",
    "YAML_NODES",
]
