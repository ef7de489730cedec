"""What an ability may target in Polemos: target kinds (P-TGT-*), ranges (P-RNG-*) and
requirements (P-REQ-*): visible, reachable, usable, communicable, connectable.
"""

from __future__ import annotations

from typing import Any

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
from ...core.model import entity_at
from ...dice import DiceSource
from . import payloads
from .base import SIGHT_BLOCKERS, PolemosBase, also, reach_args
from .conditions import ConditionRules  # the topic below (a chain)
from .grid import DIRECTIONS, MAX_SQUARES, Square, angle, as_square, aura, contiguous, distance
from .model import Creature
from .networks import connectable, connected, system_connectable

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
    ``target`` command's and the ``act`` command's when it names a ``target_kind``. The
    player names what the ability is used on and which checks to make; the ability's
    numbers (its range, an aura's size, an arc's width, a selection's count) and every
    ruling on the world (valid, in range, a key, a permission, communication, what is
    trivial, a path or a carrier) are the game master's."""
    return {
        "target_kind": args.choice("what kind of target the ability takes (default: object; "
                                   "in act, left out: no target check)", *TARGET_KINDS),
        "range": args.integer("the ability's range in squares (0: its own square, P-RNG-2; "
                              "the ability's, the GM's)", lo=0, hi=200_000, default=0,
                              who="gm"),
        "requires": args.items("requirement keywords: visible, reachable, usable, "
                               "communicable, connectable"),
        "valid": args.flag("the GM's word on whether the target is valid (P-TGT-19)",
                           default=None, who="gm"),
        "target": args.creature("the creature or object targeted"),
        "nearest": args.integer("select the nearest N targets of the kind (P-TGT-20; the "
                                "ability's, the GM's)", lo=1, hi=1000, who="gm"),
        "exclude": args.creatures("what the GM leaves out as trivial (P-TGT-20)", who="gm"),
        "area": args.text("a body area (body_area)", max_len=64),
        "wound": args.text("a wound's id (wound)", max_len=64),
        "square": args.value("a square [x, y] (location), or a vehicle's module square "
                             "'dx,dy' (vehicle)"),
        "squares": args.squares("contiguous squares [[x, y], ...] (area)"),
        "size": args.integer("how many squares (aura; the ability's, the GM's)", lo=1,
                             hi=MAX_SQUARES, who="gm"),
        "direction": args.choice("the direction the arc faces (angle)", *DIRECTIONS),
        "arc": args.integer("the arc's width in degrees: 90, 180 or 360 (angle; the "
                            "ability's, the GM's)", lo=0, hi=360, default=90, who="gm"),
        "ability_of": args.creature("whose declared ability (ability)"),
        "network": args.text("the network (network, system, connectable)", max_len=64),
        "via": args.creature("a system to plug into by wire (network)"),
        "in_range": args.flag("the GM's word on whether the wireless signal reaches "
                              "(network)", default=None, who="gm"),
        "process": args.text("the process's id (process)", max_len=64),
        "key": args.flag("the actor has the key to the locked target (usable; the GM's)",
                         who="gm"),
        "permission": args.flag("the owner allows its use (usable; the GM's)", who="gm"),
        "communicable": args.flag("the GM's word on rich communication (communicable)",
                                  default=None, who="gm"),
        **reach_args(),
    }


def needed(command: Command, key: str) -> Any:
    """An argument the target kind needs, or InvalidCommand naming it when left out."""
    value = getattr(command.a, key)
    if value is None:
        raise InvalidCommand(f"{command.name}: missing argument {key!r}")
    return value


def resolve_target(rules: PolemosBase, state: EncounterState, actor: Creature,
                   command: Command) -> dict[str, Any]:
    """Check an ability's target against its kind (P-TGT-*), its range (P-RNG-*) and its
    requirements (P-REQ-*). Returns what it reaches: ``affected`` (entity ids),
    ``squares``, and details. The GM's ``valid: true|false`` has the final word on a target
    the keywords do not settle (P-TGT-19)."""
    a = command.a
    kind: str = a.target_kind or "object"
    reach: int = a.range  # P-RNG-2: no range is range 0
    requires = [str(r) for r in a.requires or []]
    for req in requires:
        if req not in REQUIREMENTS:
            raise InvalidCommand(f"requires: {req!r} is not a requirement keyword "
                                 f"({', '.join(REQUIREMENTS)})")
    if a.valid is False:
        raise IllegalCommand("the GM rules this target invalid", rule="P-TGT-19")
    out: dict[str, Any] = {"target_kind": kind, "range": reach}
    if kind in SQUARE_KINDS:
        squares = target_squares(rules, state, actor, kind, reach, command)
        exclude = set(a.exclude or [])  # P-TGT-20: the GM's call
        # P-REQ-2: every object inside, detected or not
        out["squares"] = [list(s) for s in squares]
        out["affected"] = [e.id for e in state.entities.values()
                           if rules.square_of(state, e.id) in set(squares)
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
        return {**out, **target_ability(rules, state, command)}
    if kind == "network":
        name = needed(command, "network")
        connectable(rules, state, actor.id, name, command, a.via)
        out.update(network=name, affected=[])
        return out
    if kind == "process":
        pid = needed(command, "process")
        proc = state.extra.get("processes", {}).get(pid)
        if proc is None:
            raise InvalidCommand(f"no process {pid!r}")
        if not connected(state, actor.id, proc["network"]):
            raise IllegalCommand(f"process {pid} is not connectable: {actor.id} is not "
                                 f"connected to {proc['network']}", rule="P-REQ-12")
        out.update(process=pid, affected=[])  # P-REQ-14: its address is always known
        return out
    if a.nearest is not None:
        return {**out, **nearest(rules, state, actor, kind, reach, command)}
    name = a.target if a.target is not None else actor.id if kind == "self" else None
    if name is None:
        raise InvalidCommand(f"a {kind} target needs 'target'")
    target = rules.creature(state, name)
    check_kind(rules, state, actor, target, kind, command, out)
    if kind == "system":
        out["network"] = system_connectable(state, actor.id, target.id, a.network)
    elif kind != "self":
        rules.check_detected(state, actor, target)  # P-REQ-1, P-STL-1
        module = out.get("square") if kind == "vehicle" else None
        gap = rules.range_between(state, actor, target, command, module)
        if gap is None:  # no grid: nothing to measure on (P-RNG-1)
            if not a.valid:
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
            check_visible(rules, state, actor, target)
        elif req == "reachable":
            rules.check_reachable(state, actor, target, max(reach, actor.reach), command)
        elif req == "usable":
            check_usable(rules, state, actor, target, command)
        elif req == "communicable":
            out["fluency"] = communicable(rules, state, actor, target, command)
        elif req == "connectable" and kind != "system":
            system_connectable(state, actor.id, target.id, a.network)
    out["target"] = target.id
    return out


def check_kind(rules: PolemosBase, state: EncounterState, actor: Creature, target: Creature,
               kind: str, command: Command, out: dict[str, Any]) -> None:
    def refuse(why: str, rule: str) -> None:
        raise IllegalCommand(f"{target.id} is not a valid {kind.replace('_', ' ')} "
                             f"target: {why}", rule=rule)

    creature = target.kind == "creature"
    if kind == "object":  # P-TGT-1: the object itself, not its parts nor its gear
        out["affected"] = [target.id]
    elif kind == "body":  # P-TGT-2: only the primary object of the collection
        primary = target
        while primary.carried_by or primary.installed_in:
            primary = rules.creature(state, str(primary.carried_by or primary.installed_in))
        out["affected"] = [primary.id]
    elif kind == "creature":
        if not creature:
            refuse("it is not a creature", "P-TGT-3")
        out["affected"] = [target.id]
    elif kind == "body_area":
        if not creature:
            refuse("only a creature has body areas", "P-TGT-4")
        area = needed(command, "area")
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
        wound = target.wound(needed(command, "wound"))  # P-TGT-13
        out.update(wound=wound.id, affected=[target.id])
    elif kind == "vehicle":
        if not (target.vehicle or "rideable" in target.tags):
            refuse("it cannot be ridden", "P-TGT-14")
        key = command.a.square
        if key is not None and target.vehicle:
            if not isinstance(key, str):
                raise InvalidCommand(f"{command.name}: 'square' must be str, not {key!r}")
            if key not in target.vehicle["footprint"]:
                raise InvalidCommand(f"{target.id} has no square {key} (squares: "
                                     f"{', '.join(target.vehicle['footprint'])})")
            out["square"] = key
        out["affected"] = [target.id]
    elif kind == "vehicle_animal":
        pulling = entity_at(state.entities, target.pulling) if target.pulling else None
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


def nearest(rules: PolemosBase, state: EncounterState, actor: Creature, kind: str, reach: int,
            command: Command) -> dict[str, Any]:
    """A selection by criteria, e.g. "the nearest 3 bodies" (P-TGT-20): the ``nearest``
    detected targets of the kind within range, nearest first (ties: the order added),
    leaving out what the GM rules trivial or irrelevant (``exclude``)."""
    count: int = command.a.nearest  # at least 1 (its declaration)
    exclude = {str(e) for e in command.a.exclude or []}
    here = rules.square_of(state, actor.id)
    if here is None:
        raise IllegalCommand(f"{actor.id} has no square on the grid: give it a 'position'",
                             rule="P-RNG-1")
    chosen: list[tuple[int, int, str]] = []
    unmeasured: list[str] = []
    for index, entity in enumerate(state.entities.values()):
        if entity.id == actor.id or entity.id in exclude or not isinstance(entity, Creature):
            continue
        if not rules.detected(state, actor.id, entity.id) or entity.carried_by \
                or entity.installed_in:
            continue
        try:
            check_kind(rules, state, actor, entity, kind, command, {})
        except IllegalCommand:
            continue
        gap = rules.range_between(state, actor, entity, command, strict=False)
        if gap is None:  # nowhere: no range to measure, so never among the nearest
            unmeasured.append(entity.id)
        elif gap <= reach:
            chosen.append((gap, index, entity.id))
    picked = [name for _, _, name in sorted(chosen)[:count]]
    out: dict[str, Any] = {"affected": picked, "selected": picked}
    if unmeasured:
        out["unmeasured"] = unmeasured
    return out


def target_squares(rules: PolemosBase, state: EncounterState, actor: Creature, kind: str,
                   reach: int, command: Command) -> list[Square]:
    here = rules.square_of(state, actor.id)
    if here is None:
        raise IllegalCommand(f"{actor.id} has no square on the grid: give it a 'position'",
                             rule="P-RNG-1")
    metric = rules.metric(state)
    if kind == "aura":  # P-TGT-10
        return aura(here, needed(command, "size"))
    if kind == "angle":  # P-TGT-11
        return angle(here, needed(command, "direction"), reach, command.a.arc, metric)
    if kind == "location":  # P-TGT-8
        squares = [as_square(command.a.square, "location: square")]
    else:  # P-TGT-9
        squares = list(needed(command, "squares"))
        if not contiguous(squares, rules.ruling(state, "POL-4") == "corner"):
            raise IllegalCommand("the squares of an area target must be contiguous",
                                 rule="P-TGT-9")
    for s in squares:
        gap = distance(here, s, metric)
        if gap > reach:
            raise IllegalCommand(f"square {list(s)} is {gap} squares away, beyond the range "
                                 f"of {reach}", rule="P-RNG-2" if reach == 0 else "P-RNG-1")
    return squares


def target_ability(rules: PolemosBase, state: EncounterState, command: Command) -> dict[str, Any]:
    """P-TGT-12: a declared ability that has not begun resolving; a combo's parts are
    targeted together as the combined ability."""
    who = needed(command, "ability_of")
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


def check_visible(rules: PolemosBase, state: EncounterState, actor: Creature,
                  target: Creature) -> None:
    """P-REQ-4: detected, and a straight line between the squares that no obstruction
    breaks."""
    rules.check_detected(state, actor, target)
    here, there = rules.square_of(state, actor.id), rules.square_of(state, target.id)
    if here is None or there is None:
        return
    hit = rules.first_blocked(state, here, there, SIGHT_BLOCKERS)
    if hit is not None:
        raise IllegalCommand(f"{target.id} is not visible to {actor.id}: line of sight is "
                             f"broken at square {list(hit)}", rule="P-REQ-4")


def check_usable(rules: PolemosBase, state: EncounterState, actor: Creature, target: Creature,
                 command: Command) -> None:
    """P-REQ-9: reachable with a short trip, not locked away without the key, and not a
    facility used without its owner's permission."""
    rules.check_detected(state, actor, target)
    if target.locked and f"key:{target.id}" not in actor.tags \
            and not command.a.key:
        raise IllegalCommand(f"{target.id} is locked and {actor.id} has no key: not usable",
                             rule="P-REQ-9")
    if target.owner and target.owner != actor.id \
            and not command.a.permission:
        raise IllegalCommand(f"{target.id} belongs to {target.owner}; it is usable only "
                             "with the owner's permission (permission: true)",
                             rule="P-REQ-9")


def communicable(rules: PolemosBase, state: EncounterState, actor: Creature, target: Creature,
                 command: Command) -> int:
    """P-REQ-10: a language both share; returns the fluency of the best one (the lower of
    the two levels), which the GM may use to distort or forbid rich communication."""
    rules.check_detected(state, actor, target)
    if command.a.communicable is not None:
        if not command.a.communicable:
            raise IllegalCommand(f"the GM rules that {actor.id} and {target.id} cannot "
                                 "communicate richly", rule="P-REQ-10")
        return 0
    shared = [min(actor.languages[lang], target.languages[lang])
              for lang in actor.languages if lang in target.languages]
    if not shared:
        raise IllegalCommand(f"{target.id} is not communicable: {actor.id} and {target.id} "
                             "share no language", rule="P-REQ-10")
    return max(shared)


@mypyc_attr(allow_interpreted_subclasses=True)
class TargetRules(ConditionRules):
    """Checking an ability's target."""

    @also(**target_args())
    @command("Ask whether an ability may target something: its kind, range and "
             "requirements (changes nothing).", who="player", when="any", actor="required",
             rules=TARGET_RULES)
    def do_target(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """Ask whether an ability may target something (its kind, range and
        requirements), changing nothing."""
        actor = self.creature(state, self.actor(state, command).id)
        return [Event("target_checked", {"actor": actor.id,
                                         **resolve_target(self, state, actor, command)})]

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
           parts=args.items("the combo's parts"),
           optional=("ability", "area", "design", "distance", "fluency", "installed_in", "judged",
                     "network", "parts", "process", "selected", "square", "squares", "target",
                     "unmeasured", "wound"))
    def apply_target_checked(self, state: EncounterState, data: payloads.TargetChecked) -> None:
        return None
