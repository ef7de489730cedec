"""The HTTP and WebSocket API (Starlette). Routes, roles and errors: see ``docs/server.md``.

Every answer is JSON. Errors are ``{"error": message, "field": name-or-null}`` with a 4xx
status; a 5xx would be a bug (the fuzz tests look for one). Tokens travel only in the
``Authorization: Bearer`` header (and the first WebSocket message), never in a URL, and are
never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import gc
import hmac
import json
import logging
import multiprocessing
import os
import re
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, TypeVar

import msgspec
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from .. import __version__
from ..build import build
from ..core import (
    Command,
    EncounterState,
    Event,
    IllegalCommand,
    InvalidCommand,
    NoOdds,
    RulesError,
    Ruleset,
    UnknownEntity,
    available,
    load_ruleset,
)
from ..core.catalogue import InvalidArgument, NotAllowed, authorize, references
from ..core.options import options_json
from ..core.roster import AlreadyListed, NotListed
from ..core.ruleset import revealed_squares
from ..dice.sources import NoDice
from ..limits import (
    BODY_BYTES,
    IMAGE_BYTES,
    IMPORT_BYTES,
    JSON_DEPTH,
    RATE_PER_MINUTE,
    SIMULATE_SECONDS,
    WORK_SECONDS,
    WS_MESSAGE_BYTES,
    WS_MESSAGES_PER_SECOND,
)
from ..sim import SimError
from ..sim.from_state import job_from_events, play_runs
from ..sim.from_state import summary as sim_summary
from ..sim.stats import Tally
from ..store import (
    Conflict,
    ExportFormatError,
    GameService,
    Loaded,
    LogRecord,
    NotFound,
    NothingToUndo,
    Principal,
    StoreError,
    open_store,
)
from ..store.backends import PostgresBackend
from ..store.errors import TooMuch
from ..store.images import FORMATS, ImageError, StoredImage, fogged
from ..store.importing import Deadline, DeadlineExceeded
from ..store.replay import effective_entries
from ..store.service import RosterLoaded, _joining, digest
from ..store.store import NOTIFY_CHANNEL, CampaignRecord
from .guard import TRIM_BYTES, steady_allocator, trim_memory, trim_soon
from .hardening import LOOPBACK_HOSTS, SECURITY_HEADERS, TEST_HOST, Hardening
from .hub import CLOSE, Hub, Subscriber
from .openapi import openapi_document
from .schema import ValidationError, check, depth
from .views import RosterView, View, campaign_record, finder, odds_json, plain, strings

log = logging.getLogger("arbiter.server")
T = TypeVar("T")

LOG_PAGE = 500
DEFAULT_SETTINGS: dict[str, Any] = {"dice_dialect": "arbiter", "players_roll": False}
"""A campaign's settings before its game master changes them (``configure``)."""
ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_UNKNOWN_KEY = re.compile(r"unknown stat-block key\(s\) ([^ ,]+)")


class ApiError(Exception):
    def __init__(self, status: int, message: str, field: str | None = None,
                 **extra: Any) -> None:
        self.status = status
        self.message = message
        self.field = field
        self.extra = extra
        super().__init__(message)


def error_response(status: int, message: str, field: str | None = None,
                   headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    """An error answer: ``{"error", "field"}`` and extras; ``retry_after`` becomes the
    ``Retry-After`` header."""
    retry, allow = extra.pop("retry_after", None), extra.pop("allow", None)
    headers = dict(headers or {})
    if retry is not None:
        headers["Retry-After"] = str(retry)
    if allow is not None:
        headers["Allow"] = str(allow)
    return JSONResponse({"error": message, "field": field, **extra}, status_code=status,
                        headers=headers or None)


def _argument_field(err: RulesError, command: Command | None) -> str | None:
    if command is None:
        return "command"
    if isinstance(err, InvalidArgument | NotAllowed):
        return err.field
    if isinstance(err, UnknownEntity):
        for key, value in command.args.items():
            if value == err.name:
                return f"command.{key}"
        if command.actor == err.name:
            return "command.actor"
    return "command"


def rules_error(err: RulesError, command: Command | None = None,
                view: View | None = None) -> ApiError:
    """A 422 for a refusal by the rules (a 403 for what the issuer may not do); for a
    player, with nothing concealed in it."""
    message = str(err)
    if view is not None and not view.gm:
        if isinstance(err, UnknownEntity):
            message = str(UnknownEntity(err.name, view.visible_ids()))
        else:
            message = view.error_text(message, strings(command.to_json() if command else {}))
    extra: dict[str, Any] = {}
    if isinstance(err, IllegalCommand) and err.rule:
        extra["rule"] = err.rule
    status = 403 if isinstance(err, NotAllowed) else 422
    return ApiError(status, message, _argument_field(err, command), **extra)


def _scrub_reason(item: dict[str, Any], view: View) -> None:
    """A refusal in the legal options as a player may read it: its reason withheld (and
    its remedy with it) when it would name a creature the player does not see."""
    reason = item.get("reason")
    if isinstance(reason, str) and view.mentions_secret(reason):
        item["reason"] = "not possible here"
        item.pop("rule", None)
        item.pop("remedy", None)


def _with_path_id(body: dict[str, Any], ident: str, whose: str) -> dict[str, Any]:
    """A sheet put at an item route: its id is the path's (a body naming another is a 422)."""
    if body.get("id", ident) != ident:
        raise ApiError(422, f"the id is the path's ({ident!r}); {whose} id does not change",
                       "id")
    return {**body, "id": ident}


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


async def read_json(request: Request, schema: str | None, limit: int = BODY_BYTES,
                    optional: bool = False) -> Any:
    """The request's JSON body, bounded in size and depth and checked against ``schema``."""
    return parse_json(await read_body(request, limit), schema, optional)


async def read_body(request: Request, limit: int = BODY_BYTES) -> bytes:
    """The request's body, refused with a 413 past ``limit`` bytes."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise ApiError(413, f"the request body is larger than {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, f"the request body is larger than {limit} bytes")
    return bytes(body)


def parse_json(body: bytes, schema: str | None, optional: bool = False) -> Any:
    """A body read as JSON, bounded in depth and checked against ``schema`` (CPU work: a
    big body, an import's, is parsed off the event loop)."""
    if not body.strip():
        if optional:
            return {}
        raise ApiError(400, "send a JSON object as the request body")
    try:
        value = json.loads(body, parse_constant=_no_constants)
    except (ValueError, RecursionError) as err:
        raise ApiError(400, f"the body is not valid JSON: {str(err)[:200]}") from None
    if depth(value) > JSON_DEPTH:
        raise ApiError(400, f"the body nests deeper than {JSON_DEPTH} levels")
    broken = unencodable(value)
    if broken is not None:
        raise ApiError(400, "text must be valid Unicode (it holds a lone surrogate)",
                       broken or None)
    value = whole_numbers(value)
    if schema is not None:
        try:
            check(value, schema)
        except ValidationError as err:
            raise ApiError(422 if err.field else 400, err.message, err.field) from None
    return value


def unencodable(value: Any, path: str = "") -> str | None:
    """The path of the first text in a JSON value (keys included) that is not valid
    Unicode (a lone surrogate, which JSON's ``\\ud800`` escapes can carry), else None."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return where
        elif isinstance(item, dict):
            for key, inner in item.items():
                here = f"{where}.{key}" if where else str(key)
                try:
                    str(key).encode("utf-8")
                except UnicodeEncodeError:
                    return where
                stack.append((inner, here))
        elif isinstance(item, list):
            stack.extend((inner, f"{where}.{i}" if where else str(i))
                         for i, inner in enumerate(item))
    return None


def whole_numbers(value: Any) -> Any:
    """``value`` with every float that is a whole number (``1.0``, ``3e2``) as an int: JSON
    does not tell them apart, and neither does JSON Schema's ``integer``."""
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) <= 2**63 else value
    if isinstance(value, dict):
        return {k: whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [whole_numbers(v) for v in value]
    return value


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _path_id(request: Request, name: str, kind: str) -> str:
    value = str(request.path_params.get(name, ""))
    if not ID_RE.match(value):
        raise ApiError(404, f"no {kind} {value[:80]!r}")
    if kind == "campaign" and value == "import":  # /api/campaigns/import takes POST only
        raise ApiError(405, f"{request.method} is not allowed on '/api/campaigns/import' "
                       "(allowed: POST)", allow="POST")
    return value


def _query_int(request: Request, name: str, default: int, lo: int, hi: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not re.fullmatch(r"[0-9]{1,16}", raw):
        raise ApiError(400, "must be a whole number", name)
    value = int(raw)
    if not lo <= value <= hi:
        raise ApiError(400, f"must be between {lo} and {hi}", name)
    return value


_POOL = ThreadPoolExecutor(max_workers=32, thread_name_prefix="arbiter")
_HEAVY = ThreadPoolExecutor(max_workers=2, thread_name_prefix="arbiter-heavy")
"""CPU-heavy work (dice, odds, imports): never on the event loop, at most two at a time (one
per core), each with a deadline."""


_PROCESSES: ProcessPoolExecutor | None = None
"""Pure CPU-heavy work that needs no state (the dice route): in other processes, so that
big-integer arithmetic, which holds the GIL, never delays the event loop. Started on first
use (spawned, not forked from a threaded server)."""


def processes() -> ProcessPoolExecutor:
    global _PROCESSES
    if _PROCESSES is None:
        _PROCESSES = ProcessPoolExecutor(max_workers=2,
                                         mp_context=multiprocessing.get_context("spawn"))
    return _PROCESSES


def stop_processes() -> None:
    """End the worker processes now, work in progress included (a deadline passed, or the
    server stops); the next use starts new ones."""
    global _PROCESSES
    pool, _PROCESSES = _PROCESSES, None
    if pool is None:
        return
    workers = list(getattr(pool, "_processes", {}).values())  # no public way to kill them
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()


IMPORT_HERE_BYTES = 1 << 20
"""An import file this large or smaller is parsed and stored in the server's process; a
larger one in a child process (:func:`_import_in_child`)."""

_IMPORTS: ProcessPoolExecutor | None = None
"""The child processes of big imports: two at a time, each ending after one import (its
memory goes with it). Spawned, not forked from a threaded server."""


def import_processes() -> ProcessPoolExecutor:
    global _IMPORTS
    if _IMPORTS is None:
        _IMPORTS = ProcessPoolExecutor(max_workers=2, max_tasks_per_child=1,
                                       mp_context=multiprocessing.get_context("spawn"),
                                       initializer=os.nice, initargs=(10,))
    # (a lower CPU priority, from before the child imports anything of Arbiter: on a busy
    # machine the server's own process, answering everyone else, gets the CPU first)
    return _IMPORTS


async def _import_here(games: GameService, raw: bytes, until: float) -> Response:
    """Parse, check and store an import file (in one transaction), due by ``until`` (a
    ``time.time``): the 201 answer, or the ApiError naming what is wrong."""
    waiting = Deadline(WORK_SECONDS)
    waiting.at = time.monotonic() + (until - time.time())

    def work() -> CampaignRecord:
        waiting.check()
        document = parse_json(raw, "CampaignFile")  # (bounded by IMPORT_BYTES)
        return games.import_campaign(document, Deadline(WORK_SECONDS))

    # Not heavy(): the work is not abandoned at the deadline but stops itself, rolling
    # back, so a 503 always means nothing was stored, and work that committed is a 201.
    try:
        record = await asyncio.get_running_loop().run_in_executor(_HEAVY, work)
    except DeadlineExceeded as err:
        raise ApiError(503, str(err), retry_after="5") from None
    except ExportFormatError as err:
        raise ApiError(422, str(err), err.field) from None
    except RulesError as err:
        raise ApiError(422, str(err), "campaign") from None
    return JSONResponse({"campaign": _campaign_json(record)}, status_code=201)


def _import_in_child(target: str, raw: bytes, until: float
                     ) -> tuple[int, bytes, dict[str, str]]:
    """In a child process: :func:`_import_here` on the store at ``target``, its answer as
    the API gives it (status, body, the content type and Retry-After headers)."""
    store = open_store(target)
    try:
        async def endpoint(request: Request) -> Response:
            return await _import_here(GameService(store), raw, until)
        response: Response = asyncio.run(guarded(endpoint)(None))  # type: ignore[arg-type]
    finally:
        store.close()
    headers = {k: v for k, v in response.headers.items()
               if k in ("content-type", "retry-after")}
    return response.status_code, bytes(response.body), headers


async def heavy(fn: Callable[..., T], *args: Any, seconds: float = WORK_SECONDS,
                pool: Executor | None = None) -> T:
    """Run CPU-heavy work off the event loop, with a deadline: past it the client gets a 503
    (the work, already bounded by the budgets of ``arbiter.limits``, finishes in its worker
    and is dropped). ``pool``: where (default: two threads, one per core)."""
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(pool or _HEAVY, functools.partial(fn, *args))
    try:
        return await asyncio.wait_for(future, seconds)
    except TimeoutError:
        if pool is not None and pool is _PROCESSES:
            stop_processes()  # the work stops with its process
        raise ApiError(503, f"this took longer than {seconds:g} s and was stopped: ask for "
                       "something smaller, or try again when the server is less busy",
                       retry_after="5") from None


class RateLimiter:
    """Requests per client address to the routes that need no token: a bucket of
    ``per_minute`` requests per address, refilled evenly. Addresses whose buckets are full
    are forgotten, so an attacker with many addresses cannot grow it without bound."""

    def __init__(self, per_minute: int = RATE_PER_MINUTE) -> None:
        self.per_minute = per_minute
        self.rate = per_minute / 60
        self.buckets: dict[str, tuple[float, float]] = {}
        self.lock = threading.Lock()

    def wait(self, key: str) -> float:
        """0 when ``key`` may go on now (and one request is counted), else how many
        seconds until it may."""
        now = time.monotonic()
        with self.lock:
            tokens, last = self.buckets.get(key, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + (now - last) * self.rate)
            if tokens < 1:
                self.buckets[key] = (tokens, now)
                return (1 - tokens) / self.rate
            self.buckets[key] = (tokens - 1, now)
            if len(self.buckets) > 10_000:
                self.buckets = {k: (t, at) for k, (t, at) in self.buckets.items()
                                if t + (now - at) * self.rate < self.per_minute}
            return 0.0


async def run_in_threadpool(fn: Callable[..., T], *args: Any) -> T:
    """Run blocking work (the store) in a worker thread. A plain executor: cheaper per call
    than anyio's, which matters at hundreds of commands per second."""
    loop = asyncio.get_running_loop()
    if args:
        return await loop.run_in_executor(_POOL, functools.partial(fn, *args))
    return await loop.run_in_executor(_POOL, fn)


class Api:
    """The routes, bound to a game service."""

    def __init__(self, service: GameService | None = None, db: Path | str | None = None,
                 snapshot_every: int = 200, admin_token: str | None = None,
                 rate_per_minute: int = RATE_PER_MINUTE,
                 trusted_proxies: tuple[str, ...] = ()) -> None:
        self.admin_digest = digest(admin_token) if admin_token else None
        self.limiter = RateLimiter(rate_per_minute)
        self.trusted_proxies = frozenset(trusted_proxies)
        """Addresses whose ``X-Forwarded-For`` names the client (``--trusted-proxy``)."""
        self.service = service
        self.db = db
        self.snapshot_every = snapshot_every
        self.hub = Hub()
        self._campaign_of: dict[str, str] = {}
        self._fogged: dict[tuple[Any, ...], bytes] = {}  # players' scene images under fog
        self._campaigns: set[str] = set()
        self._options: dict[tuple[Any, ...], dict[str, Any]] = {}
        """Legal options answered, by encounter, version, actor and asker (at most 512)."""

    # -- life ---------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        owned = self.service is None
        if self.service is None:
            store = await run_in_threadpool(open_store, self.db)
            self.service = GameService(store, snapshot_every=self.snapshot_every)
        self.service.listeners.append(self.hub.on_record)
        self.hub.records = self.service.records
        stop = threading.Event()
        listener = None
        backend = self.service.store.backend
        if isinstance(backend, PostgresBackend):
            listener = threading.Thread(target=self._listen, args=(backend, stop),
                                        name="arbiter-listen", daemon=True)
            listener.start()
        try:
            yield
        finally:
            stop.set()
            if listener is not None:
                listener.join(timeout=5)
            self.service.listeners.remove(self.hub.on_record)
            stop_processes()
            if owned:
                self.service.store.close()
                self.service = None

    def _listen(self, backend: PostgresBackend, stop: threading.Event) -> None:
        """Follow appends made by other server processes on the same PostgreSQL, so this
        process's WebSocket subscribers hear of them too."""
        def heard(encounter_id: str) -> None:
            if self.service is not None and self.hub.count(encounter_id):
                self.service.catch_up(encounter_id)
        while not stop.is_set():
            try:
                backend.listen(NOTIFY_CHANNEL, heard, stop)
            except Exception:
                log.warning("lost the PostgreSQL notification connection; retrying")
                stop.wait(1.0)

    @property
    def games(self) -> GameService:
        if self.service is None:
            raise ApiError(503, "the store is not ready yet")
        return self.service

    # -- access -------------------------------------------------------------------------
    async def campaign_principal(self, request: Request, campaign_id: str,
                                 gm: bool = False) -> Principal:
        games = self.games
        token = bearer(request)
        known = self._campaigns

        def access() -> Principal | None:
            if campaign_id not in known:
                games.store.campaign(campaign_id)  # NotFound: 404 before 401
                known.add(campaign_id)
            return None if token is None else games.authenticate(campaign_id, token)
        principal = None
        if campaign_id in known and token is not None:
            principal = games.cached_principal(campaign_id, token)
        if principal is None:
            principal = await run_in_threadpool(access)
        if token is None:
            raise ApiError(401, "send 'Authorization: Bearer TOKEN' (a token of this campaign)",
                           "authorization")
        if principal is None:
            raise ApiError(401, "this token is not valid for this campaign", "authorization")
        if gm and not principal.is_gm:
            raise ApiError(403, "only the game master may do this")
        return principal

    async def encounter_principal(self, request: Request, gm: bool = False
                                  ) -> tuple[str, Principal]:
        encounter_id = _path_id(request, "encounter_id", "encounter")
        campaign_id = self._campaign_of.get(encounter_id)
        if campaign_id is None:
            record = await run_in_threadpool(self.games.store.encounter, encounter_id)
            campaign_id = self._campaign_of[encounter_id] = record.campaign_id
        return encounter_id, await self.campaign_principal(request, campaign_id, gm)

    # -- player rules -------------------------------------------------------------------
    @staticmethod
    def player_guard(principal: Principal,
                     seen: list[View] | None = None) -> Callable[[Loaded, Command], None]:
        """The one check a player's command passes before the rules see it, for every route
        that takes a command (submit and odds): its shape (the catalogue), then the
        player's authority (:func:`~arbiter.core.catalogue.authorize`), then every creature
        it names, which must be one the player can see. Each step depends only on what
        the player sent and what they can see, so a hidden creature answers exactly like a
        missing one. The View it builds is appended to ``seen`` when given (for filtering
        the answer against the very state the command was decided on)."""
        def guard(loaded: Loaded, command: Command) -> None:
            if principal.is_gm:
                return
            view = View(loaded.state, principal, loaded.ruleset)
            if seen is not None:
                seen.append(view)
            state = loaded.state
            catalogue = loaded.ruleset.catalogue
            names = {e.id: e.name for e in state.entities.values() if e.id in view.own}
            authorize(catalogue, command, frozenset(view.own), state.current,
                      state.in_combat, names)
            for ref in references(catalogue, command):
                if ref not in state.entities or ref in view.concealed:
                    raise UnknownEntity(ref, view.visible_ids())
        return guard

    def address(self, conn: Request | WebSocket) -> str:
        """The client's address: the peer's, or, when the peer is a trusted proxy
        (``arbiter serve --trusted-proxy``), the last address of ``X-Forwarded-For`` that is
        not a trusted proxy itself. Nobody else's header is read: a client cannot claim
        another address's budget."""
        peer = conn.client.host if conn.client else "unknown"
        if peer not in self.trusted_proxies:
            return peer
        hops = [h.strip() for h in conn.headers.get("x-forwarded-for", "").split(",")]
        for hop in reversed(hops):
            if hop and hop not in self.trusted_proxies:
                return hop[:64]
        return peer

    def limit(self, request: Request) -> None:
        """The rate limit of the routes that need no token, per client address."""
        client = self.address(request)
        wait = self.limiter.wait(client)
        if wait:
            seconds = max(1, int(wait + 0.999))
            raise ApiError(429, f"too many requests from your address: routes that need no "
                           f"token take {self.limiter.per_minute} a minute; try again in "
                           f"{seconds} s", retry_after=str(seconds))

    # -- routes: service ------------------------------------------------------------------
    async def dice(self, request: Request) -> Response:
        """``POST /api/dice {"expression": "4d6kh3", "roll": true}``: the exact distribution
        of any expression, and a roll of it when asked. Anyone may ask (rate-limited);
        nothing is stored; the work runs off the event loop within the dice budgets.
        ``"dialect": "roll20"`` (or ``foundry``, ``d20``) reads the expression in that
        tool's notation; ``read_as`` is Arbiter's spelling of what was read."""
        self.limit(request)
        from ..dice import DIALECTS, DiceError, parse

        try:
            body = await read_json(request, "DiceRequest")
        except ApiError as err:
            if err.field == "dialect":
                err.message += "; the dialects are " + ", ".join(DIALECTS)
            raise
        from ..web import dice_answer

        dialect = str(body.get("dialect", "arbiter"))
        try:  # reading is cheap and bounded; the odds are worked out from Arbiter's spelling
            read_as = str(parse(body["expression"].strip(), dialect))
        except DiceError as err:
            raise ApiError(422, str(err), "expression") from None
        out, error = await heavy(dice_answer, read_as, bool(body.get("roll")),
                                 pool=processes())
        if out is None:
            raise ApiError(422, error, "expression")
        out["dialect"] = dialect
        out["read_as"] = read_as
        return JSONResponse(out)

    async def health(self, request: Request) -> Response:
        if self.service is None:
            return error_response(503, "the store is not ready yet")
        return JSONResponse({"ok": True, "build": build()})

    async def openapi(self, request: Request) -> Response:
        return JSONResponse(openapi_document(__version__))

    async def rulesets(self, request: Request) -> Response:
        out = []
        for name in available():
            try:
                ruleset = load_ruleset(name)
            except Exception:  # a ruleset package that does not import is not offered
                continue
            out.append({"name": name, "title": ruleset.title,
                        "commands": {k: c.to_json() for k, c in ruleset.catalogue.items()},
                        "conditions": [{"name": k, "text": v}
                                       for k, v in ruleset.condition_texts.items()],
                        "rulings": [_ruling_json(r, r.default) for r in ruleset.rulings],
                        "activities": list(ruleset.time_activities),
                        "display": ruleset.display()})
        return JSONResponse({"rulesets": out})

    async def ruleset_commands(self, request: Request) -> Response:
        """A ruleset's whole catalogue: every command with its arguments, who may issue it
        and its JSON Schema, and every event type with its fields and sentences."""
        name = str(request.path_params.get("ruleset", ""))
        if name not in available():
            raise ApiError(404, f"no ruleset {name[:80]!r} (rulesets: "
                           f"{', '.join(available())})")
        ruleset = load_ruleset(name)
        return JSONResponse({
            "ruleset": name,
            "commands": {k: {**c.to_json(), "schema": c.schema()}
                         for k, c in ruleset.catalogue.items()},
            "events": {k: e.to_json() for k, e in ruleset.events.items()}})

    # -- routes: campaigns --------------------------------------------------------------
    def require_admin(self, request: Request, what: str) -> None:
        """With an admin token set (a server on an open network), creating or importing a
        campaign needs it: anyone else may only use the campaigns they hold tokens of."""
        if self.admin_digest is None:
            return
        token = bearer(request)
        if token is None or not hmac.compare_digest(digest(token), self.admin_digest):
            raise ApiError(401, f"{what} on this server needs its admin token: send "
                           "'Authorization: Bearer ADMIN_TOKEN' (open the admin link that "
                           "'arbiter serve' printed)", "authorization")

    async def create_campaign(self, request: Request) -> Response:
        self.limit(request)
        self.require_admin(request, "creating a campaign")
        body = await read_json(request, "CreateCampaign")
        games = self.games
        try:
            record, token = await run_in_threadpool(
                games.create_campaign, body["name"], body["ruleset"], body.get("rulings", {}))
        except RulesError as err:
            field = "rulings" if "ruling" in str(err) else "ruleset"
            raise ApiError(422, str(err), field) from None
        return JSONResponse({"campaign": _campaign_json(record), "gm_token": token},
                            status_code=201)

    async def import_campaign(self, request: Request) -> Response:
        self.limit(request)
        self.require_admin(request, "importing a campaign")
        raw = await read_body(request, limit=IMPORT_BYTES)
        until = time.time() + WORK_SECONDS  # waiting for a worker counts too
        target = self._database()
        if target is None or len(raw) <= IMPORT_HERE_BYTES:
            try:
                return await _import_here(self.games, raw, until)
            finally:
                if len(raw) > TRIM_BYTES:  # the parsed file's memory, back to the system
                    trim_soon()
        # A big file is parsed, checked and stored by a child process on the same
        # database: json.loads of 17 MB holds the GIL 0.3-0.8 s, whichever thread runs it
        # here, and its memory would stay with the server (issue: bounded work).
        try:
            status, body, headers = await asyncio.get_running_loop().run_in_executor(
                import_processes(), _import_in_child, target, raw, until)
        except BrokenProcessPool:  # the child died (killed, out of memory): start anew
            global _IMPORTS
            _IMPORTS = None
            raise ApiError(503, "the process importing this file stopped before it answered "
                           "(its transaction is stored only if it had committed: a second "
                           "import of the file says so with a 409)", retry_after="5") from None
        finally:
            trim_soon()  # the memory of reading the body, back to the system
        if status == 201:
            self.games.imported(json.loads(body)["campaign"]["id"])
        return Response(body, status_code=status, headers=headers)

    def _database(self) -> str | None:
        """Where this server's store lives, for another process to open it (None: a store
        only this process can reach, an in-memory SQLite)."""
        backend = self.games.store.backend
        target = getattr(backend, "path", None) or getattr(backend, "url", None)
        return None if target in (None, ":memory:") else str(target)

    async def campaign(self, request: Request) -> Response:
        cid = _path_id(request, "campaign_id", "campaign")
        principal = await self.campaign_principal(request, cid)
        games = self.games

        def work() -> dict[str, Any]:
            record = games.store.campaign(cid)
            settings, clock = games.roster(cid, lambda r: (dict(r.state.settings),
                                                           r.state.clock))
            out: dict[str, Any] = {"campaign": {**_campaign_json(record),
                                                "settings": {**DEFAULT_SETTINGS, **settings},
                                                "time": clock},
                                   "role": principal.role,
                                   "encounters": [_encounter_json(e) for e in
                                                  games.store.encounters(cid)]}
            if principal.is_gm:
                out["players"] = [{"name": t.name, "characters": list(t.characters),
                                   "created_at": t.created_at} for t in games.players(cid)]
            else:
                out["name"] = principal.name
                out["characters"] = sorted(principal.characters)
            return out
        return await answered(work)

    async def campaign_rulings(self, request: Request) -> Response:
        cid = _path_id(request, "campaign_id", "campaign")
        await self.campaign_principal(request, cid)
        record = await run_in_threadpool(self.games.store.campaign, cid)
        chosen = load_ruleset(record.ruleset).rulings.resolve(record.rulings)
        return JSONResponse({"rulings": _rulings_json(record.ruleset, chosen)})

    async def set_campaign_rulings(self, request: Request) -> Response:
        cid = _path_id(request, "campaign_id", "campaign")
        await self.campaign_principal(request, cid, gm=True)
        body = await read_json(request, "SetRulings")
        try:
            await run_in_threadpool(self.games.set_campaign_rulings, cid, body["rulings"])
        except RulesError as err:
            raise ApiError(422, str(err), "rulings") from None
        return await self.campaign_rulings(request)

    async def create_player(self, request: Request) -> Response:
        cid = _path_id(request, "campaign_id", "campaign")
        await self.campaign_principal(request, cid, gm=True)
        body = await read_json(request, "CreatePlayer")
        token = await run_in_threadpool(self.games.issue_token, cid, "player", body["name"],
                                        body["characters"])
        return JSONResponse({"name": body["name"], "characters": body["characters"],
                             "token": token}, status_code=201)

    async def players(self, request: Request) -> Response:
        cid = _path_id(request, "campaign_id", "campaign")
        await self.campaign_principal(request, cid, gm=True)
        tokens = await run_in_threadpool(self.games.players, cid)
        return JSONResponse({"players": [{"name": t.name, "characters": list(t.characters),
                                          "created_at": t.created_at} for t in tokens]})

    async def create_encounter(self, request: Request) -> Response:
        cid = _path_id(request, "campaign_id", "campaign")
        await self.campaign_principal(request, cid, gm=True)
        body = await read_json(request, "CreateEncounter")
        try:
            record = await run_in_threadpool(functools.partial(
                self.games.create_encounter, cid, body["name"], body.get("rulings", {}),
                characters=body.get("characters", []), creatures=body.get("creatures", [])))
        except RulesError as err:  # a refused character or creature names where it was
            raise ApiError(422, str(err), getattr(err, "field", None) or "rulings") from None
        self._campaign_of[record.id] = cid
        return JSONResponse({"encounter": _encounter_json(record)}, status_code=201)

    async def export_campaign(self, request: Request) -> Response:
        cid = _path_id(request, "campaign_id", "campaign")
        await self.campaign_principal(request, cid, gm=True)
        answer = await answered(self.games.export_campaign, cid)
        answer.headers["content-disposition"] = f'attachment; filename="{cid}.arbiter.json"'
        return answer

    async def templates(self, request: Request) -> Response:
        cid = _path_id(request, "campaign_id", "campaign")
        await self.campaign_principal(request, cid, gm=True)
        record = await run_in_threadpool(self.games.store.campaign, cid)

        def bestiary(r: RosterLoaded) -> dict[str, Any]:
            out = {}
            for k in r.state.bestiary:
                with contextlib.suppress(RulesError):  # an entry this ruleset no longer builds
                    out[k] = r.roster.expand(r.state, {"template": k})
            return out
        return JSONResponse({"templates": plain(load_ruleset(record.ruleset).templates),
                             "bestiary": await run_in_threadpool(self.games.roster, cid,
                                                                 bestiary)})

    # -- routes: the roster and the bestiary (the campaign's own log) -------------------
    async def _gm_of(self, request: Request) -> tuple[str, Principal]:
        cid = _path_id(request, "campaign_id", "campaign")
        return cid, await self.campaign_principal(request, cid, gm=True)

    async def _roster_command(self, cid: str, principal: Principal, command: str,
                              body: dict[str, Any],
                              render: Callable[[RosterLoaded], dict[str, Any]],
                              path_id: str | None = None, status: int = 201,
                              dice: list[int] | None = None) -> Response:
        """Decide a command of the campaign's own log and answer the record, the log's
        version and ``render`` of what it left. An id of the path that is not listed is a
        404; a body the rules refuse, a 422 naming the field; an id already listed, a 409."""
        expected = body.pop("expected_version", None)
        games = self.games

        def work() -> dict[str, Any]:
            with games.roster_locked(cid):
                try:
                    loaded, record = games.roster_submit(cid, Command(command, args=body),
                                                         principal.author, expected, dice)
                except NotListed as err:
                    if path_id is not None and err.ident == path_id:
                        raise ApiError(404, str(err)) from None
                    raise ApiError(422, str(err), _body_field(err.field)) from None
                except AlreadyListed as err:
                    raise ApiError(409, str(err), "id") from None
                except InvalidArgument as err:
                    raise ApiError(422, str(err), _body_field(err.field)) from None
                except RulesError as err:
                    raise ApiError(422, str(err), _stat_block_field(str(err))) from None
                return {"version": loaded.version, "record": _campaign_record(loaded, record),
                        **render(loaded)}
        return await answered(work, status_code=status)

    async def _roster_read(self, request: Request, gm: bool,
                           render: Callable[[RosterLoaded, Principal], dict[str, Any]]
                           ) -> Response:
        cid = _path_id(request, "campaign_id", "campaign")
        principal = await self.campaign_principal(request, cid, gm=gm)
        games = self.games

        def work() -> dict[str, Any]:
            return games.roster(cid, lambda r: {"version": r.version, **render(r, principal)})
        return await answered(work)

    async def characters(self, request: Request) -> Response:
        def render(r: RosterLoaded, principal: Principal) -> dict[str, Any]:
            out: dict[str, Any] = {"characters": _roster_view(r, principal).roster()}
            shown = {c.get("id") for c in out["characters"]}
            out["pictures"] = {ident: image for ident in sorted(shown)
                               if (image := r.state.picture("character", str(ident)))}
            if principal.is_gm:  # each character as it would join an encounter now
                now = {}
                for ident in r.state.characters:
                    with contextlib.suppress(Exception):  # a sheet that no longer builds
                        now[ident] = plain(r.roster.entity(r.state, ident))
                out["now"] = now
            return out
        return await self._roster_read(request, False, render)

    async def character(self, request: Request) -> Response:
        ident = _path_id(request, "character_id", "character")

        def render(r: RosterLoaded, principal: Principal) -> dict[str, Any]:
            shown = _roster_view(r, principal).character(ident)
            if shown is None:  # a hidden character answers like a missing one
                raise ApiError(404, f"no character {ident!r}")
            return {"character": shown}
        return await self._roster_read(request, False, render)

    async def add_character(self, request: Request) -> Response:
        cid, principal = await self._gm_of(request)
        body = dict(await read_json(request, "Character"))
        ident = body["id"]
        return await self._roster_command(
            cid, principal, "character_add", body,
            lambda r: {"character": r.state.characters[ident]})

    async def set_character(self, request: Request) -> Response:
        cid, principal = await self._gm_of(request)
        ident = _path_id(request, "character_id", "character")
        body = _with_path_id(dict(await read_json(request, "CharacterSheet")), ident,
                             "a character's")
        return await self._roster_command(
            cid, principal, "character_update", body,
            lambda r: {"character": r.state.characters[ident]}, path_id=ident, status=200)

    async def remove_character(self, request: Request) -> Response:
        cid, principal = await self._gm_of(request)
        ident = _path_id(request, "character_id", "character")
        return await self._roster_command(cid, principal, "character_remove", {"id": ident},
                                          lambda r: {"removed": ident}, path_id=ident,
                                          status=200)

    async def bestiary(self, request: Request) -> Response:
        def render(r: RosterLoaded, principal: Principal) -> dict[str, Any]:
            return {"bestiary": list(r.state.bestiary.values()),
                    "pictures": {ident: image for ident in sorted(r.state.bestiary)
                                 if (image := r.state.picture("creature", ident))}}
        return await self._roster_read(request, True, render)

    async def creature(self, request: Request) -> Response:
        ident = _path_id(request, "creature_id", "bestiary entry")

        def render(r: RosterLoaded, principal: Principal) -> dict[str, Any]:
            entry = r.state.bestiary.get(ident)
            if entry is None:
                raise ApiError(404, f"no bestiary entry {ident!r}")
            out = {"creature": entry}
            with contextlib.suppress(RulesError):  # an entry this ruleset no longer builds
                out["stat_block"] = r.roster.expand(r.state, {"template": ident})
            return out
        return await self._roster_read(request, True, render)

    async def add_creature(self, request: Request) -> Response:
        cid, principal = await self._gm_of(request)
        body = dict(await read_json(request, "BestiaryEntry"))
        ident = body["id"]
        return await self._roster_command(cid, principal, "creature_save",
                                          {**body, "new": True},
                                          lambda r: {"creature": r.state.bestiary[ident]})

    async def set_creature(self, request: Request) -> Response:
        cid, principal = await self._gm_of(request)
        ident = _path_id(request, "creature_id", "bestiary entry")
        body = _with_path_id(dict(await read_json(request, "BestiarySheet")), ident,
                             "an entry's")
        if not await run_in_threadpool(self.games.roster, cid,
                                       lambda r: ident in r.state.bestiary):
            raise ApiError(404, f"no bestiary entry {ident!r}")
        return await self._roster_command(cid, principal, "creature_save", body,
                                          lambda r: {"creature": r.state.bestiary[ident]},
                                          status=200)

    async def remove_creature(self, request: Request) -> Response:
        cid, principal = await self._gm_of(request)
        ident = _path_id(request, "creature_id", "bestiary entry")
        return await self._roster_command(cid, principal, "creature_remove", {"id": ident},
                                          lambda r: {"removed": ident}, path_id=ident,
                                          status=200)

    async def put_roster_picture(self, request: Request) -> Response:
        """``PUT /api/campaigns/{cid}/characters/{id}/image`` and ``.../bestiary/{id}/image``:
        a roster character's or a bestiary creature's token picture, the raw body with its
        Content-Type (checked as a token picture is, scaled down to 256 pixels), set by a
        ``picture`` command of the campaign's log; each creature that joins an encounter
        from there shows it."""
        cid, principal = await self._gm_of(request)
        kind, ident = self._pictured(request)
        listed = await run_in_threadpool(self.games.roster, cid, lambda r: ident in (
            r.state.characters if kind == "character" else r.state.bestiary))
        if not listed:
            raise ApiError(404, f"no {_KIND_WORDS[kind]} {ident!r}")
        data = await self._image_body(request)
        games = self.games

        def work() -> dict[str, Any]:
            with games.roster_locked(cid):
                try:
                    image, (loaded, record) = games.put_roster_picture(
                        cid, kind, ident, data, principal.author)
                except ImageError as err:
                    raise ApiError(err.status, str(err), "image") from None
                except TooMuch as err:
                    raise ApiError(413, str(err), "image") from None
                except NotListed as err:
                    raise ApiError(404, str(err)) from None
                except RulesError as err:  # the same picture again
                    raise ApiError(409, str(err), "image") from None
                return {"version": loaded.version, "record": _campaign_record(loaded, record),
                        "image": image.meta()}
        return JSONResponse(await heavy(work), status_code=201)

    async def delete_roster_picture(self, request: Request) -> Response:
        """``DELETE`` of a roster or bestiary picture: initials again (the image stays in
        the campaign: undone like any other command)."""
        cid, principal = await self._gm_of(request)
        kind, ident = self._pictured(request)
        return await self._roster_command(
            cid, principal, "picture", {"kind": kind, "id": ident, "image": ""},
            lambda r: {"removed": ident}, path_id=ident, status=200)

    @staticmethod
    def _pictured(request: Request) -> tuple[str, str]:
        """Whose picture a roster picture route names: a character or a bestiary creature."""
        if "character_id" in request.path_params:
            return "character", _path_id(request, "character_id", "character")
        return "creature", _path_id(request, "creature_id", "bestiary entry")

    async def roster_picture(self, request: Request) -> Response:
        """``GET /api/campaigns/{cid}/images/{hash}``: a picture of the roster or the
        bestiary, for the GM; for a player, the picture of a character they may read."""
        cid = _path_id(request, "campaign_id", "campaign")
        principal = await self.campaign_principal(request, cid)
        wanted = request.path_params.get("image", "")
        games = self.games

        def work() -> StoredImage | None:
            def shown(r: RosterLoaded) -> bool:
                whose = [k for k, h in r.state.pictures.items() if h == wanted]
                if principal.is_gm:
                    return bool(whose)
                view = _roster_view(r, principal)
                return any(k.startswith("character:")
                           and view.character(k.partition(":")[2]) is not None
                           for k in whose)
            if not games.roster(cid, shown):
                return None
            return games.store.image(cid, wanted)
        found = await run_in_threadpool(work)
        if found is None:
            raise ApiError(404, "no such picture in this campaign's roster")
        return Response(found.data, media_type=found.content_type, headers={
            "x-content-type-options": "nosniff", "content-disposition": "inline"})

    async def advance_time(self, request: Request) -> Response:
        """``POST /api/campaigns/{cid}/time``: campaign time passes between encounters
        (``advance_time``, one record of the campaign's own log); the answer lists each
        character's new sheet and what happened to it."""
        cid, principal = await self._gm_of(request)
        body = {k: v for k, v in dict(await read_json(request, "AdvanceTime")).items()
                if v is not None}
        dice = body.pop("dice", None)

        def render(r: RosterLoaded) -> dict[str, Any]:
            return {"time": r.state.clock}
        return await self._roster_command(cid, principal, "advance_time", body, render,
                                          dice=dice)

    async def set_settings(self, request: Request) -> Response:
        """``PUT /api/campaigns/{cid}/settings``: the campaign's settings (``configure``)."""
        cid, principal = await self._gm_of(request)
        body = {k: v for k, v in dict(await read_json(request, "CampaignSettings")).items()
                if v is not None or k == "expected_version"}
        return await self._roster_command(
            cid, principal, "configure", body,
            lambda r: {"settings": {**DEFAULT_SETTINGS, **r.state.settings}}, status=200)

    async def campaign_log(self, request: Request) -> Response:
        after = _query_int(request, "after", 0, 0, 2**53)
        limit = _query_int(request, "limit", LOG_PAGE, 1, LOG_PAGE)
        cid = _path_id(request, "campaign_id", "campaign")
        await self.campaign_principal(request, cid, gm=True)
        games = self.games

        def work() -> dict[str, Any]:
            records = games.roster_records(cid, after, limit)
            return games.roster(cid, lambda r: {
                "version": r.version,
                "records": [_campaign_record(r, rec) for rec in records]})
        return await answered(work)

    async def _campaign_step(self, request: Request, kind: str) -> Response:
        cid = _path_id(request, "campaign_id", "campaign")
        principal = await self.campaign_principal(request, cid, gm=True)
        body = await read_json(request, "Step", optional=True)
        games = self.games
        fn = games.roster_undo if kind == "undo" else games.roster_redo

        def work() -> dict[str, Any]:
            with games.roster_locked(cid):
                loaded, record = fn(cid, principal.author, body.get("expected_version"))
                return {"version": loaded.version, "record": _campaign_record(loaded, record)}
        return await answered(work, status_code=201)

    async def campaign_undo(self, request: Request) -> Response:
        return await self._campaign_step(request, "undo")

    async def campaign_redo(self, request: Request) -> Response:
        return await self._campaign_step(request, "redo")

    # -- routes: encounters -------------------------------------------------------------
    async def state(self, request: Request) -> Response:
        eid, principal = await self.encounter_principal(request)

        def render(loaded: Loaded) -> dict[str, Any]:
            view = View(loaded.state, principal, loaded.ruleset)
            return view.state_json(eid, loaded.version)
        return await answered(self.games.read, eid, render)

    async def log(self, request: Request) -> Response:
        eid, principal = await self.encounter_principal(request)
        after = _query_int(request, "after", 0, 0, 2**53)
        limit = _query_int(request, "limit", LOG_PAGE, 1, LOG_PAGE)
        games = self.games

        def render(loaded: Loaded) -> dict[str, Any]:
            records = games.records(eid, after, limit)
            view = View(loaded.state, principal, loaded.ruleset,
                        finder(lambda a, n: games.records(eid, a, n)))
            return {"version": loaded.version, "records": view.records(records)}
        return await answered(games.read, eid, render)

    async def commands(self, request: Request) -> Response:
        eid, principal = await self.encounter_principal(request)

        def render(loaded: Loaded) -> dict[str, Any]:
            catalogue = loaded.ruleset.catalogue
            return {"commands": {k: c.to_json() for k, c in catalogue.items()
                                 if principal.is_gm or c.who == "player"},
                    "display": loaded.ruleset.display()}
        return await answered(self.games.read, eid, render)

    async def _submit(self, eid: str, principal: Principal, command: Command,
                      dice: list[int] | None, expected: int | None,
                      dice_rest: bool = False, said: dict[str, Any] | None = None,
                      ) -> Response:
        """Decide ``command`` on the encounter and answer its outcome (with ``said``, more
        keys of the answer)."""
        games = self.games
        if dice is not None and not principal.is_gm:
            settings = await run_in_threadpool(
                games.roster, principal.campaign_id, lambda r: dict(r.state.settings))
            if not settings.get("players_roll", DEFAULT_SETTINGS["players_roll"]):
                raise ApiError(403, "only the game master may type the dice here: the "
                               "campaign's setting players_roll is off", "dice")
            if command.actor not in principal.characters:
                raise ApiError(403, "a player types the dice of their own characters' "
                               "commands only", "dice")
        guard = self.player_guard(principal)

        def work() -> dict[str, Any]:
            with games.locked(eid):
                try:
                    loaded, record = games.submit(eid, command, principal.author, dice,
                                                  expected, guard, dice_rest=dice_rest)
                except RulesError as err:
                    view = games.read(eid, lambda ld: View(ld.state, principal, ld.ruleset))
                    raise rules_error(err, command, view) from None
                return {**_outcome(loaded, record, principal), **(said or {})}
        return await answered(work, status_code=201)

    async def submit(self, request: Request) -> Response:
        eid, principal = await self.encounter_principal(request)
        body = await read_json(request, "Submit")
        try:
            command = Command.from_json(body["command"])
        except RulesError as err:
            raise ApiError(422, str(err), "command") from None
        return await self._submit(eid, principal, command, body.get("dice"),
                                  body.get("expected_version"),
                                  body.get("dice_rest") == "server")

    # -- routes: the scene's image ---------------------------------------------------------
    async def put_scene_image(self, request: Request) -> Response:
        """``PUT /api/encounters/{eid}/scene/image``: the GM's background image, the raw
        body with its Content-Type. Checked and encoded again (``store/images.py``), kept by
        its hash in the campaign, and set as the scene (a ``scene`` command in the log)."""
        eid, principal = await self.encounter_principal(request, gm=True)
        data = await self._image_body(request)
        games = self.games

        def work() -> dict[str, Any]:
            try:
                image, done = games.put_scene_image(eid, data, principal.author)
            except ImageError as err:
                raise ApiError(err.status, str(err), "image") from None
            except TooMuch as err:
                raise ApiError(413, str(err), "image") from None
            if done is None:
                return {"image": image.meta(), "unchanged": True}
            return {**_outcome(*done, principal), "image": image.meta()}
        out = await heavy(work)
        return JSONResponse(out, status_code=200 if out.get("unchanged") else 201)

    async def scene_image(self, request: Request) -> Response:
        """``GET /api/encounters/{eid}/scene/image``: the scene's image, for the GM and the
        campaign's players."""
        eid, principal = await self.encounter_principal(request)
        games = self.games

        def work() -> tuple[StoredImage, bytes, bool] | None:
            scene, fog = games.read(eid, lambda ld: (  # a player's: with their vision
                dict(ld.state.extra.get("scene") or {}),
                View(ld.state, principal, ld.ruleset).fog))
            image = str(scene.get("image") or "")
            found = games.store.image(principal.campaign_id, image) if image else None
            if found is None:
                return None
            if principal.is_gm or not fog["enabled"]:
                return found, found.data, False
            # a player's image under fog: dark but where it is revealed (kept per fog)
            revealed = revealed_squares(fog)
            key = (found.hash, principal.campaign_id, fog["rev"], revealed,
                   scene["square"], scene["offset_x"], scene["offset_y"])
            data = self._fogged.get(key)
            if data is None:
                data = fogged(found, scene, revealed)
                if len(self._fogged) >= 32:
                    self._fogged.clear()
                self._fogged[key] = data
            return found, data, True
        out = await heavy(work)
        if out is None:
            raise ApiError(404, "this encounter's scene has no image (the game master "
                           "uploads one)")
        found, data, _masked = out  # (not cached by the browser: every API answer is no-store)
        return Response(data, media_type=found.content_type, headers={
            "x-content-type-options": "nosniff", "content-disposition": "inline"})

    async def delete_scene_image(self, request: Request) -> Response:
        """``DELETE /api/encounters/{eid}/scene/image``: the scene without its image (a
        ``scene`` command: undone like any other; the image stays in the campaign)."""
        eid, principal = await self.encounter_principal(request, gm=True)
        return await self._submit(eid, principal, Command("scene", args={"image": ""}),
                                  None, None)

    async def save_scene(self, request: Request) -> Response:
        """``POST /api/encounters/{eid}/scene/save`` ``{name}``: the encounter's map (image
        and grid, terrain, fog) kept in the campaign under ``name``, as the commands that
        rebuild it (``Ruleset.scene_commands``; a ``scene_save`` record of the campaign)."""
        eid, principal = await self.encounter_principal(request, gm=True)
        name = (await read_json(request, "SceneName"))["name"]
        commands = await run_in_threadpool(self.games.read, eid, lambda ld: (
            ld.ruleset.scene_commands(ld.state)))
        if not commands:
            raise ApiError(422, "this encounter's map has nothing to save yet: no image, "
                           "terrain or fog")
        return await self._roster_command(
            principal.campaign_id, principal, "scene_save",
            {"name": name, "commands": commands},
            lambda r: {"scenes": _scene_list(r.state.scenes)})

    async def scenes(self, request: Request) -> Response:
        """``GET /api/campaigns/{cid}/scenes``: the campaign's saved scenes (GM)."""
        cid, _principal = await self._gm_of(request)
        games = self.games
        return await answered(lambda: games.roster(cid, lambda r: {
            "scenes": _scene_list(r.state.scenes)}))

    async def load_scene(self, request: Request) -> Response:
        """``POST /api/encounters/{eid}/scene/load`` ``{name}``: a saved scene drawn again on
        this encounter's map: its commands in one batch (one record, one undo)."""
        eid, principal = await self.encounter_principal(request, gm=True)
        name = (await read_json(request, "SceneName"))["name"]
        saved = await run_in_threadpool(self.games.roster, principal.campaign_id,
                                        lambda r: r.state.scenes.get(name))
        if saved is None:
            raise ApiError(404, f"no saved scene {name[:100]!r} in this campaign")
        taken, absent = await run_in_threadpool(self.games.read, eid, lambda ld: (
            ld.ruleset.loadable_scene(ld.state, list(saved))))
        if not taken:
            raise ApiError(409, "the scene is drawn here already: its map, and every "
                           "creature of it that is here stands where it puts them")
        return await self._submit(eid, principal, Command("batch", args={
            "commands": taken}), None, None, said={"not_here": absent})

    async def put_token_image(self, request: Request) -> Response:
        """``PUT /api/encounters/{eid}/creatures/{id}/image``: a creature's token picture,
        the raw body with its Content-Type (checked as a scene image is, scaled down to
        256 pixels), set by a ``token`` command."""
        eid, principal = await self.encounter_principal(request, gm=True)
        creature = _path_id(request, "creature_id", "creature")
        data = await self._image_body(request)
        games = self.games

        def work() -> dict[str, Any]:
            try:
                image, done = games.put_token_image(eid, creature, data, principal.author)
            except ImageError as err:
                raise ApiError(err.status, str(err), "image") from None
            except TooMuch as err:
                raise ApiError(413, str(err), "image") from None
            return {**_outcome(*done, principal), "image": image.meta()}
        return JSONResponse(await heavy(work), status_code=201)

    async def delete_token_image(self, request: Request) -> Response:
        """``DELETE /api/encounters/{eid}/creatures/{id}/image``: initials again."""
        eid, principal = await self.encounter_principal(request, gm=True)
        creature = _path_id(request, "creature_id", "creature")
        return await self._submit(eid, principal, Command("token", args={
            "target": creature, "image": ""}), None, None)

    async def picture(self, request: Request) -> Response:
        """``GET /api/encounters/{eid}/images/{hash}``: a token picture of the encounter,
        for the GM, or for a player when it is the token of a creature they see."""
        eid, principal = await self.encounter_principal(request)
        wanted = request.path_params.get("image", "")
        games = self.games

        def work() -> StoredImage | None:
            def shown(ld: Loaded) -> bool:
                tokens = ld.state.extra.get("tokens", {})
                if principal.is_gm:
                    return wanted in tokens.values()
                view = View(ld.state, principal, ld.ruleset)
                return any(h == wanted and k not in view.concealed and k in ld.state.entities
                           for k, h in tokens.items())
            if not games.read(eid, shown):
                return None
            return games.store.image(principal.campaign_id, wanted)
        found = await run_in_threadpool(work)
        if found is None:
            raise ApiError(404, "no such picture in this encounter")
        return Response(found.data, media_type=found.content_type, headers={
            "x-content-type-options": "nosniff", "content-disposition": "inline"})

    async def _image_body(self, request: Request) -> bytes:
        """An uploaded image's bytes: the raw body, its Content-Type an image type."""
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind not in FORMATS.values():
            raise ApiError(415, "send the image itself as the body, with Content-Type "
                           "image/png, image/jpeg or image/webp", "content-type")
        return await read_body(request, IMAGE_BYTES)

    async def add_actor(self, request: Request) -> Response:
        eid, principal = await self.encounter_principal(request, gm=True)
        body = dict(await read_json(request, "AddActor"))
        expected = body.pop("expected_version", None)
        ident = body.pop("character", None)
        if ident is not None:  # a roster character, with its lasting state
            other = sorted(set(body) - {"initiative"})
            if other:
                raise ApiError(422, f"a roster character joins as the roster has it: give "
                               f"'character' (and 'initiative') only, not {other[0]!r}",
                               other[0])
            cid = self._campaign_of[eid]

            def joining(r: RosterLoaded) -> dict[str, Any]:
                try:
                    spec = r.roster.joining(r.state, ident)
                except NotListed as err:
                    raise ApiError(422, str(err), "character") from None
                image = r.state.picture("character", ident)
                return spec if image is None else {**spec, "image": image}
            spec = await run_in_threadpool(self.games.roster, cid, joining)
            body = {**spec, **body}
        elif "id" not in body:
            raise ApiError(422, "is required (or 'character': a roster character)", "id")
        elif isinstance(body.get("template"), str) and "image" not in body:
            template = body["template"]  # a bestiary creature shows the entry's picture
            image = await run_in_threadpool(self.games.roster, self._campaign_of[eid],
                                            lambda r: r.state.picture("creature", template))
            if image is not None:
                body["image"] = image
        return await self._submit(eid, principal, Command("add", args=body), None, expected)

    async def simulate(self, request: Request) -> Response:
        """``POST /api/encounters/{eid}/simulate``: the fight played to its end ``runs``
        times from its current state (the GM's; nothing is stored or changed)."""
        eid, _principal = await self.encounter_principal(request, gm=True)
        body = await read_json(request, "Simulate", optional=True) or {}
        games = self.games

        def events() -> tuple[str, list[Any]]:
            ruleset = games.read(eid, lambda ld: ld.ruleset.name)
            entries = effective_entries(games.store.records(eid))
            return ruleset, [e for entry in entries for e in entry.events]
        ruleset, setup = await run_in_threadpool(events)
        return JSONResponse(await self._simulated(ruleset, setup, body))

    async def simulate_new(self, request: Request) -> Response:
        """``POST /api/campaigns/{cid}/simulate``: a new encounter (the body that creates
        one) played ``runs`` times, without storing it: the builder's win odds."""
        cid = _path_id(request, "campaign_id", "campaign")
        await self.campaign_principal(request, cid, gm=True)
        body = await read_json(request, "SimulateNew")
        games = self.games

        def events() -> tuple[str, list[Any]]:
            try:
                ruleset, events = new_encounter_events(
                    games, cid, body.get("rulings", {}), body.get("characters", []),
                    body.get("creatures", []))
            except RulesError as err:
                raise ApiError(422, str(err), getattr(err, "field", None) or "creatures"
                               ) from None
            return ruleset.name, events
        ruleset, setup = await run_in_threadpool(events)
        return JSONResponse(await self._simulated(ruleset, setup, body))

    @staticmethod
    async def _simulated(ruleset: str, setup: list[Any], body: dict[str, Any]
                         ) -> dict[str, Any]:
        """The runs split in two halves, one for each worker process (run ``i`` rolls the
        same dice wherever it is played), merged and summed up."""
        runs, seed = int(body.get("runs", 1000)), int(body.get("seed", 0))
        try:
            job = await run_in_threadpool(job_from_events, ruleset, setup, seed)
        except SimError as err:
            raise ApiError(422, str(err), "creatures") from None
        began = time.perf_counter()
        half = (runs + 1) // 2
        shares = [(0, half), (half, runs)] if runs > 1 else [(0, runs)]
        tallies = await asyncio.gather(*(
            heavy(play_runs, job, start, stop, SIMULATE_SECONDS, pool=processes())
            for start, stop in shares))
        tally = Tally()
        for part in tallies:
            tally.merge(part)
        return sim_summary(job, tally, runs, time.perf_counter() - began)

    async def odds(self, request: Request) -> Response:
        eid, principal = await self.encounter_principal(request)
        body = await read_json(request, "Odds")
        try:
            command = Command.from_json(body["command"])
        except RulesError as err:
            raise ApiError(422, str(err), "command") from None
        games = self.games
        seen: list[View] = []  # the player's view, built by the guard (odds change nothing)
        guard = self.player_guard(principal, seen)

        asked = body.get("version")

        class Stale(Exception):
            """The GM asked about a version that is gone (checked on the snapshot)."""

        def checked(loaded: Loaded, asked_command: Command) -> None:
            if asked is not None and principal.is_gm and loaded.version != asked:
                raise Stale(loaded.version)  # (a player's view may lag on purpose)
            guard(loaded, asked_command)

        def work() -> dict[str, Any]:
            # The odds are computed on a snapshot (GameService.preview_state), not under the
            # encounter's lock: a slow preview holds no command up.
            def project(ld: Loaded) -> EncounterState:
                return seen[0].projection() if seen else ld.state

            try:  # a player's odds: on the state as they know it (View.projection)
                result = games.odds(eid, command, checked, project)
            except Stale as err:  # a question about a state that is gone
                return {"command": command.to_json(), "odds": None, "stale": True,
                        "version": err.args[0],
                        "reason": "the encounter has changed since: ask again"}
            except NoOdds as err:  # legal, but nothing to compute: not an error
                return {"command": command.to_json(), "odds": None, "reason": str(err),
                        "dice_plan": games.dice_plan(eid, command, project)}
            except RulesError as err:
                view = seen[0] if seen else games.read(
                    eid, lambda ld: View(ld.state, principal, ld.ruleset))
                raise rules_error(err, command, view) from None
            out = odds_json(result)
            if seen:  # a player: what they may see of the odds
                shown = seen[0].odds(command.args.get("target"), out)
                if shown is None:
                    return {"command": command.to_json(), "odds": None,
                            "reason": "no odds you can see for this command"}
                out = shown
            return {"command": command.to_json(), "odds": out,
                    "dice_plan": games.dice_plan(eid, command, project)}
        return JSONResponse(await heavy(work))

    async def options(self, request: Request) -> Response:
        """``GET /api/encounters/{eid}/options?actor=ID``: the legal options of the actor's
        turn now, for the asker (:mod:`arbiter.core.options`): each command the asker may
        give for it, each target the asker can see with its relation and distance and the
        rules' answer, and for a refused one the reason, the rule and what would make it
        legal. A player asks for their own characters only, and is answered from what the
        player view shows (only creatures they see; reasons that would name a concealed
        one are withheld). Worked out once per state version and asker."""
        eid, principal = await self.encounter_principal(request)
        actor = request.query_params.get("actor", "")
        if not ID_RE.match(actor):
            raise ApiError(400, "give the acting creature's id: ?actor=ID", "actor")
        cache = self._options

        def build(loaded: Loaded) -> dict[str, Any]:
            key = (eid, loaded.version, actor, principal.author, principal.characters)
            found = cache.get(key)
            if found is not None:
                return found
            state, ruleset = loaded.state, loaded.ruleset
            view = View(state, principal, ruleset)
            if actor not in state.entities or actor in view.concealed:
                raise rules_error(UnknownEntity(actor, view.visible_ids()), None, view)
            allowed: Callable[[Command, bool], None] | None = None
            if not principal.is_gm:
                if actor not in view.own:
                    raise ApiError(403, f"{actor!r} is not one of your characters", "actor")
                own = frozenset(view.own)
                catalogue = ruleset.catalogue

                def allowed(command: Command, shape: bool) -> None:
                    authorize(catalogue, command, own, state.current, state.in_combat,
                              shape=shape)
            options = ruleset.options(view.projection(), actor, allowed=allowed)
            out = options_json(options, actor, view.names())
            if not principal.is_gm:
                for option in out["options"]:
                    _scrub_reason(option, view)
                    for target in option.get("targets", ()):
                        _scrub_reason(target, view)
            out["version"] = loaded.version
            if len(cache) >= 512:
                cache.pop(next(iter(cache)))
            cache[key] = out
            return out
        games = self.games

        def work() -> dict[str, Any]:
            # Built on a snapshot (a copy of the state, taken under the encounter's lock),
            # not under the lock: a slow preview holds no command up.
            def take(loaded: Loaded) -> dict[str, Any] | Loaded:
                found = cache.get((eid, loaded.version, actor, principal.author,
                                   principal.characters))
                return found if found is not None else dataclasses.replace(
                    loaded, state=loaded.state.copy())
            taken = games.read(eid, take)
            return taken if isinstance(taken, dict) else build(taken)
        return JSONResponse(await heavy(work))

    async def _step(self, request: Request, kind: str) -> Response:
        eid, principal = await self.encounter_principal(request, gm=True)
        body = await read_json(request, "Step", optional=True)
        games = self.games
        fn = games.undo if kind == "undo" else games.redo

        def work() -> dict[str, Any]:
            with games.locked(eid):
                loaded, record = fn(eid, principal.author, body.get("expected_version"))
                return _outcome(loaded, record, principal)
        return await answered(work, status_code=201)

    async def undo(self, request: Request) -> Response:
        return await self._step(request, "undo")

    async def redo(self, request: Request) -> Response:
        return await self._step(request, "redo")

    async def encounter_rulings(self, request: Request) -> Response:
        eid, _ = await self.encounter_principal(request)

        def render(loaded: Loaded) -> dict[str, Any]:
            return {"version": loaded.version,
                    "rulings": _rulings_json(loaded.ruleset.name, loaded.state.rulings)}
        return await answered(self.games.read, eid, render)

    async def set_encounter_ruling(self, request: Request) -> Response:
        eid, principal = await self.encounter_principal(request, gm=True)
        rid = str(request.path_params.get("ruling_id", ""))
        body = await read_json(request, "SetRuling")
        command = Command("ruling", args={"id": rid, "value": body["value"]})
        return await self._submit(eid, principal, command, None, body.get("expected_version"))

    async def write_back(self, request: Request) -> Response:
        """The lasting state of every roster character in the encounter, written back to
        the roster: one ``write_back`` record of the campaign's own log."""
        eid, principal = await self.encounter_principal(request, gm=True)
        body = await read_json(request, "Step", optional=True)
        games = self.games
        cid = self._campaign_of[eid]

        def work() -> dict[str, Any]:
            try:
                loaded, record = games.write_back(eid, principal.author,
                                                  body.get("expected_version"))
            except RulesError as err:
                raise ApiError(422, str(err)) from None
            with games.roster_locked(cid):
                written = record.payload["events"][0]["data"]["who"]
                return {"version": loaded.version, "record": _campaign_record(loaded, record),
                        "characters": [loaded.state.characters[c] for c in written
                                       if c in loaded.state.characters]}
        return await answered(work, status_code=201)

    # -- WebSocket ----------------------------------------------------------------------
    async def websocket(self, ws: WebSocket) -> None:
        await ws.accept()
        try:
            principal, eid, token = await self._ws_hello(ws)
        except ApiError as err:
            await _ws_close(ws, {"type": "error", "error": err.message, "field": err.field},
                            4000 + err.status)
            return
        except (TimeoutError, WebSocketDisconnect):
            return
        sub = Subscriber(eid, principal, asyncio.get_running_loop(), token=token,
                         address=self.address(ws))
        refused = self.hub.reserve(sub)
        if refused is not None:
            await _ws_close(ws, {"type": "error", "error": refused}, 4429, refused)
            return
        games = self.games

        def hello(loaded: Loaded) -> dict[str, Any]:
            self.hub.add(sub)  # under the encounter lock: no record slips in between
            view = View(loaded.state, principal, loaded.ruleset)
            return {"type": "hello", "version": loaded.version, "role": principal.role,
                    "state": view.state_json(eid, loaded.version)}
        try:
            await ws.send_json(await run_in_threadpool(games.read, eid, hello))
            reader = asyncio.create_task(_ws_reader(ws))
            while True:
                getter = asyncio.create_task(sub.queue.get())
                done, _ = await asyncio.wait({getter, reader},
                                             return_when=asyncio.FIRST_COMPLETED)
                if reader in done:
                    getter.cancel()
                    excess = reader.result()
                    if excess is not None:
                        await _ws_close(ws, {"type": "error", "error": excess}, 4429, excess)
                    break
                message = getter.result()
                if message is CLOSE:
                    await _ws_close(ws, {"type": "error", "error": "too far behind"}, 4008)
                    break
                await ws.send_json(message)
            reader.cancel()
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.hub.remove(sub)
            self.hub.release(sub)

    async def _ws_hello(self, ws: WebSocket) -> tuple[Principal, str, str]:
        eid = str(ws.path_params.get("encounter_id", ""))
        if not ID_RE.match(eid):
            raise ApiError(404, f"no encounter {eid[:80]!r}")
        first = await asyncio.wait_for(ws.receive(), timeout=10)
        if first.get("type") == "websocket.disconnect":
            raise WebSocketDisconnect()
        text = first.get("text")
        if not isinstance(text, str):
            raise ApiError(400, "send {\"token\": TOKEN} first, as text")
        if len(text) > WS_MESSAGE_BYTES:
            raise ApiError(413, f"the first message is larger than {WS_MESSAGE_BYTES} bytes")
        try:
            hello = json.loads(text, parse_constant=_no_constants)
        except (ValueError, RecursionError):
            raise ApiError(400, "send {\"token\": TOKEN} first") from None
        if depth(hello) > JSON_DEPTH:
            raise ApiError(400, f"the first message nests deeper than {JSON_DEPTH} levels")
        token = hello.get("token") if isinstance(hello, dict) else None
        if not isinstance(token, str) or not token:
            raise ApiError(401, "send {\"token\": TOKEN} first", "token")
        try:
            record = await run_in_threadpool(self.games.store.encounter, eid)
        except NotFound as err:
            raise ApiError(404, str(err)) from None
        principal = await run_in_threadpool(self.games.authenticate, record.campaign_id, token)
        if principal is None:
            raise ApiError(401, "this token is not valid for this campaign", "token")
        return principal, eid, digest(token)


_KIND_WORDS = {"character": "character", "creature": "bestiary entry"}
"""How a refusal names what has a roster picture."""


def new_encounter_events(games: GameService, cid: str, rulings: dict[str, str],
                         characters: list[str], creatures: list[dict[str, Any]]
                         ) -> tuple[Ruleset, list[Event]]:
    """The events of the encounter ``create_encounter`` would make of this body (its
    ``create`` and its arrivals), decided but not stored: what the builder simulates."""
    campaign = games.store.campaign(cid)
    ruleset = load_ruleset(campaign.ruleset)
    command = Command("create", args={"rulings": {**campaign.rulings, **rulings},
                                      "reveal_on_turn": True})
    state = EncounterState(ruleset="")
    events = list(ruleset.decide(state, command, NoDice(command.name)))
    for event in events:
        ruleset.evolve(state, event)
    arrivals = games.roster(cid, lambda r: r.roster.arrivals(r.state, characters, creatures))
    return ruleset, events + list(_joining(ruleset, state, arrivals).events)


def _scene_list(scenes: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Saved scenes as the console lists them: each name, and what it holds."""
    return [{"name": name, "commands": len(commands),
             "image": any(c.get("do") == "scene" for c in commands),
             "fog": any(c.get("do") == "fog" for c in commands),
             "placements": sum(c.get("do") == "place" for c in commands)}
            for name, commands in sorted(scenes.items())]


def _outcome(loaded: Loaded, record: LogRecord, principal: Principal) -> dict[str, Any]:
    view = View(loaded.state, principal, loaded.ruleset)
    return {"version": loaded.version, "record": view.record(record),
            "state": view.state_json(loaded.encounter.id, loaded.version)}


def _body_field(field: str | None) -> str | None:
    """A command argument's field (``command.template``) as the request body's."""
    if field is None or field == "command":
        return None
    return field.removeprefix("command.")


def _stat_block_field(message: str) -> str | None:
    """The stat-block key a ruleset's refusal names, when it names one."""
    found = _UNKNOWN_KEY.search(message)
    return found[1] if found else None


def _roster_view(r: RosterLoaded, principal: Principal) -> RosterView:
    return RosterView(r.state.characters, principal,
                      lambda ident: r.roster.entity(r.state, ident))


def _campaign_record(r: RosterLoaded, record: LogRecord) -> dict[str, Any]:
    names = r.roster.names(r.state)
    return campaign_record(record, lambda kind, data: r.roster.describe(kind, data, names))


def _campaign_json(record: Any) -> dict[str, Any]:
    return {"id": record.id, "name": record.name, "ruleset": record.ruleset,
            "rulings": record.rulings, "created_at": record.created_at}


def _encounter_json(record: Any) -> dict[str, Any]:
    return {"id": record.id, "campaign": record.campaign_id, "name": record.name,
            "version": record.version, "created_at": record.created_at}


def _ruling_json(ruling: Any, chosen: str) -> dict[str, Any]:
    return {"id": ruling.id, "title": ruling.title, "question": ruling.question,
            "citation": ruling.citation, "default": ruling.default, "value": chosen,
            "choices": dict(ruling.choices)}


def _rulings_json(ruleset: str, chosen: dict[str, str]) -> list[dict[str, Any]]:
    rules = load_ruleset(ruleset)
    return [_ruling_json(r, chosen.get(r.id, r.default)) for r in rules.rulings]


async def _ws_reader(ws: WebSocket) -> str | None:
    """Answer pings; return when the client goes away (None), or the refusal to close with
    when it sends more than ``WS_MESSAGES_PER_SECOND`` messages in a second."""
    window, count = time.monotonic(), 0
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return None
        now = time.monotonic()
        if now - window >= 1:
            window, count = now, 0
        count += 1
        if count > WS_MESSAGES_PER_SECOND:
            return (f"too many messages: at most {WS_MESSAGES_PER_SECOND} a second on one "
                    "WebSocket (limit WS_MESSAGES_PER_SECOND)")
        text = message.get("text")
        if text and len(text) < WS_MESSAGE_BYTES and '"ping"' in text:
            await ws.send_json({"type": "pong"})


async def _ws_close(ws: WebSocket, message: dict[str, Any], code: int,
                    reason: str | None = None) -> None:
    with contextlib.suppress(Exception):
        if ws.application_state == WebSocketState.CONNECTED:
            await ws.send_json(message)
            await ws.close(code, (reason or "")[:120] or None)


Handler = Callable[[Request], Awaitable[Response]]


def guarded(fn: Handler) -> Handler:
    """Turn every expected failure into a JSON 4xx answer."""
    async def endpoint(request: Request) -> Response:
        try:
            return await fn(request)
        except ApiError as err:
            return error_response(err.status, err.message, err.field, **err.extra)
        except ValidationError as err:
            return error_response(422, err.message, err.field)
        except NotFound as err:
            return error_response(404, str(err))
        except Conflict as err:
            return error_response(409, str(err), "expected_version", version=err.actual)
        except NothingToUndo as err:
            return error_response(409, str(err))
        except ExportFormatError as err:
            return error_response(422, str(err), err.field)
        except NotAllowed as err:
            return error_response(403, str(err), err.field)
        except InvalidArgument as err:
            return error_response(422, str(err), err.field)
        except RulesError as err:
            return error_response(422, str(err), "command" if isinstance(
                err, InvalidCommand | IllegalCommand) else None)
        except StoreError as err:
            return error_response(409, str(err))
    endpoint.__name__ = fn.__name__
    endpoint.__doc__ = fn.__doc__
    return endpoint


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
    headers = dict(exc.headers or {}) if isinstance(exc, HTTPException) else {}
    if status == 404 and _allowed(request):  # the static files' answer to an API path
        status = 405
    if status == 404:
        detail = f"no route {request.url.path[:200]!r} (see /openapi.json)"
    elif status == 405:
        allowed = headers.get("Allow") or _allowed(request) or "GET, HEAD"
        headers["Allow"] = allowed
        detail = f"{request.method} is not allowed on {request.url.path[:200]!r}" + (
            f" (allowed: {allowed})" if allowed else "")
    return error_response(status, str(detail), headers=headers)


def _allowed(request: Request) -> str:
    """The methods the API routes of ``request``'s path take ("" when none is its)."""
    matches = [route for route in request.app.router.routes
               if isinstance(route, Route) and route.path_regex.match(request.url.path)]
    literal = [route for route in matches if "{" not in route.path]  # before {campaign_id}
    methods: set[str] = set()
    for route in literal or matches:
        methods |= set(route.methods or ())
    return ", ".join(sorted(methods))


def _json_bytes(value: Any) -> bytes:
    """``value`` as the JSON bytes of an answer (msgspec: several times faster than the
    standard library on a large roster or log page, so the work is short too)."""
    return msgspec.json.encode(value)


async def answered(fn: Callable[..., Any], *args: Any, status_code: int = 200) -> Response:
    """``fn(*args)`` as a JSON answer, computed and encoded in the thread pool: a large
    answer (a roster of many characters, a page of a long log, an export) is written off
    the event loop, so it holds no other request up meanwhile (docs/server.md)."""
    body = await run_in_threadpool(lambda: _json_bytes(fn(*args)))
    response = Response(body, status_code=status_code, media_type="application/json")
    if len(body) > TRIM_BYTES:  # once it is sent, the memory of making it back to the system
        del body

        async def release() -> None:
            response.body = b""
            gc.collect()  # its objects in reference cycles too (36 MB of a roster's log and
            await run_in_threadpool(trim_memory)  # export), else kept until gc next runs
        response.background = BackgroundTask(release)
    return response


async def _server_error(request: Request, exc: Exception) -> Response:
    log.error("unexpected %s on %s %s", type(exc).__name__, request.method,
              request.url.path[:200], exc_info=exc)
    response = error_response(500, "internal error (this is a bug; the log has the details)")
    # Starlette answers an unhandled exception outside the middleware stack: the hardening
    # headers every other answer gets are set here
    for name, value in SECURITY_HEADERS:
        response.headers[name.decode()] = value.decode()
    response.headers["cache-control"] = "no-store"
    return response


def routes(api: Api) -> list[BaseRoute]:
    g = guarded
    out: list[BaseRoute] = [
        Route("/openapi.json", api.openapi, methods=["GET"]),
        Route("/api/health", g(api.health), methods=["GET"]),
        Route("/api/dice", g(api.dice), methods=["POST"]),
        Route("/api/rulesets", g(api.rulesets), methods=["GET"]),
        Route("/api/rulesets/{ruleset}/commands", g(api.ruleset_commands), methods=["GET"]),
        Route("/api/campaigns", g(api.create_campaign), methods=["POST"]),
        Route("/api/campaigns/import", g(api.import_campaign), methods=["POST"]),
        Route("/api/campaigns/{campaign_id}", g(api.campaign), methods=["GET"]),
        Route("/api/campaigns/{campaign_id}/rulings", g(api.campaign_rulings),
              methods=["GET"]),
        Route("/api/campaigns/{campaign_id}/rulings", g(api.set_campaign_rulings),
              methods=["PUT"]),
        Route("/api/campaigns/{campaign_id}/players", g(api.create_player), methods=["POST"]),
        Route("/api/campaigns/{campaign_id}/players", g(api.players), methods=["GET"]),
        Route("/api/campaigns/{campaign_id}/encounters", g(api.create_encounter),
              methods=["POST"]),
        Route("/api/campaigns/{campaign_id}/export", g(api.export_campaign), methods=["GET"]),
        Route("/api/campaigns/{campaign_id}/templates", g(api.templates), methods=["GET"]),
        Route("/api/campaigns/{campaign_id}/characters", g(api.characters), methods=["GET"]),
        Route("/api/campaigns/{campaign_id}/characters", g(api.add_character),
              methods=["POST"]),
        Route("/api/campaigns/{campaign_id}/characters/{character_id}", g(api.character),
              methods=["GET"]),
        Route("/api/campaigns/{campaign_id}/characters/{character_id}",
              g(api.set_character), methods=["PUT"]),
        Route("/api/campaigns/{campaign_id}/characters/{character_id}",
              g(api.remove_character), methods=["DELETE"]),
        Route("/api/campaigns/{campaign_id}/bestiary", g(api.bestiary), methods=["GET"]),
        Route("/api/campaigns/{campaign_id}/bestiary", g(api.add_creature), methods=["POST"]),
        Route("/api/campaigns/{campaign_id}/bestiary/{creature_id}", g(api.creature),
              methods=["GET"]),
        Route("/api/campaigns/{campaign_id}/bestiary/{creature_id}", g(api.set_creature),
              methods=["PUT"]),
        Route("/api/campaigns/{campaign_id}/bestiary/{creature_id}", g(api.remove_creature),
              methods=["DELETE"]),
        Route("/api/campaigns/{campaign_id}/characters/{character_id}/image",
              g(api.put_roster_picture), methods=["PUT"]),
        Route("/api/campaigns/{campaign_id}/characters/{character_id}/image",
              g(api.delete_roster_picture), methods=["DELETE"]),
        Route("/api/campaigns/{campaign_id}/bestiary/{creature_id}/image",
              g(api.put_roster_picture), methods=["PUT"]),
        Route("/api/campaigns/{campaign_id}/bestiary/{creature_id}/image",
              g(api.delete_roster_picture), methods=["DELETE"]),
        Route("/api/campaigns/{campaign_id}/images/{image}", g(api.roster_picture),
              methods=["GET"]),
        Route("/api/campaigns/{campaign_id}/log", g(api.campaign_log), methods=["GET"]),
        Route("/api/campaigns/{campaign_id}/time", g(api.advance_time), methods=["POST"]),
        Route("/api/campaigns/{campaign_id}/settings", g(api.set_settings), methods=["PUT"]),
        Route("/api/campaigns/{campaign_id}/undo", g(api.campaign_undo), methods=["POST"]),
        Route("/api/campaigns/{campaign_id}/redo", g(api.campaign_redo), methods=["POST"]),
        Route("/api/encounters/{encounter_id}", g(api.state), methods=["GET"]),
        Route("/api/encounters/{encounter_id}/log", g(api.log), methods=["GET"]),
        Route("/api/encounters/{encounter_id}/commands", g(api.commands), methods=["GET"]),
        Route("/api/encounters/{encounter_id}/commands", g(api.submit), methods=["POST"]),
        Route("/api/encounters/{encounter_id}/actors", g(api.add_actor), methods=["POST"]),
        Route("/api/encounters/{encounter_id}/odds", g(api.odds), methods=["POST"]),
        Route("/api/encounters/{encounter_id}/simulate", g(api.simulate), methods=["POST"]),
        Route("/api/campaigns/{campaign_id}/simulate", g(api.simulate_new), methods=["POST"]),
        Route("/api/encounters/{encounter_id}/scene/image", g(api.put_scene_image),
              methods=["PUT"]),
        Route("/api/encounters/{encounter_id}/scene/image", g(api.scene_image),
              methods=["GET"]),
        Route("/api/encounters/{encounter_id}/scene/image", g(api.delete_scene_image),
              methods=["DELETE"]),
        Route("/api/encounters/{encounter_id}/scene/save", g(api.save_scene),
              methods=["POST"]),
        Route("/api/encounters/{encounter_id}/scene/load", g(api.load_scene),
              methods=["POST"]),
        Route("/api/campaigns/{campaign_id}/scenes", g(api.scenes), methods=["GET"]),
        Route("/api/encounters/{encounter_id}/creatures/{creature_id}/image",
              g(api.put_token_image), methods=["PUT"]),
        Route("/api/encounters/{encounter_id}/creatures/{creature_id}/image",
              g(api.delete_token_image), methods=["DELETE"]),
        Route("/api/encounters/{encounter_id}/images/{image}", g(api.picture),
              methods=["GET"]),
        Route("/api/encounters/{encounter_id}/options", g(api.options), methods=["GET"]),
        Route("/api/encounters/{encounter_id}/undo", g(api.undo), methods=["POST"]),
        Route("/api/encounters/{encounter_id}/redo", g(api.redo), methods=["POST"]),
        Route("/api/encounters/{encounter_id}/rulings", g(api.encounter_rulings),
              methods=["GET"]),
        Route("/api/encounters/{encounter_id}/rulings/{ruling_id}",
              g(api.set_encounter_ruling), methods=["PUT"]),
        Route("/api/encounters/{encounter_id}/write-back", g(api.write_back),
              methods=["POST"]),
        WebSocketRoute("/api/encounters/{encounter_id}/ws", api.websocket),
    ]
    from .. import web

    out.append(Mount("/", app=web.static_app(), name="web"))
    return out


def create_app(db: Path | str | None = None, service: GameService | None = None,
               snapshot_every: int = 200, admin_token: str | None = None,
               rate_per_minute: int = RATE_PER_MINUTE,
               trusted_proxies: tuple[str, ...] = (),
               allowed_hosts: Iterable[str] | None = (*LOOPBACK_HOSTS, TEST_HOST),
               ) -> Starlette:
    """The ASGI application. It opens the store (``db``, else ``$ARBITER_DATABASE_URL``,
    else ``./arbiter.db``) when it starts, unless given a ``service``. With
    ``admin_token``, creating and importing campaigns needs it. ``trusted_proxies``: the
    addresses whose ``X-Forwarded-For`` is read for the rate limit (none by default).
    ``allowed_hosts``: the Host names answered (others get 400, a foreign ``Origin`` 403;
    None: any Host); by default the loopback ones and the test client's ``testserver``
    (``arbiter serve`` passes :func:`~arbiter.server.hardening.allowed_hosts_for`)."""
    steady_allocator()
    api = Api(service, db, snapshot_every, admin_token, rate_per_minute, trusted_proxies)
    app = Starlette(
        routes=routes(api),
        lifespan=api.lifespan,
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
        middleware=[Middleware(Hardening, allowed_hosts=allowed_hosts)],
    )
    app.state.api = api
    return app
