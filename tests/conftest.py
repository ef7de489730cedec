"""Fixtures for the whole suite."""

from __future__ import annotations

import faulthandler
import os
import signal
import threading
from collections.abc import Iterator

import pytest

from .support import Played


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
