"""The map's ruler (issue 34, "A ruler"): with the Ruler tool on, pressing a token or a square
and moving the pointer draws a line and a label with the distance in the ruleset's units
(realms: squares and spaces, a diagonal step 1.5; zones: zones away and the range band), the
movement cost and legality from the server's move preview when measuring from a creature, and
the range band of the selected weapon where the ruleset has bands. Letting go or Escape ends
the measure and nothing is submitted.

Measured on the realms and zones demos at 1440x900 and 390x844 (the GM console, and the
player page on a phone); screenshots go to test-output/web/ (``ruler-*.png``).
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from arbiter.core import Command
from arbiter.web.demo import DemoTable, player_link

from .conftest import OUTPUT, ServerThread, screenshot
from .test_map import open_console, open_map, realms_table, setup_for, state, table, token


def centre(page: Page, entity: str) -> tuple[float, float]:
    tok = token(page, entity)
    tok.scroll_into_view_if_needed()
    box = tok.bounding_box()
    assert box, f"no token for {entity}"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def square(page: Page, at: list[int]) -> tuple[float, float]:
    """The centre of square ``at`` on the screen (the map's SVG units: 32 a square, from the
    board's first square, which these tables put at (0, 0))."""
    point: list[float] = page.evaluate(
        """([x, y]) => { const svg = document.querySelector('#map-panel svg.battlemap');
        const p = new DOMPoint(x * 32 + 16, y * 32 + 16).matrixTransform(svg.getScreenCTM());
        return [p.x, p.y]; }""", at)
    return point[0], point[1]


def ruler_on(page: Page) -> None:
    button = page.locator("#map-panel .tool-ruler")
    expect(button).to_be_visible()
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")


def press_and_move(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=6)


def version(api: httpx.Client, made: DemoTable) -> int:
    v: int = state(api, made)["version"]
    return v


def measure_realms(page: Page, api: httpx.Client, made: DemoTable, size: int) -> None:
    open_map(page)
    ruler_on(page)
    before = version(api, made)
    assert state(api, made)["current"] == "hound"  # at (1, 4)
    ruler = page.locator("#map-panel .ruler")
    # From the hound, 3 squares right and 1 down: 3 squares, 3.5 spaces (one diagonal step
    # 1.5); the move preview is the server's odds for that path.
    press_and_move(page, centre(page, "hound"), square(page, [4, 5]))
    expect(ruler).to_have_attribute("data-distance", "3 squares · 3.5 spaces")
    expect(ruler).to_have_attribute("data-cost", re.compile(r"^3.5 spaces, 1 AP .*→ 3 AP left"))
    expect(ruler.locator(".rulerlabel")).to_contain_text("3 squares · 3.5 spaces")
    expect(page.locator("#map-panel .mapinfo")).to_contain_text(
        "Ruler: Nia's hound → (4, 5): 3 squares · 3.5 spaces · move: 3.5 spaces")
    expect(ruler.locator("rect.end.ok")).to_have_count(1)
    screenshot(page, f"ruler-realms-{size}")
    page.locator("#map-panel").screenshot(path=str(OUTPUT / f"ruler-realms-map-{size}.png"))
    page.mouse.up()  # ends it: nothing sent
    expect(ruler).to_have_count(0)
    expect(page.locator("#map-panel .mapinfo")).to_contain_text("Measured: Nia's hound")
    # From Nia, whose turn it is not: the preview refuses the move, with the reason.
    press_and_move(page, centre(page, "nia"), square(page, [3, 2]))
    expect(ruler).to_have_attribute("data-distance", "2 squares · 2.5 spaces")
    expect(ruler.locator("rect.end.bad")).to_have_count(1)
    expect(ruler).to_have_attribute("data-cost", re.compile(r"^not its turn: it is .*'s$"))
    expect(ruler.locator(".rulerlabel .bad")).to_have_text("not its turn")
    page.keyboard.press("Escape")  # Escape ends it too, the button still down
    expect(ruler).to_have_count(0)
    page.mouse.up()
    # From a square: the distance only (no creature, no move).
    press_and_move(page, square(page, [10, 1]), square(page, [6, 4]))
    expect(ruler).to_have_attribute("data-distance", "4 squares · 5.5 spaces")
    assert ruler.get_attribute("data-cost") is None
    screenshot(page, f"ruler-realms-square-{size}")
    page.mouse.up()
    expect(ruler).to_have_count(0)
    assert version(api, made) == before, "a measure submits nothing"
    assert state(api, made)["entities"]["hound"]["position"] == [1, 4]
    assert not page.script_errors  # type: ignore[attr-defined]


def turn_of(server: ServerThread, api: httpx.Client, made: DemoTable, who: str) -> DemoTable:
    """``made`` on ``who``'s turn (initiative is rolled)."""
    for _ in range(6):
        if state(api, made)["current"] == who:
            break
        server.service.submit(made.encounter, Command("next"))
    assert state(api, made)["current"] == who
    return made


def hounds_turn(server: ServerThread, api: httpx.Client) -> DemoTable:
    """The realms table of the map's tests, on the hound's turn."""
    return turn_of(server, api, realms_table(server), "hound")


def test_the_ruler_on_realms_at_a_desk(server: ServerThread, api: httpx.Client,
                                       desk: BrowserContext) -> None:
    made = hounds_turn(server, api)
    measure_realms(open_console(desk, server, made), api, made, 1440)


def test_the_ruler_on_realms_on_a_phone(server: ServerThread, api: httpx.Client,
                                        phone: BrowserContext) -> None:
    made = hounds_turn(server, api)
    measure_realms(open_console(phone, server, made), api, made, 390)


def zone_point(page: Page, zone: str) -> tuple[float, float]:
    """A point inside ``zone``'s box, away from its tokens (its lower right part)."""
    box_el = page.locator(f"#map-panel .zone[data-zone='{zone}'] .zonebox")
    box_el.scroll_into_view_if_needed()
    box = box_el.bounding_box()
    assert box
    return box["x"] + box["width"] * 0.85, box["y"] + box["height"] * 0.9


def test_the_ruler_on_zones_at_a_desk(server: ServerThread, api: httpx.Client,
                                      desk: BrowserContext) -> None:
    made = turn_of(server, api, table(server, "zones", setup_for("zones")), "ash")
    st = state(api, made)
    assert st["current"] == "ash" and st["entities"]["ash"]["zone"] == "ruins"
    before = st["version"]
    page = open_console(desk, server, made)
    open_map(page)
    ruler_on(page)
    ruler = page.locator("#map-panel .ruler")
    weapon = page.locator("#map-panel .ruler-weapon")
    # From ash (ruins) to the bandit (ford): ruins, ridge, ford: 2 zones, long range (the
    # server's band), and ash's rifle at long range.
    press_and_move(page, centre(page, "ash"), centre(page, "bandit"))
    expect(ruler).to_have_attribute("data-distance", "2 zones away · long range")
    expect(weapon).to_be_visible()
    expect(weapon).to_have_value("rifle")
    expect(ruler).to_have_attribute("data-weapon", "rifle at long range: 1d20")
    expect(ruler).to_have_attribute("data-cost", re.compile(r"long range"))
    screenshot(page, "ruler-zones-1440")
    page.mouse.up()
    expect(ruler).to_have_count(0)
    # To the ridge (next to the ruins): 1 zone, medium; the knife reaches nobody there.
    weapon.select_option("knife")
    press_and_move(page, centre(page, "ash"), zone_point(page, "ridge"))
    expect(ruler).to_have_attribute("data-distance", "1 zone away · medium range")
    expect(ruler).to_have_attribute("data-weapon", "knife: out of reach (melee)")
    expect(ruler).to_have_attribute("data-cost", re.compile(r"medium range"))
    page.keyboard.press("Escape")
    expect(ruler).to_have_count(0)
    page.mouse.up()
    # Between the bandit and the ogre (one engagement): engagement range.
    press_and_move(page, centre(page, "bandit"), centre(page, "ogre"))
    expect(ruler).to_have_attribute("data-distance", "same engagement · engagement range")
    page.mouse.up()
    assert version(api, made) == before, "a measure submits nothing"
    assert not page.script_errors  # type: ignore[attr-defined]


def test_the_ruler_on_zones_on_a_players_phone(server: ServerThread, api: httpx.Client,
                                               phone: BrowserContext) -> None:
    made = table(server, "zones", setup_for("zones"))
    before = version(api, made)
    page = phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(player_link(server.url, made))
    open_map(page)
    ruler_on(page)
    me = made.player_character
    ruler = page.locator("#map-panel .ruler")
    st: dict[str, Any] = state(api, made)
    assert st["entities"][me]["zone"] == "here"
    # here and ford are next to each other: medium range, and the player's weapon there.
    press_and_move(page, centre(page, me), centre(page, "bandit"))
    expect(ruler).to_have_attribute("data-distance", "1 zone away · medium range")
    expect(ruler).to_have_attribute("data-weapon", re.compile(r"at medium range"))
    expect(ruler).to_have_attribute("data-cost", re.compile(r".+"))  # the move preview
    screenshot(page, "ruler-zones-player-390")
    page.locator("#map-panel").screenshot(path=str(OUTPUT / "ruler-zones-player-map-390.png"))
    page.mouse.up()
    expect(ruler).to_have_count(0)
    assert version(api, made) == before, "a measure submits nothing"
    assert not errors


@pytest.mark.rules("POL-3", "POL-5")
def test_the_ruler_on_polemos_across_a_wall(server: ServerThread, api: httpx.Client,
                                            desk: BrowserContext) -> None:
    """Polemos (issue 34): squares by ruling POL-3's diagonal rule, and the move preview of
    a straight-line move, which a wall on the line refuses (POL-5: a move goes in a straight
    line that crosses no wall or window, so the ruler's straight line is the move's path)."""
    made = turn_of(server, api, table(server, "polemos", setup_for("polemos")), "vera")
    before = version(api, made)
    page = open_console(desk, server, made)
    open_map(page)
    ruler_on(page)
    ruler = page.locator("#map-panel .ruler")
    # vera at (1, 2); the wall runs down column 5 (rows 1-3): (7, 2) is behind it
    press_and_move(page, centre(page, "vera"), square(page, [7, 2]))
    expect(ruler).to_have_attribute("data-distance", "6 squares")
    expect(ruler.locator("rect.end.bad")).to_have_count(1)
    expect(ruler).to_have_attribute("data-cost", re.compile(r"obstructed: a wall at \(5, 2\)"))
    screenshot(page, "ruler-polemos-wall-1440")
    page.mouse.up()
    expect(ruler).to_have_count(0)
    # in front of the wall, 3 right and 2 down: 3 squares, and the move is legal
    press_and_move(page, centre(page, "vera"), square(page, [4, 4]))
    expect(ruler).to_have_attribute("data-distance", re.compile(r"^3 squares"))
    expect(ruler.locator("rect.end.ok")).to_have_count(1)
    page.keyboard.press("Escape")
    expect(ruler).to_have_count(0)
    page.mouse.up()
    assert version(api, made) == before, "a measure submits nothing"
    assert not page.script_errors  # type: ignore[attr-defined]
