"""The demo encounter that ``arbiter demo`` (and ``make run``) plays in the terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from .core import Command, Encounter, load_ruleset
from .dice import SeededDice
from .rulesets.demo.rules import DemoCreature

DEMO_ACTORS: dict[str, dict[str, Any]] = {
    "nia": {"name": "Nia the ranger", "side": "heroes", "health": 24, "attack": 6,
            "defense": 15, "damage": "1d8+3", "armor": 1, "stats": {"initiative": 3}},
    "bram": {"name": "Bram the guard", "side": "heroes", "health": 30, "attack": 4,
             "defense": 17, "damage": "1d10+2", "armor": 2, "stats": {"initiative": 0}},
    "wolf": {"name": "Dire wolf", "side": "beasts", "health": 26, "attack": 5, "defense": 13,
             "damage": "2d6+2", "stats": {"initiative": 2}},
    "cub": {"name": "Wolf cub", "side": "beasts", "health": 12, "attack": 3, "defense": 12,
            "damage": "1d6+1", "stats": {"initiative": 2}},
}


def _creatures(encounter: Encounter) -> list[DemoCreature]:
    return [e for e in encounter.state.entities.values() if isinstance(e, DemoCreature)]


def ruleset_creature(encounter: Encounter, who: str) -> DemoCreature:
    entity = encounter.state.entity(who)
    assert isinstance(entity, DemoCreature)
    return entity


def play_demo(console: Console, seed: int = 7, max_rounds: int = 10) -> Encounter:
    """Each creature attacks the most wounded standing enemy until one side falls."""
    ruleset = load_ruleset("demo")
    dice = SeededDice(seed)
    encounter = Encounter.create(ruleset)
    for actor_id, spec in DEMO_ACTORS.items():
        encounter.execute({"do": "add", "id": actor_id, **spec}, dice)
    entry = encounter.execute({"do": "start"}, dice)
    order = ", ".join(f"{who} ({encounter.state.initiative[who]})"
                      for who in encounter.state.order)
    console.print(f"[bold]Demo encounter[/bold] ({ruleset.title}), seed {seed}")
    console.print(f"Initiative: {order}", markup=False)
    while encounter.state.round <= max_rounds:
        who = encounter.state.current
        assert who is not None
        actor = ruleset_creature(encounter, who)
        enemies = [e for e in _creatures(encounter) if e.side != actor.side and e.health > 0]
        if actor.health > 0 and enemies:
            target = min(enemies, key=lambda e: (e.health, e.id))
            odds = ruleset.odds(encounter.state, Command("attack", who, {"target": target.id}))
            entry = encounter.execute({"do": "attack", "actor": who, "target": target.id}, dice)
            data = entry.events[0].data
            line = (f"R{encounter.state.round} {who} → {target.id} "
                    f"(hit {float(odds['hit']) * 100:.0f}%): {data['attack']['text']}")
            if data["hit"]:
                line += (f", {'CRITICAL ' if data['critical'] else ''}hit: "
                         f"{data['pipeline']['text']}; {target.id} at {data['health']}")
            else:
                line += ", miss"
            console.print(line, markup=False)
        sides = {e.side for e in _creatures(encounter) if e.health > 0}
        if len(sides) <= 1:
            break
        encounter.execute({"do": "next"}, dice)
    table = Table(title=f"after round {encounter.state.round}")
    for col in ("creature", "side", "health"):
        table.add_column(col)
    for e in _creatures(encounter):
        table.add_row(e.name, str(e.side), f"{e.health}/{e.health_max}")
    console.print(table)
    winners = {e.side for e in _creatures(encounter) if e.health > 0}
    console.print(f"Standing: {', '.join(sorted(map(str, winners))) or 'nobody'}; "
                  f"{len(encounter.log)} commands in the log.", markup=False)
    return encounter
