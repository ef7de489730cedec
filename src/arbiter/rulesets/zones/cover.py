"""Cover in zones (Z-COV-*): taking and leaving it, and the armor bonus a defender gets from
cover or a shield against a ranged attack (one of the two, Z-COV-12)."""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Command, Condition, EncounterState, Event, IllegalCommand, InvalidCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from .base import ZonesBase, choice, cover_data, cover_refusal, flag
from .model import Creature, band_distance, engaged, group_defenders, group_mates


@mypyc_attr(native_class=False)
class Cover(ZonesBase):
    """Taking and leaving cover."""

    @command("Begin using cover (a slowing minor action): an environment of the cover chart, "
             "or the GM's armor bonus.", who="player", actor="required", cost="minor/slowing",
             rules=("Z-COV-1", "Z-COV-2", "Z-COV-5", "Z-COV-6", "Z-COV-11", "Z-COV-14",
                    "AZ-10", "ZR-7"),
             environment=args.text("the environment on the cover chart (open, light, "
                                   "moderate, heavy, improved)", max_len=64),
             bonus=args.integer("the cover's armor bonus, when the GM sets it (Z-COV-6)",
                                lo=0, hi=9999),
             improved=args.flag("improved cover: armor bonus 100 (Z-COV-14)"),
             roofed=args.flag("roofed improved cover (a bunker): it works against flyers "
                              "(Z-COV-16)"))
    def do_cover(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Begin using cover (a slowing minor action): actor, environment or bonus.

        Also [improved] (bonus 100) and [roofed].
        """
        actor = self.acting(state, command)
        improved = flag(command, "improved")
        if actor.has("cover"):
            raise IllegalCommand(f"{actor.id} is already using cover")
        refusal = cover_refusal(actor, improved)
        if refusal is not None:
            raise refusal
        spec: dict[str, Any] = {"improved": improved, "roofed": flag(command, "roofed")}
        if "environment" in command.args:
            spec["environment"] = self.arg(command, "environment", str)
        if "bonus" in command.args:
            spec["bonus"] = self.arg(command, "bonus", int)
        if self.ruling_is(state, "AZ-10", "gm-only") and "bonus" not in spec and not improved:
            raise InvalidCommand("cover: ruling AZ-10 is gm-only: give the armor 'bonus'")
        data = cover_data(spec, actor.id)
        return [Event("cover_taken", {"actor": actor.id, "cover": data,
                                      **self.use(state, actor.id, "minor/slowing")})]

    @event("{actor} takes {cover.environment} cover, armor bonus {cover.bonus}"
           "[{cover.improved?, improved|}][{cover.roofed?, roofed|}].",
           actor=args.creature("who takes cover"),
           cover=args.mapping("environment, bonus, improved, roofed"))
    def apply_cover_taken(self, state: EncounterState, data: dict[str, Any]) -> None:
        who = self.creature(state, data["actor"])
        who.conditions = [c for c in who.conditions if c.name != "cover"]
        who.conditions.append(Condition("cover", data=dict(data["cover"])))

    @command("Stop using cover (a free action).", who="player", actor="required",
             cost="free", rules=("Z-COV-10",))
    def do_leave_cover(self, state: EncounterState, command: Command,
                       dice: DiceSource) -> list[Event]:
        """Stop using cover (a free action): actor."""
        actor = self.creature(state, self.actor(state, command).id)
        if not actor.has("cover"):
            raise IllegalCommand(f"{actor.id} is not using cover")
        return [Event("cover_left", {"target": actor.id, "why": "left as a free action"})]

    @event("{target} is no longer in cover[ ({why})].",
           target=args.creature("who leaves cover"), why=args.text("why"))
    def apply_cover_left(self, state: EncounterState, data: dict[str, Any]) -> None:
        who = self.creature(state, data["target"])
        who.conditions = [c for c in who.conditions if c.name != "cover"]


def cover_bonus(rules: ZonesBase, state: EncounterState, command: Command, attacker: Creature,
                target: Creature, range_band: str, critical: bool,
                aoe: bool = False) -> tuple[int, str, str | None]:
    """The armor bonus the defender uses against a ranged attack: cover or shield, one of
    the two (Z-COV-12), and why cover does not count when it does not."""
    cover = target.cover()
    use = choice(command, "defend_with", ("cover", "shield"),
                 "cover" if cover else "shield")
    if use == "shield" or cover is None:
        if aoe:
            return 0, "", "shields do nothing against AoEs (Z-AOE-13)"
        return (target.shield, "shield", None) if target.shield else (0, "", None)
    if not flag(command, "cover_applies", True):
        return 0, "", "the GM rules the cover does not protect here (Z-COV-15)"
    if critical and flag(command, "ignore_cover", True):
        return 0, "", "a critical hit shoots an unprotected area (Z-COV-7)"
    if engaged(attacker, target):
        if not flag(command, "group_defense"):
            return 0, "", "the attacker is engaged with the defender (Z-COV-8)"
        if not group_defenders(state, target):  # nobody out of cover defends it (Z-COV-9)
            return 0, "", (f"nobody defends {target.id} by group defense: " + (
                "a group-mate in cover does not count (Z-COV-9)"
                if group_mates(state, target) else "it has no group-mate (Z-COV-8)"))
    if attacker.flying and not aoe and not (cover.get("improved") and cover.get("roofed")) \
            and not flag(command, "tall_cover"):
        height = attacker.altitude - target.altitude
        horizontal = band_distance(range_band)
        strict = rules.ruling_is(state, "AZ-21", "strictly-higher")
        if height > horizontal or (height == horizontal and not strict):
            return 0, "", (f"a flyer {height} above at horizontal range {horizontal}: "
                           "cover does not work (Z-COV-16)")
    return int(cover["bonus"]), "cover", None
