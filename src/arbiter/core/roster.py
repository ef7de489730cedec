"""A campaign's roster and bestiary: the characters that carry their state from one
encounter to the next, and the game master's own creatures.

They live in the campaign's own log (``docs/server.md``), which is played like an
encounter's: a pure :meth:`Roster.decide` turns a command into events, :meth:`Roster.evolve`
applies them, and every command and event is declared with ``@command`` and ``@event``
(``core/catalogue.py``), so a command is checked against its declaration and every event
reads as a sentence.

A **character** is a stat block of the campaign's ruleset (``name``, ``side``, ``owner``
(the player's name), ``template`` and the ruleset's keys) with an ``id``, the game master's
``notes``, and its ``lasting`` state: the stat-block keys that
:meth:`~arbiter.core.ruleset.Ruleset.lasting` read from it when it last left an encounter
(``write_back``), laid over its stat block when it joins the next one. A **bestiary** entry is
a stat block with an ``id`` (and, optionally, a template the ruleset ships), usable as a
``template`` wherever the campaign adds creatures; it never shadows a template the ruleset
ships, which stay read-only.

>>> from arbiter.core import Command, load_ruleset
>>> roster = Roster(load_ruleset("demo"))
>>> state = RosterState()
>>> for event in roster.decide(state, Command("character_add", args={
...         "id": "nia", "name": "Nia", "side": "heroes", "health": 24})):
...     _ = roster.evolve(state, event)
>>> roster.joining(state, "nia")
{'id': 'nia', 'name': 'Nia', 'side': 'heroes', 'health': 24}
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr

from ..dice import DIALECTS, DiceSource
from . import catalogue as args
from . import kernel_payloads
from .catalogue import CommandSpec, EventSpec, InvalidArgument, catalogue_of, command, event
from .catalogue import events_of as _events_of
from .errors import IllegalCommand, InvalidCommand, RulesError, SchemaError
from .events import Command, Event
from .model import EncounterState, Entity, name_problem
from .ruleset import HASH, Ruleset

RESERVED = frozenset({"id", "notes", "lasting"})
"""Keys of a character or a bestiary entry that are not stat-block keys."""
JOIN_ARGUMENTS = {
    "initiative": "the encounter's argument for a creature joining turn-by-turn play",
    "image": "the encounter's argument for a token picture (the picture routes set it)",
}
"""Arguments of the encounter's ``add`` beside the stat block, and what each is: a stat
block kept in the roster or the bestiary cannot hold them (``initiative`` would be read as
the creature's initiative when it joins, not as a stat-block key)."""
ID_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
PICTURED = ("character", "creature")
"""What has a token picture in the roster: a character, a bestiary creature."""
ROLLING = frozenset({"advance_time"})
"""Campaign commands that roll dice."""
SAID = 100
"""At most this many sentences say what happened to one character while time passed."""
QUIET = frozenset({"time_passed"})
"""Event types that only move a clock: left out of what happened."""
UNITS = {"minutes": 60, "hours": 3600, "days": 86400}
"""The units of campaign time, in seconds."""
WHOLE_FIGHT = ("sustained", "caused", "field")
"""Condition durations that end with the encounter: kept up by a creature, a cause or a place
that the next encounter does not have (a cause still there gives them again)."""


SHEET: dict[str, args.Arg] = {
    "id": args.creature("the character's id, also its id in every encounter",
                        required=True),
    "name": args.text("its name"),
    "template": args.text("a template of the ruleset or of the bestiary", max_len=64),
    "side": args.text("its side", max_len=64),
    "owner": args.text("the name of the player who plays it"),
    "notes": args.text("the game master's notes", max_len=4000),
    "lasting": args.mapping("its lasting state: the stat-block keys written back after "
                            "an encounter"),
}
"""The arguments of ``character_add`` and ``character_update`` (beside the stat block)."""
_SHEET_ARGS: dict[str, Any] = dict(SHEET)


@mypyc_attr(native_class=False)
@dataclass
class RosterState:
    """The characters and the bestiary, by id. Records are replaced, never changed in place."""

    characters: dict[str, dict[str, Any]] = field(default_factory=dict)
    bestiary: dict[str, dict[str, Any]] = field(default_factory=dict)
    clock: int = 0
    """Seconds of campaign time passed between encounters (``advance_time``)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """The campaign's settings (``configure``): ``dice_dialect``, ``players_roll``."""
    scenes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Saved scenes by name (``scene_save``): the commands that rebuild an encounter's map
    (its image and grid, terrain, fog, placements), to play again in a new encounter."""
    pictures: dict[str, str] = field(default_factory=dict)
    """Token pictures (``picture``): the content hash of an image of the campaign, by
    ``character:ID`` or ``creature:ID`` (a bestiary entry); a creature joining an encounter
    from there shows it."""

    def copy(self) -> RosterState:
        return RosterState(dict(self.characters), dict(self.bestiary), self.clock,
                           dict(self.settings), dict(self.scenes), dict(self.pictures))

    def picture(self, kind: str, ident: str) -> str | None:
        """The token picture of a roster ``character`` or a bestiary ``creature``."""
        return self.pictures.get(f"{kind}:{ident}")


class AlreadyListed(IllegalCommand):
    """An id the roster (or the bestiary) already holds."""



def _check_names(record: Mapping[str, Any]) -> None:
    """Refuse a sheet whose name (or its player's) is not a name (``model.name_problem``)."""
    for key in ("name", "owner"):
        problem = None if record.get(key) is None else name_problem(record[key])
        if problem:
            raise InvalidArgument(f"{key}: {problem}", f"command.{key}")

class NotListed(InvalidCommand):
    """An id the roster (or the bestiary) does not hold; ``field`` names where it was given."""

    def __init__(self, kind: str, ident: str, known: Collection[str],
                 field: str | None = None) -> None:
        self.kind = kind
        self.ident = ident
        self.field = field
        shown = ", ".join(sorted(known)[:20]) or "none"
        where = "bestiary" if kind == "bestiary entry" else "roster"
        super().__init__(f"no {kind} {ident!r} (the {where} holds: {shown})")


def _pictured(image: str | None) -> dict[str, Any]:
    """The ``add`` argument that shows a token picture, when there is one."""
    return {} if image is None else {"image": image}


def block(record: Mapping[str, Any]) -> dict[str, Any]:
    """The stat block of a character or bestiary entry (without id, notes, lasting)."""
    return {k: v for k, v in record.items() if k not in RESERVED}


def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` laid on ``base`` as a template's keys are (:meth:`Ruleset.expand_template`):
    a mapping given for a mapping is merged one level, anything else replaces."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def numbered_name(name: str, taken: Collection[str]) -> str:
    """``name``, or ``name 2``, ``name 3``... when a creature already bears it: two
    creatures of one template or bestiary entry are told apart in the tracker and the log
    ("Salt raider", "Salt raider 2")."""
    if name not in taken:
        return name
    n = 2
    while f"{name} {n}" in taken:
        n += 1
    return f"{name} {n}"


def lasting_conditions(state: EncounterState, entity: Entity,
                       fight_only: Collection[str] = ()) -> list[dict[str, Any]]:
    """The conditions of ``entity`` that outlast the encounter, as stat-block conditions.

    Left behind: conditions named in ``fight_only`` (where the creature stood or whom it
    held), those kept up by a creature, a cause or a place (``sustained``, ``caused``,
    ``field``), and timed ones that have run out. A timed one keeps the rounds it has left,
    counted from the next encounter (to the start of the creature's own turn that many
    rounds on). Who gave it (``source``) and who had found the creature
    (``detected_by``) belong to the encounter and are left out."""
    out: list[dict[str, Any]] = []
    for cond in entity.conditions:
        duration = cond.duration
        if cond.name in fight_only or duration.kind in WHOLE_FIGHT:
            continue
        data = cond.to_json()
        data.pop("source", None)
        extra = {k: v for k, v in data.get("data", {}).items() if k != "detected_by"}
        if extra:
            data["data"] = extra
        else:
            data.pop("data", None)
        if duration.kind == "timed":
            left = duration.remaining_rounds(state)
            if not left:
                continue
            data["duration"] = {"kind": "timed", "round": left, "turn_of": entity.id,
                                "at": "start"}
        out.append(data)
    return out


class Roster:
    """The decide/evolve of a campaign's roster and bestiary, for the campaign's ruleset.

    ``rulings`` are the campaign's (those its new encounters start with): time passing
    between encounters (``advance_time``) is decided under them."""

    def __init__(self, ruleset: Ruleset, rulings: Mapping[str, str] | None = None) -> None:
        self.ruleset = ruleset
        self.rulings: dict[str, str] = dict(rulings or {})

    # -- the catalogue ------------------------------------------------------------------
    @property
    def catalogue(self) -> dict[str, CommandSpec]:
        return catalogue_of(type(self))

    @property
    def events(self) -> dict[str, EventSpec]:
        return _events_of(type(self))

    def decide(self, state: RosterState, command: Command,
               dice: DiceSource | None = None) -> list[Event]:
        """The events of a campaign command, or a RulesError saying why not. Only
        ``advance_time`` rolls (from ``dice``: without them it is refused)."""
        spec = self.catalogue.get(command.name)
        if spec is None:
            raise InvalidArgument(f"the roster has no command {command.name!r} (commands: "
                                  f"{', '.join(self.catalogue)})", "command.do")
        if command.a is None:
            command.a = spec.parse(command)
        if command.name in ROLLING:
            if dice is None:
                raise InvalidCommand(f"{command.name} rolls dice: give it a dice source")
            return self.do_advance_time(state, command, dice)
        handler: Callable[[RosterState, Command], list[Event]] = getattr(
            self, f"do_{command.name}")
        return handler(state, command)

    def evolve(self, state: RosterState, event: Event) -> RosterState:
        if event.type not in self.events:
            raise SchemaError(f"the roster does not know the event type {event.type!r}")
        getattr(self, f"apply_{event.type}")(state, event.data)
        return state

    def describe(self, event_type: str, data: dict[str, Any],
                 names: Mapping[str, str]) -> str:
        spec = self.events.get(event_type)
        if spec is None:
            return event_type.replace("_", " ")
        return spec.text(data, names, True)

    @staticmethod
    def names(state: RosterState) -> dict[str, str]:
        return {k: str(v.get("name") or k) for k, v in state.characters.items()}

    # -- stat blocks --------------------------------------------------------------------
    def resolve(self, state: RosterState, spec: Mapping[str, Any],
                where: str = "command.template") -> dict[str, Any]:
        """``spec`` with a bestiary template replaced by the entry's stat block (which
        names, at most, a template the ruleset ships): what the encounter's ``add`` takes.
        A template the ruleset ships is left for ``add`` to fill in."""
        name = spec.get("template")
        if name is None or name in self.ruleset.templates:
            return dict(spec)
        entry = state.bestiary.get(name) if isinstance(name, str) else None
        if entry is None:
            shipped = ", ".join(sorted(self.ruleset.templates)) or "none"
            mine = ", ".join(sorted(state.bestiary)) or "none"
            raise InvalidArgument(f"{self.ruleset.name} has no template {name!r} (templates: "
                                  f"{shipped}; the bestiary: {mine})", where)
        return merge(block(entry), {k: v for k, v in spec.items() if k != "template"})

    def expand(self, state: RosterState, spec: Mapping[str, Any],
               where: str = "command.template") -> dict[str, Any]:
        """The whole stat block: templates of the bestiary and the ruleset filled in."""
        return self.ruleset.expand_template(self.resolve(state, spec, where))

    def joining(self, state: RosterState, character_id: str) -> dict[str, Any]:
        """The encounter's ``add`` arguments that bring a roster character in: its stat block
        with its lasting state laid over it."""
        record = state.characters.get(character_id)
        if record is None:
            raise NotListed("character", character_id, state.characters)
        spec = {**self.resolve(state, block(record)), **dict(record.get("lasting") or {})}
        return {"id": character_id, **spec}

    def arrivals(self, state: RosterState, characters: Sequence[str],
                 creatures: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
        """The encounter's ``add`` commands that bring in roster ``characters`` and
        ``creatures`` (``{"template", "id"?, "side"?}``, of a template the ruleset ships or
        the bestiary; the id is the template's, numbered when taken), each with where it was
        asked for (``characters.0``, ``creatures.1``) to name in a refusal."""
        out: list[tuple[str, dict[str, Any]]] = []
        taken: set[str] = set()
        names: set[str] = set()  # the creatures' names so far
        for i, ident in enumerate(characters):
            here = f"characters.{i}"
            if ident in taken:
                raise InvalidArgument(f"{ident!r} is named twice", here)
            if ident not in state.characters:
                raise NotListed("character", ident, state.characters, here)
            taken.add(ident)
            joins = self.joining(state, ident)
            names.add(str(joins.get("name") or ident))
            out.append((here, {"do": "add", **joins, **_pictured(state.picture(
                "character", ident))}))
        for i, item in enumerate(creatures):
            here = f"creatures.{i}"
            template = str(item.get("template", ""))
            given = item.get("id")
            if given is None:
                base = re.sub(r"[^A-Za-z0-9_-]", "-", template)[:56] or "creature"
                name, n = base, 1
                while name in taken:
                    n += 1
                    name = f"{base}-{n}"
            elif given in taken:
                raise InvalidArgument(f"{given!r} is already in this encounter", f"{here}.id")
            else:
                name = str(given)
            taken.add(name)
            spec = self.resolve(state, {"template": template}, f"{here}.template")
            shown = spec.get("name")
            if shown is None and template in self.ruleset.templates:
                shown = self.ruleset.templates[template].get("name")
            if isinstance(shown, str):  # one entry twice: "Salt raider", "Salt raider 2"
                spec["name"] = numbered_name(shown, names)
                names.add(spec["name"])
            if item.get("side") is not None:
                spec["side"] = item["side"]
            out.append((here, {"do": "add", "id": name, **spec,
                               **_pictured(state.picture("creature", template))}))
        return out

    def entity(self, state: RosterState, character_id: str) -> Entity:
        """The character as it would join an encounter now."""
        spec = self.joining(state, character_id)
        spec.pop("id")
        return self.ruleset.make_entity(character_id, self.ruleset.expand_template(spec))

    def _check(self, state: RosterState, ident: str, record: Mapping[str, Any],
               lasting: Mapping[str, Any] | None = None, prefix: str = "command") -> None:
        """Refuse a stat block the ruleset would not build (with its lasting state)."""
        if not ID_RE.fullmatch(ident):
            raise InvalidArgument(f"{ident!r}: ids are 1 to 64 letters, digits, '-' and '_'",
                                  f"{prefix}.id")
        sheet = block(record)
        blocked = sorted(set(JOIN_ARGUMENTS) & set(sheet))
        if blocked:
            key = blocked[0]
            raise InvalidArgument(
                f"{key!r} is {JOIN_ARGUMENTS[key]}, not a stat-block key here (give it in a "
                "template of the ruleset)", f"{prefix}.{key}")
        kept = sorted(set(lasting or {}) & (RESERVED | set(JOIN_ARGUMENTS) | {"template"}))
        if kept:
            raise InvalidArgument(f"{kept[0]!r} is not part of a lasting state (its keys are "
                                  "the ruleset's stat-block keys)", f"{prefix}.lasting")
        # built as it joins an encounter: the lasting state laid over the sheet, then the
        # template the ruleset ships filled in (as the encounter's ``add`` does)
        joining = {**self.resolve(state, sheet, f"{prefix}.template"), **(lasting or {})}
        spec = self.ruleset.expand_template(joining)
        try:
            self.ruleset.make_entity(ident, spec)
        except InvalidCommand:
            raise
        except Exception as err:  # a stat block the ruleset trips over is refused, not a 500
            raise InvalidCommand(f"{ident}: malformed stat block ({type(err).__name__}: "
                                 f"{err})") from None

    def _character(self, state: RosterState, command: Command,
                   old: Mapping[str, Any] | None) -> dict[str, Any]:
        ident = str(command.args["id"])
        record: dict[str, Any] = {"id": ident, **{k: v for k, v in command.args.items()
                                                  if k not in ("id", "lasting")}}
        lasting = command.args.get("lasting")
        if lasting is None:
            lasting = dict(old.get("lasting") or {}) if old is not None else {}
        record["lasting"] = dict(lasting)
        _check_names(record)
        self._check(state, ident, record, record["lasting"])
        return record

    # -- characters ---------------------------------------------------------------------

    @command("Add a character to the campaign's roster: its stat block (a template of the "
             "ruleset or the bestiary and the ruleset's keys), its player, notes.", open=True,
             **_SHEET_ARGS)
    def do_character_add(self, state: RosterState, command: Command) -> list[Event]:
        ident = str(command.args["id"])
        if ident in state.characters:
            raise AlreadyListed(f"the roster already has a character {ident!r}")
        return [Event("character_added", {"id": ident,
                                          "character": self._character(state, command, None)})]

    @event("{id} joins the roster.", id=args.creature("the character"),
           character=args.mapping("its sheet and lasting state"))
    def apply_character_added(self, state: RosterState,
                              data: kernel_payloads.CharacterAdded) -> None:
        state.characters = {**state.characters, data["id"]: dict(data["character"])}

    @command("Change a character's sheet: it is replaced by the one given (its lasting state "
             "stays unless given).", open=True, **_SHEET_ARGS)
    def do_character_update(self, state: RosterState, command: Command) -> list[Event]:
        ident = str(command.args["id"])
        old = state.characters.get(ident)
        if old is None:
            raise NotListed("character", ident, state.characters, "command.id")
        return [Event("character_updated", {"id": ident,
                                            "character": self._character(state, command, old)})]

    @event("{id}'s sheet changes.", id=args.creature("the character"),
           character=args.mapping("its new sheet and lasting state"))
    def apply_character_updated(self, state: RosterState,
                                data: kernel_payloads.CharacterUpdated) -> None:
        state.characters = {**state.characters, data["id"]: dict(data["character"])}

    @command("Take a character off the roster.",
             id=args.creature("the character", required=True))
    def do_character_remove(self, state: RosterState, command: Command) -> list[Event]:
        ident = str(command.args["id"])
        if ident not in state.characters:
            raise NotListed("character", ident, state.characters, "command.id")
        return [Event("character_removed", {"id": ident})]

    @event("{id} leaves the roster.", id=args.creature("the character"))
    def apply_character_removed(self, state: RosterState,
                                data: kernel_payloads.CharacterRemoved) -> None:
        state.characters = {k: v for k, v in state.characters.items() if k != data["id"]}
        state.pictures = {k: v for k, v in state.pictures.items()
                          if k != f"character:{data['id']}"}  # its picture goes with it

    @command("Write back what lasts of characters after an encounter (the ruleset's "
             "lasting state of each).",
             encounter=args.text("the encounter they leave", required=True, max_len=64),
             name=args.text("the encounter's name"),
             version=args.integer("the encounter's version it was read at", lo=0,
                                  hi=2**53),
             characters=args.mapping("each character's lasting state, by id",
                                     required=True))
    def do_write_back(self, state: RosterState, command: Command) -> list[Event]:
        given = command.args["characters"]
        if not given:
            raise InvalidArgument("write_back: name at least one character",
                                  "command.characters")
        lasting: dict[str, dict[str, Any]] = {}
        for ident, value in given.items():
            record = state.characters.get(ident)
            if record is None:
                raise NotListed("character", ident, state.characters,
                                f"command.characters.{ident}")
            if not isinstance(value, Mapping):
                raise InvalidArgument(f"write_back: {ident}'s lasting state is an object of "
                                      "stat-block keys", f"command.characters.{ident}")
            self._check(state, ident, record, value, f"command.characters.{ident}")
            lasting[ident] = dict(value)
        data: dict[str, Any] = {"encounter": command.args["encounter"]}
        for key in ("name", "version"):
            if key in command.args:
                data[key] = command.args[key]
        return [Event("written_back", {**data, "who": list(lasting), "characters": lasting})]

    @event("The lasting state of {who} is written back from the encounter [{name} ]"
           "({encounter}).",
           encounter=args.text("the encounter they left"),
           name=args.text("its name"),
           version=args.integer("the encounter's version it was read at"),
           who=args.creatures("the characters"),
           characters=args.mapping("each character's lasting state"),
           optional=("name", "version"))
    def apply_written_back(self, state: RosterState, data: kernel_payloads.WrittenBack) -> None:
        characters = dict(state.characters)
        for ident, lasting in data["characters"].items():
            if ident in characters:
                characters[ident] = {**characters[ident], "lasting": dict(lasting)}
        state.characters = characters

    # -- the bestiary -------------------------------------------------------------------
    @command("Save a creature in the game master's bestiary (new, or replacing the entry): "
             "a stat block usable as a template in the campaign's encounters.", open=True,
             id=args.creature("the entry's id, its template name", required=True),
             name=args.text("the creature's name"),
             template=args.text("a template the ruleset ships, to build on", max_len=64),
             notes=args.text("the game master's notes", max_len=4000),
             new=args.flag("refused when the bestiary has it already (a new entry)"))
    def do_creature_save(self, state: RosterState, command: Command) -> list[Event]:
        ident = str(command.args["id"])
        if command.args.get("new") and ident in state.bestiary:
            raise AlreadyListed(f"the bestiary already has {ident!r} (PUT changes it)")
        if ident in self.ruleset.templates:
            raise IllegalCommand(f"{ident!r} is a template {self.ruleset.name} ships: the "
                                 "bestiary takes other names (shipped templates stay as "
                                 "they are)")
        template = command.args.get("template")
        if template is not None and template not in self.ruleset.templates:
            shipped = ", ".join(sorted(self.ruleset.templates)) or "none"
            raise InvalidArgument(f"a bestiary entry builds on a template {self.ruleset.name} "
                                  f"ships ({shipped}), not {template!r}", "command.template")
        if "lasting" in command.args:
            raise InvalidArgument("a bestiary entry has no lasting state (a character has)",
                                  "command.lasting")
        entry = {"id": ident, **{k: v for k, v in command.args.items()
                                 if k not in ("id", "new")}}
        _check_names(entry)
        self._check(state, ident, entry)
        after = state.copy()
        after.bestiary[ident] = entry
        for cid, record in sorted(state.characters.items()):
            if record.get("template") == ident:  # the characters built on it still build
                try:
                    self._check(after, cid, record, record.get("lasting"))
                except InvalidCommand as err:
                    raise IllegalCommand(f"character {cid} is built on {ident!r} and would "
                                         f"no longer be: {err}") from None
        return [Event("creature_saved", {"id": ident, "creature": entry,
                                         "new": ident not in state.bestiary})]

    @event("The bestiary {new?gains|updates} {id}.", id=args.text("the entry"),
           creature=args.mapping("its stat block"), new=args.flag("a new entry"))
    def apply_creature_saved(self, state: RosterState, data: kernel_payloads.CreatureSaved) -> None:
        state.bestiary = {**state.bestiary, data["id"]: dict(data["creature"])}

    @command("Take a creature out of the bestiary.",
             id=args.creature("the entry", required=True))
    def do_creature_remove(self, state: RosterState, command: Command) -> list[Event]:
        ident = str(command.args["id"])
        if ident not in state.bestiary:
            raise NotListed("bestiary entry", ident, state.bestiary, "command.id")
        users = sorted(c for c, r in state.characters.items() if r.get("template") == ident)
        if users:
            one = len(users) == 1
            raise IllegalCommand(f"{', '.join(users)} {'is' if one else 'are'} built on "
                                 f"{ident!r}: change {'its' if one else 'their'} template "
                                 "first")
        return [Event("creature_removed", {"id": ident})]

    @event("The bestiary loses {id}.", id=args.text("the entry"))
    def apply_creature_removed(self, state: RosterState,
                               data: kernel_payloads.CreatureRemoved) -> None:
        state.bestiary = {k: v for k, v in state.bestiary.items() if k != data["id"]}
        state.pictures = {k: v for k, v in state.pictures.items()
                          if k != f"creature:{data['id']}"}

    # -- token pictures -----------------------------------------------------------------
    @command("A roster character's or a bestiary creature's token picture (the picture "
             "routes upload it and set it here), or none: a creature joining an encounter "
             "from there shows it on the map and in the turn order.",
             kind=args.choice("a roster character or a bestiary creature", *PICTURED,
                              required=True),
             id=args.creature("the character or the bestiary entry", required=True),
             image=args.text("the image's content hash, or '' for none", max_len=64,
                             required=True))
    def do_picture(self, state: RosterState, command: Command) -> list[Event]:
        kind, ident, image = (str(command.args[k]) for k in ("kind", "id", "image"))
        listed = state.characters if kind == "character" else state.bestiary
        if ident not in listed:
            raise NotListed("character" if kind == "character" else "bestiary entry", ident,
                            listed, "command.id")
        if image and not HASH.fullmatch(image):
            raise InvalidArgument("picture: image is the content hash of an uploaded image "
                                  "(64 hexadecimal digits), or '' for none", "command.image")
        if (state.picture(kind, ident) or "") == image:
            raise IllegalCommand(f"{ident} already has this picture" if image
                                 else f"{ident} has no picture")
        return [Event("picture_set", {"kind": kind, "id": ident, "image": image})]

    @event("{id}'s token {image?has a new picture|shows its initials again}.",
           kind=args.text("character or creature"), id=args.text("whose picture"),
           image=args.text("the image's content hash"),
           optional=("image",))
    def apply_picture_set(self, state: RosterState, data: kernel_payloads.PictureSet) -> None:
        key = f"{data['kind']}:{data['id']}"
        pictures = {k: v for k, v in state.pictures.items() if k != key}
        if data["image"]:
            pictures[key] = data["image"]
        state.pictures = pictures


    # -- time between encounters --------------------------------------------------------
    @command("Let campaign time pass between encounters: each character's lasting state "
             "changes as the ruleset says (healing, recovery rolls, conditions running "
             "out).",
             amount=args.integer("how many units", lo=1, hi=9999, required=True),
             unit=args.choice("minutes, hours or days", *UNITS, default="hours"),
             activity=args.text("what the characters do meanwhile: one of the ruleset's "
                                "activities (rest, none...; the first is the default)",
                                max_len=32),
             characters=args.creatures("the characters it passes for (default: all)"))
    def do_advance_time(self, state: RosterState, command: Command,
                        dice: DiceSource) -> list[Event]:
        amount = int(command.args["amount"])
        unit = str(command.args.get("unit", "hours"))
        activities = self.ruleset.time_activities
        activity = str(command.args.get("activity") or activities[0])
        if activity not in activities:
            raise InvalidArgument(f"the activity is one of {', '.join(activities)} "
                                  f"({self.ruleset.name}), not {activity!r}",
                                  "command.activity")
        given = command.args.get("characters")
        who = list(state.characters) if given is None else [str(c) for c in given]
        for i, ident in enumerate(who):
            if ident not in state.characters:
                raise NotListed("character", ident, state.characters,
                                f"command.characters.{i}")
            if who.index(ident) != i:
                raise InvalidArgument(f"{ident!r} is named twice", f"command.characters.{i}")
        lasting: dict[str, dict[str, Any]] = {}
        happened: dict[str, list[str]] = {}
        names = self.names(state)
        for ident in who:
            spec = self.joining(state, ident)
            spec.pop("id")
            try:
                after, events = self.ruleset.pass_time(spec, ident, amount, unit, activity,
                                                       dice, self.rulings)
            except InvalidArgument:
                raise
            except IllegalCommand as err:
                raise IllegalCommand(f"time cannot pass for {ident}: {err.reason}",
                                     err.rule) from None
            except RulesError as refused:  # (not ``err``: tests/core/test_compilable.py)
                raise InvalidCommand(f"time cannot pass for {ident}: {refused}") from None
            lasting[ident] = json.loads(json.dumps(after, allow_nan=False))
            said = [self.ruleset.describe(e.type, e.data, names) for e in events
                    if e.type not in QUIET]
            if len(said) > SAID:
                said = [*said[:SAID - 1], f"... and {len(said) - SAID + 1} more events"]
            happened[ident] = said
        return [Event("time_advanced", {
            "amount": amount, "unit": unit, "seconds": amount * UNITS[unit],
            "activity": activity, "clock": state.clock + amount * UNITS[unit], "who": who,
            "characters": lasting, "happened": happened})]

    @event("{amount} {unit} pass ({activity})[ for {who}].",
           amount=args.integer("how many units"), unit=args.text("minutes, hours or days"),
           seconds=args.integer("the time passed, in seconds"),
           activity=args.text("what the characters did"),
           clock=args.integer("the campaign's time after, in seconds"),
           who=args.creatures("the characters"),
           characters=args.mapping("each character's lasting state after"),
           happened=args.mapping("what happened to each, as sentences"))
    def apply_time_advanced(self, state: RosterState, data: kernel_payloads.TimeAdvanced) -> None:
        characters = dict(state.characters)
        for ident, lasting in data["characters"].items():
            if ident in characters:
                characters[ident] = {**characters[ident], "lasting": dict(lasting)}
        state.characters = characters
        state.clock = int(data["clock"])

    # -- settings -----------------------------------------------------------------------
    @command("Change the campaign's settings: the dice dialect of its dice box, and whether "
             "players type the dice they throw.",
             dice_dialect=args.choice("how the dice box reads notation (docs/dice.md)",
                                      *DIALECTS),
             players_roll=args.flag("players may type the dice they threw for their own "
                                    "characters' commands (off: the server rolls them)",
                                    default=None))
    def do_configure(self, state: RosterState, command: Command) -> list[Event]:
        given = {k: command.args[k] for k in ("dice_dialect", "players_roll")
                 if command.args.get(k) is not None}
        if not given:
            raise InvalidCommand("configure: give a setting to change (dice_dialect, "
                                 "players_roll)")
        return [Event("configured", {"settings": given})]

    @event("The campaign's settings change: {settings}.",
           settings=args.mapping("the settings changed"))
    def apply_configured(self, state: RosterState, data: kernel_payloads.Configured) -> None:
        state.settings = {**state.settings, **data["settings"]}

    # -- saved scenes -------------------------------------------------------------------
    @command("Save a scene under a name: the commands that rebuild an encounter's map (the "
             "server reads them from the encounter: scene/save).",
             name=args.text("the scene's name", required=True, max_len=100),
             commands=args.items("the commands, each {'do': ...}", required=True))
    def do_scene_save(self, state: RosterState, command: Command) -> list[Event]:
        name = str(command.args["name"])
        problem = name_problem(name)
        if problem:
            raise InvalidArgument(f"name: {problem}", "command.name")
        commands = command.args["commands"]
        if len(commands) > SCENE_COMMANDS:
            raise IllegalCommand(f"the scene takes {len(commands)} commands to rebuild: at "
                                 f"most {SCENE_COMMANDS} (fewer painted squares)")
        if not all(isinstance(c, dict) and isinstance(c.get("do"), str) for c in commands):
            raise InvalidArgument("commands: each is a command, {'do': ...}", "commands")
        if name not in state.scenes and len(state.scenes) >= SCENES:
            raise IllegalCommand(f"the campaign keeps {SCENES} scenes at most: delete one")
        return [Event("scene_saved", {"name": name, "commands": list(commands)})]

    @event("The scene {name} is saved.", name=args.text("the scene's name"),
           commands=args.items("the commands that rebuild it"))
    def apply_scene_saved(self, state: RosterState, data: kernel_payloads.SceneSaved) -> None:
        state.scenes = {**state.scenes, data["name"]: list(data["commands"])}


SCENE_COMMANDS = 100
"""Commands a saved scene may hold (those a batch may: ``BATCH_LIMIT``)."""
SCENES = 200
"""Saved scenes a campaign may keep."""


def events_of_roster() -> dict[str, EventSpec]:
    """Every event type of the campaign log, by name."""
    return _events_of(Roster)


__all__ = ["JOIN_ARGUMENTS", "RESERVED", "AlreadyListed", "NotListed", "Roster",
           "RosterState", "block", "events_of_roster", "lasting_conditions", "merge"]
