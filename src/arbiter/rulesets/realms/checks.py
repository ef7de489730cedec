"""Rolls against a Difficulty Score in realms: skill and defense rolls (with a companion's
help or roll, R-CMP-2..4), overcoming a condition (R-CON-1), searching for the Hidden (R-C-HID)
and a look at a creature's derived numbers (``check``)."""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Command, EncounterState, Event, IllegalCommand, InvalidCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.ruleset import set_detection
from ...dice import DiceSource
from .base import ROLL_FIELDS, RealmsBase
from .model import (
    RealmsCreature,
    capacity,
    climb_speed,
    evasion,
    fly_speed,
    half,
    jump_limits,
    modifier,
    speed,
    succeeds,
    swim_speed,
)
from .movement import flankers
from .pipeline import armor_dr

HIDDEN = frozenset({"hidden"})
"""What a search finds: the Hidden condition (R-C-HID), not Invisible (sight)."""
MANEUVERS = frozenset({"prone", "knockback", "grapple"})
"""Rolls to knock a creature prone, push it back or grapple it: harmful (R-C-CHA), and a
Faint target's outside forces gain +1 (R-C-FAI)."""


@mypyc_attr(native_class=False)
class CheckRules(RealmsBase):
    """Skill rolls, searches and checks (a mixin of ``RealmsRuleset``)."""

    def skill_setup(self, state: EncounterState, command: Command) -> dict[str, Any]:
        actor = self.creature(state, self.actor(state, command).id)
        skill = self.arg(command, "skill", str)
        ds = self.arg(command, "ds", int)
        roller = self.creature(state, self.arg(command, "roller", str, actor.id))
        helper_id = self.arg(command, "helper", str, None)
        mine = {e.id for e in state.entities.values()
                if isinstance(e, RealmsCreature) and e.companion_of == actor.id}
        if roller.id != actor.id and roller.id not in mine:
            raise IllegalCommand(f"{roller.id} is not {actor.id}'s companion", rule="R-CMP-3")
        notes = []
        if roller.id != actor.id:
            notes.append(f"{actor.id} gives up their own roll")  # R-CMP-3
        extra: list[tuple[str, int]] = []
        twice = False
        if helper_id is not None:
            helper = self.creature(state, helper_id)
            if helper.id == roller.id:
                raise IllegalCommand("a creature cannot help its own roll", rule="R-CMP-2")
            if helper.companion and skill not in helper.proficient:
                raise IllegalCommand(f"{helper.id} is not proficient in {skill} and cannot help",
                                     rule="R-CMP-2")
            if helper.id in mine and roller.id in mine:
                notes.append(f"{actor.id} gives up their help to {helper.id}")  # R-CMP-4
            if self.ruling_is(state, "RLM-5", "roll-twice"):
                twice = True
            else:
                extra.append((f"help ({helper.id})", 2))
        if self.arg(command, "arms", bool, False):
            self.check_arms(state, roller, "skill", command)  # R-C-RES
        against = self.arg(command, "target", str, "")
        maneuver = self.arg(command, "maneuver", str, "")
        if against:
            other = self.creature(state, against)
            if maneuver in MANEUVERS:
                self.check_arms(state, roller, "maneuver", command)  # R-C-RES
            if maneuver in MANEUVERS or self.arg(command, "harmful", bool, False):
                for who in (roller, actor):  # R-C-CHA: no harm to the charmer
                    self.check_harm(who, other, "harm")
            if skill == "charisma":
                extra.append(("target Charmed by roller",  # R-C-CHA
                              self.from_source(other, roller.id, "source_charisma")))
            if maneuver in MANEUVERS:
                extra.append(("target Faint", modifier(other, "outside_forces")))  # R-C-FAI
            fear = roller.condition("frightened")
            if fear is not None and fear.source == other.id:
                extra.append(("Frightened (source)", -fear.level))  # R-C-FRI
        elif roller.has("frightened") and self.arg(command, "sees_fear_source", bool, False):
            extra.append(("Frightened (in view)", -half(state, roller.level("frightened"))))
        extra.append(("balance", self.balance(roller, skill,
                                              self.arg(command, "balance", bool, False))))
        extra.append(("situational", self.arg(command, "bonus", int, 0)))
        sense = self.arg(command, "sense", str, "")
        auto_fail = None
        if sense == "sight" and roller.has("blinded"):
            auto_fail = "Blinded: sight-based rolls fail"  # R-C-BLI
        if sense == "hearing" and roller.has("deafened"):
            auto_fail = "Deafened: hearing-based rolls fail"  # R-C-DEA
        return {"actor": actor, "roller": roller, "skill": skill, "ds": ds, "twice": twice,
                "extra": [(k, v) for k, v in extra if v], "notes": notes,
                "auto_fail": auto_fail}

    def overcome_setup(self, state: EncounterState,
                       command: Command) -> tuple[RealmsCreature, str]:
        """The actor and the condition it overcomes (refused when it has none, R-CON-1)."""
        me = self.creature(state, self.actor(state, command).id)
        name = self.arg(command, "name", str)
        if not me.has(name):
            raise IllegalCommand(f"{me.id} has no condition {name!r} to overcome", rule="R-CON-1")
        return me, name

    @command("Overcome a condition with a defense roll; success removes it (1 AP).",
             who="player", actor="required", cost="skill", rules=("R-CON-1",),
             name=args.text("the condition overcome", required=True, max_len=64),
             ds=args.integer("the Difficulty Score", lo=0, hi=999, required=True),
             defense=args.text("the defense rolled", default="might", max_len=64))
    def do_overcome(self, state: EncounterState, command: Command,
                    dice: DiceSource) -> list[Event]:
        """Overcome a condition with a defense (R-CON-1): actor, name, ds, [defense: might,
        reflex...; default might]. Success removes the condition. 1 AP (as a skill roll)."""
        me, name = self.overcome_setup(state, command)
        economy = self.pay(state, me, "skill")
        data = self.check_roll(state, me, self.arg(command, "defense", str, "might"),
                               self.arg(command, "ds", int), dice)
        data.update(actor=me.id, economy=economy, condition=name)
        events = [Event("overcome_rolled", data)]
        if data["success"]:
            events.append(Event("condition_removed", {"target": me.id, "name": name,
                                                      "why": "overcome"}))
        return events

    @event("{actor} tries to overcome {condition} with {skill}: {total} (d20 {d20}) against "
           "DS {ds}, {success?overcome|not overcome}.",
           actor=args.creature("who"), condition=args.text("the condition"),
           shared=ROLL_FIELDS)
    def apply_overcome_rolled(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    @command("A skill (or defense) roll against a Difficulty Score (1 AP).",
             who="player", actor="required", cost="skill",
             rules=("R-CMP-2", "R-CMP-3", "R-CMP-4", "R-C-BLI", "R-C-CHA", "R-C-DEA", "R-C-FAI",
                    "R-C-FRI", "R-C-EXH", "R-C-WEA", "R-C-RES"),
             skill=args.text("the skill or defense rolled", required=True, max_len=64),
             ds=args.integer("the Difficulty Score", lo=0, hi=999, required=True),
             roller=args.creature("a companion rolling in the actor's place", refers="own"),
             helper=args.creature("who helps the roll", refers="ally"),
             target=args.creature("whom the roll is against"),
             maneuver=args.text("against a target: prone, knockback or grapple", max_len=64),
             sense=args.text("sight or hearing, when the roll relies on it", max_len=64),
             balance=args.flag("the roll needs balance or poise (Acrobatics always does)"),
             bonus=args.integer("a situational bonus", lo=-99, hi=99, default=0),
             sees_fear_source=args.flag("a Frightened roller sees the source of its fear"),
             harmful=args.flag("the roll harms its target (a Charmed roller may not harm its "
                               "charmer)"),
             arms=args.flag("the roll needs the arms (a Restrained roller may not)"),
             rm_allows=args.flag("the RM allows a Restrained roller this use of its hands"))
    def do_skill(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A skill (or defense) roll against a Difficulty Score: actor, skill, ds, [roller:
        a companion rolling instead (R-CMP-3)], [helper (R-CMP-2, R-CMP-4)], [target],
        [maneuver], [sense: sight|hearing], [balance], [bonus], [sees_fear_source],
        [harmful] (R-C-CHA), [arms], [rm_allows] (R-C-RES)."""
        setup = self.skill_setup(state, command)
        economy = self.pay(state, setup["actor"], "skill")
        if setup["auto_fail"]:
            return [Event("skill_rolled", {"actor": setup["actor"].id, "skill": setup["skill"],
                                           "success": False, "why": setup["auto_fail"],
                                           "economy": economy})]
        data = self.check_roll(state, setup["roller"], setup["skill"], setup["ds"], dice,
                               sum(v for _, v in setup["extra"]), setup["twice"])
        data.update(actor=setup["actor"].id, modifiers=[list(x) for x in setup["extra"]],
                    notes=setup["notes"], economy=economy)
        return [Event("skill_rolled", data)]

    @event("{actor}'s {skill} roll[ (by {roller})][: {total} (d20 {d20}) against DS {ds}]"
           ", {success?a success|a failure}[ ({why})].",
           actor=args.creature("whose roll"), why=args.text("why it fails without a roll"),
           modifiers=args.items("each modifier: [label, value]"),
           notes=args.items("what the roll gives up (a companion rolls or helps)"),
           shared=ROLL_FIELDS)
    def apply_skill_rolled(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    def search_command(self, state: EncounterState, command: Command) -> Command:
        """The skill roll a search is (R-C-HID): Perceive (or ``skill``) against the hidden
        target's Stealth or Hide Score (``ds``, else the score its Hidden condition holds)."""
        actor = self.creature(state, self.actor(state, command).id)
        target = self.creature(state, self.arg(command, "target", str))
        hiding = target.condition("hidden")
        if hiding is None:
            raise IllegalCommand(f"{target.id} is not hidden", rule="R-C-HID")
        if actor.id in hiding.data.get("detected_by", ()):
            raise IllegalCommand(f"{actor.id} already knows where {target.id} is",
                                 rule="R-C-HID")
        skill = self.search_skill(command)
        if "ds" in command.args:
            ds = self.arg(command, "ds", int)
        elif "score" in hiding.data:
            ds = int(hiding.data["score"])
        else:
            raise InvalidCommand(f"search: give 'ds', {target.id}'s Stealth or Hide Score "
                                 "(or give its Hidden condition a score)")
        args = {k: v for k, v in command.args.items() if k not in ("target", "skill", "ds")}
        return Command("skill", command.actor, {**args, "skill": skill, "ds": ds})

    def search_skill(self, command: Command) -> str:
        skill = self.arg(command, "skill", str, "perceive")
        if skill not in ("perceive", "search"):
            raise InvalidCommand("search: skill is perceive or search")
        return skill

    def hiders(self, state: EncounterState,
               actor: RealmsCreature) -> list[tuple[RealmsCreature, int]]:
        """Whom a search without a target looks for, with their scores: every other
        creature, not on the actor's side, whose Hidden condition has a score and does not
        list the actor."""
        out = []
        for other in state.entities.values():
            if not isinstance(other, RealmsCreature) or other.id == actor.id or other.dead \
                    or (actor.side is not None and other.side == actor.side):
                continue
            hiding = other.condition("hidden")
            if hiding is not None and "score" in hiding.data \
                    and actor.id not in hiding.data.get("detected_by", ()):
                out.append((other, int(hiding.data["score"])))
        return out

    def sweep_command(self, state: EncounterState, command: Command) -> Command:
        """The skill roll of a search without a target (its DS is each hider's score)."""
        skill = self.search_skill(command)
        if "ds" in command.args:
            raise InvalidCommand("search: a 'ds' needs a 'target' (without one, each hidden "
                                 "creature's own score counts)")
        args = {k: v for k, v in command.args.items() if k != "skill"}
        return Command("skill", command.actor, {**args, "skill": skill, "ds": 0})

    @command("Search for Hidden creatures: Perceive or Search against their Stealth or Hide "
             "Score (1 AP).",
             who="player", actor="required", cost="skill", rules=("R-C-HID", "R-CMP-2", "R-CMP-3"),
             target=args.creature("the hidden creature looked for (none: every hidden enemy)",
                                  refers="enemy"),
             skill=args.choice("the skill rolled", "perceive", "search", default="perceive"),
             ds=args.integer("with a target: its Stealth or Hide Score (default: its Hidden "
                             "condition's score)", lo=0, hi=999),
             roller=args.creature("a companion rolling in the actor's place", refers="own"),
             helper=args.creature("who helps the roll", refers="ally"),
             sense=args.text("sight or hearing, when the roll relies on it", max_len=64),
             balance=args.flag("the roll needs balance or poise"),
             bonus=args.integer("a situational bonus", lo=-99, hi=99, default=0),
             sees_fear_source=args.flag("a Frightened roller sees the source of its fear"))
    def do_search(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Search for Hidden creatures (R-C-HID): actor, [target], [skill: perceive|search],
        [ds] (with a target: its Stealth or Hide Score; default the score of its Hidden
        condition), and the skill roll's [roller], [helper], [bonus], [sense]. Without a
        target, one roll against the score of every hidden enemy the actor has not found
        (``found`` lists whom it finds). Success: the actor knows where it is, so its attacks
        on the actor lose the Hidden +2, and a player whose character it is sees it. 1 AP (a
        skill roll)."""
        if "target" in command.args:
            events = self.do_skill(state, self.search_command(state, command), dice)
            data = events[0].data
            target = self.arg(command, "target", str)
            return [Event("searched", {**data, "target": target,
                                       "found": bool(data["success"])})]
        actor = self.creature(state, self.actor(state, command).id)
        rolled = self.do_skill(state, self.sweep_command(state, command), dice)[0].data
        total = rolled.get("total")  # none for an automatic failure
        # whom it missed is not recorded: a player's log would show that entry lose it
        found = [hider.id for hider, score in self.hiders(state, actor)
                 if total is not None and succeeds(state, total, score)]
        data = {k: v for k, v in rolled.items() if k not in ("ds", "success", "total")}
        return [Event("searched", {**data, "total": total, "found": found})]

    @event("{actor} searches[ for {target}] with {skill}[: {total}][ against DS {ds}][ "
           "({why})]; found: {found}.",
           actor=args.creature("who searches"), target=args.creature("the creature looked for"),
           found=args.value("with a target, whether it is found; else whom it finds"),
           why=args.text("why it fails without a roll"),
           modifiers=args.items("each modifier: [label, value]"),
           notes=args.items("what the roll gives up (a companion rolls or helps)"),
           shared=ROLL_FIELDS)
    def apply_searched(self, state: EncounterState, data: dict[str, Any]) -> None:
        found = data["found"]
        if "target" in data:  # a search for one creature: found is a yes or no
            found = [data["target"]] if found else []
        for who in found:  # the search finds where it hides (its Hidden condition)
            set_detection(self.creature(state, who), HIDDEN, data["actor"], True)

    @command("Record a creature's derived numbers (Speed, Evasion, DR, carrying...); a player "
             "sees them only for their own side.",
             who="player", when="any", actor="optional",
             rules=("R-MOV-1", "R-CAR-1", "R-CAR-3", "R-SIZ-3", "R-FLK-1", "R-FLY-1", "R-JMP-1",
                    "R-CLB-1", "R-SWM-1", "R-C-TER", "R-OVH-1"),
             target=args.creature("whose numbers", required=True),
             type=args.text("the damage type for the armor's DR", default="slashing", max_len=64))
    def do_check(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Show a creature's derived numbers: target, [type (a damage type for the DR)]."""
        me = self.creature(state, self.arg(command, "target", str))
        horizontal, vertical = jump_limits(state, me)
        damage_type = self.arg(command, "type", str, "slashing")
        return [Event("checked", {
            "target": me.id, "speed": speed(state, me), "evasion": evasion(me),
            "attack": me.attack + modifier(me, "attack") + modifier(me, "d20")
            + modifier(me, "bonuses"),
            "capacity": capacity(state, me), "climb_speed": climb_speed(state, me),
            "swim_speed": swim_speed(state, me), "fly_speed": fly_speed(state, me),
            "jump": horizontal, "jump_vertical": vertical, "ap": me.ap,
            "dr": armor_dr(me, damage_type, me.armor_uses, state.rulings),
            "terminal": me.terminal, "overheal": me.overheal, "size": me.size,
            "spaces": me.spaces, "flanked_by": flankers(state, me)})]

    @event("Numbers of {target}[: Speed {speed}, Evasion {evasion}, attack bonus {attack}, "
           "{ap} AP, armor DR {dr}, carrying {capacity} kg, Climb Speed {climb_speed}, Swim "
           "Speed {swim_speed}, Flight Speed {fly_speed}, jump {jump} across and "
           "{jump_vertical} up, {size} ({spaces} spaces), overheal {overheal}"
           "{terminal?, Terminal|}][, flanked by {flanked_by}].",
           target=args.creature("whose numbers"), speed=args.integer("Speed"),
           evasion=args.integer("Evasion"), attack=args.integer("the attack bonus"),
           capacity=args.integer("carrying capacity in kg"),
           climb_speed=args.integer("Climb Speed"), swim_speed=args.integer("Swim Speed"),
           fly_speed=args.integer("Flight Speed"), jump=args.integer("horizontal jump limit"),
           jump_vertical=args.integer("vertical jump limit"), ap=args.integer("AP"),
           dr=args.integer("the armor's current DR against the type"),
           terminal=args.flag("Terminal"), overheal=args.integer("Health above the maximum"),
           size=args.text("size category"), spaces=args.integer("spaces it fills"),
           flanked_by=args.creatures("the enemies flanking it"))
    def apply_checked(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None
