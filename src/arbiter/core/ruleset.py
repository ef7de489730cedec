"""The Ruleset base: decide and evolve, the commands every ruleset shares, and hooks.

A ruleset subclasses :class:`Ruleset`. A command ``attack`` is handled by a method
``do_attack(state, command, dice) -> list[Event]`` (pure: reads the state, rolls only from
``dice``); an event ``attacked`` is applied by ``apply_attacked(state, data)``, the only code
that changes state. Rulesets are found through the ``arbiter.rulesets`` entry-point group.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from mypy_extensions import mypyc_attr

from ..dice import DiceError, DiceSource, roll
from ..dice.sources import ProbeDice
from ..limits import IMAGE_SIDE, MAP_SQUARES, PAINT_SQUARES, VISION_SQUARES
from . import catalogue as args
from . import kernel_payloads
from .binding import parse_args
from .catalogue import (
    CommandSpec,
    EventSpec,
    InvalidArgument,
    catalogue_of,
    command,
    event,
    events_of,
)
from .conditions import load_conditions
from .content import read_content
from .copying import (
    IN_PLACE_EVENTS,
    CowEntities,
    TouchingEntities,
    apply_to_scratch,
    own_fully,
    scratch_copy,
    touching,
)
from .deferred import DataMap, Deferred
from .economy import ActionEconomy
from .errors import IllegalCommand, InvalidCommand, NoOdds, RulesError, SchemaError
from .events import Command, Event
from .invariants import Invariant, invariant, invariants_of
from .model import Condition, Duration, EncounterState, Entity, TurnPoint, entity_at, name_problem
from .options import Option, legal_options
from .outcomes import STANDING, generic_status
from .paths import get_path, set_path
from .rulings import RulingSet

SCENE: dict[str, Any] = {"image": "", "width": 0, "height": 0, "square": 64, "offset_x": 0,
                         "offset_y": 0}
"""An encounter's scene before its game master sets one (``scene``): no image, 64 pixels
a square."""
HASH = re.compile(r"[0-9a-f]{64}")


def chunks(squares: list[Any], size: int = PAINT_SQUARES) -> list[list[Any]]:
    """``squares`` in lists of at most ``size`` (what one command may paint)."""
    return [list(squares[n:n + size]) for n in range(0, len(squares), size)]


def staged_of(state: EncounterState) -> list[str]:
    """The creatures staged (``stage``): on the map, out of the turn order."""
    staged: list[str] = state.extra.get("staged", [])
    return staged


def fog_of(state: EncounterState) -> dict[str, Any]:
    """The encounter's fog of war (``fog``): whether it is on, and the squares and zones
    revealed to the players."""
    fog = state.extra.get("fog")
    return fog if fog else {"enabled": False, "squares": [], "zones": [], "rev": 0}


_REVEALED: dict[int, tuple[list[Any], frozenset[tuple[int, int]]]] = {}


def revealed_squares(fog: Mapping[str, Any]) -> frozenset[tuple[int, int]]:
    """The fog's revealed squares as a set, made once per fog (each ``fog_set`` stores a new
    list; the cache keeps the list it was made from, so an id is never reused meanwhile)."""
    squares: list[Any] = fog["squares"]
    kept = _REVEALED.get(id(squares))
    if kept is not None and kept[0] is squares:
        return kept[1]
    if len(_REVEALED) >= 64:
        _REVEALED.clear()
    made = frozenset((int(x), int(y)) for x, y in squares)
    _REVEALED[id(squares)] = (squares, made)
    return made


def in_fog(state: EncounterState, entity: Entity) -> bool:
    """Whether ``entity`` stands in fog: the fog is on and its square (a grid's position)
    or zone is not revealed. A creature off the map is never in fog."""
    fog = state.extra.get("fog")
    return fog is not None and fog_hides(fog, entity)


def fog_hides(fog: Mapping[str, Any], entity: Entity) -> bool:
    """Whether ``fog`` (the encounter's, or a player's with their characters' vision:
    :meth:`Ruleset.fog_seen_by`) hides ``entity``: the fog is on and its square or zone is
    not revealed."""
    if not fog.get("enabled"):
        return False
    position = getattr(entity, "position", None)
    if isinstance(position, list | tuple) and len(position) == 2:
        return (position[0], position[1]) not in revealed_squares(fog)
    zone = getattr(entity, "zone", None)
    if isinstance(zone, str):
        return zone not in fog["zones"]
    return False

if TYPE_CHECKING:
    from ..coverage import Inventory

Handler = Callable[[EncounterState, Command, DiceSource], list[Event]]
Applier = Callable[[EncounterState, dict[str, Any]], None]

ENTITY_KEYS = {"name", "kind", "side", "owner", "tags", "stats", "hidden", "conditions"}
BATCH_LIMIT = 100
"""Commands in one ``batch``."""
DOER_KEYS = ("actor", "source", "by", "attacker")
"""The keys by which an event names the creature that caused it."""
RENAMED_EVENTS: dict[str, tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]] = {
    "encounter_won": ("side_won", lambda data: {"winner": data.get("winner", data.get("side"))}),
}
"""Event types that logs written before hold, read as today's type with today's payload
(zones' ``encounter_won {"winner"}`` and Polemos' ``encounter_won {"side"}`` are the
kernel's ``side_won``): never emitted, kept so a stored log replays to the same state."""


def _converted(apply: Applier, convert: Callable[[dict[str, Any]], dict[str, Any]]) -> Applier:
    """The applier of an old log's event type: its payload converted, then applied as
    today's type (a module function: mypyc compiles no closure in a method of a class
    that is not native)."""

    def fn(state: EncounterState, data: dict[str, Any]) -> None:
        apply(state, convert(data))

    return fn


def _expiring_of(entity: Entity, who: str, round_: int, point: TurnPoint,
                 out: list[Event]) -> None:
    """``Ruleset._expiring`` for one entity: its timed conditions that end now, onto ``out``."""
    for cond in entity.conditions:
        duration = cond.duration
        if duration.kind == "timed" and duration.expires_at(round_, who, point):
            out.append(Event("condition_removed", {"target": entity.id, "name": cond.name,
                                                   "why": "expired"}))


class Owned:
    """What :meth:`Ruleset.advance` owns while a command's handler runs: the state, and the
    events :meth:`Ruleset.past` applied to it in place so far (the first of the handler's
    result, in order)."""

    def __init__(self, state: EncounterState) -> None:
        self.state = state
        self.applied: list[Event] = []
        self.plain: Any = None
        """The state's own entities while :meth:`track` notes what is touched, else None."""

    def add(self, rules: Ruleset, events: list[Event]) -> EncounterState:
        """``events``, which follow those applied so far, applied in place."""
        self.applied += events
        state = self.state
        if self.plain is None:
            rules._applied(state, events, 0)
            return state
        entities = state.entities
        entities.__class__ = TouchingEntities
        try:
            rules._applied(state, events, 0)
        finally:
            entities.__class__ = CowEntities
        return state

    def track(self) -> None:
        """Note the entities the events applied from now on touch, for ``copying.touched``
        of the state and of any lookahead from it, as a chain of lookaheads would."""
        state = self.state
        if self.plain is None and type(state.entities) is dict:
            self.plain = state.entities
            state.entities = touching(self.plain)

    def untrack(self) -> None:
        """The state's entities a plain dict again (with what the events changed)."""
        if self.plain is not None:
            state = self.state
            state.entities = dict(state.entities)
            self.plain = None

    def onward(self, rules: Ruleset, events: list[Event]) -> EncounterState:
        """The state after ``events``, which begin with those applied so far."""
        applied = self.applied
        done = len(applied)
        if not _begins(events, applied):
            raise RuntimeError("Ruleset.past: the events looked past do not begin with those "
                               "looked past before")
        return self.add(rules, events[done:]) if len(events) > done else self.state


def _lend(table: dict[int, Owned], owned: Owned) -> Owned | None:
    """Register ``owned`` in ``table`` by its state's ``id``, for as long as a handler (or
    a turn start) runs; what was there before, to give back (:func:`_give_back`)."""
    key = id(owned.state)
    outer = table.get(key)
    table[key] = owned
    return outer


def _give_back(table: dict[int, Owned], owned: Owned, outer: Owned | None) -> None:
    """Undo :func:`_lend`: the entry that was there before, or none."""
    key = id(owned.state)
    if outer is not None:
        table[key] = outer
    else:
        del table[key]


def _begins(events: list[Event], first: list[Event]) -> bool:
    """Whether ``events`` begin with the very events ``first``, in order."""
    if len(events) < len(first):
        return False
    for index, given in enumerate(first):  # noqa: SIM110 - a loop, compiled: no generator
        if events[index] is not given:
            return False
    return True


@mypyc_attr(allow_interpreted_subclasses=True)
class Ruleset:
    """Base class of every rule system."""

    name: ClassVar[str] = ""
    reads_touched: ClassVar[bool] = False
    """Its rules read ``copying.touched`` of the state a turn starts on (Polemos' settled
    consequences): under :meth:`advance`, ``next`` notes the entities the events it applies
    in place touch, as the lookahead ``decide`` takes would (a copy of the entity map and
    a note per entity touched, a turn; without it they would look at every creature)."""
    starts_in_place: ClassVar[bool] = False
    """Its ``turn_start_events`` looks past its own events with an ``Ahead`` made
    ``in_place`` (Polemos): under :meth:`advance`, ``next`` lends it the state it owns
    (:meth:`started_past`; a record a turn, which the others do without)."""
    title: ClassVar[str] = ""
    seed: ClassVar[str] = ""
    entity_type: ClassVar[type[Entity]] = Entity
    economy: ClassVar[ActionEconomy] = ActionEconomy()
    initiative_dice: ClassVar[str] = "1d20"
    private_events: ClassVar[frozenset[str]] = frozenset()
    """Event types that read out a creature's own numbers (realms' ``checked``): a player
    sees their data only for their own side (the player view keeps the ``target``)."""
    gm_only_events: ClassVar[frozenset[str]] = frozenset({"reveal_on_turn_set"})
    """Event types of the game master's own bookkeeping, which nothing at the table shows:
    the player view leaves them out (an entry of nothing else is left out of a player's
    log), so a setting only an encounter with a hidden creature needs tells nothing."""
    public_extra: ClassVar[frozenset[str]] = frozenset()
    """The keys of ``state.extra`` every player sees on the map (terrain, walls, zones...;
    server/views.py); the others are the game master's."""
    concealing: ClassVar[frozenset[str]] = frozenset()
    """Condition names that hide a creature from the players of its enemies until one of
    their characters detects it (see :meth:`detected`). The kernel names none: it hides
    only what the GM marks ``hidden``; each ruleset lists its own conditions."""

    remedies: ClassVar[Mapping[str, tuple[str | None, str]]] = {}
    """What makes a refusal legal, by the inventory id the refusal cites, when the refusal
    does not say so itself (``IllegalCommand(remedy=...)``): the command and a phrase
    (``{"P-RNG-2": ("move", "move closer")}``), for the legal options of a turn
    (:mod:`arbiter.core.options`)."""
    unseen_doer_events: ClassVar[frozenset[str]] = frozenset({"condition_added"})
    """Event types that are an effect on their ``target``: a player who sees the target but
    not the creature that caused it reads it without that creature (:meth:`public_event`)."""
    doer_gains: ClassVar[frozenset[str]] = frozenset()
    """Keys of those events that say what the concealed doer earned (Polemos' critical
    damage points): left out with it."""
    unoffered: ClassVar[frozenset[str]] = frozenset()
    """Commands with an actor that the legal options never list (a ruleset's bookkeeping)."""
    dice_names: ClassVar[Mapping[int, str]] = {}
    """What a die of so many faces is for when no event shows its roll (Polemos' d12: the
    hit location): the dice plan's name for it (``core/dice_plan.py``)."""
    card_fields: ClassVar[tuple[str, ...]] = ()
    """The stat-block fields a creature's card in the browser shows at first look, in this
    order, when the creature has them (a key of its ``stats`` too); the others fold under
    "all fields" (docs/web.md, "Cards")."""
    card_quiet: ClassVar[frozenset[str]] = frozenset()
    """Those of :attr:`card_fields` a card shows only when they are not zero."""
    area_weapons: ClassVar[Mapping[str, str]] = {}
    """A weapon's stat-block keys that make it an area weapon, each with what the area is
    aimed at: ``creature`` or ``zone`` (the map's area template; the command aiming it is
    the ruleset's ``role="area"`` one taking a ``target`` or a ``zone``)."""

    @classmethod
    def display(cls) -> dict[str, Any]:
        """What the browser reads of the ruleset besides its commands (``GET /api/rulesets``
        and an encounter's ``GET .../commands``): its cards' fields and its area weapons."""
        return {"card": list(cls.card_fields), "quiet": sorted(cls.card_quiet),
                "area_weapons": dict(cls.area_weapons)}

    def __init__(self) -> None:
        module = inspect.getmodule(type(self))
        path = Path(module.__file__).parent / "rulings.toml" if module and module.__file__ else None
        self.rulings = RulingSet.load(path) if path and path.exists() else RulingSet([])
        self.package_dir = path.parent if path else None
        self._apply_table: dict[str, Applier] = {}
        self._do_table: dict[str, Handler] = {}  # each command's do_* method, bound once
        self._structs: dict[str, type] = {}
        """Each command's argument type (``CommandSpec._struct``) once one is bound: read
        from an interpreted ``CommandSpec`` by name, it was a lookup by name a command."""
        self._owned: dict[int, Owned] = {}
        """The states :meth:`advance` owns while a command's handler runs, by their ``id``
        (a state is one run's or one caller's: a thread has its own; None inside a
        ``decide`` of it, which is pure)."""
        self._starting: dict[int, Owned] = {}
        """The states :meth:`advance` owns while ``next`` asks ``turn_start_events`` of them,
        by their ``id``: what :meth:`started_past` applies in place (``Ahead(in_place=True)``
        in a ruleset's turn start)."""
        self._looking: frozenset[str] | None = None
        """The commands whose handlers :meth:`advance` lets :meth:`past` apply events in place
        (:meth:`_looking_past`), found on first use."""
        self._lazy: dict[str, Any] = {}  # what a property reads once from the package's files
        self._carried_rules: tuple[tuple[str, Callable[[EncounterState, Any], None]], ...] = \
            tuple((field, getattr(self, f"carry_{field}")) for field in self.carried)

    @property
    def templates(self) -> dict[str, dict[str, Any]]:
        """Creature templates by name, from the package's ``templates.yaml`` (id: stat block)."""
        cached: dict[str, dict[str, Any]] | None = self._lazy.get("_templates")
        if cached is None:
            cached = {}
            file = self.package_dir / "templates.yaml" if self.package_dir else None
            if file is not None and file.exists():
                loaded = read_content(file)
                cached = {str(k): dict(v) for k, v in loaded.items()}
            self._lazy["_templates"] = cached
        return cached

    @property
    def inventory(self) -> Inventory:
        """The package's rule inventory (``inventory.toml``): each rule id with its kind
        (MECH, HOOK, NARR), the ambiguity ids settled by rulings, and each id's one-line
        statement; empty without one. ``arbiter rulings RULESET --coverage`` reads it."""
        from ..coverage import PACKAGE_INVENTORY, Inventory, read_package_inventory

        cached: Inventory | None = self._lazy.get("_inventory")
        if cached is None:
            file = self.package_dir / PACKAGE_INVENTORY if self.package_dir else None
            cached = read_package_inventory(file) if file and file.exists() else Inventory()
            self._lazy["_inventory"] = cached
        return cached

    @property
    def demo(self) -> tuple[str, list[tuple[str, dict[str, Any]]]] | None:
        """The package's demo encounter (``demo.yaml``): its title and each actor's id and
        stat block in the order added, the first being the player's; None without one.
        ``arbiter serve`` sets it up on a fresh database (:mod:`arbiter.web.demo`)."""
        file = self.package_dir / "demo.yaml" if self.package_dir else None
        if file is None or not file.exists():
            return None
        data = read_content(file)
        actors = [(str(a["id"]), {k: v for k, v in a.items() if k != "id"})
                  for a in data.get("actors", [])]
        return str(data["title"]), actors

    @property
    def condition_texts(self) -> dict[str, str]:
        """Each condition of the package's ``conditions.toml`` (the one schema,
        ``core/conditions.py``) with its one-line text (the console's condition picker)."""
        cached: dict[str, str] | None = self._lazy.get("_condition_texts")
        if cached is None:
            cached = {}
            file = self.package_dir / "conditions.toml" if self.package_dir else None
            if file is not None and file.exists():
                cached = {name: spec.text
                          for name, spec in load_conditions(file).condition.items()}
            self._lazy["_condition_texts"] = cached
        return cached

    def expand_template(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        """A stat block with its ``template`` (if any) filled in; given keys win."""
        spec = dict(spec)
        name = spec.pop("template", None)
        if name is None:
            return spec
        if name not in self.templates:
            known = ", ".join(sorted(self.templates)) or "none"
            raise InvalidCommand(f"{self.name} has no template {name!r} (templates: {known})")
        merged = dict(self.templates[name])
        for key, value in spec.items():
            if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
        return merged

    # -- the two pure functions --------------------------------------------------------
    _catalogue: dict[str, CommandSpec] | None = None

    @property
    def catalogue(self) -> dict[str, CommandSpec]:
        """Every command this ruleset takes, by name, as declared beside its handler
        (``core/catalogue.py``): built once per class, and kept here (every command asks)."""
        found = self._catalogue
        if found is None:
            found = self._catalogue = catalogue_of(type(self))
        return found

    def commands(self) -> dict[str, str]:
        """Every command name with its one-line summary."""
        return {name: spec.summary for name, spec in self.catalogue.items()}

    @property
    def events(self) -> dict[str, EventSpec]:
        """Every event type this ruleset applies, by name, as declared beside its
        ``apply_*`` method."""
        return events_of(type(self))

    def describe(self, event_type: str, data: dict[str, Any], names: Mapping[str, str],
                 gm: bool = True) -> str:
        """An event as a sentence for the game master, or for a player (``gm`` false, with
        ``data`` as the player view shows it)."""
        spec = self.events.get(event_type)
        if spec is None and event_type in RENAMED_EVENTS:  # an old log's event
            renamed, convert = RENAMED_EVENTS[event_type]
            spec, data = self.events.get(renamed), convert(data)
        if spec is None:
            return event_type.replace("_", " ")
        return spec.text(data, names, gm)

    def ruling(self, state: EncounterState, ruling_id: str) -> str:
        """The value of a ruling in this encounter (its default lives in ``rulings.toml``
        only): the one way a rule reads one (``ruling_is`` to compare with a choice). An
        encounter's ``rulings`` hold every ruling once it is created, so they are read
        first (a Polemos fight reads about 1,800: one dict read each, not three calls)."""
        found = state.rulings.get(ruling_id)
        return found if found is not None else self.rulings.value(state.rulings, ruling_id)

    def ruling_is(self, state: EncounterState, ruling_id: str, choice: str) -> bool:
        """Whether a ruling is ``choice`` here; RulingError for a choice it does not list."""
        return self.rulings.chosen(state.rulings, ruling_id, choice)

    def spec(self, name: str) -> CommandSpec:
        """The declaration of a command, or InvalidArgument naming the commands there are."""
        found = self.catalogue.get(name)
        if found is None:
            raise InvalidArgument(f"{self.name} has no command {name!r} "
                                  f"(commands: {', '.join(self.catalogue)})", "command.do")
        return found

    def validate(self, command: Command) -> None:
        """Raise :class:`InvalidArgument` when ``command`` breaks its declaration."""
        self.bound(command)

    def bound(self, command: Command) -> Command:
        """``command`` with its typed arguments (``command.a``) set from its declaration:
        validated and defaulted, or :class:`InvalidArgument` naming what is wrong. Every
        way into the rules (``decide``, ``check``, ``odds``) binds first, so a handler
        reads ``command.a.target``, never the raw ``args``; a command a handler makes
        itself is bound the same way. The arguments are a cache of ``args``: setting them
        changes nothing a command means, and a command bound by another declaration (the
        same ``Command`` object given to two rulesets) is bound again by this one."""
        given = command.a
        if given is not None and type(given) is self._structs.get(command.name):
            return command  # bound by this declaration already (a command the tactics keep)
        spec = self.catalogue.get(command.name)
        if spec is None:
            spec = self.spec(command.name)
        # ``_struct``, not the property: a struct ``given`` is of exists already, and the
        # property is interpreted code in the compiled build (a Python frame per command)
        if given is None or type(given) is not spec._struct:
            command.a = parse_args(spec, command)
            self._structs[command.name] = type(command.a)
        return command

    def decide(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """The events a command causes, or a RulesError saying why it cannot happen. The
        command is first checked against its declaration (:meth:`bound`)."""
        handler = self._handler(state, command)
        table, starting = self._owned, self._starting
        held = table.pop(id(state), None) if table else None
        begun = starting.pop(id(state), None) if starting else None
        try:  # decided inside an advanced command (``held``, ``begun``): its lookaheads copy
            return handler(state, command, dice)  # all the same
        except DiceError as err:
            raise InvalidCommand(str(err)) from None
        finally:
            if held is not None:
                table[id(state)] = held
            if begun is not None:
                starting[id(state)] = begun

    def _handler(self, state: EncounterState, command: Command) -> Handler:
        """What ``decide`` asks before the command's handler: ``command`` bound to its
        declaration, an encounter created; and the handler, bound once (the catalogue's
        names only: :meth:`bound` checked the name)."""
        self.bound(command)
        if command.name != "create" and not state.ruleset:
            raise IllegalCommand("the encounter has not been created yet")
        handler = self._do_table.get(command.name)
        if handler is None:
            handler = self._do_table[command.name] = getattr(self, f"do_{command.name}")
        return handler

    def advance(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """``decide`` and then ``evolve`` each of its events on ``state``, for a caller that
        owns ``state`` and keeps only what it becomes (the simulator): the same events and
        the same state as the two steps. (A lookahead's scratch state, which shares its
        entities, is decided whole and its events applied copy-on-write.)

        While the command's handler runs, :meth:`past` applies the events it looks past
        to ``state`` in place, where ``decide`` applies them to a lookahead's copy and the
        caller applies them again: ``next`` does, for the events that end a turn and begin
        the next (one state copy a turn fewer), and so does a handler that calls ``past``.
        A refusal before any such event leaves ``state`` as it was (every check a handler
        makes before it rolls); an error after one (a ruleset's ``turn_start_events`` that
        raises) leaves ``state`` part-way. A ruleset with its own ``lookahead`` is decided
        whole, as ``decide`` does, and so is its own ``do_next``."""
        if type(state.entities) is not dict:  # a lookahead's scratch: its entities shared
            events = self.decide(state, command, dice)
            apply_to_scratch(self.evolve, state, events)
            return events
        handler = self._handler(state, command)
        looking = self._looking
        if looking is None:
            looking = self._looking = self._looking_past()
        owned = Owned(state) if command.name in looking else None
        # ``next`` (the kernel's: ``_looking_past``) is given what it owns and builds its
        # result on what it applied; its hooks look past with lookaheads. Any other handler
        # that looks past finds its state registered, by ``id``, while it runs.
        kernel_next = owned is not None and command.name == "next"
        registered = owned is not None and not kernel_next
        outer = _lend(self._owned, owned) if registered and owned is not None else None
        try:
            events = self._next(state, command, dice, owned) if kernel_next \
                else handler(state, command, dice)
        except DiceError as err:
            raise InvalidCommand(str(err)) from None
        finally:
            if owned is not None:
                owned.untrack()
                if registered:
                    _give_back(self._owned, owned, outer)
        if owned is None:  # decided whole, then applied
            return self._applied(state, events, 0)
        applied = owned.applied
        if registered and applied and not _begins(events, applied):
            raise RuntimeError(f"{command.name}: its events do not begin with those it looked "
                               f"past in place (Ruleset.past): the state is part-way")
        return self._applied(state, events, len(applied))

    def _applied(self, state: EncounterState, events: list[Event], done: int) -> list[Event]:
        """``events``, with those after the first ``done`` applied to ``state`` in place: a
        state its caller owns (``advance``), which may share with another what ``evolve``
        promises not to change in place (a simulator's run copy, ``copying.run_copy``):
        owned fully first before an event that does (``IN_PLACE_EVENTS``)."""
        for index in range(done, len(events)):
            happened = events[index]
            if happened.type in IN_PLACE_EVENTS:  # what a run's copy shares with its set-up
                own_fully(state)
            self.evolve(state, happened)
        return events

    def _looking_past(self) -> frozenset[str]:
        """The commands declared ``looks_past`` (their handlers call :meth:`past`), when the
        ruleset looks ahead with the kernel's ``lookahead`` (a ruleset's own is asked as
        ``decide`` asks it: none). ``next`` only with the kernel's ``do_next``: a ruleset's
        own did not choose to (its events need not begin with the kernel's)."""
        kind = type(self)
        if kind.lookahead is not Ruleset.lookahead:
            return frozenset()
        return frozenset(name for name, spec in self.catalogue.items() if spec.looks_past
                         and (name != "next" or kind.do_next is Ruleset.do_next))

    def past(self, state: EncounterState, events: list[Event]) -> EncounterState:
        """The state after ``events``, for a handler whose result begins with them, in
        order, and which reads ``state`` no more after this call (it reads the state this
        returns): :meth:`lookahead`; or, while :meth:`advance` owns ``state``, ``state``
        itself with them applied in place (those a call before applied once: a later
        call's ``events`` begin with an earlier one's). ``advance`` checks that the result
        begins with them."""
        table = self._owned
        owned = table.get(id(state)) if table else None
        if owned is None:
            return self.lookahead(state, events)
        if self.reads_touched:  # as ``next`` does: ``copying.touched`` names what they touch
            owned.track()
        return owned.onward(self, events)

    def started_past(self, state: EncounterState,
                     events: list[Event]) -> EncounterState | None:
        """While :meth:`advance` runs ``next`` and asks ``turn_start_events`` of ``state``:
        ``state`` itself with ``events`` applied in place, for a turn start whose result
        begins with them (those a call before applied once: a later call's ``events``
        begin with an earlier one's), and which reads ``state`` after this only as the
        state they lead to; else None (look ahead). :class:`~arbiter.core.ahead.Ahead`
        asks it when made ``in_place`` (Polemos' turn start)."""
        table = self._starting
        owned = table.get(id(state)) if table else None
        if owned is None or owned.state is not state:
            return None
        return owned.onward(self, events)

    def owns(self, state: EncounterState) -> bool:
        """Whether :meth:`advance` owns ``state`` while a handler declared ``looks_past``
        runs: :meth:`past` applies to it in place, where otherwise it looks ahead on a copy.
        (A handler that would look ahead past fewer events than its result begins with,
        those its rule reads, looks past all of them when it does: they are applied
        anyway.)"""
        table = self._owned
        return bool(table) and id(state) in table

    def evolve(self, state: EncounterState, event: Event) -> EncounterState:
        """Apply one event. The only way state changes; replay gives the same state."""
        try:
            fn = self._apply_table[event.type]
        except KeyError:
            fn = self._applier(event.type)
        data = event.data
        fn(state, data)
        if "economy" in data:  # the kernel's carried field (catalogue.CARRIED), inline
            self.carry_economy(state, data)
        for field, rule in self._carried_rules:
            if field in data:
                rule(state, data)
        state.version += 1
        return state

    carried: ClassVar[tuple[str, ...]] = ()
    """A ruleset's own fields an event may carry beside its declared ones, each applied
    after the event's ``apply_*`` by one rule, the method ``carry_FIELD(state, data)``
    (Polemos' ``counts``). The kernel's ``economy`` (``catalogue.CARRIED``) is applied the
    same way, by ``carry_economy``, checked first on every event."""

    def carry_economy(self, state: EncounterState, data: Mapping[str, Any]) -> None:
        """What is left of the actor's turn after an event that carries ``economy``."""
        if "actor" in data:
            self.apply_economy_of(state, data["actor"], data["economy"])

    def _applier(self, event_type: str) -> Applier:
        """The ``apply_*`` method of an event type, bound once (evolve runs for every
        event) into ``_apply_table``."""
        fn: Applier | None = getattr(self, f"apply_{event_type}", None)
        if fn is None and event_type in RENAMED_EVENTS:  # an old log's event
            renamed, convert = RENAMED_EVENTS[event_type]
            fn = _converted(self._applier(renamed), convert)
        if fn is None:
            raise SchemaError(f"{self.name} does not know the event type {event_type!r}")
        self._apply_table[event_type] = fn
        return fn

    def apply_economy_of(self, state: EncounterState, who: str, economy: Any) -> None:
        """An event that carries ``actor`` and ``economy``: what is left of the actor's turn
        after it. A ruleset may also keep it elsewhere (on the creature, say)."""
        state.economy[who] = economy

    def check(self, state: EncounterState, command: Command) -> None:
        """Raise the RulesError ``decide`` would raise for ``command``, else nothing: a
        question, not a move (for a policy or a person asking before acting). By default
        ``decide`` with throw-away dice; a ruleset may override it to stop before rolling
        (it must give the same answer: Polemos and zones test theirs against ``decide``),
        binding the command first as ``decide`` does."""
        self.decide(state, command, ProbeDice())

    def options(self, state: EncounterState, actor: str, **given: Any) -> list[Option]:
        """The legal options of ``actor``'s turn now (:func:`~.options.legal_options`):
        each command with its targets and, for each refused one, the rule's reason."""
        return legal_options(self, state, actor, **given)

    # -- what became of a creature ------------------------------------------------------
    def status(self, state: EncounterState, entity: Entity) -> str:
        """What became of ``entity``: ``standing``, ``down`` (out of the fight), ``dying``
        or ``dead`` (``core/outcomes.py``). The simulator's tally and end of a fight, its
        tactics and the console's labels all read it here. By default the common names
        (:func:`~arbiter.core.outcomes.generic_status`); a ruleset answers by its rules."""
        return generic_status(entity)

    def is_down(self, state: EncounterState, entity: Entity) -> bool:
        """Out of the fight (any status but standing). Asked after every simulated command:
        a ruleset may answer faster than :meth:`status`, never differently."""
        return self.status(state, entity) != STANDING

    def is_dead(self, state: EncounterState, entity: Entity) -> bool:
        return self.status(state, entity) == "dead"

    def distance(self, state: EncounterState, actor: Entity, other: Entity) -> int | None:
        """Squares between two entities on the map (``None`` when one is not on it): by
        default the larger of the two axes' differences between their ``position``; a
        ruleset whose creatures fill several squares says otherwise."""
        a, b = getattr(actor, "position", None), getattr(other, "position", None)
        if not a or not b:
            return None
        return int(max(abs(a[0] - b[0]), abs(a[1] - b[1])))

    def preview(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """The exact odds of ``command`` before it is rolled, on the one path every caller
        takes (the server, scenarios, the CLI): its declaration (:meth:`bound`), then
        :meth:`check` (a command the rules would refuse now answers with the refusal, not
        with odds), then the ruleset's :meth:`odds`."""
        self.bound(command)
        self.check(state, command)
        return self.odds(state, command)

    def lookahead(self, state: EncounterState, events: list[Event]) -> EncounterState:
        """A copy of ``state`` with ``events`` applied, for deciding what follows them.

        The result is for reading only: it is a copy-on-write scratch state that shares the
        entities ``evolve`` did not touch with ``state`` (and, with no events, ``state``
        itself). Give it to ``lookahead`` again to apply more events."""
        if not events:
            return state
        return apply_to_scratch(self.evolve, scratch_copy(state), events)

    # -- helpers for handlers ------------------------------------------------------------
    def actor(self, state: EncounterState, command: Command) -> Entity:
        if command.actor is None:
            raise InvalidCommand(f"{command.name}: which creature acts? give 'actor'")
        return state.entity(command.actor)

    def spend(self, state: EncounterState, who: str, kind: str) -> dict[str, Any]:
        """The economy of ``who`` after spending ``kind``; refuses when it is not theirs."""
        if state.in_combat and kind != "free" and state.current != who:
            raise IllegalCommand(f"it is {state.current}'s turn, not {who}'s",
                                 remedy=(None, "wait for its turn"))
        rules = self.economy
        economy = state.economy.get(who)
        if economy is None:  # a fresh one made only when none is kept (not as a default)
            economy = rules.fresh(state, who)
        return rules.spend(state, who, kind, economy)

    # -- hooks a ruleset overrides ------------------------------------------------------
    def make_entity(self, entity_id: str, spec: Mapping[str, Any]) -> Entity:
        """Build an entity from a stat block (a scenario's or a template's mapping)."""
        unknown = set(spec) - ENTITY_KEYS
        if unknown:
            raise InvalidCommand(
                f"{entity_id}: unknown stat-block key(s) {', '.join(sorted(unknown))} "
                f"(known: {', '.join(sorted(ENTITY_KEYS))})"
            )
        return self.entity_type(
            id=entity_id,
            name=str(spec.get("name", entity_id)),
            kind=str(spec.get("kind", "creature")),
            side=spec.get("side"),
            owner=spec.get("owner"),
            tags=set(spec.get("tags", ())),
            stats={str(k): int(v) for k, v in dict(spec.get("stats", {})).items()},
            conditions=[Condition.from_json(c) for c in spec.get("conditions", [])],
            hidden=bool(spec.get("hidden", False)),
        )

    def roll_initiative(
        self, state: EncounterState, entity: Entity, dice: DiceSource
    ) -> tuple[int, DataMap]:
        result = roll(f"{self.initiative_dice}+{entity.stat('initiative')}", dice)
        return result.total, Deferred(result.to_json)

    def turn_start_events(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        return []

    def turn_end_events(self, state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        return []

    def stack_condition(self, existing: Condition | None, new: Condition) -> Condition:
        """How a condition combines with one of the same name: the higher level stays."""
        if existing is None or new.level >= existing.level:
            return new
        return existing

    def detected(self, state: EncounterState, actor: str, target: str) -> bool:
        """Whether ``actor`` knows where ``target`` is (the player view shows a concealed
        creature to a player one of whose characters has detected it). By default: yes,
        unless the GM marked ``target`` hidden or it has a concealing condition
        (:attr:`concealing`) whose data does not list ``actor`` in ``detected_by``. A
        ruleset with detection rules of its own overrides it (Polemos: its searches)."""
        entity = entity_at(state.entities, target)
        if entity is None or actor == target:
            return True
        if entity.hidden:
            return False
        for cond in entity.conditions:
            if cond.name in self.concealing:
                found = cond.data.get("detected_by", ())
                if not isinstance(found, list | tuple) or actor not in map(str, found):
                    return False
        return True

    def visible_to(self, state: EncounterState, entity: Entity,
                   characters: frozenset[str]) -> bool | None:
        """Whether the player of ``characters`` (their creatures in the encounter) sees
        ``entity`` at all, or None to leave it to the kernel's rule (the default): their own
        creatures are seen; another is concealed when the GM marked it ``hidden``, or when
        it has a :attr:`concealing` condition and is not on their side, unless one of
        ``characters`` has :meth:`detected` it. A ruleset whose sight rules are not those of
        conditions answers here, True or False, for every creature (``server/views.py``
        asks it for each one, for every player view)."""
        return None

    def public_event(self, event_type: str, data: dict[str, Any],
                     concealed: frozenset[str]) -> dict[str, Any]:
        """An event's data as a player sees it when ``concealed`` creatures are hidden from
        them, before the player view takes out what names them. An effect on a creature
        the player sees (``unseen_doer_events``: damage taken, a condition given) reads
        without the concealed creature that caused it (its keys ``DOER_KEYS`` and what
        they earned, ``doer_gains``), so a hidden attacker's hit shows as the hit: the
        player sees their character hurt, not who did it. Otherwise unchanged; a ruleset
        whose rules say what a character learns from an action on something it cannot
        see rewrites more here (zones: a blind attack, Z-BLI-6)."""
        if event_type not in self.unseen_doer_events or data.get("target") in concealed:
            return data
        doers = [k for k in DOER_KEYS if data.get(k) in concealed]
        cond = data.get("condition")
        hidden_source = isinstance(cond, dict) and cond.get("source") in concealed
        if not doers and not hidden_source:
            return data
        out = {k: v for k, v in data.items()
               if k not in doers and not (doers and k in self.doer_gains)}
        if hidden_source and isinstance(cond, dict):
            out["condition"] = {k: v for k, v in cond.items() if k != "source"}
        return out

    def lasting(self, state: EncounterState, entity: Entity) -> dict[str, Any]:
        """What of ``entity`` outlasts the encounter, as stat-block keys: a campaign's roster
        keeps them for the character (``write_back``) and lays them over its stat block
        when it joins the next encounter (``core/roster.py``). The values are new plain
        JSON, never the state's own. By default nothing lasts; a ruleset says what does
        (Health, wounds, ammunition...), each documented in its ``docs/rulesets`` page."""
        return {}

    time_activities: ClassVar[tuple[str, ...]] = ("rest", "none")
    """What a campaign's characters may do while its time passes between encounters (the
    first is the default): each ruleset says what its activities do in
    :meth:`time_commands` (``none``: time passes without rest)."""

    def time_commands(self, state: EncounterState, who: str, amount: int, unit: str,
                      activity: str) -> list[Command]:
        """The ruleset's own commands that let ``amount`` ``unit`` (minutes, hours or days)
        pass outside encounters for the creature ``who``, alone in the encounter ``state``,
        doing ``activity`` (one of :attr:`time_activities`). By default none: time changes
        nothing. A ruleset says what its seed has happen over time (healing, recovery
        rolls, conditions running out), each documented in its ``docs/rulesets`` page."""
        return []

    def pass_time(self, spec: Mapping[str, Any], who: str, amount: int, unit: str,
                  activity: str, dice: DiceSource,
                  rulings: Mapping[str, str] | None = None) -> tuple[dict[str, Any],
                                                                     list[Event]]:
        """What is left of a roster character after time passes outside encounters: its new
        :meth:`lasting` state and the events that led there.

        Pure and played through the ordinary path: a scratch encounter is created (with
        ``rulings``), the character joins it from ``spec`` (its stat block with its lasting
        state laid over, as it would join an encounter), and the commands of
        :meth:`time_commands` are decided (rolling from ``dice``) and applied."""
        if activity not in self.time_activities:
            raise InvalidArgument(f"{self.name}: the activity is one of "
                                  f"{', '.join(self.time_activities)}, not {activity!r}",
                                  "command.activity")
        state = EncounterState(ruleset="")
        for setup in (Command("create", args={"rulings": dict(rulings or {})}),
                      Command("add", args={**spec, "id": who})):
            for made in self.decide(state, setup, dice):
                self.evolve(state, made)
        events: list[Event] = []
        for step in self.time_commands(state, who, amount, unit, activity):
            for made in self.decide(state, step, dice):
                self.evolve(state, made)
                events.append(made)
        return self.lasting(state, state.entity(who)), events

    def odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Exact odds of each outcome of a command, before rolling it."""
        raise NoOdds(f"{self.name} computes no odds for {command.name!r}")

    # -- commands every ruleset shares ----------------------------------------------------
    @command("Create the encounter with rulings overrides.",
             rulings=args.mapping("ruling id to chosen value"),
             reveal_on_turn=args.flag("reveal a creature the GM hid when its turn starts "
                                      "(see reveal_on_turn)"))
    def do_create(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Create the encounter with its rulings (the defaults, overridden where given)."""
        if state.ruleset:
            raise IllegalCommand("the encounter already exists")
        overrides = command.a.rulings or {}
        chosen = self.rulings.resolve(overrides)
        data: dict[str, Any] = {"ruleset": self.name, "rulings": chosen}
        if command.a.reveal_on_turn:
            data["reveal_on_turn"] = True  # absent when off: the logs made before it stay
        return [Event("encounter_created", data)]

    @event("The encounter is created ({ruleset})[{reveal_on_turn?; a hidden creature is "
           "revealed when its turn starts|}].", player="The encounter is created ({ruleset}).",
           ruleset=args.text("the ruleset"), rulings=args.mapping("the rulings in force"),
           reveal_on_turn=args.flag("a hidden creature is revealed when its turn starts"),
                                                optional=("reveal_on_turn",))
    def apply_encounter_created(self, state: EncounterState,
                                data: kernel_payloads.EncounterCreated) -> None:
        state.ruleset = data["ruleset"]
        state.rulings = dict(data["rulings"])
        state.reveal_on_turn = bool(data.get("reveal_on_turn", False))

    @command("Whether a creature the GM hid is revealed when its turn starts, in this "
             "encounter.",
             enabled=args.Arg("flag", "true: reveal it then; false: it stays hidden until the "
                              "GM reveals it", True))
    def do_reveal_on_turn(self, state: EncounterState, command: Command,
                          dice: DiceSource) -> list[Event]:
        """Turn the reveal at a hidden creature's turn on or off."""
        enabled: bool = command.a.enabled
        if enabled == state.reveal_on_turn:
            raise IllegalCommand("a hidden creature is already revealed when its turn starts"
                                 if enabled else
                                 "a hidden creature already stays hidden on its turn")
        return [Event("reveal_on_turn_set", {"enabled": enabled})]

    @event("A creature the GM hid is {enabled?now revealed when its turn starts|no longer "
           "revealed when its turn starts}.", player="The game master changes a setting.",
           enabled=args.flag("whether it is revealed then"))
    def apply_reveal_on_turn_set(self, state: EncounterState,
                                 data: kernel_payloads.RevealOnTurnSet) -> None:
        state.reveal_on_turn = bool(data["enabled"])

    @command("Set the encounter's scene: its background image (the scene image route "
             "uploads it and sets it here) and where the map's grid lies on it.",
             image=args.text("the image's content hash, or '' for none (the upload sets it)",
                             max_len=64),
             width=args.integer("the image's width in pixels", lo=1, hi=IMAGE_SIDE),
             height=args.integer("the image's height in pixels", lo=1, hi=IMAGE_SIDE),
             square=args.integer("pixels of the image per square of the map", lo=8,
                                 hi=2048),
             offset_x=args.integer("pixels from the image's left edge to the map's first "
                                   "column", lo=-IMAGE_SIDE, hi=IMAGE_SIDE),
             offset_y=args.integer("pixels from the image's top edge to the map's first row",
                                   lo=-IMAGE_SIDE, hi=IMAGE_SIDE))
    def do_scene(self, state: EncounterState, command: Command,
                 dice: DiceSource) -> list[Event]:
        """A background image for the map and the grid's calibration on it; what is not
        given stays as it was."""
        a = command.args
        now = dict(state.extra.get("scene") or SCENE)
        scene = {**now, **{k: a[k] for k in SCENE if a.get(k) is not None}}
        image = str(scene["image"])
        if image and not HASH.fullmatch(image):
            raise InvalidArgument("scene: image is the content hash of an uploaded image "
                                  "(64 hexadecimal digits), or '' for none", "image")
        if image and image != now["image"] and (a.get("width") is None
                                               or a.get("height") is None):
            raise InvalidArgument("scene: a new image comes with its width and height (the "
                                  "upload gives them)", "width")
        if not image:
            scene.update(image="", width=0, height=0)
        if scene == now:
            raise IllegalCommand("the scene is already so: nothing to change")
        return [Event("scene_set", scene)]

    @event("The scene is set[: a {width}x{height} background], a square is {square} pixels "
           "from ({offset_x}, {offset_y}).",
           image=args.text("the image's content hash"), width=args.integer("pixels wide"),
           height=args.integer("pixels high"), square=args.integer("pixels per square"),
           offset_x=args.integer("the grid's left edge"),
           offset_y=args.integer("the grid's top edge"))
    def apply_scene_set(self, state: EncounterState, data: kernel_payloads.SceneSet) -> None:
        given: Mapping[str, Any] = data
        state.extra["scene"] = {k: given[k] for k in SCENE}

    @command("A creature's token image on the map (the token image route uploads it and sets "
             "it here), or none.",
             target=args.creature("whose token", required=True),
             image=args.text("the image's content hash, or '' for none", max_len=64,
                             required=True))
    def do_token(self, state: EncounterState, command: Command,
                 dice: DiceSource) -> list[Event]:
        """The picture drawn in a creature's token (its initials when there is none)."""
        target = state.entity(command.a.target)
        image = str(command.a.image)
        if image and not HASH.fullmatch(image):
            raise InvalidArgument("token: image is the content hash of an uploaded image "
                                  "(64 hexadecimal digits), or '' for none", "image")
        if state.extra.get("tokens", {}).get(target.id, "") == image:
            raise IllegalCommand(f"{target.id}'s token already has this image"
                                 if image else f"{target.id}'s token has no image")
        return [Event("token_set", {"target": target.id, "image": image})]

    @event("{target}'s token {image?has a new picture|shows its initials again}.",
           target=args.creature("whose token"), image=args.text("the image's content hash"))
    def apply_token_set(self, state: EncounterState, data: kernel_payloads.TokenSet) -> None:
        tokens = {k: v for k, v in state.extra.get("tokens", {}).items()
                  if k != data["target"]}
        if data["image"]:
            tokens[data["target"]] = data["image"]
        state.extra["tokens"] = tokens

    @command("Fog of war: turn it on or off, and reveal squares (a list, or the rectangle "
             "between two corners) or zones to the players, or hide them again.",
             enabled=args.flag("fog on (true) or off (false)", default=None),
             squares=args.squares("squares to reveal (or hide)"),
             corners=args.squares("two corners: every square of the rectangle between them"),
             zones=args.items("zones to reveal (or hide), by name"),
             hide=args.flag("hide the squares and zones instead of revealing them"),
             vision=args.integer("how far the players' characters see through the fog, in "
                                 "squares (each player's map also shows what their own "
                                 "characters see by line of sight; 0: only what the GM "
                                 "reveals)", lo=0, hi=VISION_SQUARES))
    def do_fog(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Fog changes (the game master's alone): a creature standing in fog is absent from
        what its enemies' players receive, as a hidden one is (``server/views.py``)."""
        a = command.args
        now = fog_of(state)
        squares = {(int(x), int(y)) for x, y in a.get("squares") or []}
        corners = a.get("corners") or []
        if corners:
            if len(corners) != 2:
                raise InvalidArgument("fog: corners are two squares, [[x1, y1], [x2, y2]]",
                                      "corners")
            (x1, y1), (x2, y2) = corners
            area = (abs(x2 - x1) + 1) * (abs(y2 - y1) + 1)
            if area > MAP_SQUARES:
                raise InvalidArgument(f"fog: the rectangle holds {area} squares: at most "
                                      f"{MAP_SQUARES} (limit MAP_SQUARES)", "corners")
            squares |= {(x, y) for x in range(min(x1, x2), max(x1, x2) + 1)
                        for y in range(min(y1, y2), max(y1, y2) + 1)}
        zones = a.get("zones") or []
        if not all(isinstance(z, str) and 0 < len(z) <= 64 for z in zones):
            raise InvalidArgument("fog: zones are zone names (text, at most 64 characters)",
                                  "zones")
        hide = bool(a.get("hide"))
        if not hide and len(set(map(tuple, now["squares"])) | squares) > MAP_SQUARES:
            raise IllegalCommand(f"the fog would have more than {MAP_SQUARES} squares "
                                 "revealed (limit MAP_SQUARES): hide some first")
        enabled = now["enabled"] if a.get("enabled") is None else bool(a["enabled"])
        vision = a.get("vision")
        changes_vision = vision is not None and vision != int(now.get("vision", 0))
        if enabled == now["enabled"] and not squares and not zones and not changes_vision:
            raise IllegalCommand("the fog is already so: give enabled, squares, corners, "
                                 "zones or vision")
        data: dict[str, Any] = {"enabled": enabled,
                                "squares": sorted([list(q) for q in squares]),
                                "zones": sorted(set(zones)), "hide": hide}
        if vision is not None and changes_vision:
            data["vision"] = int(vision)
        return [Event("fog_set", data)]

    @event("Fog of war {enabled?on|off}[: {squares} {hide?hidden|revealed}][; zones {zones} "
           "{hide?hidden|revealed}].",
           # the players' map changes with it (their state is sent with the record); which
           # squares the GM chose is theirs to keep
           player="The fog of war {enabled?shifts|lifts}.",
           enabled=args.flag("whether there is fog"), squares=args.squares("the squares"),
           zones=args.items("the zones"), hide=args.flag("hidden rather than revealed"),
           vision=args.integer("how far the characters see through it now (squares)"),
           optional=("vision",))
    def apply_fog_set(self, state: EncounterState, data: kernel_payloads.FogSet) -> None:
        now = fog_of(state)
        squares = {tuple(q) for q in now["squares"]}
        zones = set(now["zones"])
        given = {tuple(q) for q in data["squares"]}
        if data["hide"]:
            squares -= given
            zones -= set(data["zones"])
        else:
            squares |= given
            zones |= set(data["zones"])
        fog: dict[str, Any] = {"enabled": bool(data["enabled"]),
                               "squares": sorted([list(q) for q in squares]),
                               "zones": sorted(zones), "rev": int(now.get("rev", 0)) + 1}
        asked = data.get("vision")
        vision = int(now.get("vision", 0) if asked is None else asked)
        if vision:
            fog["vision"] = vision
        state.extra["fog"] = fog

    # -- vision through the fog ------------------------------------------------------------
    def sight_blocked(self, state: EncounterState, a: tuple[int, int],
                      b: tuple[int, int]) -> bool:
        """Whether something on the grid stops the line of sight from square ``a`` to ``b``
        (the squares themselves excluded: a wall is seen, what is behind it is not). Nothing
        by default; a ruleset with walls or smoke gives its own (Polemos)."""
        return False

    def vision_of(self, state: EncounterState, who: Entity,
                  radius: int) -> tuple[frozenset[tuple[int, int]], frozenset[str]]:
        """The squares and zones ``who`` sees through the fog within ``radius`` squares:
        on a grid, each square of the box around its square that :meth:`sight_blocked`
        does not hide; in zones, its own zone. Bounded before any work by
        :data:`~arbiter.limits.VISION_SQUARES`."""
        radius = min(max(int(radius), 0), VISION_SQUARES)
        position = getattr(who, "position", None)
        if isinstance(position, list | tuple) and len(position) == 2:
            x0, y0 = int(position[0]), int(position[1])
            here = (x0, y0)
            return frozenset(
                (x, y) for x in range(x0 - radius, x0 + radius + 1)
                for y in range(y0 - radius, y0 + radius + 1)
                if not self.sight_blocked(state, here, (x, y))), frozenset()
        zone = getattr(who, "zone", None)
        if isinstance(zone, str) and zone:
            return frozenset(), frozenset({zone})
        return frozenset(), frozenset()

    def fog_seen_by(self, state: EncounterState, watchers: Iterable[str]) -> dict[str, Any]:
        """The fog as the player of ``watchers`` (their characters) meets it: what the game
        master revealed and, when the fog has ``vision``, what those characters see
        (:meth:`vision_of`). The game master's is the encounter's own."""
        fog = fog_of(state)
        radius = int(fog.get("vision", 0))
        if not fog["enabled"] or radius <= 0:
            return fog
        squares = set(revealed_squares(fog))
        zones = set(fog["zones"])
        for who in sorted(watchers):
            entity = entity_at(state.entities, who)
            if entity is None:
                continue
            seen, near = self.vision_of(state, entity, radius)
            squares |= seen
            zones |= near
        return {**fog, "squares": sorted([list(q) for q in squares]), "zones": sorted(zones)}

    @event("{target} is revealed as its turn starts.", target=args.creature("who"))
    def apply_revealed(self, state: EncounterState, data: kernel_payloads.Revealed) -> None:
        state.entity(data["target"]).hidden = False

    @command("Change one ruling for this encounter.",
             id=args.text("the ruling's id", required=True, max_len=64),
             value=args.text("one of the ruling's choices", required=True, max_len=200))
    def do_ruling(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Change one ruling for this encounter (one of the choices its rulings file lists)."""
        rid, value = command.a.id, command.a.value
        self.rulings.resolve({rid: value})
        return [Event("ruling_set", {"id": rid, "value": value})]

    @event("Ruling {id} is now {value}.", player="Ruling {id} changes[ to {value}].",
           id=args.text("the ruling"), value=args.text("its chosen value"))
    def apply_ruling_set(self, state: EncounterState, data: kernel_payloads.RulingSet) -> None:
        state.rulings = {**state.rulings, data["id"]: data["value"]}  # replaced: see model

    @command("Add a creature or object from a stat block or a template; during turn-by-turn "
             "play a creature rolls initiative (or takes the one given) and joins the order.",
             open=True,
             id=args.creature("the new creature's id", required=True),
             template=args.text("a template of this ruleset", max_len=64),
             initiative=args.integer("its initiative when it joins turn-by-turn play (default: "
                                     "rolled)", lo=-999, hi=999),
             image=args.text("its token picture: the content hash of an image of the "
                             "campaign (a roster or bestiary picture)", max_len=64))
    def do_add(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Add a creature or object from its stat block; in turn-by-turn play it joins the
        order. With ``image``, its token shows that picture (a ``token_set`` event)."""
        entity_id: str = command.a.id
        if entity_id in state.entities:
            raise IllegalCommand(f"{entity_id!r} is already in the encounter")
        if not entity_id.replace("_", "").replace("-", "").isalnum():
            raise InvalidCommand(f"{entity_id!r}: ids are letters, digits, '-' and '_'")
        image = command.a.image
        if image is not None and not HASH.fullmatch(str(image)):
            raise InvalidArgument("add: image is the content hash of an uploaded image (64 "
                                  "hexadecimal digits)", "image")
        spec = self.expand_template({k: v for k, v in command.args.items()
                                     if k not in ("id", "initiative", "image")})
        for key in ("name", "owner"):
            problem = None if spec.get(key) is None else name_problem(spec[key])
            if problem:
                raise InvalidArgument(f"{key}: {problem}", f"command.{key}")
        entity = self.make_entity(entity_id, spec)  # validate now, not at evolve
        events = [Event("entity_added", {"id": entity_id, "spec": spec})]
        if image is not None:
            events.append(Event("token_set", {"target": entity_id, "image": str(image)}))
        if state.in_combat and entity.kind == "creature":
            events.append(self._joining_order(state, events, entity_id,
                                              command.a.initiative, dice))
        return events

    def _joining_order(self, state: EncounterState, events: list[Event], who: str,
                       given: int | None, dice: DiceSource) -> Event:
        """``who`` joining turn-by-turn play after ``events`` (an add, a staged creature
        brought in): its initiative, rolled unless ``given``, puts it in the order later
        this round when that is after the creature acting now, else from the next round
        (as a table does)."""
        after = self.lookahead(state, events)
        value, rolled = ((given, {}) if given is not None
                         else self.roll_initiative(after, after.entity(who), dice))
        initiative = {**after.initiative, who: value}
        return Event("initiative_set", {"target": who, "value": value, "roll": rolled,
                                        "order": self.initiative_order(after, initiative)})

    @event("{id} joins the encounter.", id=args.creature("who joins"),
           spec=args.mapping("the stat block"))
    def apply_entity_added(self, state: EncounterState, data: kernel_payloads.EntityAdded) -> None:
        state.entities[data["id"]] = self.make_entity(data["id"], data["spec"])
        if state.in_combat and data["id"] not in state.order:
            state.order.append(data["id"])

    @command("Remove a creature or object from the encounter.",
             target=args.creature("who leaves the encounter", required=True))
    def do_remove(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Remove a creature or object from the encounter; first what ties others to it
        ends (:meth:`departures`)."""
        target = state.entity(command.a.target)
        return [*self.departures(state, target.id), Event("entity_removed", {"id": target.id})]

    def map_commands(self, state: EncounterState) -> list[dict[str, Any]]:
        """The commands that draw this encounter's terrain again on an empty map (a saved
        scene: ``scene_commands``). None by default; a ruleset with terrain gives its own."""
        return []

    def placement_commands(self, state: EncounterState) -> list[dict[str, Any]]:
        """The commands that put this encounter's creatures and objects where they stand, on
        the same map in another encounter (a saved scene): by default a ``place`` ``at``
        the square of each one on the grid, for a ruleset with that command; a ruleset that
        places otherwise gives its own."""
        if "place" not in self.catalogue:
            return []
        return [{"do": "place", "target": ident, "at": list(where)}
                for ident, entity in sorted(state.entities.items())
                if (where := getattr(entity, "position", None)) is not None]

    def loadable_scene(self, state: EncounterState,
                       commands: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
        """The commands of a saved scene that this encounter takes: its map whole, and the
        placements (``place``) of the creatures that are here and not where the scene puts
        them already; and how many placements were left out (creatures not here)."""
        out: list[dict[str, Any]] = []
        absent = 0
        for saved in commands:
            if saved.get("do") == "place":
                if saved.get("target") not in state.entities:
                    absent += 1
                    continue
                try:
                    command = Command.from_json(saved)
                    after = self.lookahead(state, self.decide(state, command, ProbeDice()))
                except (RulesError, ValueError, TypeError):
                    continue  # a placement this encounter refuses
                if entity_at(after.entities, command.a.target) == state.entities[command.a.target]:
                    continue  # standing there already
            out.append(saved)
        return out, absent

    def scene_commands(self, state: EncounterState) -> list[dict[str, Any]]:
        """The commands that rebuild this encounter's map in another: its image and grid
        (``scene``), the ruleset's terrain (:meth:`map_commands`), the fog (``fog``), each
        list of squares cut to :data:`~arbiter.limits.PAINT_SQUARES` a command, and where
        each creature stands (:meth:`placement_commands`)."""
        out: list[dict[str, Any]] = []
        scene = state.extra.get("scene")
        if scene and scene.get("image"):
            out.append({"do": "scene", **{k: scene[k] for k in SCENE}})
        out += self.map_commands(state)
        fog = fog_of(state)
        if fog["enabled"] or fog["squares"] or fog["zones"]:
            if fog["enabled"] or fog["zones"] or fog.get("vision"):  # else nothing to set
                out.append({"do": "fog", "enabled": fog["enabled"],
                            **({"zones": list(fog["zones"])} if fog["zones"] else {}),
                            **({"vision": fog["vision"]} if fog.get("vision") else {})})
            out += [{"do": "fog", "squares": part} for part in chunks(fog["squares"])]
        return out + self.placement_commands(state)

    def departures(self, state: EncounterState, who: str) -> list[Event]:
        """The events that end what ties other creatures to ``who`` as it leaves the
        encounter (a grapple, a touch), so that no fact names a creature that is gone (the
        ruleset's invariants). None by default."""
        return []

    @event("{id} leaves the encounter.", id=args.creature("who leaves"))
    def apply_entity_removed(self, state: EncounterState,
                             data: kernel_payloads.EntityRemoved) -> None:
        who = data["id"]
        current = state.current
        del state.entities[who]
        if who in staged_of(state):
            state.extra["staged"] = [s for s in staged_of(state) if s != who]
        if who in state.extra.get("tokens", {}):  # its picture goes with it
            state.extra["tokens"] = {k: v for k, v in state.extra["tokens"].items()
                                     if k != who}
        if who in state.initiative:  # replaced: a later add or initiative sorts every key
            state.initiative = {k: v for k, v in state.initiative.items() if k != who}
        if who in state.order:
            state.order.remove(who)
            if current is not None and current != who:
                state.turn_index = state.order.index(current)
            elif state.turn_index >= len(state.order):
                state.turn_index = 0

    @command("Stage a creature: ready on the map but out of the turn order (reinforcements, "
             "a prepared ambush), or bring a staged one into turn-by-turn play.",
             target=args.creature("who is staged or joins", required=True),
             ready=args.flag("true (the default): staged, out of the order; false: it joins "
                             "(rolling initiative, or taking the one given, in turn-by-turn "
                             "play)", default=True),
             initiative=args.integer("its initiative when it joins (default: rolled)",
                                     lo=-999, hi=999))
    def do_stage(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A staged creature is left out when initiative is rolled (``start``) and joins the
        order when the GM brings it in, as a creature added mid-fight does."""
        target = state.entity(command.a.target)
        staged = staged_of(state)
        ready = bool(command.a.ready)
        if target.kind != "creature":
            raise IllegalCommand(f"{target.id} is an object: only creatures take turns")
        if ready == (target.id in staged):
            raise IllegalCommand(f"{target.id} is already {'staged' if ready else 'in play'}")
        if ready and state.current == target.id:
            raise IllegalCommand(f"it is {target.id}'s turn: end it before staging it")
        events = [Event("staged", {"target": target.id, "ready": ready})]
        if not ready and state.in_combat:
            events.append(self._joining_order(state, events, target.id,
                                              command.a.initiative, dice))
        return events

    @event("{target} {ready?is staged, out of the turn order|comes into play}.",
           player="{target} {ready?steps back|comes into play}.",
           target=args.creature("who"), ready=args.flag("staged rather than in play"))
    def apply_staged(self, state: EncounterState, data: kernel_payloads.Staged) -> None:
        who = data["target"]
        staged = [s for s in staged_of(state) if s != who]
        if data["ready"]:
            staged.append(who)
            if who in state.order:  # out of the order (not its turn: do_stage refuses it)
                current = state.current
                state.order = [w for w in state.order if w != who]
                state.initiative = {k: v for k, v in state.initiative.items() if k != who}
                if current is not None:
                    state.turn_index = state.order.index(current)
        state.extra["staged"] = staged

    @command("Start turn-by-turn play: roll initiative and begin round 1.",
             initiative=args.mapping("given initiative values by creature id (the rest roll)"))
    def do_start(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Start turn-by-turn play: roll initiative (or take given values) and begin round 1."""
        if state.in_combat:
            raise IllegalCommand("turn-by-turn play has already started")
        if not state.entities:
            raise IllegalCommand("there is nobody to act: add creatures first")
        given = command.a.initiative or {}
        initiative: dict[str, int] = {}
        rolls: dict[str, Any] = {}
        staged = set(staged_of(state))
        if all(e.kind != "creature" or e.id in staged for e in state.entities.values()):
            raise IllegalCommand("every creature is staged: bring one into play first")
        for entity in state.entities.values():
            if entity.kind != "creature" or entity.id in staged:
                continue
            if entity.id in given:
                initiative[entity.id] = int(given[entity.id])
            else:
                initiative[entity.id], rolls[entity.id] = self.roll_initiative(state, entity, dice)
        order = self.initiative_order(state, initiative)
        events = [Event("combat_started", {"initiative": initiative, "order": order,
                                           "rolls": rolls})]
        after = self.lookahead(state, events)
        # the first in the order who takes a turn: one the rules put out of the fight before
        # it began (down, dead) is skipped, as ``next`` skips it (invariant CORE-TURN)
        first = next((who for who in order if self.takes_turn(after, who)), order[0])
        return events + self._begin_turn(after, first, 1, dice)

    def initiative_order(self, state: EncounterState, initiative: dict[str, int]) -> list[str]:
        """Highest first; ties keep the order creatures were added (a ruleset may refine)."""
        added = list(state.entities)
        keys = {e: (-initiative[e], added.index(e)) for e in initiative}
        return sorted(initiative, key=keys.__getitem__)

    @event("Turn-by-turn play begins; the order is {order}.",
           initiative=args.mapping("initiative by creature"),
           order=args.creatures("the turn order"), rolls=args.mapping("the initiative rolls"))
    def apply_combat_started(self, state: EncounterState,
                             data: kernel_payloads.CombatStarted) -> None:
        state.in_combat = True
        state.initiative = dict(data["initiative"])
        state.order = list(data["order"])
        state.round = 0
        state.turn_index = -1

    def _then(
        self, scratch: EncounterState, state: EncounterState, events: list[Event]
    ) -> EncounterState:
        """``lookahead(state, earlier + events)``, given ``scratch = lookahead(state,
        earlier)`` (which is ``state`` itself when ``earlier`` is empty)."""
        if scratch is state:
            return self.lookahead(state, events)
        return self._further(scratch, events)

    def _further(self, scratch: EncounterState, events: list[Event]) -> EncounterState:
        """``scratch``, a lookahead's scratch state that nobody else holds, with ``events``
        applied: in place, unless the ruleset has a ``lookahead`` of its own (then copied
        again through it)."""
        if type(self).lookahead is Ruleset.lookahead:
            return apply_to_scratch(self.evolve, scratch, events)
        return self.lookahead(scratch, events)

    def _begin_turn(
        self, scratch: EncounterState, who: str, round_: int, dice: DiceSource
    ) -> list[Event]:
        """The events that begin ``who``'s turn. ``scratch`` is a lookahead's scratch state
        that only the caller holds and no longer needs: it is taken further in place."""
        events, after = self._opening(scratch, who, round_, None)
        return events + self.turn_start_events(after, who, dice)

    def _opening(
        self, scratch: EncounterState, who: str, round_: int, owned: Owned | None
    ) -> tuple[list[Event], EncounterState]:
        """The kernel's events that begin ``who``'s turn (``turn_started``, ``revealed``,
        the conditions that expire), and ``scratch`` with them applied: a lookahead's
        scratch state that only the caller holds, or the state ``owned`` (:meth:`advance`)."""
        events = [Event("turn_started", {"actor": who, "round": round_,
                                         "economy": self.economy.fresh(scratch, who)})]
        after = owned.add(self, events) if owned else self._further(scratch, events)
        if after.reveal_on_turn:
            entity = entity_at(after.entities, who)
            if entity is not None and entity.hidden:  # the GM hid it: it acts, it is seen
                revealed = [Event("revealed", {"target": who})]
                events += revealed
                after = owned.add(self, revealed) if owned else self._further(after, revealed)
        expiring = self._expiring(after, who, round_, "start")
        if expiring:
            events += expiring
            after = owned.add(self, expiring) if owned else self._further(after, expiring)
        return events, after

    def _expiring(
        self, state: EncounterState, who: str, round_: int, point: TurnPoint
    ) -> list[Event]:
        """``condition_removed`` for every condition whose duration ends at ``who``'s turn
        point: ``who``'s own first, then the others' in the order they were added."""
        out: list[Event] = []
        entities = state.entities
        mine = entity_at(entities, who)
        if mine is not None and mine.conditions:
            _expiring_of(mine, who, round_, point, out)
        for entity in entities.values():  # one pass, no list of them (every turn, twice)
            conditions = entity.conditions
            if conditions and entity is not mine:
                for cond in conditions:  # most hold no timed condition: no call for them
                    if cond.duration.kind == "timed":
                        _expiring_of(entity, who, round_, point, out)
                        break
        return out

    @event("Round {round}: {actor}'s turn.", actor=args.creature("whose turn"),
           round=args.integer("the round"))
    def apply_turn_started(self, state: EncounterState, data: kernel_payloads.TurnStarted) -> None:
        self.kernel_turn_started(state, data)

    def kernel_turn_started(self, state: EncounterState,
                            data: kernel_payloads.TurnStarted) -> None:
        """The kernel's ``apply_turn_started``, which a ruleset's own calls. A plain method:
        the compiled build calls it directly, where ``super()`` of a declared (decorated)
        method is a call by name (docs/performance.md, 35)."""
        state.round = data["round"]
        state.turn_index = state.order.index(data["actor"])

    @command("End the current turn and start the next creature's.", who="player",
             when="any", actor="optional", looks_past=True)
    def do_next(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """End the current turn and start the next creature's (a new round after the last).

        Under :meth:`advance` it applies the events up to the next creature's
        ``turn_start_events`` to ``state`` as it decides them (``past``); the rules read
        the same states either way."""
        table = self._owned
        return self._next(state, command, dice, table.get(id(state)) if table else None)

    def _next(self, state: EncounterState, command: Command, dice: DiceSource,
              owned: Owned | None) -> list[Event]:
        """``do_next``, given what :meth:`advance` owns of ``state`` (None: nothing)."""
        who = state.current
        if who is None:
            raise IllegalCommand("turn-by-turn play has not started (use 'start')")
        if command.actor is not None and command.actor != who:
            raise IllegalCommand(f"it is {who}'s turn, not {command.actor}'s")
        self.check_turn_end(state, who)
        if owned is not None and self.reads_touched:
            owned.track()
        round_ = state.round  # the state's before any event (it changes, owned): read once
        events = self.turn_end_events(state, who, dice)
        done = len(events)
        after = owned.onward(self, events) if owned else self.lookahead(state, events)
        events += self._expiring(after, who, round_, "end")
        events.append(Event("turn_ended", {"actor": who, "round": round_}))
        after = owned.add(self, events[done:]) if owned else \
            self._then(after, state, events[done:])
        following = self.next_turn(after, who, round_)
        if following is None:
            return events
        opening, after = self._opening(after, following[0], following[1], owned)
        if owned is None or not self.starts_in_place:
            return events + opening + self.turn_start_events(after, following[0], dice)
        # the turn start may look past its own events in place (``started_past``): they
        # follow those applied so far, noted as ``owned``'s (what it touches too)
        start = Owned(after)
        start.plain = owned.plain
        outer = _lend(self._starting, start)
        try:
            begun = self.turn_start_events(after, following[0], dice)
        finally:
            _give_back(self._starting, start, outer)
        if start.applied:
            if not _begins(begun, start.applied):
                raise RuntimeError("turn_start_events: its events do not begin with those it "
                                   "looked past in place (Ruleset.started_past)")
            owned.applied += start.applied
        return events + opening + begun

    def check_turn_end(self, state: EncounterState, who: str) -> None:
        """Raise IllegalCommand when ``who``'s turn may not end yet (default: it always may)."""

    def next_turn(
        self, state: EncounterState, who: str, round_: int
    ) -> tuple[str, int] | None:
        """Who acts after ``who`` and in which round, given the state after ``who``'s turn
        ended; None when nobody does. Default: the next in initiative order, and a new round
        after the last."""
        order = state.order
        if not state.in_combat or not order:
            return None
        index = order.index(who) + 1 if who in order else state.turn_index
        first: tuple[str, int] | None = None
        for step in range(len(order)):  # the next one who takes a turn (takes_turn)
            at = index + step
            following = (order[at], round_) if at < len(order) else \
                (order[at % len(order)], round_ + 1)
            if first is None:
                first = following
            if self.takes_turn(state, following[0]):
                return following
        return first  # nobody takes a turn: the order goes on as it stands

    def takes_turn(self, state: EncounterState, who: str) -> bool:
        """Whether ``who`` gets its turn when the order reaches it (a ruleset skips those
        its rules put out of the fight; by default everyone in the order)."""
        return True

    @event("{actor}'s turn ends.", actor=args.creature("whose turn"),
           round=args.integer("the round"))
    def apply_turn_ended(self, state: EncounterState, data: kernel_payloads.TurnEnded) -> None:
        self.kernel_turn_ended(state, data)

    def kernel_turn_ended(self, state: EncounterState, data: kernel_payloads.TurnEnded) -> None:
        """The kernel's ``apply_turn_ended`` (see :meth:`kernel_turn_started`)."""
        state.economy.pop(data["actor"], None)

    @command("End turn-by-turn play.")
    def do_end(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """End turn-by-turn play."""
        if not state.in_combat:
            raise IllegalCommand("turn-by-turn play is not running")
        return [Event("combat_ended", {"round": state.round})]

    @event("Turn-by-turn play ends after round {round}.", round=args.integer("the round"))
    def apply_combat_ended(self, state: EncounterState, data: kernel_payloads.CombatEnded) -> None:
        state.in_combat = False
        state.turn_index = -1
        state.economy.clear()
        # the fight's initiative holds until turn-by-turn play ends (Polemos P-ORD-3), and
        # no rule reads it after: no value lingers as if still current
        state.initiative = {}

    # -- the end of a fight ---------------------------------------------------------------
    def outcome(self, state: EncounterState) -> tuple[bool, str | None]:
        """Whether the rules have decided the fight, and the side that won it (None:
        nobody), as the ``side_won`` event recorded them; the simulator asks it after every
        command. A ruleset emits ``side_won`` (:meth:`side_won`) where its rules end a
        fight, once (realms when one side alone stands; zones and Polemos also when no side
        does); one that never emits it (demo) leaves every fight undecided here, and the
        simulator reads who can still act from its outcomes hooks (``sim/hooks.py``)."""
        extra = state.extra
        if "winner" in extra:
            return True, extra["winner"]
        return False, None

    @staticmethod
    def side_won(winner: str | None) -> Event:
        """The event that ends a fight: ``winner`` the side left standing, None for none."""
        return Event("side_won", {"winner": winner})

    @event("The fight is over[: {winner} wins].",
           winner=args.text("the side left standing (none: nobody)"),
           optional=("winner",))
    def apply_side_won(self, state: EncounterState, data: kernel_payloads.SideWon) -> None:
        state.extra["winner"] = data["winner"]

    @command("Set a creature's initiative (an ability or the GM changes it).",
             target=args.creature("whose initiative", required=True),
             value=args.integer("the new initiative", lo=-999, hi=999, required=True))
    def do_initiative(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """Set a creature's initiative (an ability or the GM changes it)."""
        target = state.entity(command.a.target)
        value = command.a.value
        if not state.in_combat:
            raise IllegalCommand("initiative only exists in turn-by-turn play")
        if target.id in staged_of(state):
            raise IllegalCommand(f"{target.id} is staged, out of the turn order: bring it in "
                                 "(stage, ready false) with this initiative")
        initiative = {**state.initiative, target.id: value}
        return [Event("initiative_set", {"target": target.id, "value": value,
                                         "order": self.initiative_order(state, initiative)})]

    @event("{target}'s initiative is now {value}.",
           player="{target}'s initiative changes[ to {value}].", target=args.creature("whose"),
           value=args.integer("the initiative"), order=args.creatures("the new order"),
           roll=args.mapping("the initiative roll, when it was rolled"),
           optional=("roll",))
    def apply_initiative_set(self, state: EncounterState,
                             data: kernel_payloads.InitiativeSet) -> None:
        current = state.current
        state.initiative[data["target"]] = data["value"]
        state.order = list(data["order"])
        if current is not None:
            state.turn_index = state.order.index(current)

    @command("Give a creature a condition.",
             target=args.creature("who gets the condition", required=True),
             name=args.text("the condition's name", required=True, max_len=64),
             level=args.integer("its level", lo=0, hi=99, default=1),
             rounds=args.integer("how many rounds it lasts (0: until removed)", lo=0, hi=10000,
                                 default=0),
             source=args.text("who or what causes it", max_len=64),
             tags=args.items("tags"))
    def do_condition(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """Give a creature a condition, stacked with one it has by the ruleset's rule."""
        target = state.entity(command.a.target)
        rounds = command.a.rounds
        duration = Duration.for_rounds(state, rounds) if rounds > 0 else Duration()
        cond = Condition(
            name=command.a.name,
            level=command.a.level,
            tags=tuple(command.a.tags or ()),
            source=command.a.source,
            duration=duration,
        )
        return [Event("condition_added", {"target": target.id, "condition": cond.to_json()})]

    @event("{target} is {condition.name}[ ({condition.level})].",
           target=args.creature("who"), condition=args.mapping("the condition"))
    def apply_condition_added(self, state: EncounterState,
                              data: kernel_payloads.ConditionAdded) -> None:
        self.kernel_condition_added(state, data)

    def kernel_condition_added(self, state: EncounterState,
                               data: kernel_payloads.ConditionAdded) -> None:
        """The kernel's ``apply_condition_added`` (see :meth:`kernel_turn_started`)."""
        entity = state.entity(data["target"])
        new = Condition.from_json(data["condition"])
        old = entity.condition(new.name)
        kept = self.stack_condition(old, new)
        if old is not None:
            entity.conditions.remove(old)
        entity.conditions.append(kept)

    @command("Remove a condition from a creature.",
             target=args.creature("who loses the condition", required=True),
             name=args.text("the condition's name", required=True, max_len=64))
    def do_uncondition(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """Take a condition off a creature."""
        target = state.entity(command.a.target)
        name = command.a.name
        if not target.has(name):
            raise IllegalCommand(f"{target.id} has no condition {name!r}")
        return [Event("condition_removed", {"target": target.id, "name": name, "why": "removed"})]

    @event("{target} is no longer {name}[ ({why})].", target=args.creature("who"),
           name=args.text("the condition"), why=args.text("expired or removed"))
    def apply_condition_removed(self, state: EncounterState,
                                data: kernel_payloads.ConditionRemoved) -> None:
        entity = entity_at(state.entities, data["target"])
        if entity is not None:
            entity.conditions = [c for c in entity.conditions if c.name != data["name"]]

    @command("The game master overrides any value, with a reason for the log.",
             path=args.text("a dotted path such as nia.health", required=True),
             value=args.value("the new value", required=True),
             reason=args.text("why, for the log", max_len=500))
    def do_override(
        self, state: EncounterState, command: Command, dice: DiceSource
    ) -> list[Event]:
        """The game master sets any value the state holds (a dotted path), with a reason the
        log keeps; what the rules derive from the new value follows (:meth:`settle`)."""
        path = command.a.path
        reason = command.a.reason or ""
        if not reason.strip():
            raise InvalidCommand("override: give a 'reason', so the log stays true")
        try:
            old = get_path(state, path)
        except KeyError as err:
            raise InvalidCommand(f"override: {err.args[0]}") from None
        value = command.a.value
        probe = state.copy()
        set_path(probe, path, value)
        events = [Event("overridden", {"path": path, "value": value, "old": _plain(old),
                                       "reason": reason})]
        return events + self.settle(state, events, dice)

    def settle(self, state: EncounterState, events: list[Event],
               dice: DiceSource) -> list[Event]:
        """The events that follow from ``events`` by the rules, for a command that sets
        values directly (the GM's ``override``): what a ruleset derives from a value (a
        status condition from SP, Dying from Health, a touch that cover forbids) is kept
        true however the value changed (the ruleset's invariants). None by default."""
        return []

    @event("The game master sets {path} to {value}[ (was {old})][: {reason}].",
           player="The game master changes {path}.", path=args.text("what changed"),
           value=args.value("the new value"), old=args.value("the old value"),
           reason=args.text("why"),
           optional=("old",))
    def apply_overridden(self, state: EncounterState, data: kernel_payloads.Overridden) -> None:
        set_path(state, data["path"], data["value"])

    @command("The GM rules that a creature knows, or no longer knows, where a concealed "
             "one is.", actor="required",
             target=args.creature("the concealed creature", required=True),
             detected=args.flag("whether the actor now knows where it is", default=True))
    def do_detect(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """The GM rules that a creature knows where a concealed one is, or no longer does.
        Its player then sees the target (see ``detected``); the GM's own hidden flag still
        hides it from every player."""
        actor = self.actor(state, command)
        target = state.entity(command.a.target)
        if target.id == actor.id:
            raise IllegalCommand(f"{actor.id} knows where it is")
        if not any(c.name in self.concealing for c in target.conditions):
            raise IllegalCommand(
                f"{target.id} has no concealing condition "
                f"({', '.join(sorted(self.concealing)) or f'{self.name} has none'})"
                + ("; the GM's hidden flag hides it from every player: reveal it instead"
                   if target.hidden else ""))
        return [Event("detection_set", {"actor": actor.id, "target": target.id,
                                        "detected": command.a.detected})]

    @event("{actor} {detected?now knows|no longer knows} where {target} is.",
           actor=args.creature("who"), target=args.creature("the concealed creature"),
           detected=args.flag("knows"))
    def apply_detection_set(self, state: EncounterState,
                            data: kernel_payloads.DetectionSet) -> None:
        """Each concealing condition of the target lists, or stops listing, the actor in its
        data's ``detected_by`` (a new Condition: conditions are never changed in place)."""
        set_detection(state.entity(data["target"]), self.concealing, data["actor"],
                      data["detected"])

    @command("Apply several of the game master's commands at once (apply to many): one log "
             "entry, one undo; refused whole when any one is refused.",
             commands=args.items("the commands, each a mapping {'do': ..., ...} (at most 100)",
                                 required=True))
    def do_batch(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Decide each command on the state the ones before it leave, as one entry."""
        raw = command.a.commands
        if not raw:
            raise InvalidCommand("batch: give at least one command")
        if len(raw) > BATCH_LIMIT:
            raise InvalidCommand(f"batch: at most {BATCH_LIMIT} commands")
        events: list[Event] = []
        scratch = state
        for index, item in enumerate(raw, start=1):
            inner = Command.from_json(item)
            if inner.name in ("batch", "create"):
                raise InvalidCommand(f"batch: command {index} cannot be a {inner.name!r}")
            try:
                decided = self.decide(scratch, inner, dice)
            except IllegalCommand as err:
                raise IllegalCommand(f"batch: command {index} ({inner.name}): {err.reason}",
                                     rule=err.rule) from None
            except RulesError as refused:  # (not ``err``: tests/core/test_compilable.py)
                raise InvalidCommand(f"batch: command {index} ({inner.name}): "
                                     f"{refused}") from None
            events += decided
            scratch = self._then(scratch, state, decided)
        return events

    @command("Write a note into the log.",
             text=args.text("the note", required=True, max_len=2000))
    def do_note(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Write a note into the log."""
        return [Event("noted", {"text": command.a.text})]

    @event("Note: {text}", text=args.text("the note"))
    def apply_noted(self, state: EncounterState, data: kernel_payloads.Noted) -> None:
        return None

    # -- invariants every ruleset keeps (core/invariants.py) ------------------------------
    @property
    def invariants(self) -> tuple[Invariant, ...]:
        """Every fact this ruleset keeps true of each state, declared beside its rules."""
        return invariants_of(type(self))

    @invariant("CORE-TURN", "the turn order lists each creature present at most once")
    def holds_turn_order(self, state: EncounterState) -> Iterator[str]:
        seen: set[str] = set()
        for who in state.order:
            if who not in state.entities:
                yield f"{who!r} is in the turn order but not in the encounter"
            if who in seen:
                yield f"{who!r} is twice in the turn order"
            seen.add(who)

    @invariant("CORE-TURN", "a staged creature is present and out of the turn order")
    def holds_staged_out_of_order(self, state: EncounterState) -> Iterator[str]:
        for who in staged_of(state):
            if who not in state.entities:
                yield f"{who!r} is staged but not in the encounter"
            if who in state.order:
                yield f"{who!r} is staged and in the turn order"

    @invariant("CORE-TURN", "in turn-by-turn play, the turn is one of the order's places "
               "(a command that starts a fight starts its first turn too)", after="command")
    def holds_a_turn_in_play(self, state: EncounterState) -> Iterator[str]:
        if state.in_combat and state.order and not 0 <= state.turn_index < len(state.order):
            yield f"turn index {state.turn_index} outside the order of {len(state.order)}"

    @invariant("CORE-TURN", "a turn starts only for a creature that takes turns (one the "
               "rules put out of the fight is skipped), unless nobody in the order does",
               after="turn_start")
    def holds_turn_taker(self, state: EncounterState, who: str) -> Iterator[str]:
        if who not in state.entities:
            yield f"the turn of {who!r} starts, who is not in the encounter"
        elif not self.takes_turn(state, who) and any(
                self.takes_turn(state, other) for other in state.order):
            yield f"{who}'s turn starts, but {who} takes no turn"

    @invariant("CORE-INIT", "initiative values belong to creatures present")
    def holds_initiative_of_present(self, state: EncounterState) -> Iterator[str]:
        for who in state.initiative:
            if who not in state.entities:
                yield f"{who!r} has an initiative value but is not in the encounter"

    @invariant("CORE-COND", "a creature has each condition once, at a level of 0 or more")
    def holds_conditions_once(self, state: EncounterState) -> Iterator[str]:
        for entity in state.entities.values():
            names: set[str] = set()
            for cond in entity.conditions:
                if cond.name in names:
                    yield f"{entity.id} has the condition {cond.name!r} twice"
                names.add(cond.name)
                if cond.level < 0:
                    yield f"{entity.id}'s {cond.name!r} is at level {cond.level}"


def set_detection(entity: Entity, names: frozenset[str], who: str, detected: bool) -> None:
    """Each of ``entity``'s conditions named in ``names`` lists ``who`` in its data's
    ``detected_by`` (or, not ``detected``, stops listing it): new Conditions, as apply
    methods never change one in place."""
    conditions = []
    for cond in entity.conditions:
        if cond.name in names:
            found = [x for x in cond.data.get("detected_by", ()) if x != who]
            if detected:
                found.append(who)
            cond = Condition(cond.name, cond.level, cond.tags, cond.source, cond.duration,
                             {**cond.data, "detected_by": found})
        conditions.append(cond)
    entity.conditions = conditions


def _plain(value: Any) -> Any:
    if isinstance(value, int | str | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return repr(value)


__all__ = ["RulesError", "Ruleset"]
