"""Previews work on a snapshot, off the encounter's lock (issue: bounded work).

Odds, the dice plan and a turn's options are computed on a copy of the state taken under
the encounter's lock (``GameService.preview_state``); the lock is released before the
ruleset works. A preview made slow here (one second) must not hold a command on the same
encounter up: before, the command waited for the whole preview.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from arbiter.core import load_ruleset
from arbiter.server import create_app

from ..server.conftest import Table, set_table

pytestmark = pytest.mark.serial  # timed: run alone (pyproject.toml, make test)

SLOW = 1.0
"""Seconds the slowed preview takes."""


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    with TestClient(create_app(db=tmp_path / "p.db", rate_per_minute=10_000)) as c:
        yield set_table(c)


def slowed(monkeypatch: pytest.MonkeyPatch, name: str) -> threading.Event:
    """The demo ruleset's ``name`` method takes SLOW seconds more; the event is set once a
    call has begun."""
    kind = type(load_ruleset("demo"))
    original = getattr(kind, name)
    begun = threading.Event()

    def slow(self: Any, *args: Any, **kwargs: Any) -> Any:
        begun.set()
        time.sleep(SLOW)
        return original(self, *args, **kwargs)
    monkeypatch.setattr(kind, name, slow)
    return begun


def command_during(table: Table, begun: threading.Event,
                   preview: Callable[[], httpx.Response]) -> tuple[httpx.Response, float]:
    """``preview`` in a thread; once it is computing, a GM command on the same encounter:
    the preview's answer and the seconds the command took."""
    answers: list[httpx.Response] = []
    thread = threading.Thread(target=lambda: answers.append(preview()))
    thread.start()
    assert begun.wait(10)
    start = time.monotonic()
    r = table.command({"do": "damage", "target": "wolf", "amount": 1})
    took = time.monotonic() - start
    assert r.status_code == 201, r.text
    thread.join(10)
    return answers[0], took


def test_a_slow_odds_request_does_not_delay_a_command(table: Table,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    begun = slowed(monkeypatch, "preview")
    answer, took = command_during(table, begun, lambda: table.client.post(
        f"/api/encounters/{table.encounter}/odds", headers=table.player,
        json={"command": {"do": "attack", "actor": "nia", "target": "wolf"}}))
    assert answer.status_code == 200, answer.text
    assert answer.json()["odds"]["hit"]["exact"] == "7/10"  # on the state it was asked on
    assert took < SLOW / 2, took


def test_a_gm_odds_request_on_a_version_that_is_gone_says_stale(table: Table) -> None:
    version = table.client.get(f"/api/encounters/{table.encounter}",
                               headers=table.gm).json()["version"]
    assert table.command({"do": "damage", "target": "wolf", "amount": 1}).status_code == 201
    r = table.client.post(f"/api/encounters/{table.encounter}/odds", headers=table.gm, json={
        "command": {"do": "attack", "actor": "nia", "target": "wolf"}, "version": version})
    assert r.status_code == 200, r.text
    assert r.json()["stale"] is True and r.json()["version"] == version + 1


def test_slow_options_do_not_delay_a_command(table: Table,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    begun = slowed(monkeypatch, "options")
    answer, took = command_during(table, begun, lambda: table.client.get(
        f"/api/encounters/{table.encounter}/options?actor=nia", headers=table.player))
    assert answer.status_code == 200, answer.text
    assert answer.json()["options"]
    assert took < SLOW / 2, took
