"""The browser GM console and player view: static files served by the server (docs/web.md).

The console and the player view are plain HTML, CSS and small ES modules in ``static/``,
with no build step; they talk only to the HTTP API and the WebSocket. The server mounts
:data:`STATIC_DIR` at ``/`` (``/`` is the console, ``/play/`` the player view) and adds
:func:`routes`, the one endpoint the console needs beyond the game API: the dice roller.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.staticfiles import StaticFiles

from ..dice import DiceError, SeededDice, distribution, parse, roll

STATIC_DIR: Path = Path(__file__).resolve().parent / "static"
"""The folder of the console's files: ``index.html`` (GM), ``play/index.html`` (player)."""

MAX_EXPRESSION = 200


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


async def dice_endpoint(request: Request) -> Response:
    """``POST /api/dice {"expression": "4d6kh3", "roll": true}``: the exact distribution of
    any expression, and a roll of it when asked. Anyone may ask; nothing is stored."""
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError:
        return JSONResponse({"error": "send a JSON object as the request body",
                             "field": None}, status_code=400)
    expression = body.get("expression") if isinstance(body, dict) else None
    if not isinstance(expression, str) or not expression.strip():
        return JSONResponse({"error": "give dice, e.g. 2d6+3", "field": "expression"},
                            status_code=422)
    if len(expression) > MAX_EXPRESSION:
        return JSONResponse({"error": f"must be at most {MAX_EXPRESSION} characters",
                             "field": "expression"}, status_code=422)
    try:
        out = dice_json(expression.strip(), bool(body.get("roll")))
    except DiceError as err:
        return JSONResponse({"error": str(err), "field": "expression"}, status_code=422)
    return JSONResponse(out)


def routes() -> list[BaseRoute]:
    """The routes the server adds before mounting :data:`STATIC_DIR` at ``/``."""
    return [Route("/api/dice", dice_endpoint, methods=["POST"])]


class ConsoleFiles(StaticFiles):
    """The console's static files, each answered with ``Cache-Control: no-cache``: a browser
    keeps them but asks again every time (an unchanged file costs a 304 on its ETag), so
    after an upgrade no tab runs yesterday's modules against today's API."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        return response


def static_app() -> ConsoleFiles:
    """What the server mounts at ``/``: :data:`STATIC_DIR`, ``index.html`` for folders."""
    return ConsoleFiles(directory=STATIC_DIR, html=True)


__all__ = ["STATIC_DIR", "ConsoleFiles", "dice_json", "routes", "static_app"]
