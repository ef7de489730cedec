"""Two consoles press Next at the same moment: one turn ends, not two (issue: bounded work,
finding 4). The console in a real Chromium sends the version it shows with ``next``; the
other console's Next lands first (sent while the browser's request is held), so the
browser's is refused with a 409, and the console says the turn had already changed and
shows the server's state again. Skipped without Chromium, like tests/web."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Route, expect

from .live import LiveServer


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "race.db") as server:
        yield server


def test_a_second_next_at_the_same_moment_is_refused_and_said(live: LiveServer,
                                                              browser: Browser) -> None:
    api = httpx.Client(base_url=live.url, timeout=10)
    r = api.post("/api/campaigns", json={"name": "Race", "ruleset": "demo"})
    cid, token = r.json()["campaign"]["id"], r.json()["gm_token"]
    gm = {"Authorization": f"Bearer {token}"}
    eid = api.post(f"/api/campaigns/{cid}/encounters", json={"name": "E"},
                   headers=gm).json()["encounter"]["id"]
    for who in ("a", "b", "c"):
        assert api.post(f"/api/encounters/{eid}/actors", headers=gm,
                        json={"id": who, "template": "wolf"}).status_code == 201
    sent: list[dict[str, Any]] = []
    other: list[int] = []

    def other_console_first(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        sent.append(body)
        if body.get("command", {}).get("do") == "next" and not other:
            r = api.post(f"/api/encounters/{eid}/commands", headers=gm,
                         json={"command": {"do": "next"}})
            other.append(r.status_code)
        route.continue_()

    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(8000)
        page.goto(f"{live.url}/#campaigns={cid}:{token}")
        expect(page.locator("#status")).to_have_text("live")
        page.locator("#start").click()
        expect(page.locator("#turn-info")).to_contain_text("Round 1")
        before = api.get(f"/api/encounters/{eid}", headers=gm).json()
        page.route("**/api/encounters/*/commands", other_console_first)
        page.locator("#next").click()
        expect(page.locator("#toasts")).to_contain_text("the turn had already changed")
        after = api.get(f"/api/encounters/{eid}", headers=gm).json()
        assert other == [201]
        assert [b.get("expected_version") for b in sent] == [before["version"]]
        assert after["version"] == before["version"] + 1  # one turn ended, not two
        expect(page.locator("#turn-info")).to_contain_text(f"Round {after['round']}")
        page.wait_for_function(
            "v => document.querySelector('#tracker li.current')?.dataset.id === v",
            arg=after["current"])
    finally:
        context.close()
        api.close()
