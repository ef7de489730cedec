"""Attacks in realms (RLM-1, RLM-2, RLM-6, R-ARM-8): the roll, the Critical Level, the
damage dice, the Defend reaction (R-SHD-1) and the flanking reaction (R-FLK-2)."""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Command, Deferred, EncounterState, Event, IllegalCommand, InvalidCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource, roll
from . import payloads
from .conditions import set_level
from .model import (
    DEFENSES,
    SITUATIONAL,
    RealmsCreature,
    defense_bonus,
    evasion,
    flag,
    flagged,
    half,
    load_gear,
    load_toml,
    modifier,
    parse_dice,
    succeeds,
    weapon_reach,
)
from .movement import MovementRules  # the topic below (a chain)
from .pipeline import halved

WEAPONS = tuple(sorted(load_toml("weapons.toml")))
"""The weapon names an attack may name (``weapons.toml``)."""



def _add(mods: list[tuple[str, int]], label: str, value: int) -> None:
    """An attack modifier, kept when it is not zero."""
    if value:
        mods.append((label, value))

@mypyc_attr(allow_interpreted_subclasses=True)
class AttackRules(MovementRules):
    """The ``attack`` command (a topic of ``RealmsRuleset``)."""

    def attack_setup(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Everything about an attack but the dice: modifiers, the score, the crit range."""
        a = command.a
        actor = self.creature(state, self.actor(state, command).id)
        target = self.creature(state, a.target)
        if target.id == actor.id:
            raise IllegalCommand("a creature cannot attack itself")
        if target.dead or target.unsummoned:
            raise IllegalCommand(f"{target.id} is already dead")
        # most creatures have no condition: what reads conditions is skipped for them
        mine, theirs = actor.conditions, target.conditions
        if mine:
            self.check_harm(actor, target, "attack")  # R-C-CHA
        weapon = actor.damage
        melee = actor.weapon_range == "melee"
        arms = actor.weapon_arms
        reach, name = actor.weapon_reach, actor.weapon
        if a.weapon is not None:
            gear = load_gear("weapons", a.weapon, actor.id)
            weapon = [{"dice": p["dice"], "bonus": int(p.get("bonus", 0)), "type": p["type"]}
                      for p in gear["damage"]]
            melee = gear.get("range", "melee") == "melee"
            arms = bool(gear.get("arms", True))
            reach, name = weapon_reach(gear, actor.id), a.weapon
        if mine:  # R-C-RES: an attack with a weapon the arms wield (RLM-7)
            reaction = a.reaction is not None
            self.check_arms(state, actor, "reaction_attack" if reaction else "attack",
                            command, weapon_arms=arms, reaction=reaction)
        if melee and a.reaction is None:  # RLM-11 (a flank reaction: R-FLK-2 says when)
            self.check_reach(state, actor, target, reach, name)
        if not weapon:
            weapon = [{"dice": "1d2", "bonus": 0, "type": "bludgeoning"}]
        mods: list[tuple[str, int]] = [("attack bonus", actor.attack)]
        if mine:
            _add(mods, "conditions (attack)", modifier(actor, "attack"))
            _add(mods, "Weakened (d20)", modifier(actor, "d20"))  # R-C-WEA
            _add(mods, "Exhausted (bonuses)", modifier(actor, "bonuses"))  # R-C-EXH
        if theirs:
            _add(mods, "target Grappled", modifier(target, "to_be_hit"))  # R-C-GRA
            if melee:
                _add(mods, "target Prone, in melee",
                     modifier(target, "to_be_hit_melee"))  # R-C-PRO
        hiding = flagged(actor, "hidden") if mine else None
        hidden = hiding is not None
        # R-C-HID: a target that found the attacker by a search knows where it is
        aware = hiding is not None and target.id in hiding.data.get("detected_by", ())
        unaware = (hidden and not aware) if a.unaware is None else a.unaware
        if hidden and unaware:
            _add(mods, "Hidden, target unaware", modifier(actor, "attack_unaware"))  # R-C-HID
        fear = flagged(actor, "fear") if mine else None
        if fear is not None:  # R-C-FRI, AR-24
            sees = a.sees_fear_source
            penalty = 0
            if fear.source == target.id:
                penalty = fear.level
                if sees and self.ruling_is(state, "AR-24", "stack"):
                    penalty += half(state, fear.level)
            elif sees:
                penalty = half(state, fear.level)
            _add(mods, "Frightened", -penalty)
        obscurity = 0
        if (mine and flag(actor, "blind")) or (theirs and flag(target, "invisible")):
            obscurity = 5  # Completely Obscured (R-C-BLI, R-C-INV)
        elif not melee and theirs:
            obscurity = modifier(target, "obscurity_ranged")  # R-C-PRO
        if obscurity and self.ruling_is(state, "RLM-4", "minus-1-per-level"):
            _add(mods, f"Obscurity {obscurity}", -obscurity)
        if a.bonus:
            mods.append(("situational", a.bonus))
        against = a.against
        dodge = target.level("dodging") if theirs else 0
        # Evasion includes dodging's +1 (R-CMP-8); a Defense score is 10 + the defense
        score = (evasion(target) if against == "evasion"
                 else 10 + defense_bonus(target, against))
        scared = flagged(target, "fear") if theirs else None
        if scared is not None:  # R-C-FRI: the target's Scores (its Evasion, its Defenses)
            if scared.source == actor.id:
                score -= scared.level
            elif a.target_sees_fear_source:
                score -= half(state, scared.level)
        primary = weapon[0]["type"]
        crit_range = int(self.ruling(state, "RLM-6"))
        increase = int(target.armor.get("crit_range", 0))
        if primary in target.armor.get("vulnerable", ()):
            increase = 0  # R-ARM-7
        elif primary in target.armor.get("resist", ()):
            increase *= 2  # R-ARM-6
        return {"actor": actor, "target": target, "weapon": weapon, "melee": melee,
                "modifiers": mods, "bonus": sum(v for _, v in mods), "against": against,
                "score": score, "crit_range": crit_range + increase, "dodge": dodge}

    def attack_outcome(self, state: EncounterState, setup: dict[str, Any],
                       natural: int) -> tuple[bool, int]:
        total = natural + setup["bonus"]
        hit = succeeds(state, total, setup["score"])
        if self.ruling_is(state, "RLM-1", "natural-20-1"):
            hit = natural == 20 or (natural != 1 and hit)
        level = max(total - setup["score"], 0) // setup["crit_range"] if hit else 0
        return hit, level

    @command("Attack a creature: d20 + attack bonus against its Evasion or a Defense score "
             "(2 AP; a flanking reaction 1 AP, out of turn).",
             who="player", when="turn", off_turn=("reaction",), actor="required",
             cost="attack", looks_past=True,
             rules=("R-AP-1", "R-ARM-6", "R-ARM-7", "R-ARM-8", "R-SHD-1", "R-FLK-2", "R-CMP-8",
                    "R-C-BLI", "R-C-CHA", "R-C-RES", "R-C-DAZ", "R-C-EXH", "R-C-FRI", "R-C-GRA",
                    "R-C-HID", "R-C-INV", "R-C-PRO", "R-C-WEA", "R-DY-1", "R-DTH-1", "R-CMP-10"),
             target=args.creature("the creature attacked", refers="enemy", required=True),
             weapon=args.choice("another weapon than the actor's own (weapons.toml)", *WEAPONS),
             against=args.choice("evasion, or a defense whose score (10 + it) the attack is "
                                 "against", "evasion", *DEFENSES, default="evasion"),
             defend=args.flag("the target takes the Defend reaction with its shield (the "
                              "target's reaction: the GM's)", who="gm"),
             reaction=args.choice("a reaction attack: flank (a flanker when the target leaves)",
                                  "flank"),
             bonus=args.integer("a situational modifier (the largest the rules name is 5, "
                                "Completely Obscured)", lo=-SITUATIONAL, hi=SITUATIONAL,
                                default=0, who="gm"),
             unaware=args.flag("a Hidden attacker's target does not know where it is (default: "
                               "unless it found the attacker by a search)", default=None,
                               who="gm"),
             sees_fear_source=args.flag("a Frightened attacker sees the source of its fear",
                                        default=True, who="gm"),
             target_sees_fear_source=args.flag("a Frightened target sees the source of its fear",
                                               default=True, who="gm"),
             rm_allows=args.flag("the RM allows a Restrained attacker this use of its hands",
                                 who="gm"))
    def do_attack(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """An attack roll, then the damage of a hit through the target's pipeline (and its
        shield, when it Defends)."""
        setup = self.attack_setup(state, command)
        actor: RealmsCreature = setup["actor"]
        target: RealmsCreature = setup["target"]
        reaction = command.a.reaction or ""
        if reaction:
            self.check_flank_reaction(state, actor, target, reaction)
        defend = command.a.defend
        if defend:  # refused before any die is rolled
            if not target.shield:
                raise IllegalCommand(f"{target.id} has no shield to Defend with",
                                     rule="R-SHD-1")
            self.check_reaction(state, target, "defend")
        economy = self.pay(state, actor, "reaction_attack" if reaction else "attack",
                           reaction=bool(reaction))
        d20 = dice.roll(20)
        hit, level = self.attack_outcome(state, setup, d20)
        data: dict[str, Any] = {
            "actor": actor.id, "target": target.id, "d20": d20,
            "total": d20 + setup["bonus"], "against": setup["against"], "score": setup["score"],
            "modifiers": [[label, value] for label, value in setup["modifiers"]],
            "hit": hit, "critical_level": level, "crit_range": setup["crit_range"],
            "economy": economy, "reaction": reaction or None,
            "dodge_left": max(setup["dodge"] - 1, 0) if setup["dodge"] else None,
        }
        if not hit:
            return [Event("attacked", data)]
        components, rolls = self.roll_damage(state, actor, setup["weapon"], level, dice)
        events = [Event("attacked", {**data, "damage": rolls})]  # the payload whole, then the event
        shield_roll = 0
        if defend:
            shield_roll, defended = self.defend(state, target, dice)
            events.append(defended)
        events += self.hurt(self.past(state, events), target.id, components, dice,
                            shield_roll=shield_roll)
        return events

    def roll_damage(self, state: EncounterState, actor: RealmsCreature,
                    weapon: list[dict[str, Any]], level: int,
                    dice: DiceSource) -> tuple[list[tuple[int, str]], list[Deferred]]:
        """Each damage component's dice; each Critical Level adds the dice again (RLM-2)."""
        components = []
        rolls = []
        for expr, added, bonus, kind in self.damage_dice(state, actor, weapon, level):
            result = roll(expr, dice)
            amount = max(result.total + added, 0)
            components.append((amount, kind))
            rolls.append(Deferred(result.to_json, {"bonus": bonus, "type": kind,
                                                         "amount": amount}))
        return components, rolls

    def damage_dice(self, state: EncounterState, actor: RealmsCreature,
                    weapon: list[dict[str, Any]], level: int) -> list[tuple[str, int, int, str]]:
        """Each damage component as (its dice, what is added to their total, the bonus among
        that, its type): each Critical Level adds the dice again, or their maximum (RLM-2)."""
        added_max = self.ruling_is(state, "RLM-2", "added-maximum")
        out = []
        for i, part in enumerate(weapon):
            count, faces = parse_dice(str(part["dice"]), actor.id)
            bonus = int(part.get("bonus", 0)) + (actor.damage_bonus if i == 0 else 0)
            if added_max:
                out.append((f"{count}d{faces}", level * count * faces + bonus, bonus,
                            str(part["type"])))
            else:
                out.append((f"{count * (1 + level)}d{faces}", bonus, bonus, str(part["type"])))
        return out

    def defend(self, state: EncounterState, target: RealmsCreature,
               dice: DiceSource) -> tuple[int, Event]:
        """R-SHD-1: the Defend reaction rolls the shield's die (AR-15: not a halving DR)."""
        if not target.shield:
            raise IllegalCommand(f"{target.id} has no shield to Defend with", rule="R-SHD-1")
        self.check_reaction(state, target, "defend")
        economy = self.pay(state, target, "defend", reaction=True)
        result = roll(str(target.shield["die"]), dice)
        amount = self.shield_amount(state, target, result.total)
        return amount, Event("defended", {"actor": target.id, "shield_roll": amount,
                                          "shield": Deferred(result.to_json), "economy": economy})

    def shield_amount(self, state: EncounterState, target: RealmsCreature, rolled: int) -> int:
        """What a Defend's shield roll stops (AR-15: halving per use, when ruled a DR)."""
        if self.ruling_is(state, "AR-15", "halving-dr"):
            return halved(rolled, target.shield_uses)
        return rolled

    def check_flank_reaction(self, state: EncounterState, actor: RealmsCreature,
                             target: RealmsCreature, reaction: str) -> None:
        """R-FLK-2: a flanker's Basic Reaction when the target leaves; once per the
        triggering creature's turn (AR-35: one in total)."""
        if reaction != "flank":
            raise InvalidCommand("attack: the only reaction attack is 'flank'")
        if actor.conditions and flag(actor, "no_reactions"):  # the arms: attack_setup
            raise IllegalCommand(f"{actor.id} is Dazed and cannot take Reactions",
                                 rule="R-C-DAZ")
        provoked = state.extra.get("provoked")
        if not provoked or provoked["mover"] != target.id or actor.id not in provoked["flankers"]:
            raise IllegalCommand(f"{target.id} has not left {actor.id}'s flank this turn",
                                 rule="R-FLK-2")
        used = provoked.get("used", [])
        if used and (self.ruling_is(state, "AR-35", "one-total") or actor.id in used):
            raise IllegalCommand(f"the flanking reaction against {target.id} was already taken "
                                 "this turn", rule="R-FLK-2")

    @event("{actor} {hit?hits|misses} {target}[ (a {reaction} reaction)]: {total} (d20 {d20}) "
           "against {against} {score}, Critical Level {critical_level}[; damage {damage}]"
           "[; {target} has {dodge_left} dodges left].",
           actor=args.creature("the attacker"), target=args.creature("the target"),
           d20=args.integer("the d20"), total=args.integer("the attack's total"),
           against=args.text("evasion or a defense"), score=args.integer("the score to reach"),
           modifiers=args.items("each modifier: [label, value]"), hit=args.flag("a hit"),
           critical_level=args.integer("the Critical Level"),
           crit_range=args.integer("the margin per Critical Level"),
           reaction=args.text("flank, for a reaction attack"),
           dodge_left=args.integer("the target's dodging left"),
           damage=args.items("each damage component's roll"),
           optional=("damage", "dodge_left", "reaction"))
    def apply_attacked(self, state: EncounterState, data: payloads.Attacked) -> None:
        target = self.creature(state, data["target"])
        dodge_left = data.get("dodge_left")
        if dodge_left is not None:
            set_level(target, "dodging", dodge_left)
        if data.get("reaction"):
            provoked = state.extra.get("provoked")
            if provoked is not None:
                provoked["used"] = [*provoked.get("used", []), data["actor"]]

    @event("{actor} takes the Defend reaction: the shield stops {shield_roll}.",
           actor=args.creature("the defender"), shield_roll=args.integer("damage it stops"),
           shield=args.mapping("the shield die's roll"))
    def apply_defended(self, state: EncounterState, data: payloads.Defended) -> None:
        self.creature(state, data["actor"]).shield_uses += 1
