"""Vehicles (P-VEH-1) and the combat spheres of the 8th Age (P-SPH-*): deploying units,
moving between spheres over several turns, and the tags that gate each sphere.

``extra.spheres`` holds the sizes (``spheres`` command, P-SPH-1); ``extra.transit.ID`` a move
between spheres in progress (``to``, ``quadrant``, ``square``, ``cost``, ``spent``).

Ranges and move costs across the spheres are ``spheres_math.py``'s.
"""

from __future__ import annotations

from typing import Any, cast

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    EncounterState,
    Event,
    IllegalCommand,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from . import payloads
from .base import PolemosBase
from .grid import as_square
from .model import QUADRANTS, SPHERES, Creature, speed_of
from .networks import NetworkRules  # the topic below (a chain)
from .spheres_math import move_cost, on_edge

SIZES = {"square-counts": (10_000, 100_000), "area-prose": (2_236, 10_000)}
"""Battle and support sphere sides in squares, by ruling AP-23 (the prose areas, five and a
hundred square kilometres, give sides of about 2,236 and 10,000 one-metre squares)."""


def contact_size(state: EncounterState) -> int:
    return int(state.extra.get("spheres", {}).get("contact_size", 25))


def check_entry(unit: Creature, sphere: str) -> bool:
    """Whether a vehicle may enter ``sphere`` (P-SPH-3, P-SPH-8); returns True for a
    [visit battle sphere] vehicle that must leave again. Units that are not vehicles go
    anywhere."""
    if unit.vehicle is None:
        return False
    tags = set(unit.vehicle["tags"]) | unit.tags
    if sphere == "contact" and "contact sphere" not in tags:
        raise IllegalCommand(f"{unit.id} lacks the [contact sphere] tag and cannot enter "
                             "the contact sphere", rule="P-SPH-3")
    if sphere == "battle" and "battle sphere" not in tags:
        if "visit battle sphere" not in tags:
            raise IllegalCommand(f"{unit.id} has neither [battle sphere] nor [visit battle "
                                 "sphere] and cannot enter the battle sphere",
                                 rule="P-SPH-8")
        return True
    return False


def sphere_move(rules: PolemosBase, state: EncounterState, actor: Creature,
                command: Command) -> list[Event]:
    if actor.sphere is None:
        raise IllegalCommand(f"{actor.id} is in no combat sphere (deploy it first)",
                             rule="P-SPH-1")
    to: str = command.a.to
    size = contact_size(state)
    if actor.id in state.extra.get("visiting", []) and to != "support":
        raise IllegalCommand(f"{actor.id} is only visiting the battle sphere and must try "
                             "to leave for the support sphere", rule="P-SPH-8")
    transit = state.extra.get("transit", {}).get(actor.id)
    if transit is not None and transit["to"] == to:
        plan = dict(transit)
    else:
        quadrant: str | None = command.a.quadrant
        if to == "contact":
            quadrant = actor.quadrant
        if to == "battle" and quadrant is None:
            raise InvalidCommand("sphere_move: which quadrant?")
        cost = move_cost((actor.sphere, actor.quadrant,
                          rules.square_of(state, actor.id)), (to, quadrant), size,
                         rules.ruling(state, "AP-26"))
        square = None
        if to == "contact":
            assert quadrant is not None
            square = list(as_square(command.a.square, "square"))
            if not all(0 <= v < size for v in square) or \
                    not on_edge((square[0], square[1]), quadrant, size):
                raise IllegalCommand(f"a unit coming from the {quadrant} quadrant starts "
                                     f"on a square of the {quadrant} edge of the contact "
                                     "sphere", rule="P-SPH-9")
        check_entry(actor, to)
        plan = {"to": to, "quadrant": quadrant, "square": square, "cost": cost,
                "spent": 0}
    data: dict[str, Any] = {"actor": actor.id}
    speed = speed_of(actor)
    if state.in_combat:
        economy = dict(state.economy.get(actor.id, rules.economy.fresh(state, actor.id)))
        left = speed - int(economy.get("moved", 0))
        if economy.get("full") or left < 1:
            raise IllegalCommand(f"{actor.id} has no movement left this turn",
                                 rule="POL-5")
        economy["moved"] = int(economy.get("moved", 0)) + left
        data["economy"] = economy
    else:
        left = speed  # outside turn-by-turn play, one command is one turn's movement
    plan["spent"] = int(plan["spent"]) + left
    data["transit"] = plan
    if plan["spent"] >= plan["cost"]:
        data["arrived"] = {"target": actor.id, "sphere": plan["to"],
                           "quadrant": plan["quadrant"], "square": plan["square"],
                           "visiting": check_entry(actor, plan["to"])}
    return [Event("sphere_moved", data)]


def sphere_turn_start(rules: PolemosBase, state: EncounterState, who: str) -> list[Event]:
    """A [visit battle sphere] vehicle spends all its movement leaving for the support
    sphere, turn after turn, until it gets there (P-SPH-8, AP-26)."""
    if who not in state.extra.get("visiting", []):
        return []
    unit = rules.creature(state, who)
    if unit.sphere != "battle" or unit.down:
        return []
    return sphere_move(rules, state, unit,
                       rules.bound(Command("sphere_move", who, {"to": "support"})))


@mypyc_attr(allow_interpreted_subclasses=True)
class SphereRules(NetworkRules):
    """Vehicles and the contact, battle and support spheres."""

    def do_add(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        events = super().do_add(state, command, dice)
        spec = events[0].data["spec"]
        if spec.get("vehicle") is None:
            return events
        made = self.make_entity(events[0].data["id"], spec)
        assert isinstance(made, Creature) and made.vehicle is not None
        return [*events, Event("vehicle_assembled", {
            "id": made.id, "characteristics": self.combine(state, made.vehicle)})]

    def combine(self, state: EncounterState, vehicle: dict[str, Any]) -> dict[str, int]:
        """The vehicle's characteristics from its modules (P-VEH-1): each numeric
        characteristic summed over the modules, or the highest one (ruling POL-6)."""
        out: dict[str, int] = {}
        highest = self.ruling(state, "POL-6") == "max"
        for stats in vehicle["squares"].values():
            for key, value in stats.items():
                if key == "module" or not isinstance(value, int):
                    continue
                out[key] = max(out.get(key, value), value) if highest \
                    else out.get(key, 0) + value
        return dict(sorted(out.items()))

    @event("{id} is assembled from its modules: {characteristics}.",
           id=args.creature("the vehicle"),
           characteristics=args.mapping("its combined characteristics (ruling POL-6)"))
    def apply_vehicle_assembled(self, state: EncounterState,
                                data: payloads.VehicleAssembled) -> None:
        unit = self.creature(state, data["id"])
        assert unit.vehicle is not None
        unit.vehicle = {**unit.vehicle, "characteristics": dict(data["characteristics"])}

    @command("Track large-scale warfare with the contact, battle and support spheres.",
             rules=("P-SPH-1", "P-SPH-2", "P-SPH-5", "P-SPH-11", "AP-23"),
             contact_size=args.integer("the contact sphere's side in squares", lo=1,
                                       hi=100_000, default=25))
    def do_spheres(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """The GM tracks large-scale warfare with combat spheres (P-SPH-1): a contact sphere
        of 25×25 squares unless given (P-SPH-2); the battle and support sizes follow ruling
        AP-23."""
        size: int = command.a.contact_size
        battle, support = SIZES[self.ruling(state, "AP-23")]
        return [Event("spheres_set", {"contact_size": size, "battle_size": battle,
                                      "support_size": support})]

    @event("Combat spheres: contact {contact_size}, battle {battle_size}, support "
           "{support_size} squares a side.",
           contact_size=args.integer("the contact sphere's side"),
           battle_size=args.integer("the battle sphere's side"),
           support_size=args.integer("the support sphere's side"))
    def apply_spheres_set(self, state: EncounterState, data: payloads.SpheresSet) -> None:
        state.extra["spheres"] = {k: v for k, v in data.items()}

    @command("Place a unit in a combat sphere: a quadrant in the battle sphere, a square in "
             "the contact sphere.",
             rules=("P-SPH-2", "P-SPH-3", "P-SPH-5", "P-SPH-8", "P-SPH-11"),
             target=args.creature("the unit", required=True),
             sphere=args.choice("contact, battle or support", *SPHERES, required=True),
             quadrant=args.choice("the battle quadrant", *QUADRANTS),
             square=args.square("the contact-sphere square [x, y]"))
    def do_deploy(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """Place a unit in a sphere (the GM's set-up): battle units have a quadrant and no
        square (P-SPH-5), contact units a square, support units neither (P-SPH-11)."""
        unit = self.creature(state, command.a.target)
        sphere: str = command.a.sphere
        data = self._place(state, unit, sphere, command)
        data["visiting"] = check_entry(unit, sphere)
        return [Event("deployed", data)]

    def _place(self, state: EncounterState, unit: Creature, sphere: str,
               command: Command) -> dict[str, Any]:
        quadrant, square = None, None
        if sphere == "battle":
            quadrant = command.a.quadrant
            if quadrant is None:
                raise InvalidCommand(f"{command.name}: missing argument 'quadrant'")
        elif sphere == "contact":
            square = list(as_square(command.a.square, "square"))
            size = contact_size(state)
            if not all(0 <= v < size for v in square):
                raise IllegalCommand(f"the contact sphere is {size}×{size} squares; "
                                     f"{square} is outside it", rule="P-SPH-2")
        return {"target": unit.id, "sphere": sphere, "quadrant": quadrant, "square": square}

    @event("{target} is in the {sphere} sphere[, {quadrant} quadrant][ at {square}][{visiting?"
           ", only visiting|}].",
           target=args.creature("the unit"), sphere=args.text("its sphere"),
           quadrant=args.text("its battle quadrant"),
           square=args.items("its contact-sphere square [x, y]"),
           visiting=args.flag("a [visit battle sphere] vehicle that must leave"),
           optional=("quadrant", "square", "visiting"))
    def apply_deployed(self, state: EncounterState, data: payloads.Deployed) -> None:
        unit = self.creature(state, data["target"])
        unit.sphere, unit.quadrant = data["sphere"], data["quadrant"]
        unit.position = list(data["square"]) if data["square"] is not None else None
        visiting = state.extra.setdefault("visiting", [])
        if data.get("visiting") and unit.id not in visiting:
            visiting.append(unit.id)
        elif not data.get("visiting") and unit.id in visiting:
            visiting.remove(unit.id)
        state.extra.get("transit", {}).pop(unit.id, None)

    @command("Move toward another combat sphere or quadrant, over several turns when it "
             "is far.", who="player", actor="required", cost="move",
             rules=("P-SPH-8", "P-SPH-9", "P-SPH-10", "P-SPH-14", "AP-26"),
             to=args.choice("contact, battle or support", *SPHERES, required=True),
             quadrant=args.choice("the battle quadrant to go to", *QUADRANTS),
             square=args.square("the contact-sphere square to enter, on the matching edge"))
    def do_sphere_move(self, state: EncounterState, command: Command,
                       dice: DiceSource) -> list[Event]:
        """Move toward another sphere or quadrant (P-SPH-9, P-SPH-10, P-SPH-14), spending the
        turn's movement (``speed``); a move longer than one turn continues with the next
        ``sphere_move`` (AP-26; see ``extra.transit``)."""
        actor = self.acting(state, command)
        return sphere_move(self, state, actor, command)

    @event("{actor} moves toward the {transit.to} sphere ({transit.spent} of "
           "{transit.cost} squares)[{arrived?, and gets there|}].",
           actor=args.creature("who moves"),
           transit=args.mapping("the move: to, quadrant, square, cost, spent"),
           arrived=args.mapping("where it arrives, when it does"),
           optional=("arrived",))
    def apply_sphere_moved(self, state: EncounterState, data: payloads.SphereMoved) -> None:
        arrived = data.get("arrived")
        if arrived is not None:
            self.apply_deployed(state, cast("payloads.Deployed", arrived))
        else:
            state.extra.setdefault("transit", {})[data["actor"]] = dict(data["transit"])
