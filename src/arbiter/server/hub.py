"""WebSocket subscriptions: each new log record, and the resulting view, per subscriber.

The game service calls :meth:`Hub.on_record` (in a worker thread, while it holds the
encounter's lock) after every append. The hub renders each subscriber's own view there,
so a player's message is filtered exactly as their HTTP views are, and hands it to the
subscriber's queue on the event loop. A subscriber that falls too far behind is dropped.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..limits import WS_PER_ADDRESS, WS_PER_TOKEN
from ..store import Loaded, LogRecord, Principal
from .views import View, finder

log = logging.getLogger("arbiter.server")
QUEUE_SIZE = 256
CLOSE: dict[str, Any] = {"type": "close"}


@dataclass(eq=False)
class Subscriber:
    encounter_id: str
    principal: Principal
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[dict[str, Any]] = field(
        default_factory=lambda: asyncio.Queue(QUEUE_SIZE))
    token: str = ""
    """The digest of the token it came with (subscriptions are counted per token)."""
    address: str = ""
    """The client's address (counted per address too)."""

    def offer(self, message: dict[str, Any]) -> None:
        """Called on the loop: queue the message, or drop a subscriber that lags."""
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(CLOSE)


class Hub:
    def __init__(self, per_token: int = WS_PER_TOKEN, per_address: int = WS_PER_ADDRESS) -> None:
        self._subs: dict[str, list[Subscriber]] = {}
        self._lock = threading.Lock()
        self.per_token = per_token
        self.per_address = per_address
        self._tokens: dict[str, int] = {}
        self._addresses: dict[str, int] = {}
        self.records: Callable[[str, int, int], list[LogRecord]] | None = None
        """An encounter's records after a seq (the service's ``records``): a player is
        sent nothing of an undo of an entry they saw nothing of."""

    def reserve(self, sub: Subscriber) -> str | None:
        """Count ``sub`` against its token's and its address's subscriptions, or say which
        limit it would pass (then nothing is counted). ``release`` gives it back."""
        with self._lock:
            if self._tokens.get(sub.token, 0) >= self.per_token:
                return (f"too many subscriptions for this token: at most {self.per_token} at "
                        "once (limit WS_PER_TOKEN); close another tab first")
            if self._addresses.get(sub.address, 0) >= self.per_address:
                return (f"too many subscriptions from your address: at most "
                        f"{self.per_address} at once (limit WS_PER_ADDRESS)")
            self._tokens[sub.token] = self._tokens.get(sub.token, 0) + 1
            self._addresses[sub.address] = self._addresses.get(sub.address, 0) + 1
            return None

    def release(self, sub: Subscriber) -> None:
        with self._lock:
            for counts, key in ((self._tokens, sub.token), (self._addresses, sub.address)):
                left = counts.get(key, 0) - 1
                if left > 0:
                    counts[key] = left
                else:
                    counts.pop(key, None)

    def add(self, sub: Subscriber) -> None:
        with self._lock:
            self._subs.setdefault(sub.encounter_id, []).append(sub)

    def remove(self, sub: Subscriber) -> None:
        with self._lock:
            subs = self._subs.get(sub.encounter_id, [])
            if sub in subs:
                subs.remove(sub)
            if not subs:
                self._subs.pop(sub.encounter_id, None)

    def count(self, encounter_id: str) -> int:
        with self._lock:
            return len(self._subs.get(encounter_id, []))

    def on_record(self, loaded: Loaded, record: LogRecord) -> None:
        with self._lock:
            subs = list(self._subs.get(loaded.encounter.id, []))
        rendered: dict[Principal, dict[str, Any] | None] = {}
        for sub in subs:
            # one view per principal (role, name and characters), however many sockets
            # share it: the message is built once and only read afterwards
            if sub.principal in rendered:
                message = rendered[sub.principal]
            else:
                message = rendered[sub.principal] = self._message(loaded, record, sub,
                                                                  self._finder(loaded))
            if message is None:  # a player sees nothing of it: nothing is sent to them
                continue
            try:
                sub.loop.call_soon_threadsafe(sub.offer, message)
            except RuntimeError:  # the loop has closed
                self.remove(sub)

    def _finder(self, loaded: Loaded) -> Callable[[int], LogRecord | None] | None:
        records, eid = self.records, loaded.encounter.id
        if records is None:
            return None
        return finder(lambda after, limit: records(eid, after, limit))

    @staticmethod
    def _message(loaded: Loaded, record: LogRecord, sub: Subscriber,
                 find: Callable[[int], LogRecord | None] | None = None
                 ) -> dict[str, Any] | None:
        view = View(loaded.state, sub.principal, loaded.ruleset)
        view.find = find
        shown = view.record(record)
        if shown is None:
            return None
        return {"type": "update", "version": loaded.version, "record": shown,
                "state": view.state_json(loaded.encounter.id, loaded.version)}
