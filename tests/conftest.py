"""Fixtures for the whole suite."""

from __future__ import annotations

import faulthandler
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .support import Played

if TYPE_CHECKING:
    from playwright.sync_api import Browser

# Debian's headless build of Chromium (the same Blink without the browser's window code)
# when it is installed: the console tests spend about 40% less CPU in it than in the full
# browser (`make chromium` installs both); else the full browser.
CHROMIUM = next((Path(found) for name in ("chromium-headless-shell", "chromium")
                 if (found := shutil.which(name))), Path("/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


BROWSER_TEST_SECONDS = 3.0  # what a browser test takes, about: the weight of one


def expected_seconds(item: pytest.Item) -> float:
    """About how long ``item`` runs: its ``long(seconds)`` mark, a browser test's weight, or
    nothing to speak of (most tests take milliseconds)."""
    mark = item.get_closest_marker("long")
    if mark is not None:
        return float(mark.args[0])
    return BROWSER_TEST_SECONDS if "browser" in getattr(item, "fixturenames", ()) else 0.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first. ``make test`` hands whole files to its workers in the order
    collected (``--dist loadfile --no-loadscope-reorder``): a file of long tests handed out
    last leaves the other worker idle while it runs (xdist's own order, by the number of
    tests, put the fuzzing run and the browser files last, and left a core idle for about a
    minute). Within the long files and among the others, the order stays as collected."""
    weight: dict[Path, float] = {}
    for item in items:
        weight[item.path] = weight.get(item.path, 0.0) + expected_seconds(item)
    items.sort(key=lambda item: -weight[item.path])


@pytest.fixture(autouse=True)
def watchdog() -> Iterator[None]:
    """A test stuck for five minutes (a lost WebSocket message, a lock) prints every
    thread's traceback and interrupts the run as Ctrl-C would, so fixtures still clean up
    (the PostgreSQL server is stopped) instead of CI hanging. ``ARBITER_WATCHDOG`` sets
    other seconds (the long random-play run of ``make random-play`` takes longer)."""
    def bite() -> None:
        faulthandler.dump_traceback(all_threads=True)
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(float(os.environ.get("ARBITER_WATCHDOG", "300")), bite)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


@pytest.fixture(autouse=True, scope="session")
def invariants_checked() -> Iterator[None]:
    """Every encounter the suite plays checks its ruleset's invariants after each event and
    each command (``arbiter.core.invariants``): a broken one fails the test that broke it,
    naming the invariant, its rule, the command and the event."""
    from arbiter.core.invariants import checking

    with checking():
        yield


@pytest.fixture(scope="session")
def played() -> Played:
    """The session's :class:`Played`: ``played(path)`` is ``run_file(path)``, run once."""
    return Played()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium (its headless shell when installed) through Playwright, one per
    test process (``make test`` installs it when missing; without it, a browser test
    skips). Playwright's sync API runs one instance in a process: every browser test takes
    this one, whichever order a worker runs them in."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.skip("Chromium is missing: `make test` installs it as root "
                    "(apt-get install chromium)")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                     args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()
