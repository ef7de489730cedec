"""The real server on a free port of 127.0.0.1, in a thread of the test process."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import uvicorn

from arbiter.server import create_app, uvicorn_options


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LiveServer:
    """uvicorn serving Arbiter on ``db``; a context manager that waits until it answers.
    ``guarded``: with the options ``arbiter serve`` gives uvicorn (the guarded HTTP protocol
    that bounds connections and slow headers, ``arbiter.server.guard``)."""

    def __init__(self, db: Path, rate_per_minute: int = 100_000, guarded: bool = False
                 ) -> None:
        self.port = free_port()
        options: dict[str, Any] = {**uvicorn_options(), "lifespan": "on"} if guarded else {
            "log_level": "warning", "access_log": False, "lifespan": "on"}
        config = uvicorn.Config(create_app(db=db, rate_per_minute=rate_per_minute),
                                host="127.0.0.1", port=self.port, **options)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
