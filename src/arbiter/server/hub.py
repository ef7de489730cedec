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
from dataclasses import dataclass, field
from typing import Any

from ..store import Loaded, LogRecord, Principal
from .views import View

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

    def offer(self, message: dict[str, Any]) -> None:
        """Called on the loop: queue the message, or drop a subscriber that lags."""
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(CLOSE)


class Hub:
    def __init__(self) -> None:
        self._subs: dict[str, list[Subscriber]] = {}
        self._lock = threading.Lock()

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
        for sub in subs:
            view = View(loaded.state, sub.principal, loaded.ruleset)
            message = {"type": "update", "version": loaded.version,
                       "record": view.record(record),
                       "state": view.state_json(loaded.encounter.id, loaded.version)}
            try:
                sub.loop.call_soon_threadsafe(sub.offer, message)
            except RuntimeError:  # the loop has closed
                self.remove(sub)
