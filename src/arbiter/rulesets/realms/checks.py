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
from . import payloads
from .base import ROLL_FIELDS
from .damage import DamageRules  # the topic below (a chain)
from .model import (
    BASE_DS,
    DEFENSES,
    MAX_DS,
    SITUATIONAL,
    RealmsCreature,
    capacity,
    climb_speed,
    conditions_catalogue,
    damage_types,
    evasion,
    flag,
    flagged,
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

HIDDEN = frozenset(name for name, spec in conditions_catalogue().items()
                   if "hidden" in spec.flags)
"""What a search finds: the Hidden condition (R-C-HID), not Invisible (sight)."""
MANEUVER_NAMES = ("prone", "knockback", "grapple")
MANEUVERS = frozenset(MANEUVER_NAMES)
"""Rolls to knock a creature prone, push it back or grapple it: harmful (R-C-CHA), and a
Faint target's outside forces gain +1 (R-C-FAI)."""
SENSES = ("sight", "hearing")
"""The senses a roll may rely on: sight fails Blinded (R-C-BLI), hearing Deafened (R-C-DEA)."""
CONDITIONS = tuple(sorted(conditions_catalogue()))
"""The conditions of ``conditions.toml``."""
DAMAGE_TYPES = damage_types()
"""The damage types the realms data names (``model.damage_types``)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class CheckRules(DamageRules):
    """Skill rolls, searches and checks (a topic of ``RealmsRuleset``)."""

    def skill_setup(self, state: EncounterState, command: Command) -> dict[str, Any]:
        actor = self.creature(state, self.actor(state, command).id)
        a = command.a
        skill: str = a.skill
        ds: int = a.ds
        roller = self.creature(state, a.roller or actor.id)
        helper_id = a.helper
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
        if a.arms:
            self.check_arms(state, roller, "skill", command)  # R-C-RES
        against = a.target or ""
        maneuver = a.maneuver or ""
        if against:
            other = self.creature(state, against)
            if maneuver in MANEUVERS:
                self.check_arms(state, roller, "maneuver", command)  # R-C-RES
            if maneuver in MANEUVERS or a.harmful:
                for who in (roller, actor):  # R-C-CHA: no harm to the charmer
                    self.check_harm(who, other, "harm")
            if skill == "charisma":
                extra.append(("target Charmed by roller",  # R-C-CHA
                              self.from_source(other, roller.id, "source_charisma")))
            if maneuver in MANEUVERS:
                extra.append(("target Faint", modifier(other, "outside_forces")))  # R-C-FAI
            fear = flagged(roller, "fear")
            if fear is not None and fear.source == other.id:
                extra.append(("Frightened (source)", -fear.level))  # R-C-FRI
        elif (fear := flagged(roller, "fear")) is not None and a.sees_fear_source:
            extra.append(("Frightened (in view)", -half(state, fear.level)))
        extra.append(("balance", self.balance(roller, skill, a.balance)))
        extra.append(("situational", a.bonus))
        sense = a.sense
        auto_fail = None
        if sense == "sight" and flag(roller, "blind"):
            auto_fail = "Blinded: sight-based rolls fail"  # R-C-BLI
        if sense == "hearing" and flag(roller, "deaf"):
            auto_fail = "Deafened: hearing-based rolls fail"  # R-C-DEA
        return {"actor": actor, "roller": roller, "skill": skill, "ds": ds, "twice": twice,
                "extra": [(k, v) for k, v in extra if v], "notes": notes,
                "auto_fail": auto_fail}

    def overcome_setup(self, state: EncounterState,
                       command: Command) -> tuple[RealmsCreature, str]:
        """The actor and the condition it overcomes (refused when it has none, R-CON-1)."""
        me = self.creature(state, self.actor(state, command).id)
        name: str = command.a.name
        if not me.has(name):
            raise IllegalCommand(f"{me.id} has no condition {name!r} to overcome", rule="R-CON-1")
        if "no_overcome" in conditions_catalogue()[name].flags:  # Dying: healing ends it
            raise IllegalCommand(f"{name} cannot be overcome with a roll: it ends only when "
                                 f"{me.id}'s Health is healed above 0", rule="R-DY-5",
                                 remedy=("heal", "heal it above 0 Health"))
        return me, name

    @command("Overcome a condition with a defense roll; success removes it (1 AP).",
             who="player", actor="required", cost="skill", rules=("R-CON-1",),
             name=args.choice("the condition overcome (conditions.toml)", *CONDITIONS,
                              required=True),
             ds=args.integer("the Difficulty Score (default: the seed's base DS, 10)", lo=0,
                             hi=MAX_DS, default=BASE_DS, who="gm"),
             defense=args.choice("the defense the condition is overcome with (the seed: Might "
                                 "against Restrained)", *DEFENSES, default="might", who="gm"))
    def do_overcome(self, state: EncounterState, command: Command,
                    dice: DiceSource) -> list[Event]:
        """A defense roll against the DS; success removes the condition (R-CON-1), 1 AP as a
        skill roll."""
        me, name = self.overcome_setup(state, command)
        economy = self.pay(state, me, "skill")
        data = self.check_roll(state, me, command.a.defense, command.a.ds, dice)
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
    def apply_overcome_rolled(self, state: EncounterState, data: payloads.OvercomeRolled) -> None:
        return None

    @command("A skill (or defense) roll against a Difficulty Score (1 AP).",
             who="player", actor="required", cost="skill",
             rules=("R-CMP-2", "R-CMP-3", "R-CMP-4", "R-C-BLI", "R-C-CHA", "R-C-DEA", "R-C-FAI",
                    "R-C-FRI", "R-C-EXH", "R-C-WEA", "R-C-RES"),
             skill=args.text("the skill or defense rolled (the stat block's skills, or "
                             "might or reflex)", required=True, max_len=64),
             ds=args.integer("the Difficulty Score (default: the seed's base DS, 10)", lo=0,
                             hi=MAX_DS, default=BASE_DS, who="gm"),
             roller=args.creature("a companion rolling in the actor's place", refers="own"),
             helper=args.creature("who helps the roll (a player's: one of their own, "
                                  "R-CMP-2)", refers="own"),
             target=args.creature("whom the roll is against"),
             maneuver=args.choice("against a target: knock it prone, knock it back or grapple "
                                  "it", *MANEUVER_NAMES),
             sense=args.choice("the sense the roll relies on (Blinded, Deafened: it fails)",
                               *SENSES, who="gm"),
             balance=args.flag("the roll needs balance or poise (Acrobatics always does)",
                               who="gm"),
             bonus=args.integer("a situational modifier", lo=-SITUATIONAL, hi=SITUATIONAL,
                                default=0, who="gm"),
             sees_fear_source=args.flag("a Frightened roller sees the source of its fear",
                                        who="gm"),
             harmful=args.flag("the roll harms its target (a Charmed roller may not harm its "
                               "charmer)", who="gm"),
             arms=args.flag("the roll needs the arms (a Restrained roller may not)", who="gm"),
             rm_allows=args.flag("the RM allows a Restrained roller this use of its hands",
                                 who="gm"))
    def do_skill(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A d20 + the skill (or defense) bonus + its modifiers against the DS, rolled by the
        actor or a companion in its place, with a companion's help (R-CMP-2..4); it fails
        without a roll when it relies on a sense the roller has lost."""
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
           shared=ROLL_FIELDS,
           optional=("bonus", "d20", "ds", "modifiers", "notes", "roller", "total", "why"))
    def apply_skill_rolled(self, state: EncounterState, data: payloads.SkillRolled) -> None:
        return None

    def search_command(self, state: EncounterState, command: Command) -> Command:
        """The skill roll a search is (R-C-HID): Perceive (or ``skill``) against the hidden
        target's Stealth or Hide Score (``ds``, else the score its Hidden condition holds)."""
        actor = self.creature(state, self.actor(state, command).id)
        target = self.creature(state, command.a.target)
        hiding = flagged(target, "hidden")
        if hiding is None:
            raise IllegalCommand(f"{target.id} is not hidden", rule="R-C-HID")
        if actor.id in hiding.data.get("detected_by", ()):
            raise IllegalCommand(f"{actor.id} already knows where {target.id} is",
                                 rule="R-C-HID")
        ds = command.a.ds
        if ds is None:
            if "score" not in hiding.data:
                raise InvalidCommand(f"search: {target.id}'s Stealth or Hide Score is not "
                                     "known: the GM may give 'ds' (or give its Hidden "
                                     "condition a score)")
            ds = int(hiding.data["score"])
        args = {k: v for k, v in command.args.items() if k not in ("target", "skill", "ds")}
        return self.bound(Command("skill", command.actor,
                                  {**args, "skill": command.a.skill, "ds": ds}))

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
            hiding = flagged(other, "hidden")
            if hiding is not None and "score" in hiding.data \
                    and actor.id not in hiding.data.get("detected_by", ()):
                out.append((other, int(hiding.data["score"])))
        return out

    def sweep_command(self, state: EncounterState, command: Command) -> Command:
        """The skill roll of a search without a target (its DS is each hider's score)."""
        if command.a.ds is not None:
            raise InvalidCommand("search: a 'ds' needs a 'target' (without one, each hidden "
                                 "creature's own score counts)")
        args = {k: v for k, v in command.args.items() if k != "skill"}
        return self.bound(Command("skill", command.actor,
                                  {**args, "skill": command.a.skill, "ds": 0}))

    @command("Search for Hidden creatures: Perceive or Search against their Stealth or Hide "
             "Score (1 AP).",
             who="player", actor="required", cost="skill", rules=("R-C-HID", "R-CMP-2", "R-CMP-3"),
             target=args.creature("the hidden creature looked for (none: every hidden enemy)",
                                  refers="enemy"),
             skill=args.choice("the skill rolled", "perceive", "search", default="perceive"),
             ds=args.integer("with a target: its Stealth or Hide Score (default: its Hidden "
                             "condition's score)", lo=0, hi=MAX_DS, who="gm"),
             roller=args.creature("a companion rolling in the actor's place", refers="own"),
             helper=args.creature("who helps the roll (a player's: one of their own, "
                                  "R-CMP-2)", refers="own"),
             sense=args.choice("the sense the roll relies on (Blinded, Deafened: it fails)",
                               *SENSES, who="gm"),
             balance=args.flag("the roll needs balance or poise", who="gm"),
             bonus=args.integer("a situational modifier", lo=-SITUATIONAL, hi=SITUATIONAL,
                                default=0, who="gm"),
             sees_fear_source=args.flag("a Frightened roller sees the source of its fear",
                                        who="gm"))
    def do_search(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A skill roll against the hider's Stealth or Hide Score (R-C-HID); without a
        target, one roll against the score of every hidden enemy the actor has not found
        (``found`` lists whom it finds). Success: the actor knows where it is, so its attacks
        on the actor lose the Hidden +2, and a player whose character it is sees it."""
        if command.a.target is not None:
            events = self.do_skill(state, self.search_command(state, command), dice)
            data = events[0].data
            target = command.a.target
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
           shared=ROLL_FIELDS,
           optional=("ds", "success", "target", "why"))
    def apply_searched(self, state: EncounterState, data: payloads.Searched) -> None:
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
             type=args.choice("the damage type the armor's DR is shown against", *DAMAGE_TYPES,
                              default="slashing"))
    def do_check(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A creature's derived numbers, as the rules work them out now."""
        me = self.creature(state, command.a.target)
        horizontal, vertical = jump_limits(state, me)
        damage_type = command.a.type
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
    def apply_checked(self, state: EncounterState, data: payloads.Checked) -> None:
        return None
