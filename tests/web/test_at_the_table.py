"""At the table, part 3 (issue 33): targets by click, the turn order edited in place, and the
defects a game master met, each kept as a check in Chromium.

Each test opens its own demo campaigns (the module's server), so the fights do not meet.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from arbiter.core import Command
from arbiter.web.demo import DemoTable, console_link, create_demo_tables, demo_rulesets

from .conftest import ServerThread, browsing, screenshot
from .test_table import open_campaign, settled, targets_of


@pytest.fixture
def tables(server: ServerThread) -> list[DemoTable]:
    """Fresh demo tables for each test: one test's fight never meets another's."""
    return create_demo_tables(server.service)


@pytest.fixture
def link(server: ServerThread, tables: list[DemoTable]) -> str:
    return console_link(server.url, tables)


def start(server: ServerThread, tables: list[DemoTable], ruleset: str, first: str,
          initiative: dict[str, int] | None = None) -> None:
    """Turn-by-turn play begun with ``first`` acting first (the others roll, unless given)."""
    table = next(t for t in tables if t.ruleset == ruleset)
    server.service.submit(table.encounter, Command("start", args={
        "initiative": {**(initiative or {}), first: 99}}))


@pytest.fixture
def gm(browser: Browser) -> Iterator[BrowserContext]:
    yield from browsing(browser, 1440, 900)


def watched(context: BrowserContext) -> tuple[Page, list[str]]:
    """A page whose script errors and failed API answers (4xx, 5xx) are collected."""
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
    page.on("response", lambda r: problems.append(
        f"{r.status} {r.request.method} {r.url} {r.request.post_data} {r.text()}")
        if r.status >= 400 else None)
    return page, problems


def order_of(page: Page) -> list[str]:
    return [li.get_attribute("data-id") or ""
            for li in page.locator("#tracker li[data-id]").all()]


def choose_action(page: Page, name: str) -> None:
    page.locator("#do").select_option(name)
    expect(page.locator("#target[data-probed-for]")).to_have_count(1)


def enemy_of(page: Page, actor: str) -> str:
    """A creature on another side than ``actor``'s (its card's side chip)."""
    mine = page.locator(f"#cards article.card[data-id='{actor}'] .chip.side").inner_text()
    for card in page.locator("#cards article.card").all():
        if card.locator(".chip.side").inner_text() != mine:
            found = card.get_attribute("data-id")
            assert found
            return found
    raise AssertionError("no enemy on the table")


@pytest.mark.parametrize(("ruleset", "first"), [("polemos", "vera"), ("zones", "rook")])
def test_a_token_clicked_on_the_map_becomes_the_target(
        gm: BrowserContext, server: ServerThread, tables: list[DemoTable], link: str,
        ruleset: str, first: str) -> None:
    start(server, tables, ruleset, first)
    page, problems = watched(gm)
    page.goto(link)
    open_campaign(page, ruleset)
    actor = page.locator("#actor").input_value()
    assert actor == first
    targets_of(page, actor)
    # the demo encounter stands on the map (demo.yaml places it)
    expect(page.locator("#map-panel")).to_have_attribute("open", "")
    expect(page.locator(".battlemap .tok")).to_have_count(5)
    # enemies first, marked as enemies; allies apart
    groups = page.locator("#target optgroup")
    expect(groups.first).to_have_attribute("label", "enemies")
    expect(page.locator("#target optgroup[label=enemies] option").first).to_contain_text(
        "(enemy)")
    foe = enemy_of(page, actor)
    # a second enemy, not the default, clicked on the map becomes the target
    others = [o.get_attribute("value") for o in
              page.locator("#target optgroup[label=enemies] option").all()]
    pick = next((o for o in others if o and o != page.locator("#target").input_value()), foe)
    page.locator(f".battlemap .tok[data-id='{pick}']").click()
    expect(page.locator("#target")).to_have_value(pick)
    expect(page.locator("#odds")).to_contain_text(page.locator(
        f"#cards article.card[data-id='{pick}'] h3").inner_text().split(" (")[0])
    # so does a row of the turn order
    page.locator(f"#tracker li[data-id='{foe}'] .who").click()
    expect(page.locator("#target")).to_have_value(foe)
    assert not problems, problems


def test_the_turn_order_row_damages_heals_and_takes_initiative(gm: BrowserContext,
                                                               link: str) -> None:
    page, problems = watched(gm)
    page.goto(link)
    open_campaign(page, "realms")
    row = page.locator("#tracker li[data-id='ogre']")
    health = page.locator("#cards article.card[data-id='ogre'] .meter[data-field=health] .num")
    before = int(health.inner_text().split("/")[0])
    row.locator(".hpin").fill("-7")
    row.locator(".hpin").press("Enter")
    expect(page.locator("#log .said").first).to_contain_text("Ogre")
    page.wait_for_function(
        "h => parseInt(document.querySelector(\"#cards article.card[data-id='ogre'] "
        ".meter[data-field=health] .num\").textContent) < h", arg=before)
    hurt = int(health.inner_text().split("/")[0])
    page.locator("#tracker li[data-id='ogre'] .hpin").fill("+3")
    page.locator("#tracker li[data-id='ogre'] .hpin").press("Enter")
    page.wait_for_function(
        "h => parseInt(document.querySelector(\"#cards article.card[data-id='ogre'] "
        ".meter[data-field=health] .num\").textContent) === h + 3", arg=hurt)
    # the initiative in place: the ogre first
    top = page.locator("#tracker li[data-id] .initin").first.input_value()
    field = page.locator("#tracker li[data-id='ogre'] .initin")
    field.fill(str(int(top) + 5))
    field.press("Enter")
    expect(page.locator("#tracker li[data-id]").first).to_have_attribute("data-id", "ogre")
    expect(page.locator("#log .said").first).to_contain_text("initiative is now")
    # a bad number is said, not sent
    page.locator("#tracker li[data-id='ogre'] .hpin").fill("seven")
    page.locator("#tracker li[data-id='ogre'] .hpin").press("Enter")
    expect(page.locator(".toast").last).to_contain_text("type -7 to damage or +3 to heal")
    assert not problems, problems


def test_rows_dragged_reorder_the_turn_with_one_undoable_command(
        gm: BrowserContext, server: ServerThread, tables: list[DemoTable], link: str) -> None:
    start(server, tables, "zones", "rook", {"ash": 20, "bandit": 10, "ogre": 5, "wolf": 1})
    page, problems = watched(gm)
    page.goto(link)
    open_campaign(page, "zones")
    before = order_of(page)
    last = before[-1]
    records = page.locator("#log ol.log > li")
    count = records.count()
    page.locator(f"#tracker li[data-id='{last}']").drag_to(
        page.locator(f"#tracker li[data-id='{before[1]}']"),
        target_position={"x": 20, "y": 2})  # the upper half: before it
    expect(page.locator("#tracker li[data-id]").nth(1)).to_have_attribute("data-id", last)
    expect(page.locator(f"#tracker li[data-id='{last}'] .initin")).to_have_value("21")
    expect(records).to_have_count(count + 1)  # one command, one record
    expect(page.locator("#log .said").first).to_contain_text("initiative is now")
    page.keyboard.press("u")  # undone like any command
    page.wait_for_function(
        "o => [...document.querySelectorAll('#tracker li[data-id]')].map(l => l.dataset.id)"
        ".join() === o", arg=",".join(before))
    assert not problems, problems


def test_a_rows_grip_reorders_by_pointer_events_as_a_finger_does(
        browser: Browser, server: ServerThread, tables: list[DemoTable], link: str) -> None:
    """On a phone a row takes no HTML drag and drop: its grip follows pointer events (a
    finger's, here a mouse's: the same events) and drops the creature above or below the
    row it is lifted over."""
    start(server, tables, "zones", "rook", {"ash": 20, "bandit": 10, "ogre": 5, "wolf": 1})
    for context in browsing(browser, 390, 844):
        page, problems = watched(context)
        page.goto(link)
        open_campaign(page, "zones")
        before = order_of(page)
        last = before[-1]
        grip = page.locator(f"#tracker li[data-id='{last}'] .grip")
        grip.scroll_into_view_if_needed()
        start_box = grip.bounding_box()
        onto = page.locator(f"#tracker li[data-id='{before[1]}']").bounding_box()
        assert start_box and onto
        page.mouse.move(start_box["x"] + 4, start_box["y"] + 4)
        page.mouse.down()
        page.mouse.move(onto["x"] + 40, onto["y"] + 3, steps=6)  # the upper half: before it
        expect(page.locator(f"#tracker li[data-id='{before[1]}']")).to_have_class(
            re.compile("dropto"))
        page.mouse.up()
        expect(page.locator("#tracker li[data-id]").nth(1)).to_have_attribute("data-id", last)
        settled(page)
        assert not problems, problems


def test_a_melee_creature_opens_on_melee_and_the_next_on_its_own(gm: BrowserContext,
                                                                 link: str) -> None:
    page, problems = watched(gm)
    page.goto(link)
    open_campaign(page, "zones")
    seen: dict[str, str] = {}
    for _ in range(5):
        actor = page.locator("#actor").input_value()
        targets_of(page, actor)
        page.wait_for_timeout(150)  # the opening action's own probe
        targets_of(page, actor)
        seen[actor] = page.locator("#do").input_value()
        page.locator("#do").select_option("melee")  # the GM's choice does not stick
        page.locator("#next").click()
        expect(page.locator("#actor")).not_to_have_value(actor)
    # the ogre and the wolf carry melee weapons only; the soldiers carry guns
    assert seen.get("ogre") == "melee", seen
    assert seen.get("wolf") == "melee", seen
    assert seen.get("rook") == "attack" and seen.get("ash") == "attack", seen
    assert not [p for p in problems if "script error" in p], problems


def test_the_dice_box_marks_dice_as_the_log_does(gm: BrowserContext, link: str) -> None:
    page, _ = watched(gm)
    page.goto(link)
    open_campaign(page, "zones")
    box = page.locator("#roller [name=expr]")
    box.fill("20d6kh3")
    page.locator("#roller button[type=submit]").click()
    out = page.locator("#roll-out .rolled code")
    expect(out.locator("s").first).to_be_visible()
    box.fill("20d10>=2")
    page.locator("#roller button[type=submit]").click()
    expect(out.locator("b").first).to_be_visible()
    assert "~~" not in out.inner_text() and "**" not in out.inner_text()


def test_a_realms_move_onto_another_creature_warns_and_the_board_stays(
        gm: BrowserContext, server: ServerThread, tables: list[DemoTable], link: str) -> None:
    start(server, tables, "realms", "nia")
    page, problems = watched(gm)
    page.goto(link)
    open_campaign(page, "realms")
    # the creature whose turn it is, dragged onto its hound's square
    actor, other = "nia", "hound"
    token = page.locator(f".battlemap .tok[data-id='{actor}']")
    onto = page.locator(f".battlemap .tok[data-id='{other}']").bounding_box()
    held = token.bounding_box()
    board = page.locator(".battlemap").bounding_box()
    assert onto and held and board
    page.mouse.move(held["x"] + held["width"] / 2, held["y"] + held["height"] / 2)
    page.mouse.down()
    page.mouse.move(onto["x"] + onto["width"] / 2, onto["y"] + onto["height"] / 2, steps=8)
    expect(page.locator(".maptriggers")).to_contain_text("its turn cannot end there")
    during = page.locator(".battlemap").bounding_box()
    assert during and during["y"] == board["y"], "the board moved under the drag"
    page.keyboard.press("Escape")
    page.mouse.up()
    assert not [p for p in problems if "script error" in p], problems


def test_a_map_refusal_goes_once_a_later_action_succeeds(gm: BrowserContext,
                                                         link: str) -> None:
    page, _ = watched(gm)
    page.goto(link)
    open_campaign(page, "realms")
    page.evaluate("() => { const e = document.querySelector('#map-panel .mapbody > .error');"
                  " e.textContent = 'refused: an earlier drop'; }")
    row = page.locator("#tracker li[data-id]").last
    row.locator(".hpin").fill("-1")
    row.locator(".hpin").press("Enter")
    expect(page.locator("#map-panel .mapbody > .error")).to_have_text("")


def test_the_phone_header_is_short_and_the_tracker_says_hidden(
        browser: Browser, server: ServerThread, tables: list[DemoTable], link: str) -> None:
    start(server, tables, "zones", "rook")  # the wolf is still hidden: its turn is to come
    for context in browsing(browser, 390, 844):
        page, problems = watched(context)
        page.goto(link)
        open_campaign(page, "zones")
        header = page.locator("#top").bounding_box()
        screenshot(page, "phone-header")
        assert header and header["height"] <= 90, f"the header takes {header}"
        expect(page.locator("#tracker li[data-id='wolf']")).to_contain_text("(hidden)")
        expect(page.locator("#tracker li[data-id='wolf'] small")).to_be_visible()
        assert not [p for p in problems if "script error" in p], problems


@pytest.mark.parametrize("ruleset", demo_rulesets())
def test_three_rounds_with_no_error_and_screenshots(browser: Browser, link: str,
                                                    ruleset: str) -> None:
    """Three rounds of plain play (the default action at a target clicked on the map, its
    first die typed at the table and the rest rolled by the server, then Next) with no
    script error and no 4xx answer; a game master's view in the middle of the fight, at a
    desk and then on a phone (the same fight, three rounds on, unless it ended)."""
    sizes = ((1440, 900), (390, 844))
    for width, height in sizes:
        for context in browsing(browser, width, height):
            page, problems = watched(context)
            page.goto(link)
            open_campaign(page, ruleset)
            turns = len(order_of(page)) * 3
            for _ in range(turns):
                actor = page.locator("#actor").input_value()
                chosen = targets_of(page, actor)  # settled: the opening action's probe too
                if chosen:
                    if page.locator("#map-panel").get_attribute("open") is not None:
                        page.locator(f".battlemap .tok[data-id='{chosen}']").click()
                        expect(page.locator("#target")).to_have_value(chosen)
                    records = page.locator("#log ol.log > li").count()
                    settled(page)
                    # the table throws the first die (a 1 comes up on any die); the server
                    # rolls the rest (dice_rest)
                    expect(page.locator("#dice-plan .die").first).to_be_visible()
                    page.locator("#dice").fill("1")
                    expect(page.locator("#dice-plan")).to_contain_text("the server rolls")
                    page.locator("#roll").click()
                    expect(page.locator("#log ol.log > li")).to_have_count(records + 1)
                    settled(page)
                if page.locator("#next").is_disabled():
                    break  # the dice (seeded afresh each run) ended the fight: one side down
                page.locator("#next").click()
                expect(page.locator("#actor")).not_to_have_value(actor)
            targets_of(page, page.locator("#actor").input_value())
            screenshot(page, f"fight-{ruleset}-{width}")
            assert not problems, problems


def test_initiative_in_the_action_panel_waits_for_its_value(gm: BrowserContext,
                                                           link: str) -> None:
    page, problems = watched(gm)
    page.goto(link)
    open_campaign(page, "zones")
    page.locator("#do").select_option("initiative")
    page.locator("#target").select_option("ogre")
    value = page.locator("#opts [data-arg=value]")
    value.focus()
    value.type("1")
    page.wait_for_timeout(400)
    assert "missing argument" not in page.locator("#action").inner_text()
    value.fill("")
    page.locator("#target").select_option("bandit")
    page.wait_for_timeout(400)
    assert "missing argument" not in page.locator("#action").inner_text()
    assert not problems, problems


def test_polemos_areas_and_armor_read_as_words(gm: BrowserContext, link: str) -> None:
    page, problems = watched(gm)
    page.goto(link)
    open_campaign(page, "polemos")
    for _ in range(2):
        row = page.locator("#tracker li[data-id='ganger'] .hpin")
        row.fill("-4")
        row.press("Enter")
        expect(page.locator("#log .said").first).to_contain_text("Ganger takes")
    page.locator("#log li.rec details").first.evaluate("d => d.open = true")
    text = page.locator("#log").inner_text() + page.locator("#cards").inner_text()
    import re
    assert not re.findall(r"\b(?:left|right|hind|fore)_\w+|ballistic_vest|leather_jacket",
                          text), "an id with '_' where the table reads words"
    assert not problems, problems


def test_a_notice_on_a_phone_sits_under_the_header(browser: Browser, link: str) -> None:
    """A toast on a phone never covers the header (the encounter's name, Next, Undo)."""
    for context in browsing(browser, 390, 844):
        page, problems = watched(context)
        page.goto(link)
        open_campaign(page, "realms")
        page.evaluate("window.scrollTo(0, 600)")  # the header is pinned while the page scrolls
        row = page.locator("#tracker li[data-id='ogre'] .hpin")
        row.fill("-3")
        row.press("Enter")
        notice = page.locator("#toasts .toast").last
        expect(notice).to_be_visible()
        header = page.locator("#top").bounding_box()
        box = notice.bounding_box()
        assert header and box
        assert box["y"] >= header["y"] + header["height"], (box, header)
        assert not problems, problems
