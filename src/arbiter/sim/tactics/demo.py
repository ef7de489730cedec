"""Tactics for the demo ruleset: every enemy is in reach, so attack the most wounded one."""

from __future__ import annotations

from ...core import Command, EncounterState, Entity, Ruleset
from ...rulesets.demo.rules import DemoCreature
from ..policy import register_policy


@register_policy("focus-fire", ruleset="demo", default=True)
class FocusFire:
    """Attack the enemy with the least health left (ties: the first added)."""

    def choose(self, state: EncounterState, actor: Entity, ruleset: Ruleset) -> list[Command]:
        if not isinstance(actor, DemoCreature) or actor.health <= 0:
            return []
        target: DemoCreature | None = None
        for entity in state.entities.values():
            if (isinstance(entity, DemoCreature) and entity.side != actor.side
                    and entity.health > 0
                    and (target is None or entity.health < target.health)):
                target = entity
        if target is None:
            return []
        return [Command("attack", actor.id, {"target": target.id})]
