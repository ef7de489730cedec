"""The scene (issue 34) in Chromium: the game master uploads a background, calibrates the
grid on it, and the player's map shows the same picture under the same squares."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image, ImageDraw
from playwright.sync_api import Browser, BrowserContext, FilePayload, Page, expect

from arbiter.core import Command
from arbiter.web.demo import DemoTable, player_link

from .conftest import ServerThread, browsing, screenshot
from .test_at_the_table import gm, link, tables, watched  # noqa: F401 (fixtures)
from .test_table import open_campaign, settled


def map_open(page: Page) -> None:
    """The map panel open (it opens by itself on a table with positions, not always)."""
    if page.locator("#map-panel").get_attribute("open") is None:
        page.locator("#map-panel > summary").click()


def battlefield(width: int = 960, height: int = 640, square: int = 64) -> bytes:
    """A drawn map: grass, a road, and a grid of ``square`` pixels to calibrate on."""
    im = Image.new("RGB", (width, height), (96, 140, 80))
    draw = ImageDraw.Draw(im)
    draw.rectangle((0, height // 2 - square // 2, width, height // 2 + square // 2),
                   fill=(170, 150, 110))
    for x in range(0, width, square):
        draw.line((x, 0, x, height), fill=(60, 90, 50))
    for y in range(0, height, square):
        draw.line((0, y, width, y), fill=(60, 90, 50))
    out = io.BytesIO()
    im.save(out, "PNG")
    return out.getvalue()


def test_a_background_uploaded_and_calibrated_shows_on_both_pages(
        gm: BrowserContext, browser: Browser, server: ServerThread,  # noqa: F811
        tables: list[DemoTable], link: str) -> None:  # noqa: F811
    page, problems = watched(gm)
    page.goto(link)
    open_campaign(page, "realms")
    expect(page.locator("#map-panel")).to_have_attribute("open", "")
    page.locator("#scene-tools summary").click()
    form = page.locator("#scene-form")
    upload: FilePayload = {"name": "ford.png", "mimeType": "image/png",
                           "buffer": battlefield()}
    form.locator("[name=image]").set_input_files(files=[upload])
    form.locator("button[type=submit]").click()
    backdrop = page.locator(".battlemap image.backdrop")
    expect(backdrop).to_have_count(1)
    settled(page)
    expect(form.locator("[name=square]")).to_have_value("64")
    # the grid: 80 pixels a square on this image, starting 16 pixels in
    form.locator("[name=square]").fill("80")
    form.locator("[name=offset_x]").fill("16")
    form.locator("button[type=submit]").click()
    expect(page.locator("#log .said").first).to_contain_text("a square is 80 pixels from (16, 0)")
    settled(page)
    box = backdrop.bounding_box()
    assert box and box["width"] > 0
    screenshot(page, "scene-gm-1440")
    table = next(t for t in tables if t.ruleset == "realms")
    for context in browsing(browser, 390, 844):
        player, player_problems = watched(context)
        player.goto(player_link(server.url, table))
        map_open(player)
        expect(player.locator(".battlemap image.backdrop")).to_have_count(1)
        screenshot(player, "scene-player-390")
        assert not player_problems, player_problems
    page.keyboard.press("u")  # the calibration is undone like any command
    expect(form.locator("[name=square]")).to_have_value("64")
    assert not problems, problems


def test_fog_painted_by_the_gm_hides_and_reveals_on_the_players_map(
        gm: BrowserContext, browser: Browser, server: ServerThread,  # noqa: F811
        tables: list[DemoTable], link: str) -> None:  # noqa: F811
    """The GM turns fog on around the party (a command), then paints the bandit's square
    revealed on the map; the player's map is dark but there, and the bandit appears on it
    only once revealed (the GM sees the fog shaded, every creature still drawn)."""
    table = next(t for t in tables if t.ruleset == "realms")
    server.service.submit(table.encounter, Command("fog", args={
        "enabled": True, "corners": [[0, 1], [4, 6]]}))  # Nia and her hound, not the foes
    for context in browsing(browser, 390, 844):
        player, player_problems = watched(context)
        player.goto(player_link(server.url, table))
        map_open(player)
        expect(player.locator(".battlemap path.fog-player")).to_have_count(1)
        expect(player.locator(".battlemap .tok[data-id='nia']")).to_have_count(1)
        expect(player.locator(".battlemap .tok[data-id='bandit']")).to_have_count(0)
        assert "Bandit" not in player.locator("#view").inner_text()

        page, problems = watched(gm)
        page.goto(link)
        open_campaign(page, "realms")
        expect(page.locator(".battlemap path.fog-gm")).to_have_count(1)
        expect(page.locator(".battlemap .tok[data-id='bandit']")).to_have_count(1)
        page.locator("#map-panel .tool-paint").click()
        page.locator("#map-panel .paint-kind").select_option("fog: reveal")
        bandit = page.locator(".battlemap .tok[data-id='bandit']").bounding_box()
        assert bandit
        x, y = bandit["x"] + bandit["width"] / 2, bandit["y"] + bandit["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 3, y + 2, steps=3)
        page.mouse.up()
        expect(page.locator("#map-panel .mapinfo")).to_contain_text("Painted 1 square")
        settled(page)
        screenshot(page, "fog-gm-1440")
        expect(player.locator(".battlemap .tok[data-id='bandit']")).to_have_count(1)
        screenshot(player, "fog-player-390")
        assert not problems, problems
        assert not player_problems, player_problems


def face(colour: tuple[int, int, int]) -> bytes:
    im = Image.new("RGB", (300, 300), colour)
    ImageDraw.Draw(im).ellipse((60, 60, 240, 240), fill=(240, 220, 190))
    out = io.BytesIO()
    im.save(out, "JPEG")
    return out.getvalue()


def test_a_token_picture_chosen_on_a_card_shows_round_on_both_maps(
        gm: BrowserContext, browser: Browser, server: ServerThread,  # noqa: F811
        tables: list[DemoTable], link: str) -> None:  # noqa: F811
    page, problems = watched(gm)
    page.goto(link)
    open_campaign(page, "realms")
    picker = page.locator("#cards article.card[data-id='nia'] .tokpick input[type=file]")
    upload: FilePayload = {"name": "nia.jpg", "mimeType": "image/jpeg",
                           "buffer": face((40, 60, 120))}
    picker.set_input_files(files=[upload])
    token = page.locator(".battlemap .tok[data-id='nia']")
    expect(token).to_have_class(re.compile("pictured"))
    expect(token.locator("image.pic")).to_have_attribute("href", re.compile("^blob:"))
    expect(page.locator("#cards article.card[data-id='nia'] .tokpick")).to_contain_text("✓")
    expect(page.locator("#tracker li[data-id='nia'] img.avatar")).to_have_attribute(
        "src", re.compile("^blob:"))  # and in the turn order
    settled(page)
    screenshot(page, "token-picture-1440")
    table = next(t for t in tables if t.ruleset == "realms")
    for context in browsing(browser, 390, 844):
        player, player_problems = watched(context)
        player.goto(player_link(server.url, table))
        map_open(player)
        expect(player.locator(".battlemap .tok[data-id='nia']")).to_have_class(
            re.compile("pictured"))
        assert not player_problems, player_problems
    assert not problems, problems


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)], ids=["1440", "390"])
def test_an_evening_prepared_a_scene_a_tray_fog_and_a_ruler(
        browser: Browser, server: ServerThread, size: tuple[int, int]) -> None:
    """Issue 34's whole path, with the GM at a desk and on a phone: the GM uploads a
    background and calibrates the grid, places a staged creature from the tray, starts
    (the staged one stays out of the order), reveals the party's corner of the fog and
    measures with the ruler; the player's page, on a phone, shows only the revealed
    part."""
    from arbiter.web.demo import DemoTable, player_link

    service = server.service
    campaign, gm_token = service.create_campaign("Evening", "realms")
    eid = service.create_encounter(campaign.id, "The mill").id
    for spec in ({"id": "nia", "template": "knight", "side": "heroes", "position": [1, 1]},
                 {"id": "bandit", "template": "bandit", "side": "brigands", "position": [6, 1]},
                 {"id": "ogre", "template": "ogre", "side": "brigands"}):
        service.submit(eid, Command("add", args=spec))
    service.submit(eid, Command("stage", args={"target": "ogre"}))
    player_token = service.issue_token(campaign.id, "player", "Ann", ["nia"])
    table = DemoTable("realms", campaign.id, eid, gm_token, player_token, "nia")
    contexts = browsing(browser, *size)
    desk = next(contexts)
    page, problems = watched(desk)
    page.goto(f"{server.url}/#campaign={campaign.id}&token={gm_token}")
    expect(page.locator("#cards article.card")).to_have_count(3)
    map_open(page)
    settled(page)
    # the background, calibrated: 64 pixels a square from the image's corner
    page.locator("#scene-tools > summary").click()
    upload: FilePayload = {"name": "mill.png", "mimeType": "image/png",
                           "buffer": battlefield(640, 448)}
    page.locator("#scene-form [name=image]").set_input_files(files=[upload])
    page.locator("#scene-form button[type=submit]").click()
    expect(page.locator(".battlemap image.backdrop")).to_have_count(1)
    settled(page)
    # the staged ogre, from the tray onto square (7, 4)
    expect(page.locator("#tracker .staged")).to_contain_text("Ogre")
    page.locator(".battlemap .tok[data-id='ogre']").scroll_into_view_if_needed()
    ogre = page.locator(".battlemap .tok[data-id='ogre']").bounding_box()
    assert ogre
    target: list[float] = page.evaluate(
        """([x, y]) => { const svg = document.querySelector('#map-panel svg.battlemap');
        const p = new DOMPoint(x * 32 + 16, y * 32 + 16).matrixTransform(svg.getScreenCTM());
        return [p.x, p.y]; }""", [7, 4])
    page.mouse.move(ogre["x"] + ogre["width"] / 2, ogre["y"] + ogre["height"] / 2)
    page.mouse.down()
    page.mouse.move(target[0], target[1], steps=8)
    page.mouse.up()
    expect(page.locator("#log .said").first).to_contain_text("Ogre is placed at (7, 4)")
    settled(page)
    page.locator("#start").scroll_into_view_if_needed()
    page.locator("#start").click()
    expect(page.locator("#turn-info")).to_contain_text("Round 1")
    assert "ogre" not in [li.get_attribute("data-id") for li in
                          page.locator("#tracker li[data-id]").all()]
    # the fog: on, the party's corner revealed
    service.submit(eid, Command("fog", args={"enabled": True, "corners": [[0, 0], [3, 3]]}))
    expect(page.locator(".battlemap path.fog-gm")).to_have_count(1)
    # the ruler: from Nia to the bandit
    page.locator("#map-panel .tool-ruler").click()
    page.locator(".battlemap .tok[data-id='nia']").scroll_into_view_if_needed()
    nia = page.locator(".battlemap .tok[data-id='nia']").bounding_box()
    bandit = page.locator(".battlemap .tok[data-id='bandit']").bounding_box()
    assert nia and bandit
    page.mouse.move(nia["x"] + nia["width"] / 2, nia["y"] + nia["height"] / 2)
    page.mouse.down()
    page.mouse.move(bandit["x"] + bandit["width"] / 2, bandit["y"] + bandit["height"] / 2,
                    steps=6)
    expect(page.locator("#map-panel .ruler")).to_have_attribute("data-distance",
                                                              re.compile("^5 squares"))
    screenshot(page, f"evening-gm-{size[0]}")
    page.mouse.up()
    for context in browsing(browser, 390, 844):
        player, player_problems = watched(context)
        player.goto(player_link(server.url, table))
        map_open(player)
        expect(player.locator(".battlemap path.fog-player")).to_have_count(1)
        expect(player.locator(".battlemap image.backdrop")).to_have_count(1)
        expect(player.locator(".battlemap .tok")).to_have_count(1)  # Nia alone: the rest in fog
        screenshot(player, "evening-player-390")
        assert not player_problems, player_problems
    assert not problems, problems
    for _ in contexts:  # the context closed
        pass


def test_a_zone_drawn_as_a_region_of_the_scene(
        gm: BrowserContext, server: ServerThread, tables: list[DemoTable],  # noqa: F811
        link: str) -> None:  # noqa: F811
    """Zones (issue 34): the demo's zones stand where its picture shows them; the GM names a
    new zone and drags its region over the image, and it is drawn there."""
    page, problems = watched(gm)
    page.goto(link)
    open_campaign(page, "zones")
    expect(page.locator(".battlemap image.backdrop")).to_have_count(1)
    expect(page.locator(".battlemap g.zone.region")).to_have_count(2)  # street and ruins
    page.locator("#map-panel .tool-paint").click()
    page.locator("#map-panel [name=zone-id]").fill("alley")
    svg = page.locator("#map-panel svg.battlemap").bounding_box()
    assert svg
    # an empty stretch of the image's bottom right corner
    start = (svg["x"] + svg["width"] * 0.82, svg["y"] + svg["height"] * 0.90)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 60, start[1] + 25, steps=5)
    page.mouse.up()
    expect(page.locator("#map-panel .mapinfo")).to_contain_text("Zone alley drawn on the scene")
    expect(page.locator(".battlemap g.zone.region[data-zone='alley']")).to_have_count(1)
    settled(page)
    screenshot(page, "zones-regions-1440")
    assert not problems, problems


def test_vision_set_in_edit_map_shows_the_player_what_their_character_sees(
        gm: BrowserContext, browser: Browser, server: ServerThread) -> None:  # noqa: F811
    """Vision through the fog (issue 34): the fog is on with nothing revealed, so the
    player's phone shows Nia alone; the GM picks a fog kind in Edit map and sets vision to
    20 squares; the player's map then shows the foes Nia sees (realms has no walls)."""
    from .test_map import open_console, table

    made = table(server, "realms", [{"do": "fog", "enabled": True}])
    for context in browsing(browser, 390, 844):
        player, player_problems = watched(context)
        player.goto(player_link(server.url, made))
        map_open(player)
        expect(player.locator(".battlemap .tok")).to_have_count(1)  # Nia alone
        page = open_console(gm, server, made)
        map_open(page)
        page.locator("#map-panel .tool-paint").click()
        page.locator("#map-panel .paint-kind").select_option("fog: reveal")
        vision = page.locator("#map-panel input[name=fog-vision]")
        expect(vision).to_have_value("0")
        vision.fill("20")
        vision.press("Enter")
        expect(page.locator("#map-panel .mapinfo")).to_contain_text(
            "Characters see 20 squares through the fog")
        expect(player.locator(".battlemap .tok[data-id='bandit']")).to_have_count(1)
        screenshot(player, "fog-vision-player-390")
        assert not page.script_errors  # type: ignore[attr-defined]
        assert not player_problems, player_problems
