"""Damage and healing in realms: the ``damage`` command through the pipeline
(``pipeline.py``: armor, reductions, Resistance...; ``RealmsBase.hurt``), death, healing
(R-HEAL-*, R-OVH-*, R-C-BLE), stabilizing (R-STB-1) and a full recovery (R-C-EXH, R-OVH-2)."""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    Deferred,
    EncounterState,
    Event,
    IllegalCommand,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from . import payloads
from .attacks import AttackRules  # the topic below (a chain)
from .base import dies
from .conditions import set_level
from .model import BASE_DS, MAX_DS, RealmsCreature, succeeds
from .pipeline import resolve

STABILIZE_METHODS = ("medicine", "bandage", "potion", "feat", "power")
"""How a Dying creature is stabilized (R-STB-1: "a Medicine roll, bandages, potions, feats, or
Healing Powers"); only Medicine is a roll."""


@mypyc_attr(allow_interpreted_subclasses=True)
class DamageRules(AttackRules):
    """Damage, death and healing (a topic of ``RealmsRuleset``)."""

    @event("{target} {unsummoned?is unsummoned|dies}[ ({why})].",
           player="{target} {unsummoned?is unsummoned|dies}.",
           target=args.creature("who"), unsummoned=args.flag("a summoned companion"),
           why=args.text("why"))
    def apply_died(self, state: EncounterState, data: payloads.Died) -> None:
        me = self.creature(state, data["target"])
        me.dead = True
        me.unsummoned = bool(data["unsummoned"])

    @event("{target} takes {taken} damage[ ({pipeline.text})][, down to {health} Health]"
           "{destabilize?, and is no longer stabilized|}.",
           target=args.creature("who"), cause=args.text("damage, fall or energy below 0"),
           taken=args.integer("damage taken"), health=args.integer("Health after"),
           pipeline=args.mapping("the pipeline's steps"),
           armor_uses=args.integer("the armor's reductions this turn"),
           dr_uses=args.mapping("each reduction effect's uses this turn"),
           over_time=args.text("the damage over time it belongs to"),
           destabilize=args.flag("a stabilized creature's dying damage starts again"),
           optional=("destabilize", "over_time"))
    def apply_damaged(self, state: EncounterState, data: payloads.Damaged) -> None:
        me = self.creature(state, data["target"])
        me.health = data["health"]
        me.armor_uses = data["armor_uses"]
        me.dr_uses = dict(data["dr_uses"])
        over_time = data.get("over_time")
        if over_time and over_time not in me.over_time_seen:
            me.over_time_seen = [*me.over_time_seen, over_time]
        if data.get("destabilize"):
            me.stabilized, me.dying_turns = False, 0

    @command("Deal damage through the damage pipeline (armor, reductions, Resistance...).",
             rules=("R-ARM-1", "R-ARM-2", "R-ARM-3", "R-ARM-4", "R-ARM-5", "R-DR-1", "R-RES-1",
                    "R-RES-2", "R-VUL-1", "R-RV-1", "R-IMM-1", "R-C-RSL", "R-C-SUS", "R-DY-1",
                    "R-DY-2", "R-STB-2", "R-DTH-1", "R-CMP-10", "R-OVH-2"),
             target=args.creature("who takes the damage", required=True),
             amount=args.integer("the damage (unless components are given)", lo=0, hi=9999),
             type=args.text("its damage type (none: typeless)", max_len=64),
             components=args.items("several components: [[amount, type], ...]"),
             over_time=args.text("the name of a damage over time (armor reduces only its first "
                                 "hit)", max_len=64),
             irreducible=args.flag("nothing reduces it"))
    def do_damage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Damage through the target's pipeline, one component or several."""
        target = self.creature(state, command.a.target)
        if command.a.components is not None:
            try:
                components = [(int(a), str(t)) for a, t in command.a.components]
            except (TypeError, ValueError):
                raise InvalidCommand("damage: components are [[amount, type], ...]") from None
        else:
            if command.a.amount is None:
                raise InvalidCommand("damage: give 'amount' (or 'components')")
            components = [(command.a.amount, command.a.type or "")]
        if any(a < 0 for a, _ in components):
            raise InvalidCommand("damage: amounts must not be negative")
        if target.dead:
            raise IllegalCommand(f"{target.id} is already dead")
        return self.hurt(state, target.id, components, dice,
                         over_time=command.a.over_time, irreducible=command.a.irreducible)

    @command("Heal a creature (Bleed first; any healing stabilizes the Dying).",
             rules=("R-HEAL-1", "R-HEAL-2", "R-OVH-1", "R-OVH-3", "R-STB-1", "R-DY-5", "R-C-BLE"),
             target=args.creature("who is healed", required=True),
             amount=args.integer("Health restored", lo=0, hi=9999, required=True),
             healer=args.creature("who heals (with power: their Power Bonus is added)"),
             power=args.flag("healing from a Power: adds the healer's Power Bonus"),
             overheal=args.flag("Overheal: above the maximum, stacking"))
    def do_heal(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Healing: Bleed takes its share first (R-C-BLE), the rest restores Health up to the
        maximum, or above it as Overheal; any healing stabilizes the Dying (R-STB-1)."""
        target = self.creature(state, command.a.target)
        amount: int = command.a.amount
        if target.dead:
            raise IllegalCommand(f"{target.id} is dead; healing cannot help", rule="R-DTH-1")
        overheal = command.a.overheal
        total = amount
        if command.a.power:
            if command.a.healer is None:
                raise InvalidCommand("heal: a Power's healing names its 'healer'")
            healer = self.creature(state, command.a.healer)
            if not overheal or self.ruling_is(state, "AR-33", "applies"):
                total += healer.power_bonus  # R-HEAL-2, AR-33
        bleed = target.level("bleed")
        cut = min(bleed, total)  # AR-25
        restored = total - cut
        if bleed and self.ruling_is(state, "AR-25", "literal"):
            restored = 0
        start = target.health
        if start < 0 and self.ruling_is(state, "AR-7", "from-zero"):
            start = 0
        if overheal:
            health = start + restored  # R-OVH-1, R-OVH-3
        else:
            health = max(target.health, min(start + restored, target.health_max))  # R-HEAL-1
        stabilizes = target.dying and total > 0  # R-STB-1: any healing
        data = {"target": target.id, "amount": total, "healed": health - target.health,
                "health": health, "bleed": bleed - cut, "stabilized": stabilizes}
        events = [Event("healed", data)]
        if target.dying and health > 0:  # R-DY-5
            events.append(Event("condition_removed", {"target": target.id, "name": "dying",
                                                      "why": "healed above 0"}))
        return events

    @event("{target} is healed for {amount} and regains {healed} Health[, now {health}]; "
           "Bleed {bleed}{stabilized?; stabilized|}.",
           target=args.creature("who"), amount=args.integer("the healing, Power Bonus included"),
           healed=args.integer("Health regained"), health=args.integer("Health after"),
           bleed=args.integer("the Bleed level left"),
           stabilized=args.flag("a Dying creature is stabilized"))
    def apply_healed(self, state: EncounterState, data: payloads.Healed) -> None:
        me = self.creature(state, data["target"])
        me.health = data["health"]
        set_level(me, "bleed", data["bleed"])
        if data["stabilized"]:
            me.stabilized, me.dying_turns = True, 0

    def stabilize_setup(self, state: EncounterState,
                        command: Command) -> tuple[RealmsCreature, RealmsCreature, str]:
        """The actor, the target (refused unless Dying, R-STB-1) and the method."""
        actor = self.creature(state, self.actor(state, command).id)
        target = self.creature(state, command.a.target)
        if not target.dying:
            raise IllegalCommand(f"{target.id} is not Dying", rule="R-STB-1")
        self.check_arms(state, actor, "stabilize", command)  # R-C-RES: by hand
        return actor, target, command.a.method

    @command("Stabilize a Dying creature below 0 Health: a Medicine roll, or a bandage, potion, "
             "feat or power (2 AP).",
             who="player", actor="required", cost="stabilize", rules=("R-STB-1", "R-C-RES"),
             target=args.creature("the Dying creature", refers="ally", required=True),
             method=args.choice("a Medicine roll, or a bandage, potion, feat or power",
                                *STABILIZE_METHODS, default="medicine"),
             ds=args.integer("the Medicine roll's Difficulty Score (default: the seed's base "
                             "DS, 10)", lo=0, hi=MAX_DS, default=BASE_DS, who="gm"),
             rm_allows=args.flag("the RM allows a Restrained creature this use of its hands",
                                 who="gm"))
    def do_stabilize(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        """Stabilize a creature below 0 Health (R-STB-1): a Medicine roll against the DS, or
        a bandage, potion, feat or power that simply works; it needs the hands (R-C-RES)."""
        actor, target, method = self.stabilize_setup(state, command)
        economy = self.pay(state, actor, "stabilize")
        data: dict[str, Any] = {"actor": actor.id, "target": target.id, "method": method,
                                "economy": economy}
        if method == "medicine":
            ds: int = command.a.ds
            d20 = dice.roll(20)
            total = d20 + self.roll_bonus(actor, "medicine")
            data.update(d20=d20, total=total, ds=ds, stabilized=succeeds(state, total, ds))
        else:
            data["stabilized"] = True
        return [Event("stabilized", data)]

    @event("{actor} {stabilized?stabilizes|fails to stabilize} {target} ({method})"
           "[: Medicine {total} (d20 {d20}) against DS {ds}].",
           actor=args.creature("who"), target=args.creature("the Dying creature"),
           method=args.text("medicine, bandage, potion, feat or power"),
           d20=args.integer("the d20"), total=args.integer("the roll's total"),
           ds=args.integer("the Difficulty Score"), stabilized=args.flag("it worked"),
           optional=("d20", "ds", "total"))
    def apply_stabilized(self, state: EncounterState, data: payloads.Stabilized) -> None:
        if data["stabilized"]:
            me = self.creature(state, data["target"])
            me.stabilized, me.dying_turns = True, 0

    @command("A full recovery: Exhaustion drops 1, overheal ends.",
             rules=("R-C-EXH", "R-OVH-2"),
             target=args.creature("who recovers", required=True))
    def do_recover(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """A full recovery: Exhaustion drops 1 (R-C-EXH), overheal ends (R-OVH-2)."""
        target = self.creature(state, command.a.target)
        return [Event("recovered", {"target": target.id,
                                    "health": min(target.health, target.health_max),
                                    "exhausted": max(target.level("exhausted") - 1, 0)})]

    @event("{target} completes a full recovery[: Health {health}], Exhausted {exhausted}.",
           target=args.creature("who"), health=args.integer("Health after (no overheal)"),
           exhausted=args.integer("the Exhausted level left"))
    def apply_recovered(self, state: EncounterState, data: payloads.Recovered) -> None:
        me = self.creature(state, data["target"])
        me.health = data["health"]
        set_level(me, "exhausted", data["exhausted"])

    def consequences(self, state: EncounterState, who: str, health: int,
                     dice: DiceSource) -> list[Event]:
        """Dying and prone (R-DY-1, R-DY-2), death (R-DTH-1, R-CMP-10), and a side winning,
        when ``who``'s Health becomes ``health``. ``state`` is the state before that change
        (only Health is read as new, so no lookahead is needed: this follows every hit)."""
        if health > 0:  # nothing follows Health above 0: this runs after every hit
            return []
        me = self.creature(state, who)
        events: list[Event] = []
        if me.dead or me.unsummoned:
            return events
        if dies(me, health):
            events.append(Event("died", {
                "target": who, "unsummoned": me.summoned if me.companion else False,
                "why": "a companion dies at 0 Health or less" if me.companion
                else f"Health {health} reached -{me.health_max}"}))
        elif health <= 0 and not me.dying:  # Dying, 1 AP and prone, through the one path
            events += self.gain(state, me, Condition("dying", source=who), dice)
        if events:  # each of them leaves ``who`` down (dead or Dying)
            events += self.winner(state, down=who)
        return events

    def hurt(self, state: EncounterState, who: str, components: list[tuple[int, str]],
             dice: DiceSource, *,
             shield_roll: int = 0, fall: bool = False, over_time: str | None = None,
             irreducible: bool = False, cause: str = "damage") -> list[Event]:
        """A ``damaged`` event through the pipeline, and what follows from it."""
        target = self.creature(state, who)
        later = over_time is not None and over_time in target.over_time_seen
        result = resolve(target, components, state.rulings, fall=fall, shield_roll=shield_roll,
                         over_time_later=later, irreducible=irreducible)
        health = target.health - result.taken
        data = {"target": who, "cause": cause, "taken": result.taken, "health": health,
                "pipeline": Deferred(result.to_json), "armor_uses": result.armor_uses,
                "dr_uses": result.dr_uses, "over_time": over_time,
                # R-STB-2: damage below 0 after stabilizing restarts dying damage at 1d4
                "destabilize": target.stabilized and result.taken > 0 and health < 0}
        return [Event("damaged", data), *self.consequences(state, who, health, dice)]
