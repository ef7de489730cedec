"""The battle map (issue 20, first part): the grid or the zones drawn from the state, tokens
dragged to move (the creature's own move on its turn, else the GM's placing command), the
refusal's reason shown, and the player's map drawn only from the player's state.

Each test sets its own demo table up through the game service (positions, terrain, zones),
then plays through the browser only. Screenshots of each ruleset's map at 1440x900 and
390x844 go to test-output/web/ (``map-RULESET-1440.png``, ``map-RULESET-390.png``).
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from arbiter.core import Command
from arbiter.web.demo import DemoTable, console_link, create_demo_tables, player_link

from .conftest import OUTPUT, ServerThread

REALMS_SQUARES = {"nia": [1, 1], "hound": [1, 4], "bandit": [7, 2], "ogre": [8, 5],
                  "imp": [4, 6]}


def table(server: ServerThread, ruleset: str, setup: list[dict[str, Any]],
          reveal_on_turn: bool = True) -> DemoTable:
    """A fresh demo table of ``ruleset``, started, with ``setup`` (GM commands) applied;
    without ``reveal_on_turn``, its hidden foe stays hidden on its turns (the server's
    encounters reveal it as its turn starts)."""
    (made,) = create_demo_tables(server.service, (ruleset,))
    before: list[dict[str, Any]] = (
        [] if reveal_on_turn else [{"do": "reveal_on_turn", "enabled": False}])
    for step in [*before, {"do": "start"}, *setup]:
        server.service.submit(made.encounter, Command.from_json(step))
    return made


def realms_table(server: ServerThread, squares: dict[str, list[int]] | None = None,
                 reveal_on_turn: bool = True) -> DemoTable:
    places = [{"do": "place", "target": who, "at": at}
              for who, at in (squares or REALMS_SQUARES).items()]
    return table(server, "realms", [*places, {"do": "terrain",
                                              "squares": [[4, 2], [4, 3], [5, 3]]}],
                 reveal_on_turn)


def state(api: httpx.Client, made: DemoTable) -> dict[str, Any]:
    r = api.get(f"/api/encounters/{made.encounter}",
                headers={"Authorization": f"Bearer {made.gm_token}"})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def open_console(ctx: BrowserContext, server: ServerThread, made: DemoTable) -> Page:
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.script_errors = errors  # type: ignore[attr-defined]
    page.goto(console_link(server.url, [made]))
    expect(page.locator("#ruleset-name")).to_have_text(made.ruleset)
    expect(page.locator("#cards article.card").first).to_be_visible()
    return page


def open_map(page: Page) -> None:
    panel = page.locator("#map-panel")
    expect(panel).to_be_visible()
    if panel.get_attribute("open") is None:
        panel.locator("> summary").click()
    expect(panel.locator("svg.battlemap .tok").first).to_be_visible()


def token(page: Page, entity: str) -> Any:
    return page.locator(f"#map-panel .tok[data-id='{entity}']")


def cell(page: Page) -> float:
    """One square of the map in CSS pixels."""
    size: float = page.evaluate(
        "() => document.querySelector('#map-panel svg.battlemap').getScreenCTM().a * 32")
    return size


def drag(page: Page, entity: str, dx: int, dy: int, drop: bool = True) -> None:
    """Drag ``entity``'s token by (dx, dy) squares; drop it unless told not to."""
    box = token(page, entity).bounding_box()
    assert box, f"no token for {entity}"
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    step = cell(page)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx * step, y + dy * step, steps=max(abs(dx), abs(dy), 1) * 3)
    if drop:
        page.mouse.up()


def ap_on_card(page: Page, entity: str) -> str:
    fact = page.locator(f"#cards article.card[data-id='{entity}'] .fact[data-field=ap]")
    return fact.inner_text()


def test_a_drag_moves_the_current_creature_and_spends_its_ap(
        server: ServerThread, api: httpx.Client, desk: BrowserContext) -> None:
    made = realms_table(server)
    before = state(api, made)
    current = before["current"]
    page = open_console(desk, server, made)
    open_map(page)
    expect(token(page, current)).to_have_class(_has("current"))
    assert ap_on_card(page, current).endswith("4")
    x, y = before["entities"][current]["position"]
    drag(page, current, 0, -1 if y > 1 else 1, drop=False)  # a free square beside it
    dest = [x, y - 1 if y > 1 else y + 1]
    info = page.locator("#map-panel .mapinfo")
    expect(info).to_contain_text(f"moves to ({dest[0]}, {dest[1]}): 1 step")
    # the preview is the move's own odds: 1 space, 1 AP for a move action, 3 AP left
    expect(info).to_contain_text("1 space, 1 AP (1 move action)")
    expect(info).to_contain_text("3 AP left")
    expect(page.locator("#map-panel .costlabel")).to_contain_text("3 AP left")
    # the square it lands on (a creature of more than one square shows its whole footprint)
    expect(page.locator("#map-panel .aim[data-square]")).to_have_attribute(
        "data-square", f"{dest[0]},{dest[1]}")
    page.locator("#map-panel").screenshot(path=str(OUTPUT / "map-drag-realms-1440.png"))
    page.mouse.up()
    expect(page.locator(f"#cards article.card[data-id='{current}'] .fact[data-field=ap]")
           ).to_have_text("ap 3")
    after = state(api, made)
    assert after["entities"][current]["position"] == dest
    assert after["entities"][current]["ap"] == 3
    expect(page.locator("#log .said").first).to_contain_text("moves")
    expect(page.locator("#map-panel .mapbody > .error")).to_have_text("")
    assert not page.script_errors  # type: ignore[attr-defined]


def _has(name: str) -> Any:
    return re.compile(rf"(^|\s){name}(\s|$)")


def test_an_illegal_drag_shows_the_reason_and_changes_nothing(
        server: ServerThread, api: httpx.Client, desk: BrowserContext) -> None:
    made = realms_table(server)
    # a creature of one square acts (the ogre's 2x2 footprint is held by one of its squares,
    # which the pointer picks at the token's centre: the drop would land a square off)
    while state(api, made)["current"] == "ogre":
        server.service.submit(made.encounter, Command("next"))
    current = state(api, made)["current"]
    # A creature in a far corner, so the grid is wide enough for a move beyond the turn's AP.
    far = next(e for e in REALMS_SQUARES if e != current)
    server.service.submit(made.encounter, Command("place", args={"target": far, "at": [45, 0]}))
    before = state(api, made)
    current = before["current"]
    page = open_console(desk, server, made)
    open_map(page)
    x, y = before["entities"][current]["position"]
    page.locator("#map-panel").scroll_into_view_if_needed()
    drag(page, current, 40 - x, 2 - y, drop=False)
    expect(page.locator("#map-panel .mapinfo")).to_contain_text("moves to (40, 2)")
    # refused before the drop, with the rule's reason
    expect(page.locator("#map-panel .mapinfo")).to_contain_text("refused:")
    expect(page.locator("#map-panel .mapinfo")).to_contain_text("AP left")
    expect(page.locator("#map-panel .aim.bad").first).to_be_visible()
    page.locator("#map-panel").screenshot(path=str(OUTPUT / "map-drag-far-realms-1440.png"))
    page.mouse.up()
    error = page.locator("#map-panel .mapbody > .error")
    expect(error).to_contain_text("AP left")
    expect(page.locator("#toasts .toast.error").first).to_contain_text("AP left")
    after = state(api, made)
    assert after["version"] == before["version"]
    assert after["entities"][current]["position"] == [x, y]
    assert ap_on_card(page, current).endswith("4")
    # the token is back on its square
    expect(token(page, current)).not_to_have_class(_has("dragging"))
    assert not page.script_errors  # type: ignore[attr-defined]


def test_the_players_map_has_no_hidden_creature_and_moves_their_own(
        server: ServerThread, api: httpx.Client, desk: BrowserContext) -> None:
    made = realms_table(server, reveal_on_turn=False)  # the imp stays hidden on its turns
    gm = open_console(desk, server, made)
    open_map(gm)
    expect(token(gm, "imp")).to_have_count(1)  # the GM sees the hidden imp
    expect(token(gm, "imp")).to_have_class(_has("hid"))
    # "Reveal a hidden creature on its first turn" shows the encounter's setting, and sets
    # it with a logged command (the server reveals a hidden creature as its turn starts).
    if gm.locator("#campaign-panel").get_attribute("open") is None:
        gm.locator("#campaign-panel summary").click()
    reveal = gm.locator("#auto-reveal")
    expect(reveal).not_to_be_checked()
    for tick, said in ((True, "now revealed"), (False, "no longer revealed")):
        reveal.set_checked(tick)
        expect(gm.locator("#log ol.log > li").first).to_contain_text(said)
        assert state(api, made)["reveal_on_turn"] is tick
        expect(reveal).to_be_checked(checked=tick)
    gm.close()
    # Next turns until it is the player's character's.
    for _ in range(6):
        if state(api, made)["current"] == made.player_character:
            break
        server.service.submit(made.encounter, Command("next"))
    assert state(api, made)["current"] == made.player_character
    assert state(api, made)["entities"]["imp"]["hidden"] is True
    page = desk.new_page()
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(
        payload if isinstance(payload, str) else payload.decode("utf-8", "replace"))))
    page.goto(player_link(server.url, made))
    open_map(page)
    panel = page.locator("#map-panel")
    expect(token(page, "nia")).to_have_count(1)
    expect(panel.locator("[data-id='imp']")).to_have_count(0)
    assert "Fire imp" not in panel.inner_html()
    assert "Fire imp" not in page.content()
    # Foes in sight are drawn at their squares (the player's state has them); the imp not.
    expect(token(page, "bandit")).to_have_count(1)
    expect(token(page, "bandit").locator("title")).to_contain_text("(7, 2)")
    expect(panel.locator(".tok")).to_have_count(4)
    expect(panel.locator(".terrain")).to_have_count(3)  # the terrain is public
    # Only their own creature, on its turn, can be dragged.
    expect(panel.locator(".tok.movable")).to_have_count(1)
    expect(token(page, "nia")).to_have_class(_has("movable"))
    drag(page, "nia", 1, 0)
    expect(page.locator("#mine article.card[data-id='nia'] .fact[data-field=ap]")
           ).to_have_text("ap 3")
    assert state(api, made)["entities"]["nia"]["position"] == [2, 1]
    # The GM moves the imp (twice) while the player watches: nothing of it arrives.
    for at in ([3, 7], [4, 6]):
        server.service.submit(made.encounter, Command("place", args={"target": "imp",
                                                                     "at": at}))
    server.service.submit(made.encounter, Command("place", args={"target": "bandit",
                                                                 "at": [7, 3]}))
    expect(token(page, "bandit").locator("title")).to_contain_text("(7, 3)")
    assert frames, "the player view listens on the WebSocket"
    for frame in frames:
        assert '"imp"' not in frame and "Fire imp" not in frame, frame
        assert not re.search(r"\[\s*3,\s*7\s*\]", frame), frame
    expect(panel.locator("[data-id='imp']")).to_have_count(0)
    page.screenshot(path=str(OUTPUT / "map-player-realms-1440.png"))


def setup_for(ruleset: str) -> list[dict[str, Any]]:
    if ruleset == "realms":
        return [*({"do": "place", "target": who, "at": at}
                  for who, at in REALMS_SQUARES.items()),
                {"do": "terrain", "squares": [[4, 2], [4, 3], [5, 3], [5, 4]]}]
    if ruleset == "polemos":
        where = {"vera": [1, 2], "doc": [2, 4], "ganger": [8, 1], "bruiser": [9, 4],
                 "dog": [6, 6]}
        return [*({"do": "override", "path": f"{who}.position", "value": at,
                   "reason": "set up"} for who, at in where.items()),
                {"do": "terrain", "squares": [[5, 1], [5, 2], [5, 3]], "what": "wall"},
                {"do": "terrain", "squares": [[5, 4]], "what": "window"},
                {"do": "terrain", "squares": [[3, 6], [4, 6]], "what": "smoke"}]
    return [{"do": "displace", "target": "rook", "zone": "here"},  # (the demo's street)
            {"do": "zone", "id": "ford", "adjacent": ["here", "ridge"]},
            {"do": "zone", "id": "ruins", "adjacent": ["ridge"], "indoor": True},
            {"do": "displace", "target": "bandit", "zone": "ford"},
            {"do": "displace", "target": "ogre", "zone": "ford", "engagement": "bandit"},
            {"do": "displace", "target": "wolf", "zone": "ridge"},
            {"do": "displace", "target": "ash", "zone": "ruins", "altitude": 2}]


@pytest.mark.parametrize("ruleset", ["realms", "polemos", "zones"])
def test_each_rulesets_map_on_a_desk_and_a_phone(
        server: ServerThread, desk: BrowserContext, phone: BrowserContext, ruleset: str) -> None:
    made = table(server, ruleset, setup_for(ruleset))
    page = open_console(desk, server, made)
    panel = page.locator("#map-panel")
    expect(panel).to_have_attribute("open", "")  # positions: shown by default
    tokens = panel.locator("svg.battlemap .tok")
    expect(tokens).to_have_count(5)
    if ruleset == "zones":
        expect(panel.locator(".zone")).to_have_count(5)  # and the demo's street, a region
        expect(panel.locator(".zone.region[data-zone='street']")).to_have_count(1)
        expect(panel.locator(".zone[data-zone='ford'] .engagement")).to_have_count(1)
    else:
        expect(panel.locator(".terrain").first).to_be_visible()
    expect(panel.locator(".tok.current")).to_have_count(1)
    # the map sits above the cards in the middle column, on the first screen
    box = panel.bounding_box()
    assert box and box["y"] < 900
    page.screenshot(path=str(OUTPUT / f"map-{ruleset}-1440.png"))
    assert not page.script_errors  # type: ignore[attr-defined]

    small = open_console(phone, server, made)
    panel = small.locator("#map-panel")
    expect(panel).to_be_visible()
    expect(panel).not_to_have_attribute("open", "")  # a toggle on a phone
    action = small.locator("#action").bounding_box()
    assert action and action["y"] < 844, "the action panel starts on the first screen"
    panel.locator("> summary").click()
    expect(panel.locator("svg.battlemap .tok")).to_have_count(5)
    action = small.locator("#action").bounding_box()
    box = panel.bounding_box()
    assert action and box and action["y"] < 844 and box["y"] > action["y"]
    panel.scroll_into_view_if_needed()
    small.screenshot(path=str(OUTPUT / f"map-{ruleset}-390.png"))
    assert not small.script_errors  # type: ignore[attr-defined]


def test_the_gm_places_a_creature_from_the_tray(server: ServerThread, api: httpx.Client,
                                                desk: BrowserContext) -> None:
    # the demo places everyone (demo.yaml): all but nia taken off the map, into the tray
    made = table(server, "realms", [{"do": "place", "target": "nia", "at": [2, 2]}, *(
        {"do": "override", "path": f"{who}.position", "value": None, "reason": "off the map"}
        for who in ("hound", "bandit", "ogre", "imp"))])
    current = state(api, made)["current"]
    other = next(e for e in ("bandit", "ogre", "hound") if e != current)
    page = open_console(desk, server, made)
    open_map(page)
    tray = page.locator("#map-panel .tray")
    expect(tray).to_have_count(1)
    nia = token(page, "nia").bounding_box()
    box = token(page, other).bounding_box()
    assert nia and box
    step = cell(page)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(nia["x"] + nia["width"] / 2 + 3 * step, nia["y"] + nia["height"] / 2,
                    steps=10)
    expect(page.locator("#map-panel .mapinfo")).to_contain_text("is placed at (5, 2)")
    page.locator("#map-panel").screenshot(path=str(OUTPUT / "map-tray-realms-1440.png"))
    page.mouse.up()
    expect(page.locator("#log .said").first).to_contain_text("placed")
    assert state(api, made)["entities"][other]["position"] == [5, 2]


def test_zones_a_drag_moves_to_a_zone_or_into_an_engagement(
        server: ServerThread, api: httpx.Client, desk: BrowserContext) -> None:
    made = table(server, "zones", setup_for("zones"))
    before = state(api, made)
    current = before["current"]
    page = open_console(desk, server, made)
    open_map(page)

    def grab(entity: str) -> None:
        box = token(page, entity).bounding_box()
        assert box
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()

    # Anyone but the current creature, dropped on the bandit's engagement, joins it (the
    # GM's overrides, as one batch).
    other = next(e for e in ("rook", "ash", "wolf") if e != current)
    ring_of = page.locator("#map-panel .zone[data-zone='ford'] .engagement")
    expect(ring_of).to_be_visible()  # bounding_box() does not wait for the map to draw it
    ring = ring_of.bounding_box()
    assert ring
    grab(other)
    page.mouse.move(ring["x"] + ring["width"] / 2, ring["y"] + ring["height"] / 2, steps=8)
    expect(page.locator("#map-panel .mapinfo")).to_contain_text("engaging Bandit, Ogre")
    page.mouse.up()
    expect(token(page, other).locator("title")).to_contain_text("· ford")
    moved = state(api, made)["entities"][other]
    assert (moved["zone"], moved["engagement"]) == ("ford", "bandit")
    # The current creature, dropped on another zone, moves there (its move command).
    goal = next(z for z in ("ruins", "ridge", "here")
                if z != state(api, made)["entities"][current]["zone"])
    area_of = page.locator(f"#map-panel .zone[data-zone='{goal}'] .zonebox")
    expect(area_of).to_be_visible()
    area = area_of.bounding_box()
    assert area
    grab(current)
    page.mouse.move(area["x"] + area["width"] * 0.8, area["y"] + area["height"] * 0.8, steps=8)
    expect(page.locator("#map-panel .mapinfo")).to_contain_text(f"moves to {goal}")
    expect(page.locator(f"#map-panel .zone[data-zone='{goal}']")).to_have_class(_has("over"))
    page.mouse.up()
    expect(page.locator("#log .said").first).to_contain_text(f"zone {goal}")
    after = state(api, made)
    assert after["entities"][current]["zone"] == goal
    assert after["economy"][current]["moved"] is True
    assert not page.script_errors  # type: ignore[attr-defined]


def test_forty_tokens_update_in_place(server: ServerThread, page: Page) -> None:
    """The map keeps one element per token and only moves it: 40 creatures, 30 updates."""
    page.goto(server.url + "/play/")  # any page that can import the modules
    out = page.evaluate("""async () => {
        const { BattleMap } = await import('/map.js');
        const panel = document.createElement('details');
        panel.innerHTML = '<summary>Map</summary><div class="mapbody"></div>';
        panel.open = true;
        document.body.append(panel);
        const map = new BattleMap(panel, { role: 'gm', commands: {} });
        const state = (shift, version) => ({
            version, in_combat: true, current: 'c0', round: 1, extra: {difficult: [[3, 3]]},
            entities: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`c${i}`, {
                id: `c${i}`, name: `Creature ${i}`, side: i % 2 ? 'a' : 'b',
                position: [(i % 10) * 2 + (shift % 2), Math.floor(i / 10) * 2] }])) });
        map.update(state(0, 1));
        const first = panel.querySelector('.tok[data-id=c7]');
        const times = [];
        for (let k = 1; k <= 30; k++) {
            const t = performance.now();
            map.update(state(k, k + 1));
            times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        return { tokens: panel.querySelectorAll('.tok').length,
                 same: first === panel.querySelector('.tok[data-id=c7]'),
                 median: times[15], worst: times[29] };
    }""")
    assert out["tokens"] == 40
    assert out["same"], "a token's element is kept and moved, not rebuilt"
    print(f"40 tokens: median update {out['median']:.2f} ms, worst {out['worst']:.2f} ms")
    assert out["median"] < 50


def footprint_width(api: httpx.Client, made: DemoTable, who: str) -> int:
    feet = state(api, made).get("map", {}).get("footprints", {}).get(who, [[0, 0]])
    return int(max(dx for dx, _ in feet)) + 1


def test_a_move_that_provokes_a_flanking_reaction_says_so_before_the_drop(
        server: ServerThread, api: httpx.Client, desk: BrowserContext) -> None:
    made = realms_table(server)
    current = state(api, made)["current"]
    mine = state(api, made)["entities"][current]["side"]
    foes = [e for e in ("bandit", "imp", "nia", "hound")
            if state(api, made)["entities"][e]["side"] != mine][:2]
    width = footprint_width(api, made, current)
    for who, at in ((current, [5, 5]), (foes[0], [4, 5]), (foes[1], [5 + width, 5])):
        server.service.submit(made.encounter, Command("place", args={"target": who, "at": at}))
    for other in {"nia", "hound", "bandit", "ogre", "imp"} - {current, *foes}:
        server.service.submit(made.encounter, Command("place", args={"target": other,
                                                                     "at": [12, 1]}))
    page = open_console(desk, server, made)
    open_map(page)
    # far enough up that the whole footprint leaves both flankers' reach (a large mover,
    # the ogre when it wins the initiative, is two squares wide and tall)
    up = 1 + width
    drag(page, current, 0, -up, drop=False)
    triggers = page.locator("#map-panel .maptriggers")
    expect(triggers).to_contain_text("provokes a flanking reaction from")
    names = {e: state(api, made)["entities"][e]["name"] for e in foes}
    for name in names.values():
        expect(triggers).to_contain_text(name)
    expect(page.locator("#map-panel .mapinfo")).to_contain_text("AP left")
    page.locator("#map-panel").screenshot(path=str(OUTPUT / "map-flank-realms-1440.png"))
    page.mouse.up()
    expect(page.locator("#log .said").first).to_contain_text("leaving a flank")
    after = state(api, made)
    assert after["entities"][current]["position"] == [5, 5 - up]
    assert sorted(after["extra"]["provoked"]["flankers"]) == sorted(foes)
    assert not page.script_errors  # type: ignore[attr-defined]


def test_a_large_creature_covers_its_footprint(server: ServerThread, api: httpx.Client,
                                               desk: BrowserContext) -> None:
    made = realms_table(server)
    feet = state(api, made)["map"]["footprints"]
    assert "ogre" in feet and len(feet["ogre"]) > 1, feet
    page = open_console(desk, server, made)
    open_map(page)
    foot = token(page, "ogre").locator("rect.foot")
    width = float(foot.get_attribute("width") or 0)
    columns = max(dx for dx, _ in feet["ogre"]) + 1
    assert width == pytest.approx(columns * 32 - 6)
    assert float(token(page, "nia").locator("rect.foot").get_attribute("width") or 0) == 0


def test_reach_and_line_of_sight_overlays(server: ServerThread, api: httpx.Client,
                                         desk: BrowserContext) -> None:
    made = table(server, "polemos", setup_for("polemos"))
    page = open_console(desk, server, made)
    open_map(page)
    token(page, "vera").click()
    expect(token(page, "vera")).to_have_class(_has("selected"))
    page.locator("#map-panel .tool-sight").click()
    blocked = state(api, made)["map"]["sight"]["vera"]
    assert set(blocked) >= {"ganger", "bruiser"}  # behind the wall at x = 5
    expect(page.locator("#map-panel .sight.blocked")).to_have_count(len(blocked))
    expect(page.locator("#map-panel .sight.blocked[data-to='ganger'] title")
           ).to_contain_text(f"broken at ({blocked['ganger'][0]}, {blocked['ganger'][1]})")
    expect(page.locator("#map-panel .sight.clear[data-to='doc']")).to_have_count(1)
    page.locator("#map-panel .tool-reach").click()
    expect(page.locator("#map-panel .threat").first).to_be_visible()
    expect(page.locator("#map-panel .reach-own")).to_have_count(8)  # reach 1 around vera
    page.screenshot(path=str(OUTPUT / "map-overlays-polemos-1440.png"))
    assert not page.script_errors  # type: ignore[attr-defined]


def test_zones_an_area_shows_each_creatures_chance_from_the_odds(
        server: ServerThread, api: httpx.Client, desk: BrowserContext) -> None:
    made = table(server, "zones", setup_for("zones"))
    for _ in range(6):  # the odds of an attack are for the creature whose turn it is
        if state(api, made)["current"] == "rook":
            break
        server.service.submit(made.encounter, Command("next"))
    assert state(api, made)["current"] == "rook"
    page = open_console(desk, server, made)
    open_map(page)
    expect(token(page, "bandit").locator(".band")).to_have_text("med.")  # rook → the ford
    page.locator("#map-panel .tool-area").click()
    expect(page.locator("#map-panel .area-weapon")).to_have_value("grenade")
    token(page, "bandit").click()
    r = api.post(f"/api/encounters/{made.encounter}/odds",
                 headers={"Authorization": f"Bearer {made.gm_token}"},
                 json={"command": {"do": "attack", "actor": "rook", "weapon": "grenade",
                                   "target": "bandit"}})
    assert r.status_code == 200, r.text
    inclusion = r.json()["odds"]["inclusion"]
    assert set(inclusion) == {"bandit", "ogre"}
    for who, chance in inclusion.items():
        shown = f"{round(chance['percent'], 1):g}%"
        expect(token(page, who).locator(".chance")).to_have_text(shown)
        expect(token(page, who).locator("title")).to_contain_text(f"{chance['percent']}% chance")
    info = page.locator("#map-panel .mapinfo")
    expect(info).to_contain_text(f"Ogre {inclusion['ogre']['percent']}%")
    expect(page.locator("#map-panel .template")).to_have_count(1)  # the ford's engagement
    expect(token(page, "rook").locator(".chance")).to_have_text("")
    page.screenshot(path=str(OUTPUT / "map-area-zones-1440.png"))
    assert not page.script_errors  # type: ignore[attr-defined]


def test_the_gm_paints_terrain_and_describes_a_zone_as_commands(
        server: ServerThread, api: httpx.Client, desk: BrowserContext) -> None:
    made = realms_table(server)
    page = open_console(desk, server, made)
    open_map(page)
    page.locator("#map-panel .tool-paint").click()
    expect(page.locator("#map-panel .paint-kind")).to_have_value("mark")
    board = page.locator("#map-panel svg.battlemap").bounding_box()
    assert board
    step = cell(page)
    page.mouse.move(board["x"] + 10.5 * step, board["y"] + 0.5 * step)
    page.mouse.down()
    page.mouse.move(board["x"] + 11.5 * step, board["y"] + 0.5 * step, steps=4)
    page.mouse.move(board["x"] + 11.5 * step, board["y"] + 1.5 * step, steps=4)
    page.mouse.up()
    expect(page.locator("#map-panel .mapinfo")).to_contain_text("Painted 3 squares")
    difficult = state(api, made)["extra"]["difficult"]
    assert [10, 0] in difficult and [11, 0] in difficult and [11, 1] in difficult
    expect(page.locator("#log .said").first).to_contain_text("difficult terrain")

    zones = table(server, "zones", setup_for("zones"))
    page = open_console(desk, server, zones)
    open_map(page)
    page.locator("#map-panel .tool-paint").click()
    page.locator("#map-panel input[name=zone-id]").fill("bridge")
    page.locator("#map-panel input[name=zone-adjacent]").fill("ford, ruins")
    indoors = page.locator("#map-panel .zone-tools label.check")
    box, word = indoors.locator("input").bounding_box(), indoors.bounding_box()
    assert box and word and box["y"] + box["height"] >= word["y"] + word["height"] / 2 - 2, \
        "the indoors box sits on the line of its word"
    indoors.locator("input").check()
    page.locator("#map-panel .maptools").screenshot(path=str(OUTPUT / "map-zone-tools-1440.png"))
    page.locator("#map-panel .zone-set").click()
    expect(page.locator("#map-panel .zone[data-zone='bridge']")).to_have_count(1)
    assert state(api, zones)["extra"]["zones"]["bridge"] == {"adjacent": ["ford", "ruins"],
                                                             "indoor": True}
    page.locator("#map-panel input[name=zone-id]").fill("")
    page.locator("#map-panel .zone-set").click()
    expect(page.locator("#map-panel .mapbody > .error")).to_contain_text("give the zone a name")


def test_cover_and_concealment_show_on_each_token(server: ServerThread, api: httpx.Client,
                                                 desk: BrowserContext) -> None:
    """A creature in cover carries ▣ (with its armor bonus in its title), a concealed one ◌,
    and the legend says what the marks mean; the others carry neither."""
    made = table(server, "zones", setup_for("zones"))
    for _ in range(6):  # cover is taken on the creature's own turn
        if state(api, made)["current"] == "rook":
            break
        server.service.submit(made.encounter, Command("next"))
    server.service.submit(made.encounter, Command("cover", "rook", {"bonus": 3}))
    server.service.submit(made.encounter, Command("condition", args={
        "target": "ash", "name": "unseen"}))
    page = open_console(desk, server, made)
    open_map(page)
    expect(token(page, "rook").locator(".badge")).to_contain_text("▣")
    expect(token(page, "rook").locator("title")).to_contain_text("in cover (+3 armor)")
    expect(token(page, "ash").locator(".badge")).to_contain_text("◌")
    expect(token(page, "ash").locator("title")).to_contain_text("concealed (unseen)")
    expect(token(page, "bandit").locator(".badge")).to_have_text("")
    legend = page.locator("#map-panel .maplegend")
    expect(legend).to_contain_text("▣ in cover")
    expect(legend).to_contain_text("◌ concealed")
    assert not page.script_errors  # type: ignore[attr-defined]
