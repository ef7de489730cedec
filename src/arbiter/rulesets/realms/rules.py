"""Decide and evolve for the realms ruleset (seed 003, "Encounters").

``do_*`` methods decide (pure, dice only from the argument); ``apply_*`` methods evolve and
take every number from the event. Rule ids (R-...) are those of the rules inventory; the
ambiguities (AR-n) and the missing rules (RLM-n) are rulings in ``rulings.toml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from fractions import Fraction
from itertools import product
from typing import Any

from ...core import (
    ActionEconomy,
    Command,
    Condition,
    Duration,
    EncounterState,
    Entity,
    Event,
    IllegalCommand,
    InvalidCommand,
    Ruleset,
)
from ...core import catalogue as args
from ...core.catalogue import command, event, extends
from ...core.copying import peek
from ...core.roster import lasting_conditions
from ...core.rounding import half_round_down, half_round_up, round_up
from ...core.ruleset import ENTITY_KEYS, ProbeDice, set_detection
from ...dice import DiceSource, distribution, roll
from . import commands as c
from .damage import armor_dr, halved, resolve
from .lasting import RealmsTime
from .model import (
    AP_PER_TURN,
    RealmsCreature,
    conditions_catalogue,
    load_toml,
    rulings,
    size_for,
    sizes,
)

STAT_KEYS = {
    "level", "health", "energy", "strength", "agility", "vitality", "evasion", "defenses",
    "skills", "proficient", "attack", "damage_bonus", "power_bonus", "initiative", "weapon",
    "armor", "shield", "resist", "vulnerable", "immune", "reductions", "size", "weight", "load",
    "climb_speed", "swim_speed", "fly_speed", "flying", "altitude", "position", "companion_of",
    "summoned", "mountable", "willing", "saddled", "height_cm", "length_cm",
    "health_now", "energy_now",
}
FIGHT_ONLY = frozenset({"prone", "grappled", "restrained", "hidden", "dodging", "terminal",
                        "suffocating"})
"""Conditions of where a creature stands and whom it holds, left behind when a roster
character's lasting state is written back (``lasting``)."""
ROUND_HALVES = 2  # movement is counted in half spaces: a diagonal costs 3 (R-MOV-3)


class RealmsEconomy(ActionEconomy):
    """Action Points (R-AP-1): AP live on the creature and are regained at the end of its
    own turn (AR-21), so reactions between turns spend the same pool. ``movement`` is what
    is left of bought movement this turn, in half spaces."""

    def fresh(self, state: Any, who: str) -> dict[str, Any]:
        entity = state.entities.get(who)
        ap = entity.ap if isinstance(entity, RealmsCreature) else AP_PER_TURN
        return {"ap": ap, "movement": 0}

    def describe(self, economy: dict[str, Any]) -> str:
        return f"{economy.get('ap', 0)} AP, {Fraction(economy.get('movement', 0), 2)} spaces"


def _gear(table: str, value: Any, owner: str) -> dict[str, Any]:
    """A weapon, armor or shield: a name from its data file, or an inline mapping."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    data = load_toml(f"{table}.toml")
    if str(value) not in data:
        raise InvalidCommand(f"{owner}: no {table[:-1] if table != 'armor' else table} "
                             f"{value!r} (known: {', '.join(sorted(data))})")
    return {"name": str(value), **data[str(value)]}


ROLL_FIELDS = {
    "skill": args.text("the skill or defense rolled"), "roller": args.creature("who rolled"),
    "d20": args.integer("the d20"), "bonus": args.integer("what the roll adds"),
    "total": args.integer("the roll's total"), "ds": args.integer("the Difficulty Score"),
    "success": args.flag("it meets the Difficulty Score")}
"""The payload fields of a skill or defense roll against a DS (``check_roll``), which every
event that carries one declares."""

HIDDEN = frozenset({"hidden"})
"""What a search finds: the Hidden condition (R-C-HID), not Invisible (sight)."""
WEAPONS = tuple(sorted(load_toml("weapons.toml")))
"""The weapon names an attack may name (``weapons.toml``)."""
MANEUVERS = frozenset({"prone", "knockback", "grapple"})
"""Rolls to knock a creature prone, push it back or grapple it: harmful (R-C-CHA), and a
Faint target's outside forces gain +1 (R-C-FAI)."""
BALANCE_SKILLS = frozenset({"acrobatics", "dancing"})
"""Skills whose rolls need balance or poise (R-C-FAI: "such as climbing, dancing, and
acrobatics"; a climb is one too)."""
ARM_ACTIONS = {"reaction_attack": "reaction attack", "defend": "Defend reaction",
               "skill": "skill roll", "maneuver": "grapple, trip or shove"}
"""How a refusal names an action that needs the arms (R-C-RES), when not by its name."""
DAMAGE_ODDS_LIMIT = 4096
"""The most damage outcomes (per Critical Level) that an attack's odds count exactly."""


def _amounts(expr: str, added: int) -> list[tuple[int, Fraction]]:
    """The chance of each damage amount ``expr`` + ``added`` can come to (never below 0)."""
    return list(distribution(expr).map(lambda v: max(v + added, 0)).items())


def _certain() -> dict[str, Any]:
    return {"success": Fraction(1), "failure": Fraction(0)}


def dies(me: RealmsCreature, health: int) -> bool:
    """Whether ``me`` dies at ``health``: a companion at 0 or less (R-CMP-10), anyone at
    minus their maximum (R-DTH-1, AR-5)."""
    return (me.companion and health <= 0) or health <= -me.health_max


def _dice(expr: str, owner: str) -> tuple[int, int]:
    count, _, faces = expr.lower().partition("d")
    if not faces.isdigit() or not (count or "1").isdigit():
        raise InvalidCommand(f"{owner}: damage dice are written NdX, not {expr!r}")
    return int(count or "1"), int(faces)


class RealmsRuleset(RealmsTime, Ruleset):
    name = "realms"
    title = "Realms (seed 003): Action Points, armor and damage, dying, companions"
    seed = "003_c09b437c672869ab.txt"
    entity_type = RealmsCreature
    economy = RealmsEconomy()
    private_events = frozenset({"checked"})  # a creature's derived numbers (do_check)
    initiative_dice = "1d20"

    def __init__(self) -> None:
        super().__init__()
        self.rulings = rulings()  # the one RulingSet that commands.py and damage.py read too

    # -- stat blocks -------------------------------------------------------------------
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
        m.energy_max = m.energy = int(spec.get("energy", 0))
        m.health = int(spec.get("health_now", m.health))  # a roster character's lasting state
        m.energy = int(spec.get("energy_now", m.energy))
        m.initiative_bonus = int(spec.get("initiative", m.agility))
        m.defenses = {str(k): int(v) for k, v in dict(spec.get("defenses", {})).items()}
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
        weapon = _gear("weapons", spec.get("weapon", "unarmed"), m.id)
        given = spec.get("weapon", "unarmed")
        # an inline weapon (a mapping) is named by its own "name", else "natural weapon"
        m.weapon = str(weapon.get("name", "natural weapon" if isinstance(given, Mapping)
                                  else given))
        m.weapon_range = str(weapon.get("range", "melee"))
        m.weapon_arms = bool(weapon.get("arms", True))
        m.damage = []
        for part in weapon.get("damage", []):
            _dice(str(part["dice"]), m.id)
            m.damage.append({"dice": str(part["dice"]), "bonus": int(part.get("bonus", 0)),
                             "type": str(part["type"])})
        m.armor = _gear("armor", spec.get("armor"), m.id)
        if m.armor and m.strength < int(m.armor.get("strength", -99)):  # R-ARM-9
            raise ValueError(f"{m.armor.get('name', 'this armor')} needs Strength "
                             f"{m.armor['strength']}, and {m.id} has {m.strength}")
        m.shield = _gear("shields", spec.get("shield"), m.id)

    def lasting(self, state: EncounterState, entity: Entity) -> dict[str, Any]:
        """What outlasts the encounter (docs/rulesets/realms.md): Health and Energy, and the
        conditions whose durations go on (not those of where it stands: FIGHT_ONLY)."""
        if not isinstance(entity, RealmsCreature):
            return {}
        out: dict[str, Any] = {"conditions": lasting_conditions(state, entity, FIGHT_ONLY)}
        if entity.health != entity.health_max:  # unhurt: the stat block's maximum
            out["health_now"] = entity.health
        if entity.energy != entity.energy_max:
            out["energy_now"] = entity.energy
        return out

    creature = staticmethod(c.creature)

    def do_add(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Add a creature: id, and its stat block (or `template`); at most two companions
        per character (R-CMP-1)."""
        events = super().do_add(state, command, dice)
        owner = events[0].data["spec"].get("companion_of")
        if owner is not None:
            if owner not in state.entities:
                raise InvalidCommand(f"companion_of: no character {owner!r} here")
            count = sum(1 for e in state.entities.values()
                        if isinstance(e, RealmsCreature) and e.companion_of == owner)
            if count >= 2:
                raise IllegalCommand(f"{owner} already has two companions", rule="R-CMP-1")
        return events

    # -- initiative (R-CMP-5, R-CMP-6, AR-38) -------------------------------------------
    def takes_turn(self, state: EncounterState, who: str) -> bool:
        """The dead and the unsummoned get no turn; a Dying creature still does: it takes its
        dying damage at the start of its turns and gains 1 AP at their end (R-DY-2)."""
        found = state.entities.get(who)
        return not (isinstance(found, RealmsCreature) and (found.dead or found.unsummoned))

    def roll_initiative(self, state: EncounterState, entity: Entity,
                        dice: DiceSource) -> tuple[int, dict[str, Any]]:
        """d20 + initiative bonus (Agility unless given); a companion's place is its
        Perceive bonus, with no roll (R-CMP-5)."""
        if isinstance(entity, RealmsCreature) and entity.companion:
            perceive = entity.skills.get("perceive", 0)
            return perceive, {"perceive": perceive}
        bonus = entity.initiative_bonus if isinstance(entity, RealmsCreature) else 0
        result = roll(f"1d20+{bonus}" if bonus >= 0 else f"1d20-{-bonus}", dice)
        return result.total, result.to_json()

    def initiative_order(self, state: EncounterState, initiative: dict[str, int]) -> list[str]:
        """Characters and creatures highest first; companions at the very end of the round
        in order of Perceive (AR-38: highest first by default)."""
        added = list(state.entities)
        companions = {e for e in initiative if getattr(state.entities.get(e), "companion_of",
                                                        None) is not None}
        rest = sorted((e for e in initiative if e not in companions),
                      key=lambda e: (-initiative[e], added.index(e)))
        sign = 1 if self.ruling_is(state, "AR-38", "lowest-first") else -1
        tail = sorted(companions, key=lambda e: (sign * initiative[e], added.index(e)))
        return rest + tail

    @extends("Start turn-by-turn play: d20 + initiative bonus, companions last by Perceive "
             "(R-CMP-5), ties as the players list them (R-CMP-6).",
             companion_order=args.creatures("companions in the order the players break their ties"))
    def do_start(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Roll initiative (or take `initiative`) and begin round 1; `companion_order`
        (a list of ids) is how the players break companions' ties (R-CMP-6)."""
        ties = [str(x) for x in self.arg(command, "companion_order", list, [])]
        args = {k: v for k, v in command.args.items() if k != "companion_order"}
        events = super().do_start(state, Command(command.name, command.actor, args), dice)
        if not ties:
            return events
        first = events[0]
        order = list(first.data["order"])
        initiative = first.data["initiative"]
        for tie in ties:
            if tie not in order:
                raise InvalidCommand(f"companion_order: {tie!r} is not in the encounter")
        rank = {e: i for i, e in enumerate(ties)}
        head = [e for e in order if self.creature(state, e).companion_of is None]
        tail = [e for e in order if e not in head]
        sign = 1 if self.ruling_is(state, "AR-38", "lowest-first") else -1
        tail.sort(key=lambda e: (sign * initiative[e], rank.get(e, len(rank)), order.index(e)))
        events[0] = Event("combat_started", {**first.data, "order": head + tail})
        return events

    # -- the action economy -------------------------------------------------------------
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
        cost = c.ap_costs(state)[action] if ap is None else ap
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
        if c.flag(who, "no_movement_actions") and halves > economy["movement"]:
            cond = c.flag(who, "no_movement_actions")
            raise IllegalCommand(f"{who.id} is {cond} and cannot take movement actions",
                                 rule="R-C-GRA" if cond == "grappled" else "R-C-IMM")
        per_action = c.speed(state, who) * ROUND_HALVES
        bought = 0
        economy = dict(economy)
        while economy["movement"] < halves:
            if per_action <= 0:
                raise IllegalCommand(f"{who.id} has Speed 0 and cannot move", rule="R-C-IMM")
            cost = c.ap_costs(state)["move"]
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
            self.creature(state, who).ap = ap

    def _store_ap(self, state: EncounterState, who: str, ap: int) -> None:
        """An event's AP left, on the creature and in its economy."""
        self._set_ap(state, who, ap)
        if who in state.economy:
            state.economy[who] = {**state.economy[who], "ap": ap}

    def apply_economy_of(self, state: EncounterState, who: str, economy: Any) -> None:
        """The AP an event leaves its actor with are also the creature's ``ap``; an event
        outside turn-by-turn play (economy None) counts nothing."""
        if economy is None:
            state.economy.pop(who, None)
            return
        state.economy[who] = economy
        self._set_ap(state, who, int(economy["ap"]))

    # -- turns ----------------------------------------------------------------------------
    def turn_start_events(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """Damage reductions reset (AR-8); dying damage (R-DY-3, AR-1..3); Bleed (R-C-BLE);
        the roll to remain on an unwilling mount (R-MNT-6, RLM-8 each-turn)."""
        events: list[Event] = []
        own = self.ruling_is(state, "AR-8", "own-turn")
        resets = [entity.id for entity in state.entities.values()
                  if isinstance(entity, RealmsCreature)
                  and (entity.armor_uses or entity.dr_uses or entity.shield_uses)
                  and (not own or entity.id == who)]
        if resets:
            events.append(Event("reductions_reset", {"targets": resets}))
        me = state.entity(who)
        if not isinstance(me, RealmsCreature) or me.dead or me.unsummoned:
            return events
        after = state  # what follows reads no damage reduction: the resets need no lookahead
        if self.ruling_is(state, "AR-3", "start"):
            dying = self.dying_damage(state, me, dice)
            if dying:
                events += dying
                after = self.lookahead(state, events)
                me = self.creature(after, who)
        bleed = me.level("bleed")
        if bleed and not me.dead:
            health = me.health - bleed
            events.append(Event("bled", {"target": who, "lost": bleed, "health": health,
                                         "destabilize": self.ruling_is(state, "AR-26", "damage")
                                         and me.stabilized and health < 0}))
            events += self.consequences(after, who, health, dice)  # after any dying damage
        if me.mounted_on and self.ruling_is(state, "RLM-8", "each-turn"):
            after = self.lookahead(state, events)
            me = self.creature(after, who)
            if not me.dead and me.mounted_on and self.unruly(after, me):
                events.append(self.stay_roll(after, me, dice))
        return events

    def unruly(self, state: EncounterState, rider: RealmsCreature) -> RealmsCreature | None:
        """The mount ``rider`` rides when it is unwilling and unsaddled (R-MNT-6), else None."""
        mount = state.entities.get(rider.mounted_on or "")
        if isinstance(mount, RealmsCreature) and not mount.willing and not mount.saddled:
            return mount
        return None

    def stay_roll(self, state: EncounterState, rider: RealmsCreature,
                  dice: DiceSource) -> Event:
        """R-MNT-6, RLM-8 each-turn: Animal Handling against DS 10 + the mount's level to
        remain mounted; success also controls the mount this turn, failure throws the rider
        off."""
        mount = self.unruly(state, rider)
        assert mount is not None
        data = self.check_roll(state, rider, "animal_handling", 10 + mount.creature_level, dice)
        data.update(actor=rider.id, mount=mount.id)
        return Event("stay_rolled", data)

    @event("{actor} {success?stays on and controls|is thrown off} {mount}: Animal Handling "
           "{total} (d20 {d20}) against DS {ds}.",
           actor=args.creature("the rider"), mount=args.creature("the mount"),
           shared=ROLL_FIELDS)
    def apply_stay_rolled(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["actor"])
        me.controls_mount = bool(data["success"])
        if not data["success"]:
            me.mounted_on = None

    def dying_damage(self, state: EncounterState, me: RealmsCreature,
                     dice: DiceSource) -> list[Event]:
        """R-DY-3 / R-C-DYI: escalating irreducible damage while Dying below 0 Health."""
        below = me.health < 0 or (me.health == 0 and self.ruling_is(state, "AR-2", "zero-too"))
        if not me.dying or me.stabilized or not below:
            return []
        k = me.dying_turns + 1
        if self.ruling_is(state, "AR-1", "dying-condition") and k > 1:
            expr = f"{2 ** (k - 2)}d8"
        else:
            expr = f"{2 ** (k - 1)}d4"
        rolled = roll(expr, dice)
        result = resolve(me, [(rolled.total, "")], state.rulings, irreducible=True)
        events = [Event("dying_damage", {"target": me.id, "turn": k, "roll": rolled.to_json(),
                                         "pipeline": result.to_json(), "taken": result.taken,
                                         "health": me.health - result.taken})]
        return events + self.consequences(state, me.id, me.health - result.taken, dice)

    def turn_end_events(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """A creature may not end its turn in another's space (R-SIZ-5); an uncommanded
        companion dodges (R-CMP-8); then AP are regained (R-AP-1, R-C-STU, R-DY-2, AR-21)."""
        me = state.entity(who)
        if not isinstance(me, RealmsCreature):
            return []
        events: list[Event] = []
        if me.dead or me.unsummoned:
            return events
        self.check_shared_space(state, me)
        if self.ruling_is(state, "AR-3", "end"):
            events += self.dying_damage(state, me, dice)
        economy = state.economy.get(who) or self.economy.fresh(state, who)
        ap = int(economy["ap"])
        if me.companion and not me.commanded and ap >= AP_PER_TURN:
            cond = Condition("dodging", level=ap, source=who)
            events.append(Event("dodged", {"target": who, "ap": 0, "automatic": True}))
            events += self.gain(state, me, cond, dice, keep="new")  # its own new dodge
            ap = 0
        after = self.lookahead(state, events)
        mine = after.entity(who)
        assert isinstance(mine, RealmsCreature)
        if mine.dead:
            return events
        if mine.companion:
            gain = AP_PER_TURN  # R-CMP-7
        elif mine.dying:
            gain = 1  # R-DY-2
        else:
            gain = c.reduce_with_floor(state, AP_PER_TURN, mine.level("stunned"))  # R-C-STU
        new = gain if self.ruling_is(state, "AR-21", "refill") else ap + gain
        events.append(Event("ap_gained", {"target": who, "gained": gain, "ap": new}))
        return events

    def check_shared_space(self, state: EncounterState, me: RealmsCreature) -> None:
        mine = me.squares()
        if not mine or me.mounted_on:
            return
        for other in state.entities.values():
            if (not isinstance(other, RealmsCreature) or other.id == me.id
                    or other.mounted_on == me.id or other.dead):
                continue
            theirs = other.squares()
            if theirs and set(mine) & set(theirs) and other.spaces <= 2 * me.spaces:
                raise IllegalCommand(
                    f"{me.id} cannot end its turn in {other.id}'s space ({other.id} fills "
                    f"{other.spaces} spaces, not more than double {me.spaces})", rule="R-SIZ-5")

    def apply_turn_started(self, state: EncounterState, data: dict[str, Any]) -> None:
        super().apply_turn_started(state, data)
        state.extra.pop("provoked", None)
        me = peek(state.entities, data["actor"])
        if isinstance(me, RealmsCreature) and me.controls_mount:
            self.creature(state, me.id).controls_mount = False

    def apply_turn_ended(self, state: EncounterState, data: dict[str, Any]) -> None:
        super().apply_turn_ended(state, data)
        me = peek(state.entities, data["actor"])
        if isinstance(me, RealmsCreature) and me.commanded:
            self.creature(state, me.id).commanded = False

    @event("{target} regains {gained} AP ({ap} AP now).",
           target=args.creature("who"), gained=args.integer("AP regained"),
           ap=args.integer("AP after"))
    def apply_ap_gained(self, state: EncounterState, data: dict[str, Any]) -> None:
        self._store_ap(state, data["target"], data["ap"])
        me = peek(state.entities, data["target"])
        if isinstance(me, RealmsCreature) and me.stun_taken:
            self.creature(state, me.id).stun_taken = 0  # a new stun takes AP again

    @event("{target} loses {lost} AP ({ap} AP left).",
           target=args.creature("who"), lost=args.integer("AP lost"),
           ap=args.integer("AP after"),
           stun_taken=args.integer("the highest Stunned level whose AP are taken since the "
                                   "creature last gained AP"))
    def apply_ap_lost(self, state: EncounterState, data: dict[str, Any]) -> None:
        self._store_ap(state, data["target"], data["ap"])
        if data.get("stun_taken") is not None:
            self.creature(state, data["target"]).stun_taken = data["stun_taken"]

    @event("Damage reductions reset for {targets}.",
           targets=args.creatures("whose armor, reductions and shield halving resets"))
    def apply_reductions_reset(self, state: EncounterState, data: dict[str, Any]) -> None:
        for who in data["targets"]:
            me = self.creature(state, who)
            me.armor_uses, me.dr_uses, me.shield_uses = 0, {}, 0

    @event("{target} loses {lost} Health to Bleed[, down to {health}]"
           "{destabilize?, and is no longer stabilized|}.",
           target=args.creature("who bleeds"), lost=args.integer("Health lost"),
           health=args.integer("Health after"),
           destabilize=args.flag("a stabilized creature's dying damage starts again"))
    def apply_bled(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["target"])
        me.health = data["health"]
        if data.get("destabilize"):
            me.stabilized, me.dying_turns = False, 0

    @event("{target} is Dying (turn {turn}) and takes {taken} irreducible damage"
           "[ ({roll.text})][, down to {health} Health].",
           target=args.creature("who is Dying"), turn=args.integer("the dying turn"),
           roll=args.mapping("the damage roll"), pipeline=args.mapping("the damage's steps"),
           taken=args.integer("damage taken"), health=args.integer("Health after"))
    def apply_dying_damage(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["target"])
        me.health = data["health"]
        me.dying_turns = data["turn"]

    # -- what follows a change of Health ---------------------------------------------------
    def consequences(self, state: EncounterState, who: str, health: int,
                     dice: DiceSource) -> list[Event]:
        """Dying and prone (R-DY-1, R-DY-2), death (R-DTH-1, R-CMP-10), and a side winning,
        when ``who``'s Health becomes ``health``. ``state`` is the state before that change
        (only Health is read as new, so no lookahead is needed: this follows every hit)."""
        if health > 0:  # nothing follows Health above 0: this runs after every hit
            return []
        me = self.creature(state, who)
        events: list[Event] = []
        if me.dead or me.unsummoned:
            return events
        if dies(me, health):
            events.append(Event("died", {
                "target": who, "unsummoned": me.summoned if me.companion else False,
                "why": "a companion dies at 0 Health or less" if me.companion
                else f"Health {health} reached -{me.health_max}"}))
        elif health <= 0 and not me.dying:  # Dying, 1 AP and prone, through the one path
            events += self.gain(state, me, Condition("dying", source=who), dice)
        if events:  # each of them leaves ``who`` down (dead or Dying)
            events += self.winner(state, down=who)
        return events

    def winner(self, state: EncounterState, down: str) -> list[Event]:
        """``side_won`` when one side alone has a creature standing, counting ``down`` as
        out of the fight whatever ``state`` says (it is about to be)."""
        if "winner" in state.extra:
            return []
        sides: dict[str, bool] = {}
        for e in state.entities.values():
            if isinstance(e, RealmsCreature) and e.side is not None:
                sides[e.side] = sides.get(e.side, False) or not (e.down or e.id == down)
        standing = [s for s, up in sides.items() if up]
        if len(sides) >= 2 and len(standing) == 1:
            return [Event("side_won", {"winner": standing[0]})]
        return []

    @event("Side {winner} wins: every other side is down.",
           winner=args.text("the side left standing"))
    def apply_side_won(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra["winner"] = data["winner"]

    @event("{target} falls Dying and prone ({ap} AP).",
           target=args.creature("who"), ap=args.integer("AP left"))
    def apply_fell_dying(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["target"])
        me.dying_turns, me.stabilized = 0, False
        self._store_ap(state, me.id, data["ap"])

    @event("{target} {unsummoned?is unsummoned|dies}[ ({why})].",
           player="{target} {unsummoned?is unsummoned|dies}.",
           target=args.creature("who"), unsummoned=args.flag("a summoned companion"),
           why=args.text("why"))
    def apply_died(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["target"])
        me.dead = True
        me.unsummoned = bool(data["unsummoned"])

    # -- conditions ---------------------------------------------------------------------
    def stronger(self, state: EncounterState, old: Condition, new: Condition) -> bool:
        """AR-36: is ``new`` the stronger version? Level, then potency, then duration."""
        if self.ruling_is(state, "AR-36", "newest"):
            return True

        def ends(cond: Condition) -> int:
            if cond.duration.kind == "timed" and cond.duration.round is not None:
                return cond.duration.round
            return 10**9

        def key(cond: Condition) -> tuple[int, int, int]:
            return cond.level, int(cond.data.get("potency", 0)), ends(cond)

        return key(new) >= key(old)

    @command("Give a creature a condition (one instance per name; the stronger replaces the "
             "weaker unless the RM says which to keep).",
             rules=("R-CON-2", "R-CON-3", "R-CON-4", "R-CON-5", "R-CON-6", "R-CON-7", "R-C-STU",
                    "R-C-HID", "R-C-CHA", "R-C-FAI", "R-C-DYI", "R-DY-1", "R-DY-2", "R-DTH-2",
                    "R-FLY-2", "R-MNT-3"),
             target=args.creature("who gets the condition", required=True),
             name=args.text("the condition's name (conditions.toml)", required=True, max_len=64),
             level=args.integer("its level (leveled conditions only)", lo=1, hi=99, default=1),
             rounds=args.integer("how many rounds it lasts (0: until removed)", lo=0, hi=10000,
                                 default=0),
             source=args.text("who or what causes it", max_len=64),
             potency=args.integer("its potency (R-CON-7)", lo=0, hi=999, default=0),
             keep=args.choice("the RM's choice between two versions (R-CON-6)", "new", "old"),
             score=args.integer("Hidden only: the Stealth or Hide Score a search must reach",
                                lo=0, hi=999))
    def do_condition(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        """Give a condition: target, name, [level], [rounds], [source], [potency],
        [keep: new|old] (the RM's choice between two versions, R-CON-6), [score] (Hidden:
        the Stealth or Hide Score a search must reach, R-C-HID)."""
        catalogue = conditions_catalogue()
        name = self.arg(command, "name", str)
        if name not in catalogue:
            raise InvalidCommand(f"condition: no condition {name!r} in realms "
                                 f"(known: {', '.join(sorted(catalogue))})")
        target = self.creature(state, self.arg(command, "target", str))
        level = self.arg(command, "level", int, 1)
        entry = catalogue[name]
        if level < 1 or (level != 1 and not entry.get("leveled")):
            raise InvalidCommand(f"condition: {name} takes no level other than 1"
                                 if not entry.get("leveled") else "condition: level must be >= 1")
        rounds = self.arg(command, "rounds", int, 0)
        potency = self.arg(command, "potency", int, 0)
        data: dict[str, Any] = {"potency": potency} if potency else {}
        if "score" in command.args:
            if not entry.get("score"):  # conditions.toml: Hidden's Stealth or Hide Score
                raise InvalidCommand("condition: only Hidden takes a score (its Stealth or "
                                     "Hide Score)")
            data["score"] = self.arg(command, "score", int)
        source = self.arg(command, "source", str, None)
        if potency:  # a potency from whoever gives the condition (R-CON-7)
            bonus = self.potency_bonus(target, name, source)
            if bonus:
                data.update(potency=potency + sum(v for _, v in bonus),
                            potency_modifiers=[list(x) for x in bonus])
        new = Condition(name=name, level=level, source=source,
                        duration=Duration.for_rounds(state, rounds) if rounds > 0 else Duration(),
                        data=data)
        keep = self.arg(command, "keep", str, "")
        if keep not in ("", "new", "old"):
            raise InvalidCommand("condition: keep is 'new' or 'old'")
        return self.gain(state, target, new, dice, keep)

    def potency_bonus(self, target: RealmsCreature, name: str,
                      source: str | None) -> list[tuple[str, int]]:
        """What adds to the potency of a condition ``source`` gives ``target``: its charmer's
        +2 (R-C-CHA), an outside force's +1 to make a Faint creature prone or grapple it
        (R-C-FAI)."""
        out = []
        charmer = self.from_source(target, source, "source_potency")
        if charmer:
            out.append((f"{target.id} Charmed by {source}", charmer))
        if name in ("prone", "grappled") and source != target.id:
            outside = c.modifier(target, "outside_potency")
            if outside:
                out.append((f"{target.id} Faint", outside))
        return out

    def gain(self, state: EncounterState, target: RealmsCreature, new: Condition,
             dice: DiceSource, keep: str = "", *, dying: bool = False) -> list[Event]:
        """The one path by which a condition comes to a creature, whoever gives it (the
        GM's ``condition``, Dying and prone at 0 Health, a fall, an unseating, a failed swim,
        a dodge), so that a condition given again, or returning after it was removed, plays
        as when it was first given: a flyer falls instead of lying prone (R-FLY-2); the same
        condition never stacks, the stronger replaces (R-CON-4..7, AR-36; Exhaustion adds,
        AR-22); Stunned takes the AP it adds (R-C-STU); Exhausted above 10 dies (R-DTH-2);
        entering Dying drops to 1 AP and prone (R-DY-1, R-DY-2); a mount knocked prone
        unseats its riders (R-MNT-3). ``dying``: the prone of entering Dying, which a flyer
        gets as it begins to fall ("While dying, you are prone", R-C-DYI)."""
        name = new.name
        entry = conditions_catalogue()[name]
        events: list[Event] = []
        if name == "prone" and target.flying and target.altitude > 0:  # R-FLY-2
            events.append(Event("began_falling", {"target": target.id,
                                                  "altitude": target.altitude}))
            if not dying:
                return events
        old = target.condition(name)
        if old is not None:
            if entry.get("stacks") and self.ruling_is(state, "AR-22", "adds"):
                new = replace(new, level=old.level + new.level,  # AR-22: Exhaustion adds
                              duration=old.duration)  # R-CON-5: durations do not stack
            elif keep == "old" or (not keep and not self.stronger(state, old, new)):
                return [Event("condition_kept", {"target": target.id, "name": name,
                                                 "kept": old.to_json(),
                                                 "refused": new.to_json()})]
        if name == "dying" and old is None:  # R-DY-1, R-DY-2: 1 AP, and prone at once
            economy = state.economy.get(target.id) or self.economy.fresh(state, target.id)
            current = int(economy["ap"])
            ap = 1 if self.ruling_is(state, "AR-6", "set-to-one") else min(current, 1)
            events.append(Event("fell_dying", {"target": target.id, "ap": ap}))
            if not target.has("prone"):
                events += self.gain(state, target, Condition("prone", source=target.id), dice,
                                    dying=True)
        events.append(Event("condition_added", {"target": target.id, "condition": new.to_json(),
                                                "replaced": old.to_json() if old else None}))
        if name == "stunned":  # R-C-STU: Stun N removes N AP at once (R-CON-3 floor)
            economy = state.economy.get(target.id) or self.economy.fresh(state, target.id)
            # R-CON-4: a stun given again takes only the AP its level adds
            adds = max(new.level - target.stun_taken, 0)
            ap = c.reduce_with_floor(state, int(economy["ap"]), adds)
            events.append(Event("ap_lost", {"target": target.id, "ap": ap,
                                            "lost": int(economy["ap"]) - ap,
                                            "stun_taken": max(new.level, target.stun_taken)}))
        if name == "exhausted" and new.level > 10:  # R-DTH-2
            events.append(Event("died", {"target": target.id, "unsummoned": False,
                                         "why": f"Exhausted {new.level} is above 10"}))
        if name == "prone" and old is None:  # R-MNT-3: knocked prone (not already lying)
            events += self.unseat(state, target, dice)
        return events

    @event("{target} is {condition.name} ({condition.level})"
           "[, replacing the earlier {replaced.name} ({replaced.level})].",
           target=args.creature("who"), condition=args.mapping("the condition"),
           replaced=args.mapping("the version it replaces"))
    def apply_condition_added(self, state: EncounterState, data: dict[str, Any]) -> None:
        """The same condition never stacks: the version in the event replaces the old one,
        and the old duration does not continue (R-CON-4, R-CON-5)."""
        entity = state.entity(data["target"])
        new = Condition.from_json(data["condition"])
        entity.conditions = [x for x in entity.conditions if x.name != new.name] + [new]

    @event("{target} keeps its {name} ({kept.level}); the new one ({refused.level}) does not "
           "apply.",
           target=args.creature("who"), name=args.text("the condition"),
           kept=args.mapping("the version that stays"),
           refused=args.mapping("the version that does not apply"))
    def apply_condition_kept(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    @event("{target} is knocked prone while flying and falls from {altitude} spaces.",
           target=args.creature("who"), altitude=args.integer("its altitude in spaces"))
    def apply_began_falling(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["target"])
        me.flying = False

    def stack_condition(self, existing: Condition | None, new: Condition) -> Condition:
        return new

    # -- attacks (RLM-1, RLM-2, RLM-6, R-ARM-8) --------------------------------------------
    def attack_setup(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Everything about an attack but the dice: modifiers, the score, the crit range."""
        args = command.args
        actor = self.creature(state, self.actor(state, command).id)
        target = self.creature(state, self.arg(command, "target", str))
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
        if "weapon" in args:
            gear = _gear("weapons", self.arg(command, "weapon", str), actor.id)
            weapon = [{"dice": p["dice"], "bonus": int(p.get("bonus", 0)), "type": p["type"]}
                      for p in gear["damage"]]
            melee = gear.get("range", "melee") == "melee"
            arms = bool(gear.get("arms", True))
        if mine:  # R-C-RES: an attack with a weapon the arms wield (RLM-7)
            reaction = bool(args.get("reaction"))
            self.check_arms(state, actor, "reaction_attack" if reaction else "attack",
                            command, weapon_arms=arms, reaction=reaction)
        if not weapon:
            weapon = [{"dice": "1d2", "bonus": 0, "type": "bludgeoning"}]
        mods: list[tuple[str, int]] = [("attack bonus", actor.attack)]

        def add(label: str, value: int) -> None:
            if value:
                mods.append((label, value))

        if mine:
            add("conditions (attack)", c.modifier(actor, "attack"))
            add("Weakened (d20)", c.modifier(actor, "d20"))  # R-C-WEA
            add("Exhausted (bonuses)", c.modifier(actor, "bonuses"))  # R-C-EXH
        if theirs:
            add("target Grappled", c.modifier(target, "to_be_hit"))  # R-C-GRA
            if melee:
                add("target Prone, in melee", c.modifier(target, "to_be_hit_melee"))  # R-C-PRO
        hiding = actor.condition("hidden") if mine else None
        hidden = hiding is not None
        # R-C-HID: a target that found the attacker by a search knows where it is
        aware = hiding is not None and target.id in hiding.data.get("detected_by", ())
        unaware = (self.arg(command, "unaware", bool, hidden) if "unaware" in args
                   else hidden and not aware)
        if hidden and unaware:
            add("Hidden, target unaware", 2)  # R-C-HID
        fear = actor.condition("frightened") if mine else None
        if fear is not None:  # R-C-FRI, AR-24
            sees = self.arg(command, "sees_fear_source", bool, True)
            penalty = 0
            if fear.source == target.id:
                penalty = fear.level
                if sees and self.ruling_is(state, "AR-24", "stack"):
                    penalty += c.half(state, fear.level)
            elif sees:
                penalty = c.half(state, fear.level)
            add("Frightened", -penalty)
        obscurity = 0
        if (mine and actor.has("blinded")) or (theirs and target.has("invisible")):
            obscurity = 5  # Completely Obscured (R-C-BLI, R-C-INV)
        elif not melee and theirs:
            obscurity = c.modifier(target, "obscurity_ranged")  # R-C-PRO
        if obscurity and self.ruling_is(state, "RLM-4", "minus-1-per-level"):
            add(f"Obscurity {obscurity}", -obscurity)
        if "bonus" in args:
            add("situational", self.arg(command, "bonus", int, 0))
        against = self.arg(command, "against", str, "evasion") if "against" in args \
            else "evasion"
        dodge = target.level("dodging") if theirs else 0
        # Evasion includes dodging's +1 (R-CMP-8); a Defense score is 10 + the defense
        score = (c.evasion(target) if against == "evasion"
                 else 10 + c.defense_bonus(target, against))
        scared = target.condition("frightened") if theirs else None
        if scared is not None:  # R-C-FRI: the target's Scores (its Evasion, its Defenses)
            if scared.source == actor.id:
                score -= scared.level
            elif self.arg(command, "target_sees_fear_source", bool, True):
                score -= c.half(state, scared.level)
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
        hit = c.succeeds(state, total, setup["score"])
        if self.ruling_is(state, "RLM-1", "natural-20-1"):
            hit = natural == 20 or (natural != 1 and hit)
        level = max(total - setup["score"], 0) // setup["crit_range"] if hit else 0
        return hit, level

    @command("Attack a creature: d20 + attack bonus against its Evasion or a Defense score "
             "(2 AP; a flanking reaction 1 AP, out of turn).",
             who="player", when="turn", off_turn=("reaction",), actor="required",
             cost="attack",
             rules=("R-AP-1", "R-ARM-6", "R-ARM-7", "R-ARM-8", "R-SHD-1", "R-FLK-2", "R-CMP-8",
                    "R-C-BLI", "R-C-CHA", "R-C-RES", "R-C-DAZ", "R-C-EXH", "R-C-FRI", "R-C-GRA",
                    "R-C-HID", "R-C-INV", "R-C-PRO", "R-C-WEA", "R-DY-1", "R-DTH-1", "R-CMP-10"),
             target=args.creature("the creature attacked", refers="enemy", required=True),
             weapon=args.choice("another weapon than the actor's own (weapons.toml)", *WEAPONS),
             against=args.text("evasion, or a defense (might, reflex...) whose score is 10 + it",
                               default="evasion", max_len=64),
             defend=args.flag("the target takes the Defend reaction with its shield"),
             reaction=args.choice("a reaction attack: flank (a flanker when the target leaves)",
                                  "flank"),
             bonus=args.integer("a situational bonus", lo=-99, hi=99, default=0),
             unaware=args.flag("a Hidden attacker's target does not know where it is (default: "
                               "unless it found the attacker by a search)"),
             sees_fear_source=args.flag("a Frightened attacker sees the source of its fear",
                                        default=True),
             target_sees_fear_source=args.flag("a Frightened target sees the source of its fear",
                                               default=True),
             rm_allows=args.flag("the RM allows a Restrained attacker this use of its hands"))
    def do_attack(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Attack: actor, target, [weapon], [against: evasion|might|reflex...], [defend:
        true (the target's shield reaction)], [reaction: flank], [bonus], [unaware],
        [sees_fear_source], [target_sees_fear_source], [rm_allows]."""
        setup = self.attack_setup(state, command)
        actor: RealmsCreature = setup["actor"]
        target: RealmsCreature = setup["target"]
        reaction = self.arg(command, "reaction", str, "")
        if reaction:
            self.check_flank_reaction(state, actor, target, reaction)
        defend = self.arg(command, "defend", bool, False)
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
        events = [Event("attacked", data)]
        if not hit:
            return events
        components, rolls = self.roll_damage(state, actor, setup["weapon"], level, dice)
        data["damage"] = rolls
        shield_roll = 0
        if defend:
            shield_roll, defended = self.defend(state, target, dice)
            events.append(defended)
        events += self.hurt(self.lookahead(state, events), target.id, components, dice,
                            shield_roll=shield_roll)
        return events

    def roll_damage(self, state: EncounterState, actor: RealmsCreature,
                    weapon: list[dict[str, Any]], level: int,
                    dice: DiceSource) -> tuple[list[tuple[int, str]], list[dict[str, Any]]]:
        """Each damage component's dice; each Critical Level adds the dice again (RLM-2)."""
        components = []
        rolls = []
        for expr, added, bonus, kind in self.damage_dice(state, actor, weapon, level):
            result = roll(expr, dice)
            amount = max(result.total + added, 0)
            components.append((amount, kind))
            rolls.append({**result.to_json(), "bonus": bonus, "type": kind, "amount": amount})
        return components, rolls

    def damage_dice(self, state: EncounterState, actor: RealmsCreature,
                    weapon: list[dict[str, Any]], level: int) -> list[tuple[str, int, int, str]]:
        """Each damage component as (its dice, what is added to their total, the bonus among
        that, its type): each Critical Level adds the dice again, or their maximum (RLM-2)."""
        added_max = self.ruling_is(state, "RLM-2", "added-maximum")
        out = []
        for i, part in enumerate(weapon):
            count, faces = _dice(str(part["dice"]), actor.id)
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
                                          "shield": result.to_json(), "economy": economy})

    def shield_amount(self, state: EncounterState, target: RealmsCreature, rolled: int) -> int:
        """What a Defend's shield roll stops (AR-15: halving per use, when ruled a DR)."""
        if self.ruling_is(state, "AR-15", "halving-dr"):
            return halved(rolled, target.shield_uses)
        return rolled

    def check_reaction(self, state: EncounterState, who: RealmsCreature,
                       action: str) -> None:
        """A Reaction ``who`` may not take: none while Dazed (R-C-DAZ), none that needs the
        arms while Restrained (R-C-RES: the RM's leave is for Actions, not Reactions)."""
        if not who.conditions:
            return
        if c.flag(who, "no_reactions"):
            raise IllegalCommand(f"{who.id} is Dazed and cannot take Reactions", rule="R-C-DAZ")
        self.check_arms(state, who, action, reaction=True)

    def check_arms(self, state: EncounterState, who: RealmsCreature, action: str,
                   command: Command | None = None, *, weapon_arms: bool = True,
                   reaction: bool = False) -> None:
        """R-C-RES: a Restrained creature takes no Action or Reaction that needs the arms
        (which do: RLM-7, ``c.needs_arms``); the RM may allow an Action using the hands
        (``rm_allows`` on the command), never a Reaction."""
        if not who.conditions or not c.flag(who, "no_arm_actions"):
            return
        if not c.needs_arms(state, action, weapon_arms):
            return
        if not reaction and command is not None and self.arg(command, "rm_allows", bool, False):
            return
        what = ARM_ACTIONS.get(action, action)
        leave = "" if reaction else " (the RM may allow it: rm_allows: true)"
        raise IllegalCommand(f"{who.id} is Restrained: no {what}, it needs the arms{leave}",
                             rule="R-C-RES")

    def check_movement(self, state: EncounterState, who: RealmsCreature, action: str,
                       command: Command) -> None:
        """Climbing and swimming are movement (seed 003, "Movement"): Grappled and Immobile
        refuse them (R-C-GRA, R-C-IMM), and they need the arms (R-C-RES, RLM-7)."""
        if not who.conditions:
            return
        cond = c.flag(who, "no_movement_actions")
        if cond:
            raise IllegalCommand(f"{who.id} is {cond} and cannot take movement actions",
                                 rule="R-C-GRA" if cond == "grappled" else "R-C-IMM")
        self.check_arms(state, who, action, command)

    def check_flank_reaction(self, state: EncounterState, actor: RealmsCreature,
                             target: RealmsCreature, reaction: str) -> None:
        """R-FLK-2: a flanker's Basic Reaction when the target leaves; once per the
        triggering creature's turn (AR-35: one in total)."""
        if reaction != "flank":
            raise InvalidCommand("attack: the only reaction attack is 'flank'")
        if actor.conditions and c.flag(actor, "no_reactions"):  # the arms: attack_setup
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
           damage=args.items("each damage component's roll"))
    def apply_attacked(self, state: EncounterState, data: dict[str, Any]) -> None:
        target = self.creature(state, data["target"])
        if data.get("dodge_left") is not None:
            _set_level(target, "dodging", data["dodge_left"])
        if data.get("reaction"):
            provoked = state.extra.get("provoked")
            if provoked is not None:
                provoked["used"] = [*provoked.get("used", []), data["actor"]]

    @event("{actor} takes the Defend reaction: the shield stops {shield_roll}.",
           actor=args.creature("the defender"), shield_roll=args.integer("damage it stops"),
           shield=args.mapping("the shield die's roll"))
    def apply_defended(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["actor"]).shield_uses += 1

    # -- damage ----------------------------------------------------------------------------
    def hurt(self, state: EncounterState, who: str, components: list[tuple[int, str]],
             dice: DiceSource, *,
             shield_roll: int = 0, fall: bool = False, over_time: str | None = None,
             irreducible: bool = False, cause: str = "damage") -> list[Event]:
        """A ``damaged`` event through the pipeline, and what follows from it."""
        target = self.creature(state, who)
        later = over_time is not None and over_time in target.over_time_seen
        result = resolve(target, components, state.rulings, fall=fall, shield_roll=shield_roll,
                         over_time_later=later, irreducible=irreducible)
        health = target.health - result.taken
        data = {"target": who, "cause": cause, "taken": result.taken, "health": health,
                "pipeline": result.to_json(), "armor_uses": result.armor_uses,
                "dr_uses": result.dr_uses, "over_time": over_time,
                # R-STB-2: damage below 0 after stabilizing restarts dying damage at 1d4
                "destabilize": target.stabilized and result.taken > 0 and health < 0}
        return [Event("damaged", data), *self.consequences(state, who, health, dice)]

    @event("{target} takes {taken} damage[ ({pipeline.text})][, down to {health} Health]"
           "{destabilize?, and is no longer stabilized|}.",
           target=args.creature("who"), cause=args.text("damage, fall or energy below 0"),
           taken=args.integer("damage taken"), health=args.integer("Health after"),
           pipeline=args.mapping("the pipeline's steps"),
           armor_uses=args.integer("the armor's reductions this turn"),
           dr_uses=args.mapping("each reduction effect's uses this turn"),
           over_time=args.text("the damage over time it belongs to"),
           destabilize=args.flag("a stabilized creature's dying damage starts again"))
    def apply_damaged(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["target"])
        me.health = data["health"]
        me.armor_uses = data["armor_uses"]
        me.dr_uses = dict(data["dr_uses"])
        if data.get("over_time") and data["over_time"] not in me.over_time_seen:
            me.over_time_seen = [*me.over_time_seen, data["over_time"]]
        if data.get("destabilize"):
            me.stabilized, me.dying_turns = False, 0

    @command("Deal damage through the damage pipeline (armor, reductions, Resistance...).",
             rules=("R-ARM-1", "R-ARM-2", "R-ARM-3", "R-ARM-4", "R-ARM-5", "R-DR-1", "R-RES-1",
                    "R-RES-2", "R-VUL-1", "R-RV-1", "R-IMM-1", "R-C-RSL", "R-C-SUS", "R-DY-1",
                    "R-DY-2", "R-STB-2", "R-DTH-1", "R-CMP-10", "R-OVH-2"),
             target=args.creature("who takes the damage", required=True),
             amount=args.integer("the damage (unless components are given)", lo=0, hi=9999),
             type=args.text("its damage type (none: typeless)", max_len=64),
             components=args.items("several components: [[amount, type], ...]"),
             over_time=args.text("the name of a damage over time (armor reduces only its first "
                                 "hit)", max_len=64),
             irreducible=args.flag("nothing reduces it"))
    def do_damage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Deal damage through the pipeline: target, amount and type, or components
        [[amount, type], ...]; [over_time: a name for damage over time (R-ARM-5)],
        [irreducible: true]."""
        target = self.creature(state, self.arg(command, "target", str))
        if "components" in command.args:
            raw = self.arg(command, "components", list)
            try:
                components = [(int(a), str(t)) for a, t in raw]
            except (TypeError, ValueError):
                raise InvalidCommand("damage: components are [[amount, type], ...]") from None
        else:
            components = [(self.arg(command, "amount", int), self.arg(command, "type", str, ""))]
        if any(a < 0 for a, _ in components):
            raise InvalidCommand("damage: amounts must not be negative")
        if target.dead:
            raise IllegalCommand(f"{target.id} is already dead")
        return self.hurt(state, target.id, components, dice,
                         over_time=self.arg(command, "over_time", str, None),
                         irreducible=self.arg(command, "irreducible", bool, False))

    # -- healing (R-HEAL-*, R-OVH-*, R-STB-1, R-C-BLE) ---------------------------------------
    @command("Heal a creature (Bleed first; any healing stabilizes the Dying).",
             rules=("R-HEAL-1", "R-HEAL-2", "R-OVH-1", "R-OVH-3", "R-STB-1", "R-DY-5", "R-C-BLE"),
             target=args.creature("who is healed", required=True),
             amount=args.integer("Health restored", lo=0, hi=9999, required=True),
             healer=args.creature("who heals (with power: their Power Bonus is added)"),
             power=args.flag("healing from a Power: adds the healer's Power Bonus"),
             overheal=args.flag("Overheal: above the maximum, stacking"))
    def do_heal(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Heal: target, amount, [healer, power: true (adds the healer's Power Bonus)],
        [overheal: true (above the maximum, stacking)]."""
        target = self.creature(state, self.arg(command, "target", str))
        amount = self.arg(command, "amount", int)
        if amount < 0:
            raise InvalidCommand("heal: amount must not be negative")
        if target.dead:
            raise IllegalCommand(f"{target.id} is dead; healing cannot help", rule="R-DTH-1")
        overheal = self.arg(command, "overheal", bool, False)
        total = amount
        if self.arg(command, "power", bool, False):
            healer = self.creature(state, self.arg(command, "healer", str))
            if not overheal or self.ruling_is(state, "AR-33", "applies"):
                total += healer.power_bonus  # R-HEAL-2, AR-33
        bleed = target.level("bleed")
        cut = min(bleed, total)  # AR-25
        restored = total - cut
        if bleed and self.ruling_is(state, "AR-25", "literal"):
            restored = 0
        start = target.health
        if start < 0 and self.ruling_is(state, "AR-7", "from-zero"):
            start = 0
        if overheal:
            health = start + restored  # R-OVH-1, R-OVH-3
        else:
            health = max(target.health, min(start + restored, target.health_max))  # R-HEAL-1
        stabilizes = target.dying and total > 0  # R-STB-1: any healing
        data = {"target": target.id, "amount": total, "healed": health - target.health,
                "health": health, "bleed": bleed - cut, "stabilized": stabilizes}
        events = [Event("healed", data)]
        if target.dying and health > 0:  # R-DY-5
            events.append(Event("condition_removed", {"target": target.id, "name": "dying",
                                                      "why": "healed above 0"}))
        return events

    @event("{target} is healed for {amount} and regains {healed} Health[, now {health}]; "
           "Bleed {bleed}{stabilized?; stabilized|}.",
           target=args.creature("who"), amount=args.integer("the healing, Power Bonus included"),
           healed=args.integer("Health regained"), health=args.integer("Health after"),
           bleed=args.integer("the Bleed level left"),
           stabilized=args.flag("a Dying creature is stabilized"))
    def apply_healed(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["target"])
        me.health = data["health"]
        _set_level(me, "bleed", data["bleed"])
        if data["stabilized"]:
            me.stabilized, me.dying_turns = True, 0

    def stabilize_setup(self, state: EncounterState,
                        command: Command) -> tuple[RealmsCreature, RealmsCreature, str]:
        """The actor, the target (refused unless Dying, R-STB-1) and the method."""
        actor = self.creature(state, self.actor(state, command).id)
        target = self.creature(state, self.arg(command, "target", str))
        if not target.dying:
            raise IllegalCommand(f"{target.id} is not Dying", rule="R-STB-1")
        self.check_arms(state, actor, "stabilize", command)  # R-C-RES: by hand
        return actor, target, self.arg(command, "method", str, "medicine")

    @command("Stabilize a Dying creature below 0 Health: a Medicine roll, or a bandage, potion, "
             "feat or power (2 AP).",
             who="player", actor="required", cost="stabilize", rules=("R-STB-1", "R-C-RES"),
             target=args.creature("the Dying creature", refers="ally", required=True),
             method=args.text("medicine (a roll), bandage, potion, feat or power",
                              default="medicine", max_len=64),
             ds=args.integer("the Medicine roll's Difficulty Score", lo=0, hi=999, default=10),
             rm_allows=args.flag("the RM allows a Restrained creature this use of its hands"))
    def do_stabilize(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        """Stabilize a creature below 0 Health (R-STB-1): actor, target, [method: medicine
        (a Medicine roll against `ds`, default 10) | bandage | potion | feat | power],
        [rm_allows] (a Restrained healer, R-C-RES)."""
        actor, target, method = self.stabilize_setup(state, command)
        economy = self.pay(state, actor, "stabilize")
        data: dict[str, Any] = {"actor": actor.id, "target": target.id, "method": method,
                                "economy": economy}
        if method == "medicine":
            ds = self.arg(command, "ds", int, 10)
            d20 = dice.roll(20)
            total = d20 + self.roll_bonus(actor, "medicine")
            data.update(d20=d20, total=total, ds=ds, stabilized=c.succeeds(state, total, ds))
        else:
            data["stabilized"] = True
        return [Event("stabilized", data)]

    @event("{actor} {stabilized?stabilizes|fails to stabilize} {target} ({method})"
           "[: Medicine {total} (d20 {d20}) against DS {ds}].",
           actor=args.creature("who"), target=args.creature("the Dying creature"),
           method=args.text("medicine, bandage, potion, feat or power"),
           d20=args.integer("the d20"), total=args.integer("the roll's total"),
           ds=args.integer("the Difficulty Score"), stabilized=args.flag("it worked"))
    def apply_stabilized(self, state: EncounterState, data: dict[str, Any]) -> None:
        if data["stabilized"]:
            me = self.creature(state, data["target"])
            me.stabilized, me.dying_turns = True, 0

    @command("A full recovery: Exhaustion drops 1, overheal ends.",
             rules=("R-C-EXH", "R-OVH-2"),
             target=args.creature("who recovers", required=True))
    def do_recover(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """A full recovery: target. Exhaustion drops 1 (R-C-EXH), overheal ends (R-OVH-2)."""
        target = self.creature(state, self.arg(command, "target", str))
        return [Event("recovered", {"target": target.id,
                                    "health": min(target.health, target.health_max),
                                    "exhausted": max(target.level("exhausted") - 1, 0)})]

    @event("{target} completes a full recovery[: Health {health}], Exhausted {exhausted}.",
           target=args.creature("who"), health=args.integer("Health after (no overheal)"),
           exhausted=args.integer("the Exhausted level left"))
    def apply_recovered(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["target"])
        me.health = data["health"]
        _set_level(me, "exhausted", data["exhausted"])

    # -- Energy (R-EN-1, R-EN-2) ------------------------------------------------------------
    @command("A creature spends its own Energy (never below 0).",
             who="player", when="any", actor="required", rules=("R-EN-2",),
             amount=args.integer("Energy spent", lo=0, hi=9999, required=True))
    def do_spend_energy(self, state: EncounterState, command: Command,
                        dice: DiceSource) -> list[Event]:
        """A creature spends its own Energy: actor, amount; never below 0 (R-EN-2)."""
        actor = self.creature(state, self.actor(state, command).id)
        amount = self.arg(command, "amount", int)
        if amount > actor.energy:
            raise IllegalCommand(f"{actor.id} has {actor.energy} Energy and cannot spend "
                                 f"{amount}: a creature cannot take its own Energy below 0",
                                 rule="R-EN-2")
        return [Event("energy_changed", {"target": actor.id, "energy": actor.energy - amount,
                                         "deficit": 0})]

    @command("Drain a creature's Energy; below 0 it takes 1 damage per point below.",
             rules=("R-EN-1",),
             target=args.creature("whose Energy is drained", required=True),
             amount=args.integer("Energy drained", lo=0, hi=9999, required=True))
    def do_drain_energy(self, state: EncounterState, command: Command,
                        dice: DiceSource) -> list[Event]:
        """Something drains a creature's Energy: target, amount. Below 0, it takes 1 damage
        per point below and Energy is set to 0 (R-EN-1, AR-27)."""
        target = self.creature(state, self.arg(command, "target", str))
        amount = self.arg(command, "amount", int)
        left = target.energy - amount
        events = [Event("energy_changed", {"target": target.id, "energy": max(left, 0),
                                           "deficit": max(-left, 0)})]
        if left < 0:
            events += self.hurt(self.lookahead(state, events), target.id, [(-left, "")], dice,
                                cause="energy below 0")
        return events

    @event("{target} has {energy} Energy now (deficit {deficit}).",
           target=args.creature("who"), energy=args.integer("Energy after"),
           deficit=args.integer("how far below 0 it went (as damage)"))
    def apply_energy_changed(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["target"]).energy = data["energy"]

    # -- movement (R-MOV-*, R-DT-*, R-PRN-*, R-SIZ-4/5, R-FLK-*) ------------------------------
    @command("Mark squares as difficult terrain, or clear them.",
             rules=("R-DT-1",),
             squares=args.squares("the squares", required=True),
             clear=args.flag("clear them instead"))
    def do_terrain(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Mark squares as difficult terrain: squares [[x, y], ...], [clear: true]."""
        squares = [self.square(command, sq) for sq in self.arg(command, "squares", list)]
        return [Event("terrain_set", {"squares": squares,
                                      "clear": self.arg(command, "clear", bool, False)})]

    @staticmethod
    def square(command: Command, raw: Any) -> list[int]:
        """A square [x, y] of a command's list, or InvalidCommand."""
        if (not isinstance(raw, list) or len(raw) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw)):
            raise InvalidCommand(f"{command.name}: a square is [x, y] in whole numbers, "
                                 f"not {raw!r}")
        return [raw[0], raw[1]]

    @event("Squares {clear?cleared of|marked as} difficult terrain: {squares}.",
           squares=args.squares("the squares"), clear=args.flag("cleared"))
    def apply_terrain_set(self, state: EncounterState, data: dict[str, Any]) -> None:
        current = {tuple(s) for s in state.extra.get("difficult", [])}
        given = {tuple(s) for s in data["squares"]}
        current = current - given if data["clear"] else current | given
        state.extra["difficult"] = sorted([list(s) for s in current])

    @command("Put a creature on a square of the grid (or off it).",
             target=args.creature("who is placed", required=True),
             at=args.square("the square [x, y] (none: off the grid)"))
    def do_place(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """The game master puts a creature on a square: target, at [x, y]."""
        target = self.creature(state, self.arg(command, "target", str))
        at = c.position(command, "at")
        return [Event("placed", {"target": target.id, "at": at})]

    @event("{target} is placed[ at ({at})].",
           target=args.creature("who"), at=args.square("the square"))
    def apply_placed(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["target"]).position = data["at"]

    def step_cost(self, state: EncounterState, me: RealmsCreature, start: list[int],
                  end: list[int], difficult_all: bool, forbid_larger: bool) -> tuple[int, bool]:
        """Half spaces for one step: 2 straight, 3 diagonal (R-MOV-3), doubled once for
        difficult terrain (R-DT-1, R-DT-3): terrain, another creature (R-DT-2, R-SIZ-4,
        AR-32) or prone (R-PRN-1)."""
        dx, dy = abs(end[0] - start[0]), abs(end[1] - start[1])
        if max(dx, dy) != 1:
            raise InvalidCommand(f"move: {start} to {end} is not one step")
        cost = 3 if dx and dy else 2
        squares = set(me.squares(end))
        terrain = {tuple(s) for s in state.extra.get("difficult", [])}
        difficult = difficult_all or bool(squares & terrain) or me.has("prone")
        for other in state.entities.values():
            if (not isinstance(other, RealmsCreature) or other.id == me.id or other.dead
                    or other.id == me.mounted_on or other.mounted_on == me.id):
                continue
            if squares & set(other.squares()):
                enemy = other.side is not None and me.side is not None and other.side != me.side
                larger = c.size_order(other) > c.size_order(me)
                if enemy and larger and (forbid_larger
                                         or self.ruling_is(state, "AR-32", "forbidden")):
                    raise IllegalCommand(f"{me.id} cannot move through {other.id}, a larger "
                                         "enemy", rule="R-SIZ-4")
                difficult = True
        return (2 * cost if difficult else cost), difficult

    @command("Move along a path of single steps (or a number of spaces), buying move actions "
             "(1 AP: Speed spaces) as needed.",
             who="player", actor="required", cost="move",
             rules=("R-MOV-1", "R-MOV-3", "R-DT-1", "R-DT-2", "R-DT-3", "R-PRN-1", "R-SIZ-4",
                    "R-FLK-2", "R-MNT-4", "R-MNT-6", "R-CAR-2", "R-C-GRA", "R-C-IMM", "R-C-SLO",
                    "R-AP-1"),
             path=args.squares("the squares stepped onto, each one step from the last"),
             spaces=args.integer("straight spaces (without a path)", lo=0, hi=9999, default=0),
             diagonals=args.integer("diagonal spaces (without a path)", lo=0, hi=9999, default=0),
             difficult=args.flag("the whole move is through difficult terrain"),
             forbid_larger=args.flag("the RM forbids passing through a larger enemy"))
    def do_move(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Move: actor, path [[x, y], ...] (each a step from the last), or spaces (straight)
        and [diagonals]; [difficult: true] for the whole move; [forbid_larger: true] (the RM
        forbids passing a larger enemy). Buys move actions (1 Speed each) as needed."""
        me = self.creature(state, self.actor(state, command).id)
        if me.mounted_on and me.mounted_on in state.entities:
            mount = self.creature(state, me.mounted_on)
            if not mount.willing and not mount.saddled and not me.controls_mount:
                raise IllegalCommand(f"{mount.id} is unwilling and moves itself: 'control' it "
                                     "with Animal Handling first", rule="R-MNT-6")
        difficult_all = self.arg(command, "difficult", bool, False)
        forbid = self.arg(command, "forbid_larger", bool, False)
        path = self.arg(command, "path", list, [])
        halves = 0
        hard = 0
        end = me.position
        if path:
            if me.position is None:
                raise InvalidCommand(f"move: {me.id} has no position (place it first)")
            here = me.position
            for raw in path:
                step = self.square(command, raw)
                cost, was_hard = self.step_cost(state, me, here, step, difficult_all, forbid)
                halves += cost
                hard += int(was_hard)
                here = step
            end = here
        else:
            straight = self.arg(command, "spaces", int, 0)
            diagonals = self.arg(command, "diagonals", int, 0)
            if straight < 0 or diagonals < 0 or straight + diagonals == 0:
                raise InvalidCommand("move: give a path, or spaces and/or diagonals")
            factor = 2 if (difficult_all or me.has("prone")) else 1
            halves = factor * (2 * straight + 3 * diagonals)
        economy = self.pay(state, me, "move", ap=0)
        economy, bought = self.buy_movement(state, me, halves, economy)
        provoked: list[str] = []
        if path and state.in_combat:
            # R-FLK-2: leaving either flanker's reach lets "you or your flanking ally" react
            before = c.flankers(state, me)
            after_squares = me.squares(end)
            if any(c.distance(after_squares, self.creature(state, fid).squares()) > 1
                   for fid in before):
                provoked = before
        return [Event("moved", {"actor": me.id, "to": end, "cost_halves": halves,
                                "cost": str(Fraction(halves, 2)), "difficult_steps": hard,
                                "move_actions": bought, "economy": economy,
                                "provoked": provoked})]

    @event("{actor} moves[ to ({to})]: {cost} spaces of movement, {move_actions} move "
           "actions bought[, {difficult_steps} steps through difficult terrain]"
           "{provoked?, leaving a flank (a flanker may react)|}.",
           actor=args.creature("who"), to=args.square("where it ends"),
           cost_halves=args.integer("the cost in half spaces"),
           cost=args.text("the cost in spaces"),
           difficult_steps=args.integer("steps through difficult terrain"),
           move_actions=args.integer("move actions bought"),
           provoked=args.creatures("flankers it leaves, who may react"))
    def apply_moved(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["actor"])
        if data["to"] is not None:
            me.position = list(data["to"])
            if me.mounted_on and me.mounted_on in state.entities:
                self.creature(state, me.mounted_on).position = list(data["to"])
        if data["provoked"]:
            # R-FLK-2: once on the mover's turn, however many flanks it leaves: the
            # reactions already taken this turn stay counted (the turn's start clears them)
            earlier = state.extra.get("provoked")
            used = list(earlier.get("used", [])) if earlier and earlier["mover"] == me.id \
                else []
            state.extra["provoked"] = {"mover": me.id, "flankers": list(data["provoked"]),
                                       "used": used}

    def move_odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """What a ``move`` would cost and trigger, from ``do_move`` itself (it rolls nothing),
        or its refusal: ``spaces`` of movement, the move actions bought and the ``ap_spent``
        on them, the ``ap_left`` and ``movement_left`` (spaces of bought movement) after it,
        the ``difficult_steps``, the flankers offered a reaction (``flank_reaction``,
        R-FLK-2), the enemies whose reach (1 space, melee) it leaves (``leaves_reach``) and
        those flanking it where it ends (``flanked_at_end``)."""
        (moved,) = self.do_move(state, command, ProbeDice())
        data = moved.data
        me = self.creature(state, data["actor"])
        economy = data["economy"]
        before, after = me.squares(), me.squares(data["to"])
        near = [e for e in c.enemies(state, me) if e.position is not None and before
                and c.distance(before, e.squares()) <= 1]
        out: dict[str, Any] = {
            "to": data["to"], "spaces": data["cost_halves"] / ROUND_HALVES,
            "move_actions": data["move_actions"],
            "ap_spent": data["move_actions"] * c.ap_costs(state)["move"],
            "difficult_steps": data["difficult_steps"],
            "flank_reaction": list(data["provoked"]),
            "leaves_reach": [e.id for e in near if c.distance(after, e.squares()) > 1],
            "flanked_at_end": c.flankers(state, me, data["to"]) if after else [],
        }
        if economy is not None:
            out["ap_left"] = economy["ap"]
            out["movement_left"] = economy["movement"] / ROUND_HALVES
        return out

    public_extra = frozenset({"difficult"})
    """The keys of ``state.extra`` every player sees on the map (server/views.py)."""

    def map_view(self, state: EncounterState, ids: list[str]) -> dict[str, Any]:
        """What the battle map draws beyond positions, for the creatures ``ids`` (those the
        reader may see): the footprint of each creature larger than one square (R-SIZ-1,
        offsets from its position), the melee reach of each (1 space around its footprint)
        and the terrain kinds that block sight (none: realms has difficult terrain only)."""
        footprints: dict[str, list[list[int]]] = {}
        reach: dict[str, int] = {}
        for who in ids:
            me = state.entities.get(who)
            if not isinstance(me, RealmsCreature):
                continue
            cells = me.size_info.footprint
            if len(cells) > 1:
                footprints[who] = [[dx, dy] for dx, dy in cells]
            if not me.down:
                reach[who] = 1
        return {"footprints": footprints, "reach": reach, "blocks_sight": []}

    @command("Stand up from Prone: 2 spaces of movement.",
             who="player", actor="required", cost="move", rules=("R-PRN-2", "R-C-DYI"))
    def do_stand(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Stand up from Prone: 2 spaces of movement, buying move actions if needed (R-PRN-2)."""
        me = self.creature(state, self.actor(state, command).id)
        if not me.has("prone"):
            raise IllegalCommand(f"{me.id} is not prone")
        if me.dying:
            raise IllegalCommand(f"{me.id} is Dying and stays prone", rule="R-C-DYI")
        economy, bought = self.buy_movement(state, me, 4, self.pay(state, me, "move", ap=0))
        return [Event("stood", {"actor": me.id, "move_actions": bought, "economy": economy}),
                Event("condition_removed", {"target": me.id, "name": "prone", "why": "stood"})]

    @event("{actor} stands up ({move_actions} move actions bought).",
           actor=args.creature("who"), move_actions=args.integer("move actions bought"))
    def apply_stood(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None  # its economy is stored by evolve (apply_economy_of)

    # -- mounts (R-MNT-*) --------------------------------------------------------------------
    def mount_setup(self, state: EncounterState,
                    command: Command) -> tuple[RealmsCreature, RealmsCreature]:
        """The rider and the mount, refused unless it may be mounted (R-MNT-5)."""
        me = self.creature(state, self.actor(state, command).id)
        mount = self.creature(state, self.arg(command, "target", str))
        if me.mounted_on:
            raise IllegalCommand(f"{me.id} is already mounted on {me.mounted_on}")
        if not mount.mountable:
            raise IllegalCommand(f"{mount.id} cannot be mounted", rule="R-MNT-5")
        if c.size_order(mount) <= c.size_order(me):
            raise IllegalCommand(f"{mount.id} ({mount.size}) must be at least one size larger "
                                 f"than {me.id} ({me.size}) to be mounted", rule="R-MNT-5")
        self.check_arms(state, me, "mount", command)  # R-C-RES: climbing on needs the hands
        return me, mount

    @command("Mount a creature: 3 spaces of movement; an unwilling, unsaddled mount needs "
             "Animal Handling.",
             who="player", actor="required", cost="move",
             rules=("R-MNT-1", "R-MNT-5", "R-MNT-6", "R-C-RES"),
             target=args.creature("the mount", required=True),
             rm_allows=args.flag("the RM allows a Restrained creature this use of its hands"))
    def do_mount(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Mount a creature: actor, target. 3 spaces of movement (R-MNT-1); the mount must be
        mountable and at least one size larger (R-MNT-5); an unwilling, unsaddled mount
        needs Animal Handling against DS 10 + its level (R-MNT-6)."""
        me, mount = self.mount_setup(state, command)
        economy, bought = self.buy_movement(state, me, 6, self.pay(state, me, "move", ap=0))
        data: dict[str, Any] = {"actor": me.id, "mount": mount.id, "economy": economy,
                                "move_actions": bought, "mounted": True}
        if not mount.willing and not mount.saddled:
            ds = 10 + mount.creature_level
            d20 = dice.roll(20)
            total = d20 + self.roll_bonus(me, "animal_handling")
            data.update(d20=d20, total=total, ds=ds, mounted=c.succeeds(state, total, ds))
        return [Event("mounted", data)]

    @event("{actor} {mounted?mounts|fails to mount} {mount}"
           "[: Animal Handling {total} (d20 {d20}) against DS {ds}].",
           actor=args.creature("the rider"), mount=args.creature("the mount"),
           move_actions=args.integer("move actions bought"), mounted=args.flag("mounted"),
           d20=args.integer("the d20"), total=args.integer("the roll's total"),
           ds=args.integer("the Difficulty Score"))
    def apply_mounted(self, state: EncounterState, data: dict[str, Any]) -> None:
        if data["mounted"]:
            me = self.creature(state, data["actor"])
            me.mounted_on = data["mount"]
            me.position = self.creature(state, data["mount"]).position
            me.controls_mount = "ds" in data

    @command("Dismount: 3 spaces of movement.",
             who="player", actor="required", cost="move", rules=("R-MNT-1",),
             at=args.square("the square [x, y] it steps down to"))
    def do_dismount(self, state: EncounterState, command: Command,
                    dice: DiceSource) -> list[Event]:
        """Dismount: actor, [at [x, y]]; 3 spaces of movement (R-MNT-1)."""
        me = self.creature(state, self.actor(state, command).id)
        if not me.mounted_on:
            raise IllegalCommand(f"{me.id} is not mounted")
        economy, bought = self.buy_movement(state, me, 6, self.pay(state, me, "move", ap=0))
        return [Event("dismounted", {"actor": me.id, "economy": economy, "move_actions": bought,
                                     "at": c.position(command, "at")})]

    @event("{actor} dismounts[ at ({at})].",
           actor=args.creature("the rider"), move_actions=args.integer("move actions bought"),
           at=args.square("where it steps down"))
    def apply_dismounted(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["actor"])
        me.mounted_on = None
        me.controls_mount = False
        if data["at"] is not None:
            me.position = data["at"]

    def unseat(self, state: EncounterState, mount: RealmsCreature,
               dice: DiceSource) -> list[Event]:
        """R-MNT-3: a mount knocked prone unseats its riders, who fall prone unless they
        pass DS 15 Reflex or Might (the better of the two)."""
        events: list[Event] = []
        for rider in state.entities.values():
            if not isinstance(rider, RealmsCreature) or rider.mounted_on != mount.id:
                continue
            bonus = max(c.defense_bonus(rider, "reflex"), c.defense_bonus(rider, "might"))
            d20 = dice.roll(20)
            total = d20 + bonus + c.modifier(rider, "d20")
            kept = c.succeeds(state, total, 15)
            events.append(Event("unseat_roll", {"target": rider.id, "d20": d20, "total": total,
                                                "ds": 15, "stays_mounted": kept}))
            if not kept:  # unmounted by the roll's event, then knocked prone
                events += self.gain(state, rider, Condition("prone", source=mount.id), dice)
        return events

    @event("{target} {stays_mounted?stays mounted|is unseated}: {total} (d20 {d20}) against "
           "DS {ds}.",
           target=args.creature("the rider"), d20=args.integer("the d20"),
           total=args.integer("the better of Reflex and Might"),
           ds=args.integer("the Difficulty Score"), stays_mounted=args.flag("it stays on"))
    def apply_unseat_roll(self, state: EncounterState, data: dict[str, Any]) -> None:
        if not data["stays_mounted"]:
            self.creature(state, data["target"]).mounted_on = None

    # -- rolls against a Difficulty Score ---------------------------------------------------
    def roll_bonus(self, roller: RealmsCreature, skill: str, extra: int = 0) -> int:
        """What a d20 roll of ``skill`` (or a defense) adds: its bonus, the conditions' d20
        modifiers and ``extra``."""
        return c.skill_bonus(roller, skill) + c.modifier(roller, "d20") + extra

    def check_roll(self, state: EncounterState, roller: RealmsCreature, skill: str, ds: int,
                   dice: DiceSource, extra: int = 0, twice: bool = False) -> dict[str, Any]:
        result = roll("2d20kh1" if twice else "1d20", dice)
        bonus = self.roll_bonus(roller, skill, extra)
        total = result.total + bonus
        return {"skill": skill, "roller": roller.id, "d20": result.total, "bonus": bonus,
                "total": total, "ds": ds, "success": c.succeeds(state, total, ds)}

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
                extra.append(("target Faint", c.modifier(other, "outside_forces")))  # R-C-FAI
            fear = roller.condition("frightened")
            if fear is not None and fear.source == other.id:
                extra.append(("Frightened (source)", -fear.level))  # R-C-FRI
        elif roller.has("frightened") and self.arg(command, "sees_fear_source", bool, False):
            extra.append(("Frightened (in view)", -c.half(state, roller.level("frightened"))))
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

    @staticmethod
    def check_harm(who: RealmsCreature, target: RealmsCreature, what: str) -> None:
        """R-C-CHA: a Charmed creature neither attacks nor harms the creature that charmed
        it (a condition with ``no_harm_source`` whose source is ``target``)."""
        if not who.conditions:
            return
        catalogue = conditions_catalogue()
        for cond in who.conditions:
            if cond.source == target.id and catalogue[cond.name].get("no_harm_source"):
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
        return sum(int(catalogue[x.name].get(key, 0)) for x in target.conditions
                   if x.source == source)

    @staticmethod
    def balance(roller: RealmsCreature, skill: str, needed: bool) -> int:
        """R-C-FAI: what a roll needing balance or poise ("such as climbing, dancing, and
        acrobatics": every Acrobatics roll, a climb, or a roll said to) loses."""
        if not roller.conditions or not (needed or skill in BALANCE_SKILLS):
            return 0
        return c.modifier(roller, "balance")

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

    def ridden(self, state: EncounterState, me: RealmsCreature) -> RealmsCreature:
        """The mount ``me`` rides (refused when it rides none, R-MNT-6)."""
        if not me.mounted_on:
            raise IllegalCommand(f"{me.id} is not mounted", rule="R-MNT-6")
        return self.creature(state, me.mounted_on)

    @command("Control an unwilling, unsaddled mount this turn: Animal Handling against DS 10 "
             "+ its level (free).",
             who="player", actor="required", cost="free", rules=("R-MNT-6",))
    def do_control(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Control an unwilling, unsaddled mount this turn (R-MNT-6): actor (the rider);
        Animal Handling against DS 10 + the mount's level. Free, once a turn."""
        me = self.creature(state, self.actor(state, command).id)
        mount = self.ridden(state, me)
        economy = self.pay(state, me, "move", ap=0)
        data = self.check_roll(state, me, "animal_handling", 10 + mount.creature_level, dice)
        # RLM-8: the roll to control is the roll to remain mounted: a failure throws it off
        data.update(actor=me.id, mount=mount.id, economy=economy,
                    thrown=not data["success"] and self.unruly(state, me) is not None)
        return [Event("control_rolled", data)]

    @event("{actor} {success?controls|fails to control} {mount} this turn: Animal Handling "
           "{total} (d20 {d20}) against DS {ds}{thrown?, and is thrown off|}.",
           actor=args.creature("the rider"), mount=args.creature("the mount"),
           thrown=args.flag("the rider fails to remain on an unwilling mount (R-MNT-6)"),
           shared=ROLL_FIELDS)
    def apply_control_rolled(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["actor"])
        me.controls_mount = bool(data["success"])
        if data.get("thrown"):
            me.mounted_on = None

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
                 if total is not None and c.succeeds(state, total, score)]
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

    @command("Jump as part of movement; beyond the limit a roll against DS 10 + 5 per space.",
             who="player", actor="required", cost="move", rules=("R-JMP-1", "R-JMP-2"),
             spaces=args.integer("spaces jumped", lo=0, hi=9999, required=True),
             vertical=args.flag("a vertical jump (half the limit)"),
             skill=args.text("athletics or acrobatics (default: the better)", max_len=64))
    def do_jump(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Jump: actor, spaces, [vertical: true], [skill: athletics|acrobatics]. Within the
        limit no roll (R-JMP-1); beyond it a roll against DS 10 + 5 per space (R-JMP-2)."""
        me = self.creature(state, self.actor(state, command).id)
        spaces = self.arg(command, "spaces", int)
        vertical = self.arg(command, "vertical", bool, False)
        horizontal_limit, vertical_limit = c.jump_limits(state, me)
        limit = vertical_limit if vertical else horizontal_limit
        excess = max(spaces - limit, 0)
        economy, bought = self.buy_movement(state, me, 2 * spaces,
                                            self.pay(state, me, "move", ap=0))
        data: dict[str, Any] = {"actor": me.id, "spaces": spaces, "limit": limit,
                                "vertical": vertical, "economy": economy,
                                "move_actions": bought, "success": True}
        if excess:
            skill = self.arg(command, "skill", str, "")
            if not skill:
                skill = max(("athletics", "acrobatics"), key=lambda s: c.skill_bonus(me, s))
            data.update(self.check_roll(state, me, skill, c.jump_ds(state, excess), dice,
                                        self.balance(me, skill, False)))
        return [Event("jumped", data)]

    @event("{actor} jumps {spaces} spaces {vertical?up|across} (limit {limit})"
           "[: {skill} {total} (d20 {d20}) against DS {ds}], {success?a success|a failure}.",
           actor=args.creature("who"), spaces=args.integer("spaces jumped"),
           limit=args.integer("spaces it jumps without a roll"),
           vertical=args.flag("a vertical jump"),
           move_actions=args.integer("move actions bought"),
           shared=ROLL_FIELDS)
    def apply_jumped(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None  # its economy is stored by evolve (apply_economy_of)

    @command("Climb: an Athletics roll unless the creature has a Climb Speed (1 AP).",
             who="player", actor="required", cost="climb",
             rules=("R-CLB-1", "R-CLB-2", "R-C-SLO", "R-C-IMM", "R-C-GRA", "R-C-RES", "R-C-FAI"),
             spaces=args.integer("spaces climbed", lo=0, hi=9999, required=True),
             ds=args.integer("the wall's Difficulty Score, set by the RM", lo=0, hi=999,
                             default=10),
             rm_allows=args.flag("the RM allows a Restrained creature this use of its hands"))
    def do_climb(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Climb: actor, spaces, [ds: the wall's DS set by the RM, default 10 (R-CLB-2)].
        With a Climb Speed no roll; otherwise an Athletics roll (R-CLB-1)."""
        me = self.creature(state, self.actor(state, command).id)
        self.check_movement(state, me, "climb", command)
        spaces = self.arg(command, "spaces", int)
        limit = c.climb_speed(state, me)
        if spaces > limit:
            raise IllegalCommand(f"{me.id} climbs {limit} spaces per action, not {spaces}",
                                 rule="R-CLB-1")
        economy = self.pay(state, me, "climb")
        data: dict[str, Any] = {"actor": me.id, "spaces": spaces, "climb_speed": limit,
                                "economy": economy, "success": True}
        if me.climb_speed is None:
            data.update(self.check_roll(state, me, "athletics", self.arg(command, "ds", int, 10),
                                        dice, self.balance(me, "athletics", True)))
        return [Event("climbed", data)]

    @event("{actor} climbs {spaces} spaces (Climb Speed {climb_speed})"
           "[: {skill} {total} (d20 {d20}) against DS {ds}], {success?a success|a failure}.",
           actor=args.creature("who"), spaces=args.integer("spaces climbed"),
           climb_speed=args.integer("its Climb Speed"),
           shared=ROLL_FIELDS)
    def apply_climbed(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    @command("Swim: an Acrobatics or Athletics roll unless the creature has a Swim Speed; a "
             "failure starts suffocation (1 AP).",
             who="player", actor="required", cost="swim",
             rules=("R-SWM-1", "R-SWM-2", "R-C-SLO", "R-C-IMM", "R-C-GRA", "R-C-RES"),
             spaces=args.integer("spaces swum", lo=0, hi=9999, required=True),
             ds=args.integer("the Difficulty Score (10 in calm water)", lo=0, hi=999, default=10),
             skill=args.text("acrobatics or athletics (default: the better)", max_len=64),
             rm_allows=args.flag("the RM allows a Restrained creature this use of its hands"))
    def do_swim(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Swim: actor, spaces, [ds: 10 in calm water], [skill: acrobatics|athletics]. A
        Swim Speed needs no roll (R-SWM-1); a failed roll starts suffocation (R-SWM-2)."""
        me = self.creature(state, self.actor(state, command).id)
        self.check_movement(state, me, "swim", command)
        spaces = self.arg(command, "spaces", int)
        limit = c.swim_speed(state, me)
        if spaces > limit:
            raise IllegalCommand(f"{me.id} swims {limit} spaces per action, not {spaces}",
                                 rule="R-SWM-1")
        economy = self.pay(state, me, "swim")
        data: dict[str, Any] = {"actor": me.id, "spaces": spaces, "swim_speed": limit,
                                "economy": economy, "success": True}
        events = [Event("swam", data)]
        if me.swim_speed is None:
            skill = self.arg(command, "skill", str, "") or max(
                ("acrobatics", "athletics"), key=lambda s: c.skill_bonus(me, s))
            data.update(self.check_roll(state, me, skill, self.arg(command, "ds", int, 10), dice,
                                        self.balance(me, skill, False)))
            if not data["success"]:
                events += self.gain(state, me, Condition("suffocating"), dice)
        return events

    @event("{actor} swims {spaces} spaces (Swim Speed {swim_speed})"
           "[: {skill} {total} (d20 {d20}) against DS {ds}], {success?a success|a failure}.",
           actor=args.creature("who"), spaces=args.integer("spaces swum"),
           swim_speed=args.integer("its Swim Speed"),
           shared=ROLL_FIELDS)
    def apply_swam(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    # -- falling (R-FALL-*) -----------------------------------------------------------------
    def fall_setup(self, state: EncounterState, me: RealmsCreature,
                   spaces: int) -> tuple[int, int, int]:
        """(increments, d4 per increment, DS) of a fall (R-FALL-1, R-FALL-2, AR-17)."""
        if self.ruling_is(state, "AR-17", "ceil"):
            increments = half_round_up(spaces)
        else:
            increments = half_round_down(spaces)
        per = min(max(round_up(me.weight, 200), 1), 4)  # rounds up to 200 kg, at most 800 kg
        return increments, per, 10 + increments

    @command("A creature falls: 1d4 per 200 kg per 2 spaces, a Reflex roll halves it; it may "
             "land on another creature.",
             rules=("R-FALL-1", "R-FALL-2", "R-FALL-3", "R-FALL-4", "R-FALL-5"),
             target=args.creature("who falls", required=True),
             spaces=args.integer("spaces fallen (default: its altitude)", lo=0, hi=9999),
             onto=args.creature("a creature it lands on"))
    def do_fall(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A creature falls: target, [spaces (default: its altitude)], [onto: a creature].
        Dice: the damage, the faller's Reflex, then the creature below's Reflex."""
        me = self.creature(state, self.arg(command, "target", str))
        spaces = self.arg(command, "spaces", int, me.altitude)
        if spaces <= 0:
            raise InvalidCommand("fall: how many spaces? give 'spaces'")
        increments, per, ds = self.fall_setup(state, me, spaces)
        data: dict[str, Any] = {"target": me.id, "spaces": spaces, "increments": increments,
                                "dice_per_increment": per, "ds": ds,
                                "rounds": round_up(spaces, 30)}  # R-FALL-5: 30 spaces a round
        events = [Event("fell", data)]
        if increments == 0:
            data.update(damage=0, success=True)
            return events
        damage = roll(f"{per * increments}d4", dice)
        save = self.check_roll(state, me, "reflex", ds, dice)
        amount = c.half(state, damage.total, damage=True) if save["success"] else damage.total
        data.update(damage=damage.total, roll=damage.to_json(), reflex=save,
                    success=save["success"], amount=amount)
        prone = [me.id] if not save["success"] else []
        below_id = self.arg(command, "onto", str, None)
        mine = amount
        if below_id is not None:
            below = self.creature(state, below_id)
            if below.id == me.id:
                raise InvalidCommand("fall: a creature cannot land on itself")
            dodge = self.check_roll(state, below, "reflex", ds, dice)
            data["below_reflex"] = dodge
            if not dodge["success"]:  # R-FALL-3, AR-31
                share = half_round_down(amount) if self.ruling_is(
                    state, "AR-31", "creature-floor-half") else half_round_up(amount)
                mine = amount - share
                prone = [me.id, below.id]
                events += self.hurt(self.lookahead(state, events), below.id,
                                    [(share, "bludgeoning")], dice, fall=True, cause="fall")
        events += self.hurt(self.lookahead(state, events), me.id, [(mine, "bludgeoning")],
                            dice, fall=True, cause="fall")
        for who in dict.fromkeys(prone):
            after = self.lookahead(state, events)
            if not after.entity(who).has("prone"):  # knocked prone (a mount unseats, R-MNT-3)
                events += self.gain(after, self.creature(after, who),
                                    Condition("prone", source="fall"), dice)
        return events

    @event("{target} falls {spaces} spaces[: {damage} damage rolled][, Reflex {reflex.total} "
           "against DS {ds}][, {amount} after it]{success?|, and it falls prone}"
           "[; the creature below rolls Reflex {below_reflex.total}].",
           target=args.creature("who falls"), spaces=args.integer("spaces fallen"),
           increments=args.integer("2-space increments"),
           dice_per_increment=args.integer("d4 per increment (per 200 kg)"),
           ds=args.integer("the Reflex Difficulty Score"),
           rounds=args.integer("rounds the fall lasts (30 spaces a round)"),
           damage=args.integer("the damage rolled"), roll=args.mapping("the damage roll"),
           reflex=args.mapping("the faller's Reflex roll"),
           success=args.flag("the faller's Reflex succeeds"),
           amount=args.integer("the damage after the faller's Reflex"),
           below_reflex=args.mapping("the Reflex roll of the creature below"))
    def apply_fell(self, state: EncounterState, data: dict[str, Any]) -> None:
        me = self.creature(state, data["target"])
        me.altitude = 0
        me.flying = False

    # -- companions (R-CMP-7..9) -------------------------------------------------------------
    @command("Ready a dodge with every AP left: +1 Evasion against that many attacks.",
             who="player", actor="required", cost="dodge", rules=("R-CMP-8",))
    def do_dodge(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Ready a dodge with every AP left: +1 Evasion against that many attacks (R-CMP-8)."""
        me = self.creature(state, self.actor(state, command).id)
        economy = self.pay(state, me, "dodge")
        spent = int(economy["ap"]) + c.ap_costs(state)["dodge"] if economy else AP_PER_TURN
        if economy is not None:
            economy["ap"] = 0
        cond = Condition("dodging", level=spent, source=me.id)
        return [Event("dodged", {"actor": me.id, "target": me.id, "ap": 0, "economy": economy,
                                 "automatic": False}),
                *self.gain(state, me, cond, dice, keep="new")]  # its own new dodge

    @event("{target} {automatic?dodges with its AP left (an uncommanded companion)|readies "
           "a dodge with every AP left}.",
           actor=args.creature("who dodges"), target=args.creature("who dodges"),
           ap=args.integer("AP left"), automatic=args.flag("the end-of-turn dodge of an "
                                                          "uncommanded companion"))
    def apply_dodged(self, state: EncounterState, data: dict[str, Any]) -> None:
        self._store_ap(state, data["target"], data["ap"])

    @command("Command a companion (a reaction): it acts as commanded instead of dodging.",
             who="player", when="any", actor="required", cost="command", rules=("R-CMP-9",),
             target=args.creature("the actor's companion", refers="own", required=True))
    def do_command(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Command a companion (the command reaction, R-CMP-9): actor (its character), target
        (the companion). It then acts as commanded instead of dodging."""
        me = self.creature(state, self.actor(state, command).id)
        pet = self.creature(state, self.arg(command, "target", str))
        if pet.companion_of != me.id:
            raise IllegalCommand(f"{pet.id} is not {me.id}'s companion", rule="R-CMP-9")
        self.check_reaction(state, me, "command")  # a word: no arms needed (R-C-RES)
        economy = self.pay(state, me, "command", reaction=True)
        return [Event("commanded", {"actor": me.id, "target": pet.id, "economy": economy})]

    @event("{actor} commands {target}, which acts as commanded instead of dodging.",
           actor=args.creature("the character"), target=args.creature("its companion"))
    def apply_commanded(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["target"]).commanded = True

    # -- a look at the numbers ------------------------------------------------------------
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
        horizontal, vertical = c.jump_limits(state, me)
        damage_type = self.arg(command, "type", str, "slashing")
        return [Event("checked", {
            "target": me.id, "speed": c.speed(state, me), "evasion": c.evasion(me),
            "attack": me.attack + c.modifier(me, "attack") + c.modifier(me, "d20")
            + c.modifier(me, "bonuses"),
            "capacity": c.capacity(state, me), "climb_speed": c.climb_speed(state, me),
            "swim_speed": c.swim_speed(state, me), "fly_speed": c.fly_speed(state, me),
            "jump": horizontal, "jump_vertical": vertical, "ap": me.ap,
            "dr": armor_dr(me, damage_type, me.armor_uses, state.rulings),
            "terminal": me.terminal, "overheal": me.overheal, "size": me.size,
            "spaces": me.spaces, "flanked_by": c.flankers(state, me)})]

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

    # -- exact odds -----------------------------------------------------------------------
    def odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Exact odds before rolling: an attack (hit, miss, each Critical Level, and what it
        does to the target: the mean Health it loses and the chance it goes down or dies), a
        skill roll or a search, stabilizing, overcoming a condition, controlling or mounting
        an unwilling mount, a jump, climb or swim, and what a move costs and triggers
        (:meth:`move_odds`). Each refuses what its command
        refuses, through the same setup."""
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
        if command.name == "search" and "target" not in command.args:
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
            return self.roll_odds(state, actor, "medicine", self.arg(command, "ds", int, 10))
        if command.name == "overcome":  # R-CON-1: a defense roll against the DS
            me, _ = self.overcome_setup(state, command)
            return self.roll_odds(state, me, self.arg(command, "defense", str, "might"),
                                  self.arg(command, "ds", int))
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
        if self.arg(command, "defend", bool, False) and target.shield:  # R-SHD-1
            shield = list(distribution(str(target.shield["die"])).map(
                lambda v: self.shield_amount(state, target, v)).items())
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
        spaces = self.arg(command, "spaces", int)
        skill = self.arg(command, "skill", str, "")
        choices: tuple[str, ...]
        if command.name == "jump":
            horizontal, vertical = c.jump_limits(state, me)
            excess = spaces - (vertical if self.arg(command, "vertical", bool, False)
                               else horizontal)
            ds = c.jump_ds(state, excess)
            needs_roll = excess > 0
            choices = ("athletics", "acrobatics")
        elif command.name == "climb":
            self.check_movement(state, me, "climb", command)
            ds, needs_roll, choices = self.arg(command, "ds", int, 10), me.climb_speed is None, (
                "athletics",)
        else:
            self.check_movement(state, me, "swim", command)
            ds, needs_roll, choices = self.arg(command, "ds", int, 10), me.swim_speed is None, (
                "acrobatics", "athletics")
        if not needs_roll:
            return _certain()
        skill = skill or max(choices, key=lambda s: c.skill_bonus(me, s))
        return self.roll_odds(state, me, skill, ds,
                              self.balance(me, skill, command.name == "climb"))


__all__ = ["RealmsEconomy", "RealmsRuleset"]


def _set_level(me: RealmsCreature, name: str, level: int) -> None:
    """Give a condition a new level (removed at 0), as a new Condition: apply methods never
    change a Condition in place, so lookahead copies share them (model.COPIED_IN_SCRATCH)."""
    if level > 0:
        me.conditions = [replace(x, level=level) if x.name == name else x
                         for x in me.conditions]
    else:
        me.conditions = [x for x in me.conditions if x.name != name]
