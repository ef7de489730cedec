"""The console's roster and bestiary panels (issue 17), in a real Chromium.

A game master builds a zones encounter from a roster character and a bestiary creature
through the console, wounds the character, writes back and reads what it carries away in
words; campaign time passes and the roster shows it healed (zones heals a tenth of maximum
Health a complete day under ruling ZR-9's default, and nothing rolls); it joins a later
encounter as it stands. The bestiary's forms edit, duplicate, copy a creature from the
open encounter and remove; the Campaign panel's dice notation changes what the dice box
reads.
"""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import FilePayload, Locator, Page, Route, expect

from .conftest import Campaign, ServerThread, create_campaign
from .conftest import screenshot as save_screenshot


def open_console(page: Page, server: ServerThread, made: Campaign) -> None:
    page.goto(f"{server.url}/#campaign={made.id}&token={made.gm_token}")
    expect(page.locator("#console")).to_be_visible()


def screenshot(page: Page, name: str) -> None:
    """The page without its passing notices, which would hide the panels."""
    page.evaluate("document.getElementById('toasts')?.replaceChildren()")
    save_screenshot(page, name)


def open_panel(page: Page, selector: str) -> None:
    """Unfold a panel (a <details>) unless it is open."""
    panel = page.locator(selector)
    if panel.get_attribute("open") is None:
        panel.locator("summary").first.click()
    expect(panel).to_have_attribute("open", "")


def roster_item(page: Page, ident: str) -> Locator:
    return page.locator(f"#roster-panel li.rchar[data-id={ident}]")


def beast_item(page: Page, ident: str) -> Locator:
    return page.locator(f"#bestiary-panel li.rbeast[data-id={ident}]")


def add_character(page: Page, ident: str, name: str, template: str, side: str, owner: str) -> None:
    panel = page.locator("#roster-panel")
    panel.locator("summary", has_text="new character").click()
    form = panel.locator("form.rchar-form")
    form.locator("[name=template]").select_option(template)
    form.locator("[name=name]").fill(name)
    expect(form.locator("[name=id]")).to_have_value(ident)  # suggested from the name
    # the side is the party's (heroes in a new roster), never left empty by the form's reset
    expect(form.locator("[name=side]")).not_to_have_value("")
    form.locator("[name=side]").fill(side)
    form.locator("[name=owner]").fill(owner)
    form.locator("button[type=submit]").click()
    expect(roster_item(page, ident)).to_be_visible()
    expect(form.locator("[name=side]")).not_to_have_value("")


def save_beast(
    page: Page, ident: str, name: str, template: str, block: str, notes: str = ""
) -> None:
    open_panel(page, "#bestiary-panel")
    panel = page.locator("#bestiary-panel")
    panel.locator("summary", has_text="new creature").click()
    form = panel.locator("form.rbeast-form")
    form.locator("[name=template]").select_option(template)
    form.locator("[name=name]").fill(name)
    form.locator("[name=id]").fill(ident)
    form.locator("[name=more]").fill(block)
    form.locator("[name=notes]").fill(notes)
    form.locator("button[type=submit]").click()
    expect(beast_item(page, ident)).to_be_visible()


def test_an_encounter_from_the_roster_and_the_bestiary_is_written_back_and_heals(
    server: ServerThread, api: httpx.Client, page: Page
) -> None:
    """Issue 17, "Done when": a Playwright test builds an encounter from the roster and
    the bestiary and writes back; the carried wound shows in words and heals with time."""
    made = create_campaign(api, "zones", "Long road")
    page.set_viewport_size({"width": 1440, "height": 900})
    open_console(page, server, made)
    panel = page.locator("#roster-panel")
    expect(panel).to_have_attribute("open", "")  # open on a desktop
    expect(panel.locator(".clock")).to_have_text("Campaign time: no time has passed yet")
    expect(panel.locator(".writeback")).to_be_hidden()  # no roster yet
    add_character(page, "kit", "Kit", "soldier", "crew", "Ann")
    expect(panel.locator(".writeback")).to_be_disabled()  # no encounter open
    kit = roster_item(page, "kit")
    expect(kit.locator(".about")).to_have_text("played by Ann · a soldier")
    expect(kit.locator(".words")).to_have_text("Health 80/80 · ammo: assault rifle 30, grenade 2")
    save_beast(page, "raider", "Salt raider", "bandit", "health=40", "from the salt flats")
    raider = beast_item(page, "raider")
    expect(raider.locator(".about")).to_have_text("built on bandit")
    expect(raider.locator(".words")).to_have_text("health 40")
    expect(raider.locator(".notes")).to_have_text("from the salt flats")
    # the bestiary entry is a template of Add combatant too
    expect(page.locator("#add [name=template] optgroup[label=bestiary] option")).to_have_text(
        ["raider"]
    )

    # a new encounter: Kit ticked, two raiders on the gang's side
    kit.locator("input.pick").check()
    form = panel.locator("form.rnew")
    expect(form.locator(".picked")).to_have_text("Characters: Kit")
    form.locator("[name=creature]").select_option("raider")
    form.locator("[name=count]").fill("2")
    form.locator("[name=cside]").fill("gang")
    form.locator("button.addcreature").click()
    expect(form.locator(".rcreatures li")).to_have_text(["2 × Salt raider (side gang) ×"])
    form.locator("[name=name]").fill("Ford")
    form.locator("button[type=submit]").click()
    expect(page.locator("#encounter-select option:checked")).to_have_text("Ford")
    cards = page.locator("#cards article.card")
    expect(cards).to_have_count(3)
    expect(
        page.locator("#cards article.card[data-id=raider-2] .meter[data-field=health] .num")
    ).to_have_text("40/40")
    expect(kit.locator("button.join")).to_have_text("in the encounter")
    expect(kit.locator("button.join")).to_be_disabled()

    # Kit takes 30 (15 through the soldier's armor) and the fight's state is written back
    kit_card = page.locator("#cards article.card[data-id=kit]")
    kit_card.locator(".qamount").fill("30")
    kit_card.locator("button.qdamage").click()
    expect(kit_card.locator(".meter[data-field=health] .num")).to_have_text("65/80")
    write_back = panel.locator(".writeback")
    expect(write_back).to_have_text("Write back “Ford”")
    write_back.click()
    expect(panel.locator(".carried li[data-id=kit]")).to_have_text(
        "Kit carries away Health 65/80 · ammo: assault rifle 30, grenade 2"
    )
    expect(kit.locator(".words")).to_have_text("Health 65/80 · ammo: assault rifle 30, grenade 2")
    expect(panel.locator(".lastchange")).to_contain_text(
        "The lasting state of Kit is written back from the encounter Ford"
    )
    body = api.get(
        f"/api/campaigns/{made.id}/characters/kit",
        headers={"Authorization": f"Bearer {made.gm_token}"},
    ).json()
    assert body["character"]["lasting"]["health_now"] == 65
    screenshot(page, "roster-zones-1440")

    # a day and a half of rest: a tenth of 80 for the one complete day
    time_form = panel.locator("form.rtime")
    time_form.locator("[name=amount]").fill("36")
    time_form.locator("[name=unit]").select_option("hours")
    expect(time_form.locator("[name=activity] option")).to_have_text(["rest", "no rest"])
    time_form.locator("button[type=submit]").click()
    happened = time_form.locator(".happened")
    expect(happened.locator(".said")).to_have_text("36 hours pass (rest) for Kit.")
    expect(happened.locator("li[data-id=kit]")).to_contain_text(
        "Kit: Kit rests and regains 8 Health (now 73)."
    )
    expect(kit.locator(".words")).to_have_text("Health 73/80 · ammo: assault rifle 30, grenade 2")
    expect(panel.locator(".clock")).to_have_text("Campaign time: 1 day 12 hours passed")

    # the roster's own undo takes the time back
    panel.locator(".lastchange button").click()
    expect(kit.locator(".words")).to_have_text("Health 65/80 · ammo: assault rifle 30, grenade 2")
    expect(panel.locator(".clock")).to_have_text("Campaign time: no time has passed yet")
    time_form.locator("[name=amount]").fill("2")
    time_form.locator("[name=unit]").select_option("days")
    time_form.locator("button[type=submit]").click()
    expect(kit.locator(".words")).to_have_text("Health 80/80 · ammo: assault rifle 30, grenade 2")

    # a bad amount is refused in the form, naming the field
    time_form.locator("[name=amount]").fill("lots")
    time_form.locator("button[type=submit]").click()
    expect(time_form.locator(".error")).to_contain_text("'lots' is not a whole number")
    expect(time_form.locator("[name=amount]")).to_have_attribute("aria-invalid", "true")

    # a later encounter with a shipped template only; Kit joins it as it stands
    form.locator("[name=creature]").select_option("bandit")
    form.locator("button.addcreature").click()
    form.locator("[name=name]").fill("Ambush")
    form.locator("button[type=submit]").click()
    expect(page.locator("#encounter-select option:checked")).to_have_text("Ambush")
    expect(cards).to_have_count(1)
    expect(kit.locator("button.join")).to_be_enabled()
    kit.locator("button.join").click()
    expect(kit_card.locator(".meter[data-field=health] .num")).to_have_text("80/80")
    expect(kit.locator("button.join")).to_have_text("in the encounter")

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    expect(page.locator("#console")).to_be_visible()
    expect(panel).not_to_have_attribute("open", "")  # folded on a phone
    # on a phone the panel comes after the action panel
    action_y = page.locator("#action").bounding_box()
    panel_y = panel.bounding_box()
    assert action_y is not None and panel_y is not None
    assert panel_y["y"] > action_y["y"]
    panel.locator("summary h2").click()
    expect(roster_item(page, "kit")).to_be_visible()
    screenshot(page, "roster-zones-390")
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_the_bestiary_is_edited_duplicated_copied_from_an_encounter_and_removed(
    server: ServerThread, api: httpx.Client, page: Page
) -> None:
    made = create_campaign(api, "realms", "Marches")
    page.set_viewport_size({"width": 1440, "height": 900})
    open_console(page, server, made)
    save_beast(page, "marsh-wolf", "Marsh wolf", "wolf", "health=20; side=beasts")
    beast = beast_item(page, "marsh-wolf")
    expect(beast.locator(".words")).to_have_text("health 20")
    expect(beast.locator(".chip.side")).to_have_text("beasts")

    # a bad stat block names the field and keeps the form
    panel = page.locator("#bestiary-panel")
    form = panel.locator("form.rbeast-form")
    panel.locator("summary", has_text="new creature").click()
    form.locator("[name=id]").fill("bad id")
    form.locator("button[type=submit]").click()
    expect(form.locator(".error")).to_contain_text("'bad id' must be 1 to 64 letters")
    form.locator("[name=id]").fill("ghoul")
    form.locator("[name=more]").fill("wings=2")
    form.locator("button[type=submit]").click()
    expect(form.locator(".error")).to_contain_text("wings")
    expect(form.locator("[name=more]")).to_have_attribute("aria-invalid", "true")
    expect(beast_item(page, "ghoul")).to_have_count(0)

    # edit: the stat block comes back as key=value and is saved with PUT
    beast.locator("button", has_text="edit").click()
    expect(form.locator("[name=id]")).to_be_disabled()
    expect(form.locator("[name=more]")).to_have_value("health=20; side=beasts")
    form.locator("[name=more]").fill("health=24; side=beasts")
    form.locator("button[type=submit]").click()
    expect(beast.locator(".words")).to_have_text("health 24")

    # duplicate: a new id beside it, the same stat block
    beast.locator("button", has_text="duplicate").click()
    expect(form.locator("[name=id]")).to_have_value("marsh-wolf-2")
    form.locator("[name=name]").fill("Old marsh wolf")
    form.locator("button[type=submit]").click()
    copy = beast_item(page, "marsh-wolf-2")
    expect(copy.locator(".words")).to_have_text("health 24")
    expect(copy.locator("b")).to_have_text("Old marsh wolf")

    # a creature of the open encounter, saved to the bestiary with the stat block it came with
    roster = page.locator("#roster-panel form.rnew")
    roster.locator("[name=creature]").select_option("marsh-wolf")
    roster.locator("button.addcreature").click()
    roster.locator("[name=name]").fill("Reeds")
    roster.locator("button[type=submit]").click()
    expect(
        page.locator("#cards article.card[data-id=marsh-wolf] .meter[data-field=health] .num")
    ).to_have_text("24/24")
    panel.locator(".fromenc select").select_option("marsh-wolf")
    panel.locator(".fromenc button").click()
    expect(form.locator("[name=id]")).to_have_value("marsh-wolf-3")
    expect(form.locator("[name=template]")).to_have_value("wolf")
    expect(form.locator("[name=more]")).to_have_value("health=24; side=beasts")
    form.locator("button[type=submit]").click()
    expect(beast_item(page, "marsh-wolf-3")).to_be_visible()

    # remove, and the roster panel's undo brings it back
    copy.locator("button", has_text="remove").click()
    expect(copy).to_have_count(0)
    page.locator("#roster-panel .lastchange button").click()
    expect(beast_item(page, "marsh-wolf-2")).to_be_visible()
    screenshot(page, "bestiary-realms-1440")
    page.set_viewport_size({"width": 1024, "height": 768})  # a tablet: the panels in a row
    screenshot(page, "bestiary-realms-1024")
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_the_campaign_dice_notation_changes_what_the_dice_box_reads(
    server: ServerThread, api: httpx.Client, page: Page
) -> None:
    """docs/dice.md, "Dialects": `3d6>=5` counts dice in Arbiter's notation and compares
    the sum in d20's; `d%` is a tens die in d20's."""
    made = create_campaign(api, "demo", "Dice")
    open_console(page, server, made)
    open_panel(page, "#campaign-panel")
    dialect = page.locator("#dice-dialect")
    expect(dialect).to_have_value("arbiter")
    roller = page.locator("#roller")
    out = page.locator("#roll-out")

    roller.locator("[name=expr]").fill("3d6>=5")
    roller.locator("button[type=submit]").click()
    expect(out.locator("p.muted")).to_contain_text("3d6>=5: 0–3")
    expect(out.locator(".readas")).to_have_count(0)

    dialect.select_option("d20")
    expect(page.locator("#toasts")).to_contain_text("the dice box reads d20 (Avrae) notation")
    roller.locator("button[type=submit]").click()
    expect(out.locator(".readas")).to_have_text("read as (3d6)>=5 (d20 notation)")
    expect(out.locator("p.muted")).to_contain_text("(3d6)>=5: 0–1")
    roller.locator("[name=expr]").fill("d%")
    roller.locator("button[type=submit]").click()
    expect(out.locator(".readas")).to_have_text("read as 1dT (d20 notation)")
    expect(out.locator("p.muted")).to_contain_text("0–90")

    # the setting is the campaign's: a reload keeps it, and the server has it
    page.reload()
    expect(page.locator("#dice-dialect")).to_have_value("d20")
    shown = api.get(
        f"/api/campaigns/{made.id}", headers={"Authorization": f"Bearer {made.gm_token}"}
    ).json()
    assert shown["campaign"]["settings"] == {"dice_dialect": "d20", "players_roll": False}
    open_panel(page, "#campaign-panel")
    # a roll made before the server has stored the change reads the notation chosen: the
    # settings request is held until the roll is shown
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/api/campaigns/*/settings", hold)
    page.locator("#dice-dialect").select_option("roll20")
    roller.locator("[name=expr]").fill("d%")
    roller.locator("button[type=submit]").click()
    expect(out.locator(".readas")).to_have_text("read as 1d% (roll20 notation)")
    expect(out.locator("p.muted")).to_contain_text("1d%: 1–100")
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("#toasts")).to_contain_text("the dice box reads Roll20 notation")
    assert page.script_errors == []  # type: ignore[attr-defined]


@pytest.mark.rules("P-FAT-1")
def test_polemos_wounds_and_fatigue_read_in_words(
    server: ServerThread, api: httpx.Client, page: Page
) -> None:
    """Polemos: what a character carries is body areas, wounds and fatigue (P-FAT-1), shown
    in words in the roster, never as raw fields."""
    made = create_campaign(api, "polemos", "Undercity")
    gm = {"Authorization": f"Bearer {made.gm_token}"}
    r = api.post(
        f"/api/campaigns/{made.id}/characters",
        headers=gm,
        json={"id": "vex", "name": "Vex", "template": "soldier", "side": "crew", "owner": "Bo"},
    )
    assert r.status_code == 201, r.text
    r = api.post(
        f"/api/campaigns/{made.id}/encounters",
        headers=gm,
        json={"name": "Alley", "characters": ["vex"]},
    )
    eid = r.json()["encounter"]["id"]
    for command in (
        {"do": "damage", "target": "vex", "amount": 30, "area": "left_arm"},
        {"do": "wound", "target": "vex", "name": "cut", "area": "left_arm"},
        {"do": "wound", "target": "vex", "name": "fracture", "area": "chest"},
    ):
        r = api.post(f"/api/encounters/{eid}/commands", headers=gm, json={"command": command})
        assert r.status_code == 201, r.text
    page.set_viewport_size({"width": 1440, "height": 900})
    open_console(page, server, made)
    vex = roster_item(page, "vex")
    expect(vex.locator(".words")).to_have_text("SP 12/12 · FP 10/10")
    page.locator("#roster-panel .writeback").click()
    words = (
        "hurt: left arm 1/4 · 2 wounds: cut (left arm, bleeding 1), fracture (chest) · "
        "fatigue 1 · SP 12/12 · FP 10/10 · limping"
    )
    expect(vex.locator(".words")).to_have_text(words)
    expect(page.locator("#roster-panel .carried li[data-id=vex]")).to_have_text(
        f"Vex carries away {words}"
    )
    assert "{" not in (vex.text_content() or "")
    screenshot(page, "roster-polemos-1440")
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_a_character_is_edited_and_carries_realms_conditions(
    server: ServerThread, api: httpx.Client, page: Page
) -> None:
    """Realms: Health, Energy and the conditions that outlast the fight, in words; the
    character form takes stat-block changes, and "start fresh" forgets what it carries."""
    made = create_campaign(api, "realms", "Border")
    gm = {"Authorization": f"Bearer {made.gm_token}"}
    page.set_viewport_size({"width": 1440, "height": 900})
    open_console(page, server, made)
    add_character(page, "ila", "Ila", "knight", "heroes", "Cy")
    ila = roster_item(page, "ila")
    expect(ila.locator(".words")).to_have_text("Health 26/26")
    ila.locator("button", has_text="edit").click()
    form = page.locator("#roster-panel form.rchar-form")
    expect(form.locator("[name=id]")).to_be_disabled()
    expect(form.locator("[name=owner]")).to_have_value("Cy")
    form.locator("[name=more]").fill("energy=5; wings=2")
    form.locator("button[type=submit]").click()
    expect(form.locator(".error")).to_contain_text("wings")
    expect(form.locator("[name=more]")).to_have_attribute("aria-invalid", "true")
    form.locator("[name=more]").fill("energy=5")
    form.locator("button[type=submit]").click()
    expect(ila.locator(".words")).to_have_text("Health 26/26 · Energy 5/5")

    r = api.post(
        f"/api/campaigns/{made.id}/encounters",
        headers=gm,
        json={"name": "Pass", "characters": ["ila"]},
    )
    eid = r.json()["encounter"]["id"]
    for command in (
        {"do": "damage", "target": "ila", "amount": 9, "type": "fire"},
        {"do": "condition", "target": "ila", "name": "exhausted", "level": 2},
        {"do": "condition", "target": "ila", "name": "frightened", "rounds": 3},
    ):
        r = api.post(f"/api/encounters/{eid}/commands", headers=gm, json={"command": command})
        assert r.status_code == 201, r.text
    r = api.post(f"/api/encounters/{eid}/write-back", headers=gm)
    assert r.status_code == 201, r.text
    page.reload()
    # 9 fire less the plate's DR 5; the timed condition keeps the rounds it had left
    expect(ila.locator(".words")).to_have_text(
        "Health 22/26 · Energy 5/5 · exhausted 2, frightened (3 rounds left)"
    )
    screenshot(page, "roster-realms-1440")

    ila.locator("button", has_text="edit").click()
    form.locator("[name=forget]").check()
    form.locator("button[type=submit]").click()
    expect(ila.locator(".words")).to_have_text("Health 26/26 · Energy 5/5")
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_a_roster_and_a_bestiary_picture_show_on_the_tokens_of_a_new_encounter(
    server: ServerThread, api: httpx.Client, page: Page
) -> None:
    """Issue 34: token pictures per roster and bestiary entry. The game master gives Kit and
    the salt raider a picture in their panels; a new encounter built from them shows both
    pictures round on the map's tokens and in the turn order, with no page error."""
    import io
    import re

    from PIL import Image, ImageDraw

    def face(colour: tuple[int, int, int]) -> bytes:
        im = Image.new("RGB", (300, 300), colour)
        ImageDraw.Draw(im).ellipse((60, 60, 240, 240), fill=(240, 220, 190))
        out = io.BytesIO()
        im.save(out, "PNG")
        return out.getvalue()

    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    made = create_campaign(api, "realms", "Pictures")
    page.set_viewport_size({"width": 1440, "height": 900})
    open_console(page, server, made)
    add_character(page, "kit", "Kit", "knight", "heroes", "Ann")
    save_beast(page, "raider", "Salt raider", "bandit", "health=20")
    kit, raider = roster_item(page, "kit"), beast_item(page, "raider")
    kit_face: FilePayload = {"name": "kit.png", "mimeType": "image/png",
                             "buffer": face((40, 60, 120))}
    raider_face: FilePayload = {"name": "raider.png", "mimeType": "image/png",
                                "buffer": face((120, 40, 40))}
    kit.locator(".picture input[type=file]").set_input_files(files=[kit_face])
    expect(kit.locator("img.ravatar")).to_have_attribute("src", re.compile("^blob:"))
    expect(kit.locator(".picture")).to_have_text("change picture")
    raider.locator(".picture input[type=file]").set_input_files(files=[raider_face])
    expect(raider.locator("img.ravatar")).to_have_attribute("src", re.compile("^blob:"))

    kit.locator("input.pick").check()
    form = page.locator("#roster-panel form.rnew")
    form.locator("[name=creature]").select_option("raider")
    form.locator("button.addcreature").click()
    form.locator("[name=name]").fill("Ford")
    form.locator("button[type=submit]").click()
    expect(page.locator("#encounter-select option:checked")).to_have_text("Ford")
    if page.locator("#map-panel").get_attribute("open") is None:  # nobody placed yet
        page.locator("#map-panel > summary").click()
    for ident in ("kit", "raider"):  # in the map's tray
        token = page.locator(f".battlemap .tok[data-id='{ident}']")
        expect(token).to_have_class(re.compile("pictured"))
        expect(token.locator("image.pic")).to_have_attribute("href", re.compile("^blob:"))
        expect(page.locator(f"#tracker li[data-id='{ident}'] img.avatar")).to_have_attribute(
            "src", re.compile("^blob:"))
    screenshot(page, "roster-pictures-1440")
    kit.locator("button", has_text="no picture").click()
    expect(kit.locator("img.ravatar")).to_have_count(0)
    assert not errors, errors
