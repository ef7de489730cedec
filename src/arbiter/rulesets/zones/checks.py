"""Plain roll-under rolls on a stat in zones (Z-MI-3, AZ-1..3): the ``roll`` command; the roll
model itself is :mod:`.rolls`."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ...core import Command, EncounterState, Event
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from . import payloads
from .model import STATS
from .rolls import HINDRANCE_LIMIT, roll_check
from .turns import Turns  # the topic below (a chain)


@mypyc_attr(allow_interpreted_subclasses=True)
class Checks(Turns):
    """The ``roll`` command."""

    @command("A roll-under roll on a stat (DEX, STR, SPD...); a roll on SPD not "
             "voluntarily failed ends cover.", who="player", when="any", actor="required",
             rules=("Z-MI-3", "Z-COV-10", "AZ-1", "AZ-2", "AZ-3"),
             stat=args.choice("the stat rolled on", *STATS, required=True),
             expr=args.dice("the dice rolled, when the rule calling for the roll says other "
                            "than a d20 (the GM's)", default="1d20", who="gm"),
             hindrance=args.integer("Hindrance added to the roll (the GM's situational "
                                    "number)", lo=-HINDRANCE_LIMIT, hi=HINDRANCE_LIMIT,
                                    default=0, who="gm"),
             melee_interference=args.flag("the roll is subject to melee interference "
                                          "(Z-MI-3: the rule calling for it says so; the "
                                          "GM's)", who="gm"),
             voluntary_fail=args.flag("the roller chooses to fail (a roll on SPD then keeps "
                                      "cover)"))
    def do_roll(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A roll-under roll on a stat, with melee interference when the roll is subject
        to it (Z-MI-3); a roll on SPD not voluntarily failed ends cover (Z-COV-10)."""
        a = command.a
        actor = self.creature(state, self.actor(state, command).id)
        on: str = a.stat
        expr: str = a.expr
        hindrance = {"hindrance": a.hindrance}
        if a.melee_interference:
            hindrance.update(self.interference(state, actor))
        fail: bool = a.voluntary_fail
        check = roll_check(expr, on, actor.stat(on), hindrance, dice, state.rulings, fail)
        events = [Event("rolled", {"actor": actor.id, "roll": check,
                                   "success": check["success"]})]
        if on == "SPD" and not fail and actor.has("cover"):
            events.append(Event("cover_left", {"target": actor.id, "why": "rolled on SPD"}))
        return events

    @event("{actor} rolls on {roll.on}: {roll.text}.",
           actor=args.creature("who rolls"),
           roll=args.mapping("the roll: dice, rolled, natural, Hindrance, total, stat, text"),
           success=args.flag("the roll succeeds"))
    def apply_rolled(self, state: EncounterState, data: payloads.Rolled) -> None:
        return None
