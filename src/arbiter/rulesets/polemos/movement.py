"""Moving in Polemos: on the grid (POL-5), placing creatures, terrain (P-REQ-4..6), what the
battle map draws, and entering a location (its field conditions, P-CON-12; its restricted
items, P-SOC-5). Where things are and whether they are in reach is ``base.py``'s.
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    Duration,
    EncounterState,
    Event,
    IllegalCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.conditions import UNLISTED
from ...core.copying import share_extra_in_scratch
from ...core.model import entity_at
from ...core.ruleset import chunks
from ...dice import DiceSource
from ...limits import MAP_SQUARES, MOVE_SQUARES
from . import payloads
from .base import PATH_BLOCKERS, SIGHT_BLOCKERS, PolemosBase, also
from .grid import Square, distance
from .model import Creature, condition_catalogue, speed_of
from .networks import auto_pair_events, has_paired_devices, with_processes
from .social import restricted_items
from .turns import TurnRules  # the topic below (a chain)


def move_checks(rules: PolemosBase, state: EncounterState, command: Command) -> dict[str, Any]:
    """Everything that may refuse a move on the grid; the ``moved`` event's data."""
    actor = rules.acting(state, command)
    if actor.position is None:
        raise IllegalCommand(f"{actor.id} has no square on the grid (give it a position)",
                             rule="P-RNG-1")
    to: Square = command.a.to
    here = (actor.position[0], actor.position[1])
    steps = distance(here, to, rules.metric(state))
    if steps > MOVE_SQUARES:  # bounded before any work: no turn allows more (POL-5)
        raise IllegalCommand(f"{actor.id} cannot move {steps} squares at once: one move "
                             f"covers at most {MOVE_SQUARES} squares (limit MOVE_SQUARES)",
                             rule="POL-5")
    walls = rules.blocking(state, PATH_BLOCKERS)
    if walls:
        crossed = walls.on_line(here, to) or ([to] if to in walls else [])
        if crossed:
            first = min(crossed, key=lambda q: distance(here, q, rules.metric(state)))
            what = state.extra.get("terrain", {}).get(f"{first[0]},{first[1]}", "wall")
            raise IllegalCommand(f"the way from {list(here)} to {list(to)} is obstructed: "
                                 f"a {what} at ({first[0]}, {first[1]})", rule="P-REQ-5")
    data: dict[str, Any] = {"actor": actor.id, "from": list(here), "to": list(to),
                            "squares": steps}
    if state.in_combat:
        if state.current != actor.id:
            raise IllegalCommand(f"it is {state.current}'s turn, not {actor.id}'s")
        economy = dict(state.economy.get(actor.id, rules.economy.fresh(state, actor.id)))
        moved = int(economy.get("moved", 0)) + steps
        if economy.get("full") or moved > speed_of(actor):
            raise IllegalCommand(f"{actor.id} can move {speed_of(actor)} squares a "
                                 f"turn and has moved {economy.get('moved', 0)}",
                                 rule="POL-5")
        economy["moved"] = moved
        data["economy"] = economy
    return data


def move_odds(rules: PolemosBase, state: EncounterState, command: Command) -> dict[str, Any]:
    """What a ``move`` would cost and trigger, from the checks ``do_move`` makes (it
    rolls nothing), or its refusal: the ``squares`` it covers, and in turn-by-turn play
    the creature's ``speed``, the squares moved this turn with it (``moved``) and those
    left (``squares_left``, POL-5); ``pairs``: each personal-network device it brings
    into range of its owner's network (true) or out of it (false, P-NET-23)."""
    data = move_checks(rules, state, command)
    out: dict[str, Any] = {"to": data["to"], "squares": data["squares"]}
    if "economy" in data:
        speed = speed_of(rules.creature(state, data["actor"]))
        moved = int(data["economy"]["moved"])
        out.update(speed=speed, moved=moved, squares_left=speed - moved)
    if has_paired_devices(state):
        after = rules.lookahead(state, [Event("moved", data)])
        out["pairs"] = {str(e.data["system"]): e.type == "network_connected"
                        for e in auto_pair_events(rules, after)}
    return out


@mypyc_attr(allow_interpreted_subclasses=True)
class MovementRules(TurnRules):
    """Moving, placing, terrain, the map view, entering locations."""

    @command("Mark obstructions on the grid: a wall breaks sight and paths, a window paths, "
             "smoke sight.", rules=("P-REQ-4", "P-REQ-5", "P-REQ-6"),
             squares=args.squares("the squares [[x, y], ...]", required=True),
             what=args.choice("wall, window, smoke, or clear", "wall", "window", "smoke",
                              "clear", default="wall"),
             role="paint")
    def do_terrain(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """The GM marks obstructions on the grid, or clears them (P-REQ-4..6)."""
        what: str = command.a.what
        squares = [list(s) for s in command.a.squares]
        if what != "clear":
            terrain = state.extra.get("terrain", {})
            after = len(terrain) + len({f"{x},{y}" for x, y in squares} - terrain.keys())
            if after > MAP_SQUARES:
                raise IllegalCommand(f"the map would hold {after} squares of terrain: a map "
                                     f"holds at most {MAP_SQUARES} (limit MAP_SQUARES); clear "
                                     "some first", rule="P-REQ-4")
        return [Event("terrain_set", {"squares": squares, "what": what})]

    @event("The squares {squares} are now {what}.",
           squares=args.items("the squares [[x, y], ...]"),
           what=args.text("wall, window, smoke or clear"))
    def apply_terrain_set(self, state: EncounterState, data: payloads.TerrainSet) -> None:
        # a new map each time (shared by lookaheads: a painted map is not copied by each)
        terrain = dict(state.extra.get("terrain", {}))
        for x, y in data["squares"]:
            if data["what"] == "clear":
                terrain.pop(f"{x},{y}", None)
            else:
                terrain[f"{x},{y}"] = data["what"]
        state.extra["terrain"] = terrain

    def sight_blocked(self, state: EncounterState, a: tuple[int, int],
                      b: tuple[int, int]) -> bool:
        """A wall or smoke between the two squares stops the line of sight (P-REQ-4; a
        window does not): what a character sees through the fog of war."""
        walls = self.blocking(state, SIGHT_BLOCKERS)
        return bool(walls) and bool(walls.on_line(a, b))

    def map_commands(self, state: EncounterState) -> list[dict[str, Any]]:
        """Walls, windows and smoke, painted again kind by kind (a saved scene)."""
        kinds: dict[str, list[list[int]]] = {}
        for key, what in sorted(state.extra.get("terrain", {}).items()):
            x, y = key.split(",")
            kinds.setdefault(what, []).append([int(x), int(y)])
        return [{"do": "terrain", "squares": part, "what": what}
                for what, squares in sorted(kinds.items()) for part in chunks(squares)]

    @command("Move on the grid in a straight line, up to the speed a turn.", who="player",
             actor="required", cost="move", rules=("POL-5", "P-RNG-1", "P-REQ-5", "P-NET-23"),
             to=args.square("the square to go to", required=True),
             role="move")
    def do_move(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Move on the grid in a straight line that crosses no wall or window; a turn allows
        up to ``speed`` squares in all (ruling POL-5)."""
        events = [Event("moved", move_checks(self, state, command))]
        if not has_paired_devices(state):  # a move changes no device: none to pair
            return events
        return with_processes(
            self, state, events + auto_pair_events(self, self.lookahead(state, events)))

    @also(actor=args.creature("who moves"), **{"from": args.items("the square left [x, y]")},
          to=args.items("the square reached [x, y]"), squares=args.integer("squares moved"))
    @event("{actor} moves from {from} to {to} ({squares} squares).")
    def apply_moved(self, state: EncounterState, data: payloads.Moved) -> None:
        self.creature(state, data["actor"]).position = list(data["to"])

    @command("Put a creature on a square of the grid (or off it).",
             rules=("P-RNG-1",),
             target=args.creature("who is placed", required=True),
             at=args.square("the square [x, y] (none: off the grid)"),
             role="place")
    def do_place(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """The game master puts a creature on a square, or takes it off the grid. Walls and
        windows do not refuse it: the game master places as they see fit."""
        target = self.creature(state, command.a.target)
        raw = command.a.at
        at = None if raw is None else list(raw)
        return [Event("placed", {"target": target.id, "at": at})]

    @event("{target} is placed[ at ({at})].",
           target=args.creature("who"), at=args.square("the square"),
           optional=("at",))
    def apply_placed(self, state: EncounterState, data: payloads.Placed) -> None:
        self.creature(state, data["target"]).position = (
            None if data["at"] is None else list(data["at"]))

    public_extra = frozenset({"terrain"})
    """The keys of ``state.extra`` every player sees on the map (server/views.py)."""

    def map_view(self, state: EncounterState, ids: list[str]) -> dict[str, Any]:
        """What the battle map draws beyond positions, for the creatures ``ids`` (those the
        reader may see): each creature's reach in squares (P-REQ-5), the terrain kinds that
        break line of sight (P-REQ-4), and between each two of them on the grid the first
        square that breaks the line (``sight``: absent when the line is clear); and how the
        ruler counts (``measure``: squares, a diagonal step one or two by ruling POL-3)."""
        reach: dict[str, int] = {}
        squares: dict[str, Square] = {}
        for who in ids:
            me = entity_at(state.entities, who)
            if isinstance(me, Creature) and me.position is not None:
                reach[who] = me.reach
                squares[who] = (me.position[0], me.position[1])
        sight: dict[str, dict[str, list[int]]] = {}
        walls = self.blocking(state, SIGHT_BLOCKERS)  # indexed once for every pair
        if walls:
            placed = list(squares.items())
            for i, (a, here) in enumerate(placed):
                for b, there in placed[i + 1:]:
                    hits = walls.on_line(here, there)  # as ``first_blocked``
                    if hits:
                        sight.setdefault(a, {})[b] = list(hits[0])
                        sight.setdefault(b, {})[a] = list(hits[0])
        diagonal = 2 if self.metric(state) == "manhattan" else 1
        return {"reach": reach, "blocks_sight": list(SIGHT_BLOCKERS), "sight": sight,
                "measure": {"unit": "square", "diagonal": diagonal}}

    @command("Move into a location (or out of one): its field conditions come and go; "
             "restricted items are refused.", who="player", actor="required",
             rules=("P-CON-12", "P-SOC-5"),
             location=args.text("the location (none: out of any)", max_len=64),
             allowed=args.flag("the GM lets restricted items in (P-SOC-5)", who="gm"))
    def do_enter(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Move into a location (or out of any): the field conditions of the old location go,
        those of the new one come (P-CON-12); items restricted there are refused unless the
        GM allows them (P-SOC-5)."""
        actor = self.creature(state, self.actor(state, command).id)
        location: str | None = command.a.location
        banned = restricted_items(state, actor, location)
        if banned and not command.a.allowed:  # P-SOC-5
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
            spec = condition_catalogue().get(name, UNLISTED)
            cond = Condition(name, 1, spec.tags, None,
                             Duration("field", cause=location))
            events.append(Event("condition_added", {"target": actor.id,
                                                    "condition": cond.to_json()}))
        return events

    @event("{actor} changes location[: now {location}].",
           actor=args.creature("who moves"), location=args.text("the location (none: out)"),
           optional=("location",))
    def apply_entered(self, state: EncounterState, data: payloads.Entered) -> None:
        self.creature(state, data["actor"]).location = data["location"]


share_extra_in_scratch("polemos", {"terrain"})
"""The painted map in ``state.extra`` (walls, windows, smoke: up to ``MAP_SQUARES``
squares) is replaced whole by ``apply_terrain_set``, never changed in place: a lookahead's
scratch state shares it."""
