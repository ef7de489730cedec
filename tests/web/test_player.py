"""The player view on the player's turn, and the console's number fields."""

from __future__ import annotations

import httpx
from playwright.sync_api import Browser, Page, expect

from .conftest import ServerThread, create_campaign, screenshot


def test_player_acts_on_their_turn_with_odds(server: ServerThread, api: httpx.Client,
                                             browser: Browser, page: Page) -> None:
    campaign = create_campaign(api, "demo")
    gm = {"Authorization": f"Bearer {campaign.gm_token}"}
    eid = api.post(f"/api/campaigns/{campaign.id}/encounters", json={"name": "Ford"},
                   headers=gm).json()["encounter"]["id"]
    for actor in ({"id": "nia", "name": "Nia", "side": "heroes", "health": 24, "attack": 6,
                   "defense": 15, "damage": "1d8+3"},
                  {"id": "wolf", "template": "wolf", "side": "beasts"},
                  {"id": "ghost", "template": "wolf", "side": "beasts", "hidden": True}):
        assert api.post(f"/api/encounters/{eid}/actors", json=actor, headers=gm).is_success
    r = api.post(f"/api/encounters/{eid}/commands", headers=gm, json={"command": {
        "do": "start", "initiative": {"nia": 20, "wolf": 10, "ghost": 5}}})
    assert r.status_code == 201, r.text
    token = api.post(f"/api/campaigns/{campaign.id}/players", headers=gm,
                     json={"name": "Ann", "characters": ["nia"]}).json()["token"]

    page.goto(f"{server.url}/#campaign={campaign.id}&token={campaign.gm_token}")
    expect(page.locator("#status")).to_have_text("live")
    player = browser.new_context(viewport={"width": 820, "height": 1180})  # a tablet, upright
    try:
        seen = player.new_page()
        # A player token opened at "/" lands on the player view.
        seen.goto(f"{server.url}/#campaign={campaign.id}&token={token}")
        expect(seen).to_have_url(f"{server.url}/play/#campaign={campaign.id}&token={token}")
        form = seen.locator("#action")
        expect(form).to_be_visible()
        expect(seen.locator("#target")).to_have_value("wolf")
        hit = seen.locator("#odds tr[data-outcome=hit] td.p")
        expect(hit).to_have_text("70%")  # d20 + 6 against defense 13: 7 or more
        expect(seen.locator("#tracker li")).to_have_count(2)  # the ghost is not in the order
        seen.locator("#roll").click()
        expect(seen.locator("#result .rec")).to_contain_text("nia attack")
        expect(page.locator("#log ol.log > li").first).to_contain_text("nia attack target=wolf")
        screenshot(seen, "player-turn-demo")
        seen.locator("#end-turn").click()
        expect(form).to_be_hidden()
        expect(page.locator("#tracker li.current")).to_have_attribute("data-id", "wolf")
        assert "ghost" not in seen.content()
    finally:
        player.close()


def test_number_fields_work_out_sums(server: ServerThread, page: Page) -> None:
    page.goto(server.url + "/play/")  # any page that can import the modules
    results = page.evaluate("""async () => {
        const ui = await import('/ui.js');
        const run = (f) => { try { return f(); } catch (e) { return 'error: ' + e.message; } };
        return {
            minus: ui.arith('-7', 20), plus: ui.arith('+3', 20), sum: ui.arith('4+5'),
            product: ui.arith('2*6+1'), half: ui.arith('7/2'), negative: ui.arith('-7'),
            bad: run(() => ui.arith('7x', undefined, 'amount')),
            zero: run(() => ui.arith('1/0')),
            args: ui.commandArgs({args: {target: {kind: 'creature', required: true},
                name: {kind: 'text', required: true}, level: {kind: 'integer'},
                rounds: {kind: 'integer'}}}),
            more: ui.moreArgs('weapon=bow; range=2+1; aimed=true; groups=["a", "b"]'),
        };
    }""")
    assert results["minus"] == 13 and results["plus"] == 23 and results["sum"] == 9
    assert results["product"] == 13 and results["half"] == 3 and results["negative"] == -7
    assert results["bad"] == ("error: amount: '7x' is not a whole number or a sum "
                              "(e.g. 12, -7, +3, 2*6)")
    assert "divides by zero" in results["zero"]
    assert [a["name"] for a in results["args"]] == ["target", "name", "level", "rounds"]
    assert [a["optional"] for a in results["args"]] == [False, False, True, True]
    assert results["more"] == {"weapon": "bow", "range": 3, "aimed": True, "groups": ["a", "b"]}
