"""The demo tables: one console link opens a campaign per ruleset, each ready to play."""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page, expect

from arbiter.web.demo import console_link, create_demo_tables, player_link, table_of

from .conftest import ServerThread, screenshot


def test_one_link_opens_a_campaign_per_ruleset(server: ServerThread, page: Page,
                                                context: BrowserContext) -> None:
    tables = create_demo_tables(server.service)
    assert [t.ruleset for t in tables] == ["polemos", "zones", "realms"]
    page.goto(console_link(server.url, tables))
    expect(page.locator("#ruleset-name")).to_have_text("polemos")
    expect(page.locator("#cards article.card")).to_have_count(len(table_of("polemos")[1]))
    assert "#" not in page.url, "the tokens must leave the address bar"
    options = page.locator("#campaign-select option")
    expect(options).to_have_count(4)  # three campaigns and "new campaign"
    for table in tables[1:]:
        page.locator("#campaign-select").select_option(table.campaign)
        expect(page.locator("#ruleset-name")).to_have_text(table.ruleset)
        expect(page.locator("#cards article.card")).to_have_count(len(table_of(table.ruleset)[1]))
    screenshot(page, "gm-demo-realms")

    realms = tables[2]
    hidden = [i for i, spec in table_of("realms")[1] if spec.get("hidden")]
    player = context.new_page()
    player.goto(player_link(server.url, realms))
    expect(player.locator(f"#mine article.card[data-id={realms.player_character}]")).to_be_visible()
    expect(player.locator("#others article.card")).to_have_count(len(table_of("realms")[1]) - 2)
    for secret in hidden:
        assert secret not in player.content()
    screenshot(player, "player-demo-realms")
