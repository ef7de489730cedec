"""The console at a real table (issue: the GM console at a real table): each demo encounter
played through the UI only, at a desk and on a phone.

For every ruleset's demo: the phone shows the turn order and the action panel before any
card; a monster's default target is an enemy; R rolls right after choosing from a
dropdown; the log reads as sentences; the cards' damage button and condition picker issue
the GM's commands; screenshots at 1440x900 and 390x844 go to test-output/web/.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from arbiter.web.demo import console_link, create_demo_tables, demo_rulesets, table_of

from .conftest import ServerThread, screenshot


@pytest.fixture(scope="module")
def link(server: ServerThread) -> str:
    return console_link(server.url, create_demo_tables(server.service))


def open_campaign(page: Page, ruleset: str) -> None:
    select = page.locator("#campaign-select")
    expect(select.locator("option", has_text=f"Demo: {ruleset}")).to_have_count(1)
    value = select.locator("option", has_text=f"Demo: {ruleset}").get_attribute("value")
    assert value
    select.select_option(value)
    expect(page.locator("#ruleset-name")).to_have_text(ruleset)
    expect(page.locator("#cards article.card").first).to_be_visible()
    # the chosen campaign's encounter is drawn (not the one shown before it) and settled
    page.wait_for_function("() => document.documentElement.dataset.shown === "
                           "document.querySelector('#encounter-select').value")
    settled(page)
    if page.locator("#start").is_visible():
        page.locator("#start").click()
    expect(page.locator("#turn-info")).to_contain_text("Round")
    settled(page)


def settled(page: Page) -> None:
    """Wait until the console has no request in flight and no probe waiting to run."""
    expect(page.locator("html[data-busy]")).to_have_count(0)


def targets_of(page: Page, actor: str) -> str:
    """The target the console chose for ``actor`` once its probe of the targets is done."""
    expect(page.locator(f"#target[data-probed-for='{actor}']")).to_have_count(1)
    settled(page)
    return page.locator("#target").input_value()


def side_of(page: Page, entity: str) -> str:
    return page.locator(f"#cards article.card[data-id='{entity}'] .chip.side").inner_text()


@pytest.mark.parametrize("ruleset", demo_rulesets())
def test_a_round_at_the_table(browser: Browser, link: str, ruleset: str) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(8000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(link)
        open_campaign(page, ruleset)
        for _ in range(3):  # three turns: each creature's default target is an enemy
            actor = page.locator("#actor").input_value()
            chosen = targets_of(page, actor)
            if chosen:
                assert side_of(page, chosen) != side_of(page, actor), (
                    f"{actor} defaults to its own side")
            page.locator("#next").click()
            expect(page.locator("#actor")).not_to_have_value(actor)
        # R rolls right after choosing from a dropdown (the action list)
        records = page.locator("#log ol.log > li")
        before = records.count()
        page.locator("#do").focus()
        page.keyboard.press("r")
        page.wait_for_timeout(400)
        assert records.count() >= before  # a refusal shows as an error, not a crash
        # the log reads as sentences, not raw events
        expect(page.locator("#log .said").first).to_be_visible()
        assert "~~" not in page.locator("#log").inner_text()
        # a condition from the card's picker
        first = page.locator("#cards article.card").first
        entity = first.get_attribute("data-id")
        name = table_of(ruleset)[1][0][0] if table_of(ruleset)[1] else entity
        assert name
        first.locator(".qcondition summary").click()
        chosen = first.locator(".qcond").input_value()
        first.locator(".qcondition button").click()
        expect(page.locator(f"#cards article.card[data-id='{entity}'] "
                            f".chip.cond[data-condition='{chosen}']")).to_be_visible()
        screenshot(page, f"table-{ruleset}-1440")
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize("ruleset", demo_rulesets())
def test_the_phone_shows_the_turn_and_the_action_first(browser: Browser, link: str,
                                                       ruleset: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(8000)
    page = context.new_page()
    try:
        page.goto(link)
        open_campaign(page, ruleset)
        action = page.locator("#action").bounding_box()
        tracker = page.locator("#tracker-panel").bounding_box()
        cards = page.locator("#cards").bounding_box()
        assert action and tracker and cards
        assert tracker["y"] < action["y"] < cards["y"]
        assert action["y"] < 844, "the action panel starts on the first screen"
        roll = page.locator("#roll").bounding_box()
        assert roll and roll["y"] + roll["height"] <= 844, (
            f"the Roll button is below the first screen: {roll}")
        page.screenshot(path=str(screenshot_path(f"table-{ruleset}-390")))
    finally:
        context.close()


def screenshot_path(name: str) -> str:
    from .conftest import OUTPUT

    OUTPUT.mkdir(parents=True, exist_ok=True)
    return str(OUTPUT / f"{name}.png")


def test_damage_from_a_card_is_the_gms_damage_command(browser: Browser, link: str) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(8000)
    page = context.new_page()
    try:
        page.goto(link)
        open_campaign(page, "realms")
        card = page.locator("#cards article.card").nth(2)
        entity = card.get_attribute("data-id")
        health = card.locator(".meter[data-field=health] .num")
        before = int(health.inner_text().split("/")[0])
        card.locator(".qamount").fill("2+1")
        card.locator(".qdamage").click()
        page.wait_for_function(
            "([id, h]) => { const el = document.querySelector("
            "`#cards article.card[data-id='${id}'] .meter[data-field=health] .num`);"
            " return el && parseInt(el.textContent) !== h; }", arg=[entity, before])
        after = int(card.locator(".meter[data-field=health] .num").inner_text().split("/")[0])
        assert after < before
        # (another record may come after it)
        expect(page.locator("#log .said", has_text="damage").first).to_be_visible()
    finally:
        context.close()


def test_a_campaign_picked_while_the_first_still_loads_is_the_one_shown(
        browser: Browser, link: str) -> None:
    """The page opens the link's first campaign; the GM picks zones before that campaign's
    encounter has arrived. The late answer must not replace zones' encounter (it did: the
    page then showed one encounter under another's name, and every command went astray)."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(8000)
    page = context.new_page()
    held: list[Route] = []
    hold = [True]

    def encounter_state(route: Route) -> None:
        if hold[0] and re.search(r"/api/encounters/[^/]+$", route.request.url):
            held.append(route)  # answered later, after the GM's pick
        else:
            route.continue_()

    try:
        page.route("**/api/encounters/*", encounter_state)
        page.goto(link)
        select = page.locator("#campaign-select")
        zones = select.locator("option", has_text="Demo: zones")
        expect(zones).to_have_count(1)
        page.wait_for_function("() => document.querySelector('#encounter-select').value !== ''")
        first = page.evaluate("() => document.querySelector('#encounter-select').value")
        assert len(held) == 1 and "Demo: zones" not in (select.locator("option:checked")
                                                         .inner_text())
        hold[0] = False
        select.select_option(zones.get_attribute("value") or "")
        expect(page.locator("#ruleset-name")).to_have_text("zones")
        page.wait_for_function("(first) => document.documentElement.dataset.shown"
                               " && document.documentElement.dataset.shown !== first", arg=first)
        shown = page.evaluate("() => document.documentElement.dataset.shown")
        with page.expect_response(lambda r: r.url.endswith(f"/api/encounters/{first}")):
            held[0].continue_()
        page.wait_for_timeout(300)  # the late answer has been read by the page
        assert page.evaluate("() => document.documentElement.dataset.shown") == shown
        assert page.locator("#encounter-select").input_value() == shown
        expect(page.locator("#ruleset-name")).to_have_text("zones")
    finally:
        context.close()
