"""Energy in realms (R-EN-1, R-EN-2): spent by its creature, drained by others."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ...core import Command, EncounterState, Event, IllegalCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from . import payloads
from .conditions import ConditionRules  # the topic below (a chain)


@mypyc_attr(allow_interpreted_subclasses=True)
class EnergyRules(ConditionRules):
    """Spending and draining Energy (a topic of ``RealmsRuleset``)."""

    @command("A creature spends its own Energy (never below 0).",
             who="player", when="any", actor="required", rules=("R-EN-2",),
             amount=args.integer("Energy spent", lo=0, hi=9999, required=True))
    def do_spend_energy(self, state: EncounterState, command: Command,
                        dice: DiceSource) -> list[Event]:
        """A creature spends its own Energy (on a power, say), never below 0 (R-EN-2)."""
        actor = self.creature(state, self.actor(state, command).id)
        amount: int = command.a.amount
        if amount > actor.energy:
            raise IllegalCommand(f"{actor.id} has {actor.energy} Energy and cannot spend "
                                 f"{amount}: a creature cannot take its own Energy below 0",
                                 rule="R-EN-2")
        return [Event("energy_changed", {"target": actor.id, "energy": actor.energy - amount,
                                         "deficit": 0})]

    @command("Drain a creature's Energy; below 0 it takes 1 damage per point below.",
             rules=("R-EN-1",),
             target=args.creature("whose Energy is drained", required=True),
             amount=args.integer("Energy drained", lo=0, hi=9999, required=True))
    def do_drain_energy(self, state: EncounterState, command: Command,
                        dice: DiceSource) -> list[Event]:
        """Something drains a creature's Energy. Below 0, it takes 1 damage per point below
        and Energy is set to 0 (R-EN-1, AR-27)."""
        target = self.creature(state, command.a.target)
        amount: int = command.a.amount
        left = target.energy - amount
        events = [Event("energy_changed", {"target": target.id, "energy": max(left, 0),
                                           "deficit": max(-left, 0)})]
        if left < 0:
            events += self.hurt(self.lookahead(state, events), target.id, [(-left, "")], dice,
                                cause="energy below 0")
        return events

    @event("{target} has {energy} Energy now (deficit {deficit}).",
           target=args.creature("who"), energy=args.integer("Energy after"),
           deficit=args.integer("how far below 0 it went (as damage)"))
    def apply_energy_changed(self, state: EncounterState, data: payloads.EnergyChanged) -> None:
        self.creature(state, data["target"]).energy = data["energy"]
