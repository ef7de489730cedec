"""Exact odds in realms, before rolling: an attack (each Critical Level and what it does
to the target), a skill roll or a search, stabilizing, overcoming, controlling or mounting,
a jump, climb or swim, and what a move costs and triggers. Each refuses what its command
refuses, through the same setup (the topics' own ``*_setup`` methods, inherited)."""

from __future__ import annotations

from fractions import Fraction
from functools import partial
from itertools import product
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Command, EncounterState
from ...dice import distribution
from .base import dies
from .model import JUMP_SKILLS, SWIM_SKILLS, RealmsCreature, best_skill, jump_ds, jump_limits
from .mounts import MountRules  # the topic below (a chain)
from .pipeline import resolve

DAMAGE_ODDS_LIMIT = 4096
"""The most damage outcomes (per Critical Level) that an attack's odds count exactly."""


def _amounts(expr: str, added: int) -> list[tuple[int, Fraction]]:
    """The chance of each damage amount ``expr`` + ``added`` can come to (never below 0)."""
    return list(distribution(expr).map(lambda v: max(v + added, 0)).items())


def _certain() -> dict[str, Any]:
    return {"success": Fraction(1), "failure": Fraction(0)}


@mypyc_attr(allow_interpreted_subclasses=True)
class OddsRules(MountRules):
    """The ``odds`` method (a topic of ``RealmsRuleset``): it reads the setups of the
    topics below it in the chain (attacks, damage, movement, checks, mounts)."""

    def odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Exact odds before rolling: an attack (hit, miss, each Critical Level, and what it
        does to the target: the mean Health it loses and the chance it goes down or dies), a
        skill roll or a search, stabilizing, overcoming a condition, controlling or mounting
        an unwilling mount, a jump, climb or swim, and what a move costs and triggers
        (:meth:`move_odds`). Each refuses what its command
        refuses, through the same setup."""
        self.bound(command)
        if command.name == "attack":
            setup = self.attack_setup(state, command)
            out: dict[str, Any] = {"miss": Fraction(0), "hit": Fraction(0)}
            levels: dict[int, Fraction] = {}
            for natural, p in distribution("1d20").items():
                hit, level = self.attack_outcome(state, setup, natural)
                out["hit" if hit else "miss"] += p
                if hit:
                    levels[level] = levels.get(level, Fraction(0)) + p
            out.update({f"critical_{level}" if level else "normal_hit": p
                        for level, p in levels.items()})
            out.update(self.attack_damage_odds(state, command, setup, levels))
            return out
        if command.name == "search" and command.a.target is None:
            actor = self.creature(state, self.actor(state, command).id)
            setup = self.skill_setup(state, self.sweep_command(state, command))
            extra = sum(v for _, v in setup["extra"])
            return {"found": {
                hider.id: Fraction(0) if setup["auto_fail"] else self.roll_odds(
                    state, setup["roller"], setup["skill"], score, extra,
                    setup["twice"])["success"]
                for hider, score in self.hiders(state, actor)}}
        if command.name in ("skill", "search"):
            if command.name == "search":
                command = self.search_command(state, command)
            setup = self.skill_setup(state, command)
            if setup["auto_fail"]:
                return {"success": Fraction(0), "failure": Fraction(1)}
            return self.roll_odds(state, setup["roller"], setup["skill"], setup["ds"],
                                  sum(v for _, v in setup["extra"]), setup["twice"])
        if command.name == "stabilize":  # R-STB-1: Medicine against the DS (10)
            actor, _, method = self.stabilize_setup(state, command)
            if method != "medicine":
                return _certain()
            return self.roll_odds(state, actor, "medicine", command.a.ds)
        if command.name == "overcome":  # R-CON-1: a defense roll against the DS
            me, _ = self.overcome_setup(state, command)
            return self.roll_odds(state, me, command.a.defense, command.a.ds)
        if command.name in ("control", "mount"):  # R-MNT-5, R-MNT-6: Animal Handling
            if command.name == "control":
                me = self.creature(state, self.actor(state, command).id)
                mount = self.ridden(state, me)
            else:
                me, mount = self.mount_setup(state, command)
                if mount.willing or mount.saddled:
                    return _certain()
            return self.roll_odds(state, me, "animal_handling", 10 + mount.creature_level)
        if command.name in ("jump", "climb", "swim"):
            return self.movement_roll_odds(state, command)
        if command.name == "move":
            return self.move_odds(state, command)
        return super().odds(state, command)

    def roll_odds(self, state: EncounterState, roller: RealmsCreature, skill: str, ds: int,
                  extra: int = 0, twice: bool = False) -> dict[str, Any]:
        """The odds of :meth:`check_roll`: a d20 (the better of two when ``twice``) +
        :meth:`roll_bonus` against ``ds`` (AR-16)."""
        need = ds - self.roll_bonus(roller, skill, extra)
        if self.ruling_is(state, "AR-16", "beat"):
            need += 1
        success = distribution("2d20kh1" if twice else "1d20").at_least(need)
        return {"success": success, "failure": 1 - success}

    def attack_damage_odds(self, state: EncounterState, command: Command,
                           setup: dict[str, Any], levels: dict[int, Fraction]
                           ) -> dict[str, Any]:
        """What the hits do, from the chance of each Critical Level: every damage roll
        (:meth:`damage_dice`) and the shield's when the target Defends
        (:meth:`shield_amount`), through the target's own pipeline, as ``hurt`` runs it.
        ``damage_mean``: the Health the target loses, on average over every outcome, misses
        included; ``down``: the chance it falls to 0 or below (Dying or dead, when it is
        not Dying yet); ``dead``: the chance it dies (:func:`dies`). Nothing when the
        outcomes are too many to count (more than ``DAMAGE_ODDS_LIMIT``)."""
        actor: RealmsCreature = setup["actor"]
        target: RealmsCreature = setup["target"]
        shield = [(0, Fraction(1))]
        if command.a.defend and target.shield:  # R-SHD-1
            shield = list(distribution(str(target.shield["die"])).map(
                partial(self.shield_amount, state, target)).items())
        taken: dict[int, Fraction] = {}
        for level, chance in levels.items():
            parts = [(_amounts(expr, added), kind) for expr, added, _, kind
                     in self.damage_dice(state, actor, setup["weapon"], level)]
            size = len(shield)
            for amounts, _ in parts:
                size *= len(amounts)
            if size > DAMAGE_ODDS_LIMIT:
                return {}
            for combo in product(*(amounts for amounts, _ in parts)):
                components = [(amount, kind) for (amount, _), (_, kind) in zip(combo, parts,
                                                                               strict=True)]
                p = chance
                for _, q in combo:
                    p *= q
                for roll_, q in shield:
                    lost = resolve(target, components, state.rulings, shield_roll=roll_).taken
                    taken[lost] = taken.get(lost, Fraction(0)) + p * q
        out: dict[str, Any] = {"damage_mean": sum((k * p for k, p in taken.items()),
                                                  Fraction(0))}
        down = sum((p for lost, p in taken.items() if target.health - lost <= 0), Fraction(0))
        if not target.dying and target.health > 0:
            out["down"] = down
        out["dead"] = sum((p for lost, p in taken.items() if dies(target, target.health - lost)),
                          Fraction(0))
        return out

    def movement_roll_odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Exact odds of a jump beyond the limit, a climb or a swim succeeding."""
        me = self.creature(state, self.actor(state, command).id)
        a = command.a
        spaces: int = a.spaces
        skill: str = "" if command.name == "climb" else a.skill or ""  # a climb: Athletics
        choices: tuple[str, ...]
        if command.name == "jump":
            horizontal, vertical = jump_limits(state, me)
            excess = spaces - (vertical if a.vertical else horizontal)
            ds = jump_ds(state, excess)
            needs_roll = excess > 0
            choices = JUMP_SKILLS
        elif command.name == "climb":
            self.check_movement(state, me, "climb", command)
            ds, needs_roll, choices = a.ds, me.climb_speed is None, ("athletics",)
        else:
            self.check_movement(state, me, "swim", command)
            ds, needs_roll, choices = a.ds, me.swim_speed is None, SWIM_SKILLS
        if not needs_roll:
            return _certain()
        skill = skill or best_skill(me, choices)
        return self.roll_odds(state, me, skill, ds,
                              self.balance(me, skill, command.name == "climb"))
