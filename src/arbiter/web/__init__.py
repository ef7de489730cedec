"""The browser GM console and player view: static files served by the server (docs/web.md).

The console and the player view are plain HTML, CSS and small ES modules in ``static/``,
with no build step; they talk only to the HTTP API and the WebSocket. The server mounts
:data:`STATIC_DIR` at ``/`` (``/`` is the console, ``/play/`` the player view); its dice
roller's route (``POST /api/dice``) answers with :func:`dice_json`.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from starlette.responses import Response
from starlette.staticfiles import StaticFiles

from ..dice import DiceError, SeededDice, distribution, parse, roll

STATIC_DIR: Path = Path(__file__).resolve().parent / "static"
"""The folder of the console's files: ``index.html`` (GM), ``play/index.html`` (player)."""


def dice_json(expression: str, rolled: bool = False) -> dict[str, Any]:
    """An expression's canonical text, exact distribution (as percentages for the chart,
    exact fractions alongside) and, when ``rolled``, one roll of it.

    >>> out = dice_json("2d6")
    >>> out["expression"], out["min"], out["max"], out["exact"]["7"]
    ('2d6', 2, 12, '1/6')
    """
    node = parse(expression)
    dist = distribution(node)
    out: dict[str, Any] = {
        "expression": str(node),
        "min": dist.lo,
        "max": dist.hi,
        "mean": float(dist.mean),
        "outcomes": [[value, round(float(p) * 100, 4)] for value, p in dist.items()],
        "exact": {str(value): str(p) for value, p in dist.items()},
    }
    if rolled:
        out["roll"] = roll(node, SeededDice(secrets.randbits(64))).to_json()
    return out


def dice_answer(expression: str, rolled: bool = False) -> tuple[dict[str, Any] | None, str]:
    """:func:`dice_json`, or None and the dice error's message: what the server's worker
    processes send back (an exception would have to survive pickling)."""
    try:
        return dice_json(expression, rolled), ""
    except DiceError as err:
        return None, str(err)


class ConsoleFiles(StaticFiles):
    """The console's static files, each answered with ``Cache-Control: no-cache``: a browser
    keeps them but asks again every time (an unchanged file costs a 304 on its ETag), so
    after an upgrade no tab runs yesterday's modules against today's API."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        return response

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        """No file, for a path with a NUL character (``/api/bestiary/%00``, which no API
        route takes, falls through to these files): ``os.path.realpath`` raises on one,
        which would answer 500 instead of 404."""
        if "\x00" in path:
            return "", None
        return super().lookup_path(path)


def static_app() -> ConsoleFiles:
    """What the server mounts at ``/``: :data:`STATIC_DIR`, ``index.html`` for folders."""
    return ConsoleFiles(directory=STATIC_DIR, html=True)


__all__ = ["STATIC_DIR", "ConsoleFiles", "dice_answer", "dice_json", "static_app"]
