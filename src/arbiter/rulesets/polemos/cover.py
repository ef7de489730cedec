"""Cover in Polemos (P-COV-*): taking cover, the concealment level and its bonus to
[firearm defense] (P-COV-2, AP-17), the angle of attack (P-COV-4), body areas in cover.
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    Duration,
    EncounterState,
    Event,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command
from ...dice import DiceSource
from .actions import (
    KINDS,
    ActionRules,  # the topic below (a chain)
    kind_of,
)
from .base import PolemosBase
from .model import Creature

CONCEALMENT = {"none": 0, "quarter": 1, "half": 2, "total": 4}
"""Bonus to [firearm defense] by concealment level (P-COV-2)."""


def concealment_level(value: Any) -> str:
    """A concealment level by name, or a percentage of silhouette rounded down to the listed
    level below it (AP-17)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= 100:
            raise InvalidCommand("concealment is a percentage from 0 to 100")
        if value >= 100:
            return "total"
        if value >= 50:
            return "half"
        return "quarter" if value >= 25 else "none"
    if value not in CONCEALMENT:
        raise InvalidCommand(f"concealment must be one of {', '.join(CONCEALMENT)} or a "
                             f"percentage, not {value!r}")
    return str(value)


def concealment(state: EncounterState, target: Creature,
                command: Command | None) -> tuple[str, list[str]]:
    cond = target.condition("concealed")
    if cond is None:
        return "none", []
    level = str(cond.data.get("concealment", "none"))
    # P-COV-4: the angle of attack can lower the level
    given = command.a.angle if command is not None else None
    if given is not None:
        angle = concealment_level(given)
        if CONCEALMENT[angle] < CONCEALMENT[level]:
            level = angle
    return level, list(cond.data.get("areas", []))


def defense_concealment(rules: PolemosBase, state: EncounterState, creature: Creature | None,
                        skill: str, command: Command | None = None) -> tuple[str, int, int]:
    """P-COV-2: concealment grants its bonus to every [firearm defense] roll of the
    concealed creature: its level, and the bonus as a flat number or as bonus dice
    (ruling AP-17). Nothing for any other skill (P-COV-2) or without concealment."""
    if creature is None or skill != "firearm_defense":
        return "none", 0, 0
    level, _ = concealment(state, creature, command)
    bonus = CONCEALMENT[level]
    return (level, 0, bonus) if rules.ruling_is(state, "AP-17", "dice") else \
        (level, bonus, 0)


@mypyc_attr(allow_interpreted_subclasses=True)
class CoverRules(ActionRules):
    """Taking cover."""

    @command("Take cover: a concealment level (a bonus to [firearm defense]) until the "
             "next turn, and the body areas in cover.", who="player", when="any",
             actor="required", cost="minor",
             rules=("P-COV-1", "P-COV-2", "P-COV-3", "P-COV-5", "AP-17", "AP-18"),
             concealment=args.value("none, quarter, half, total, or a percentage of the "
                                    "silhouette (0 to 100): the cover the place gives, the "
                                    "GM's (default: none)", who="gm"),
             areas=args.items("the body areas in cover (the GM's call, P-COV-3)", who="gm"),
             kind=args.choice("the action it takes (the GM's: the ability's)", *KINDS,
                              default="minor", who="gm"))
    def do_take_cover(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """Take cover: the concealment the place gives until the creature's next turn
        (P-COV-5), and the body areas the GM rules in cover (P-COV-3)."""
        actor = self.acting(state, command)
        given = command.a.concealment
        level = concealment_level("none" if given is None else given)
        areas = [str(a) for a in command.a.areas or []]
        for area in areas:
            actor.area(area)
        data = self.use(state, actor, kind_of(command), "take cover")
        # P-COV-5: lost at the start of the next turn unless taken again
        duration = (Duration("timed", round=state.round + 1, turn_of=actor.id, at="start")
                    if state.in_combat else Duration())
        cond = Condition("concealed", CONCEALMENT[level], ("cover",), actor.id, duration,
                         {"concealment": level, "areas": areas})
        events = [Event("acted", data)]
        if actor.has("concealed"):
            events.append(Event("condition_removed", {"target": actor.id, "name": "concealed",
                                                      "why": "taken again"}))
        events.append(Event("condition_added", {"target": actor.id,
                                                "condition": cond.to_json()}))
        return events
