"""Fixtures: the server in a thread on a free port, and Debian's Chromium through Playwright.

The server is the real ASGI app on a temporary SQLite file, served by uvicorn on
127.0.0.1; it stops at the end of the session. The browser is the suite's (``browser`` in
tests/conftest.py: Debian's Chromium, one per test process).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from playwright.sync_api import Browser, BrowserContext, Page
from starlette.applications import Starlette

from arbiter.server import create_app
from arbiter.store import GameService

OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "web"



def web_app(db: Path) -> Starlette:
    """The server's app (its API, the dice endpoint and the console's static files)."""
    return create_app(db=db)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerThread:
    """uvicorn in a daemon thread; ``stop`` asks it to exit and waits."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.port = free_port()
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                access_log=False, lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="arbiter-web-test",
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def service(self) -> GameService:
        """The running app's game service (thread-safe: the app calls it from threads)."""
        service: GameService | None = self.app.state.api.service
        assert service is not None, "the server has not started"
        return service

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("the test server did not start within 15 s")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    thread = ServerThread(web_app(tmp_path_factory.mktemp("web") / "arbiter.db"))
    thread.start()
    try:
        yield thread
    finally:
        thread.stop()


def browsing(browser: Browser, width: int, height: int) -> Iterator[BrowserContext]:
    """A browser context at ``width`` x ``height``, closed after the test."""
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.set_default_timeout(8000)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    yield from browsing(browser, 1366, 900)


@pytest.fixture
def desk(browser: Browser) -> Iterator[BrowserContext]:
    """A game master's desk: 1440x900."""
    yield from browsing(browser, 1440, 900)


@pytest.fixture
def phone(browser: Browser) -> Iterator[BrowserContext]:
    """A phone at the table: 390x844."""
    yield from browsing(browser, 390, 844)


@pytest.fixture
def page(context: BrowserContext) -> Page:
    pg = context.new_page()
    found: list[str] = []
    pg.on("pageerror", lambda exc: found.append(str(exc)))
    pg.script_errors = found  # type: ignore[attr-defined]
    return pg


@dataclass
class Campaign:
    id: str
    gm_token: str
    ruleset: str


@pytest.fixture(scope="session")
def api(server: ServerThread) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        yield client


def create_campaign(api: httpx.Client, ruleset: str, name: str = "Test") -> Campaign:
    r = api.post("/api/campaigns", json={"name": name, "ruleset": ruleset})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return Campaign(body["campaign"]["id"], body["gm_token"], ruleset)


def screenshot(page: Page, name: str) -> Path:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
