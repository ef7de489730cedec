"""Demo tables: one campaign per ruleset, each with an encounter ready to play.

A campaign holds one ruleset, so "a demo with one encounter per ruleset" is one campaign
per ruleset. :func:`console_link` gives a single console URL that opens all of them (the
tokens ride in the URL's fragment, which browsers never send to the server).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ..core import Command, InvalidCommand, available, load_ruleset
from ..scenes import demo_regions, demo_scene
from ..store import GameService


def demo_rulesets() -> tuple[str, ...]:
    """The installed rulesets that ship a demo encounter, in the order of their seeds."""
    found = [load_ruleset(name) for name in available()]
    return tuple(r.name for r in sorted(found, key=lambda r: (r.seed, r.name)) if r.demo)


def table_of(ruleset: str) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """A ruleset's demo table: its title and each actor's (id, stat block), the first being
    the player's (the ruleset's ``demo.yaml``)."""
    demo = load_ruleset(ruleset).demo
    if demo is None:
        raise InvalidCommand(f"the {ruleset} ruleset ships no demo encounter (demo.yaml)")
    return demo


@dataclass(frozen=True, slots=True)
class DemoTable:
    ruleset: str
    campaign: str
    encounter: str
    gm_token: str
    player_token: str
    player_character: str


def create_demo_tables(service: GameService,
                       rulesets: tuple[str, ...] | None = None) -> list[DemoTable]:
    """A campaign per ruleset, each with one encounter of heroes, foes and a hidden foe, and
    a player token for the first hero."""
    out = []
    for ruleset in demo_rulesets() if rulesets is None else rulesets:
        title, actors = table_of(ruleset)
        campaign, gm_token = service.create_campaign(f"Demo: {ruleset}", ruleset)
        encounter = service.create_encounter(campaign.id, title)
        for actor_id, spec in actors:
            service.submit(encounter.id, Command("add", args={"id": actor_id, **spec}))
        rules = load_ruleset(ruleset)
        picture = demo_scene(rules)
        if picture is not None:  # a background drawn for it, its grid on the image's corner
            service.put_scene_image(encounter.id, picture)
            regions = demo_regions(rules)
            if regions:  # its zones drawn where the picture shows them
                service.submit(encounter.id, Command("batch", args={"commands": [
                    {"do": "region", "zone": zone, "x": x, "y": y, "width": w, "height": h}
                    for zone, (x, y, w, h) in sorted(regions.items())]}))
        hero = actors[0][0]
        player = service.issue_token(campaign.id, "player", "Player", [hero])
        out.append(DemoTable(ruleset, campaign.id, encounter.id, gm_token, player, hero))
    return out


def console_link(base: str, tables: list[DemoTable]) -> str:
    """The GM console opened on every table: ``BASE/#campaigns=ID:TOKEN,ID:TOKEN``.

    >>> t = DemoTable("demo", "c-1", "e-1", "gm", "pl", "nia")
    >>> console_link("http://127.0.0.1:8000", [t])
    'http://127.0.0.1:8000/#campaigns=c-1:gm'
    """
    pairs = ",".join(f"{quote(t.campaign)}:{quote(t.gm_token)}" for t in tables)
    return f"{base}/#campaigns={pairs}"


def player_link(base: str, table: DemoTable) -> str:
    """The player view of a table: ``BASE/play/#campaign=ID&token=TOKEN``."""
    return f"{base}/play/#campaign={quote(table.campaign)}&token={quote(table.player_token)}"


__all__ = ["DemoTable", "console_link", "create_demo_tables", "demo_rulesets", "player_link",
           "table_of"]
