"""Attacks in Polemos (P-ATK-*): attacking with a weapon, the attack and defense rolls, the
body area hit, the weapon damage, and spending critical damage points (P-CDP-*); the
checks an attack, a move or spending points run before any die is rolled (``check``).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
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
    RulesError,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.memo import kept
from ...core.rounding import round_down
from ...dice import DiceSource, roll
from . import payloads
from .actions import KINDS, kind_of
from .base import PolemosBase, also, reach_args
from .checks import (
    DICE_ARGS,
    chance,
    check_dice_counts,
    dice_modifier,
    roll_skill,
    skill_distribution,
    success,
)
from .cover import concealment, defense_concealment
from .damage import choose_weapon, damage_events, type_name
from .model import Creature, DamageType, Weapon
from .movement import (
    MovementRules,  # the topic below (a chain)
    move_checks,
)

CRITICAL_EFFECTS = {"unknown-wound": 1, "fatigue-wounds": 1, "daze": 2}
"""The default critical damage point menu and costs (P-CDP-7)."""


@lru_cache(maxsize=4096)
def attack_odds(attack_value: int, bonus: int, penalty: int, defense_value: int,
                 defense_dice: int, defense_penalty: int, rule2: str, ties: str, modifier: int,
                 threshold: int,
                 ) -> tuple[Fraction, Fraction, tuple[tuple[int, Fraction], ...], Fraction]:
    """The exact odds of an attack from the numbers that decide them (pure, so cached): the
    chance to hit and to miss, the chance of each number of critical damage points (P-CDP-1,
    P-CDP-2, by damage roll 1D6 + modifier) and the mean damage roll."""
    attack = skill_distribution(attack_value, bonus, penalty, rule2)
    defense = skill_distribution(defense_value, defense_dice, defense_penalty, rule2)
    hit = chance(attack - defense, 0, ties)
    critical: dict[int, Fraction] = {}
    for face in range(1, 7):
        points = round_down(max(face + modifier, 0), threshold)
        critical[points] = critical.get(points, Fraction(0)) + hit / 6
    critical[0] = critical.get(0, Fraction(0)) + (1 - hit)
    return hit, 1 - hit, tuple(sorted(critical.items())), Fraction(7, 2) + modifier


class AttackSetup:
    """What :func:`attack_setup` read and checked of an attack, for its rolls (a native class
    in the compiled build: read at fixed offsets, where a dict of fourteen keys was built
    and read by name every attack)."""

    def __init__(self, actor: Creature, target: Creature, weapon_name: str, weapon: Weapon,
                 type: str, area: str | None, bonus: int, penalty: int, defense_skill: str,
                 defense_bonus: int, defense_dice: int, defense_penalty: int,
                 concealment: str, covered: list[str]) -> None:
        self.actor = actor
        self.target = target
        self.weapon_name = weapon_name
        self.weapon = weapon
        self.type = type
        self.area = area
        self.bonus = bonus
        self.penalty = penalty
        self.defense_skill = defense_skill
        self.defense_bonus = defense_bonus
        self.defense_dice = defense_dice
        self.defense_penalty = defense_penalty
        self.concealment = concealment
        self.covered = covered


def attack_setup(rules: PolemosBase, state: EncounterState, command: Command) -> AttackSetup:
    a = command.a
    actor = rules.acting(state, command)
    target = rules.creature(state, a.target)
    if target.id == actor.id:
        raise IllegalCommand("a creature cannot attack itself", rule="P-ATK-1")
    rules.check_detected(state, actor, target)  # P-REQ-1, P-STL-1
    weapon_name, weapon, dtype = choose_weapon(rules, actor, command)
    gap = rules.range_between(state, actor, target, command)
    if gap is not None and gap > weapon.range:  # P-RNG-1
        raise IllegalCommand(f"{target.id} is {gap} squares away, beyond the "
                             f"{weapon.range}-square range of the {weapon_name}",
                             rule="P-RNG-1", remedy=("move", "move within range"))
    # P-REQ-5: a weapon's target is reachable when its blow or shot can get there
    # (``check_reachable`` with the detection checked above and the range just measured:
    # it checked and measured them again)
    if not rules.reach_held(state, actor, target, command):
        rules.check_reach_gap(state, actor, target, weapon.range, gap)
    area: str | None = a.area
    if area is not None:
        target.area(area)  # P-TGT-4: must be one of the target's body areas
    elif rules.ruling(state, "AP-12") == "gm-chooses":
        raise InvalidCommand("attack: name the body area hit (ruling AP-12 gm-chooses)")
    bonus, penalty = dice_modifier(command)
    defense_skill = f"{weapon.skill}_defense"
    level, covered = concealment(state, target, command)
    # P-COV-2: concealment helps [firearm defense] only
    _, defense_bonus, defense_dice = defense_concealment(rules, state, target, defense_skill,
                                                               command)
    return AttackSetup(actor, target, weapon_name, weapon, dtype, area, bonus, penalty,
                       defense_skill, defense_bonus, defense_dice, a.defense_penalty, level,
                       covered)


Expected = tuple[float, Fraction]
"""An attack's expected damage (:func:`expected_damage`) as a key that orders as the
fraction: the float first, which orders as the fraction wherever the floats differ
(rounding is monotonic), the fraction where they are equal. A fraction's own comparison and
its ``float()`` are interpreted code: a tactic's sort ran them about 60 times a fight."""


_EXPECTED: dict[tuple[int, int, int, str, str, int, int], Expected] = {}
""":func:`expected_damage` by its arguments (a plain dict: ``lru_cache``'s calls, with those
of ``damage.type_name``, were 1.9% of a simulated Polemos fight's instructions). Bounded:
emptied when it reaches :data:`_EXPECTED_KEPT`."""
_EXPECTED_KEPT = 4096


def expected_damage(attack_value: int, defense_value: int, defense_dice: int, rule2: str,
                    ties: str, modifier: int, threshold: int) -> Expected:
    """The chance to hit × the mean damage roll of an attack with no bonus or penalty dice
    (``attack_odds``; pure, so kept, :data:`_EXPECTED`), as :data:`Expected`."""
    key = (attack_value, defense_value, defense_dice, rule2, ties, modifier, threshold)
    found = _EXPECTED.get(key)
    if found is None:
        hit, _, _, mean = attack_odds(attack_value, 0, 0, defense_value, defense_dice, 0,
                                      rule2, ties, modifier, threshold)
        expected = hit * mean
        found = kept(_EXPECTED, key, (float(expected), expected), _EXPECTED_KEPT)
    return found


_SHARED: dict[tuple[str, str, str | None, str | None], Command] = {}
"""The attack commands :func:`attack_choices` gives, by actor, target, weapon and type: the
same few every turn of a fight, each bound once (a command is never changed once made, so
they may be shared; binding a new one each time was 5% of a simulated Polemos fight).
Bounded: emptied when it reaches :data:`_SHARED_KEPT`."""
_SHARED_KEPT = 4096


def shared_attack(actor_id: str, target_id: str, weapon: str | None = None,
                  kind: str | None = None) -> Command:
    """The command ``attack`` of ``actor_id`` on ``target_id``, naming ``weapon`` and ``kind``
    when given, shared (:data:`_SHARED`)."""
    key = (actor_id, target_id, weapon, kind)
    found = _SHARED.get(key)
    if found is None:
        args: dict[str, Any] = {"target": target_id}
        if weapon is not None:
            args["weapon"] = weapon
        if kind is not None:
            args["type"] = kind
        found = kept(_SHARED, key, Command("attack", actor_id, args), _SHARED_KEPT)
    return found


def attack_choices(rules: PolemosBase, state: EncounterState, actor_id: str,
                   target_id: str) -> list[tuple[Expected, Command]]:
    """Every attack of ``actor_id`` on ``target_id`` with one of its weapons and damage types
    (the command names only target, weapon and type), with its expected damage (``odds``:
    hit × damage_mean, as :data:`Expected`), in the order of the weapons and their types;
    those ``odds`` refuses (out of range, say) left out. The same answers as asking
    ``odds`` for each command, but what does not depend on the weapon (the actor, the
    target, the range, reach and the path; with no angle, concealment refuses nothing) is
    checked and read once for all: a tactic asks this for every target it considers
    (measured on polemos-4v4: 224 attack set-ups a fight before, 41 after, with
    ``attack_choice_accepted``)."""
    probe = rules.bound(shared_attack(actor_id, target_id))
    rule2, ties = rules.ruling(state, "AP-2"), rules.ruling(state, "AP-1")
    try:  # attack_setup's checks that do not depend on the weapon
        actor = rules.acting(state, probe)
        target = rules.creature(state, target_id)
        if target.id == actor.id:
            return []
        rules.check_detected(state, actor, target)
        if not actor.weapons:
            return []
        gap = rules.range_between(state, actor, target, probe)
        if not rules.reach_held(state, actor, target, probe):  # the range: for each weapon
            rules.check_reach_gap(state, actor, target, gap, gap)
        if rules.ruling(state, "AP-12") == "gm-chooses":
            return []
    except RulesError:
        return []
    out: list[tuple[Expected, Command]] = []
    defenses: dict[str, tuple[int, int]] = {}  # concealment's bonus and dice, by skill
    for name, weapon in actor.weapons.items():
        if gap is not None and gap > weapon.range:  # P-RNG-1, P-REQ-5
            continue
        for kind in weapon.types():
            try:  # choose_weapon, for a weapon the actor has and a type named
                dtype = type_name(kind) if isinstance(name, str) and isinstance(kind, str) \
                    else None
                if dtype is None or dtype not in weapon.damage:
                    continue
                defense_skill = f"{weapon.skill}_defense"
                defense = defenses.get(defense_skill)
                if defense is None:  # no angle: the same for every weapon of the skill
                    _, defense_bonus, defense_dice = defense_concealment(
                        rules, state, target, defense_skill, probe)
                    defense = defenses[defense_skill] = (defense_bonus, defense_dice)
            except RulesError:
                continue
            out.append((expected_damage(
                actor.skill(weapon.skill), target.skill(defense_skill) + defense[0],
                defense[1], rule2, ties, weapon.damage[dtype], actor.critical_threshold),
                shared_attack(actor.id, target.id, name, kind)))
    return out


def attack_checks(rules: PolemosBase, state: EncounterState,
                  command: Command) -> tuple[AttackSetup, dict[str, Any], bool]:
    """Everything that may refuse an attack, before a die is rolled: the set-up, the
    action spent (its event data) and whether the target is willing."""
    s = attack_setup(rules, state, command)
    data, willing = attack_action(rules, state, command, s.actor)
    check_dice_counts(s.bonus, s.penalty)  # as the skill pools would refuse them
    check_dice_counts(s.defense_dice, s.defense_penalty)
    return s, data, willing


def attack_action(rules: PolemosBase, state: EncounterState, command: Command,
                  actor: Creature) -> tuple[dict[str, Any], bool]:
    """What ``attack_checks`` asks after the set-up: the action the attack spends (its event
    data; P-ACT-1, once a round; the economy) and whether the target is willing."""
    data = rules.use(state, actor, kind_of(command), command.a.ability)
    willing: bool = command.a.willing
    return data, willing


def attack_choice_accepted(rules: PolemosBase, state: EncounterState,
                           command: Command) -> bool:
    """Whether ``check`` accepts ``command``, one of the attacks ``attack_choices`` gave for
    this same state: its set-up's checks passed there, so only the declaration and the
    action (``attack_action``) are asked here; its dice counts are all 0 (no bonus or
    penalty, concealment's bonus dice never negative). A tactic asks it of the attack it
    chose (measured on polemos-4v4: the set-up not run again 39 times a fight)."""
    try:
        if not state.ruleset:
            rules.check(state, command)  # refuses: the encounter is not created yet
        rules.bound(command)
        attack_action(rules, state, command, rules.acting(state, command))
    except RulesError:
        return False
    return True


def critical_checks(rules: PolemosBase, state: EncounterState,
                    command: Command) -> tuple[str, int, int, str | None, str | None, Creature]:
    """Everything that may refuse spending critical damage points, but the body area of
    an unknown wound: the effect, its cost, the points, the creature and area they were
    earned on, and the target."""
    effect: str = command.a.effect
    cost = CRITICAL_EFFECTS[effect]
    if command.actor is None:  # P-CDP-8
        pool = dict(state.extra.get("gm_critical", {}))
        owner, points = "the GM", int(pool.get("points", 0))
        earned_on, hit_area = pool.get("target"), pool.get("area")
    else:
        actor = rules.creature(state, command.actor)
        owner, points = actor.id, actor.critical_points
        earned_on, hit_area = actor.critical_target, actor.critical_area
    if points < cost:
        raise IllegalCommand(f"{owner} has {points} critical damage point(s); {effect} "
                             f"costs {cost}", rule="P-CDP-7")
    target = rules.creature(state, command.a.target or earned_on or "")
    relevant: bool = command.a.relevant
    if target.id != earned_on and not relevant:  # P-CDP-3: relevant to the attack made
        raise IllegalCommand(f"the critical damage points were earned against "
                             f"{earned_on}, not {target.id} (the GM may rule it relevant "
                             "with 'relevant: true')", rule="P-CDP-3")
    return effect, cost, points, earned_on, hit_area, target


@mypyc_attr(allow_interpreted_subclasses=True)
class AttackRules(MovementRules):
    """Attacks, hits and critical damage points."""

    def check(self, state: EncounterState, command: Command) -> None:
        """Raise the RulesError ``decide`` would raise for ``command`` (nothing when the rules
        accept it), for a policy or a person asking before acting. An attack, a move and
        spending critical damage points (but on an unknown wound, whose area is checked with
        the wound) run only their checks, which ``decide`` runs first, before any die is
        rolled; any other command is decided with throw-away dice. The command is first
        checked against its declaration, as ``decide`` does."""
        if state.ruleset and command.name in ("attack", "move", "critical") and (
                command.name != "critical"
                or self.bound(command).a.effect != "unknown-wound"):
            self.bound(command)
            checks: dict[str, Callable[[PolemosBase, EncounterState, Command], object]] = {
                "attack": attack_checks, "move": move_checks, "critical": critical_checks}
            checks[command.name](self, state, command)
            return
        super().check(state, command)

    @also(**DICE_ARGS, **reach_args())
    @command("Attack with a weapon: 2D6 + skill against the target's defense roll; weapon "
             "damage 1D6 + modifier on a hit.", who="player", actor="required",
             cost="primary", looks_past=True,
             rules=("P-ATK-1", "P-ATK-2", "P-ATK-5", "P-ACT-1", "P-DTY-2", "P-DMG-2",
                    "P-DMG-4", "P-RNG-1", "P-REQ-1", "P-REQ-5", "P-STL-1", "P-TGT-4",
                    "P-COV-2", "P-COV-4", "P-CDP-1", "P-CDP-2", "P-SKL-2", "AP-1", "AP-2",
                    "AP-12", "AP-17"),
             target=args.creature("the creature attacked", refers="enemy", required=True),
             weapon=args.text("the weapon (default: the first)", max_len=64),
             type=args.text("the damage type, e.g. slashing or bashing (stamina) (needed "
                            "when the weapon has several)", max_len=64),
             area=args.text("the body area aimed at (default: a random one)", max_len=64),
             angle=args.value("the concealment level the angle of attack leaves: none, "
                              "quarter, half, total or a percentage (P-COV-4; the GM's: "
                              "default, the target's whole concealment)", who="gm"),
             kind=args.choice("the action it takes (the ability's, the GM's)", *KINDS,
                              default="primary", who="gm"),
             ability=args.text("the ability used (once a round each)", default="attack",
                               max_len=64),
             willing=args.flag("the target is willing: not attacked, no defense roll (the "
                               "GM's)", who="gm"),
             defense_penalty=args.integer("penalty dice on the defender's defense roll, "
                                          "-ND6 (P-DICE-2, P-DICE-3; the situation's, the "
                                          "GM's)", lo=0, hi=20, default=0, who="gm"))
    def do_attack(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Attack with a weapon (ruling AP-1): 2D6 + the weapon skill against the target's
        defense roll; on a hit, weapon damage (1D6 + modifier) on the body area aimed at or
        a random one (1D<areas>), through armor."""
        s, data, willing = attack_checks(self, state, command)
        actor, target, weapon = s.actor, s.target, s.weapon
        rule2, ties = self.ruling(state, "AP-2"), self.ruling(state, "AP-1")
        attack = roll_skill(actor.skill(weapon.skill), s.bonus, s.penalty, rule2, dice)
        # items set one by one, in this order (the log's): ``update`` with keywords builds
        # a dict of them first, a call by name (twice an attack)
        data["target"] = target.id
        data["weapon"] = s.weapon_name
        data["type"] = s.type
        data["attack"] = not willing
        data["attack_roll"] = Deferred(attack.to_json)
        data["attack_total"] = attack.total
        data["concealment"] = s.concealment
        if willing:  # P-ATK-2: a willing target is not attacked and does not defend
            hit = True
        else:
            defense = roll_skill(target.skill(s.defense_skill) + s.defense_bonus,
                                 s.defense_dice, s.defense_penalty, rule2, dice)
            hit = success(attack.total, defense.total, ties)
            data["defense_roll"] = Deferred(defense.to_json)
            data["defense_total"] = defense.total
            if s.defense_penalty:
                data["defense_penalty"] = s.defense_penalty
        data["hit"] = hit
        events = [Event("attacked", data)]
        if hit:
            area = s.area
            targeted = area is not None
            if area is None:  # P-DMG-4: a random body area, 1D<number of areas> (AP-12)
                areas = list(target.areas)
                area = areas[roll(f"1d{len(areas)}", dice).total - 1]
            modifier = weapon.damage[s.type]
            damage = roll(f"1d6+{modifier}" if modifier >= 0 else f"1d6{modifier}",
                          dice)  # P-DMG-2
            # the damage reads the state as it is: ``attacked`` changes nothing it reads (the
            # attack counted, the economy: base.UNSEEN_BY_CONSEQUENCES), so no lookahead
            # copy for it; nor for the consequences, read from the damage's new values
            hurt = damage_events(
                self, state, target.id, area, DamageType.parse(s.type), max(damage.total, 0),
                weapon.rating, actor.id, targeted,
                {"damage_roll": Deferred(damage.to_json), "covered": area in s.covered}, dice)
            if len(hurt) == 1 and hurt[0].type == "damaged":
                return events + hurt + self._consequences_of_damage(state, hurt[0])
            return events + hurt + self._consequences(state, events + hurt)
        return events + self._consequences(state, events)

    @event("{actor} uses the {weapon} ({type}) on {target}: {attack_total}[ against "
           "defense {defense_total}], {hit?a hit|a miss}.",
           actor=args.creature("the attacker"), target=args.creature("the target"),
           ability=args.text("the ability used"), kind=args.text("the kind of action"),
           round=args.integer("the round"),
           counts=args.flag("the use counts for once a round (P-ACT-1)"),
           weapon=args.text("the weapon"), type=args.text("the damage type"),
           attack=args.flag("it is an attack (false: a willing target)"),
           attack_roll=args.mapping("the attack roll"),
           attack_total=args.integer("the attack total"),
           concealment=args.text("the target's concealment level"),
           defense_roll=args.mapping("the defense roll"),
           defense_total=args.integer("the defense total"),
           defense_penalty=args.integer("penalty dice on the defense roll"),
           hit=args.flag("it hits"),
           optional=("attack", "counts", "defense_penalty", "round"))
    def apply_attacked(self, state: EncounterState, data: payloads.Attacked) -> None:
        if data.get("attack"):
            self.creature(state, data["target"]).attacks_received += 1

    @command("Spend critical damage points: an unknown wound (1), two fatigue wounds (1) or "
             "daze (2).", who="player", when="any", actor="optional", looks_past=True,
             rules=("P-CDP-3", "P-CDP-4", "P-CDP-5", "P-CDP-7", "P-CDP-8", "P-WND-7",
                    "AP-14"),
             effect=args.choice("what the points buy", *CRITICAL_EFFECTS, required=True),
             target=args.creature("whom it affects (default: the creature damaged)",
                                  refers="enemy"),
             area=args.text("the unknown wound's body area (the GM's; default: the area "
                            "the attack aimed at, else random when revealed, P-WND-7)",
                            max_len=64, who="gm"),
             relevant=args.flag("the GM rules another target relevant (P-CDP-4)", who="gm"))
    def do_critical(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Spend critical damage points on one of the effects (P-CDP-7), on the creature
        damaged or another the GM rules relevant (P-CDP-3, P-CDP-4); without an actor, the
        GM spends the points nobody earned (P-CDP-8)."""
        effect, cost, points, earned_on, hit_area, target = critical_checks(self, state,
                                                                                 command)
        events = [Event("critical_spent", {"actor": command.actor, "effect": effect,
                                           "cost": cost, "left": points - cost,
                                           "target": target.id})]
        if effect == "daze":
            daze = Condition("daze", 1, tags=("mental",), source=command.actor)
            events.append(Event("condition_added", {"target": target.id,
                                                    "condition": daze.to_json()}))
            old = target.condition("daze")
            if old is None or old.duration.kind not in ("sustained", "timed"):
                # a daze until removed, in place of none or of one neither sustained nor
                # timed, changes nothing ``_consequences`` reads (not a status condition nor
                # unconscious; the sustained and the timed conditions stay as they are): no
                # lookahead copy for it (13 copies a fight on polemos-4v4)
                return events + self._consequences(state, [])
            return events + self._consequences(state, events)
        # each wound is numbered after what comes before it (``index``: the wounds before it
        # in these events); ``critical_spent`` and a wound change neither the count before
        # them nor the clock, so no lookahead copy for each (25 copies a fight on
        # polemos-4v4)
        if effect == "unknown-wound":  # P-WND-7: the targeted area, else random when revealed
            area = command.a.area or (hit_area if target.id == earned_on else None)
            wound = self._new_wound(state, target, {"name": "unknown", "known": False,
                                                    "area": area}, why="critical")
        else:  # fatigue-wounds: two of them
            points_each = 2 if self.ruling(state, "AP-14") == "two-point" else 1
            first = self._new_wound(state, target, {"name": "fatigue", "fatigue": points_each},
                                    why="critical")
            events.append(first)
            wound = self._new_wound(state, target, {"name": "fatigue", "fatigue": points_each},
                                    why="critical", index=1)
        return [*events, wound, *self._consequences(state, [*events, wound])]

    @event("{cost} critical damage points[ of {actor}] buy {effect} on {target}[ ({left} "
           "left)].",
           actor=args.creature("who spends them (none: the GM, P-CDP-8)"),
           effect=args.text("what they buy"), cost=args.integer("points spent"),
           left=args.integer("points left"), target=args.creature("whom it affects"),
           optional=("actor",))
    def apply_critical_spent(self, state: EncounterState, data: payloads.CriticalSpent) -> None:
        if data["actor"] is None:
            state.extra.setdefault("gm_critical", {})["points"] = data["left"]
        else:
            self.creature(state, data["actor"]).critical_points = data["left"]
