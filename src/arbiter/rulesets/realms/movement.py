"""Movement in realms (R-MOV-*, R-DT-*, R-PRN-*, R-SIZ-4/5, R-FLK-*): placing, terrain,
moving step by step, flanking, standing up, jumping, climbing, swimming and falling
(R-FALL-*), and what the battle map draws."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
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
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.copying import share_extra_in_scratch
from ...core.model import entity_at
from ...core.rounding import half_round_down, half_round_up, round_up
from ...core.ruleset import chunks
from ...dice import DiceSource, roll
from ...dice.sources import ProbeDice
from ...limits import MAP_SQUARES
from . import payloads
from .base import ROLL_FIELDS
from .lasting import LastingRules  # the topic below (a chain)
from .model import (
    BASE_DS,
    JUMP_SKILLS,
    MAX_DS,
    ROUND_HALVES,
    SWIM_SKILLS,
    RealmsCreature,
    ap_costs,
    best_skill,
    climb_speed,
    half,
    jump_ds,
    jump_limits,
    size_order,
    swim_speed,
)


def difficult_squares(state: EncounterState) -> frozenset[tuple[int, int]]:
    """The map's difficult terrain (R-DT-1) as a set of squares."""
    return frozenset((int(s[0]), int(s[1])) for s in state.extra.get("difficult", []))


def square_of(at: tuple[int, int] | None) -> list[int] | None:
    """A square argument (a tuple, or None) as the ``[x, y]`` list events and positions hold."""
    return None if at is None else [at[0], at[1]]


MAX_SPACES = 999
"""The most spaces a move, jump, climb or swim command may give (a fall may give more)."""


def distance(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]]) -> int:
    """Squares between two footprints (0 when they overlap, 1 when adjacent)."""
    return min(max(abs(x1 - x2), abs(y1 - y2)) for x1, y1 in a for x2, y2 in b)


def enemies(state: EncounterState, who: RealmsCreature) -> list[RealmsCreature]:
    out = []
    for other in state.entities.values():
        if (isinstance(other, RealmsCreature) and other.id != who.id and not other.down
                and other.side is not None and who.side is not None and other.side != who.side):
            out.append(other)
    return out


def space_sharers(state: EncounterState, me: RealmsCreature,
                  at: list[int] | None = None) -> list[RealmsCreature]:
    """The creatures in whose space ``me`` stands at ``at`` (default: where it is) and may
    not end its turn (R-SIZ-5: one not more than double its size; a rider shares its mount's
    space, the dead are no obstacle)."""
    squares = me.squares(at)
    if not squares or me.mounted_on:
        return []
    mine = set(squares)
    out = []
    for other in state.entities.values():
        if (not isinstance(other, RealmsCreature) or other.id == me.id
                or other.mounted_on == me.id or other.dead):
            continue
        if not mine.isdisjoint(other.squares()) and other.spaces <= 2 * me.spaces:
            out.append(other)
    return out


def _side_of(target: Sequence[tuple[int, int]],
             other: Sequence[tuple[int, int]]) -> tuple[int, int]:
    tx = sum(x for x, _ in target) * len(other)
    ty = sum(y for _, y in target) * len(other)
    ox = sum(x for x, _ in other) * len(target)
    oy = sum(y for _, y in other) * len(target)
    return ((ox > tx) - (ox < tx), (oy > ty) - (oy < ty))


def flankers(state: EncounterState, target: RealmsCreature,
             at: list[int] | None = None) -> list[str]:
    """R-FLK-1: the enemies flanking ``target`` (two or more within 1 space, on different
    sides); empty when it is not flanked."""
    squares = target.squares(at)
    if not squares:
        return []
    near = [e for e in enemies(state, target) if e.position is not None
            and distance(squares, e.squares()) <= 1]
    sides = {_side_of(squares, e.squares()) for e in near}
    return [e.id for e in near] if len(near) >= 2 and len(sides) >= 2 else []



@mypyc_attr(allow_interpreted_subclasses=True)
class MovementRules(LastingRules):
    """Moving and where creatures stand (a topic of ``RealmsRuleset``)."""

    @command("Mark squares as difficult terrain, or clear them.",
             rules=("R-DT-1",),
             squares=args.squares("the squares", required=True),
             clear=args.flag("clear them instead"),
             role="paint")
    def do_terrain(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Squares become difficult terrain (R-DT-1), or plain again."""
        squares = [[x, y] for x, y in command.a.squares]
        if not command.a.clear:
            current = difficult_squares(state)
            after = len(current) + len({(x, y) for x, y in squares} - current)
            if after > MAP_SQUARES:
                raise IllegalCommand(f"the map would hold {after} squares of difficult "
                                     f"terrain: a map holds at most {MAP_SQUARES} (limit "
                                     "MAP_SQUARES); clear some first", rule="R-DT-1")
        return [Event("terrain_set", {"squares": squares, "clear": command.a.clear})]

    @event("Squares {clear?cleared of|marked as} difficult terrain: {squares}.",
           squares=args.squares("the squares"), clear=args.flag("cleared"))
    def apply_terrain_set(self, state: EncounterState, data: payloads.TerrainSet) -> None:
        current = {tuple(s) for s in state.extra.get("difficult", [])}
        given = {tuple(s) for s in data["squares"]}
        current = current - given if data["clear"] else current | given
        state.extra["difficult"] = sorted([list(s) for s in current])

    def map_commands(self, state: EncounterState) -> list[dict[str, Any]]:
        """The difficult terrain, painted again (a saved scene)."""
        squares = sorted([list(q) for q in difficult_squares(state)])
        return [{"do": "terrain", "squares": part} for part in chunks(squares)]

    @command("Put a creature on a square of the grid (or off it).",
             target=args.creature("who is placed", required=True),
             at=args.square("the square [x, y] (none: off the grid)"),
             role="place")
    def do_place(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """The game master puts a creature on a square, or takes it off the grid."""
        target = self.creature(state, command.a.target)
        at = square_of(command.a.at)
        return [Event("placed", {"target": target.id, "at": at})]

    @event("{target} is placed[ at ({at})].",
           target=args.creature("who"), at=args.square("the square"),
           optional=("at",))
    def apply_placed(self, state: EncounterState, data: payloads.Placed) -> None:
        self.creature(state, data["target"]).position = data["at"]

    def step_cost(self, state: EncounterState, me: RealmsCreature, start: list[int],
                  end: list[int], difficult_all: bool, forbid_larger: bool,
                  terrain: frozenset[tuple[int, int]] | None = None) -> tuple[int, bool]:
        """Half spaces for one step: 2 straight, 3 diagonal (R-MOV-3), doubled once for
        difficult terrain (R-DT-1, R-DT-3): terrain, another creature (R-DT-2, R-SIZ-4,
        AR-32) or prone (R-PRN-1). ``terrain``: the map's difficult squares, when the
        caller indexed them once for a whole path (``difficult_squares``)."""
        dx, dy = abs(end[0] - start[0]), abs(end[1] - start[1])
        if max(dx, dy) != 1:
            raise InvalidCommand(f"move: {start} to {end} is not one step")
        cost = 3 if dx and dy else 2
        squares = set(me.squares(end))
        if terrain is None:
            terrain = difficult_squares(state)
        difficult = difficult_all or bool(squares & terrain) or me.has("prone")
        for other in state.entities.values():
            if (not isinstance(other, RealmsCreature) or other.id == me.id or other.dead
                    or other.id == me.mounted_on or other.mounted_on == me.id):
                continue
            if not squares.isdisjoint(other.squares()):
                enemy = other.side is not None and me.side is not None and other.side != me.side
                larger = size_order(other) > size_order(me)
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
             spaces=args.integer("straight spaces (without a path)", lo=0, hi=MAX_SPACES,
                                 default=0),
             diagonals=args.integer("diagonal spaces (without a path)", lo=0, hi=MAX_SPACES,
                                    default=0),
             difficult=args.flag("the whole move is through difficult terrain (the GM's: on "
                                 "the map, the terrain marks it)", who="gm"),
             forbid_larger=args.flag("the RM forbids passing through a larger enemy",
                                     who="gm"),
             role="move")
    def do_move(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A move along a path of steps, or of so many spaces, each costing its movement
        (a diagonal 1.5, difficult terrain twice, R-MOV-3, R-DT-*), buying move actions as
        needed; leaving a flank offers the flankers a reaction (R-FLK-2)."""
        me = self.creature(state, self.actor(state, command).id)
        if me.mounted_on and me.mounted_on in state.entities:
            mount = self.creature(state, me.mounted_on)
            if not mount.willing and not mount.saddled and not me.controls_mount:
                raise IllegalCommand(f"{mount.id} is unwilling and moves itself: 'control' it "
                                     "with Animal Handling first", rule="R-MNT-6")
        a = command.a
        difficult_all: bool = a.difficult
        forbid: bool = a.forbid_larger
        path = a.path
        halves = 0
        hard = 0
        end = me.position
        if path:
            if me.position is None:
                raise InvalidCommand(f"move: {me.id} has no position (place it first)")
            here = me.position
            terrain = difficult_squares(state)  # indexed once: a set lookup per step
            for x, y in path:
                step = [x, y]
                cost, was_hard = self.step_cost(state, me, here, step, difficult_all, forbid,
                                                terrain)
                halves += cost
                hard += int(was_hard)
                here = step
            end = here
        else:
            straight: int = a.spaces
            diagonals: int = a.diagonals
            if straight + diagonals == 0:
                raise InvalidCommand("move: give a path, or spaces and/or diagonals")
            factor = 2 if (difficult_all or me.has("prone")) else 1
            halves = factor * (2 * straight + 3 * diagonals)
        economy = self.pay(state, me, "move", ap=0)
        economy, bought = self.buy_movement(state, me, halves, economy)
        provoked: list[str] = []
        if path and state.in_combat:
            # R-FLK-2: leaving either flanker's reach lets "you or your flanking ally" react
            before = flankers(state, me)
            after_squares = me.squares(end)
            if any(distance(after_squares, self.creature(state, fid).squares()) > 1
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
           provoked=args.creatures("flankers it leaves, who may react"),
           optional=("to",))
    def apply_moved(self, state: EncounterState, data: payloads.Moved) -> None:
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
        R-FLK-2), the enemies whose reach (their weapon's, RLM-11) it leaves (``leaves_reach``),
        those flanking it where it ends (``flanked_at_end``) and those in whose space it
        would end, where its turn cannot end (``ends_in_space_of``, R-SIZ-5)."""
        (moved,) = self.do_move(state, command, ProbeDice())
        data = moved.data
        me = self.creature(state, data["actor"])
        economy = data["economy"]
        before, after = me.squares(), me.squares(data["to"])
        near = [e for e in enemies(state, me) if e.position is not None and before
                and distance(before, e.squares()) <= e.weapon_reach]
        out: dict[str, Any] = {
            "to": data["to"], "spaces": data["cost_halves"] / ROUND_HALVES,
            "move_actions": data["move_actions"],
            "ap_spent": data["move_actions"] * ap_costs(state)["move"],
            "difficult_steps": data["difficult_steps"],
            "flank_reaction": list(data["provoked"]),
            "leaves_reach": [e.id for e in near if distance(after, e.squares()) > e.weapon_reach],
            "flanked_at_end": flankers(state, me, data["to"]) if after else [],
            # R-SIZ-5: legal as a step, but the turn cannot end there
            "ends_in_space_of": [e.id for e in space_sharers(state, me, data["to"])]
            if after else [],
        }
        if economy is not None:
            out["ap_left"] = economy["ap"]
            out["movement_left"] = economy["movement"] / ROUND_HALVES
        return out

    def map_view(self, state: EncounterState, ids: list[str]) -> dict[str, Any]:
        """What the battle map draws beyond positions, for the creatures ``ids`` (those the
        reader may see): the footprint of each creature larger than one square (R-SIZ-1,
        offsets from its position), the melee reach of each (its weapon's reach around its
        footprint: 1 space unless the weapon says more, RLM-11) and the terrain kinds that
        block sight (none: realms has difficult terrain only); and how the ruler counts
        (``measure``: squares, and spaces of movement with a diagonal step 1.5, R-MOV-3)."""
        footprints: dict[str, list[list[int]]] = {}
        reach: dict[str, int] = {}
        for who in ids:
            me = entity_at(state.entities, who)
            if not isinstance(me, RealmsCreature):
                continue
            cells = me.size_info.footprint
            if len(cells) > 1:
                footprints[who] = [[dx, dy] for dx, dy in cells]
            if not me.down:
                reach[who] = me.weapon_reach
        return {"footprints": footprints, "reach": reach, "blocks_sight": [],
                "measure": {"unit": "space", "diagonal": 3 / ROUND_HALVES}}  # a step: 3 halves

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
    def apply_stood(self, state: EncounterState, data: payloads.Stood) -> None:
        return None  # its economy is stored by evolve (apply_economy_of)

    @command("Jump as part of movement; beyond the limit a roll against DS 10 + 5 per space.",
             who="player", actor="required", cost="move", rules=("R-JMP-1", "R-JMP-2"),
             spaces=args.integer("spaces jumped", lo=0, hi=MAX_SPACES, required=True),
             vertical=args.flag("a vertical jump (half the limit)"),
             skill=args.choice("the skill rolled beyond the limit (default: the better)",
                               *JUMP_SKILLS))
    def do_jump(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Within the limit no roll (R-JMP-1); beyond it Athletics or Acrobatics against DS
        10 + 5 per space over (R-JMP-2, AR-42)."""
        me = self.creature(state, self.actor(state, command).id)
        spaces: int = command.a.spaces
        vertical: bool = command.a.vertical
        horizontal_limit, vertical_limit = jump_limits(state, me)
        limit = vertical_limit if vertical else horizontal_limit
        excess = max(spaces - limit, 0)
        economy, bought = self.buy_movement(state, me, 2 * spaces,
                                            self.pay(state, me, "move", ap=0))
        data: dict[str, Any] = {"actor": me.id, "spaces": spaces, "limit": limit,
                                "vertical": vertical, "economy": economy,
                                "move_actions": bought, "success": True}
        if excess:
            skill = command.a.skill or best_skill(me, JUMP_SKILLS)
            data.update(self.check_roll(state, me, skill, jump_ds(state, excess), dice,
                                        self.balance(me, skill, False)))
        return [Event("jumped", data)]

    @event("{actor} jumps {spaces} spaces {vertical?up|across} (limit {limit})"
           "[: {skill} {total} (d20 {d20}) against DS {ds}], {success?a success|a failure}.",
           actor=args.creature("who"), spaces=args.integer("spaces jumped"),
           limit=args.integer("spaces it jumps without a roll"),
           vertical=args.flag("a vertical jump"),
           move_actions=args.integer("move actions bought"),
           shared=ROLL_FIELDS,
           optional=("bonus", "d20", "ds", "roller", "skill", "total"))
    def apply_jumped(self, state: EncounterState, data: payloads.Jumped) -> None:
        return None  # its economy is stored by evolve (apply_economy_of)

    @command("Climb: an Athletics roll unless the creature has a Climb Speed (1 AP).",
             who="player", actor="required", cost="climb",
             rules=("R-CLB-1", "R-CLB-2", "R-C-SLO", "R-C-IMM", "R-C-GRA", "R-C-RES", "R-C-FAI"),
             spaces=args.integer("spaces climbed", lo=0, hi=MAX_SPACES, required=True),
             ds=args.integer("the wall's Difficulty Score, set by the RM (default: the seed's "
                             "base DS, 10)", lo=0, hi=MAX_DS, default=BASE_DS, who="gm"),
             rm_allows=args.flag("the RM allows a Restrained creature this use of its hands",
                                 who="gm"))
    def do_climb(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """With a Climb Speed no roll; otherwise Athletics against the wall's DS, a roll that
        needs balance (R-CLB-1, R-CLB-2, R-C-FAI)."""
        me = self.creature(state, self.actor(state, command).id)
        self.check_movement(state, me, "climb", command)
        spaces: int = command.a.spaces
        limit = climb_speed(state, me)
        if spaces > limit:
            raise IllegalCommand(f"{me.id} climbs {limit} spaces per action, not {spaces}",
                                 rule="R-CLB-1")
        economy = self.pay(state, me, "climb")
        data: dict[str, Any] = {"actor": me.id, "spaces": spaces, "climb_speed": limit,
                                "economy": economy, "success": True}
        if me.climb_speed is None:
            data.update(self.check_roll(state, me, "athletics", command.a.ds,
                                        dice, self.balance(me, "athletics", True)))
        return [Event("climbed", data)]

    @event("{actor} climbs {spaces} spaces (Climb Speed {climb_speed})"
           "[: {skill} {total} (d20 {d20}) against DS {ds}], {success?a success|a failure}.",
           actor=args.creature("who"), spaces=args.integer("spaces climbed"),
           climb_speed=args.integer("its Climb Speed"),
           shared=ROLL_FIELDS,
           optional=("bonus", "d20", "ds", "roller", "skill", "total"))
    def apply_climbed(self, state: EncounterState, data: payloads.Climbed) -> None:
        return None

    @command("Swim: an Acrobatics or Athletics roll unless the creature has a Swim Speed; a "
             "failure starts suffocation (1 AP).",
             who="player", actor="required", cost="swim",
             rules=("R-SWM-1", "R-SWM-2", "R-C-SLO", "R-C-IMM", "R-C-GRA", "R-C-RES"),
             spaces=args.integer("spaces swum", lo=0, hi=MAX_SPACES, required=True),
             ds=args.integer("the water's Difficulty Score (default: 10, calm water)", lo=0,
                             hi=MAX_DS, default=BASE_DS, who="gm"),
             skill=args.choice("the skill rolled (default: the better)", *SWIM_SKILLS),
             rm_allows=args.flag("the RM allows a Restrained creature this use of its hands",
                                 who="gm"))
    def do_swim(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A Swim Speed needs no roll (R-SWM-1); otherwise Acrobatics or Athletics against
        the DS, and a failure starts suffocation (R-SWM-2)."""
        me = self.creature(state, self.actor(state, command).id)
        self.check_movement(state, me, "swim", command)
        spaces: int = command.a.spaces
        limit = swim_speed(state, me)
        if spaces > limit:
            raise IllegalCommand(f"{me.id} swims {limit} spaces per action, not {spaces}",
                                 rule="R-SWM-1")
        economy = self.pay(state, me, "swim")
        data: dict[str, Any] = {"actor": me.id, "spaces": spaces, "swim_speed": limit,
                                "economy": economy, "success": True}
        if me.swim_speed is None:
            skill = command.a.skill or best_skill(me, SWIM_SKILLS)
            data.update(self.check_roll(state, me, skill, command.a.ds, dice,
                                        self.balance(me, skill, False)))
        events = [Event("swam", data)]
        if not data["success"]:
            events += self.gain(state, me, Condition("suffocating"), dice)
        return events

    @event("{actor} swims {spaces} spaces (Swim Speed {swim_speed})"
           "[: {skill} {total} (d20 {d20}) against DS {ds}], {success?a success|a failure}.",
           actor=args.creature("who"), spaces=args.integer("spaces swum"),
           swim_speed=args.integer("its Swim Speed"),
           shared=ROLL_FIELDS,
           optional=("bonus", "d20", "ds", "roller", "skill", "total"))
    def apply_swam(self, state: EncounterState, data: payloads.Swam) -> None:
        return None

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
        """1d4 per 200 kg per 2 spaces; a Reflex roll halves it, a failure leaves the faller
        prone (R-FALL-1, R-FALL-2); a creature landed on rolls Reflex too, and a failure
        shares the damage (R-FALL-3). Dice: the damage, the faller's Reflex, then the
        creature below's Reflex."""
        me = self.creature(state, command.a.target)
        spaces: int = me.altitude if command.a.spaces is None else command.a.spaces
        if spaces <= 0:
            raise InvalidCommand("fall: how many spaces? give 'spaces'")
        increments, per, ds = self.fall_setup(state, me, spaces)
        data: dict[str, Any] = {"target": me.id, "spaces": spaces, "increments": increments,
                                "dice_per_increment": per, "ds": ds,
                                "rounds": round_up(spaces, 30)}  # R-FALL-5: 30 spaces a round
        if increments == 0:
            data.update(damage=0, success=True)
            return [Event("fell", data)]
        damage = roll(f"{per * increments}d4", dice)
        save = self.check_roll(state, me, "reflex", ds, dice)
        amount = half(state, damage.total, damage=True) if save["success"] else damage.total
        data.update(damage=damage.total, roll=Deferred(damage.to_json), reflex=save,
                    success=save["success"], amount=amount)
        prone = [me.id] if not save["success"] else []
        below_id = command.a.onto
        below: RealmsCreature | None = None
        if below_id is not None:
            below = self.creature(state, below_id)
            if below.id == me.id:
                raise InvalidCommand("fall: a creature cannot land on itself")
            data["below_reflex"] = self.check_roll(state, below, "reflex", ds, dice)
        events = [Event("fell", data)]  # the payload whole, then the event
        mine = amount
        if below is not None and not data["below_reflex"]["success"]:  # R-FALL-3, AR-31
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
           below_reflex=args.mapping("the Reflex roll of the creature below"),
           optional=("amount", "below_reflex", "reflex", "roll"))
    def apply_fell(self, state: EncounterState, data: payloads.Fell) -> None:
        me = self.creature(state, data["target"])
        me.altitude = 0
        me.flying = False


share_extra_in_scratch("realms", {"difficult"})
"""The difficult terrain in ``state.extra`` (up to ``MAP_SQUARES`` squares) is replaced
whole by ``apply_terrain_set``, never changed in place: a lookahead's scratch state shares
it."""
