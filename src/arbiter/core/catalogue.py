"""The command catalogue: every command declared once, beside its handler.

A handler ``do_attack`` carries its declaration::

    @command("Attack a creature with a weapon.", who="player", actor="required",
             rules=("R-ATK-1",), cost="action",
             target=creature("the creature attacked", refers="enemy", required=True),
             bonus=integer("a situational bonus", lo=-20, hi=20))
    def do_attack(self, state, command, dice): ...

From the declarations alone come: argument validation (:meth:`CommandSpec.validate`: an
unknown argument with the nearest valid name, a wrong type, a value out of bounds, a
missing required argument, each an :class:`InvalidArgument` naming the field), who may
issue a command (:func:`authorize`: the game master only, or the controller of its actor
on that creature's turn or at any time), the JSON Schema of each command's arguments (for
``/openapi.json`` and the console's forms), ``arbiter commands`` and the command tables of
``docs/rulesets/*.md``.

Validation is done by msgspec: each declaration compiles once into a ``msgspec.Struct``
type that forbids unknown fields, and ``msgspec.convert`` checks a command's arguments
against it (about a microsecond; see ``bench/sim.py``). The JSON Schema is msgspec's own.
"""

from __future__ import annotations

import difflib
import keyword
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, Literal, Optional, TypeVar

import msgspec

from .errors import InvalidCommand, RulesError
from .events import Command

Who = Literal["gm", "player"]
"""Who may issue a command: the game master only, or a player for a creature they control
(the game master may always issue it too)."""
When = Literal["turn", "any"]
"""When a player may issue it: ``turn``, on the acting creature's turn in turn-by-turn play
(at any time outside it); ``any``, also on another's turn (a reaction or a free action the
rules allow then)."""
ActorUse = Literal["required", "optional", "none"]
Role = Literal["", "move", "place", "area", "paint", "zone", "region"]
"""What the map does with a command (:attr:`CommandSpec.role`); ``""`` for none."""
ROLES: tuple[Role, ...] = ("", "move", "place", "area", "paint", "zone", "region")
Refers = Literal["self", "own", "ally", "enemy", "any"]
"""Whom a creature argument may name: ``self`` the actor itself, ``own`` a creature the
issuer controls, ``ally``/``enemy`` a hint for pickers (the rules decide legality), ``any``
any creature or object the issuer can see."""
ArgKind = Literal["creature", "creatures", "integer", "number", "flag", "choice", "text",
                  "dice", "square", "squares", "mapping", "list", "command", "value"]
ROLE_ARGS: dict[Role, dict[str, tuple[ArgKind, ...]]] = {
    "paint": {"squares": ("squares",)},
    "zone": {"id": ("text",), "adjacent": ("list",)},
    "region": {"zone": ("text",), "x": ("integer",), "y": ("integer",),
               "width": ("integer",), "height": ("integer",)},
}
"""The arguments the map fills for a command of each role (name: the kinds it may be);
a command declaring the role is refused when it lacks one. ``paint`` may take one more, a
``choice`` of what to paint or a ``flag`` (clear); ``zone`` may take an ``indoor`` flag."""

ID_PATTERN = r"^[\w-]{1,64}$"
DICE_PATTERN = r"^[\x20-\x7e]{1,200}$"
TEXT_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$"
"""Text of any length with no control character but tab and line breaks."""
MAX_ITEMS = 1000
F = TypeVar("F", bound=Callable[..., Any])


class InvalidArgument(InvalidCommand):
    """A command's argument breaks its declaration; ``field`` names it (``command.bonus``)."""

    def __init__(self, message: str, field: str | None) -> None:
        self.field = field
        super().__init__(message)


class NotAllowed(RulesError):
    """The issuer may not give this command (a player naming the GM's command, or a creature
    they do not control, or acting out of turn); ``field`` names what is wrong."""

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Arg:
    """One declared argument of a command."""

    kind: ArgKind
    help: str = ""
    required: bool = False
    default: Any = None
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] = ()
    refers: Refers = "any"
    max_len: int = 200
    who: Who = "player"
    """Who may set it in a player's command: ``player``, or ``gm`` for a number or a fact
    the rules leave to the game master (a Difficulty Score, a situational modifier, a cost,
    whether the target knows something). A player's command that carries a ``gm`` argument
    is refused (:func:`authorize`); left out, its default applies. In a game master's
    command every argument is the GM's."""
    keys: tuple[str, ...] = ()
    """For a ``mapping``: the only keys it may hold, each a whole number in ``lo..hi``."""

    def python_type(self) -> Any:
        """The type msgspec checks a value against."""
        kind = self.kind
        if kind == "creature":
            return Annotated[str, msgspec.Meta(pattern=ID_PATTERN,
                                               description="a creature or object id")]
        if kind == "creatures":
            item = Annotated[str, msgspec.Meta(pattern=ID_PATTERN)]
            return Annotated[list[item], msgspec.Meta(max_length=200)]
        if kind == "integer":
            return Annotated[int, msgspec.Meta(ge=self.lo, le=self.hi)]
        if kind == "number":
            return Annotated[float, msgspec.Meta(ge=self.lo, le=self.hi)]
        if kind == "flag":
            return bool
        if kind == "choice":
            return Literal[self.choices]
        if kind == "text":
            return Annotated[str, msgspec.Meta(max_length=self.max_len, pattern=TEXT_PATTERN)]
        if kind == "dice":
            return Annotated[str, msgspec.Meta(pattern=DICE_PATTERN,
                                               description="dice notation (docs/dice.md)")]
        coordinate = Annotated[int, msgspec.Meta(ge=-100_000, le=100_000)]
        square = tuple[coordinate, coordinate]
        if kind == "square":
            return square
        if kind == "squares":
            return Annotated[list[square], msgspec.Meta(max_length=MAX_ITEMS)]
        if kind == "mapping":
            if self.keys:
                amount = Annotated[int, msgspec.Meta(ge=self.lo, le=self.hi)]
                return Annotated[dict[Literal[self.keys], amount],  # type: ignore[name-defined]
                                 msgspec.Meta(max_length=len(self.keys))]
            return Annotated[dict[str, Any], msgspec.Meta(max_length=200)]
        if kind == "list":
            return Annotated[list[Any], msgspec.Meta(max_length=MAX_ITEMS)]
        if kind == "command":
            return Annotated[dict[str, Any], msgspec.Meta(
                max_length=64, description="a command of this ruleset: {'do': ..., ...}")]
        return Any  # "value": anything JSON (the GM's override)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "help": self.help, "required": self.required}
        if self.default is not None:
            out["default"] = self.default
        if self.kind == "integer" or self.kind == "number":
            out["min"], out["max"] = self.lo, self.hi
        if self.choices:
            out["choices"] = list(self.choices)
        if self.kind in ("creature", "creatures"):
            out["refers"] = self.refers
        if self.keys:
            out["keys"], out["min"], out["max"] = list(self.keys), self.lo, self.hi
        out["who"] = self.who
        return out


def creature(help: str = "", *, refers: Refers = "any", required: bool = False,
             who: Who = "player") -> Arg:
    """The id of a creature or object in the encounter."""
    return Arg("creature", help, required, refers=refers, who=who)


def creatures(help: str = "", *, refers: Refers = "any", required: bool = False,
              who: Who = "player") -> Arg:
    """A list of creature or object ids."""
    return Arg("creatures", help, required, refers=refers, who=who)


def integer(help: str = "", *, lo: int = -9999, hi: int = 9999, default: int | None = None,
            required: bool = False, who: Who = "player") -> Arg:
    """A whole number between ``lo`` and ``hi``."""
    return Arg("integer", help, required, default, lo=lo, hi=hi, who=who)


def number(help: str = "", *, lo: int = -9999, hi: int = 9999, required: bool = False,
           who: Who = "player") -> Arg:
    """A number (whole or not) between ``lo`` and ``hi``."""
    return Arg("number", help, required, lo=lo, hi=hi, who=who)


def flag(help: str = "", *, default: bool | None = False, who: Who = "player") -> Arg:
    """True or false; with ``default=None`` a handler reads ``None`` when it is left out
    (the rules then work the answer out from the state)."""
    return Arg("flag", help, False, default, who=who)


def choice(help: str, *values: str, default: str | None = None,
           required: bool = False, who: Who = "player") -> Arg:
    """One of a closed set of words."""
    if not values:
        raise ValueError("a choice needs values")
    return Arg("choice", help, required, default, choices=tuple(values), who=who)


def text(help: str = "", *, required: bool = False, default: str | None = None,
         max_len: int = 200, who: Who = "player") -> Arg:
    """Free text (a name the rules look up, a reason, a note)."""
    return Arg("text", help, required, default, max_len=max_len, who=who)


def dice(help: str = "", *, required: bool = False, default: str | None = None,
         who: Who = "player") -> Arg:
    """Dice notation, ASCII only (``2d6+3``)."""
    return Arg("dice", help, required, default, who=who)


def square(help: str = "", *, required: bool = False, who: Who = "player") -> Arg:
    """A grid square ``[x, y]`` (a tuple to the handler)."""
    return Arg("square", help, required, who=who)


def squares(help: str = "", *, required: bool = False, who: Who = "player") -> Arg:
    """A list of grid squares ``[[x, y], ...]`` (tuples to the handler)."""
    return Arg("squares", help, required, who=who)


def mapping(help: str = "", *, required: bool = False, keys: tuple[str, ...] = (),
            lo: int = 0, hi: int = 9999, who: Who = "player") -> Arg:
    """An object of names to values (checked further by the handler); with ``keys``, only
    those names, each a whole number in ``lo..hi`` (a cost ``{sp, fp}``)."""
    if keys:
        return Arg("mapping", help, required, keys=tuple(keys), lo=lo, hi=hi, who=who)
    return Arg("mapping", help, required, who=who)


def items(help: str = "", *, required: bool = False, who: Who = "player") -> Arg:
    """A list (checked further by the handler)."""
    return Arg("list", help, required, who=who)


def nested(help: str = "", *, required: bool = False, who: Who = "player") -> Arg:
    """A command of the same ruleset, checked with the same rules as if issued directly."""
    return Arg("command", help, required, who=who)


def value(help: str = "", *, required: bool = False, who: Who = "player") -> Arg:
    """Any JSON value (the GM's override)."""
    return Arg("value", help, required, who=who)


def key_attribute(key: str) -> str:
    """The attribute a handler reads argument ``key`` by: the key itself, or ``with_`` for
    a name Python reserves."""
    return f"{key}_" if keyword.iskeyword(key) else key


@dataclass(frozen=True)
class CommandSpec:
    """The declaration of one command."""

    name: str
    summary: str
    args: Mapping[str, Arg]
    who: Who = "gm"
    when: When = "turn"
    actor: ActorUse = "none"
    rules: tuple[str, ...] = ()
    cost: str = ""
    open: bool = False
    """Its arguments are also a stat block (``add``), checked by the ruleset's
    ``make_entity``: names beyond the declared ones are let through."""
    off_turn: tuple[str, ...] = ()
    """Arguments that make a ``when="turn"`` command a reaction the rules allow on another
    creature's turn (realms' ``attack`` with ``reaction``): given one, a player may send it
    then, and the rules decide whether the reaction is there to take."""
    role: Role = ""
    """What the map does with it (docs/web.md, "The map"): ``move`` (a creature moves itself:
    a dragged token on its turn), ``place`` (the GM puts a creature somewhere: a token
    dropped off its turn), ``area`` (aims an area weapon: at a creature, or at a ``zone``).
    A ruleset gives ``move`` and ``place`` to one command each, and ``area`` to one command
    per aim (one taking a ``target`` creature, one taking a ``zone``). The game master's
    map tools: ``paint`` (marks squares: walls, difficult terrain), ``zone`` (describes a
    zone and the zones next to it), ``region`` (draws a zone on the scene's image); their
    arguments are :data:`ROLE_ARGS`'s."""
    looks_past: bool = False
    """Its handler looks past the events its result begins with through ``Ruleset.past``:
    the simulator's ``Ruleset.advance`` lets it apply them to the state in place (a hint:
    without it ``past`` is a plain lookahead)."""
    topic: str = ""
    """The topic module that declares it (``attacks``, ``movement``, ``checks``...: each means
    the same in every ruleset, docs/extending.md; ``ruleset`` for the kernel's): the
    console groups a creature's actions by it. Read from the declaring class when the
    catalogue is built (:func:`catalogue_of`): a compiled method has no ``__module__``."""
    _struct: Any = field(default=None, compare=False, repr=False)

    @property
    def struct(self) -> Any:
        """The msgspec Struct type of the arguments, made on first use: frozen, a field per
        argument under its :func:`key_attribute` name, holding its default when left out
        (``None`` for an argument without one)."""
        made = self._struct
        if made is None:
            fields: list[tuple[str, Any, Any]] = []
            for key, arg in self.args.items():
                kind = arg.python_type()
                name = key_attribute(key)
                rename = key if name != key else None
                if arg.required:
                    fields.append((name, kind, msgspec.field(name=rename)))
                elif arg.default is None:
                    optional = Optional[kind]  # type: ignore[valid-type]  # noqa: UP045 (a runtime type)
                    fields.append((name, optional, msgspec.field(default=None, name=rename)))
                else:
                    fields.append((name, kind, msgspec.field(default=arg.default,
                                                             name=rename)))
            made = msgspec.defstruct(
                "".join(p.title() for p in self.name.split("_")) + "Args", fields,
                kw_only=True, frozen=True, forbid_unknown_fields=not self.open)
            object.__setattr__(self, "_struct", made)
        return made

    def parse(self, command: Command) -> Any:
        """The command's arguments as this declaration types them (an instance of
        :attr:`struct`: each argument by name, validated, defaulted), or
        :class:`InvalidArgument` naming what breaks the declaration (``binding.parse_args``,
        compiled in the compiled build). (A memo of the parsed arguments by their plain
        values saved 1-2.5% of an encounter's instructions when measured again for issue
        37, bench/tricks.py: under 5%, so it was dropped.)"""
        from .binding import parse_args  # it imports this module

        return parse_args(self, command)

    def validate(self, command: Command) -> None:
        """Raise :class:`InvalidArgument` when ``command`` breaks this declaration."""
        self.parse(command)

    def explain(self, message: str) -> InvalidArgument:
        """msgspec's message as a sentence naming the field."""
        where = _AT.search(message)
        path = where[1].replace("[...]", "") if where else ""
        head = _AT.sub("", message)
        unknown = _UNKNOWN.match(head)
        if unknown and not path:
            key = unknown[1]
            near = difflib.get_close_matches(key, list(self.args), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            known = ", ".join(self.args) or "none"
            return InvalidArgument(f"{self.name}: no argument {key!r}{hint} (it takes: "
                                   f"{known})", f"command.{key}")
        missing = _MISSING.match(head)
        if missing and not path:
            key = missing[1]
            return InvalidArgument(f"{self.name}: missing argument {key!r} "
                                   f"({self.args[key].help or self.args[key].kind})",
                                   f"command.{key}")
        key = path.split(".")[0].split("[")[0] if path else ""
        arg = self.args.get(key)
        if arg is not None:
            return InvalidArgument(f"{self.name}: {path!r} must be {_expected(arg)}",
                                   f"command.{path}")
        return InvalidArgument(f"{self.name}: {head}", f"command.{path}" if path else "command")

    def to_json(self) -> dict[str, Any]:
        out = {"name": self.name, "summary": self.summary, "who": self.who,
               "when": self.when, "actor": self.actor, "rules": list(self.rules),
               "cost": self.cost, "args": {k: a.to_json() for k, a in self.args.items()}}
        if self.off_turn:
            out["off_turn"] = list(self.off_turn)
        if self.role:
            out["role"] = self.role
        if self.topic:
            out["topic"] = self.topic
        return out

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of a command object ``{"do": name, "actor"?, ...args}``."""
        (body,), components = msgspec.json.schema_components([self.struct],
                                                             ref_template="{name}")
        args = dict(components[body["$ref"]])
        props: dict[str, Any] = {"do": {"const": self.name}}
        if self.actor != "none":
            props["actor"] = {"type": "string", "pattern": ID_PATTERN}
        props.update(args.get("properties", {}))
        required = ["do", *args.get("required", [])]
        if self.actor == "required":
            required.insert(1, "actor")
        out: dict[str, Any] = {"title": self.name, "description": self.summary,
                               "type": "object", "properties": props, "required": required}
        if not self.open:
            out["additionalProperties"] = False
        return out


_AT = re.compile(r" - at (?:`key` in )?`\$\.?([^`]*)`")
_UNKNOWN = re.compile(r"Object contains unknown field `([^`]*)`")
_MISSING = re.compile(r"Object missing required field `([^`]*)`")


def _expected(arg: Arg) -> str:
    kind = arg.kind
    if kind == "integer":
        return f"a whole number from {arg.lo} to {arg.hi}"
    if kind == "number":
        return f"a number from {arg.lo} to {arg.hi}"
    if kind == "choice":
        return "one of " + ", ".join(arg.choices)
    if kind == "flag":
        return "true or false"
    if kind == "creature":
        return "a creature id (letters, digits, '-' and '_')"
    if kind == "creatures":
        return "a list of creature ids"
    if kind == "text":
        return f"text of at most {arg.max_len} characters"
    if kind == "dice":
        return "dice notation such as 2d6+3 (ASCII, at most 200 characters)"
    if kind == "square":
        return "a square [x, y] in whole numbers"
    if kind == "squares":
        return f"a list of squares [[x, y], ...] (at most {MAX_ITEMS})"
    if kind == "mapping":
        if arg.keys:
            return (f"an object of {', '.join(arg.keys)}, each a whole number from {arg.lo} "
                    f"to {arg.hi}")
        return "an object"
    if kind == "list":
        return f"a list (at most {MAX_ITEMS} items)"
    if kind == "command":
        return "a command object {\"do\": ...}"
    return "a JSON value"


def command(summary: str, *, who: Who = "gm", when: When = "turn", actor: ActorUse = "none",
            rules: tuple[str, ...] = (), cost: str = "", open: bool = False,
            off_turn: tuple[str, ...] = (), role: Role = "", looks_past: bool = False,
            **args: Arg) -> Callable[[F], F]:
    """Declare the command a ``do_*`` handler implements (see the module's description)."""
    def mark(fn: F) -> F:
        name = _name_of(fn, "do_")
        unknown = [k for k in off_turn if k not in args]
        if unknown:
            raise TypeError(f"{name or summary!r}: off_turn names undeclared arguments "
                            f"{unknown}")
        if role not in ROLES:
            raise TypeError(f"{name or summary!r}: role {role!r} is none of {ROLES}")
        missing = [f"{arg} ({'/'.join(kinds)})" for arg, kinds in ROLE_ARGS.get(role, {}).items()
                   if arg not in args or args[arg].kind not in kinds]
        if missing:
            raise TypeError(f"{name or summary!r}: role {role!r} needs the arguments "
                            f"{', '.join(missing)}")
        declare(fn, CommandSpec(name, summary, dict(args), who, when, actor, rules, cost, open,
                                off_turn, role, looks_past))
        return fn
    return mark


def extends(summary: str | None = None, **args: Arg) -> Callable[[F], F]:
    """Declare an override of an inherited command that reads more arguments: the nearest
    declaration up the class tree, with ``args`` added (and ``summary`` if given)."""
    def mark(fn: F) -> F:
        declare(fn, Extension(summary, dict(args)))
        return fn
    return mark


@dataclass(frozen=True)
class Extension:
    """What :func:`extends` adds to the declaration it extends."""

    summary: str | None
    args: Mapping[str, Arg]


_DECLARATIONS: dict[Any, CommandSpec | EventSpec | Extension] = {}
"""The declarations of handlers, by the function: a registry rather than an attribute of
the function, because a method mypyc compiles (``make fast``) takes no attribute and has no
``__name__``. A declaration made without the name learns it from the class attribute the
first time the catalogue is read (:func:`declaration`)."""


def declare(fn: Any, spec: CommandSpec | EventSpec | Extension) -> None:
    """Record (or replace) the declaration of the handler ``fn``."""
    _DECLARATIONS[fn] = spec


def declaration(fn: Any, attr: str = "") -> CommandSpec | EventSpec | Extension | None:
    """The declaration of the handler ``fn`` (``None`` without one), named after ``attr``
    (``do_attack``, ``apply_attacked``) when it was declared without its name."""
    spec = _DECLARATIONS.get(fn)
    if attr and isinstance(spec, CommandSpec) and not spec.name:
        spec = _DECLARATIONS[fn] = replace(spec, name=attr.removeprefix("do_"))
    elif attr and isinstance(spec, EventSpec) and not spec.type:
        spec = _DECLARATIONS[fn] = replace(spec, type=attr.removeprefix("apply_"))
    return spec


def _name_of(fn: Any, prefix: str) -> str:
    """A handler's name without its prefix, or "" for a compiled method (named later)."""
    name: str = getattr(fn, "__name__", "")
    return name.removeprefix(prefix)


_CATALOGUES: dict[type, dict[str, CommandSpec]] = {}


def catalogue_of(kind: type) -> dict[str, CommandSpec]:
    """Every command of a ruleset class, by name (sorted), built once per class. A ``do_*``
    method without a declaration of its own takes the nearest one up the class tree."""
    found = _CATALOGUES.get(kind)
    if found is not None:
        return found
    out: dict[str, CommandSpec] = {}
    for attr in sorted(a for a in dir(kind) if a.startswith("do_")):
        spec = _declared(kind, attr)
        if spec is None:
            raise TypeError(f"{kind.__name__}.{attr} has no @command declaration")
        out[spec.name] = spec
    _CATALOGUES[kind] = out
    return out


def _declared(kind: type, attr: str) -> CommandSpec | None:
    for index, klass in enumerate(kind.__mro__):
        fn = klass.__dict__.get(attr)
        if fn is None:
            continue
        spec = declaration(fn, attr)
        if isinstance(spec, CommandSpec):
            if not spec.topic:  # its class's module (a compiled method has no __module__)
                spec = _DECLARATIONS[fn] = replace(
                    spec, topic=klass.__module__.rpartition(".")[2])
            return spec
        if isinstance(spec, Extension):
            base = _declared(kind.__mro__[index + 1], attr) if index + 1 < len(
                kind.__mro__) else None
            if base is None:
                raise TypeError(f"{klass.__name__}.{attr} extends no declaration")
            return replace(base, summary=spec.summary or base.summary,
                           args={**base.args, **spec.args}, _struct=None)
    return None


# -- authority ---------------------------------------------------------------------------
def authorize(catalogue: Mapping[str, CommandSpec], command: Command, controls: frozenset[str],
              current: str | None, in_combat: bool, names: Mapping[str, str] | None = None,
              depth: int = 0, shape: bool = True) -> None:
    """Refuse, with :class:`NotAllowed`, a command a player who controls ``controls`` may
    not issue: a game master's command, an actor they do not control, a turn that is not
    the actor's, a creature argument that must be their own; a nested command is checked
    as if issued directly. ``current`` is whose turn it is (for ``next``); ``names`` gives
    creatures' names for the messages. The command's shape is checked first
    (:meth:`CommandSpec.validate`; with ``shape`` false it is not, for asking whether a
    player may give a command at all before its arguments are chosen), so nothing here
    depends on who else is in the encounter: a hidden creature and a missing one answer
    alike."""
    spec = catalogue.get(command.name)
    if spec is None:
        raise InvalidArgument(f"no command {command.name!r} (commands: "
                              f"{', '.join(catalogue)})", "command.do")
    if spec.who != "player":
        raise NotAllowed(f"only the game master may use {command.name!r}", "command.do")
    if shape:
        spec.validate(command)
    call = (names or {}).get
    actor = command.actor
    if actor is None and spec.actor == "optional" and command.name == "next":
        actor = current if current in controls else None
        if actor is None:
            raise NotAllowed("you may only end your own character's turn", "command.do")
    if actor is None:
        raise NotAllowed("name which of your characters acts ('actor'); other commands "
                         "are the game master's", "command.actor")
    if actor not in controls:
        mine = ", ".join(sorted(call(c) or c for c in controls)) or "none"
        raise NotAllowed(f"{actor!r} is not one of your characters ({mine})", "command.actor")
    if command.name == "next" and current != actor:
        raise NotAllowed(f"it is not {call(actor) or actor}'s turn: you may only end your own "
                         "character's turn", "command.do")
    if (spec.when == "turn" and in_combat and current != actor and depth == 0
            and not any(command.args.get(k) not in (None, False, "") for k in spec.off_turn)):
        raise NotAllowed(f"it is not {call(actor) or actor}'s turn", "command.do")
    for key, arg in spec.args.items():
        if key not in command.args:
            continue
        if arg.who == "gm":
            raise NotAllowed(f"{command.name}: only the game master may set {key!r} "
                             f"({arg.help or arg.kind}); leave it out", f"command.{key}")
        given = command.args[key]
        if given is None:
            continue
        if arg.kind in ("creature", "creatures") and arg.refers in ("self", "own"):
            for who in ([given] if arg.kind == "creature" else given):
                if arg.refers == "self" and who != actor:
                    raise NotAllowed(f"{command.name}: {key!r} must be the actor itself",
                                     f"command.{key}")
                if arg.refers == "own" and who not in controls:
                    raise NotAllowed(f"{command.name}: {key!r} must be one of your "
                                     "characters", f"command.{key}")
        elif arg.kind == "command":
            if depth >= 2:
                raise InvalidArgument(f"{command.name}: commands nest too deeply",
                                      f"command.{key}")
            inner = Command.from_json({"actor": actor, **given})
            if inner.actor != actor:
                raise NotAllowed(f"{command.name}: the nested command's actor must be "
                                 f"{actor!r}", f"command.{key}.actor")
            authorize(catalogue, inner, controls, current, in_combat, names, depth + 1)


def references(catalogue: Mapping[str, CommandSpec], command: Command) -> list[str]:
    """Every creature id a command names, its actor first (nested commands included)."""
    out: list[str] = [] if command.actor is None else [command.actor]
    spec = catalogue.get(command.name)
    if spec is None:
        return out
    for key, arg in spec.args.items():
        given = command.args.get(key)
        if given is None:
            continue
        if arg.kind == "creature" and isinstance(given, str):
            out.append(given)
        elif arg.kind == "creatures" and isinstance(given, list):
            out.extend(x for x in given if isinstance(x, str))
        elif arg.kind == "command" and isinstance(given, dict):
            try:
                inner = Command.from_json({"actor": command.actor, **given})
            except RulesError:
                continue
            out.extend(references(catalogue, inner))
    return out


# -- documents -----------------------------------------------------------------------------
def _arg_text(name: str, arg: Arg) -> str:
    kind = arg.kind
    if kind in ("integer", "number"):
        shape = f"{arg.lo}..{arg.hi}"
    elif kind == "choice":
        shape = " / ".join(arg.choices)
    elif kind == "creature" and arg.refers != "any":
        shape = f"creature ({arg.refers})"
    else:
        shape = kind
    text = f"`{name}`: {shape}" + (" (GM)" if arg.who == "gm" else "")
    return text if arg.required else f"[{text}]"


def who_text(spec: CommandSpec) -> str:
    """Who may issue a command, in words."""
    if spec.who == "gm":
        return "GM"
    if spec.when == "any":
        return "player, any time"
    if spec.off_turn:
        return f"player, own turn (with {' or '.join(spec.off_turn)}: any time)"
    return "player, own turn"


def markdown(catalogue: Mapping[str, CommandSpec]) -> str:
    """The command table of ``docs/rulesets/*.md`` (between ``<!-- commands -->`` markers;
    ``arbiter commands RULESET --markdown`` prints it, a test checks the docs hold it). In
    a player's command, an argument only the game master may set is marked ``(GM)``."""
    lines = ["| command | who | cost | arguments | what it does | rules |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name, spec in catalogue.items():
        given = ([] if spec.actor == "none" else
                 ["`actor`" if spec.actor == "required" else "[`actor`]"])
        given += [_arg_text(k, a) for k, a in spec.args.items()]
        if spec.open:
            given.append("and the stat block's keys")
        lines.append(f"| `{name}` | {who_text(spec)} | {spec.cost or '-'} | "
                     f"{', '.join(given) or '-'} | {spec.summary} | "
                     f"{', '.join(spec.rules) or '-'} |")
    return "\n".join(lines) + "\n"


BEGIN, END = "<!-- commands:begin (arbiter commands RULESET --markdown) -->", \
    "<!-- commands:end -->"


def with_table(document: str, table: str, markers: tuple[str, str] = (BEGIN, END)) -> str:
    """``document`` with the text between a table's markers (by default the command
    table's) replaced by ``table`` (ValueError when the markers are missing)."""
    begin, finish = markers
    start, end = document.find(begin), document.find(finish)
    if start < 0 or end < start:
        raise ValueError(f"the document has no table markers ({begin} ... {finish})")
    return document[:start + len(begin)] + "\n\n" + table + "\n" + document[end:]


# -- events ------------------------------------------------------------------------------
@dataclass(frozen=True)
class EventSpec:
    """The declaration of one event type: its payload fields and how it reads, once for the
    game master (``gm``) and once for a player who may not see everything (``player``;
    the GM's sentence when not given). Sentences are templates (:func:`render`)."""

    type: str
    fields: Mapping[str, Arg]
    gm: str
    player: str
    module: str = ""
    """The module of the ``apply_*`` method that declares it (its package keeps the payload
    class: :mod:`arbiter.core.payloads`), read from the declaring class by :func:`events_of`."""
    optional: frozenset[str] = frozenset()
    """The fields a payload may lack (or hold as null); every other one is in each."""

    def required(self, name: str) -> bool:
        """Whether every payload of this event holds the field ``name``."""
        return name not in self.optional

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "gm": self.gm, "player": self.player,
                "fields": {k: {**a.to_json(), "required": self.required(k)}
                           for k, a in self.fields.items()}}

    def check(self, data: Mapping[str, Any]) -> list[str]:
        """What is wrong with a payload of this event (empty when it conforms): undeclared
        fields, missing ones, values of the wrong type (:func:`arbiter.core.payloads.problems`)."""
        from .payloads import problems
        return problems(self, data)

    def text(self, data: Mapping[str, Any], names: Mapping[str, str], gm: bool) -> str:
        """The sentence for the game master or for a player, over ``data`` (for a player,
        the payload as the player view shows it: a clause whose field was taken out is
        left out). Creature ids are given as their names."""
        return render(self.gm if gm else self.player, data, names, self.fields)


CARRIED: Mapping[str, Arg] = {
    "economy": Arg("mapping", "what is left of the actor's turn after it (applied by the "
                   "kernel: Ruleset.evolve)"),
}
"""Fields any event may carry, each applied by one kernel rule, not by ``apply_*``."""


def event(gm: str, *, player: str | None = None, shared: Mapping[str, Arg] | None = None,
          optional: tuple[str, ...] = (), **fields: Arg) -> Callable[[F], F]:
    """Declare the event an ``apply_*`` method applies: its payload fields and sentences;
    ``shared`` adds a set of fields several events carry (a roll's, say). Every field is in
    every payload of the event unless ``optional`` names it (then it may be absent or
    null); the :data:`CARRIED` fields are optional in every event."""
    def mark(fn: F) -> F:
        made = {**(shared or {}), **fields}
        made.update((k, a) for k, a in CARRIED.items() if k not in made)
        for sentence in (gm, player or ""):
            stray = _TOKEN.sub("", sentence)
            if "{" in stray or "}" in stray:
                raise TypeError(f"{_name_of(fn, 'apply_')!r}: the sentence {sentence!r} has "
                                "a brace that is no field: a field is {path}, a choice "
                                "{path?then|else} with no field inside (the log would show "
                                "the braces)")
        declare(fn, EventSpec(_name_of(fn, "apply_"), made, gm,
                              gm if player is None else player, "",
                              frozenset(optional) | CARRIED.keys()))
        return fn
    return mark


_EVENTS: dict[type, dict[str, EventSpec]] = {}


def events_of(kind: type) -> dict[str, EventSpec]:
    """Every event type of a ruleset class, by name, built once per class; an ``apply_*``
    method without a declaration of its own takes the nearest one up the class tree."""
    found = _EVENTS.get(kind)
    if found is not None:
        return found
    out: dict[str, EventSpec] = {}
    for attr in sorted(a for a in dir(kind) if a.startswith("apply_") and a != "apply_economy_of"):
        for klass in kind.__mro__:
            fn = klass.__dict__.get(attr)
            spec = declaration(fn, attr) if fn is not None else None
            if isinstance(spec, EventSpec):
                if not spec.module:  # its class's (a compiled method has no __module__)
                    spec = _DECLARATIONS[fn] = replace(spec, module=klass.__module__)
                unknown = sorted(spec.optional - spec.fields.keys())
                if unknown:
                    raise TypeError(f"{kind.__name__}.{attr}: optional names fields it does "
                                    f"not declare: {', '.join(unknown)}")
                out[spec.type] = spec
                break
        else:
            raise TypeError(f"{kind.__name__}.{attr} has no @event declaration")
    _EVENTS[kind] = out
    return out


_TOKEN = re.compile(r"\{([a-z_][a-z0-9_.]*)(?:\?([^|{}]*)\|([^{}]*))?\}|\[|\]")


class _Absent(Exception):
    """A template field is not in the payload: its optional segment is left out."""


def _lookup(data: Mapping[str, Any], path: str) -> Any:
    value: Any = data
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise _Absent(path)
    if value is None:
        raise _Absent(path)
    return value


def _is_null(data: Mapping[str, Any], path: str) -> bool:
    """Whether ``path`` is in ``data`` and null (a field a view took out is not there)."""
    head, _, rest = path.rpartition(".")
    try:
        parent = _lookup(data, head) if head else data
    except _Absent:
        return False
    return isinstance(parent, Mapping) and rest in parent and parent[rest] is None


def _word(value: Any, kind: str | None, names: Mapping[str, str]) -> str:
    if kind in ("creature", "creatures"):
        if isinstance(value, list):
            return ", ".join(names.get(str(v), str(v)) for v in value) or "nobody"
        return names.get(str(value), str(value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_word(v, None, names) for v in value) or "none"
    if isinstance(value, Mapping):
        total = value.get("total", value.get("text"))
        if total is not None:
            return str(total)
        return ", ".join(f"{str(k).replace('_', ' ')} {v}" for k, v in value.items())
    return str(value).replace("_", " ")


def render(template: str, data: Mapping[str, Any], names: Mapping[str, str],
           fields: Mapping[str, Arg] | None = None) -> str:
    """A sentence from ``template`` and an event's payload.

    ``{path}`` is the value at a dotted path (a creature id as its name, a dice result as
    its total); ``{path?then|else}`` is ``then`` when the value is true, else ``else``
    (null is false; a field that is not there leaves both out, like a missing field);
    ``[...]`` is a segment left out when a field inside it is missing or null (so a
    player's sentence simply says less when the view took a number out).

    >>> render("{actor} {hit?hits|misses} {target}[ for {taken}]",
    ...        {"actor": "nia", "target": "ogre", "hit": True}, {"nia": "Nia"},
    ...        {"actor": Arg("creature"), "target": Arg("creature")})
    'Nia hits ogre'
    >>> render("Zone {zone} [is drawn at {rect}]{rect?|is drawn no more}.",
    ...        {"zone": "ruins", "rect": None}, {})
    'Zone ruins is drawn no more.'
    """
    kinds = {k: a.kind for k, a in (fields or {}).items()}
    out: list[list[str]] = [[]]
    missing: list[bool] = [False]
    pos = 0
    for match in _TOKEN.finditer(template):
        out[-1].append(template[pos:match.start()])
        pos = match.end()
        token = match[0]
        if token == "[":
            out.append([])
            missing.append(False)
            continue
        if token == "]":
            if len(out) > 1:
                segment, lost = "".join(out.pop()), missing.pop()
                if not lost:
                    out[-1].append(segment)
            continue
        path = match[1]
        try:
            value = _lookup(data, path)
        except _Absent:
            if match[2] is not None and _is_null(data, path):
                out[-1].append(match[3])  # a choice on a field given as null: its else
            else:
                missing[-1] = True
            continue
        if match[2] is not None:
            out[-1].append(match[2] if value else match[3])
        else:
            out[-1].append(_word(value, kinds.get(path.split(".")[0]), names))
    out[-1].append(template[pos:])
    while len(out) > 1:  # an unclosed segment
        segment, lost = "".join(out.pop()), missing.pop()
        if not lost:
            out[-1].append(segment)
    sentence = " ".join("".join(out[0]).split())
    return sentence[:1].upper() + sentence[1:]


__all__ = [
    "Arg",
    "CommandSpec",
    "EventSpec",
    "InvalidArgument",
    "NotAllowed",
    "authorize",
    "catalogue_of",
    "choice",
    "command",
    "creature",
    "creatures",
    "dice",
    "event",
    "events_of",
    "extends",
    "flag",
    "integer",
    "items",
    "mapping",
    "markdown",
    "nested",
    "number",
    "references",
    "render",
    "square",
    "squares",
    "text",
    "value",
    "who_text",
    "with_table",
]
