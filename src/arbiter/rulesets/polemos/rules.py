"""Decide and evolve for Polemos (8th Age), part 1.

Every ``do_*`` reads the state and rolls only from ``dice``; every ``apply_*`` writes exactly
what its event says. Rule ids (P-..., AP-...) refer to ``shared/rules/inventory.md``; the
rulings (AP-n, POL-n) are in ``rulings.toml`` and read from ``state.rulings``.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ...core import (
    Command,
    Condition,
    Duration,
    EncounterState,
    Entity,
    Event,
    IllegalCommand,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.rounding import round_down
from ...dice import DiceSource, distribution, roll
from .base import CRITICAL_EFFECTS
from .commands import (
    CONCEALMENT,
    KINDS,
    also,
    chance,
    concealment_level,
    dice_modifier,
    kind_of,
    roll_skill,
    skill_distribution,
    skill_pool,
    success,
)
from .model import (
    Creature,
    DamageType,
    condition_catalogue,
    reveal_table,
    unlisted_condition,
)
from .networks import reach_args
from .spheres import SphereRules
from .targets import TARGET_RULES, target_args

DICE_ARGS = {
    "bonus": args.integer("bonus dice, +ND6 (P-DICE-1)", lo=0, hi=20, default=0),
    "penalty": args.integer("penalty dice, -ND6 (P-DICE-2, P-DICE-3)", lo=0, hi=20, default=0),
    "dice_mod": args.integer("shorthand: bonus (+) or penalty (-) dice", lo=-20, hi=20),
}
"""The dice modifiers of a skill roll (``commands.dice_modifier``)."""


class PolemosRuleset(SphereRules):
    name = "polemos"
    title = "Polemos: 8th Age"
    seed = "000_415f966c2cbdbe2b"

    def check(self, state: EncounterState, command: Command) -> None:
        """Raise the RulesError ``decide`` would raise for ``command`` (nothing when the rules
        accept it), for a policy or a person asking before acting. An attack, a move and
        spending critical damage points (but on an unknown wound, whose area is checked with
        the wound) run only their checks, which ``decide`` runs first, before any die is
        rolled; any other command is decided with throw-away dice. The command is first
        checked against its declaration, as ``decide`` does."""
        if state.ruleset and (command.name in ("attack", "move") or (
                command.name == "critical" and command.args.get("effect") != "unknown-wound")):
            self.validate(command)
            checks = {"attack": self._attack_checks, "move": self._move_checks,
                      "critical": self._critical_checks}
            checks[command.name](state, command)
            return
        super().check(state, command)

    def roll_initiative(
        self, state: EncounterState, entity: Entity, dice: DiceSource
    ) -> tuple[int, dict[str, Any]]:
        """P-ORD-3: one [initiative] skill roll when turn-by-turn play starts."""
        value = entity.skills.get("initiative", 0) if isinstance(entity, Creature) else 0
        result = roll_skill(value, 0, 0, self.rule(state, "AP-2"), dice)
        return result.total, result.to_json()

    def initiative_order(self, state: EncounterState, initiative: dict[str, int]) -> list[str]:
        """P-ORD-4 highest first; ties (AP-3): higher [initiative] skill, then listed order."""
        added = list(state.entities)
        by_skill = self.rule(state, "AP-3") == "skill-then-listed"

        def skill(who: str) -> int:
            entity = state.entities.get(who)
            return entity.skill("initiative") if by_skill and isinstance(entity, Creature) else 0

        return sorted(initiative, key=lambda e: (-initiative[e], -skill(e),
                                                  added.index(e) if e in added else 0))

    @also(**DICE_ARGS)
    @command("Roll a skill: 2D6 + the skill value, with bonus or penalty dice; against a "
             "target number or opposed.", who="player", when="any", actor="optional",
             rules=("P-SKL-1", "P-SKL-2", "P-DICE-1", "P-DICE-2", "P-DICE-3", "P-DICE-4",
                    "P-COV-2", "AP-1", "AP-2", "AP-17"),
             skill=args.text("the actor's skill", max_len=64),
             value=args.integer("a skill value instead of the actor's skill"),
             target=args.integer("the target number"),
             against=args.creature("an opposed roll against this creature", refers="enemy"),
             against_skill=args.text("the opposing creature's skill (default: the same)",
                                     max_len=64))
    def do_skill(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Roll a skill: actor and skill (or value), [bonus], [penalty], [target] or [against]
        (a creature, opposed with [against_skill])."""
        actor = self.creature(state, self.actor(state, command).id) if command.actor else None
        skill = self.arg(command, "skill", str, "")
        if "value" in command.args:
            value = self.arg(command, "value", int)
        elif actor is not None and skill:
            value = actor.skill(skill)
        else:
            raise InvalidCommand("skill: give 'actor' and 'skill', or a 'value'")
        bonus, penalty = dice_modifier(command)
        ties = self.rule(state, "AP-1")
        level, flat, more = self._defense_concealment(state, actor, skill)
        result = roll_skill(value + flat, bonus + more, penalty, self.rule(state, "AP-2"), dice)
        data: dict[str, Any] = {"actor": command.actor, "skill": skill, "value": value,
                                "bonus": bonus, "penalty": penalty, "total": result.total,
                                "roll": result.to_json()}
        if level != "none":
            data["concealment"] = level
        if "against" in command.args:
            other = self.creature(state, self.arg(command, "against", str))
            other_skill = self.arg(command, "against_skill", str, skill)
            other_level, other_flat, other_more = self._defense_concealment(state, other,
                                                                            other_skill)
            opposed = roll_skill(other.skill(other_skill) + other_flat, other_more, 0,
                                 self.rule(state, "AP-2"), dice)
            data.update(against=other.id, opposed=opposed.total, opposed_roll=opposed.to_json(),
                        success=success(result.total, opposed.total, ties))
            if other_level != "none":
                data["against_concealment"] = other_level
        elif "target" in command.args:
            target = self.arg(command, "target", int)
            data.update(target=target, success=success(result.total, target, ties))
        return [Event("skill_rolled", data)]

    @event("[{actor} rolls ]{skill?|a roll}{skill}[ (value {value})]: {total}[ against "
           "{target}][ against {against}'s {opposed}][, {success?a success|a failure}].",
           actor=args.creature("who rolls"), skill=args.text("the skill"),
           value=args.integer("the skill value"), bonus=args.integer("bonus dice"),
           penalty=args.integer("penalty dice"), total=args.integer("the total"),
           roll=args.mapping("the roll"), target=args.integer("the target number"),
           against=args.creature("the opposing creature"),
           opposed=args.integer("the opposing roll's total"),
           opposed_roll=args.mapping("the opposing roll"),
           success=args.flag("it succeeds (ruling AP-1)"),
           concealment=args.text("the roller's concealment on a [firearm defense] roll "
                                 "(P-COV-2)"),
           against_concealment=args.text("the opposing creature's concealment on its "
                                         "[firearm defense] roll (P-COV-2)"))
    def apply_skill_rolled(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    def _defense_concealment(self, state: EncounterState, creature: Creature | None,
                             skill: str, command: Command | None = None,
                             ) -> tuple[str, int, int]:
        """P-COV-2: concealment grants its bonus to every [firearm defense] roll of the
        concealed creature: its level, and the bonus as a flat number or as bonus dice
        (ruling AP-17). Nothing for any other skill (P-COV-2) or without concealment."""
        if creature is None or skill != "firearm_defense":
            return "none", 0, 0
        level, _ = self._concealment(state, creature, command)
        bonus = CONCEALMENT[level]
        return (level, 0, bonus) if self.ruling_is(state, "AP-17", "dice") else \
            (level, bonus, 0)

    @command("Order creatures that try to act at the same moment by [initiative].",
             rules=("P-ORD-6", "AP-3", "AP-33"),
             actors=args.creatures("the creatures acting at once", required=True))
    def do_simultaneous(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """Order creatures acting at the same moment (P-ORD-6, AP-33): actors (a list)."""
        names = self.arg(command, "actors", list)
        creatures = [self.creature(state, str(n)) for n in names]
        fresh = self.rule(state, "AP-33") == "fresh-roll"
        values: dict[str, int] = {}
        rolls: dict[str, Any] = {}
        for creature in creatures:
            if not fresh and creature.id in state.initiative:
                values[creature.id] = state.initiative[creature.id]
            else:
                values[creature.id], rolls[creature.id] = self.roll_initiative(
                    state, creature, dice)
        order = self.initiative_order(state, values)
        return [Event("simultaneous_ordered", {"order": order, "initiative": values,
                                               "rolls": rolls})]

    @event("Acting at the same moment, in order: {order}.",
           order=args.creatures("the order"),
           initiative=args.mapping("the initiative values used"),
           rolls=args.mapping("the fresh [initiative] rolls"))
    def apply_simultaneous_ordered(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    def check_turn_end(self, state: EncounterState, who: str) -> None:
        if state.extra.get("pending"):
            raise IllegalCommand("declared actions are waiting: 'resolve' or 'withdraw' them "
                                 "before the turn ends", rule="P-ACT-5")

    def next_turn(
        self, state: EncounterState, who: str, round_: int
    ) -> tuple[str, int] | None:
        """The highest initiative who has not acted this round (P-ORD-4), or a new round
        when all have acted; creatures that are down are passed over."""
        if not state.in_combat or not state.order:
            return None
        acted = set(state.extra.get("acted", []))
        standing = [c for c in state.order if not self._is_down(state, c)]
        waiting = [c for c in standing if c not in acted]
        if waiting:
            return waiting[0], round_
        return (standing[0], round_ + 1) if standing else None

    def apply_turn_started(self, state: EncounterState, data: dict[str, Any]) -> None:
        if data["round"] != state.round:
            if state.round >= 1:  # each new round is three more seconds (P-TIM-1)
                state.extra["clock"] = self.clock(state) + max(data["round"] - state.round, 0)
            state.extra["acted"] = []
        state.extra.setdefault("acted", []).append(data["actor"])
        # the round whose per-round effects have taken effect for the actor (P-CON-9)
        state.extra.setdefault("round_effects", {})[data["actor"]] = data["round"]
        super().apply_turn_started(state, data)

    def _passed_over(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """The per-round effects of creatures that are down, as ``who``'s turn starts (P-CON-9:
        no turn, so every three seconds; ruling POL-9): ``in-place``, those whose place in the
        order the turns just passed over (the round before for those after the last
        creature standing); ``round-start``, every one at the first turn of a round. Once a
        round each (``extra.round_effects``)."""
        order = state.order
        if who not in order:
            return []
        down = [c for c in order if c != who and self._is_down(state, c)]
        if not down:
            return []
        places: list[tuple[str, int]] = []
        if self.ruling_is(state, "POL-9", "round-start"):
            if state.extra.get("acted") == [who]:  # the first turn of the round
                places = [(c, state.round) for c in down]
        else:  # in-place: walk back from who's place to the last creature standing
            index, round_ = order.index(who), state.round
            for _ in range(len(order) - 1):
                index -= 1
                if index < 0:
                    index, round_ = len(order) - 1, round_ - 1
                if order[index] not in down:
                    break
                places.append((order[index], round_))
            places.reverse()
        done = state.extra.get("round_effects", {})
        events: list[Event] = []
        for name, round_ in places:
            if round_ < 1 or int(done.get(name, 0)) >= round_:
                continue
            events.append(Event("per_round_passed", {"target": name, "round": round_}))
            events += self._round_effects(self.lookahead(state, events), name, dice)
        return events

    @event("{target} is down: its per-round effects of round {round} take effect.",
           target=args.creature("the creature that is down (no turn, P-CON-9)"),
           round=args.integer("the round"))
    def apply_per_round_passed(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra.setdefault("round_effects", {})[data["target"]] = data["round"]

    def apply_initiative_set(self, state: EncounterState, data: dict[str, Any]) -> None:
        super().apply_initiative_set(state, data)
        acted = state.extra.get("acted", [])
        if self.rule(state, "AP-4") == "acts-again" and data["target"] != state.current \
                and data["target"] in acted:
            acted.remove(data["target"])

    def apply_combat_ended(self, state: EncounterState, data: dict[str, Any]) -> None:
        super().apply_combat_ended(state, data)
        state.extra["acted"] = []
        state.extra.pop("pending", None)
        state.extra.pop("round_effects", None)

    def do_end(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """End turn-by-turn play; conditions timed in turns go on by the clock (P-CON-4)."""
        events = super().do_end(state, command, dice)
        return events + self._leave_turns(self.lookahead(state, events))

    def turn_start_events(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """At the start of a turn: what falls due by the clock, then the bearer's per-round
        effects (P-CON-9)."""
        events = self._due_readds(state, self.clock(state))
        events += self._expire_clock(self.lookahead(state, events), self.clock(state))
        events += self._passed_over(self.lookahead(state, events), who, dice)
        events += self._round_effects(self.lookahead(state, events), who, dice)
        events += self.sphere_turn_start(self.lookahead(state, events), who)
        return events + self._consequences(state, events)

    @command("Put on or take off a piece of armor (only worn armor protects).",
             rules=("P-ARM-1",),
             target=args.creature("the wearer", required=True),
             armor=args.text("the armor piece's name", required=True, max_len=64),
             worn=args.flag("worn (false: taken off)", default=True))
    def do_wear(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Put on or take off a piece of armor (P-ARM-1): target, armor (its name), [worn]
        (default true)."""
        target = self.creature(state, self.arg(command, "target", str))
        name = self.arg(command, "armor", str)
        names = [p.name for p in target.armor]
        if name not in names:
            raise InvalidCommand(f"{target.id} has no armor {name!r} (armor: "
                                 f"{', '.join(names) or 'none'})")
        return [Event("armor_worn", {"target": target.id, "index": names.index(name),
                                     "worn": self.arg(command, "worn", bool, True)})]

    @event("{target} {worn?puts on|takes off} armor piece {index}.",
           target=args.creature("the wearer"),
           index=args.integer("the piece's place in the armor list"),
           worn=args.flag("worn"))
    def apply_armor_worn(self, state: EncounterState, data: dict[str, Any]) -> None:
        target = self.creature(state, data["target"])
        target.armor = [replace(piece, worn=data["worn"]) if index == data["index"] else piece
                        for index, piece in enumerate(target.armor)]

    def turn_end_events(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        """P-ACT-7: a multi-turn full action advances at the end of each of its turns."""
        creature = state.entities.get(who)
        if not isinstance(creature, Creature) or not creature.channel:
            return []
        channel = creature.channel
        done = int(channel["done"]) + 1
        if done >= int(channel["turns"]):
            cost = dict(channel.get("cost", {}))
            return [Event("full_action_completed", {
                "actor": who, "ability": channel["ability"], "cost": cost,
                "sp": max(creature.sp - int(cost.get("sp", 0)), 0),
                "fp": max(creature.fp - int(cost.get("fp", 0)), 0)})]
        return [Event("full_action_progressed", {"actor": who, "done": done})]

    @event("{actor}'s full action goes on (turns done: {done}).",
           actor=args.creature("who acts"), done=args.integer("turns done"))
    def apply_full_action_progressed(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["actor"])
        if creature.channel is not None:
            creature.channel = {**creature.channel, "done": data["done"]}

    @event("{actor} completes {ability}[: SP {sp}][, FP {fp}].",
           actor=args.creature("who acts"), ability=args.text("the full action"),
           cost=args.mapping("its cost: sp, fp"), sp=args.integer("SP after"),
           fp=args.integer("FP after"))
    def apply_full_action_completed(self, state: EncounterState, data: dict[str, Any]) -> None:
        creature = self.creature(state, data["actor"])
        creature.channel = None
        creature.sp, creature.fp = data["sp"], data["fp"]

    @command("Cancel a multi-turn full action after its first full turn: no effect, no "
             "cost.", who="player", actor="required", rules=("P-ACT-7",))
    def do_cancel(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Cancel a multi-turn full action after its first full turn: no effect, no cost
        (P-ACT-7): actor."""
        actor = self.creature(state, self.actor(state, command).id)
        if not actor.channel:
            raise IllegalCommand(f"{actor.id} is not taking a multi-turn full action",
                                 rule="P-ACT-7")
        if int(actor.channel["done"]) < 1:
            raise IllegalCommand(
                f"{actor.channel['ability']} can only be cancelled after its first full turn",
                rule="P-ACT-7")
        return [Event("full_action_cancelled", {"actor": actor.id,
                                                "ability": actor.channel["ability"],
                                                "cost": {}})]

    @event("{actor} cancels {ability}: no effect, no cost.",
           actor=args.creature("who acts"), ability=args.text("the full action"),
           cost=args.mapping("the cost not paid (none)"))
    def apply_full_action_cancelled(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["actor"]).channel = None

    @also(cost=args.mapping("what it costs: {sp, fp}"), **target_args())
    @command("Use an ability: the action it takes, its target (checked when target_kind is "
             "given), whether it is an attack, its cost.", who="player", when="any",
             actor="required", cost="primary",
             rules=("P-GEN-2", "P-ACT-1", "P-ACT-2", "P-ACT-3", "P-ACT-4", "P-ACT-5",
                    "P-ACT-6", "P-ACT-7", "P-ATK-1", "P-ATK-2", "P-ATK-3", "P-ATK-4",
                    "P-ATK-5", "AP-5", "AP-6", "AP-21", *TARGET_RULES),
             ability=args.text("the ability's name", required=True, max_len=64),
             kind=args.choice("the action it takes", *KINDS, default="primary"),
             turns=args.integer("turns of an \"N full\" action", lo=1, hi=100, default=1),
             willing=args.flag("the target is willing: not an attack (P-ATK-2)"),
             affects=args.flag("it could affect its unwilling target (ruling AP-21)",
                               default=True),
             effects=args.integer("how many effects it applies (one attack, P-ATK-5)", lo=0,
                                  hi=999, default=1),
             combo=args.text("the combo ability it is a part of (P-TGT-12)", max_len=64))
    def do_act(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Use an ability: actor, ability, [kind], [target], [willing], [affects], [effects],
        [turns] (an "N full" action), [cost] ({sp, fp})."""
        actor = self.acting(state, command)
        ability = self.arg(command, "ability", str)
        kind = kind_of(command)
        turns = self.arg(command, "turns", int, 1)
        if turns < 1 or (turns > 1 and kind != "full"):
            raise InvalidCommand("act: 'turns' is for full actions and at least 1")
        data = self.use(state, actor, kind, ability)
        target_name = self.opt(command, "target", str)
        is_attack = False
        if "target_kind" in command.args:  # P-TGT-*, P-RNG-*, P-REQ-*
            data["targets"] = self.resolve_target(state, actor, command)
            target_name = data["targets"].get("target")
            if target_name is None:
                data["affected"] = data["targets"].get("affected", [])
                # P-ATK-1, P-ATK-2: every unwilling creature an area could affect is attacked
                if not self.arg(command, "willing", bool, False) \
                        and self.arg(command, "affects", bool, True):
                    data["attacked"] = [a for a in data["affected"] if a != actor.id
                                        and state.entity(a).kind == "creature"]
                    is_attack = bool(data["attacked"])
        if target_name is not None:
            target = state.entity(target_name)
            willing = self.arg(command, "willing", bool, False)
            if "affects" not in command.args and not willing \
                    and self.rule(state, "AP-21") == "declared":
                raise InvalidCommand("act: say whether the ability could affect its unwilling "
                                     "target ('affects: true/false', ruling AP-21)")
            affects = self.arg(command, "affects", bool, True)
            # P-ATK-1..4: an unwilling target that the action could affect; P-ATK-5: one attack
            is_attack = target.id != actor.id and not willing and affects
            data["target"] = target.id
        cost = dict(self.arg(command, "cost", dict, {}))
        data.update(attack=is_attack, effects=self.arg(command, "effects", int, 1), cost=cost)
        if turns > 1 and state.in_combat:
            data["channel"] = {"ability": ability, "turns": turns, "done": 0, "cost": cost}
        else:
            data["sp"] = max(actor.sp - int(cost.get("sp", 0)), 0)
            data["fp"] = max(actor.fp - int(cost.get("fp", 0)), 0)
        events = [Event("acted", data)]
        return events + self._consequences(state, events)

    @event("{actor} uses {ability}[ ({kind} action)][ on {target}][, affecting {affected}]"
           "[{attack?, an attack|}].",
           actor=args.creature("who acts"), ability=args.text("the ability"),
           kind=args.text("the kind of action"), round=args.integer("the round"),
           counts=args.flag("the use counts for once a round (P-ACT-1)"),
           targets=args.mapping("the target checked (see the target command)"),
           affected=args.creatures("what an area or selection reaches"),
           attacked=args.creatures("the unwilling creatures it attacks"),
           target=args.creature("the target"),
           attack=args.flag("it is an attack (P-ATK-1)"),
           effects=args.integer("effects applied"),
           cost=args.mapping("its cost: sp, fp"),
           channel=args.mapping("an N full action under way: ability, turns, done, cost"),
           sp=args.integer("SP after"), fp=args.integer("FP after"))
    def apply_acted(self, state: EncounterState, data: dict[str, Any]) -> None:
        actor = self.creature(state, data["actor"])
        if "channel" in data:
            actor.channel = dict(data["channel"])
        if "sp" in data:
            actor.sp, actor.fp = data["sp"], data["fp"]
        for name in data.get("attacked", []):  # an area's unwilling creatures
            hit = state.entities.get(name)
            if isinstance(hit, Creature):
                hit.attacks_received += 1
        if data.get("attack") and "target" in data:
            target = state.entities.get(data["target"])
            if isinstance(target, Creature):
                target.attacks_received += 1

    @command("Declare an action to resolve later; free actions may be declared on another's "
             "turn and resolve first.", who="player", when="any", actor="required",
             rules=("P-ACT-4", "P-ACT-5", "P-DTY-2"),
             action=args.nested("the declared command: {do: ..., and its arguments}",
                                required=True))
    def do_declare(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Declare an action to resolve later: actor, action (a command mapping). Free
        actions may be declared after others and resolve first (P-ACT-5)."""
        actor = self.acting(state, command)
        action = dict(self.arg(command, "action", dict))
        action.setdefault("actor", actor.id)
        if action["actor"] != actor.id:
            raise InvalidCommand("declare: the declared action's actor must be the declarer")
        inner = Command.from_json(action)
        kind = kind_of(inner)
        if kind != "free" and state.in_combat and state.current != actor.id:
            raise IllegalCommand(f"it is {state.current}'s turn, not {actor.id}'s; only free "
                                 "actions can be declared on another's turn", rule="P-ACT-5")
        if kind == "minor":
            raise IllegalCommand("minor actions are not declared: use them directly",
                                 rule="P-ACT-4")
        if inner.name == "attack":  # P-DTY-2: the damage type is chosen before resolution
            self._weapon(actor, inner)
        elif not hasattr(self, f"do_{inner.name}") or inner.name in ("declare", "resolve"):
            raise InvalidCommand(f"declare: {inner.name!r} is not an action that can be "
                                 "declared")
        return [Event("declared", {"actor": actor.id, "command": action, "kind": kind})]

    @event("{actor} declares {command.do}[ ({kind} action)].",
           actor=args.creature("who declares"),
           command=args.mapping("the declared command"),
           kind=args.text("the kind of action"))
    def apply_declared(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra.setdefault("pending", []).append(
            {"actor": data["actor"], "command": data["command"], "kind": data["kind"]})

    @command("Resolve every declared action: free actions first, then the rest.",
             rules=("P-ACT-5",))
    def do_resolve(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Resolve every declared action: free actions first, then the rest (P-ACT-5)."""
        pending = list(state.extra.get("pending", []))
        if not pending:
            raise IllegalCommand("no action has been declared")
        ordered = [p for p in pending if p["kind"] == "free"] + \
                  [p for p in pending if p["kind"] != "free"]
        events: list[Event] = [Event("resolving", {"order": [p["actor"] for p in ordered]})]
        for item in ordered:
            scratch = self.lookahead(state, events)
            try:
                events += self.decide(scratch, Command.from_json(item["command"]), dice)
            except IllegalCommand as err:
                raise IllegalCommand(f"{item['actor']}'s declared {item['command']['do']} "
                                     f"cannot resolve: {err.reason}", rule=err.rule) from None
        return [*events, Event("resolved", {})]

    @event("The declared actions resolve, in order: {order}.",
           order=args.creatures("whose actions, in order"))
    def apply_resolving(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra["pending"] = []

    @event("Every declared action is resolved.")
    def apply_resolved(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra["pending"] = []

    @command("Withdraw the actor's declared actions before they resolve.", who="player",
             when="any", actor="required", rules=("P-ACT-5",))
    def do_withdraw(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Withdraw the actor's declared actions before resolution: actor."""
        actor = self.creature(state, self.actor(state, command).id)
        if not any(p["actor"] == actor.id for p in state.extra.get("pending", [])):
            raise IllegalCommand(f"{actor.id} has declared nothing")
        return [Event("withdrawn", {"actor": actor.id})]

    @event("{actor} withdraws their declared actions.",
           actor=args.creature("who withdraws"))
    def apply_withdrawn(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra["pending"] = [p for p in state.extra.get("pending", [])
                                  if p["actor"] != data["actor"]]

    def _weapon(self, actor: Creature, command: Command) -> tuple[str, Any, str]:
        if not actor.weapons:
            raise IllegalCommand(f"{actor.id} has no weapon")
        name = self.arg(command, "weapon", str, next(iter(actor.weapons)))
        if name not in actor.weapons:
            raise InvalidCommand(f"{actor.id} has no weapon {name!r} "
                                 f"(weapons: {', '.join(actor.weapons)})")
        weapon = actor.weapons[name]
        types = weapon.types()
        if "type" in command.args:
            kind = str(DamageType.parse(self.arg(command, "type", str)))
            if kind not in types:
                raise IllegalCommand(f"{name} cannot deal {kind} damage (types: "
                                     f"{', '.join(types)})", rule="P-DTY-2")
        elif len(types) == 1:
            kind = types[0]
        else:
            raise InvalidCommand(f"{name} deals several damage types: choose one with 'type' "
                                 f"before the attack resolves ({', '.join(types)}) [P-DTY-2]")
        return name, weapon, kind

    def _concealment(self, state: EncounterState, target: Creature,
                     command: Command | None) -> tuple[str, list[str]]:
        cond = target.condition("concealed")
        if cond is None:
            return "none", []
        level = str(cond.data.get("concealment", "none"))
        # P-COV-4: the angle of attack can lower the level
        if command is not None and "angle" in command.args:
            angle = concealment_level(command.args["angle"])
            if CONCEALMENT[angle] < CONCEALMENT[level]:
                level = angle
        return level, list(cond.data.get("areas", []))

    def _attack_setup(self, state: EncounterState, command: Command) -> dict[str, Any]:
        actor = self.acting(state, command)
        target = self.creature(state, self.arg(command, "target", str))
        if target.id == actor.id:
            raise IllegalCommand("a creature cannot attack itself", rule="P-ATK-1")
        self.check_detected(state, actor, target)  # P-REQ-1, P-STL-1
        weapon_name, weapon, dtype = self._weapon(actor, command)
        gap = self.range_between(state, actor, target, command)
        if gap is not None and gap > weapon.range:  # P-RNG-1
            raise IllegalCommand(f"{target.id} is {gap} squares away, beyond the "
                                 f"{weapon.range}-square range of the {weapon_name}",
                                 rule="P-RNG-1")
        # P-REQ-5: a weapon's target is reachable when its blow or shot can get there
        self.check_reachable(state, actor, target, weapon.range, command)
        area = self.opt(command, "area", str)
        if area is not None:
            target.area(area)  # P-TGT-4: must be one of the target's body areas
        elif self.rule(state, "AP-12") == "gm-chooses":
            raise InvalidCommand("attack: name the body area hit (ruling AP-12 gm-chooses)")
        bonus, penalty = dice_modifier(command)
        defense_skill = f"{weapon.skill}_defense"
        level, covered = self._concealment(state, target, command)
        # P-COV-2: concealment helps [firearm defense] only
        _, defense_bonus, defense_dice = self._defense_concealment(state, target, defense_skill,
                                                                   command)
        return {"actor": actor, "target": target, "weapon_name": weapon_name, "weapon": weapon,
                "type": dtype, "area": area, "bonus": bonus, "penalty": penalty,
                "defense_skill": defense_skill, "defense_bonus": defense_bonus,
                "defense_dice": defense_dice,
                "defense_penalty": self.arg(command, "defense_penalty", int, 0),
                "concealment": level, "covered": covered}

    def _attack_checks(self, state: EncounterState,
                       command: Command) -> tuple[dict[str, Any], dict[str, Any], bool]:
        """Everything that may refuse an attack, before a die is rolled: the set-up, the
        action spent (its event data) and whether the target is willing."""
        s = self._attack_setup(state, command)
        ability = self.arg(command, "ability", str, "attack")
        data = self.use(state, s["actor"], kind_of(command), ability)
        willing = self.arg(command, "willing", bool, False)
        skill_pool(s["actor"].skill(s["weapon"].skill), s["bonus"], s["penalty"],
                   self.rule(state, "AP-2"))  # refuses negative bonus or penalty dice
        skill_pool(0, s["defense_dice"], s["defense_penalty"], self.rule(state, "AP-2"))
        return s, data, willing

    @also(**DICE_ARGS, **reach_args())
    @command("Attack with a weapon: 2D6 + skill against the target's defense roll; weapon "
             "damage 1D6 + modifier on a hit.", who="player", actor="required",
             cost="primary",
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
                              "quarter, half, total or a percentage (P-COV-4)"),
             kind=args.choice("the action it takes", *KINDS, default="primary"),
             ability=args.text("the ability used (once a round each)", default="attack",
                               max_len=64),
             willing=args.flag("the target is willing: not attacked, no defense roll"),
             defense_penalty=args.integer("penalty dice on the defender's defense roll, "
                                          "-ND6 (P-DICE-2, P-DICE-3)", lo=0, hi=20,
                                          default=0))
    def do_attack(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Attack with a weapon (ruling AP-1): actor, target, [weapon], [type], [area],
        [bonus], [penalty], [defense_penalty] (the defender's penalty dice), [angle], [kind],
        [ability], [willing]. Dice: the attack roll, the
        defense roll, the body area (1D<areas>, when no area is named), the damage 1D6."""
        s, data, willing = self._attack_checks(state, command)
        actor, target, weapon = s["actor"], s["target"], s["weapon"]
        rule2, ties = self.rule(state, "AP-2"), self.rule(state, "AP-1")
        attack = roll_skill(actor.skill(weapon.skill), s["bonus"], s["penalty"], rule2, dice)
        data.update(target=target.id, weapon=s["weapon_name"], type=s["type"],
                    attack=not willing, attack_roll=attack.to_json(),
                    attack_total=attack.total, concealment=s["concealment"])
        if willing:  # P-ATK-2: a willing target is not attacked and does not defend
            hit = True
        else:
            defense = roll_skill(target.skill(s["defense_skill"]) + s["defense_bonus"],
                                 s["defense_dice"], s["defense_penalty"], rule2, dice)
            hit = success(attack.total, defense.total, ties)
            data.update(defense_roll=defense.to_json(), defense_total=defense.total)
            if s["defense_penalty"]:
                data["defense_penalty"] = s["defense_penalty"]
        data["hit"] = hit
        events = [Event("attacked", data)]
        if hit:
            area = s["area"]
            targeted = area is not None
            if area is None:  # P-DMG-4: a random body area, 1D<number of areas> (AP-12)
                areas = list(target.areas)
                area = areas[roll(f"1d{len(areas)}", dice).total - 1]
            damage = roll(f"1d6+{weapon.damage[s['type']]}".replace("+-", "-"), dice)  # P-DMG-2
            after = self.lookahead(state, events)
            hurt = self._damage_events(
                after, target.id, area, DamageType.parse(s["type"]), max(damage.total, 0),
                weapon.rating, actor.id, targeted,
                {"damage_roll": damage.to_json(), "covered": area in s["covered"]}, dice)
            return events + hurt + self._consequences(after, hurt)
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
           hit=args.flag("it hits"))
    def apply_attacked(self, state: EncounterState, data: dict[str, Any]) -> None:
        if data.get("attack"):
            self.creature(state, data["target"]).attacks_received += 1

    @command("Deal damage (an ability's or the GM's) through armor to a body area.",
             rules=("P-DTY-1", "P-DTY-3", "P-DTY-4", "P-DMG-1", "P-DMG-3", "P-DMG-4",
                    "P-ARM-1", "P-ARM-2", "P-ARM-3", "P-ARM-5", "P-ARM-6", "P-ARM-8",
                    "P-ARM-10", "P-ARM-11", "P-CDP-1", "P-CDP-2", "P-CDP-5", "P-CDP-8",
                    "P-COV-3", "AP-7", "AP-8", "AP-9", "AP-18", "AP-19"),
             target=args.creature("who is damaged", required=True),
             amount=args.integer("damage before armor", lo=0, hi=9999, required=True),
             type=args.text("the damage type, e.g. kinetic or bashing (stamina)",
                            default="kinetic", max_len=64),
             area=args.text("the body area (default: a random one)", max_len=64),
             rating=args.integer("the damage rating", lo=0, hi=9999, default=0),
             source=args.creature("who earns the critical damage points"),
             covered=args.flag("the area is in cover (P-COV-3, ruling AP-18)"),
             armor=args.flag("armor applies (false: bypass it)", default=True))
    def do_damage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Deal damage (an ability's or the GM's): target, amount, [type], [area], [rating],
        [source] (who earns the critical damage points), [armor] (false: bypass armor)."""
        target = self.creature(state, self.arg(command, "target", str))
        amount = self.arg(command, "amount", int)
        if amount < 0:
            raise InvalidCommand("damage: amount must not be negative")
        dtype = DamageType.parse(self.arg(command, "type", str, "kinetic"))
        area = self.opt(command, "area", str)
        targeted = area is not None
        if area is None:
            areas = list(target.areas)
            area = areas[roll(f"1d{len(areas)}", dice).total - 1]
        target.area(area)
        source = self.opt(command, "source", str)
        if source is not None:
            state.entity(source)
        events = self._damage_events(state, target.id, area, dtype, amount,
                                     self.arg(command, "rating", int, 0), source, targeted,
                                     {"covered": self.arg(command, "covered", bool, False)},
                                     dice, armor=self.arg(command, "armor", bool, True))
        return events + self._consequences(state, events)

    @command("Spend critical damage points: an unknown wound (1), two fatigue wounds (1) or "
             "daze (2).", who="player", when="any", actor="optional",
             rules=("P-CDP-3", "P-CDP-4", "P-CDP-5", "P-CDP-7", "P-CDP-8", "P-WND-7",
                    "AP-14"),
             effect=args.choice("what the points buy", *CRITICAL_EFFECTS, required=True),
             target=args.creature("whom it affects (default: the creature damaged)",
                                  refers="enemy"),
             area=args.text("the unknown wound's body area (default: the area aimed at)",
                            max_len=64),
             relevant=args.flag("the GM rules another target relevant (P-CDP-4)"))
    def do_critical(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Spend critical damage points (P-CDP-7): actor (none: the GM spends points nobody
        earned, P-CDP-8), effect (unknown-wound, fatigue-wounds, daze), [target] (default:
        the creature damaged), [area], [relevant] (the GM rules another target relevant,
        P-CDP-4)."""
        effect, cost, points, earned_on, hit_area, target = self._critical_checks(state,
                                                                                 command)
        events = [Event("critical_spent", {"actor": command.actor, "effect": effect,
                                           "cost": cost, "left": points - cost,
                                           "target": target.id})]
        if effect == "daze":
            daze = Condition("daze", 1, tags=("mental",), source=command.actor)
            events.append(Event("condition_added", {"target": target.id,
                                                    "condition": daze.to_json()}))
            return events + self._consequences(state, events)
        # each wound is numbered after what comes before it: lookaheads taken one step further
        after = self.lookahead(state, events)
        if effect == "unknown-wound":  # P-WND-7: the targeted area, else random when revealed
            area = self.opt(command, "area", str) or (hit_area if target.id == earned_on
                                                       else None)
            wound = self._new_wound(after, target, {"name": "unknown", "known": False,
                                                    "area": area}, why="critical")
        else:  # fatigue-wounds: two of them
            points_each = 2 if self.rule(state, "AP-14") == "two-point" else 1
            first = self._new_wound(after, target, {"name": "fatigue", "fatigue": points_each},
                                    why="critical")
            events.append(first)
            after = self.lookahead(after, [first])
            wound = self._new_wound(after, target, {"name": "fatigue", "fatigue": points_each},
                                    why="critical")
        return [*events, wound, *self._consequences(after, [wound])]

    def _critical_checks(self, state: EncounterState, command: Command,
                         ) -> tuple[str, int, int, str | None, str | None, Creature]:
        """Everything that may refuse spending critical damage points, but the body area of
        an unknown wound: the effect, its cost, the points, the creature and area they were
        earned on, and the target."""
        effect = self.arg(command, "effect", str)
        if effect not in CRITICAL_EFFECTS:
            raise InvalidCommand(f"critical: effect must be one of {', '.join(CRITICAL_EFFECTS)}")
        cost = CRITICAL_EFFECTS[effect]
        if command.actor is None:  # P-CDP-8
            pool = dict(state.extra.get("gm_critical", {}))
            owner, points = "the GM", int(pool.get("points", 0))
            earned_on, hit_area = pool.get("target"), pool.get("area")
        else:
            actor = self.creature(state, command.actor)
            owner, points = actor.id, actor.critical_points
            earned_on, hit_area = actor.critical_target, actor.critical_area
        if points < cost:
            raise IllegalCommand(f"{owner} has {points} critical damage point(s); {effect} "
                                 f"costs {cost}", rule="P-CDP-7")
        target = self.creature(state, self.arg(command, "target", str, earned_on or ""))
        relevant = self.arg(command, "relevant", bool, False)
        if target.id != earned_on and not relevant:  # P-CDP-3: relevant to the attack made
            raise IllegalCommand(f"the critical damage points were earned against "
                                 f"{earned_on}, not {target.id} (the GM may rule it relevant "
                                 "with 'relevant: true')", rule="P-CDP-3")
        return effect, cost, points, earned_on, hit_area, target

    @event("{cost} critical damage points[ of {actor}] buy {effect} on {target}[ ({left} "
           "left)].",
           actor=args.creature("who spends them (none: the GM, P-CDP-8)"),
           effect=args.text("what they buy"), cost=args.integer("points spent"),
           left=args.integer("points left"), target=args.creature("whom it affects"))
    def apply_critical_spent(self, state: EncounterState, data: dict[str, Any]) -> None:
        if data["actor"] is None:
            state.extra.setdefault("gm_critical", {})["points"] = data["left"]
        else:
            self.creature(state, data["actor"]).critical_points = data["left"]

    @command("Give a creature a condition of conditions.toml (another name only with "
             "custom: true): timed, until removed, sustained, caused, or dealing damage each "
             "round.",
             rules=("P-CON-1", "P-CON-4", "P-CON-5", "P-CON-6", "P-CON-7", "P-CON-8",
                    "P-CON-9", "P-CON-10", "P-CON-11"),
             target=args.creature("who gets the condition", required=True),
             name=args.text("the condition's name (conditions.toml, or any with custom)",
                            required=True, max_len=64),
             custom=args.flag("a condition conditions.toml does not list, given on purpose "
                              "(without it such a name is refused as a typo)"),
             level=args.integer("its level", lo=0, hi=99, default=1),
             rounds=args.value("how many rounds it lasts (0: until removed; \"level\": as "
                               "many as its level)"),
             tags=args.items("tags (added to the catalogue's)"),
             source=args.text("who or what causes it (earns its damage's critical damage "
                              "points)", max_len=64),
             sustained_by=args.creature("who sustains it"),
             cause=args.text("what causes it: it lasts while that does", max_len=64),
             area=args.text("the body area its per-round damage hits (default: a random "
                            "one), or that it bandages", max_len=64),
             damage=args.integer("damage per round (times its level; default: the "
                                 "catalogue's)", lo=0, hi=9999),
             type=args.text("the per-round damage type (default: heat)", max_len=64),
             excludes=args.items("conditions, or tags, it removes (P-CON-11)"))
    def do_condition(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """Give a condition: target, name, [custom], [level], [rounds] (a number or "level"),
        [tags], [source], [sustained_by], [cause], [area], [damage], [type]. A name
        ``conditions.toml`` does not list is refused (with the names it does list, nearest
        first) unless the GM gives it on purpose with ``custom: true``."""
        target = state.entity(self.arg(command, "target", str))
        name = self.arg(command, "name", str)
        listed = condition_catalogue()
        if name not in listed and not self.arg(command, "custom", bool, False):
            raise InvalidCommand(unlisted_condition(name, listed, "polemos"))
        spec = listed.get(name, {})
        level = self.arg(command, "level", int, 1)
        rounds_arg = command.args.get("rounds", 0)
        rounds = level if rounds_arg == "level" else self.arg(command, "rounds", int, 0)
        sustainer = self.opt(command, "sustained_by", str)
        cause = self.opt(command, "cause", str)
        if sustainer is not None:
            state.entity(sustainer)
            duration = Duration("sustained", by=sustainer)
        elif cause is not None:
            duration = Duration("caused", cause=cause)
        else:
            duration = self.duration(state, rounds)  # P-CON-10: e.g. level 3, 3 turns
        tags = tuple(dict.fromkeys([*spec.get("tags", []), *self.arg(command, "tags", list,
                                                                       [])]))
        data: dict[str, Any] = {}
        for key in ("area", "type"):
            if key in command.args:
                data[key] = self.arg(command, key, str)
        if "area" in data and isinstance(target, Creature):
            target.area(data["area"])
        if "damage" in command.args:
            data["damage"] = self.arg(command, "damage", int)
        elif "damage" in spec:  # the catalogue's per-round damage (burning, P-CON-9)
            data["damage"] = int(spec["damage"])
            data.setdefault("type", str(spec.get("type", "heat")))
        bandage = "bandage" in tags
        if bandage and "area" not in data:
            raise InvalidCommand(f"{name}: name the body area it bandages ('area')")
        cond = Condition(name, level, tags, self.opt(command, "source", str), duration,
                         data)
        events = []
        excludes = set(spec.get("excludes", [])) | set(self.arg(command, "excludes", list, []))
        for other in target.conditions:  # P-CON-11: mutually exclusive conditions
            if other.name != name and (other.name in excludes or excludes & set(other.tags)):
                events.append(Event("condition_removed", {"target": target.id,
                                                          "name": other.name,
                                                          "why": f"excluded by {name}"}))
        events.append(Event("condition_added", {"target": target.id,
                                                "condition": cond.to_json()}))
        if bandage:  # P-BLD-3: a bandaged area resets the bleeding that began there
            events.append(Event("bleeding_reset", {"target": target.id,
                                                   "origin": data["area"]}))
        return events + self._consequences(state, events)

    @command("Remove one condition, by name or tag; a caused one comes back while its "
             "cause remains.", rules=("P-CON-2", "P-CON-3", "P-CON-6", "AP-20"),
             target=args.creature("who loses the condition", required=True),
             name=args.text("the condition's name", max_len=64),
             tag=args.text("remove a condition with this tag", max_len=64),
             rounds=args.integer("rounds the removing effect lasts (0: instantaneous)", lo=0,
                                 hi=99999, default=0))
    def do_uncondition(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """Remove one condition (P-CON-2): target, and name or tag (P-CON-3)."""
        target = state.entity(self.arg(command, "target", str))
        name = self.opt(command, "name", str)
        tag = self.opt(command, "tag", str)
        if name is None and tag is None:
            raise InvalidCommand("uncondition: give the condition's 'name' or a 'tag'")
        matching = [c for c in target.conditions
                    if (name is None or c.name == name) and (tag is None or tag in c.tags)]
        if not matching:
            what = f"condition {name!r}" if name else f"condition tagged {tag!r}"
            raise IllegalCommand(f"{target.id} has no {what}", rule="P-CON-3")
        cond = matching[0]  # P-CON-2: one at a time
        events = [Event("condition_removed", {"target": target.id, "name": cond.name,
                                              "why": "removed"})]
        if cond.duration.kind == "caused" and self._cause_present(state, target,
                                                                  cond.duration.cause,
                                                                  cond.name):
            if self.rule(state, "AP-20") == "refuse":
                raise IllegalCommand(f"{cond.name} is caused by {cond.duration.cause} and "
                                     "cannot be removed while it remains", rule="P-CON-6")
            rounds = self.arg(command, "rounds", int, 0)
            if rounds > 0:  # removed by a lasting effect: back when that effect ends
                events.append(Event("readd_scheduled", {
                    "due": self.clock(state) + rounds, "target": target.id, "kind": "condition",
                    "payload": cond.to_json(), "cause": cond.duration.cause}))
            else:  # AP-20: an instantaneous removal is undone at once
                events.append(Event("condition_added", {"target": target.id,
                                                        "condition": cond.to_json(),
                                                        "why": "its cause remains"}))
        return events + self._consequences(state, events)

    @command("Set a location's field conditions: those in it have them.",
             rules=("P-CON-12",),
             location=args.text("the location", required=True, max_len=64),
             conditions=args.items("the conditions' names", required=True))
    def do_field(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """The GM sets a location's field conditions (P-CON-12): location, conditions."""
        location = self.arg(command, "location", str)
        names = [str(n) for n in self.arg(command, "conditions", list)]
        return [Event("field_set", {"location": location, "conditions": names})]

    @event("Field conditions at {location}: {conditions}.",
           location=args.text("the location"), conditions=args.items("the conditions"))
    def apply_field_set(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra.setdefault("fields", {})[data["location"]] = list(data["conditions"])

    @command("Move into a location (or out of one): its field conditions come and go; "
             "restricted items are refused.", who="player", actor="required",
             rules=("P-CON-12", "P-SOC-5"),
             location=args.text("the location (none: out of any)", max_len=64),
             allowed=args.flag("the GM lets restricted items in"))
    def do_enter(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Move into a location (or out, with no location): actor, [location]. Field conditions
        of the old location go, those of the new one come (P-CON-12)."""
        actor = self.creature(state, self.actor(state, command).id)
        location = self.opt(command, "location", str)
        banned = self.restricted_items(state, actor, location)
        if banned and not self.arg(command, "allowed", bool, False):  # P-SOC-5
            raise IllegalCommand(f"{actor.id} carries items restricted at {location}: "
                                 f"{', '.join(banned)} (the GM may allow it: allowed: true)",
                                 rule="P-SOC-5")
        fields = state.extra.get("fields", {})
        events = [Event("entered", {"actor": actor.id, "location": location})]
        for cond in actor.conditions:
            if cond.duration.kind == "field":
                events.append(Event("condition_removed", {"target": actor.id, "name": cond.name,
                                                          "why": "left the location"}))
        for name in fields.get(location, []) if location else []:
            spec = condition_catalogue().get(name, {})
            cond = Condition(name, 1, tuple(spec.get("tags", [])), None,
                             Duration("field", cause=location))
            events.append(Event("condition_added", {"target": actor.id,
                                                    "condition": cond.to_json()}))
        return events

    @event("{actor} changes location[: now {location}].",
           actor=args.creature("who moves"), location=args.text("the location (none: out)"))
    def apply_entered(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["actor"]).location = data["location"]

    @command("Take cover: a concealment level (a bonus to [firearm defense]) until the "
             "next turn, and the body areas in cover.", who="player", when="any",
             actor="required", cost="minor",
             rules=("P-COV-1", "P-COV-2", "P-COV-3", "P-COV-5", "AP-17", "AP-18"),
             concealment=args.value("none, quarter, half, total, or a percentage of the "
                                    "silhouette (0 to 100)"),
             areas=args.items("the body areas in cover (the GM's call)"),
             kind=args.choice("the action it takes", *KINDS, default="minor"))
    def do_take_cover(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """Take cover: actor, concealment (none, quarter, half, total or a percentage),
        [areas] (body areas in cover, the GM's call, P-COV-3), [kind] (default minor)."""
        actor = self.acting(state, command)
        level = concealment_level(command.args.get("concealment", "none"))
        areas = [str(a) for a in self.arg(command, "areas", list, [])]
        for area in areas:
            actor.area(area)
        data = self.use(state, actor, kind_of(command), "take cover")
        # P-COV-5: lost at the start of the next turn unless taken again
        duration = (Duration("timed", round=state.round + 1, turn_of=actor.id, at="start")
                    if state.in_combat else Duration())
        cond = Condition("concealed", CONCEALMENT[level], ("cover",), actor.id, duration,
                         {"concealment": level, "areas": areas})
        events = [Event("acted", data)]
        if actor.has("concealed"):
            events.append(Event("condition_removed", {"target": actor.id, "name": "concealed",
                                                      "why": "taken again"}))
        events.append(Event("condition_added", {"target": actor.id,
                                                "condition": cond.to_json()}))
        return events

    @event("{target} is {condition.name}[ ({condition.level})][ again: {why}].",
           target=args.creature("who"), condition=args.mapping("the condition"),
           why=args.text("why it is given back"))
    def apply_condition_added(self, state: EncounterState, data: dict[str, Any]) -> None:
        super().apply_condition_added(state, data)

    def odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Exact odds of a skill roll (success against a target number or an opposed roll),
        an attack (hit, and the chance of each number of critical damage points), stress,
        a search (each hidden object found), hiding (its detection defense), knowing a
        place's restrictions abroad, and the wound reveal list."""
        rule2, ties = self.rule(state, "AP-2"), self.rule(state, "AP-1")
        bonus, penalty = dice_modifier(command)
        if command.name == "skill":
            actor = self.creature(state, command.actor) if command.actor else None
            if "value" in command.args:
                value = self.arg(command, "value", int)
            elif actor is not None:
                value = actor.skill(self.arg(command, "skill", str))
            else:
                raise InvalidCommand("skill: give 'actor' and 'skill', or a 'value'")
            _, flat, more = self._defense_concealment(state, actor,
                                                      self.arg(command, "skill", str, ""))
            dist = skill_distribution(value + flat, bonus + more, penalty, rule2)
            out: dict[str, Any] = {"mean": dist.mean,
                                   "totals": {v: p for v, p in dist.items()}}
            if "against" in command.args:  # opposed: beat (AP-1: or tie) the other's roll
                other = self.creature(state, self.arg(command, "against", str))
                other_skill = self.arg(command, "against_skill", str,
                                       self.arg(command, "skill", str, ""))
                _, other_flat, other_more = self._defense_concealment(state, other, other_skill)
                opposed = skill_distribution(other.skill(other_skill) + other_flat, other_more,
                                             0, rule2)
                hit = sum((p * chance(dist, total, ties) for total, p in opposed.items()),
                          Fraction(0))
                out.update(success=hit, failure=1 - hit)
            elif "target" in command.args:
                hit = chance(dist, self.arg(command, "target", int), ties)
                out.update(success=hit, failure=1 - hit)
            return out
        if command.name == "hide" and "defense" not in command.args:  # P-STL-2
            hider = self.creature(state, self.opt(command, "target", str)
                                  or self.actor(state, command).id)
            dist = skill_distribution(hider.skill("stealth"), 0, 0, rule2)
            return {"mean": dist.mean, "totals": {v: p for v, p in dist.items()}}
        if command.name == "restrictions":  # P-SOC-6: a knowledge roll abroad only
            if not self.arg(command, "foreign", bool, False):
                return {"success": Fraction(1), "failure": Fraction(0)}
            actor = self.creature(state, self.actor(state, command).id)
            dist = skill_distribution(actor.skill(self.arg(command, "skill", str, "community")),
                                      0, 0, rule2)
            hit = chance(dist, self.arg(command, "target", int, 8), ties)
            return {"success": hit, "failure": 1 - hit}
        if command.name == "attack":
            s = self._attack_setup(state, command)
            hit, miss, critical, mean = _attack_odds(
                s["actor"].skill(s["weapon"].skill), s["bonus"], s["penalty"],
                s["target"].skill(s["defense_skill"]) + s["defense_bonus"], s["defense_dice"],
                s["defense_penalty"], rule2, ties, s["weapon"].damage[s["type"]],
                s["actor"].critical_threshold)
            return {"hit": hit, "miss": miss, "critical_points": dict(critical),
                    "damage_mean": mean}
        if command.name == "stress" and "discipline" in command.args:
            target = self.creature(state, self.arg(command, "target", str))
            dist = skill_distribution(target.skill("discipline"), 0, 0, rule2)
            avoid = chance(dist, self.arg(command, "discipline", int), ties)
            return {"avoided": avoid, "taken": 1 - avoid}
        if command.name == "search":  # P-STL-3, POL-8: the chance to find each hidden object
            searcher = self.creature(state, self.actor(state, command).id)
            dist = skill_distribution(searcher.skill("search"), bonus, penalty, rule2)
            shift = self.arg(command, "detection_modifier", int, 0) - \
                self.arg(command, "stealth_modifier", int, 0)
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
                found[entity.id] = Fraction(0) if self.rule(state, "POL-8") == "gm-decides" \
                    else chance(dist, needed + shift, ties)
            return {"found": found}
        if command.name == "reveal":  # P-WND-6: each result of the 3D6 reveal list
            results: dict[str, Fraction] = {}
            for total, p in distribution("3d6").items():
                name = next(r["wound"] for r in reveal_table() if total <= r["upto"])
                results[name] = results.get(name, Fraction(0)) + p
            return {"results": results}
        if command.name == "move":  # what it costs and triggers (targets.py)
            return self.move_odds(state, command)
        return super().odds(state, command)


@lru_cache(maxsize=4096)
def _attack_odds(attack_value: int, bonus: int, penalty: int, defense_value: int,
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
