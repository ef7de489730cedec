"""Dice the table throws (issue 33), in Chromium: the dice plan beside the Table dice field,
each typed die checked against it as it is typed, the first dice typed and the rest rolled by
the server, and a player typing their own dice when the campaign lets them."""

from __future__ import annotations

import httpx
from playwright.sync_api import BrowserContext, expect

from arbiter.web.demo import DemoTable, create_demo_tables

from .conftest import ServerThread, screenshot
from .test_at_the_table import gm, link, start, tables, watched  # noqa: F401 (fixtures)
from .test_table import open_campaign, settled, targets_of

PLAN = "2d6 attack · 2d6 defense · d12 location on a hit · d6 damage on a hit"


def last_entry(server: ServerThread, table: DemoTable) -> dict[str, object]:
    records = server.service.records(table.encounter, 0, 500)
    payload: dict[str, object] = records[-1].payload
    return payload


def test_the_gm_types_the_first_dice_and_the_server_rolls_the_rest(
        gm: BrowserContext, server: ServerThread, tables: list[DemoTable],  # noqa: F811
        link: str) -> None:  # noqa: F811
    start(server, tables, "polemos", "vera")
    page, problems = watched(gm)
    page.goto(link)
    open_campaign(page, "polemos")
    assert targets_of(page, "vera")
    plan = page.locator("#dice-plan")
    expect(plan).to_have_text(PLAN)
    dice = page.locator("#dice")
    dice.fill("6 6 1 9")
    expect(plan).to_contain_text("die 4 is a d6 (defense): 9 cannot come up on it")
    dice.fill("6, 6, 1, 1")
    expect(plan).to_contain_text("the server rolls the rest")
    expect(plan.locator(".die.typed")).to_have_count(2)
    screenshot(page, "table-dice-plan")
    table = next(t for t in tables if t.ruleset == "polemos")
    page.locator("#roll").click()
    expect(page.locator("#result")).to_contain_text("Vera")
    settled(page)
    entry = last_entry(server, table)
    assert entry["typed"] == 4
    dice_rolled = entry["dice"]
    assert isinstance(dice_rolled, list)
    assert [v for _, v in dice_rolled[:4]] == [6, 6, 1, 1] and len(dice_rolled) == 6
    expect(dice).to_have_value("")
    page.locator("#result details").first.evaluate("d => d.open = true")
    expect(page.locator("#result .raw")).to_contain_text(
        "typed at the table: d6=6, d6=6, d6=1, d6=1; rolled by the server: d12=")
    assert not problems, problems


def test_a_player_types_their_own_dice_when_the_campaign_lets_them(
        gm: BrowserContext, server: ServerThread) -> None:  # noqa: F811
    table = create_demo_tables(server.service, ("polemos",))[0]
    r = httpx.put(f"{server.url}/api/campaigns/{table.campaign}/settings",
                  json={"players_roll": True},
                  headers={"Authorization": f"Bearer {table.gm_token}"})
    assert r.status_code == 200, r.text
    start(server, [table], "polemos", table.player_character)
    page, problems = watched(gm)
    page.goto(f"{server.url}/play/#campaign={table.campaign}&token={table.player_token}")
    expect(page.locator("#action")).to_be_visible()
    expect(page.locator("#dice-row")).to_be_visible()
    expect(page.locator("#dice-plan")).to_have_text(PLAN)
    page.locator("#dice").fill("1 1 6 6")  # a miss: the four dice are all it rolls
    page.locator("#roll").click()
    expect(page.locator("#result")).to_contain_text("miss")
    entry = last_entry(server, table)
    assert entry["typed"] == 4 and entry["dice"] == [[6, 1], [6, 1], [6, 6], [6, 6]]
    screenshot(page, "player-dice")
    assert not problems, problems
