"""Cover in zones (Z-COV-*): taking and leaving it, and the armor bonus a defender gets from
cover or a shield against a ranged attack (one of the two, Z-COV-12)."""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Command, Condition, EncounterState, Event, IllegalCommand, InvalidCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from . import payloads
from .base import ZonesBase, cover_data, cover_refusal
from .model import Creature, band_distance, cover_chart, engaged, group_defenders, group_mates


@mypyc_attr(allow_interpreted_subclasses=True)
class Cover(ZonesBase):
    """Taking and leaving cover."""

    @command("Begin using cover (a slowing minor action): an environment of the cover chart, "
             "or the GM's armor bonus.", who="player", actor="required", cost="minor/slowing",
             rules=("Z-COV-1", "Z-COV-2", "Z-COV-5", "Z-COV-6", "Z-COV-11", "Z-COV-14",
                    "AZ-10", "ZR-7"),
             environment=args.choice("the environment on the cover chart (cover.toml)",
                                     *cover_chart()),
             bonus=args.integer("the cover's armor bonus, when the GM sets it (Z-COV-6; "
                                "at most improved cover's, Z-COV-14)", lo=0,
                                hi=max(cover_chart().values()), who="gm"),
             improved=args.flag("improved cover: armor bonus 100 (Z-COV-14)"),
             roofed=args.flag("roofed improved cover (a bunker): it works against flyers "
                              "(Z-COV-16)"))
    def do_cover(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Begin using cover (a slowing minor action): the armor bonus of the environment's
        line of the chart (ruling AZ-10), or the GM's; not while grappling, flying or
        mounted, and at 25 WGT or more only improved cover."""
        a = command.a
        actor = self.acting(state, command)
        improved: bool = a.improved
        if actor.has("cover"):
            raise IllegalCommand(f"{actor.id} is already using cover")
        refusal = cover_refusal(actor, improved)
        if refusal is not None:
            raise refusal
        spec: dict[str, Any] = {"improved": improved, "roofed": a.roofed}
        if a.environment is not None:
            spec["environment"] = a.environment
        if a.bonus is not None:
            spec["bonus"] = a.bonus
        if self.ruling_is(state, "AZ-10", "gm-only") and "bonus" not in spec and not improved:
            raise InvalidCommand("cover: ruling AZ-10 is gm-only: give the armor 'bonus'")
        data = cover_data(spec, actor.id)
        return [Event("cover_taken", {"actor": actor.id, "cover": data,
                                      **self.use(state, actor.id, "minor/slowing")})]

    @event("{actor} takes {cover.environment} cover, armor bonus {cover.bonus}"
           "[{cover.improved?, improved|}][{cover.roofed?, roofed|}].",
           actor=args.creature("who takes cover"),
           cover=args.mapping("environment, bonus, improved, roofed"))
    def apply_cover_taken(self, state: EncounterState, data: payloads.CoverTaken) -> None:
        who = self.creature(state, data["actor"])
        who.conditions = [c for c in who.conditions if c.name != "cover"]
        who.conditions.append(Condition("cover", data=dict(data["cover"])))

    @command("Stop using cover (a free action).", who="player", actor="required",
             cost="free", rules=("Z-COV-10",))
    def do_leave_cover(self, state: EncounterState, command: Command,
                       dice: DiceSource) -> list[Event]:
        """Stop using cover (a free action)."""
        actor = self.creature(state, self.actor(state, command).id)
        if not actor.has("cover"):
            raise IllegalCommand(f"{actor.id} is not using cover")
        return [Event("cover_left", {"target": actor.id, "why": "left as a free action"})]

    @event("{target} is no longer in cover[ ({why})].",
           target=args.creature("who leaves cover"), why=args.text("why"))
    def apply_cover_left(self, state: EncounterState, data: payloads.CoverLeft) -> None:
        who = self.creature(state, data["target"])
        who.conditions = [c for c in who.conditions if c.name != "cover"]


def cover_bonus(rules: ZonesBase, state: EncounterState, command: Command, attacker: Creature,
                target: Creature, range_band: str, critical: bool,
                aoe: bool = False) -> tuple[int, str, str | None]:
    """The armor bonus the defender uses against a ranged attack: cover or shield, one of
    the two (Z-COV-12), and why cover does not count when it does not."""
    cover = target.cover()
    a = command.a
    use = a.defend_with  # the defender's choice (the GM's), else cover when in cover
    if use == "shield" or cover is None:
        if aoe:
            return 0, "", "shields do nothing against AoEs (Z-AOE-13)"
        return (target.shield, "shield", None) if target.shield else (0, "", None)
    if not a.cover_applies:
        return 0, "", "the GM rules the cover does not protect here (Z-COV-15)"
    if critical and a.ignore_cover:
        return 0, "", "a critical hit shoots an unprotected area (Z-COV-7)"
    if engaged(attacker, target):
        if not a.group_defense:
            return 0, "", "the attacker is engaged with the defender (Z-COV-8)"
        if not group_defenders(state, target):  # nobody out of cover defends it (Z-COV-9)
            return 0, "", (f"nobody defends {target.id} by group defense: " + (
                "a group-mate in cover does not count (Z-COV-9)"
                if group_mates(state, target) else "it has no group-mate (Z-COV-8)"))
    if attacker.flying and not aoe and not (cover.get("improved") and cover.get("roofed")) \
            and not a.tall_cover:
        height = attacker.altitude - target.altitude
        horizontal = band_distance(range_band)
        strict = rules.ruling_is(state, "AZ-21", "strictly-higher")
        if height > horizontal or (height == horizontal and not strict):
            return 0, "", (f"a flyer {height} above at horizontal range {horizontal}: "
                           "cover does not work (Z-COV-16)")
    return int(cover["bonus"]), "cover", None
