"""What every topic of the realms ruleset uses (seed 003, "Encounters").

``RealmsBase`` builds a creature from its stat block, finds creatures, spends Action Points
(``pay``, ``buy_movement``), rolls against a Difficulty Score (``check_roll``), refuses what a
condition forbids (``check_arms``, ``check_reaction``, ``check_harm``...), gives a condition by
its one path (``gain``, with a mount's riders unseated) and deals damage by its one path
(``hurt``, then Dying, death and a side winning: ``consequences``). ``do_*`` methods decide
(pure, dice only from the argument); ``apply_*`` methods evolve and take every number from
the event. Rule ids (R-...) are those of the rules inventory; the ambiguities (AR-n) and the
missing rules (RLM-n) are rulings in ``rulings.toml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from fractions import Fraction
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    EncounterState,
    Entity,
    Event,
    IllegalCommand,
    InvalidCommand,
    Ruleset,
)
from ...core import catalogue as args
from ...core.copying import peek
from ...core.ruleset import ENTITY_KEYS
from ...dice import DiceSource, roll
from .model import (
    DEFENSES,
    ROUND_HALVES,
    STAT_KEYS,
    RealmsCreature,
    ap_costs,
    conditions_catalogue,
    creature,
    flag,
    load_gear,
    modifier,
    needs_arms,
    parse_dice,
    rulings,
    size_for,
    sizes,
    skill_bonus,
    spaces_between,
    speed,
    succeeds,
    weapon_reach,
)

ROLL_FIELDS = {
    "skill": args.text("the skill or defense rolled"), "roller": args.creature("who rolled"),
    "d20": args.integer("the d20"), "bonus": args.integer("what the roll adds"),
    "total": args.integer("the roll's total"), "ds": args.integer("the Difficulty Score"),
    "success": args.flag("it meets the Difficulty Score")}
"""The payload fields of a skill or defense roll against a DS (``check_roll``), which every
event that carries one declares."""
BALANCE_SKILLS = frozenset({"acrobatics", "dancing"})
"""Skills whose rolls need balance or poise (R-C-FAI: "such as climbing, dancing, and
acrobatics"; a climb is one too)."""
ARM_ACTIONS = {"reaction_attack": "reaction attack", "defend": "Defend reaction",
               "skill": "skill roll", "maneuver": "grapple, trip or shove"}
"""How a refusal names an action that needs the arms (R-C-RES), when not by its name."""


def dies(me: RealmsCreature, health: int) -> bool:
    """Whether ``me`` dies at ``health``: a companion at 0 or less (R-CMP-10), anyone at
    minus their maximum (R-DTH-1, AR-5)."""
    return (me.companion and health <= 0) or health <= -me.health_max


@mypyc_attr(allow_interpreted_subclasses=True)
class RealmsBase(Ruleset):
    """The helpers of every realms topic (the topics are a chain on it)."""

    def __init__(self) -> None:
        super().__init__()
        self.rulings = rulings()  # the one RulingSet that model.py and pipeline.py read too

    def creature(self, state: EncounterState, name: str) -> RealmsCreature:
        """The realms creature ``name`` (``model.creature``)."""
        return creature(state, name)

    def make_entity(self, entity_id: str, spec: Mapping[str, Any]) -> Entity:
        """Build a creature from a stat block (keys: docs/rulesets/realms.md)."""
        unknown = set(spec) - ENTITY_KEYS - STAT_KEYS
        if unknown:
            raise InvalidCommand(
                f"{entity_id}: unknown stat-block key(s) {', '.join(sorted(unknown))} "
                f"(known: {', '.join(sorted(ENTITY_KEYS | STAT_KEYS))})")
        base = super().make_entity(entity_id, {k: v for k, v in spec.items() if k in ENTITY_KEYS})
        made = RealmsCreature(**{f.name: getattr(base, f.name) for f in fields(Entity)})
        try:
            self._fill(made, spec)
        except (TypeError, ValueError, KeyError, AttributeError) as err:
            raise InvalidCommand(f"{entity_id}: malformed stat block: {err}") from None
        return made

    def _fill(self, m: RealmsCreature, spec: Mapping[str, Any]) -> None:
        m.creature_level = int(spec.get("level", 1))
        ints = ("strength", "agility", "vitality", "evasion", "attack", "damage_bonus",
                "power_bonus", "weight", "load", "altitude")
        for key in ints:
            if key in spec:
                setattr(m, key, int(spec[key]))
        m.health_max = m.health = int(spec.get("health", 10))
        if m.health_max < 1:
            raise ValueError(f"health (the maximum) is at least 1, not {m.health_max}")
        m.energy_max = m.energy = int(spec.get("energy", 0))
        if m.energy_max < 0:
            raise ValueError(f"energy (the maximum) is at least 0, not {m.energy_max}")
        m.health = int(spec.get("health_now", m.health))  # a roster character's lasting state
        m.energy = int(spec.get("energy_now", m.energy))
        m.initiative_bonus = int(spec.get("initiative", m.agility))
        m.defenses = {str(k): int(v) for k, v in dict(spec.get("defenses", {})).items()}
        unknown_defenses = sorted(set(m.defenses) - set(DEFENSES))
        if unknown_defenses:
            raise ValueError(f"no defense {', '.join(map(repr, unknown_defenses))} (the "
                             f"defenses: {', '.join(DEFENSES)}; Evasion is its own key)")
        m.skills = {str(k): int(v) for k, v in dict(spec.get("skills", {})).items()}
        m.proficient = [str(s) for s in spec.get("proficient", list(m.skills))]
        for key in ("resist", "vulnerable", "immune"):
            setattr(m, key, [str(t) for t in spec.get(key, [])])
        m.reductions = [{"name": str(r["name"]), "amount": int(r["amount"]),
                         **({"types": list(r["types"])} if "types" in r else {})}
                        for r in spec.get("reductions", [])]
        size = str(spec.get("size", "")) or None
        if size is None and "height_cm" in spec:
            size = size_for(int(spec["height_cm"]), int(spec.get("length_cm", 0)))  # R-SIZ-2
        m.size = size or "medium"
        if m.size not in sizes():
            raise ValueError(f"size {m.size!r} is not one of {', '.join(sizes())}")
        for key in ("climb_speed", "swim_speed", "fly_speed"):
            if spec.get(key) is not None:
                setattr(m, key, int(spec[key]))
        m.flying = bool(spec.get("flying", False))
        if "position" in spec:
            m.position = [int(v) for v in spec["position"]]
        m.companion_of = spec.get("companion_of")
        for key in ("summoned", "mountable", "saddled"):
            setattr(m, key, bool(spec.get(key, False)))
        m.willing = bool(spec.get("willing", True))
        weapon = load_gear("weapons", spec.get("weapon", "unarmed"), m.id)
        given = spec.get("weapon", "unarmed")
        # an inline weapon (a mapping) is named by its own "name", else "natural weapon"
        m.weapon = str(weapon.get("name", "natural weapon" if isinstance(given, Mapping)
                                  else given))
        m.weapon_range = str(weapon.get("range", "melee"))
        m.weapon_arms = bool(weapon.get("arms", True))
        m.weapon_reach = weapon_reach(weapon, m.id)
        m.damage = []
        for part in weapon.get("damage", []):
            parse_dice(str(part["dice"]), m.id)
            m.damage.append({"dice": str(part["dice"]), "bonus": int(part.get("bonus", 0)),
                             "type": str(part["type"])})
        m.armor = load_gear("armor", spec.get("armor"), m.id)
        if m.armor and m.strength < int(m.armor.get("strength", -99)):  # R-ARM-9
            raise ValueError(f"{m.armor.get('name', 'this armor')} needs Strength "
                             f"{m.armor['strength']}, and {m.id} has {m.strength}")
        m.shield = load_gear("shields", spec.get("shield"), m.id)

    def pay(self, state: EncounterState, who: RealmsCreature, action: str, *,
            reaction: bool = False, ap: int | None = None) -> dict[str, Any] | None:
        """The economy after paying an action's AP (RLM-3), or IllegalCommand saying why.
        Outside turn-by-turn play nothing is counted (None)."""
        if who.dead or who.unsummoned:
            raise IllegalCommand(f"{who.id} is dead and cannot act", rule="R-DTH-1")
        if not state.in_combat:
            return None
        if not reaction and state.current != who.id:
            raise IllegalCommand(f"it is {state.current}'s turn, not {who.id}'s", rule="R-AP-1")
        cost = ap_costs(state)[action] if ap is None else ap
        economy = dict(state.economy.get(who.id) or self.economy.fresh(state, who.id))
        if economy["ap"] < cost:
            why = " (Dying: 1 AP per turn)" if who.dying else ""
            raise IllegalCommand(
                f"{who.id} has {economy['ap']} AP left{why}, and {action.replace('_', ' ')} "
                f"costs {cost}", rule="R-DY-2" if who.dying else "R-AP-1")
        economy["ap"] -= cost
        return economy

    def buy_movement(self, state: EncounterState, who: RealmsCreature, halves: int,
                     economy: dict[str, Any] | None) -> tuple[dict[str, Any] | None, int]:
        """Spend ``halves`` half spaces of movement, buying move actions (1 Speed each) as
        needed (R-PRN-2); returns the economy and the move actions bought."""
        if economy is None:
            return None, 0
        if flag(who, "no_movement_actions") and halves > economy["movement"]:
            cond = flag(who, "no_movement_actions")
            raise IllegalCommand(f"{who.id} is {cond} and cannot take movement actions",
                                 rule="R-C-GRA" if cond == "grappled" else "R-C-IMM")
        per_action = speed(state, who) * ROUND_HALVES
        bought = 0
        economy = dict(economy)
        while economy["movement"] < halves:
            if per_action <= 0:
                raise IllegalCommand(f"{who.id} has Speed 0 and cannot move", rule="R-C-IMM")
            cost = ap_costs(state)["move"]
            if economy["ap"] < cost:
                raise IllegalCommand(
                    f"{who.id} needs {Fraction(halves - economy['movement'], 2)} more spaces "
                    f"of movement and has {economy['ap']} AP left", rule="R-AP-1")
            economy["ap"] -= cost
            economy["movement"] += per_action
            bought += 1
        economy["movement"] -= halves
        return economy, bought

    def _set_ap(self, state: EncounterState, who: str, ap: int) -> None:
        """The creature's ``ap``, copied (in a lookahead) only when it changes."""
        entity = peek(state.entities, who)
        if isinstance(entity, RealmsCreature) and entity.ap != ap:
            creature(state, who).ap = ap  # (the function itself: a call per event with AP)

    def _store_ap(self, state: EncounterState, who: str, ap: int) -> None:
        """An event's AP left, on the creature and in its economy."""
        self._set_ap(state, who, ap)
        if who in state.economy:
            state.economy[who] = {**state.economy[who], "ap": ap}

    def consequences(self, state: EncounterState, who: str, health: int,
                     dice: DiceSource) -> list[Event]:
        """Declared here, ruled in ``damage.py``."""
        raise NotImplementedError

    def winner(self, state: EncounterState, down: str) -> list[Event]:
        """The fight's end once ``down`` goes down: ``turns.py`` (``TurnRules``) holds it."""
        raise NotImplementedError

    def stronger(self, state: EncounterState, old: Condition, new: Condition) -> bool:
        """Declared here, ruled in ``conditions.py``."""
        raise NotImplementedError

    def gain(self, state: EncounterState, target: RealmsCreature, new: Condition,
             dice: DiceSource, keep: str = "", *, dying: bool = False) -> list[Event]:
        """Declared here, ruled in ``conditions.py``."""
        raise NotImplementedError

    def check_reaction(self, state: EncounterState, who: RealmsCreature,
                       action: str) -> None:
        """A Reaction ``who`` may not take: none while Dazed (R-C-DAZ), none that needs the
        arms while Restrained (R-C-RES: the RM's leave is for Actions, not Reactions)."""
        if not who.conditions:
            return
        if flag(who, "no_reactions"):
            raise IllegalCommand(f"{who.id} is Dazed and cannot take Reactions", rule="R-C-DAZ")
        self.check_arms(state, who, action, reaction=True)

    def check_arms(self, state: EncounterState, who: RealmsCreature, action: str,
                   command: Command | None = None, *, weapon_arms: bool = True,
                   reaction: bool = False) -> None:
        """R-C-RES: a Restrained creature takes no Action or Reaction that needs the arms
        (which do: RLM-7, ``c.needs_arms``); the RM may allow an Action using the hands
        (``rm_allows`` on the command), never a Reaction."""
        if not who.conditions or not flag(who, "no_arm_actions"):
            return
        if not needs_arms(state, action, weapon_arms):
            return
        if not reaction and command is not None and command.a.rm_allows:
            return
        what = ARM_ACTIONS.get(action, action)
        leave = "" if reaction else " (the RM may allow it: rm_allows: true)"
        raise IllegalCommand(f"{who.id} is Restrained: no {what}, it needs the arms{leave}",
                             rule="R-C-RES")

    def check_reach(self, state: EncounterState, actor: RealmsCreature,
                    target: RealmsCreature, reach: int, weapon: str) -> None:
        """RLM-11 ``weapon-reach``: a melee attack needs the target within the weapon's reach
        (1 space unless the weapon says more), counted between the nearest squares of the
        two footprints, whenever both creatures are on the map; ``gm``: no check."""
        between = spaces_between(actor, target)
        if between is None or between <= reach:
            return
        if not self.ruling_is(state, "RLM-11", "weapon-reach"):
            return
        what = "unarmed strike" if weapon == "unarmed" else weapon
        raise IllegalCommand(f"{target.id} is {between} spaces from {actor.id}, beyond the "
                             f"reach of its {what} ({reach} "
                             f"{'space' if reach == 1 else 'spaces'})",
                             rule="RLM-11", remedy=("move", "move within reach"))

    def distance(self, state: EncounterState, actor: Entity, other: Entity) -> int | None:
        """Spaces between the nearest squares of two creatures' footprints (R-SIZ-1, RLM-11),
        ``None`` when one is off the map."""
        if isinstance(actor, RealmsCreature) and isinstance(other, RealmsCreature):
            return spaces_between(actor, other)
        return super().distance(state, actor, other)

    def check_movement(self, state: EncounterState, who: RealmsCreature, action: str,
                       command: Command) -> None:
        """Climbing and swimming are movement (seed 003, "Movement"): Grappled and Immobile
        refuse them (R-C-GRA, R-C-IMM), and they need the arms (R-C-RES, RLM-7)."""
        if not who.conditions:
            return
        cond = flag(who, "no_movement_actions")
        if cond:
            raise IllegalCommand(f"{who.id} is {cond} and cannot take movement actions",
                                 rule="R-C-GRA" if cond == "grappled" else "R-C-IMM")
        self.check_arms(state, who, action, command)

    def hurt(self, state: EncounterState, who: str, components: list[tuple[int, str]],
             dice: DiceSource, *,
             shield_roll: int = 0, fall: bool = False, over_time: str | None = None,
             irreducible: bool = False, cause: str = "damage") -> list[Event]:
        """Declared here, ruled in ``damage.py``."""
        raise NotImplementedError

    def unseat(self, state: EncounterState, mount: RealmsCreature,
               dice: DiceSource) -> list[Event]:
        """Declared here, ruled in ``mounts.py``."""
        raise NotImplementedError

    def roll_bonus(self, roller: RealmsCreature, skill: str, extra: int = 0) -> int:
        """What a d20 roll of ``skill`` (or a defense) adds: its bonus, the conditions' d20
        modifiers and ``extra``."""
        return skill_bonus(roller, skill) + modifier(roller, "d20") + extra

    def check_roll(self, state: EncounterState, roller: RealmsCreature, skill: str, ds: int,
                   dice: DiceSource, extra: int = 0, twice: bool = False) -> dict[str, Any]:
        result = roll("2d20kh1" if twice else "1d20", dice)
        bonus = self.roll_bonus(roller, skill, extra)
        total = result.total + bonus
        return {"skill": skill, "roller": roller.id, "d20": result.total, "bonus": bonus,
                "total": total, "ds": ds, "success": succeeds(state, total, ds)}

    @staticmethod
    def check_harm(who: RealmsCreature, target: RealmsCreature, what: str) -> None:
        """R-C-CHA: a Charmed creature neither attacks nor harms the creature that charmed
        it (a condition with ``no_harm_source`` whose source is ``target``)."""
        if not who.conditions:
            return
        catalogue = conditions_catalogue()
        for cond in who.conditions:
            if cond.source == target.id and "no_harm_source" in catalogue[cond.name].flags:
                raise IllegalCommand(f"{who.id} is {cond.name.capitalize()} by {target.id} "
                                     f"and cannot {what} it", rule="R-C-CHA")

    @staticmethod
    def from_source(target: RealmsCreature, source: str | None, key: str) -> int:
        """What ``target``'s conditions give their own source on ``key`` against it: a
        charmer's Charisma rolls and potencies +2 (R-C-CHA, ``source_charisma``,
        ``source_potency`` in conditions.toml)."""
        if not target.conditions or source is None:
            return 0
        catalogue = conditions_catalogue()
        return sum(catalogue[x.name].modifier(key, x.level) for x in target.conditions
                   if x.source == source)

    @staticmethod
    def balance(roller: RealmsCreature, skill: str, needed: bool) -> int:
        """R-C-FAI: what a roll needing balance or poise ("such as climbing, dancing, and
        acrobatics": every Acrobatics roll, a climb, or a roll said to) loses."""
        if not roller.conditions or not (needed or skill in BALANCE_SKILLS):
            return 0
        return modifier(roller, "balance")
