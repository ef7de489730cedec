"""Secrecy on the player's page (issue 30): three rounds of each demo with a GM-hidden
creature acting, watched on two player pages in Chromium, one at a table with the hidden
creature and one at its twin without it (``tests/security/test_differential.py`` makes the
twins and plays the turns). The player's page (the turn header, the tracker, the cards and the
log's sentences) is the same at both tables after every turn, and does not change while the
hidden creature acts.

Known differences of the API (the xfails of the differential test) hold here too: a turn that
follows the hidden creature's starts in a log record of its own, so the log is compared as the
sequence of its sentences, not record by record.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from arbiter.web.demo import demo_rulesets

from ..security.test_differential import CONDITION, FRIENDS, Table, initiative
from .conftest import ServerThread, browsing, screenshot
from .test_table import settled

ROUNDS = 3


@pytest.fixture
def twin_client(server: ServerThread) -> Iterator[httpx.Client]:
    """The live server, every command of which rolls from one seed while the test runs, so
    the twins' dice are alike (``store/service.py`` seeds each command from ``secrets``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(secrets, "randbits", lambda bits: 20_261_204)
        with httpx.Client(base_url=server.url, timeout=20) as client:
            yield client


def player_link(server: ServerThread, table: Table) -> str:
    token = table.player["Authorization"].removeprefix("Bearer ")
    return f"{server.url}/play/#campaign={table.cid}&token={token}"


def caught_up(page: Page, table: Table) -> None:
    """The page shows every record of the player's log and has nothing in flight."""
    count = min(200, len(table.log()))
    expect(page.locator("#log ol.log > li")).to_have_count(count)
    settled(page)


def seen(page: Page) -> dict[str, object]:
    """What the player reads: the turn header, the tracker, the cards, the log's sentences
    in order and whether it is their turn."""
    said = page.locator("#log ol.log > li .said, #log ol.log > li.redacted").all_inner_texts()
    sentences = " ".join(" ".join(reversed(said)).split())  # oldest first
    # each record's number counts the player's records, without gaps (the log's own sequence
    # numbers count the GM's records too)
    numbers = [int(n.removeprefix("#")) for n in page.locator(
        "#log ol.log > li .seq").all_inner_texts()]
    assert numbers == list(range(len(numbers), 0, -1)), numbers
    return {
        "turn": page.locator("#turn-info").inner_text(),
        "tracker": page.locator("#tracker").inner_text(),
        "mine": page.locator("#mine").inner_text(),
        "others": page.locator("#others").inner_text(),
        "log": sentences,
        "acting": page.locator("#action").is_visible(),
    }


def same(step: str, one: dict[str, object], two: dict[str, object]) -> None:
    for key in one:
        assert one[key] == two[key], (f"{step}: the player's {key} tells the hidden creature "
                                      f"is there:\nwith it    {one[key]!r:.600}\n"
                                      f"without it {two[key]!r:.600}")


@pytest.mark.parametrize("ruleset", demo_rulesets())
def test_three_rounds_with_a_hidden_creature_acting(
        browser: Browser, server: ServerThread, twin_client: httpx.Client,
        ruleset: str) -> None:
    with_ = Table(twin_client, ruleset, True, {"AR-8": "own-turn"} if ruleset == "realms"
                  else None)
    without = Table(twin_client, ruleset, False, {"AR-8": "own-turn"} if ruleset == "realms"
                    else None)
    for table in (with_, without):
        table.gm_command({"do": "reveal_on_turn", "enabled": False})
    order = initiative(with_, "middle")
    for table in (with_, without):
        table.gm_command({"do": "start", "initiative": {
            k: v for k, v in order.items() if table.present or k != table.hidden}})
    with ExitStack() as stack:
        pages: list[Page] = []
        problems: list[str] = []
        for table in (with_, without):
            page = stack.enter_context(contextmanager(browsing)(browser, 1440, 900)).new_page()
            page.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
            page.goto(player_link(server, table))
            expect(page.locator("#status")).to_have_text("live")
            pages.append(page)

        def check(step: str) -> None:
            for page, table in zip(pages, (with_, without), strict=True):
                caught_up(page, table)
            same(step, seen(pages[0]), seen(pages[1]))

        check("start")
        hidden_turns = 0
        for n in range(ROUNDS * len(with_.visible)):
            current = without.current()
            assert with_.current() == current
            for table in (with_, without):
                if current == table.hero:  # the player attacks a foe and ends their turn
                    foe = next(i for i in table.visible if i not in FRIENDS[ruleset])
                    for command in ({"do": "attack", "actor": table.hero, "target": foe},
                                    {"do": "next", "actor": table.hero}):
                        r = twin_client.post(f"/api/encounters/{table.eid}/commands",
                                             headers=table.player, json={"command": command})
                        assert r.status_code == 201, r.text
                else:
                    table.gm_command({"do": "next"})
            while with_.current() == with_.hidden:  # its turn, out of sight
                caught_up(pages[0], with_)
                before = seen(pages[0])
                with_.gm_command({"do": "condition", "target": with_.hidden,
                                  **CONDITION.get(ruleset, {"name": "lurking", "custom": True})})
                with_.gm_command({"do": "note", "text": f"{with_.hidden} waits"})
                caught_up(pages[0], with_)
                same(f"turn {n + 1}: while the hidden creature acts", seen(pages[0]), before)
                with_.gm_command({"do": "next"})
                hidden_turns += 1
            check(f"turn {n + 1} ({current}'s) over")
        assert hidden_turns >= ROUNDS - 1
        screenshot(pages[0], f"player-hidden-{ruleset}")
        assert not problems, problems
