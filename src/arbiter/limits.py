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
RATE_PER_MINUTE = 120
"""Requests per minute one client address may make to the routes that need no token."""

__all__ = [
    "BODY_BYTES",
    "DICE_MAX_DEPTH",
    "IMPORT_BYTES",
    "IMPORT_RECORDS",
    "JSON_DEPTH",
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
    "RATE_PER_MINUTE",
    "TEXT_CHARS",
    "WORK_SECONDS",
    "WS_MESSAGE_BYTES",
    "YAML_ALIASES",
    "YAML_BYTES",
    "YAML_DEPTH",
    "YAML_NODES",
]
