"""A live server in its own process, a pinger and a memory gauge (issue: bounded work).

:class:`Served` runs uvicorn with Arbiter in a subprocess, with the options ``arbiter
serve`` gives it (:func:`arbiter.server.uvicorn_options`: the guarded HTTP protocol, the
keep-alive and concurrency limits) but a rate limit high enough for a test. :class:`Pinger`
asks ``/api/health`` every 20 ms from a process of its own, on a kept-alive connection,
recording each answer's latency, while the server process's resident memory (RSS) is
sampled.

A test does its hostile work inside ``with Pinger(served) as ping:`` and then asserts
``ping.check()``: health answers within :data:`HEALTH_MS` (p99; every one within
:data:`WORST_MS`) and, once the work is over and the server has settled, memory within
:data:`RSS_MB` of where it started.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import httpx

from .live import free_port

HEALTH_MS = 100.0
"""The 99th percentile of /api/health answers allowed while hostile work runs..."""
WORST_MS = 250.0
"""...and the slowest one: on the shared 2-core test machine (load average 3-4) the
scheduler alone now and then delays a process by tens of milliseconds, which says nothing
of the server (measured maxima are in each test's docstring)."""
RSS_MB = 20.0
"""How far the server's memory may stay above where it started once the work is over."""
PERIOD = 0.02
"""Seconds between two pings."""

_SERVE = """
import sys, uvicorn
from arbiter.server import create_app, uvicorn_options
port, db = int(sys.argv[1]), sys.argv[2]
options = {**uvicorn_options(), "lifespan": "on"}
uvicorn.run(create_app(db=db, rate_per_minute=1_000_000), host="127.0.0.1", port=port,
            **options)
"""


class Served:
    """Arbiter under uvicorn in a subprocess on a free port of 127.0.0.1, with ``db``."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def rss_mb(self) -> float:
        """The server process's resident memory in MB (VmRSS in /proc/PID/status)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS for the server process")

    def __enter__(self) -> Served:
        self.proc = subprocess.Popen([sys.executable, "-c", _SERVE, str(self.port),
                                      str(self.db)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, env=os.environ.copy())
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                self.proc.kill()
                raise RuntimeError(f"the server did not start: {err[-2000:]}")
            time.sleep(0.05)

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        assert self.proc is not None
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        if self.proc.stderr:
            self.proc.stderr.close()


_PING = """
import sys, time, httpx
with httpx.Client(base_url=sys.argv[1], timeout=5) as client:
    while True:
        start = time.perf_counter()
        try:
            status = str(client.get("/api/health").status_code)
        except httpx.HTTPError as err:
            status = type(err).__name__
        took = time.perf_counter() - start
        print(f"{took * 1000:.3f} {status}", flush=True)
        time.sleep(max(0.0, float(sys.argv[2]) - took))
"""


@dataclass
class Pinger:
    """Pings ``served``'s /api/health every PERIOD seconds from a process of its own (so
    the test's own threads, uploading or parsing, never delay a ping), and samples the
    server's memory at each answer, between ``__enter__`` and ``__exit__``."""

    served: Served
    latencies_ms: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    rss_before: float = 0.0
    rss_peak: float = 0.0
    rss_after: float = 0.0
    _proc: subprocess.Popen[str] | None = None
    _thread: threading.Thread | None = None
    _first: threading.Event = field(default_factory=threading.Event)

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            ms, status = line.split()
            self.latencies_ms.append(float(ms))
            if status != "200":
                self.failures.append(status)
            self.rss_peak = max(self.rss_peak, self.served.rss_mb())
            self._first.set()

    def __enter__(self) -> Pinger:
        self.rss_before = self.rss_peak = self.served.rss_mb()
        self._proc = subprocess.Popen([sys.executable, "-c", _PING, self.served.url,
                                       str(PERIOD)], stdout=subprocess.PIPE, text=True)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        if not self._first.wait(30):
            self._proc.kill()
            raise RuntimeError("the pinger did not start")
        time.sleep(0.1)  # a few pings before the work begins
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(10)
        if self._thread is not None:
            self._thread.join(10)
        self.rss_after = self.settled_rss()

    def settled_rss(self, seconds: float = 3.0) -> float:
        """The server's memory once it is back within RSS_MB of the start, or the lowest
        read in ``seconds`` (it frees the memory of the last answers once they are sent)."""
        lowest = self.served.rss_mb()
        deadline = time.monotonic() + seconds
        while lowest - self.rss_before >= RSS_MB and time.monotonic() < deadline:
            time.sleep(0.2)
            lowest = min(lowest, self.served.rss_mb())
        return lowest

    @property
    def worst_ms(self) -> float:
        return max(self.latencies_ms, default=0.0)

    @property
    def p99_ms(self) -> float:
        if len(self.latencies_ms) < 2:
            return self.worst_ms
        return statistics.quantiles(self.latencies_ms, n=100, method="inclusive")[98]

    def figures(self) -> str:
        return (f"{len(self.latencies_ms)} pings, max {self.worst_ms:.1f} ms, "
                f"p99 {self.p99_ms:.1f} ms; RSS {self.rss_before:.1f} MB -> peak "
                f"{self.rss_peak:.1f} MB -> after {self.rss_after:.1f} MB")

    def check(self, min_pings: int = 5) -> None:
        """Every ping answered 200, 99% within HEALTH_MS and all within WORST_MS, memory
        back within RSS_MB."""
        print(self.figures())
        assert not self.failures, (self.failures[:5], self.figures())
        assert len(self.latencies_ms) >= min_pings, self.figures()
        assert self.p99_ms < HEALTH_MS, self.figures()
        assert self.worst_ms < WORST_MS, self.figures()
        assert self.rss_after - self.rss_before < RSS_MB, self.figures()


__all__ = ["HEALTH_MS", "RSS_MB", "WORST_MS", "Pinger", "Served"]
