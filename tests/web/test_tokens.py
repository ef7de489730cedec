"""Tokens are kept per tab, never in localStorage (issue 30): the GM's campaign list lives
in sessionStorage, a reload in the tab reopens the campaign, and a token an older version
left in localStorage is moved into the tab once and deleted."""

from __future__ import annotations

import httpx
from playwright.sync_api import BrowserContext, Page, expect

from .conftest import ServerThread, create_campaign


def test_the_gm_token_stays_in_the_tab_not_in_local_storage(
        server: ServerThread, api: httpx.Client, page: Page) -> None:
    campaign = create_campaign(api, "zones", "Tab")
    page.goto(f"{server.url}/#campaign={campaign.id}&token={campaign.gm_token}")
    expect(page.locator("#ruleset-name")).to_have_text("zones")
    assert page.evaluate("Object.keys(localStorage)") == []
    kept = page.evaluate("sessionStorage.getItem('arbiter.campaigns')")
    assert campaign.gm_token in kept
    page.reload()  # the same tab opens the campaign again from its sessionStorage
    expect(page.locator("#ruleset-name")).to_have_text("zones")
    assert page.evaluate("Object.keys(localStorage)") == []


def test_an_old_local_storage_token_is_moved_then_deleted(
        server: ServerThread, api: httpx.Client, context: BrowserContext) -> None:
    campaign = create_campaign(api, "realms", "Old")
    page = context.new_page()
    page.goto(f"{server.url}/play/")  # the origin, without the console
    page.evaluate("""([id, token]) => localStorage.setItem('arbiter.campaigns',
        JSON.stringify([{id, token, name: 'Old', ruleset: 'realms'}]))""",
                  [campaign.id, campaign.gm_token])
    page.goto(f"{server.url}/")
    expect(page.locator("#ruleset-name")).to_have_text("realms")
    assert page.evaluate("localStorage.getItem('arbiter.campaigns')") is None
    assert campaign.gm_token in page.evaluate("sessionStorage.getItem('arbiter.campaigns')")
    page.close()
