"""Ranges, target kinds and target requirements (P-RNG-*, P-TGT-*, P-REQ-*), moving on the
grid, stealth and detection (P-STL-*), persuasion, attitude and restricted items (P-SOC-*).

A creature's square is its ``position`` ``[x, y]``; gear travels with its carrier. The GM
marks obstructions with ``terrain``: a ``wall`` breaks line of sight and blocks paths, a
``window`` blocks paths only, ``smoke`` breaks line of sight only (``extra.terrain``).
Detection lives in ``extra.detected.ACTOR`` (the hidden entities that actor has detected).
"""

from __future__ import annotations

from typing import Any

from ...core import Command, Condition, EncounterState, Event, IllegalCommand, InvalidCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from .commands import also, roll_skill, success
from .grid import (
    DIRECTIONS,
    MAX_SQUARES,
    Square,
    angle,
    as_square,
    aura,
    contiguous,
    crossed,
    distance,
)
from .model import Creature
from .networks import NetworkRules, reach_args
from .spheres_math import sphere_range

TARGET_KINDS = ("object", "body", "creature", "body_area", "item", "design", "self",
                "location", "area", "aura", "angle", "ability", "wound", "vehicle",
                "vehicle_animal", "spirit", "artifact", "augmentation", "network", "system",
                "process", "magic_power")
"""The target kinds of abilities (P-TGT-1..18), in the seed's order."""

SQUARE_KINDS = ("location", "area", "aura", "angle")
"""Kinds that target squares: they take every object inside, detected or not (P-REQ-2)."""

REQUIREMENTS = ("visible", "reachable", "usable", "communicable", "connectable")
"""Explicit requirement keywords (P-REQ-4..14); ``detected`` is implicit (P-REQ-1)."""

TARGET_RULES = (*(f"P-TGT-{i}" for i in range(1, 21)), "P-RNG-1", "P-RNG-2",
                *(f"P-REQ-{i}" for i in range(1, 15)))
"""The rules checking an ability's target implements."""


def target_args() -> dict[str, args.Arg]:
    """The arguments that checking an ability's target reads (``resolve_target``): the
    ``target`` command's and the ``act`` command's when it names a ``target_kind``."""
    return {
        "target_kind": args.choice("what kind of target the ability takes", *TARGET_KINDS,
                                   default="object"),
        "range": args.integer("the ability's range in squares (0: its own square)", lo=0,
                              hi=200_000, default=0),
        "requires": args.items("requirement keywords: visible, reachable, usable, "
                               "communicable, connectable"),
        "valid": args.flag("the GM's word on whether the target is valid (P-TGT-19)"),
        "target": args.creature("the creature or object targeted"),
        "nearest": args.integer("select the nearest N targets of the kind (P-TGT-20)", lo=1,
                                hi=1000),
        "exclude": args.creatures("what the GM leaves out as trivial (P-TGT-20)"),
        "area": args.text("a body area (body_area)", max_len=64),
        "wound": args.text("a wound's id (wound)", max_len=64),
        "square": args.value("a square [x, y] (location), or a vehicle's module square "
                             "'dx,dy' (vehicle)"),
        "squares": args.squares("contiguous squares [[x, y], ...] (area)"),
        "size": args.integer("how many squares (aura)", lo=1, hi=MAX_SQUARES),
        "direction": args.choice("the direction the arc faces (angle)", *DIRECTIONS),
        "arc": args.integer("the arc's width in degrees: 90, 180 or 360 (angle)", lo=0,
                            hi=360, default=90),
        "ability_of": args.creature("whose declared ability (ability)"),
        "network": args.text("the network (network, system, connectable)", max_len=64),
        "via": args.creature("a system to plug into by wire (network)"),
        "in_range": args.flag("the GM's word on whether the wireless signal reaches "
                              "(network)"),
        "process": args.text("the process's id (process)", max_len=64),
        "key": args.flag("the actor has the key to the locked target (usable)"),
        "permission": args.flag("the owner allows its use (usable)"),
        "communicable": args.flag("the GM's word on rich communication (communicable)"),
        **reach_args(),
    }


SIGHT_BLOCKERS = ("wall", "smoke")
PATH_BLOCKERS = ("wall", "window")


class TargetRules(NetworkRules):
    """Where things are, and whether an ability may name them."""

    # -- the grid --------------------------------------------------------------------------
    def metric(self, state: EncounterState) -> str:
        return self.rule(state, "POL-3")

    @staticmethod
    def blocking(state: EncounterState, kinds: tuple[str, ...]) -> set[Square]:
        out: set[Square] = set()
        for key, what in state.extra.get("terrain", {}).items():
            if what in kinds:
                x, _, y = key.partition(",")
                out.add((int(x), int(y)))
        return out

    def range_between(self, state: EncounterState, actor: Creature, target: Creature,
                      command: Command | None = None, module: str | None = None,
                      strict: bool = True) -> int | None:
        """Squares from the actor to the target (P-RNG-1), or to one square of the target
        vehicle's module layout (``module``, "dx,dy": P-VEH-1; in the contact sphere or on
        the grid each square has its own range, in the battle and support spheres all are
        at the vehicle's, P-SPH-7): on the grid, or across the combat spheres (P-SPH-6,
        P-SPH-12, P-SPH-13, AP-25).

        None only when neither of them is anywhere, no square and no sphere: play without a
        grid, where the game master judges ranges. When one is somewhere and the other is not
        the range cannot be measured: refused with the reason (``strict``), else None."""
        here = self.square_of(state, actor.id)
        there = self.square_of(state, target.id)
        if module is not None and there is not None and target.vehicle \
                and target.sphere in (None, "contact"):
            dx, _, dy = module.partition(",")
            there = (there[0] + int(dx), there[1] + int(dy))
            size = int(state.extra.get("spheres", {}).get("contact_size", 25))
            if target.sphere == "contact" and not all(0 <= v < size for v in there):
                raise IllegalCommand(f"{target.id}'s module square {module} lies at "
                                     f"{list(there)}, outside the {size}×{size} contact "
                                     "sphere: no range to it", rule="P-SPH-2")
        if actor.sphere or target.sphere:
            spheres = state.extra.get("spheres", {})
            given = self.opt(command, "sphere_range", int) if command is not None else None
            try:
                gap = sphere_range(
                    (actor.sphere or "contact", actor.quadrant, here),
                    (target.sphere or "contact", target.quadrant, there),
                    int(spheres.get("contact_size", 25)), self.rule(state, "AP-24"),
                    self.rule(state, "AP-25"), given, self.metric(state),
                    self.opt(command, "edge", str) if command is not None else None)
            except IllegalCommand:
                if strict:
                    raise
                return None
            if gap is None and strict:
                missing = actor.id if here is None else target.id
                raise IllegalCommand(f"{missing} has no square in the contact sphere: the range "
                                     f"from {actor.id} to {target.id} cannot be measured",
                                     rule="P-RNG-1")
            return gap
        if here is None and there is None:
            return None
        if here is None or there is None:
            if not strict:
                return None
            missing = actor.id if here is None else target.id
            raise IllegalCommand(f"{missing} has no square on the grid: the range from "
                                 f"{actor.id} to {target.id} cannot be measured (give it a "
                                 "position)", rule="P-RNG-1")
        return distance(here, there, self.metric(state))

    # -- detection and requirements ----------------------------------------------------------
    @staticmethod
    def detected(state: EncounterState, actor: str, target: str) -> bool:
        """P-REQ-1, P-STL-1: a hidden object counts only once the actor has detected it."""
        entity = state.entities.get(target)
        if entity is None or actor == target or not (entity.hidden or entity.has("hidden")):
            return True
        return target in state.extra.get("detected", {}).get(actor, [])

    def check_detected(self, state: EncounterState, actor: Creature, target: Creature) -> None:
        if not self.detected(state, actor.id, target.id):
            raise IllegalCommand(f"{target.id} is not detected by {actor.id} and cannot be "
                                 "targeted (search for it first)", rule="P-REQ-1")

    def check_visible(self, state: EncounterState, actor: Creature, target: Creature) -> None:
        """P-REQ-4: detected, and a straight line between the squares that no obstruction
        breaks."""
        self.check_detected(state, actor, target)
        here, there = self.square_of(state, actor.id), self.square_of(state, target.id)
        if here is None or there is None:
            return
        hit = self.first_blocked(state, here, there, SIGHT_BLOCKERS)
        if hit is not None:
            raise IllegalCommand(f"{target.id} is not visible to {actor.id}: line of sight is "
                                 f"broken at square {list(hit)}", rule="P-REQ-4")

    def first_blocked(self, state: EncounterState, here: Square, there: Square,
                      blockers: tuple[str, ...]) -> Square | None:
        """The first square between ``here`` and ``there`` that terrain of a ``blockers``
        kind fills, or None when the line is clear."""
        walls = self.blocking(state, blockers)
        if walls:
            for square in crossed(here, there):
                if square in walls:
                    return square
        return None

    def check_reachable(self, state: EncounterState, actor: Creature, target: Creature,
                        reach: int | None, command: Command | None = None) -> None:
        """P-REQ-5: detected, within reach (one square by default, or the weapon's range) and
        a path free of obstacles; P-REQ-7 packed items; P-REQ-8 items another creature holds;
        P-REQ-6 the GM may rule the path blocked (``path_blocked``)."""
        self.check_detected(state, actor, target)
        if target.packed:
            raise IllegalCommand(f"{target.id} is packed away in a container: take it out "
                                 "first to make it reachable", rule="P-REQ-7")
        holder = target.carried_by
        if holder and holder != actor.id:
            allows = command is not None and self.arg(command, "carrier_allows", bool, False)
            if not allows:
                raise IllegalCommand(f"{target.id} is carried by {holder}, who decides whether "
                                     "it is reachable (give carrier_allows: true)",
                                     rule="P-REQ-8")
        if command is not None and self.arg(command, "path_blocked", bool, False):
            raise IllegalCommand(f"the GM rules the path to {target.id} blocked",
                                 rule="P-REQ-6")
        if holder == actor.id or target.installed_in == actor.id:
            return
        gap = self.range_between(state, actor, target, command)
        limit = actor.reach if reach is None else reach
        if gap is not None and gap > limit:
            raise IllegalCommand(f"{target.id} is not reachable by {actor.id}: {gap} squares "
                                 f"away, reach {limit}", rule="P-REQ-5")
        here, there = self.square_of(state, actor.id), self.square_of(state, target.id)
        if here is not None and there is not None and not (actor.sphere or target.sphere):
            hit = self.first_blocked(state, here, there, PATH_BLOCKERS)
            if hit is not None:
                raise IllegalCommand(f"{target.id} is not reachable by {actor.id}: the path is "
                                     f"obstructed at square {list(hit)}", rule="P-REQ-5")

    def check_usable(self, state: EncounterState, actor: Creature, target: Creature,
                     command: Command) -> None:
        """P-REQ-9: reachable with a short trip, not locked away without the key, and not a
        facility used without its owner's permission."""
        self.check_detected(state, actor, target)
        if target.locked and f"key:{target.id}" not in actor.tags \
                and not self.arg(command, "key", bool, False):
            raise IllegalCommand(f"{target.id} is locked and {actor.id} has no key: not usable",
                                 rule="P-REQ-9")
        if target.owner and target.owner != actor.id \
                and not self.arg(command, "permission", bool, False):
            raise IllegalCommand(f"{target.id} belongs to {target.owner}; it is usable only "
                                 "with the owner's permission (permission: true)",
                                 rule="P-REQ-9")

    def communicable(self, state: EncounterState, actor: Creature, target: Creature,
                     command: Command) -> int:
        """P-REQ-10: a language both share; returns the fluency of the best one (the lower of
        the two levels), which the GM may use to distort or forbid rich communication."""
        self.check_detected(state, actor, target)
        if "communicable" in command.args:
            if not self.arg(command, "communicable", bool):
                raise IllegalCommand(f"the GM rules that {actor.id} and {target.id} cannot "
                                     "communicate richly", rule="P-REQ-10")
            return 0
        shared = [min(actor.languages[lang], target.languages[lang])
                  for lang in actor.languages if lang in target.languages]
        if not shared:
            raise IllegalCommand(f"{target.id} is not communicable: {actor.id} and {target.id} "
                                 "share no language", rule="P-REQ-10")
        return max(shared)

    # -- what an ability may target ----------------------------------------------------------
    def resolve_target(self, state: EncounterState, actor: Creature,
                       command: Command) -> dict[str, Any]:
        """Check an ability's target against its kind (P-TGT-*), its range (P-RNG-*) and its
        requirements (P-REQ-*). Returns what it reaches: ``affected`` (entity ids),
        ``squares``, and details. The GM's ``valid: true|false`` has the final word on a target
        the keywords do not settle (P-TGT-19)."""
        kind = self.arg(command, "target_kind", str, "object")
        if kind not in TARGET_KINDS:
            raise InvalidCommand(f"target_kind must be one of {', '.join(TARGET_KINDS)}")
        reach = self.arg(command, "range", int, 0)  # P-RNG-2: no range is range 0
        requires = [str(r) for r in self.arg(command, "requires", list, [])]
        for req in requires:
            if req not in REQUIREMENTS:
                raise InvalidCommand(f"requires: {req!r} is not a requirement keyword "
                                     f"({', '.join(REQUIREMENTS)})")
        if "valid" in command.args and not self.arg(command, "valid", bool):
            raise IllegalCommand("the GM rules this target invalid", rule="P-TGT-19")
        out: dict[str, Any] = {"target_kind": kind, "range": reach}
        if kind in SQUARE_KINDS:
            squares = self._target_squares(state, actor, kind, reach, command)
            exclude = set(self.arg(command, "exclude", list, []))  # P-TGT-20: the GM's call
            # P-REQ-2: every object inside, detected or not
            out["squares"] = [list(s) for s in squares]
            out["affected"] = [e.id for e in state.entities.values()
                               if self.square_of(state, e.id) in set(squares)
                               and e.id not in exclude
                               and not (isinstance(e, Creature) and e.carried_by)]
            return out
        if kind == "magic_power":  # P-TGT-18: a point of MP the actor owns
            if actor.mp < 1:
                raise IllegalCommand(f"{actor.id} owns no point of magic power",
                                     rule="P-TGT-18")
            out["affected"] = [actor.id]
            return out
        if kind == "ability":
            return {**out, **self._target_ability(state, command)}
        if kind == "network":
            name = self.arg(command, "network", str)
            self.connectable(state, actor.id, name, command, self.opt(command, "via", str))
            out.update(network=name, affected=[])
            return out
        if kind == "process":
            pid = self.arg(command, "process", str)
            proc = state.extra.get("processes", {}).get(pid)
            if proc is None:
                raise InvalidCommand(f"no process {pid!r}")
            if not self.connected(state, actor.id, proc["network"]):
                raise IllegalCommand(f"process {pid} is not connectable: {actor.id} is not "
                                     f"connected to {proc['network']}", rule="P-REQ-12")
            out.update(process=pid, affected=[])  # P-REQ-14: its address is always known
            return out
        if "nearest" in command.args:
            return {**out, **self._nearest(state, actor, kind, reach, command)}
        name = self.arg(command, "target", str, actor.id if kind == "self" else None)
        if name is None:
            raise InvalidCommand(f"a {kind} target needs 'target'")
        target = self.creature(state, name)
        self._check_kind(state, actor, target, kind, command, out)
        if kind == "system":
            out["network"] = self.system_connectable(state, actor.id, target.id,
                                                     self.opt(command, "network", str))
        elif kind != "self":
            self.check_detected(state, actor, target)  # P-REQ-1, P-STL-1
            module = out.get("square") if kind == "vehicle" else None
            gap = self.range_between(state, actor, target, command, module)
            if gap is None:  # no grid: nothing to measure on (P-RNG-1)
                if not self.arg(command, "valid", bool, False):
                    raise IllegalCommand(f"neither {actor.id} nor {target.id} has a square or a "
                                         "combat sphere: the range cannot be measured (give "
                                         "them positions, or the GM's word that the target is "
                                         "in range: valid: true)", rule="P-RNG-1")
                out["judged"] = "no grid: the game master's word (valid: true)"
            out["distance"] = gap
            if gap is not None and gap > reach and "reachable" not in requires:
                raise IllegalCommand(f"{target.id} is {gap} squares away, beyond the range of "
                                     f"{reach}" + (" (an action without a range reaches only "
                                                   "its own square)" if reach == 0 else ""),
                                     rule="P-RNG-2" if reach == 0 else "P-RNG-1")
        for req in requires:
            if req == "visible":
                self.check_visible(state, actor, target)
            elif req == "reachable":
                self.check_reachable(state, actor, target, max(reach, actor.reach), command)
            elif req == "usable":
                self.check_usable(state, actor, target, command)
            elif req == "communicable":
                out["fluency"] = self.communicable(state, actor, target, command)
            elif req == "connectable" and kind != "system":
                self.system_connectable(state, actor.id, target.id,
                                        self.opt(command, "network", str))
        out["target"] = target.id
        return out

    def _check_kind(self, state: EncounterState, actor: Creature, target: Creature, kind: str,
                    command: Command, out: dict[str, Any]) -> None:
        def refuse(why: str, rule: str) -> None:
            raise IllegalCommand(f"{target.id} is not a valid {kind.replace('_', ' ')} "
                                 f"target: {why}", rule=rule)

        creature = target.kind == "creature"
        if kind == "object":  # P-TGT-1: the object itself, not its parts nor its gear
            out["affected"] = [target.id]
        elif kind == "body":  # P-TGT-2: only the primary object of the collection
            primary = target
            while primary.carried_by or primary.installed_in:
                primary = self.creature(state, str(primary.carried_by or primary.installed_in))
            out["affected"] = [primary.id]
        elif kind == "creature":
            if not creature:
                refuse("it is not a creature", "P-TGT-3")
            out["affected"] = [target.id]
        elif kind == "body_area":
            if not creature:
                refuse("only a creature has body areas", "P-TGT-4")
            area = self.arg(command, "area", str)
            target.area(area)
            out.update(area=area, affected=[target.id])
        elif kind == "item":
            if creature:
                refuse("it is a creature, not an inanimate item", "P-TGT-5")
            out["affected"] = [target.id]
        elif kind == "design":
            if creature or not target.design:
                refuse("it is not an item with a crafting design", "P-TGT-6")
            out.update(design=target.design, affected=[target.id])
        elif kind == "self":
            if target.id != actor.id:
                refuse("only the acting creature itself", "P-TGT-7")
            out["affected"] = [actor.id]
        elif kind == "wound":
            wound = target.wound(self.arg(command, "wound", str))  # P-TGT-13
            out.update(wound=wound.id, affected=[target.id])
        elif kind == "vehicle":
            if not (target.vehicle or "rideable" in target.tags):
                refuse("it cannot be ridden", "P-TGT-14")
            if "square" in command.args and target.vehicle:
                key = self.arg(command, "square", str)
                if key not in target.vehicle["footprint"]:
                    raise InvalidCommand(f"{target.id} has no square {key} (squares: "
                                         f"{', '.join(target.vehicle['footprint'])})")
                out["square"] = key
            out["affected"] = [target.id]
        elif kind == "vehicle_animal":
            pulling = state.entities.get(target.pulling) if target.pulling else None
            if not creature or not ("mount" in target.tags or (
                    isinstance(pulling, Creature) and (pulling.vehicle or
                                                       "rideable" in pulling.tags))):
                refuse("it is neither a mount nor a draft animal pulling a vehicle",
                       "P-TGT-14")
            out["affected"] = [target.id]
        elif kind == "spirit":
            if not creature or "celestial" not in target.tags:
                refuse("it is not a celestial creature", "P-TGT-15")
            out["affected"] = [target.id]
        elif kind == "artifact":
            if creature or target.mp_max < 1:
                refuse("it is not an item with at least one maximum MP", "P-TGT-15")
            out["affected"] = [target.id]
        elif kind == "augmentation":
            if creature or not target.installed_in:
                refuse("it is not an augmentation installed in a creature", "P-TGT-16")
            out.update(installed_in=target.installed_in, affected=[target.id])
        elif kind == "system":
            if not target.system:
                refuse("it is not a system", "P-TGT-17")
            out["affected"] = [target.id]

    def _nearest(self, state: EncounterState, actor: Creature, kind: str, reach: int,
                 command: Command) -> dict[str, Any]:
        """A selection by criteria, e.g. "the nearest 3 bodies" (P-TGT-20): the ``nearest``
        detected targets of the kind within range, nearest first (ties: the order added),
        leaving out what the GM rules trivial or irrelevant (``exclude``)."""
        count = self.arg(command, "nearest", int)
        if count < 1:
            raise InvalidCommand("nearest: select at least one target")
        exclude = {str(e) for e in self.arg(command, "exclude", list, [])}
        here = self.square_of(state, actor.id)
        if here is None:
            raise IllegalCommand(f"{actor.id} has no square on the grid: give it a 'position'",
                                 rule="P-RNG-1")
        chosen: list[tuple[int, int, str]] = []
        unmeasured: list[str] = []
        for index, entity in enumerate(state.entities.values()):
            if entity.id == actor.id or entity.id in exclude or not isinstance(entity, Creature):
                continue
            if not self.detected(state, actor.id, entity.id) or entity.carried_by \
                    or entity.installed_in:
                continue
            try:
                self._check_kind(state, actor, entity, kind, command, {})
            except IllegalCommand:
                continue
            gap = self.range_between(state, actor, entity, command, strict=False)
            if gap is None:  # nowhere: no range to measure, so never among the nearest
                unmeasured.append(entity.id)
            elif gap <= reach:
                chosen.append((gap, index, entity.id))
        picked = [name for _, _, name in sorted(chosen)[:count]]
        out: dict[str, Any] = {"affected": picked, "selected": picked}
        if unmeasured:
            out["unmeasured"] = unmeasured
        return out

    def _target_squares(self, state: EncounterState, actor: Creature, kind: str, reach: int,
                        command: Command) -> list[Square]:
        here = self.square_of(state, actor.id)
        if here is None:
            raise IllegalCommand(f"{actor.id} has no square on the grid: give it a 'position'",
                                 rule="P-RNG-1")
        metric = self.metric(state)
        if kind == "aura":  # P-TGT-10
            return aura(here, self.arg(command, "size", int))
        if kind == "angle":  # P-TGT-11
            return angle(here, self.arg(command, "direction", str), reach,
                         self.arg(command, "arc", int, 90), metric)
        if kind == "location":  # P-TGT-8
            squares = [as_square(command.args.get("square"), "location: square")]
        else:  # P-TGT-9
            squares = [as_square(s, "area: squares") for s in
                       self.arg(command, "squares", list)]
            if not contiguous(squares, self.rule(state, "POL-4") == "corner"):
                raise IllegalCommand("the squares of an area target must be contiguous",
                                     rule="P-TGT-9")
        for s in squares:
            gap = distance(here, s, metric)
            if gap > reach:
                raise IllegalCommand(f"square {list(s)} is {gap} squares away, beyond the range "
                                     f"of {reach}", rule="P-RNG-2" if reach == 0 else "P-RNG-1")
        return squares

    def _target_ability(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """P-TGT-12: a declared ability that has not begun resolving; a combo's parts are
        targeted together as the combined ability."""
        who = self.arg(command, "ability_of", str)
        pending = state.extra.get("pending", [])
        mine = [p for p in pending if p["actor"] == who]
        if not mine:
            raise IllegalCommand(f"{who} has no declared ability waiting to resolve (an ability "
                                 "can be targeted only between its declaration and its "
                                 "resolution)", rule="P-TGT-12")
        combo = mine[0]["command"].get("combo")
        parts = [p for p in pending if combo and p["command"].get("combo") == combo] or mine[:1]
        return {"ability": combo or parts[0]["command"]["do"], "affected": [who],
                "parts": [p["command"].get("ability", p["command"]["do"]) for p in parts]}

    # -- commands ------------------------------------------------------------------------------
    @also(**target_args())
    @command("Ask whether an ability may target something: its kind, range and "
             "requirements (changes nothing).", who="player", when="any", actor="required",
             rules=TARGET_RULES)
    def do_target(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """Ask whether an ability may target something, changing nothing: actor,
        target_kind, [range], [requires], and the kind's arguments (target, area, wound,
        square, squares, size, direction, arc, ability_of, network, process)."""
        actor = self.creature(state, self.actor(state, command).id)
        return [Event("target_checked", {"actor": actor.id,
                                         **self.resolve_target(state, actor, command)})]

    @event("{actor} can target[ {target}][ {squares}][ {network}][ process {process}] as "
           "{target_kind}[ at {distance} squares][, reaching {affected}].",
           actor=args.creature("who would use the ability"),
           target_kind=args.text("the kind of target"),
           range=args.integer("the ability's range"),
           target=args.creature("the target"),
           affected=args.creatures("what it would reach"),
           squares=args.items("the squares it covers"),
           selected=args.creatures("the nearest targets selected"),
           unmeasured=args.creatures("what a selection passed over: it is nowhere, so no "
                                     "range can be measured to it"),
           distance=args.integer("squares to the target"),
           judged=args.text("why the range was not measured (the GM's word)"),
           fluency=args.integer("the shared language's fluency (communicable)"),
           area=args.text("the body area"), design=args.text("the item's design"),
           wound=args.text("the wound's id"), square=args.text("the vehicle's square"),
           installed_in=args.creature("the creature the augmentation is in"),
           network=args.text("the network"), process=args.text("the process's id"),
           ability=args.text("the declared ability (or combo) targeted"),
           parts=args.items("the combo's parts"))
    def apply_target_checked(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    @command("Mark obstructions on the grid: a wall breaks sight and paths, a window paths, "
             "smoke sight.", rules=("P-REQ-4", "P-REQ-5", "P-REQ-6"),
             squares=args.squares("the squares [[x, y], ...]", required=True),
             what=args.choice("wall, window, smoke, or clear", "wall", "window", "smoke",
                              "clear", default="wall"))
    def do_terrain(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """The GM marks obstructions: squares, what (wall, window, smoke, or clear)."""
        what = self.arg(command, "what", str, "wall")
        if what not in ("wall", "window", "smoke", "clear"):
            raise InvalidCommand("terrain: what must be wall, window, smoke or clear")
        squares = [list(as_square(s, "terrain: squares"))
                   for s in self.arg(command, "squares", list)]
        return [Event("terrain_set", {"squares": squares, "what": what})]

    @event("The squares {squares} are now {what}.",
           squares=args.items("the squares [[x, y], ...]"),
           what=args.text("wall, window, smoke or clear"))
    def apply_terrain_set(self, state: EncounterState, data: dict[str, Any]) -> None:
        terrain = state.extra.setdefault("terrain", {})
        for x, y in data["squares"]:
            if data["what"] == "clear":
                terrain.pop(f"{x},{y}", None)
            else:
                terrain[f"{x},{y}"] = data["what"]

    @command("Move on the grid in a straight line, up to the speed a turn.", who="player",
             actor="required", cost="move", rules=("POL-5", "P-RNG-1", "P-REQ-5", "P-NET-23"),
             to=args.square("the square to go to", required=True))
    def do_move(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Move on the grid: actor, to [x, y]. A turn allows up to ``speed`` squares in all
        (ruling POL-5); the straight path must not cross a wall or window."""
        events = [Event("moved", self._move_checks(state, command))]
        if not self._has_paired_devices(state):  # a move changes no device: none to pair
            return events
        return self._with_processes(
            state, events + self._auto_pair_events(self.lookahead(state, events)))

    def _move_checks(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Everything that may refuse a move on the grid; the ``moved`` event's data."""
        actor = self.acting(state, command)
        if actor.position is None:
            raise IllegalCommand(f"{actor.id} has no square on the grid (give it a position)",
                                 rule="P-RNG-1")
        to = as_square(command.args.get("to"), "move: to")
        here = (actor.position[0], actor.position[1])
        steps = distance(here, to, self.metric(state))
        walls = self.blocking(state, PATH_BLOCKERS)
        if walls and (to in walls or any(s in walls for s in crossed(here, to))):
            raise IllegalCommand(f"the way from {list(here)} to {list(to)} is obstructed",
                                 rule="P-REQ-5")
        data: dict[str, Any] = {"actor": actor.id, "from": list(here), "to": list(to),
                                "squares": steps}
        if state.in_combat:
            if state.current != actor.id:
                raise IllegalCommand(f"it is {state.current}'s turn, not {actor.id}'s")
            economy = dict(state.economy.get(actor.id, self.economy.fresh(state, actor.id)))
            moved = int(economy.get("moved", 0)) + steps
            if economy.get("full") or moved > self.speed_of(actor):
                raise IllegalCommand(f"{actor.id} can move {self.speed_of(actor)} squares a "
                                     f"turn and has moved {economy.get('moved', 0)}",
                                     rule="POL-5")
            economy["moved"] = moved
            data["economy"] = economy
        return data

    @staticmethod
    def speed_of(creature: Creature) -> int:
        """Squares a turn: a vehicle's combined speed, else the stat block's ``speed``."""
        if creature.vehicle and "speed" in creature.vehicle.get("characteristics", {}):
            return int(creature.vehicle["characteristics"]["speed"])
        return creature.speed

    @also(actor=args.creature("who moves"), **{"from": args.items("the square left [x, y]")},
          to=args.items("the square reached [x, y]"), squares=args.integer("squares moved"))
    @event("{actor} moves from {from} to {to} ({squares} squares).")
    def apply_moved(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["actor"]).position = list(data["to"])

    def move_odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """What a ``move`` would cost and trigger, from the checks ``do_move`` makes (it
        rolls nothing), or its refusal: the ``squares`` it covers, and in turn-by-turn play
        the creature's ``speed``, the squares moved this turn with it (``moved``) and those
        left (``squares_left``, POL-5); ``pairs``: each personal-network device it brings
        into range of its owner's network (true) or out of it (false, P-NET-23)."""
        data = self._move_checks(state, command)
        out: dict[str, Any] = {"to": data["to"], "squares": data["squares"]}
        if "economy" in data:
            speed = self.speed_of(self.creature(state, data["actor"]))
            moved = int(data["economy"]["moved"])
            out.update(speed=speed, moved=moved, squares_left=speed - moved)
        if self._has_paired_devices(state):
            after = self.lookahead(state, [Event("moved", data)])
            out["pairs"] = {str(e.data["system"]): e.type == "network_connected"
                            for e in self._auto_pair_events(after)}
        return out

    @command("Put a creature on a square of the grid (or off it).",
             rules=("P-RNG-1",),
             target=args.creature("who is placed", required=True),
             at=args.square("the square [x, y] (none: off the grid)"))
    def do_place(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """The game master puts a creature on a square: target, [at] (none: off the grid).
        Walls and windows do not refuse it: the game master places as they see fit."""
        target = self.creature(state, self.arg(command, "target", str))
        raw = command.args.get("at")
        at = None if raw is None else list(as_square(raw, "place: at"))
        return [Event("placed", {"target": target.id, "at": at})]

    @event("{target} is placed[ at ({at})].",
           target=args.creature("who"), at=args.square("the square"))
    def apply_placed(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["target"]).position = (
            None if data["at"] is None else list(data["at"]))

    public_extra = frozenset({"terrain"})
    """The keys of ``state.extra`` every player sees on the map (server/views.py)."""

    def map_view(self, state: EncounterState, ids: list[str]) -> dict[str, Any]:
        """What the battle map draws beyond positions, for the creatures ``ids`` (those the
        reader may see): each creature's reach in squares (P-REQ-5), the terrain kinds that
        break line of sight (P-REQ-4), and between each two of them on the grid the first
        square that breaks the line (``sight``: absent when the line is clear)."""
        reach: dict[str, int] = {}
        squares: dict[str, Square] = {}
        for who in ids:
            me = state.entities.get(who)
            if isinstance(me, Creature) and me.position is not None:
                reach[who] = me.reach
                squares[who] = (me.position[0], me.position[1])
        sight: dict[str, dict[str, list[int]]] = {}
        if self.blocking(state, SIGHT_BLOCKERS):
            placed = list(squares.items())
            for i, (a, here) in enumerate(placed):
                for b, there in placed[i + 1:]:
                    hit = self.first_blocked(state, here, there, SIGHT_BLOCKERS)
                    if hit is not None:
                        sight.setdefault(a, {})[b] = list(hit)
                        sight.setdefault(b, {})[a] = list(hit)
        return {"reach": reach, "blocks_sight": list(SIGHT_BLOCKERS), "sight": sight}

    @command("Hide by sneaking or camouflage: 2D6 + [stealth] is the detection defense "
             "searchers must reach.", who="player", actor="optional", cost="primary",
             rules=("P-STL-1", "P-STL-2"),
             target=args.creature("what hides or is camouflaged (default: the actor)"),
             method=args.choice("sneak or camouflage", "sneak", "camouflage", default="sneak"),
             defense=args.integer("a set detection defense instead of the roll"),
             kind=args.text("the kind of action it takes (with an actor)", default="primary",
                            max_len=16))
    def do_hide(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Hide by sneaking or camouflage (P-STL-2): actor (its own action, [kind] primary) or
        target (an object the GM camouflages), [method], [defense] (a set detection defense
        instead of the roll).
        Dice: 2D6 + [stealth]; the total is the detection defense searchers must reach."""
        name = self.opt(command, "target", str) or self.actor(state, command).id
        hider = self.creature(state, name)
        method = self.arg(command, "method", str, "sneak")
        if method not in ("sneak", "camouflage"):
            raise InvalidCommand("hide: method must be sneak or camouflage")
        data: dict[str, Any] = {"target": hider.id, "method": method}
        if command.actor is not None:  # sneaking is the hider's own action
            data.update(self.use(state, self.acting(state, command),
                                 str(command.args.get("kind", "primary")), method))
        if "defense" in command.args:
            data["defense"] = self.arg(command, "defense", int)
        else:
            result = roll_skill(hider.skill("stealth"), 0, 0, self.rule(state, "AP-2"), dice)
            data.update(defense=result.total, roll=result.to_json())
        return [Event("hid", data)]

    @event("{target} hides ({method})[: detection defense {defense}].",
           player="{target} hides ({method}).",
           target=args.creature("who hides"), method=args.text("sneak or camouflage"),
           defense=args.integer("the detection defense searchers must reach"),
           roll=args.mapping("the [stealth] roll"),
           actor=args.creature("who acts"), ability=args.text("the action used"),
           kind=args.text("the kind of action"), round=args.integer("the round"),
           counts=args.flag("the use counts for once a round (P-ACT-1)"))
    def apply_hid(self, state: EncounterState, data: dict[str, Any]) -> None:
        hider = self.creature(state, data["target"])
        hider.hidden = True
        hider.conditions = [c for c in hider.conditions if c.name != "hidden"]
        hider.conditions.append(Condition("hidden", 1, ("stealth",), None,
                                          data={"defense": data["defense"],
                                                "method": data["method"]}))
        for found in state.extra.get("detected", {}).values():
            if hider.id in found:
                found.remove(hider.id)

    @command("A hidden creature or object stops hiding: everyone may target it again.",
             rules=("P-STL-1",),
             target=args.creature("who stops hiding", required=True))
    def do_appear(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """Stop hiding: target. Everyone may target it again."""
        target = self.creature(state, self.arg(command, "target", str))
        if not target.hidden:
            raise IllegalCommand(f"{target.id} is not hidden")
        return [Event("appeared", {"target": target.id})]

    @event("{target} is no longer hidden.", target=args.creature("who appears"))
    def apply_appeared(self, state: EncounterState, data: dict[str, Any]) -> None:
        target = self.creature(state, data["target"])
        target.hidden = False
        target.conditions = [c for c in target.conditions if c.name != "hidden"]

    @command("Search actively for hidden objects: 2D6 + [search] against each one's "
             "detection defense.", who="player", actor="required", cost="primary",
             rules=("P-STL-3", "P-STL-4", "P-STL-5", "POL-8", "AP-31"),
             range=args.integer("how far it searches, in squares (default: everywhere)",
                                lo=0, hi=200_000),
             detection_modifier=args.integer("the GM's modifier to hidden objects' detection "
                                             "defense (P-STL-5)", lo=-99, hi=99, default=0),
             stealth_modifier=args.integer("the GM's modifier to the searcher's total "
                                           "(P-STL-5)", lo=-99, hi=99, default=0),
             blind_spots=args.creatures("what the GM rules out of sight (P-STL-4)"),
             kind=args.text("the kind of action it takes", default="primary", max_len=16),
             bonus=args.integer("bonus dice (read by the odds only)", lo=0, hi=20),
             penalty=args.integer("penalty dice (read by the odds only)", lo=0, hi=20),
             dice_mod=args.integer("bonus (+) or penalty (-) dice (read by the odds only)",
                                   lo=-20, hi=20))
    def do_search(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """Search actively for hidden objects (P-STL-3; the search area ability, AP-31):
        actor, [range] (squares; default everywhere), [detection_modifier] (the GM's bonus or
        penalty to hidden objects' detection defense, P-STL-5), [stealth_modifier] (to the
        searcher's total, P-STL-5), [blind_spots] (ids the GM rules out, P-STL-4), [kind]
        (primary). Dice: 2D6 + [search], compared to each hidden object's detection defense
        (ruling POL-8)."""
        actor = self.acting(state, command)
        use = self.use(state, actor, str(command.args.get("kind", "primary")), "search")
        reach = self.opt(command, "range", int)
        blind = {str(b) for b in self.arg(command, "blind_spots", list, [])}
        hidden = [e for e in state.entities.values() if isinstance(e, Creature)
                  and (e.hidden or e.has("hidden"))
                  and e.id != actor.id and not self.detected(state, actor.id, e.id)
                  and e.id not in blind]
        if reach is not None:
            hidden = [e for e in hidden
                      if (self.range_between(state, actor, e, strict=False) or 0) <= reach]
        result = roll_skill(actor.skill("search"), 0, 0, self.rule(state, "AP-2"), dice)
        total = result.total + self.arg(command, "stealth_modifier", int, 0)
        shift = self.arg(command, "detection_modifier", int, 0)
        ties = self.rule(state, "AP-1")
        found = []  # not whom it missed: a player's log would show that entry lose it
        gm = self.rule(state, "POL-8") == "gm-decides"
        for entity in hidden:
            cond = entity.condition("hidden")
            defense = int(cond.data["defense"]) if cond and "defense" in cond.data \
                else entity.skill("detection_defense")
            if not gm and success(total, defense + shift, ties):
                found.append(entity.id)
        return [Event("acted", {**use, "attack": False, "effects": 1, "cost": {}}),
                Event("searched", {"actor": actor.id, "total": total, "roll": result.to_json(),
                                   "found": found})]

    @event("{actor} searches[ ({total})] and finds: {found}.",
           actor=args.creature("who searches"), total=args.integer("the search total"),
           roll=args.mapping("the [search] roll"),
           found=args.creatures("the hidden objects detected"))
    def apply_searched(self, state: EncounterState, data: dict[str, Any]) -> None:
        known = state.extra.setdefault("detected", {}).setdefault(data["actor"], [])
        known.extend(f for f in data["found"] if f not in known)

    def do_detect(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """The GM's judgement of detection (P-REQ-3): actor, target, [detected] (true).
        Knowing only the region something is in is not detecting it."""
        actor = self.creature(state, self.actor(state, command).id)
        target = self.creature(state, self.arg(command, "target", str))
        return [Event("detection_set", {"actor": actor.id, "target": target.id,
                                        "detected": self.arg(command, "detected", bool, True)})]

    def apply_detection_set(self, state: EncounterState, data: dict[str, Any]) -> None:
        known = state.extra.setdefault("detected", {}).setdefault(data["actor"], [])
        if data["detected"] and data["target"] not in known:
            known.append(data["target"])
        elif not data["detected"] and data["target"] in known:
            known.remove(data["target"])

    @command("Take a carried item out of its container, or pack it away.", who="player",
             actor="required", rules=("P-REQ-7", "P-REQ-8"),
             item=args.creature("the item the actor carries", required=True),
             packed=args.flag("pack it away instead", default=False))
    def do_unpack(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """Take an item out of its container, or pack it away: actor, item, [packed] (false).
        Only what the actor carries (P-REQ-7)."""
        actor = self.creature(state, self.actor(state, command).id)
        item = self.creature(state, self.arg(command, "item", str))
        if item.carried_by != actor.id:
            raise IllegalCommand(f"{actor.id} does not carry {item.id}", rule="P-REQ-8")
        return [Event("packed", {"item": item.id,
                                 "packed": self.arg(command, "packed", bool, False)})]

    @event("{item} is {packed?packed away|taken out}.", item=args.creature("the item"),
           packed=args.flag("packed away"))
    def apply_packed(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.creature(state, data["item"]).packed = data["packed"]

    # -- persuasion and attitude ---------------------------------------------------------------
    @command("The attitude modifier a speaker has with a listener: gear, the speaker's and "
             "the listener's attitudes.", actor="required",
             rules=("P-SOC-1", "P-SOC-2", "P-SOC-3", "P-SOC-4"),
             target=args.creature("the listener", required=True),
             groups=args.items("the listener's groups (default: its own)"),
             adjust=args.mapping("source to the value the GM gives it for this audience"),
             ignore=args.items("sources the GM ignores"))
    def do_attitude(self, state: EncounterState, command: Command,
                    dice: DiceSource) -> list[Event]:
        """The attitude modifier a speaker has with a listener (P-SOC-1, P-SOC-2): actor (the
        speaker), target (the listener), [groups] (the listener's groups; default its
        ``groups``), [adjust] ({source: value}: the GM scales or inverts one source for this
        audience, P-SOC-3), [ignore] (sources the GM ignores). Sources: the speaker's gear
        (``gear[].attitude``), the speaker's own ``attitude`` toward the listener or its groups,
        and the listener's ``attitude`` toward the speaker or the speaker's groups (the GM's
        attitude factors of NPCs, P-SOC-4). See ``last.total`` and ``last.breakdown``."""
        speaker = self.creature(state, self.actor(state, command).id)
        listener = self.creature(state, self.arg(command, "target", str))
        groups = [str(g) for g in self.arg(command, "groups", list, listener.groups)]
        adjust: dict[str, int] = {}
        for key, value in self.arg(command, "adjust", dict, {}).items():
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidCommand(f"attitude: adjust {key!r} to a whole number, not "
                                     f"{value!r}")
            adjust[str(key)] = value
        ignore = {str(s) for s in self.arg(command, "ignore", list, [])}
        breakdown: list[dict[str, Any]] = []
        toward = [listener.id, *groups]
        for item in speaker.gear:
            value = sum(int(item["attitude"].get(g, 0)) for g in toward)
            if value:
                breakdown.append({"source": item["name"], "value": value})
        own = sum(speaker.attitude.get(g, 0) for g in toward)
        if own:
            breakdown.append({"source": speaker.id, "value": own})
        theirs = sum(listener.attitude.get(g, 0) for g in [speaker.id, *speaker.groups])
        if theirs:
            breakdown.append({"source": listener.id, "value": theirs})
        for name, value in adjust.items():
            hits = [b for b in breakdown if b["source"] == name]
            if not hits:
                raise InvalidCommand(f"attitude: no modifier from {name!r} to adjust (sources: "
                                     f"{', '.join(b['source'] for b in breakdown) or 'none'})")
            hits[0]["value"], hits[0]["adjusted"] = value, True
        kept = [b for b in breakdown if b["source"] not in ignore]
        return [Event("attitude_computed", {"actor": speaker.id, "target": listener.id,
                                            "total": sum(b["value"] for b in kept),
                                            "breakdown": kept})]

    @event("{actor}'s attitude modifier with {target}: {total}.",
           actor=args.creature("the speaker"), target=args.creature("the listener"),
           total=args.integer("the modifier"),
           breakdown=args.items("each source and its value"))
    def apply_attitude_computed(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    @command("Restrict item tags at a location or social situation (empty: lift them).",
             rules=("P-SOC-5",),
             location=args.text("the location", required=True, max_len=64),
             tags=args.items("item tags, e.g. military, magic", required=True))
    def do_restrict(self, state: EncounterState, command: Command,
                    dice: DiceSource) -> list[Event]:
        """The GM restricts item tags at a location or social situation (P-SOC-5): location,
        tags (e.g. [military, magic]; empty lifts every restriction)."""
        return [Event("restriction_set", {"location": self.arg(command, "location", str),
                                          "tags": [str(t) for t in
                                                   self.arg(command, "tags", list)]})]

    @event("Items tagged {tags} are restricted at {location}.",
           location=args.text("the location"), tags=args.items("the item tags"))
    def apply_restriction_set(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra.setdefault("restricted", {})[data["location"]] = list(data["tags"])

    def restricted_items(self, state: EncounterState, actor: Creature,
                         location: str | None) -> list[str]:
        banned = set(state.extra.get("restricted", {}).get(location or "", []))
        carried = [e for e in state.entities.values()
                   if isinstance(e, Creature) and e.carried_by == actor.id]
        names = [g["name"] for g in actor.gear if banned & set(g["tags"])]
        return names + [e.id for e in carried if banned & e.tags]

    @command("Does a character know a place's item restrictions? At home yes; abroad a "
             "knowledge roll.", who="player", when="any", actor="required",
             rules=("P-SOC-5", "P-SOC-6"),
             location=args.text("the location", required=True, max_len=64),
             foreign=args.flag("a foreign culture: a knowledge roll"),
             skill=args.text("the knowledge skill", default="community", max_len=64),
             target=args.integer("the GM's target number", default=8))
    def do_restrictions(self, state: EncounterState, command: Command,
                        dice: DiceSource) -> list[Event]:
        """Does a character know a place's item restrictions? actor, location, [foreign]
        (a foreign culture: a knowledge roll, P-SOC-6), [skill] (community), [target] (the
        GM's target number, default 8). At home they are known without a roll."""
        actor = self.creature(state, self.actor(state, command).id)
        location = self.arg(command, "location", str)
        tags = list(state.extra.get("restricted", {}).get(location, []))
        data: dict[str, Any] = {"actor": actor.id, "location": location, "known": True}
        if self.arg(command, "foreign", bool, False):
            skill = self.arg(command, "skill", str, "community")
            result = roll_skill(actor.skill(skill), 0, 0, self.rule(state, "AP-2"), dice)
            data.update(roll=result.to_json(), total=result.total,
                        known=success(result.total, self.arg(command, "target", int, 8),
                                      self.rule(state, "AP-1")))
        data["tags"] = tags if data["known"] else None
        return [Event("restrictions_known", data)]

    @event("{actor} {known?knows|does not know} the item restrictions at {location}[ (roll "
           "{total})][: {tags}].",
           actor=args.creature("who"), location=args.text("the location"),
           known=args.flag("they are known"), roll=args.mapping("the knowledge roll"),
           total=args.integer("its total"),
           tags=args.items("the restricted item tags (none when not known)"))
    def apply_restrictions_known(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None
