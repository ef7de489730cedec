"""Decide and evolve for the demo ruleset."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...core import (
    Command,
    DamageCalc,
    EncounterState,
    Entity,
    Event,
    IllegalCommand,
    InvalidCommand,
    Pipeline,
    Ruleset,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.outcomes import STANDING
from ...core.ruleset import ENTITY_KEYS
from ...dice import DiceSource, distribution, parse, roll
from ...dice.ast import dice_terms
from . import payloads

DEMO_KEYS = {"health", "attack", "defense", "damage", "armor"}


@dataclass
class DemoCreature(Entity):
    health_max: int = 1
    health: int = 1
    attack: int = 0
    defense: int = 10
    damage: str = "1d6"
    armor: int = 0

    @property
    def down(self) -> bool:
        return self.health <= 0


def _armor(calc: DamageCalc, target: DemoCreature) -> None:
    if target.armor:
        calc.step(f"armor {target.armor}", max(calc.amount - target.armor, 0))


DAMAGE = Pipeline[DemoCreature]([_armor])


class DemoRuleset(Ruleset):
    name = "demo"
    title = "Demo (d20 attacks against defense)"
    entity_type = DemoCreature
    card_fields = ("armor", "attack", "defense", "damage")  # a card's first look
    concealing = frozenset({"hidden", "invisible", "undetected", "unnoticed"})
    """Conditions the GM gives that hide a creature from its enemies' players until one of
    their characters detects it (``detect``; server/views.py)."""

    def status(self, state: EncounterState, entity: Entity) -> str:
        """Down at 0 health or less; nothing in the demo kills."""
        if isinstance(entity, DemoCreature):
            return "down" if entity.health <= 0 else STANDING
        return STANDING

    def is_down(self, state: EncounterState, entity: Entity) -> bool:
        return isinstance(entity, DemoCreature) and entity.health <= 0

    def make_entity(self, entity_id: str, spec: Mapping[str, Any]) -> Entity:
        stats = dict(spec.get("stats", {}))
        extra = {k: spec[k] for k in DEMO_KEYS if k in spec}
        base = super().make_entity(entity_id, {k: v for k, v in spec.items() if k in ENTITY_KEYS
                                               or k not in DEMO_KEYS})
        values = {**stats, **extra}
        damage = str(values.pop("damage", "1d6"))
        try:
            parse(damage)
        except ValueError as err:
            raise InvalidCommand(f"{entity_id}: damage {damage!r}: {err}") from None
        creature = DemoCreature(**{f: getattr(base, f) for f in base.__dataclass_fields__})
        creature.health_max = creature.health = int(values.get("health", 1))
        creature.attack = int(values.get("attack", 0))
        creature.defense = int(values.get("defense", 10))
        creature.armor = int(values.get("armor", 0))
        creature.damage = damage
        return creature

    def creature(self, state: EncounterState, name: str) -> DemoCreature:
        return state.entity_of(name, DemoCreature)

    @command("Attack: 1d20 + attack against the target's defense; damage on a hit.",
             who="player", actor="required", cost="action",
             target=args.creature("the creature attacked", refers="enemy", required=True))
    def do_attack(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Attack: actor rolls 1d20 + attack against the target's defense; damage on a hit."""
        actor = self.creature(state, self.actor(state, command).id)
        target = self.creature(state, command.a.target)
        if actor.down:
            raise IllegalCommand(f"{actor.id} is down and cannot act")
        if target.id == actor.id:
            raise IllegalCommand("a creature cannot attack itself")
        economy = self.spend(state, actor.id, "action")
        attack = roll(f"1d20+{actor.attack}", dice)
        natural = attack.dice()[0].value
        hit = natural == 20 or (natural != 1 and attack.total >= target.defense)
        data: dict[str, Any] = {"actor": actor.id, "target": target.id, "hit": hit,
                                "critical": natural == 20, "attack": attack.to_json(),
                                "economy": economy}
        if hit:
            if natural == 20 and self.ruling_is(state, "DEMO-1", "max-damage"):
                amount = distribution(actor.damage).hi
                data["damage"] = {"expression": actor.damage, "total": amount, "dice": [],
                                  "text": f"{actor.damage} at its maximum = {amount}"}
            else:
                expr = actor.damage
                if natural == 20:
                    extra = "+".join(str(t) for t in dice_terms(parse(expr)))
                    expr = f"{expr}+{extra}" if extra else expr
                damage = roll(expr, dice)
                amount = damage.total
                data["damage"] = damage.to_json()
            calc = DAMAGE.run(DamageCalc(max(amount, 0)), target)
            data.update(pipeline=calc.to_json(), taken=calc.amount,
                        health=target.health - calc.amount)
        return [Event("attacked", data)]

    @event("{actor} {hit?hits|misses} {target}[ ({attack.total} against defense)][ for "
           "{taken} damage][, leaving {health} Health].",
           actor=args.creature("the attacker"), target=args.creature("the target"),
           hit=args.flag("hit"), critical=args.flag("a natural 20"),
           attack=args.mapping("the attack roll"), damage=args.mapping("the damage roll"),
           pipeline=args.mapping("armor's steps"), taken=args.integer("damage taken"),
           health=args.integer("the target's Health after"),
           optional=("damage", "health", "pipeline", "taken"))
    def apply_attacked(self, state: EncounterState, data: payloads.Attacked) -> None:
        health = data.get("health")
        if data["hit"] and health is not None:
            self.creature(state, data["target"]).health = health

    @command("Deal damage to a target through its armor.",
             target=args.creature("who takes the damage", required=True),
             amount=args.integer("damage before armor", lo=0, hi=9999, required=True))
    def do_damage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Damage goes through the target's armor, then comes off its Health."""
        target = self.creature(state, command.a.target)
        amount: int = command.a.amount
        calc = DAMAGE.run(DamageCalc(amount), target)
        return [Event("damaged", {"target": target.id, "taken": calc.amount,
                                  "pipeline": calc.to_json(),
                                  "health": target.health - calc.amount})]

    @event("{target} takes {taken} damage[, leaving {health} Health].",
           target=args.creature("who"), taken=args.integer("damage taken"),
           pipeline=args.mapping("armor's steps"), health=args.integer("Health after"),
           optional=("pipeline", "taken"))
    def apply_damaged(self, state: EncounterState, data: payloads.Damaged) -> None:
        self.creature(state, data["target"]).health = data["health"]

    @command("Heal a target up to its maximum health.",
             target=args.creature("who is healed", required=True),
             amount=args.integer("Health restored", lo=0, hi=9999, required=True))
    def do_heal(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Health comes back, never above the maximum."""
        target = self.creature(state, command.a.target)
        amount: int = command.a.amount
        health = min(target.health + amount, target.health_max)
        return [Event("healed", {"target": target.id, "healed": health - target.health,
                                 "health": health})]

    @event("{target} is healed by {healed}[, to {health} Health].",
           target=args.creature("who"), healed=args.integer("Health restored"),
           health=args.integer("Health after"))
    def apply_healed(self, state: EncounterState, data: payloads.Healed) -> None:
        self.creature(state, data["target"]).health = data["health"]

    def odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """The chance to hit (a natural 20 always hits, a 1 always misses) and the mean
        damage; bound here too, for a caller that asks the odds directly."""
        if command.name != "attack":
            return super().odds(state, command)
        self.bound(command)
        actor = self.creature(state, self.actor(state, command).id)
        target = self.creature(state, command.a.target)
        d20 = distribution("1d20")
        hit = Fraction(0)
        for natural, p in d20.items():
            if natural == 20 or (natural != 1 and natural + actor.attack >= target.defense):
                hit += p
        return {"hit": hit, "miss": 1 - hit, "critical": Fraction(1, 20),
                "damage_mean": distribution(actor.damage).mean}
