"""Balance while you build (issue 36): the builder's win odds move as the GM adds
creatures, and the open encounter's Simulate button answers each creature's chances.
Screenshots: test-output/web/balance-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from arbiter.core import load_ruleset
from arbiter.web.demo import console_link, create_demo_tables, demo_rulesets

from .conftest import ServerThread, screenshot
from .test_roster import open_panel
from .test_table import open_campaign, settled

RULESET = demo_rulesets()[0]


@pytest.fixture(scope="module")
def link(server: ServerThread) -> str:
    return console_link(server.url, create_demo_tables(server.service))


def _heroes(page: Page) -> int:
    line = page.locator("#roster-panel [data-role=builder-odds] .odds-line")
    expect(line).to_contain_text("rounds")
    settled(page)
    found = re.search(r"heroes (\d+)%", line.inner_text())
    assert found, line.inner_text()
    return int(found.group(1))


def _add(page: Page, template: str, count: int, side: str) -> None:
    form = page.locator("#roster-panel form.rnew")
    form.locator("[name=creature]").select_option(template)
    form.locator("[name=count]").fill(str(count))
    form.locator("[name=cside]").fill(side)
    form.locator("button.addcreature").click()


@pytest.mark.parametrize("size", ["desk", "phone"])
def test_adding_a_creature_moves_the_builders_win_odds(
        browser: Browser, link: str, size: str, request: pytest.FixtureRequest) -> None:
    context: BrowserContext = request.getfixturevalue(size)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(link)
    open_campaign(page, RULESET)
    template = next(iter(load_ruleset(RULESET).templates))
    open_panel(page, "#roster-panel")
    _add(page, template, 1, "heroes")
    _add(page, template, 1, "foes")
    even = _heroes(page)
    line = page.locator("#roster-panel [data-role=builder-odds]")
    expect(line).to_contain_text(
        re.compile(r"Win odds: .*heroes \d+% \(\d+%–\d+%\).*~\d+\.\d rounds"))
    expect(line).to_contain_text("simulated fights")
    _add(page, template, 2, "foes")
    expect(page.locator("#roster-panel form.rnew .rcreatures li")).to_have_count(2)
    expect(line).to_contain_text("working")
    outnumbered = _heroes(page)
    assert outnumbered < even
    line.scroll_into_view_if_needed()
    screenshot(page, f"balance-builder-{size}")

    # the open encounter: Simulate answers from where it stands, creature by creature
    page.locator("#balance button.simulate").click()
    out = page.locator("#balance .balance-out")
    expect(out).to_contain_text("Win odds:")
    settled(page)
    expect(out.locator("li").first).to_contain_text("goes down")
    out.scroll_into_view_if_needed()
    screenshot(page, f"balance-simulate-{size}")
    assert errors == []
