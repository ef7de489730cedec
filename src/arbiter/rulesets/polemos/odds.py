"""The exact odds of Polemos commands before they are decided: skill rolls, attacks, stress,
searching, hiding, knowing restrictions abroad, the wound reveal list and moves.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    EncounterState,
    InvalidCommand,
)
from ...dice import distribution
from .attacks import (
    AttackRules,  # the topic below (a chain)
    attack_odds,
    attack_setup,
)
from .checks import chance, dice_modifier, skill_distribution
from .cover import defense_concealment
from .model import Creature, reveal_table
from .movement import move_odds


@mypyc_attr(allow_interpreted_subclasses=True)
class OddsRules(AttackRules):
    """The odds of a command."""

    def odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Exact odds of a skill roll (success against a target number or an opposed roll),
        an attack (hit, and the chance of each number of critical damage points), stress,
        a search (each hidden object found), hiding (its detection defense), knowing a
        place's restrictions abroad, and the wound reveal list."""
        a = self.bound(command).a
        rule2, ties = self.ruling(state, "AP-2"), self.ruling(state, "AP-1")
        if command.name == "skill":
            bonus, penalty = dice_modifier(command)
            actor = self.creature(state, command.actor) if command.actor else None
            skill: str = a.skill or ""
            if a.value is not None:
                value: int = a.value
            elif actor is not None and skill:
                value = actor.skill(skill)
            else:
                raise InvalidCommand("skill: give 'actor' and 'skill', or a 'value'")
            _, flat, more = defense_concealment(self, state, actor, skill)
            dist = skill_distribution(value + flat, bonus + more, penalty, rule2)
            out: dict[str, Any] = {"mean": dist.mean,
                                   "totals": {v: p for v, p in dist.items()}}
            if a.against is not None:  # opposed: beat (AP-1: or tie) the other's roll
                other = self.creature(state, a.against)
                other_skill = a.against_skill or skill
                _, other_flat, other_more = defense_concealment(self, state, other, other_skill)
                opposed = skill_distribution(other.skill(other_skill) + other_flat, other_more,
                                             0, rule2)
                hit = sum((p * chance(dist, total, ties) for total, p in opposed.items()),
                          Fraction(0))
                out.update(success=hit, failure=1 - hit)
            elif a.target is not None:
                hit = chance(dist, a.target, ties)
                out.update(success=hit, failure=1 - hit)
            return out
        if command.name == "hide" and a.defense is None:  # P-STL-2
            hider = self.creature(state, a.target or self.actor(state, command).id)
            dist = skill_distribution(hider.skill("stealth"), 0, 0, rule2)
            return {"mean": dist.mean, "totals": {v: p for v, p in dist.items()}}
        if command.name == "restrictions":  # P-SOC-6: a knowledge roll abroad only
            if not a.foreign:
                return {"success": Fraction(1), "failure": Fraction(0)}
            actor = self.creature(state, self.actor(state, command).id)
            dist = skill_distribution(actor.skill(a.skill or "community"), 0, 0, rule2)
            hit = chance(dist, 8 if a.target is None else a.target, ties)
            return {"success": hit, "failure": 1 - hit}
        if command.name == "attack":
            s = attack_setup(self, state, command)
            hit, miss, critical, mean = attack_odds(
                s.actor.skill(s.weapon.skill), s.bonus, s.penalty,
                s.target.skill(s.defense_skill) + s.defense_bonus, s.defense_dice,
                s.defense_penalty, rule2, ties, s.weapon.damage[s.type],
                s.actor.critical_threshold)
            # the chance of each number of critical damage points: a miss earns none and
            # is said once, as "miss" (0 stays for a hit that earns none)
            return {"hit": hit, "miss": miss,
                    "critical_points": {k: v - miss if k == 0 else v for k, v in critical
                                        if k or v != miss},
                    "damage_mean": mean}
        if command.name == "stress" and a.discipline is not None:
            target = self.creature(state, a.target)
            dist = skill_distribution(target.skill("discipline"), 0, 0, rule2)
            avoid = chance(dist, a.discipline, ties)
            return {"avoided": avoid, "taken": 1 - avoid}
        if command.name == "search":  # P-STL-3, POL-8: the chance to find each hidden object
            bonus, penalty = dice_modifier(command)
            searcher = self.creature(state, self.actor(state, command).id)
            dist = skill_distribution(searcher.skill("search"), bonus, penalty, rule2)
            shift = (a.detection_modifier or 0) - (a.stealth_modifier or 0)
            found: dict[str, Fraction] = {}
            for entity in state.entities.values():
                if not isinstance(entity, Creature) or not (entity.hidden
                                                            or entity.has("hidden")) \
                        or entity.id == searcher.id \
                        or self.detected(state, searcher.id, entity.id):
                    continue
                cond = entity.condition("hidden")
                needed = int(cond.data["defense"]) if cond and "defense" in cond.data \
                    else entity.skill("detection_defense")
                found[entity.id] = Fraction(0) if self.ruling(state, "POL-8") == "gm-decides" \
                    else chance(dist, needed + shift, ties)
            return {"found": found}
        if command.name == "reveal":  # P-WND-6: each result of the 3D6 reveal list
            results: dict[str, Fraction] = {}
            for total, p in distribution("3d6").items():
                name = next(r["wound"] for r in reveal_table() if total <= r["upto"])
                results[name] = results.get(name, Fraction(0)) + p
            return {"results": results}
        if command.name == "move":  # what it costs and triggers (movement.py)
            return move_odds(self, state, command)
        return super().odds(state, command)
