"""Attacks in zones: the ranged ``attack`` (resolved in the order of Z-RA-3; an AoE by
:mod:`.aoe`), melee (ruling ZR-1, Z-MI-1), what a blind attack tells the player (Z-BLI-6), and
``check``, which plans an attack without rolling for the simulator's tactics."""

from __future__ import annotations

import re
import threading
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Command, Condition, Deferred, EncounterState, Event, IllegalCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource, roll
from . import payloads, shots
from .aoe import (
    Aoe,  # the topic below (a chain)
    attack_aoe,
)
from .cover import cover_bonus
from .damage import Hit, damage_events, hit_for, injury_of
from .damage import run as run_damage
from .model import (
    RANGE_BANDS,
    Creature,
    MeleePlan,
    Shot,
    allies,
    creatures,
    engaged,
    outnumbering_counts,
)
from .rolls import HINDRANCE_LIMIT, offense_expression, roll_check
from .shots import critical_hit, defense_roll
from .turns import aftermath

BLIND_NOBODY = "nobody there"
BLIND_LEARNS = "nothing: gone, or simply missed"
BLIND_SECRET = frozenset({"target", "defense", "random_target", "outcome", "attacker_learns",
                          "taken", "pipeline", "injury", "results", "kinetic_shielding"})
"""What a blind attack's record tells only the GM when the target is hidden from the player
(``ZonesRuleset.public_event``)."""

_CHECKED_ATTACK = frozenset({
    "weapon", "target", "targets", "range", "unaimed", "blind", "full_auto", "one_handed",
    "marksmanship", "aoe", "spread", "engagement", "group", "hindrance", "caution"})
"""The ``attack`` arguments that ``plan_shot`` reads (and refuses when malformed); the others
(critical, defense_hindrance, defend_with, injury...) are read after the offense roll."""
_PLAIN_DICE = re.compile(r"^[1-9]\d?d[1-9]\d{0,2}(k[hl]1)?$")
"""Offense dice that roll without any refusal: a few dice, kept whole or keeping one."""


@mypyc_attr(allow_interpreted_subclasses=True)
class Attacks(Aoe):
    """Ranged and melee attacks, and checking them before any die is rolled."""


    @command("A ranged attack (a slowing major action; unaimed: not slowing): offense roll, "
             "the target's defense roll on DEX, then damage and drive.",
             who="player", actor="required", cost="major/slowing",
             rules=("Z-RA-1", "Z-RA-2", "Z-RA-3", "Z-RA-4", "Z-RA-5", "Z-RA-6", "Z-RA-7",
                    "Z-RA-8", "Z-HND-1", "Z-HND-2", "Z-UNA-1", "Z-BLI-1", "Z-BLI-2",
                    "Z-BLI-3", "Z-BLI-4", "Z-BLI-5", "Z-BLI-6", "Z-BLI-7", "Z-BLI-8",
                    "Z-MI-1", "Z-MI-2", "Z-THR-1", "Z-THR-2", "Z-THR-3", "Z-INJ-1", "Z-INJ-2",
                    "Z-FA-1", "Z-FA-2", "Z-FA-3", "Z-FA-4", "Z-AOE-1", "Z-AOE-2", "Z-AOE-3",
                    "Z-AOE-4", "Z-AOE-5", "Z-AOE-6", "Z-AOE-7", "Z-AOE-8", "Z-AOE-9",
                    "Z-AOE-10", "Z-AOE-11", "Z-AOE-12", "Z-AOE-13", "Z-AOE-14", "Z-AOE-15",
                    "Z-AOE-16", "Z-EAO-1", "Z-EAO-2", "Z-EAO-3", "Z-OVR-1", "Z-OVR-2",
                    "Z-OVR-3", "Z-OVR-4", "Z-PAO-1", "Z-COV-7", "Z-COV-8", "Z-COV-12",
                    "Z-COV-13", "Z-COV-15", "Z-COV-16", "Z-COV-17", "Z-FLK-1", "Z-FLK-2",
                    "Z-FLK-4", "Z-FLK-5", "Z-FLK-6", "Z-FLK-7", "Z-THR-4", "ZR-3", "ZR-6"),
             target=args.creature("the creature attacked (a burst's direct target)",
                                  refers="enemy"),
             weapon=args.value("the one ranged weapon or weapon-equivalent Ability used, by "
                               "name (default: the first ranged one); a list of several is "
                               "refused (Z-RA-7)"),
             range=args.choice("the range band, when the GM rules it (default: from the zone "
                               "map, ruling ZR-4)", *RANGE_BANDS, who="gm"),
             unaimed=args.flag("an unaimed attack: incompetent, but not slowing (Z-UNA-1)"),
             blind=args.flag("a blind attack at an unseen enemy in a known engagement "
                             "(Z-BLI-2)"),
             engagement=args.text("the engagement a blind attack aims at", max_len=64),
             location_known=args.flag("the attacker knows the unseen enemy's engagement "
                                      "(the GM's call, Z-BLI-3; default: an ally is there)",
                                      default=None, who="gm"),
             full_auto=args.flag("full-auto fire: full-auto damage, 10 rounds (Z-FA-*)"),
             targets=args.creatures("more targets of a full-auto attack", refers="enemy"),
             aoe=args.choice("the AoE made (default: the weapon's own)", "burst", "spray"),
             group=args.text("the group an AoE is aimed at, without a target", max_len=64),
             spread=args.items("the groups or engagements an AoE spreads over (the GM "
                               "determines it, Z-AOE-11)", who="gm"),
             caution=args.flag("an AoE fired with caution (Z-AOE-8)"),
             one_handed=args.flag("the weapon is wielded one-handed (Z-HND-1)"),
             marksmanship=args.items("the Marksmanship Abilities used"),
             critical=args.flag("the GM rules a critical hit (ruling ZR-3)", who="gm"),
             ignore_cover=args.flag("a critical hit denies the cover bonus: the attacker's "
                                    "option (Z-COV-7)", default=True),
             defend_with=args.choice("the defender's armor bonus: cover or shield, never "
                                     "both (Z-COV-12; the defender's choice, not the "
                                     "attacker's: default cover when in cover)", "cover",
                                     "shield", who="gm"),
             group_defense=args.flag("the defender is protected by group defense against an "
                                     "engaged attacker (Z-COV-8)", who="gm"),
             cover_applies=args.flag("the cover protects against this attacker (the GM's "
                                     "call, Z-COV-15)", default=True, who="gm"),
             tall_cover=args.flag("tall cover: a flyer's height does not defeat it "
                                  "(Z-COV-17)", who="gm"),
             hindrance=args.integer("other Hindrance on the offense roll (the GM's "
                                    "situational number)", lo=-HINDRANCE_LIMIT,
                                    hi=HINDRANCE_LIMIT, default=0, who="gm"),
             defense_hindrance=args.integer("other Hindrance on the defense roll (the GM's "
                                            "situational number)", lo=-HINDRANCE_LIMIT,
                                            hi=HINDRANCE_LIMIT, default=0, who="gm"),
             injury=args.text("the injury type, when the GM names it (Z-INJ-1)", max_len=64,
                              who="gm"),
             role="area")
    def do_attack(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A ranged attack (a slowing major action; unaimed, a major one), resolved in the
        order of Z-RA-3: abilities, ammunition, offense roll, the target's defense roll on
        DEX, then damage and drive (an AoE by :func:`.aoe.attack_aoe`)."""
        checked = self._checked_plan(state, command)
        shot = checked if isinstance(checked, Shot) else shots.plan_shot(self, state, command)
        actor = shot.actor
        data: dict[str, Any] = {
            "actor": actor.id, "weapon": shot.weapon.name, "range": shot.band,
            "competent": shot.competent, "action": shot.action, "full_auto": shot.full_auto,
            "order": ["abilities", "ammunition", "offense", "defense", "damage & drive"],
        }
        data.update(self.use(state, actor.id, shot.action) if shot.used is None else shot.used)
        # ``check`` stops here for a plain shot: nothing below may refuse one
        left = actor.ammo.get(shot.weapon.name)
        if left is not None:
            data["ammo"] = {"weapon": shot.weapon.name, "left": left - shot.ammo_cost}
        if shot.aoe is not None:
            return attack_aoe(self, state, command, shot, data, dice)
        offense = roll_check(shot.expr, shot.on, shot.stat, shot.hindrance, dice, state.rulings)
        data["offense"] = offense
        critical, denied = critical_hit(self, state, command, shot, offense)
        data["critical"] = critical
        if denied:
            data["critical_denied"] = denied
        targets = shot.targets
        if shot.blind:
            unseen = [c for c in creatures(state) if c.engagement == shot.engagement
                      and c.zone == shot.zone and c.has("unseen") and not allies(actor, c)
                      and not c.down]
            known = command.a.location_known  # the GM's call, else an ally is there
            if known is None:
                known = any(c.engagement == shot.engagement and allies(actor, c)
                            for c in creatures(state))
            if not known:
                raise IllegalCommand("the attacker does not know where an unseen enemy is, to "
                                     "engagement level (the GM's call)", rule="Z-BLI-3")
            data["engagement"] = shot.engagement
            if not offense["success"]:
                data["hit"] = False
                return [Event("attacked", data)]
            if not unseen:
                data.update(hit=False, outcome=BLIND_NOBODY, attacker_learns=BLIND_LEARNS)
                return [Event("attacked", data)]
            if len(unseen) > 1:
                pick = roll(f"1d{len(unseen)}", dice).total
                data["random_target"] = {"among": [c.id for c in unseen], "roll": pick}
                targets = [unseen[pick - 1]]
            else:
                targets = unseen
            data["target"] = targets[0].id
        elif targets:
            data["target"] = targets[0].id
        if not offense["success"]:
            data["hit"] = False
            return [Event("attacked", data)]
        events: list[Event] = []
        results: dict[str, Any] = {}
        for target in targets:
            result, hit_events = self._ranged_hit(state, command, shot, target, critical, dice)
            results[target.id] = result
            events += hit_events
        if len(targets) == 1:
            data.update(results[targets[0].id])
        else:
            data["results"] = results
            data["hit"] = any(r["hit"] for r in results.values())
        return [Event("attacked", data), *events, *aftermath(self, state, events)]

    def public_event(self, event_type: str, data: dict[str, Any],
                     concealed: frozenset[str]) -> dict[str, Any]:
        """Z-BLI-6: a blind attack whose offense roll succeeds but hits nobody tells the
        attacker nothing: gone, or simply missed. A player who cannot see the unseen enemies
        gets the same record whether nobody was there or the enemy there defended (no
        target, no defense roll, and the dice of neither), and of a hit only that it hit."""
        if event_type != "attacked" or "engagement" not in data:
            return super().public_event(event_type, data, concealed)  # not a blind attack
        target = data.get("target")
        if data.get("outcome") != BLIND_NOBODY and (target is None or target not in concealed):
            return data
        shown = {k: v for k, v in data.items() if k not in BLIND_SECRET}
        if not data.get("hit") and data.get("offense", {}).get("success"):
            shown["attacker_learns"] = BLIND_LEARNS
        return shown

    @event("{actor} attacks[ {target}] with {weapon} at {range} range[ ({aoe} AoE)]"
           "[; offense {offense.text}][ ({offense_note})][; defense {defense.text}]"
           "; {hit?hit|no hit}[{critical?, a critical hit|}][, {taken} damage]"
           "[ ({injury.type})][; damage taken: {damage_taken}][; {cover_ignored}]"
           "[{stopped_by_cover?; stopped by cover|}][; {critical_denied}][; {outcome}]"
           "[; {collapse_check}].",
           player="{actor} attacks[ {target}] with {weapon} at {range} range[ ({aoe} AoE)]"
           "[; offense {offense.text}][ ({offense_note})][; defense {defense.text}]"
           "; {hit?hit|no hit}[{critical?, a critical hit|}][, {taken} damage]"
           "[ ({injury.type})][; damage taken: {damage_taken}][; {cover_ignored}]"
           "[{stopped_by_cover?; stopped by cover|}][; {critical_denied}]"
           "[; the attacker learns {attacker_learns}].",
           actor=args.creature("the attacker"), weapon=args.text("the weapon"),
           range=args.text("the range band"),
           competent=args.flag("a competent attack"),
           action=args.text("the action spent: major, or major/slowing"),
           full_auto=args.flag("full-auto fire"),
           order=args.items("the order of resolution (Z-RA-3)"),
           ammo=args.mapping("the weapon and the rounds left"),
           offense=args.mapping("the offense roll (none: blinded, or a non-damaging AoE)"),
           offense_note=args.text("why there is no offense roll"),
           offense_success=args.flag("the offense roll counts as a success (AoE)"),
           critical=args.flag("a critical hit"),
           critical_denied=args.text("why the attack cannot be a critical hit"),
           engagement=args.text("the engagement a blind attack aimed at"),
           target=args.creature("the creature attacked"),
           random_target=args.mapping("the unseen enemies and the die that picked one "
                                      "(Z-BLI-5)"),
           outcome=args.text("a blind attack that found nobody"),
           attacker_learns=args.text("what a blind attacker is told (Z-BLI-6)"),
           defense=args.mapping("the target's defense roll"),
           hit=args.flag("the attack hit someone"),
           cover_ignored=args.text("why the cover bonus did not count"),
           stopped_by_cover=args.flag("the cover bonus stopped it: not a hit (Z-COV-13)"),
           taken=args.integer("damage taken"),
           pipeline=args.mapping("the steps of damage and drive"),
           injury=args.mapping("the injury type and its d20"),
           results=args.mapping("each target's result (full-auto at several targets)"),
           aoe=args.text("burst or spray"),
           aoe_source=args.text("weapon, energy, overeffect, projectile or effect"),
           impact=args.mapping("the impact's damage and drive"),
           area=args.mapping("the area effect's damage and drive"),
           impact_hit=args.flag("the direct target took the impact"),
           inclusion=args.mapping("each candidate's chance, d100 and inclusion"),
           effects=args.mapping("who took impact or area"),
           damage_taken=args.mapping("damage taken by each creature struck"),
           collapse_check=args.text("a powerful AoE indoors (Z-AOE-16)"),
           optional=("ammo", "aoe", "aoe_source", "area", "attacker_learns", "collapse_check",
                     "cover_ignored", "critical", "critical_denied", "damage_taken", "defense",
                     "effects", "engagement", "impact", "impact_hit", "inclusion", "injury",
                     "offense", "offense_note", "offense_success", "outcome", "pipeline",
                     "random_target", "results", "stopped_by_cover", "taken", "target"))
    def apply_attacked(self, state: EncounterState, data: payloads.Attacked) -> None:
        ammo = data.get("ammo")
        if ammo is not None:  # replaced, never changed in place (metadata=SHARED in model.py)
            who = self.creature(state, data["actor"])
            who.ammo = {**who.ammo, ammo["weapon"]: ammo["left"]}

    def _ranged_hit(self, state: EncounterState, command: Command, shot: Shot,
                    target: Creature, critical: bool,
                    dice: DiceSource) -> tuple[dict[str, Any], list[Event]]:
        """The defense roll and, if it fails, damage and drive (Z-RA-3, Z-COV-13)."""
        defense = defense_roll(self, state, command, shot.actor, target, shot.band, dice)
        result: dict[str, Any] = {"target": target.id, "defense": defense}
        if defense["success"]:
            result["hit"] = False
            return result, []
        bonus, label, why = cover_bonus(self, state, command, shot.actor, target, shot.band,
                                        critical)
        if why:
            result["cover_ignored"] = why
        effect = shot.normal
        if shot.weapon.effect and effect.damage == 0:
            if label == "cover":  # cover always protects against such effects (Z-COV-13)
                result.update(hit=False, stopped_by_cover=True)
                return result, []
            result["hit"] = True
            return result, [Event("condition_added", {"target": target.id, "condition":
                                                      Condition(shot.weapon.effect).to_json()})]
        hit = hit_for(state, target, effect, shot.weapon, shot.full_auto, bonus, label,
                      drive_only=False)
        calc = run_damage(effect.damage, shot.weapon.type, hit)
        if label == "cover" and calc.amount == 0:
            bare = run_damage(effect.damage, shot.weapon.type, hit_for(
                state, target, effect, shot.weapon, shot.full_auto, 0, "", False))
            if bare.amount > 0:  # stopped by the cover bonus: not a hit (Z-COV-13)
                result.update(hit=False, stopped_by_cover=True,
                              pipeline=Deferred(calc.to_json))
                return result, []
        result["hit"] = True
        injury = injury_of(self, command, calc.amount, dice, area_damage=False)
        pipeline = Deferred(calc.to_json)  # the same steps in both records, as the injury is
        events = damage_events(target, pipeline, calc.amount,
                               calc.notes.get("shielding_used", 0), injury,
                               shot.actor.id)
        result.update(taken=calc.amount, pipeline=pipeline, injury=injury)
        return result, events

    @command("A melee attack (a major action): offense and defense d20 on DEX, damage + STR "
             "against armor and shield; it interferes with the target's ranged attacks.",
             who="player", actor="required", cost="major",
             rules=("ZR-1", "Z-MI-1", "Z-COV-9"),
             target=args.creature("the creature attacked (engaged or grappled)",
                                  refers="enemy", required=True),
             weapon=args.text("the melee weapon (default: the first, else unarmed)",
                              max_len=64),
             no_offense_roll=args.flag("the attack needs no offense roll (the GM's call: "
                                       "an Ability's or a device's rule)", who="gm"),
             hindrance=args.integer("other Hindrance on the offense roll (the GM's "
                                    "situational number)", lo=-HINDRANCE_LIMIT,
                                    hi=HINDRANCE_LIMIT, default=0, who="gm"))
    def do_melee(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A melee attack (a major action, ruling ZR-1): offense d20 on DEX, defense d20 on
        DEX, damage + STR against armor and shield. An offense roll that succeeds (or none
        needed) interferes with the target's ranged attacks (Z-MI-1)."""
        checked = self._checked_plan(state, command)
        actor, target, weapon, data, hindrance, no_roll = checked if isinstance(
            checked, tuple) else self._plan_melee(state, command)  # a MeleePlan (a Shot: not)
        if no_roll:
            data["offense"] = None
            success = True
        else:
            offense = roll_check("1d20", "DEX", actor.stat("DEX"), hindrance, dice,
                                 state.rulings)
            data["offense"] = offense
            success = offense["success"]
        events: list[Event] = []
        if success:
            data["interferes"] = True
            events.append(Event("interfered", {"target": target.id, "by": actor.id}))
            d_h = {"melee disadvantage (cover)": 2 if target.has("cover") else 0}
            defense = roll_check("1d20", "DEX", target.stat("DEX"), d_h, dice, state.rulings)
            data["defense"] = defense
            data["hit"] = not defense["success"]
            if data["hit"]:
                damage = weapon.damage + actor.stat("STR")
                drive = (weapon.damage if weapon.energy else weapon.drive) + (
                    actor.stat("STR") if weapon.str_drive else 0)  # weapon.normal's drive
                label = "shield" if target.shield else ""
                hit = Hit(armor=target.armor, drive=drive, bonus=target.shield,
                          bonus_label=label, rulings=state.rulings)
                calc = run_damage(damage, weapon.type, hit)
                pipeline = Deferred(calc.to_json)  # the same steps in both records
                data.update(taken=calc.amount, pipeline=pipeline)
                events += damage_events(target, pipeline, calc.amount, 0, None, actor.id)
        else:
            data["hit"] = False
        return [Event("melee_attacked", data), *events, *aftermath(self, state, events)]

    def _plan_melee(self, state: EncounterState, command: Command) -> MeleePlan:
        """Check a melee attack, rolling nothing: attacker, target, weapon, the event's data
        so far, the offense Hindrance and whether no offense roll is made."""
        actor = self.acting(state, command)
        a = command.a
        target = self.creature(state, a.target)
        if target.id == actor.id:
            raise IllegalCommand("a creature cannot attack itself", rule="ZR-1")
        if target.down:
            raise IllegalCommand(f"{target.id} is already down")
        if not engaged(actor, target) and actor.grappling() != target.id:
            raise IllegalCommand(f"{actor.id} is not engaged with {target.id}", rule="ZR-1",
                                 remedy=("move", "move into its engagement first"))
        weapon = actor.weapon(_default_melee(actor) if a.weapon is None else a.weapon)
        if weapon.kind != "melee":
            raise IllegalCommand(f"{weapon.name} is not a melee weapon: use attack")
        data: dict[str, Any] = {"actor": actor.id, "target": target.id, "weapon": weapon.name,
                                "melee": True,
                                "outnumbering": outnumbering_counts(state, actor, target)}
        data.update(self.use(state, actor.id, "major"))
        disadvantage = 2 if actor.has("cover") else 0  # 2 degrees (Z-COV-9, ruling ZR-1)
        hindrance = {"melee disadvantage (cover)": disadvantage}
        other = a.hindrance  # the GM's
        if other:
            hindrance["other"] = other
        return actor, target, weapon, data, hindrance, a.no_offense_roll

    @event("{actor} attacks {target} in melee with {weapon}[; offense {offense.text}]"
           "[; defense {defense.text}]; {hit?hit|no hit}[, {taken} damage]"
           "[{interferes?; melee interference|}].",
           actor=args.creature("the attacker"), target=args.creature("the creature attacked"),
           weapon=args.text("the weapon"), melee=args.flag("a melee attack"),
           offense=args.mapping("the offense roll (none: none needed)"),
           interferes=args.flag("it interferes with the target's ranged attacks (Z-MI-1)"),
           defense=args.mapping("the target's defense roll"),
           hit=args.flag("the attack hit"), taken=args.integer("damage taken"),
           pipeline=args.mapping("the steps of armor, shield and drive"),
           outnumbering=args.mapping("the creatures of the attacker's and the defender's "
                                     "groups counted for outnumbering dice: not those in "
                                     "cover (Z-COV-9, ruling ZR-8)"),
           optional=("defense", "interferes", "offense", "pipeline", "taken"))
    def apply_melee_attacked(self, state: EncounterState, data: payloads.MeleeAttacked) -> None:
        return None

    @event("{by}'s melee attack interferes with {target}'s ranged attacks.",
           target=args.creature("who suffers melee interference"),
           by=args.creature("the melee attacker"))
    def apply_interfered(self, state: EncounterState, data: payloads.Interfered) -> None:
        who = self.creature(state, data["target"])
        if data["by"] not in who.interference:  # replaced (metadata=SHARED in model.py)
            who.interference = [*who.interference, data["by"]]

    def plan_shot(self, state: EncounterState, command: Command) -> Shot:
        """Check a ranged attack and work out its dice and Hindrance, rolling nothing
        (:func:`.shots.plan_shot`), the command bound first (``decide`` and ``check`` have
        bound it already and call that function)."""
        return shots.plan_shot(self, state, self.bound(command))

    def check(self, state: EncounterState, command: Command) -> None:
        """Raise the RulesError that ``decide`` would raise for ``command``, else nothing,
        rolling as little as possible (the simulator's tactics ask before they offer a
        command).

        A ``melee``, and an ``attack`` that is a single plain shot (no AoE, not blind, plain
        offense dice, none of the arguments read after the offense roll), are checked up to
        their first roll, after which they refuse nothing; anything else is decided with
        throw-away dice (rolled only if the command rolls). tests/rulesets/zones compare
        this with ``decide`` on every command the tactics offer in played encounters."""
        _MEMO.checked = None
        self.bound(command)  # as ``decide`` does first: the same refusal of a malformed one
        if state.ruleset and command.name == "attack" \
                and _CHECKED_ATTACK.issuperset(command.args):
            shot = shots.plan_shot(self, state, command)
            if shot.aoe is None and not shot.blind and _plain_dice(
                    offense_expression(shot.expr, state.rulings)):
                shot.used = self.use(state, shot.actor.id, shot.action)  # decide's, kept
                _MEMO.checked = (state, state.version, command, shot)
                return
        elif state.ruleset and command.name == "melee":
            _MEMO.checked = (state, state.version, command, self._plan_melee(state, command))
            return
        super().check(state, command)

    def _checked_plan(self, state: EncounterState, command: Command) -> Shot | MeleePlan | None:
        """The plan ``check`` made for this very command on this very state (the same
        objects, and no event applied since: the same version), once; else None."""
        checked: Checked | None = getattr(_MEMO, "checked", None)
        if checked is None:
            return None
        _MEMO.checked = None
        if checked[0] is state and checked[2] is command and checked[1] == state.version:
            return checked[3]
        return None


Checked = tuple[EncounterState, int, Command, Shot | MeleePlan]
"""What ``check`` planned last: the state, its version, the command, the plan."""
_MEMO = threading.local()
"""``checked``: what ``Attacks.check`` planned last in this thread (:data:`Checked`), for
``decide`` of the same command right after it: the simulator's tactics check a command and
it is decided at once, which then does not plan it a second time. Per thread, so that the
server's pool (odds and options of several encounters at once) never hands a plan from one
request to another (tests/core/test_promises.py). Measured for issue 19 on bench/sim.py's
zones-4v4 (encounters per CPU second, best of 11 runs with and without it, alternating):
127 with this memo, 113 without (+13%); without ``check``'s early answer too (every check
decided with throw-away dice, best of 6) 87. Both kept."""


def memo_of(rules: object) -> Checked | None:
    """This thread's memo (``rules`` is any zones ruleset: the memo is the module's)."""
    found: Checked | None = getattr(_MEMO, "checked", None)
    return found


_PLAIN: dict[str, bool] = {}
"""Whether each offense expression seen is plain (:data:`_PLAIN_DICE`), by expression."""


def _plain_dice(expr: str) -> bool:
    """Whether offense dice roll without any refusal (:data:`_PLAIN_DICE`), kept per
    expression: every shot the tactics check asks."""
    plain = _PLAIN.get(expr)
    if plain is None:
        plain = _PLAIN_DICE.match(expr) is not None
        if len(_PLAIN) >= 1024:
            _PLAIN.clear()
        _PLAIN[expr] = plain
    return plain


def _default_melee(actor: Creature) -> str:
    for name, spec in actor.weapons.items():
        if spec.get("kind") == "melee" and name != "unarmed":
            return name
    return "unarmed"
