"""Mounts in realms (R-MNT-*): mounting, dismounting and controlling an unwilling mount.

A mount knocked prone unseats its riders through ``RealmsBase.unseat`` (R-MNT-3); the roll
to remain on an unwilling mount each turn (RLM-8) is made at the turn's start (``turns``).
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Command, Condition, EncounterState, Event, IllegalCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.model import entity_at
from ...dice import DiceSource
from . import payloads
from .base import ROLL_FIELDS
from .checks import CheckRules  # the topic below (a chain)
from .model import RealmsCreature, defense_bonus, modifier, size_order, succeeds
from .movement import square_of


def unruly(state: EncounterState, rider: RealmsCreature) -> RealmsCreature | None:
    """The mount ``rider`` rides when it is unwilling and unsaddled (R-MNT-6), else None."""
    mount = entity_at(state.entities, rider.mounted_on or "")
    if isinstance(mount, RealmsCreature) and not mount.willing and not mount.saddled:
        return mount
    return None


@mypyc_attr(allow_interpreted_subclasses=True)
class MountRules(CheckRules):
    """Mounting, dismounting and control (a topic of ``RealmsRuleset``)."""

    def mount_setup(self, state: EncounterState,
                    command: Command) -> tuple[RealmsCreature, RealmsCreature]:
        """The rider and the mount, refused unless it may be mounted (R-MNT-5)."""
        me = self.creature(state, self.actor(state, command).id)
        mount = self.creature(state, command.a.target)
        if me.mounted_on:
            raise IllegalCommand(f"{me.id} is already mounted on {me.mounted_on}")
        if not mount.mountable:
            raise IllegalCommand(f"{mount.id} cannot be mounted", rule="R-MNT-5")
        if size_order(mount) <= size_order(me):
            raise IllegalCommand(f"{mount.id} ({mount.size}) must be at least one size larger "
                                 f"than {me.id} ({me.size}) to be mounted", rule="R-MNT-5")
        self.check_arms(state, me, "mount", command)  # R-C-RES: climbing on needs the hands
        return me, mount

    @command("Mount a creature: 3 spaces of movement; an unwilling, unsaddled mount needs "
             "Animal Handling.",
             who="player", actor="required", cost="move",
             rules=("R-MNT-1", "R-MNT-5", "R-MNT-6", "R-C-RES"),
             target=args.creature("the mount", required=True),
             rm_allows=args.flag("the RM allows a Restrained creature this use of its hands",
                                 who="gm"))
    def do_mount(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """3 spaces of movement (R-MNT-1); the mount must be mountable and at least one size
        larger (R-MNT-5); an unwilling, unsaddled mount needs Animal Handling against DS 10 +
        its level (R-MNT-6)."""
        me, mount = self.mount_setup(state, command)
        economy, bought = self.buy_movement(state, me, 6, self.pay(state, me, "move", ap=0))
        data: dict[str, Any] = {"actor": me.id, "mount": mount.id, "economy": economy,
                                "move_actions": bought, "mounted": True}
        if not mount.willing and not mount.saddled:
            ds = 10 + mount.creature_level
            d20 = dice.roll(20)
            total = d20 + self.roll_bonus(me, "animal_handling")
            data.update(d20=d20, total=total, ds=ds, mounted=succeeds(state, total, ds))
        return [Event("mounted", data)]

    @event("{actor} {mounted?mounts|fails to mount} {mount}"
           "[: Animal Handling {total} (d20 {d20}) against DS {ds}].",
           actor=args.creature("the rider"), mount=args.creature("the mount"),
           move_actions=args.integer("move actions bought"), mounted=args.flag("mounted"),
           d20=args.integer("the d20"), total=args.integer("the roll's total"),
           ds=args.integer("the Difficulty Score"),
           optional=("d20", "ds", "total"))
    def apply_mounted(self, state: EncounterState, data: payloads.Mounted) -> None:
        if data["mounted"]:
            me = self.creature(state, data["actor"])
            me.mounted_on = data["mount"]
            me.position = self.creature(state, data["mount"]).position
            me.controls_mount = "ds" in data

    @command("Dismount: 3 spaces of movement.",
             who="player", actor="required", cost="move", rules=("R-MNT-1",),
             at=args.square("the square [x, y] it steps down to"))
    def do_dismount(self, state: EncounterState, command: Command,
                    dice: DiceSource) -> list[Event]:
        """3 spaces of movement (R-MNT-1), stepping down where the rider says."""
        me = self.creature(state, self.actor(state, command).id)
        if not me.mounted_on:
            raise IllegalCommand(f"{me.id} is not mounted")
        economy, bought = self.buy_movement(state, me, 6, self.pay(state, me, "move", ap=0))
        return [Event("dismounted", {"actor": me.id, "economy": economy, "move_actions": bought,
                                     "at": square_of(command.a.at)})]

    @event("{actor} dismounts[ at ({at})].",
           actor=args.creature("the rider"), move_actions=args.integer("move actions bought"),
           at=args.square("where it steps down"),
           optional=("at",))
    def apply_dismounted(self, state: EncounterState, data: payloads.Dismounted) -> None:
        me = self.creature(state, data["actor"])
        me.mounted_on = None
        me.controls_mount = False
        if data["at"] is not None:
            me.position = data["at"]

    @event("{target} {stays_mounted?stays mounted|is unseated}: {total} (d20 {d20}) against "
           "DS {ds}.",
           target=args.creature("the rider"), d20=args.integer("the d20"),
           total=args.integer("the better of Reflex and Might"),
           ds=args.integer("the Difficulty Score"), stays_mounted=args.flag("it stays on"))
    def apply_unseat_roll(self, state: EncounterState, data: payloads.UnseatRoll) -> None:
        if not data["stays_mounted"]:
            self.creature(state, data["target"]).mounted_on = None

    def ridden(self, state: EncounterState, me: RealmsCreature) -> RealmsCreature:
        """The mount ``me`` rides (refused when it rides none, R-MNT-6)."""
        if not me.mounted_on:
            raise IllegalCommand(f"{me.id} is not mounted", rule="R-MNT-6")
        return self.creature(state, me.mounted_on)

    @command("Control an unwilling, unsaddled mount this turn: Animal Handling against DS 10 "
             "+ its level (free).",
             who="player", actor="required", cost="free", rules=("R-MNT-6",))
    def do_control(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Animal Handling against DS 10 + the mount's level (R-MNT-6); the same roll keeps
        the rider on (RLM-8)."""
        me = self.creature(state, self.actor(state, command).id)
        mount = self.ridden(state, me)
        economy = self.pay(state, me, "move", ap=0)
        data = self.check_roll(state, me, "animal_handling", 10 + mount.creature_level, dice)
        # RLM-8: the roll to control is the roll to remain mounted: a failure throws it off
        data.update(actor=me.id, mount=mount.id, economy=economy,
                    thrown=not data["success"] and unruly(state, me) is not None)
        return [Event("control_rolled", data)]

    @event("{actor} {success?controls|fails to control} {mount} this turn: Animal Handling "
           "{total} (d20 {d20}) against DS {ds}{thrown?, and is thrown off|}.",
           actor=args.creature("the rider"), mount=args.creature("the mount"),
           thrown=args.flag("the rider fails to remain on an unwilling mount (R-MNT-6)"),
           shared=ROLL_FIELDS,
           optional=("thrown",))
    def apply_control_rolled(self, state: EncounterState, data: payloads.ControlRolled) -> None:
        me = self.creature(state, data["actor"])
        me.controls_mount = bool(data["success"])
        if data.get("thrown"):
            me.mounted_on = None

    def unseat(self, state: EncounterState, mount: RealmsCreature,
               dice: DiceSource) -> list[Event]:
        """R-MNT-3: a mount knocked prone unseats its riders, who fall prone unless they
        pass DS 15 Reflex or Might (the better of the two)."""
        events: list[Event] = []
        for rider in state.entities.values():
            if not isinstance(rider, RealmsCreature) or rider.mounted_on != mount.id:
                continue
            bonus = max(defense_bonus(rider, "reflex"), defense_bonus(rider, "might"))
            d20 = dice.roll(20)
            total = d20 + bonus + modifier(rider, "d20")
            kept = succeeds(state, total, 15)
            events.append(Event("unseat_roll", {"target": rider.id, "d20": d20, "total": total,
                                                "ds": 15, "stays_mounted": kept}))
            if not kept:  # unmounted by the roll's event, then knocked prone
                events += self.gain(state, rider, Condition("prone", source=mount.id), dice)
        return events
