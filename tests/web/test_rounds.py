"""Three full rounds of each demo encounter, played through the console only, with table dice.

The game master plays every turn as a table would: the console's default action against its
default target (when no enemy is a legal target there is no default, and the console says
why), rolled with dice typed into "Table dice"; then Next turn. The default target is
never the actor itself nor one of its side, and the console asks the server nothing it
refuses (no 4xx answer during the three rounds). Before each roll the test
asks the engine, in process, what that command does with those dice on the state of the
moment, and after it checks the server decided exactly that: the console sent the forced dice
unchanged and the command it showed. In round 1 a creature joins through the Add form and
must take its turn in round 2 (it rolls initiative when it joins).

The dice are "steady": every die shows the same share of its faces, so a turn's dice can be
known before the roll and typed in.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from arbiter.core import Command, RulesError
from arbiter.web.demo import DemoTable, console_link, create_demo_tables

from .conftest import ServerThread, screenshot

#: A creature each demo adds mid-combat: (template, side).
JOINS = {"polemos": ("ganger", "gang"), "zones": ("bandit", "raiders"),
         "realms": ("bandit", "brigands")}


class Steady:
    """Dice that each show ``share`` of their faces (rounded up), recorded in order."""

    def __init__(self, share: float) -> None:
        self.share = share
        self.values: list[int] = []

    def roll(self, faces: int) -> int:
        value = max(1, min(faces, math.ceil(faces * self.share)))
        self.values.append(value)
        return value

    def roll_many(self, n: int, faces: int) -> list[int]:
        return [self.roll(faces) for _ in range(n)]


def predict(server: ServerThread, table: DemoTable, command: Command, share: float,
            ) -> tuple[list[int], list[dict[str, Any]]] | str:
    """The dice ``command`` takes and the events it makes now, or the engine's refusal."""
    dice = Steady(share)

    def decide(loaded: Any) -> list[dict[str, Any]]:
        return [e.to_json() for e in loaded.ruleset.decide(loaded.state, command, dice)]

    try:
        events = server.service.read(table.encounter, decide)
    except RulesError as err:
        return str(err)
    return dice.values, events


def last_entry(server: ServerThread, table: DemoTable, do: str) -> dict[str, Any]:
    for record in reversed(server.service.records(table.encounter)):
        if record.kind == "entry" and record.payload["command"]["do"] == do:
            return record.payload
    raise AssertionError(f"no {do} in the log")


def round_of(page: Page) -> int:
    text = page.locator("#turn-info").inner_text()
    words = text.split()
    return int(words[words.index("Round") + 1].strip(",·:"))


def wait_probe(page: Page, actor: str) -> None:
    expect(page.locator(f"#target[data-probed-for='{actor}']")).to_have_count(1)


def play_turn(page: Page, server: ServerThread, table: DemoTable, share: float) -> str | None:
    """Roll the turn's action with table dice; the command rolled, or None when none is."""
    actor = page.locator("#actor").input_value()
    page.locator("#do").select_option("attack")
    wait_probe(page, actor)
    do = "attack"
    target = page.locator("#target").input_value()
    if not target:  # no legal enemy: the console chose none and says why
        assert page.locator("#why-not").inner_text().startswith("No default target"), (
            page.locator("#why-not").inner_text())
        return None
    # the default target is an enemy: never the actor itself, never one of its own side
    side = server.service.read(table.encounter, lambda ld: {
        e.id: e.side for e in ld.state.entities.values()})
    assert target != actor, f"{actor}'s default {do} target is itself"
    assert side[target] != side[actor], f"{actor}'s default {do} target {target} is an ally"
    command = Command(do, actor, {"target": target})
    predicted = predict(server, table, command, share)
    assert not isinstance(predicted, str), f"the console offered a refused {do}: {predicted}"
    values, events = predicted
    page.locator("#dice").fill(", ".join(map(str, values)))
    with page.expect_response(lambda r: r.url.endswith("/commands")
                              and r.request.method == "POST") as sent:
        page.locator("#roll").click()
    assert sent.value.ok, sent.value.text()
    body = sent.value.request.post_data_json
    assert isinstance(body, dict)
    assert body["dice"] == values
    assert body["command"] == {"do": do, "actor": actor, "target": target}
    entry = last_entry(server, table, do)
    assert [value for _faces, value in entry["dice"]] == values
    assert [e["type"] for e in entry["events"]] == [e["type"] for e in events]
    assert entry["events"] == events, "the server decided something else than the engine"
    expect(page.locator("#result .said").first).to_be_visible()
    return do


@pytest.mark.parametrize("ruleset", ["polemos", "zones", "realms"])
def test_three_rounds_with_table_dice(browser: Browser, server: ServerThread,
                                      ruleset: str) -> None:
    table = create_demo_tables(server.service, (ruleset,))[0]
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(8000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    refused: list[str] = []  # normal play asks nothing the server refuses (no 4xx)
    page.on("response", lambda r: refused.append(
        f"{r.status} {r.request.method} {r.url} {r.request.post_data} {r.text()}")
        if r.status >= 400 else None)
    try:
        page.goto(console_link(server.url, [table]))
        expect(page.locator("#ruleset-name")).to_have_text(ruleset)
        page.locator("#start").click()
        expect(page.locator("#turn-info")).to_contain_text("Round 1")

        # a creature joins in round 1 through the Add form
        template, side = JOINS[ruleset]
        add = page.locator("#add")
        add.locator("[name=template]").select_option(template)
        add.locator("[name=id]").fill("late")
        # the side is pre-filled with the foes' side (the party was added first)
        expect(add.locator("[name=side]")).to_have_value(side)
        add.locator("button[type=submit]").click()
        expect(page.locator("#cards article.card[data-id='late']")).to_be_visible()
        # (its initiative, in the turn order's own field: issue 33)
        expect(page.locator("#tracker li[data-id='late'] .init .initin")).not_to_have_value("")

        rolled: list[str] = []
        actors_by_round: dict[int, list[str]] = {}
        turns = 0
        while round_of(page) <= 3:
            turns += 1
            assert turns < 60, "three rounds did not end"
            now = round_of(page)
            actor = page.locator("#actor").input_value()
            actors_by_round.setdefault(now, []).append(actor)
            share = (0.75, 0.35, 0.55)[turns % 3]
            done = play_turn(page, server, table, share)
            if done:
                rolled.append(done)
            if round_of(page) != now or not page.locator("#next").is_enabled():
                continue  # the fight ended or the round turned on its own
            before = page.locator("#actor").input_value()
            page.locator("#next").click()
            try:
                page.wait_for_function(
                    "([a, r]) => document.querySelector('#actor').value !== a"
                    " || !document.querySelector('#turn-info').textContent.includes('Round ' + r)",
                    arg=[before, now], timeout=20_000)  # (a full suite on two cores can be slow)
            except PlaywrightTimeoutError as err:  # say what the console showed and was told
                raise AssertionError(
                    f"Next did not move on from {before} in round {now}: turn "
                    f"{page.locator('#turn-info').inner_text()!r}, notices "
                    f"{page.locator('#toasts').inner_text()!r}, refused {refused}, "
                    f"errors {errors}") from err
        assert "late" in actors_by_round.get(2, []), (
            f"the creature added in round 1 had no turn in round 2: {actors_by_round.get(2)}")
        assert len(rolled) >= 3, f"only {rolled} rolled in three rounds"
        assert "~~" not in page.locator("#log").inner_text()
        wait_probe(page, page.locator("#actor").input_value())
        screenshot(page, f"rounds-{ruleset}-1440")
        assert not errors, errors
        assert not refused, refused
    finally:
        context.close()


@pytest.mark.parametrize(("ruleset", "flag"), [("polemos", "armor"), ("realms", "irreducible")])
def test_apply_to_many_takes_the_rulesets_options(browser: Browser, server: ServerThread,
                                                  ruleset: str, flag: str) -> None:
    """Damage to several creatures at once with the damage command's own options: armor off
    (Polemos) or irreducible (realms), and a body area in Polemos; one entry, one undo."""
    table = create_demo_tables(server.service, (ruleset,))[0]
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(8000)
    page = context.new_page()
    try:
        page.goto(console_link(server.url, [table]))
        expect(page.locator("#ruleset-name")).to_have_text(ruleset)
        ids = [e for e in ("bandit", "ogre") if ruleset == "realms"] or ["ganger", "bruiser"]
        for entity in ids:
            page.locator(f"#cards article.card[data-id='{entity}'] header "
                         "input[type=checkbox]").check()
        many = page.locator("#many")
        expect(many.locator("#many-count")).to_have_text("2 selected:")
        many.locator("[name=amount]").fill("2+2")
        box = many.locator(f"#many-opts [data-arg='{flag}']")
        expect(box).to_be_visible()
        box.set_checked(flag == "irreducible")  # armor off, or nothing reduces
        if ruleset == "polemos":
            area = many.locator("#many-opts select[data-arg='area']")
            options = area.locator("option").all_inner_texts()
            assert "random" in options and len(options) > 2, options
            area.select_option(index=1)
            chosen_area = area.input_value()
        before = len(server.service.records(table.encounter))
        many.locator("button[type=submit]").click()
        page.wait_for_function(
            "n => document.querySelectorAll('#log ol.log > li').length >= 1", arg=1)
        page.wait_for_timeout(300)
        records = server.service.records(table.encounter)
        assert len(records) == before + 1, "apply to many is one log entry"
        command = records[-1].payload["command"]
        assert command["do"] == "batch"
        sent = command["commands"]
        assert [c["target"] for c in sent] == ids
        for c in sent:
            assert c["amount"] == 4
            assert c[flag] is (flag == "irreducible")
            if ruleset == "polemos":
                assert c["area"] == chosen_area
        # one undo reverts both
        page.locator("#undo").click()
        page.wait_for_timeout(300)
        kinds = [r.kind for r in server.service.records(table.encounter)]
        assert kinds[-1] == "undo" and len(kinds) == before + 2
    finally:
        context.close()
