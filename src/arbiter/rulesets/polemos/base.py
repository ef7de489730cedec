"""The helpers every part of the Polemos rules uses: building a creature from its stat block,
reading rulings, the clock, spending actions, where things are and whether they can be
reached (P-RNG-1, P-REQ-1, P-REQ-5), giving wounds and afflictions, and what follows from
the state after any change (thresholds, defeat, the end of the fight).

Every topic module (``turns.py``, ``attacks.py``, ``injuries.py``...) holds one class, the classes
one chain from ``PolemosBase``; ``rules.py``'s ruleset extends the last.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, ClassVar, TypeVar

from mypy_extensions import mypyc_attr

from ...core import (
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
from ...core.catalogue import Arg, CommandSpec, EventSpec, declaration, declare
from ...core.conditions import UNLISTED
from ...core.model import entity_at
from ...core.ruleset import ENTITY_KEYS
from ...dice import DiceSource
from .grid import Square, Walls, distance
from .model import (
    QUADRANTS,
    ROUNDS_PER,
    WORLD_KEYS,
    Affliction,
    Creature,
    Wound,
    condition_catalogue,
    make_areas,
    make_armor,
    make_weapon,
    set_world_stats,
)
from .spheres_math import sphere_range

F = TypeVar("F", bound=Callable[..., Any])


POLEMOS_KEYS = {"skills", "body", "vitality", "sp", "fp", "stress", "weapons", "armor",
                "wounds", "afflictions", "critical_threshold", "location", "vitality_now",
                "sp_now", "fp_now", *WORLD_KEYS}


DAY = ROUNDS_PER["day"]
WEEK = ROUNDS_PER["week"]
HOUR = ROUNDS_PER["hour"]


FATIGUE_THRESHOLDS = {"4-8": (4, 8), "every-4": (4, 8, 12)}  # AP-13
STRESS_THRESHOLDS = {"5-10-15": (5, 10, 15), "10-20-30": (10, 20, 30)}  # AP-16


PROCESS_CAUSE = "processes"
"""The cause of a condition a network process gives its members (P-NET-17): it lasts while
a process on one of its networks gives it; its level is how many do (their effects stack)."""


STATUS_CONDITIONS = frozenset({"physical fatigue", "mental fatigue", "fatigue 4", "fatigue 8",
                               "fatigue 12", "stress 1", "stress 2"})
"""The conditions ``_consequences`` gives and takes as a creature's values change."""


UNSEEN_BY_CONSEQUENCES = frozenset({"attacked", "critical_spent"})
"""Events that change nothing ``_consequences`` reads (an attack counted, the actor's
economy and uses, critical damage points), nor anything that the ``apply_*`` of another
event reads: ``_consequences`` looks ahead past the others only (after a miss, no copy;
after a hit, the attacker is not copied; 13 copies a fight on polemos-4v4)."""


SIGHT_BLOCKERS = ("wall", "smoke")
PATH_BLOCKERS = ("wall", "window")

NO_WALLS = Walls(())
_WALLS: list[tuple[dict[str, str], tuple[str, ...], Walls]] = []
"""The wall indexes of the last few maps, each beside a copy of the terrain it was built
from: found again by comparing the terrain (a copy of a state, an encounter loaded again),
so an index is built once per map version and is never stale, however the terrain changed."""
_WALLS_LOCK = threading.Lock()


def walls_of(terrain: dict[str, str], kinds: tuple[str, ...]) -> Walls:
    """The squares of ``terrain`` (``"x,y"`` → kind) of one of ``kinds``, indexed."""
    if not terrain:
        return NO_WALLS
    with _WALLS_LOCK:
        for seen, of, walls in _WALLS:
            if of == kinds and len(seen) == len(terrain) and seen == terrain:
                return walls
    squares: list[Square] = []
    for key, what in terrain.items():
        if what in kinds:
            x, _, y = key.partition(",")
            squares.append((int(x), int(y)))
    walls = Walls(squares)
    with _WALLS_LOCK:
        _WALLS.insert(0, (dict(terrain), kinds, walls))
        del _WALLS[8:]
    return walls


STATUS_MEASURES = ("sp", "fp", "fatigue", "stress")
"""The values the status conditions read, in the order ``_status_events`` is given them."""


def reach_args() -> dict[str, args.Arg]:
    """The arguments that checking whether something is within reach reads (P-REQ-5..8,
    and the ranges across the combat spheres, AP-25): rulings on the world, so the game
    master's (a player's command leaves them out: the rules' defaults apply)."""
    return {
        "carrier_allows": args.flag("the creature carrying the target lets it be reached "
                                    "(P-REQ-8; the GM's)", who="gm"),
        "path_blocked": args.flag("the GM rules the path blocked (P-REQ-6)", who="gm"),
        "sphere_range": args.integer("the GM's range between combat spheres the text leaves "
                                     "open (AP-25)", lo=0, hi=200_000, who="gm"),
        "edge": args.choice("the contact-sphere edge a support unit's range crosses (the "
                            "GM's; default: the nearest)", *QUADRANTS, who="gm"),
    }


def also(**more: Arg) -> Callable[[F], F]:
    """Add arguments to the ``@command`` declaration below it (or fields to the ``@event``
    one): a set of arguments several commands share, or a name the decorators take as a
    keyword of their own (``cost``) or that Python reserves (``from``, ``as``)."""
    def mark(fn: F) -> F:
        spec = declaration(fn)
        if isinstance(spec, CommandSpec):
            declare(fn, replace(spec, args={**spec.args, **more}))
        elif isinstance(spec, EventSpec):
            declare(fn, replace(spec, fields={**spec.fields, **more}))
        else:
            raise TypeError("@also goes above a @command or an @event declaration")
        return fn
    return mark


@mypyc_attr(allow_interpreted_subclasses=True)
class PolemosBase(Ruleset):
    """Helpers every part of the Polemos rules uses."""

    reads_touched = True  # its consequences look again only at the creatures touched
    starts_in_place = True  # its turn start looks past its own events in place (advance)

    def make_entity(self, entity_id: str, spec: Mapping[str, Any]) -> Entity:
        """A creature from a stat block (keys: docs/rulesets/polemos.md)."""
        try:
            return self._make_creature(entity_id, spec)
        except (TypeError, ValueError, KeyError, AttributeError) as err:
            raise InvalidCommand(f"{entity_id}: a stat-block value is malformed ({err!r}); "
                                 "see docs/rulesets/polemos.md") from None

    def _make_creature(self, entity_id: str, spec: Mapping[str, Any]) -> Creature:
        unknown = set(spec) - ENTITY_KEYS - POLEMOS_KEYS
        if unknown:
            raise InvalidCommand(
                f"{entity_id}: unknown stat-block key(s) {', '.join(sorted(unknown))} "
                f"(known: {', '.join(sorted(ENTITY_KEYS | POLEMOS_KEYS))})")
        base = super().make_entity(entity_id, {k: v for k, v in spec.items() if k in ENTITY_KEYS})
        assert isinstance(base, Creature)
        creature = base
        creature.skills = {str(k): int(v) for k, v in dict(spec.get("skills", {})).items()}
        creature.body_plan = str(spec.get("body", "human"))
        creature.areas = make_areas(entity_id, creature.body_plan, dict(spec.get("vitality", {})))
        creature.sp = creature.sp_max = int(spec.get("sp", 10))
        creature.fp = creature.fp_max = int(spec.get("fp", 10))
        creature.sp = int(spec.get("sp_now", creature.sp))  # a roster character's lasting state
        creature.fp = int(spec.get("fp_now", creature.fp))
        for name, value in dict(spec.get("vitality_now", {})).items():
            creature.area(str(name)).vitality = int(value)
        creature.stress = int(spec.get("stress", 0))
        creature.critical_threshold = int(spec.get("critical_threshold", 3))
        if creature.critical_threshold < 1:
            raise InvalidCommand(f"{entity_id}: critical_threshold must be at least 1")
        creature.location = spec.get("location")
        for weapon in spec.get("weapons", []):
            name, made = make_weapon(entity_id, weapon)
            creature.weapons[name] = made
        creature.armor = [make_armor(entity_id, a) for a in spec.get("armor", [])]
        for piece in creature.armor:
            for area in piece.areas:
                if area not in creature.areas:
                    raise InvalidCommand(f"{entity_id}: armor {piece.name!r} covers {area!r}, "
                                         f"which a {creature.body_plan} body does not have")
        for index, raw in enumerate(spec.get("wounds", [])):
            raw = {"name": raw} if isinstance(raw, str) else dict(raw)
            # a roster character's wound keeps its age (P-WND-4: its daily rolls' clock)
            data = self._wound_data(entity_id, creature, raw, f"{entity_id}-w{index + 1}",
                                    -int(raw.get("age", 0)))
            wound = Wound(**data)
            creature.wounds.append(wound)
            self._wound_effects(creature, wound, wound.bleeding, wound.source)
        for index, raw in enumerate(spec.get("afflictions", [])):
            raw = {"name": raw} if isinstance(raw, str) else dict(raw)
            creature.afflictions.append(Affliction(
                id=f"{entity_id}-a{index + 1}", name=str(raw["name"]), area=raw.get("area"),
                cause=raw.get("cause"), tags=list(raw.get("tags", [])),
                wound=bool(raw.get("wound", False))))
        set_world_stats(creature, spec)
        return creature

    def do_add(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Add a creature or object from its stat block (docs/rulesets/polemos.md); what
        follows from its values (fatigue, stress, defeat) follows at once."""
        events = super().do_add(state, command, dice)
        return events + self._consequences(state, events)

    def creature(self, state: EncounterState, name: str) -> Creature:
        """The creature ``name``; UnknownEntity, or IllegalCommand for an entity that is not
        a Polemos creature (``entity_of``, which this looks up directly first: about 1,000
        lookups a simulated fight). By ``[]``, as ``entity_of`` does, never ``get``: the
        ``apply_*`` methods call it on a lookahead's scratch state, whose entities are
        copied as ``[]`` hands them out, and compiled, ``get`` skips a dict subclass's own
        (mypyc's ``CPyDict_Get``)."""
        try:
            entity = state.entities[name]
        except KeyError:
            return state.entity_of(name, Creature)  # UnknownEntity
        if isinstance(entity, Creature):
            return entity
        return state.entity_of(name, Creature)

    def acting(self, state: EncounterState, command: Command) -> Creature:
        who = command.actor
        entity = entity_at(state.entities, who) if who is not None else None
        actor = entity if isinstance(entity, Creature) else \
            self.creature(state, self.actor(state, command).id)
        if actor.down:
            raise IllegalCommand(f"{actor.id} is down and cannot act")
        return actor

    @staticmethod
    def clock(state: EncounterState) -> int:
        """Rounds elapsed since the encounter was created (P-TIM-1)."""
        return int(state.extra.get("clock", 0))

    @staticmethod
    def _is_down(state: EncounterState, who: str) -> bool:
        entity = entity_at(state.entities, who)
        return isinstance(entity, Creature) and entity.down

    def duration(self, state: EncounterState, rounds: int) -> Duration:
        """A duration of ``rounds`` rounds: to the start of the giver's turn in turn-by-turn
        play, by the clock otherwise (P-CON-4)."""
        if rounds <= 0:
            return Duration()
        if state.in_combat and state.current is not None:
            return Duration.for_rounds(state, rounds)
        return Duration("timed", round=self.clock(state) + rounds, at="start")

    def use(self, state: EncounterState, actor: Creature, kind: str,
            ability: str) -> dict[str, Any]:
        """Check and spend an action of ``kind`` for ``ability``: the event data it adds."""
        if not state.in_combat:
            return {"actor": actor.id, "ability": ability, "kind": kind}  # P-ORD-1 free-form
        if kind == "minor":
            if state.current != actor.id:
                raise IllegalCommand(f"{actor.id} can use minor actions only on their own turn",
                                     rule="P-ACT-4")
            if any(p["command"].get("do") and p["kind"] != "free"
                   for p in state.extra.get("pending", [])):
                raise IllegalCommand(
                    "a minor action cannot be used while another action is being resolved",
                    rule="P-ACT-4")
        counts = (self.ruling(state, "AP-6") == "every-use") or state.current == actor.id
        if counts and actor.used_round == state.round and ability in actor.used:
            raise IllegalCommand(f"{actor.id} has already used {ability!r} this round",
                                 rule="P-ACT-1")
        if kind == "free" and state.current != actor.id and actor.channel \
                and self.ruling(state, "AP-5") == "whole-span":
            raise IllegalCommand(f"{actor.id} is in the middle of a full action",
                                 rule="P-ACT-6")
        economy = self.spend(state, actor.id, kind)
        return {"actor": actor.id, "ability": ability, "kind": kind, "economy": economy,
                "round": state.round, "counts": counts}

    carried: ClassVar[tuple[str, ...]] = ("counts",)

    def carry_counts(self, state: EncounterState, data: Mapping[str, Any]) -> None:
        """An ability used once a round (P-ACT-1): an event that carries ``counts`` (with
        ``ability`` and ``round``) adds it to the actor's uses this round."""
        if data["counts"] and "ability" in data:
            creature = entity_at(state.entities, data["actor"])
            if isinstance(creature, Creature):
                if creature.used_round != data["round"]:
                    creature.used, creature.used_round = [], data["round"]
                creature.used = [*creature.used, data["ability"]]

    def metric(self, state: EncounterState) -> str:
        return self.ruling(state, "POL-3")

    @staticmethod
    def blocking(state: EncounterState, kinds: tuple[str, ...]) -> Walls:
        """The squares terrain of ``kinds`` fills, indexed once per map version."""
        return walls_of(state.extra.get("terrain", {}), kinds)

    def square_of(self, state: EncounterState, who: str) -> tuple[int, int] | None:
        """Where an entity is: its own square, or its carrier's (P-TGT-1: gear is its own
        object but travels with whoever carries it)."""
        entity = entity_at(state.entities, who)
        if isinstance(entity, Creature) and entity.position is not None:  # the usual case
            return entity.position[0], entity.position[1]
        seen: set[str] = set()
        while isinstance(entity, Creature) and entity.id not in seen:
            seen.add(entity.id)
            if entity.position is not None:
                return entity.position[0], entity.position[1]
            holder = entity.carried_by or entity.installed_in
            entity = entity_at(state.entities, holder) if holder else None
        return None

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
            a = self.bound(command).a if command is not None else None
            given = a.sphere_range if a is not None else None
            try:
                gap = sphere_range(
                    (actor.sphere or "contact", actor.quadrant, here),
                    (target.sphere or "contact", target.quadrant, there),
                    int(spheres.get("contact_size", 25)), self.ruling(state, "AP-24"),
                    self.ruling(state, "AP-25"), given, self.metric(state),
                    a.edge if a is not None else None)
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

    @staticmethod
    def detected(state: EncounterState, actor: str, target: str) -> bool:
        """P-REQ-1, P-STL-1: a hidden object counts only once the actor has detected it."""
        entity = entity_at(state.entities, target)
        if entity is None or actor == target or not (entity.hidden or entity.has("hidden")):
            return True
        return target in state.extra.get("detected", {}).get(actor, [])

    def check_detected(self, state: EncounterState, actor: Creature, target: Creature) -> None:
        if not self.detected(state, actor.id, target.id):
            raise IllegalCommand(f"{target.id} is not detected by {actor.id} and cannot be "
                                 "targeted (search for it first)", rule="P-REQ-1")

    def first_blocked(self, state: EncounterState, here: Square, there: Square,
                      blockers: tuple[str, ...]) -> Square | None:
        """The first square between ``here`` and ``there`` that terrain of a ``blockers``
        kind fills, or None when the line is clear."""
        hits = self.blocking(state, blockers).on_line(here, there)
        return hits[0] if hits else None

    def check_reachable(self, state: EncounterState, actor: Creature, target: Creature,
                        reach: int | None, command: Command | None = None) -> None:
        """P-REQ-5: detected, within reach (one square by default, or the weapon's range) and
        a path free of obstacles; P-REQ-7 packed items; P-REQ-8 items another creature holds;
        P-REQ-6 the GM may rule the path blocked (``path_blocked``)."""
        self.check_detected(state, actor, target)
        if self.reach_held(state, actor, target, command):
            return
        gap = self.range_between(state, actor, target, command)
        self.check_reach_gap(state, actor, target, reach, gap)

    def reach_held(self, state: EncounterState, actor: Creature, target: Creature,
                   command: Command | None) -> bool:
        """The checks of ``check_reachable`` after detection (P-REQ-6..8) that do not depend
        on the range: whether the actor itself carries the target or has it installed (then
        it is within reach, nothing more to check)."""
        if target.packed:
            raise IllegalCommand(f"{target.id} is packed away in a container: take it out "
                                 "first to make it reachable", rule="P-REQ-7")
        holder = target.carried_by
        if holder and holder != actor.id:
            allows = command is not None and self.bound(command).a.carrier_allows
            if not allows:
                raise IllegalCommand(f"{target.id} is carried by {holder}, who decides whether "
                                     "it is reachable (give carrier_allows: true)",
                                     rule="P-REQ-8")
        if command is not None and self.bound(command).a.path_blocked:
            raise IllegalCommand(f"the GM rules the path to {target.id} blocked",
                                 rule="P-REQ-6")
        return holder == actor.id or target.installed_in == actor.id

    def check_reach_gap(self, state: EncounterState, actor: Creature, target: Creature,
                        reach: int | None, gap: int | None) -> None:
        """The last checks of ``check_reachable`` (P-REQ-5), given the range ``gap`` that
        ``range_between`` measured: within ``reach`` and a free path. Apart so that an
        attack, which measures the range already, does not measure it twice."""
        limit = actor.reach if reach is None else reach
        if gap is not None and gap > limit:
            raise IllegalCommand(f"{target.id} is not reachable by {actor.id}: {gap} squares "
                                 f"away, reach {limit}", rule="P-REQ-5",
                                 remedy=("move", "move within reach"))
        self.check_path(state, actor, target)

    def check_path(self, state: EncounterState, actor: Creature, target: Creature) -> None:
        """P-REQ-5: no wall or window on the line between them on the grid."""
        if actor.sphere or target.sphere or not state.extra.get("terrain"):
            return  # no obstacle anywhere (``first_blocked`` finds none): nothing to look up
        here, there = self.square_of(state, actor.id), self.square_of(state, target.id)
        if here is not None and there is not None:
            hit = self.first_blocked(state, here, there, PATH_BLOCKERS)
            if hit is not None:
                raise IllegalCommand(f"{target.id} is not reachable by {actor.id}: the path is "
                                     f"obstructed at square {list(hit)}", rule="P-REQ-5",
                                     remedy=("move", "move around the obstacle"))

    def _wound_data(self, owner: str, creature: Creature, raw: dict[str, Any], wound_id: str,
                    received: int) -> dict[str, Any]:
        """Declared here, ruled in ``injuries.py``."""
        raise NotImplementedError

    def _new_wound(self, state: EncounterState, creature: Creature, raw: dict[str, Any],
                   why: str, index: int = 0) -> Event:
        """Declared here, ruled in ``injuries.py``."""
        raise NotImplementedError

    def _wound_effects(self, creature: Creature, wound: Wound, bleeding: int,
                       source: str | None) -> None:
        """Declared here, ruled in ``injuries.py``."""
        raise NotImplementedError

    @staticmethod
    def _reset_bleeding(creature: Creature, origin: str | None) -> None:
        """Declared here, ruled in ``injuries.py``."""
        raise NotImplementedError

    def _new_affliction(self, state: EncounterState, creature: Creature,
                        raw: dict[str, Any]) -> Event:
        """Declared here, ruled in ``injuries.py``."""
        raise NotImplementedError

    def _consequences(self, state: EncounterState, events: list[Event]) -> list[Event]:
        """Declared here, ruled in ``conditions.py``."""
        raise NotImplementedError

    def _consequences_of_damage(self, state: EncounterState, damaged: Event) -> list[Event]:
        """Declared here, ruled in ``conditions.py``."""
        raise NotImplementedError

    def _consequences_in(self, state: EncounterState, after: EncounterState,
                         hit: dict[str, Any] | None = None, *,
                         settled: bool = False) -> list[Event]:
        """Declared here, ruled in ``conditions.py``."""
        raise NotImplementedError

    def end_of_fight(self, after: EncounterState, downed: list[str],
                     so_far: list[Event]) -> list[Event]:
        """The fight's end once ``downed`` go down in ``after`` (``so_far``: the events that
        come before): ``turns.py`` (``TurnRules``) holds it."""
        raise NotImplementedError

    @staticmethod
    def _status_events(creature: Creature, steps: tuple[tuple[str, int, int | None], ...],
                       values: tuple[int, int, int, int], had: list[str]) -> list[Event]:
        """Declared here, ruled in ``conditions.py``."""
        raise NotImplementedError

    def stack_condition(self, existing: Condition | None, new: Condition) -> Condition:
        """Levels add for conditions whose catalogue entry says ``stack = "add"`` (daze);
        otherwise the higher level stays."""
        spec = condition_catalogue().get(new.name, UNLISTED)
        if existing is not None and spec.stack == "add":
            return Condition(new.name, existing.level + new.level, new.tags, new.source,
                             new.duration, {**existing.data, **new.data})
        return super().stack_condition(existing, new)
