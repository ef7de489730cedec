"""Demo tables: one campaign per ruleset, each with an encounter ready to play.

A campaign holds one ruleset, so "a demo with one encounter per ruleset" is one campaign
per ruleset. :func:`console_link` gives a single console URL that opens all of them (the
tokens ride in the URL's fragment, which browsers never send to the server).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ..core import Command
from ..store import GameService

# Each ruleset's table: (id, stat block) in the order added; the first is the player's.
TABLES: dict[str, tuple[str, list[tuple[str, dict[str, Any]]]]] = {
    "polemos": ("Raid on the depot", [
        ("vera", {"name": "Vera (soldier)", "template": "soldier", "side": "heroes"}),
        ("doc", {"name": "Doc (medic)", "template": "medic", "side": "heroes"}),
        ("ganger", {"name": "Ganger", "template": "ganger", "side": "gang"}),
        ("bruiser", {"name": "Bruiser", "template": "bruiser", "side": "gang"}),
        ("dog", {"name": "Guard dog", "template": "guard_dog", "side": "gang", "hidden": True}),
    ]),
    "zones": ("Firefight in the ruins", [
        ("rook", {"name": "Rook (soldier)", "template": "soldier", "side": "heroes"}),
        ("ash", {"name": "Ash (sniper)", "template": "sniper", "side": "heroes"}),
        ("bandit", {"name": "Bandit", "template": "bandit", "side": "raiders"}),
        ("ogre", {"name": "Ogre", "template": "ogre", "side": "raiders"}),
        ("wolf", {"name": "Wolf", "template": "wolf", "side": "raiders", "hidden": True}),
    ]),
    "realms": ("Ambush at the ford", [
        ("nia", {"name": "Nia (knight)", "template": "knight", "side": "heroes"}),
        ("hound", {"name": "Nia's hound", "template": "hound", "side": "heroes"}),
        ("bandit", {"name": "Bandit", "template": "bandit", "side": "brigands"}),
        ("ogre", {"name": "Ogre", "template": "ogre", "side": "brigands"}),
        ("imp", {"name": "Fire imp", "template": "fire_imp", "side": "brigands",
                 "hidden": True}),
    ]),
}


@dataclass(frozen=True, slots=True)
class DemoTable:
    ruleset: str
    campaign: str
    encounter: str
    gm_token: str
    player_token: str
    player_character: str


def create_demo_tables(service: GameService,
                       rulesets: tuple[str, ...] = ("polemos", "zones", "realms"),
                       ) -> list[DemoTable]:
    """A campaign per ruleset, each with one encounter of heroes, foes and a hidden foe, and
    a player token for the first hero."""
    out = []
    for ruleset in rulesets:
        title, actors = TABLES[ruleset]
        campaign, gm_token = service.create_campaign(f"Demo: {ruleset}", ruleset)
        encounter = service.create_encounter(campaign.id, title)
        for actor_id, spec in actors:
            service.submit(encounter.id, Command("add", args={"id": actor_id, **spec}))
        hero = actors[0][0]
        player = service.issue_token(campaign.id, "player", "Player", [hero])
        out.append(DemoTable(ruleset, campaign.id, encounter.id, gm_token, player, hero))
    return out


def console_link(base: str, tables: list[DemoTable]) -> str:
    """The GM console opened on every table: ``BASE/#campaigns=ID:TOKEN,ID:TOKEN``.

    >>> t = DemoTable("zones", "c-1", "e-1", "gm", "pl", "rook")
    >>> console_link("http://127.0.0.1:8000", [t])
    'http://127.0.0.1:8000/#campaigns=c-1:gm'
    """
    pairs = ",".join(f"{quote(t.campaign)}:{quote(t.gm_token)}" for t in tables)
    return f"{base}/#campaigns={pairs}"


def player_link(base: str, table: DemoTable) -> str:
    """The player view of a table: ``BASE/play/#campaign=ID&token=TOKEN``."""
    return f"{base}/play/#campaign={quote(table.campaign)}&token={quote(table.player_token)}"


__all__ = ["DemoTable", "console_link", "create_demo_tables", "player_link"]
