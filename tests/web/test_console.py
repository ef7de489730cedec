"""The GM console and the player view in a real Chromium, for every ruleset (issue 8).

A game master creates a campaign and an encounter through the console, adds two
combatants, starts, runs an attack with the odds shown and the table's dice entered,
gives a condition to several at once, and undoes; a player follows in a second browser
context, live, and never sees the hidden creature.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Route, expect

from arbiter.server import create_app

from .conftest import ServerThread, create_campaign, screenshot


@dataclass(frozen=True)
class Fight:
    """Two combatants of one template, so the same table dice work whoever acts first."""

    ruleset: str
    template: str
    dice: str  # the attack's dice, in the order rolled: a hit
    hurt: str  # a CSS selector inside the target's card that shows the damage
    before: str  # its text before the attack
    after: str  # and after
    condition: str  # a condition of the ruleset's catalogue


FIGHTS = [
    Fight("demo", "wolf", "15, 3, 3", ".meter[data-field=health] .num", "11/11", "3/11",
          "prone"),
    Fight("polemos", "soldier", "6 5 1 1 5 2", ".area[data-area=left_arm] b", "4/4", "1/4",
          "daze"),
    Fight("zones", "bandit", "7, 15, 4", ".meter[data-field=health] .num", "60/60", "42/60",
          "prone"),
    Fight("realms", "bandit", "14, 5", ".meter[data-field=health] .num", "14/14", "11/14",
          "prone"),
]
HIDDEN = "lurker"


def watch(page: Page) -> Page:
    found: list[str] = []
    page.on("pageerror", lambda exc: found.append(str(exc)))
    page.script_errors = found  # type: ignore[attr-defined]
    return page


def card(page: Page, entity: str) -> Locator:
    return page.locator(f"#cards article.card[data-id={entity}]")


def add_combatant(page: Page, template: str, entity: str, side: str,
                  hidden: bool = False) -> None:
    form = page.locator("#add")
    form.locator("[name=template]").select_option(template)
    form.locator("[name=id]").fill(entity)
    form.locator("[name=side]").fill(side)
    form.locator("[name=hidden]").set_checked(hidden)
    form.locator("button[type=submit]").click()
    expect(page.locator(f"#cards article.card[data-id={entity}]")).to_be_visible()


@pytest.mark.parametrize("fight", FIGHTS, ids=[f.ruleset for f in FIGHTS])
def test_gm_runs_an_attack_and_a_player_follows(
        fight: Fight, server: ServerThread, browser: Browser, page: Page) -> None:
    """Issue 8, "Done when": an encounter of each ruleset played from the browser."""
    page.goto(server.url + "/")
    setup = page.locator("#new-campaign")
    setup.locator("[name=name]").fill(f"Campaign {fight.ruleset}")
    setup.locator("[name=ruleset]").select_option(fight.ruleset)
    setup.locator("button[type=submit]").click()
    expect(page.locator("#ruleset-name")).to_have_text(fight.ruleset)
    page.locator("#new-encounter [name=name]").fill("Ambush at the ford")
    page.locator("#new-encounter button[type=submit]").click()
    expect(page.locator("#encounter-select")).to_contain_text("Ambush at the ford")

    add_combatant(page, fight.template, "a", "heroes")
    add_combatant(page, fight.template, "b", "foes")

    # A player link for "a", opened in a second browser context.
    page.locator("#new-player [name=name]").fill("Ann")
    page.locator("#new-player [name=characters]").fill("a")
    page.locator("#new-player button[type=submit]").click()
    link = page.locator("#new-player a.player-link")
    expect(link).to_be_visible()
    player = browser.new_context(viewport={"width": 1024, "height": 768})
    try:
        seen = watch(player.new_page())
        seen.goto(link.get_attribute("href") or "")
        expect(seen.locator("#mine article.card[data-id=a]")).to_be_visible()
        expect(seen.locator("#status")).to_have_text("live")

        page.locator("#start").click()
        expect(page.locator("#tracker .round")).to_contain_text("Round 1")
        add_combatant(page, fight.template, HIDDEN, "foes", hidden=True)
        expect(card(page, HIDDEN)).to_have_class(re.compile(r"\bhidden\b"))

        # The action: the current creature attacks the other; exact odds before rolling.
        current = page.locator("#tracker li.current").get_attribute("data-id")
        assert current in ("a", "b")
        target = "b" if current == "a" else "a"
        expect(page.locator("#actor")).to_have_value(current)
        page.locator("#do").select_option("attack")
        expect(page.locator("#target")).to_have_value(target)
        hit = page.locator("#odds table.odds tr[data-outcome=hit] td.p")
        expect(hit).to_have_text(re.compile(r"^\d+(\.\d+)?%$"))
        hurt = card(page, target).locator(fight.hurt)
        expect(hurt).to_have_text(fight.before)

        page.locator("#dice").fill(fight.dice)
        page.locator("#roll").click()
        expect(page.locator("#result .rec")).to_contain_text("attack")
        expect(hurt).to_have_text(fight.after)
        top = page.locator("#log ol.log > li").first
        expect(top).to_contain_text(f"{current} attack target={target}")
        # Every die and pipeline step is one click away in the log.
        top.locator("summary").first.click()
        expect(top.locator(".dice")).to_be_visible()
        read = top.get_attribute("data-seq")

        # The player sees the attack live, without reloading, and its result.
        expect(seen.locator("#log ol.log > li").first).to_contain_text("attack")
        if target == "a":
            expect(seen.locator(f"#mine article.card[data-id=a] {fight.hurt}")).to_have_text(
                fight.after)

        # Apply to many: a condition for both, as one command (one log entry, one undo).
        for who in ("a", "b"):
            card(page, who).locator("input.pick").check()
        many = page.locator("#many")
        many.locator("[name=what]").select_option("condition")
        many.locator("[name=cond]").fill(fight.condition)
        many.locator("[name=rounds]").fill("1+1")
        many.locator("button[type=submit]").click()
        chip = card(page, target).locator(f".chip.cond[data-condition='{fight.condition}']")
        expect(chip).to_contain_text("2 rnd")
        expect(card(page, current).locator(".chip.cond")).to_have_count(1)
        given = f".chip.cond[data-condition='{fight.condition}']"
        expect(seen.locator(f"article.card[data-id=b] {given}")).to_be_visible()
        # The log was drawn again for the new command; the entry the GM unfolded stays open.
        expect(page.locator(f"#log ol.log > li[data-seq='{read}'] > details")).to_have_attribute(
            "open", "")
        screenshot(page, f"gm-{fight.ruleset}")
        screenshot(seen, f"player-{fight.ruleset}")

        # Undo with the keyboard: both conditions go in one step, then the attack.
        page.locator("body").click(position={"x": 5, "y": 600})
        page.keyboard.press("u")
        expect(card(page, "b").locator(".chip.cond")).to_have_count(0)
        expect(card(page, "a").locator(".chip.cond")).to_have_count(0)
        page.keyboard.press("u")
        expect(hurt).to_have_text(fight.before)
        expect(page.locator("#log li.rec.off", has_text=" attack ")).to_have_count(1)
        page.keyboard.press("Shift+U")  # redo: the attack again, with its recorded dice
        expect(hurt).to_have_text(fight.after)
        expect(page.locator("#log li.rec.off", has_text=" attack ")).to_have_count(0)

        if target == "a":
            expect(seen.locator(f"#mine article.card[data-id=a] {fight.hurt}")).to_have_text(
                fight.after)

        # The hidden creature never reached the player.
        assert HIDDEN not in seen.content()
        assert not errors(page) and not errors(seen)
    finally:
        player.close()


def errors(page: Page) -> list[str]:
    """The uncaught script errors of a page (recorded by ``watch``)."""
    found: list[str] = getattr(page, "script_errors", [])
    return found


def test_a_template_picked_stays_picked_when_the_bestiary_arrives(
        server: ServerThread, api: httpx.Client, page: Page) -> None:
    """The add form's templates are filled again when the campaign's bestiary arrives, at
    any moment after the ruleset's: a template the GM picked before that stays picked, so
    the creature added is the template's (a wolf of 11 health, not a blank stat block of
    1). The bestiary's answer is held here until the wolf is picked."""
    campaign = create_campaign(api, "demo")
    gm = {"Authorization": f"Bearer {campaign.gm_token}"}
    r = api.post(f"/api/campaigns/{campaign.id}/encounters", json={"name": "E"}, headers=gm)
    assert r.status_code == 201, r.text
    held: list[Route] = []
    bestiary = re.compile(r".*/api/campaigns/[^/]+/bestiary$")
    page.route(bestiary, lambda route: held.append(route))
    page.goto(f"{server.url}/#campaign={campaign.id}&token={campaign.gm_token}")
    add = page.locator("#add")
    add.locator("[name=template]").select_option("wolf")
    add.locator("[name=id]").fill("w1")
    add.locator("[name=side]").fill("beasts")
    for _ in range(100):  # the page asks for its bestiary as it opens the campaign
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the bestiary was not asked for"
    for route in held:
        route.continue_()
    page.unroute(bestiary)
    page.wait_for_load_state("networkidle")  # the bestiary has arrived and filled the list
    expect(add.locator("[name=template]")).to_have_value("wolf")
    add.locator("button[type=submit]").click()
    expect(card(page, "w1").locator(".meter[data-field=health] .num")).to_have_text("11/11")


def test_bad_input_shows_a_clear_message(server: ServerThread, api: httpx.Client,
                                         page: Page) -> None:
    """A bad id, a duplicate id, a sum that is not one, a missing reason, a die that is not
    one, dice that are not an expression: each explained where it was typed."""
    campaign = create_campaign(api, "demo")
    gm = {"Authorization": f"Bearer {campaign.gm_token}"}
    r = api.post(f"/api/campaigns/{campaign.id}/encounters", json={"name": "E"}, headers=gm)
    assert r.status_code == 201, r.text
    page.goto(f"{server.url}/#campaign={campaign.id}&token={campaign.gm_token}")
    add = page.locator("#add")
    add.locator("[name=id]").fill("bad id!")
    add.locator("button[type=submit]").click()
    expect(add.locator(".error")).to_contain_text("letters, digits")
    expect(add.locator("[name=id]")).to_have_attribute("aria-invalid", "true")

    add_combatant(page, "wolf", "w1", "beasts")
    add.locator("[name=template]").select_option("wolf")
    add.locator("[name=id]").fill("w1")
    add.locator("button[type=submit]").click()
    expect(add.locator(".error")).to_contain_text("already in the encounter")

    add.locator("[name=template]").select_option("")
    add.locator("[name=id]").fill("w2")
    add.locator("[name=more]").fill("speed=fast")
    add.locator("button[type=submit]").click()
    expect(add.locator(".error")).to_contain_text("unknown stat-block key")

    card(page, "w1").locator("input.pick").check()
    many = page.locator("#many")
    many.locator("[name=amount]").fill("7x")
    many.locator("button[type=submit]").click()
    expect(many.locator(".error")).to_contain_text("'7x' is not a whole number or a sum")

    over = page.locator("#override")
    over.locator("[name=path]").fill("w1.health")
    over.locator("[name=value]").fill("-4")
    over.locator("button[type=submit]").click()
    expect(over.locator(".error")).to_contain_text("reason")
    over.locator("[name=reason]").fill("a fall into the ravine")
    over.locator("button[type=submit]").click()
    expect(card(page, "w1").locator(".meter[data-field=health] .num")).to_have_text("7/11")
    expect(page.locator("#log ol.log > li").first).to_contain_text("override")

    page.locator("#dice").fill("3, x")
    page.locator("#roll").click()
    expect(page.locator("#action .error")).to_contain_text("'x' is not a die result")

    # The dice roller: a roll and the exact distribution of any expression, or the reason.
    roller = page.locator("#roller")
    roller.locator("[name=expr]").fill("4d6kh3")
    roller.locator("button[type=submit]").click()
    expect(page.locator("#roll-out .chart .col")).to_have_count(16)  # 3 to 18
    expect(page.locator("#roll-out .rolled")).to_contain_text("=")
    roller.locator("[name=expr]").fill("2d")
    roller.locator("button[type=submit]").click()
    expect(roller.locator(".error")).to_contain_text("faces")
    screenshot(page, "gm-errors")


def test_console_works_at_a_tablets_size(server: ServerThread, api: httpx.Client,
                                         context: BrowserContext) -> None:
    """At a tablet's size the console draws its cards, fits the width and takes keys. (How
    fast it draws them is measured by ``bench/console.py``, not asserted here.)"""
    campaign = create_campaign(api, "realms")
    gm = {"Authorization": f"Bearer {campaign.gm_token}"}
    eid = api.post(f"/api/campaigns/{campaign.id}/encounters", json={"name": "E"},
                   headers=gm).json()["encounter"]["id"]
    for actor in ("bandit", "wolf", "knight"):
        r = api.post(f"/api/encounters/{eid}/actors", json={"id": actor, "template": actor},
                     headers=gm)
        assert r.status_code == 201, r.text
    url = f"{server.url}/#campaign={campaign.id}&token={campaign.gm_token}"
    page = context.new_page()
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(url)
    expect(page.locator("#cards article.card")).to_have_count(3)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1024, f"the page is {width}px wide on a 1024px screen"
    # Keyboard: N starts the next turn once turn-by-turn play runs.
    page.locator("#start").click()
    expect(page.locator("#tracker .round")).to_contain_text("Round 1")
    first = page.locator("#tracker li.current").get_attribute("data-id")
    page.locator("body").click(position={"x": 5, "y": 700})
    page.keyboard.press("n")
    expect(page.locator("#tracker li.current")).not_to_have_attribute("data-id", first or "")
    screenshot(page, "gm-tablet-realms")


def test_campaign_rulings_are_what_new_encounters_start_with(
        server: ServerThread, api: httpx.Client, page: Page) -> None:
    """The GM changes a campaign ruling in the console; an encounter created afterwards
    starts with it, and the encounter's own form shows it."""
    campaign = create_campaign(api, "realms")
    watch(page)
    page.goto(f"{server.url}/#campaign={campaign.id}&token={campaign.gm_token}")
    choice = page.get_by_label("campaign AR-3", exact=True)
    expect(choice).to_be_attached()
    # the panel opens by itself while the campaign has no encounter yet
    if page.locator("#campaign-panel").get_attribute("open") is None:
        page.locator("#campaign-panel summary").click()
    expect(choice).to_have_value("start")
    choice.select_option("end")
    expect(page.locator(".toast").last).to_contain_text("new encounters start with AR-3: end")
    gm = {"Authorization": f"Bearer {campaign.gm_token}"}
    saved = api.get(f"/api/campaigns/{campaign.id}/rulings", headers=gm).json()["rulings"]
    assert {r["id"]: r["value"] for r in saved}["AR-3"] == "end"
    form = page.locator("#new-encounter")
    form.locator("[name=name]").fill("Ford")
    form.locator("button[type=submit]").click()
    expect(page.get_by_label("encounter AR-3", exact=True)).to_have_value("end")
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_with_an_admin_token_the_console_creates_campaigns_from_the_admin_link(
        tmp_path: Path, page: Page) -> None:
    """A server on an open network (an admin token set): the new-campaign form says the
    admin token is needed; opened from the admin link, the same form creates the campaign."""
    thread = ServerThread(create_app(db=tmp_path / "open.db", admin_token="adm-7a"))
    thread.start()
    try:
        def create(url: str) -> Locator:
            page.goto("about:blank")
            page.goto(url)
            form = page.locator("#new-campaign")
            form.locator("[name=name]").fill("Tuesday")
            form.locator("[name=ruleset]").select_option("realms")
            form.locator("button[type=submit]").click()
            return form

        refused = create(f"{thread.url}/")
        expect(refused.locator(".error")).to_contain_text("needs its admin token")
        create(f"{thread.url}/#admin=adm-7a")
        expect(page.locator("#ruleset-name")).to_have_text("realms")
        assert "adm-7a" not in page.url  # the token leaves the address bar
        assert page.script_errors == []  # type: ignore[attr-defined]
    finally:
        thread.stop()


def test_the_gm_sees_which_creatures_a_condition_conceals(
        server: ServerThread, api: httpx.Client, context: BrowserContext) -> None:
    """A creature under a concealing condition (realms' Hidden) is marked ``concealed`` on
    its card, not ``visible``; a click hides it from every player."""
    campaign = create_campaign(api, "realms")
    gm = {"Authorization": f"Bearer {campaign.gm_token}"}
    eid = api.post(f"/api/campaigns/{campaign.id}/encounters", json={"name": "E"},
                   headers=gm).json()["encounter"]["id"]
    for actor in ("bandit", "wolf"):
        r = api.post(f"/api/encounters/{eid}/actors", json={"id": actor, "template": actor},
                     headers=gm)
        assert r.status_code == 201, r.text
    r = api.post(f"/api/encounters/{eid}/commands", headers=gm, json={"command": {
        "do": "condition", "target": "bandit", "name": "hidden", "score": 14}})
    assert r.status_code == 201, r.text
    page = watch(context.new_page())
    page.goto(f"{server.url}/#campaign={campaign.id}&token={campaign.gm_token}")
    chip = card(page, "bandit").locator(".chip.hid")
    expect(chip).to_have_text("concealed")
    expect(chip).to_have_attribute("title", re.compile("^hidden: hidden from its enemies"))
    expect(card(page, "wolf").locator(".chip.hid")).to_have_text("visible")
    hidden = card(page, "bandit").locator(".chip.cond[data-condition=hidden]")
    expect(hidden).to_have_attribute("title", re.compile(r"score 14"))
    r = api.post(f"/api/encounters/{eid}/commands", headers=gm, json={"command": {
        "do": "detect", "actor": "wolf", "target": "bandit"}})
    assert r.status_code == 201, r.text
    expect(hidden).to_have_attribute("title", re.compile(r"found by wolf"))
    chip = card(page, "bandit").locator(".chip.hid")
    chip.click()
    expect(card(page, "bandit").locator(".chip.hid")).to_have_text("hidden")
    assert api.get(f"/api/encounters/{eid}", headers=gm).json()["entities"]["bandit"]["hidden"]
    assert not page.script_errors  # type: ignore[attr-defined]
