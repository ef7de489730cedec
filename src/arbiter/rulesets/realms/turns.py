"""Initiative, turn order, the start and end of a turn and the end of the fight in realms.

Initiative (R-CMP-5, R-CMP-6, AR-38); at a turn's start damage reductions reset (AR-8), dying
damage (R-DY-3), Bleed (R-C-BLE) and the roll to stay on an unwilling mount (R-MNT-6, RLM-8);
at its end the shared-space check (R-SIZ-5), an uncommanded companion's dodge (R-CMP-8) and
the AP regained (R-AP-1, AR-21). The kernel's ``side_won`` ends the fight when one side alone
stands (``RealmsBase.winner``).
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    DataMap,
    Deferred,
    EncounterState,
    Entity,
    Event,
    IllegalCommand,
    InvalidCommand,
    kernel_payloads,
)
from ...core import catalogue as args
from ...core.catalogue import event, extends
from ...core.copying import peek
from ...core.model import entity_at
from ...core.outcomes import STANDING
from ...dice import DiceSource, roll
from . import payloads
from .base import ROLL_FIELDS
from .model import AP_PER_TURN, RealmsCreature, modifier, out_of_fight, reduce_with_floor
from .mounts import unruly
from .movement import space_sharers
from .odds import OddsRules  # the topic below (a chain)
from .pipeline import resolve


@mypyc_attr(allow_interpreted_subclasses=True)
class TurnRules(OddsRules):
    """Initiative and turns (a topic of ``RealmsRuleset``)."""

    def winner(self, state: EncounterState, down: str) -> list[Event]:
        """The end of the fight: ``side_won`` when one side alone has a creature standing,
        counting ``down`` as out of the fight whatever ``state`` says (it is about to be)."""
        if "winner" in state.extra:
            return []
        sides: dict[str, bool] = {}
        for e in state.entities.values():
            if isinstance(e, RealmsCreature) and e.side is not None:
                sides[e.side] = sides.get(e.side, False) or not (e.down or e.id == down)
        standing = [s for s, up in sides.items() if up]
        if len(sides) >= 2 and len(standing) == 1:
            return [self.side_won(standing[0])]
        return []

    def status(self, state: EncounterState, entity: Entity) -> str:
        """``dead`` when dead or unsummoned (R-DTH-1, R-CMP-*), ``dying`` while Dying
        (R-DY-1), else standing: a creature at 0 Health is Dying, not merely down."""
        if not isinstance(entity, RealmsCreature):
            return STANDING
        if entity.dead or entity.unsummoned:
            return "dead"
        for cond in entity.conditions:
            if cond.name == "dying":
                return "dying"
        return STANDING

    def is_down(self, state: EncounterState, entity: Entity) -> bool:
        """Out of the fight: dead, unsummoned or Dying (``model.out_of_fight``)."""
        return out_of_fight(state, entity)

    def takes_turn(self, state: EncounterState, who: str) -> bool:
        """The dead and the unsummoned get no turn; a Dying creature still does: it takes its
        dying damage at the start of its turns and gains 1 AP at their end (R-DY-2)."""
        found = entity_at(state.entities, who)
        return not (isinstance(found, RealmsCreature) and (found.dead or found.unsummoned))

    def roll_initiative(self, state: EncounterState, entity: Entity,
                        dice: DiceSource) -> tuple[int, DataMap]:
        """d20 + initiative bonus (Agility unless given); a companion's place is its
        Perceive bonus, with no roll (R-CMP-5)."""
        if isinstance(entity, RealmsCreature) and entity.companion:
            perceive = entity.skills.get("perceive", 0)
            return perceive, {"perceive": perceive}
        bonus = entity.initiative_bonus if isinstance(entity, RealmsCreature) else 0
        result = roll(f"1d20+{bonus}" if bonus >= 0 else f"1d20-{-bonus}", dice)
        return result.total, Deferred(result.to_json)

    def initiative_order(self, state: EncounterState, initiative: dict[str, int]) -> list[str]:
        """Characters and creatures highest first; companions at the very end of the round
        in order of Perceive (AR-38: highest first by default)."""
        added = list(state.entities)
        companions = {e for e in initiative if getattr(entity_at(state.entities, e), "companion_of",
                                                        None) is not None}
        sign = 1 if self.ruling_is(state, "AR-38", "lowest-first") else -1
        keys = {e: ((sign if e in companions else -1) * initiative[e], added.index(e))
                for e in initiative}
        rest = sorted((e for e in initiative if e not in companions), key=keys.__getitem__)
        tail = sorted(companions, key=keys.__getitem__)
        return rest + tail

    @extends("Start turn-by-turn play: d20 + initiative bonus, companions last by Perceive "
             "(R-CMP-5), ties as the players list them (R-CMP-6).",
             companion_order=args.creatures("companions in the order the players break their ties"))
    def do_start(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Initiative as the kernel rolls it, companions last (R-CMP-5), their ties broken
        in the order the players give (R-CMP-6)."""
        ties: list[str] = command.a.companion_order or []
        events = super().do_start(state, command, dice)
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
        keys = {e: (sign * initiative[e], rank.get(e, len(rank)), order.index(e)) for e in tail}
        tail.sort(key=keys.__getitem__)
        events[0] = Event("combat_started", {**first.data, "order": head + tail})
        return events

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
        bleed = -modifier(me, "health_each_turn")  # R-C-BLE: Bleed N loses N
        if bleed and not me.dead:
            health = me.health - bleed
            events.append(Event("bled", {"target": who, "lost": bleed, "health": health,
                                         "destabilize": self.ruling_is(state, "AR-26", "damage")
                                         and me.stabilized and health < 0}))
            events += self.consequences(after, who, health, dice)  # after any dying damage
        if me.mounted_on and self.ruling_is(state, "RLM-8", "each-turn"):
            after = self.lookahead(state, events)
            me = self.creature(after, who)
            if not me.dead and me.mounted_on and unruly(after, me):
                events.append(self.stay_roll(after, me, dice))
        return events

    def stay_roll(self, state: EncounterState, rider: RealmsCreature,
                  dice: DiceSource) -> Event:
        """R-MNT-6, RLM-8 each-turn: Animal Handling against DS 10 + the mount's level to
        remain mounted; success also controls the mount this turn, failure throws the rider
        off."""
        mount = unruly(state, rider)
        assert mount is not None
        data = self.check_roll(state, rider, "animal_handling", 10 + mount.creature_level, dice)
        data.update(actor=rider.id, mount=mount.id)
        return Event("stay_rolled", data)

    @event("{actor} {success?stays on and controls|is thrown off} {mount}: Animal Handling "
           "{total} (d20 {d20}) against DS {ds}.",
           actor=args.creature("the rider"), mount=args.creature("the mount"),
           shared=ROLL_FIELDS)
    def apply_stay_rolled(self, state: EncounterState, data: payloads.StayRolled) -> None:
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
        events = [Event("dying_damage", {"target": me.id, "turn": k,
                                         "roll": Deferred(rolled.to_json),
                                         "pipeline": Deferred(result.to_json),
                                         "taken": result.taken,
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
            gain = reduce_with_floor(state, AP_PER_TURN, -modifier(mine, "ap_gained"))  # R-C-STU
        new = gain if self.ruling_is(state, "AR-21", "refill") else ap + gain
        events.append(Event("ap_gained", {"target": who, "gained": gain, "ap": new}))
        return events

    def check_shared_space(self, state: EncounterState, me: RealmsCreature) -> None:
        for other in space_sharers(state, me)[:1]:  # R-SIZ-5, the rule in movement.py
            raise IllegalCommand(
                f"{me.id} cannot end its turn in {other.id}'s space ({other.id} fills "
                f"{other.spaces} spaces, not more than double {me.spaces})", rule="R-SIZ-5")

    def apply_turn_started(self, state: EncounterState, data: kernel_payloads.TurnStarted) -> None:
        self.kernel_turn_started(state, data)
        state.extra.pop("provoked", None)
        me = peek(state.entities, data["actor"])
        if isinstance(me, RealmsCreature) and me.controls_mount:
            self.creature(state, me.id).controls_mount = False

    def apply_turn_ended(self, state: EncounterState, data: kernel_payloads.TurnEnded) -> None:
        self.kernel_turn_ended(state, data)
        me = peek(state.entities, data["actor"])
        if isinstance(me, RealmsCreature) and me.commanded:
            self.creature(state, me.id).commanded = False

    @event("Damage reductions reset for {targets}.",
           targets=args.creatures("whose armor, reductions and shield halving resets"))
    def apply_reductions_reset(self, state: EncounterState, data: payloads.ReductionsReset) -> None:
        for who in data["targets"]:
            me = self.creature(state, who)
            me.armor_uses, me.dr_uses, me.shield_uses = 0, {}, 0

    @event("{target} loses {lost} Health to Bleed[, down to {health}]"
           "{destabilize?, and is no longer stabilized|}.",
           target=args.creature("who bleeds"), lost=args.integer("Health lost"),
           health=args.integer("Health after"),
           destabilize=args.flag("a stabilized creature's dying damage starts again"),
           optional=("destabilize",))
    def apply_bled(self, state: EncounterState, data: payloads.Bled) -> None:
        me = self.creature(state, data["target"])
        me.health = data["health"]
        if data.get("destabilize"):
            me.stabilized, me.dying_turns = False, 0

    @event("{target} is Dying (turn {turn}) and takes {taken} irreducible damage"
           "[ ({roll.text})][, down to {health} Health].",
           target=args.creature("who is Dying"), turn=args.integer("the dying turn"),
           roll=args.mapping("the damage roll"), pipeline=args.mapping("the damage's steps"),
           taken=args.integer("damage taken"), health=args.integer("Health after"))
    def apply_dying_damage(self, state: EncounterState, data: payloads.DyingDamage) -> None:
        me = self.creature(state, data["target"])
        me.health = data["health"]
        me.dying_turns = data["turn"]
