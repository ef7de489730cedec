"""Commands (what a person wants) and events (what happened), with schema versions.

Every stored payload carries its schema version ``v``; :func:`upcast` brings an old one up
to date through registered upcasters, one version at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr

from .copying import reduce_fields
from .deferred import Deferred
from .errors import InvalidCommand, SchemaError

EVENT_SCHEMA = 1
"""Current schema version of events (of every type)."""

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register a function that turns a ``from_version`` payload into the next version."""

    def register(fn: Upcaster) -> Upcaster:
        _UPCASTERS[(event_type, from_version)] = fn
        return fn

    return register


def upcast(event_type: str, version: int, data: dict[str, Any]) -> dict[str, Any]:
    if version > EVENT_SCHEMA:
        raise SchemaError(
            f"event {event_type!r} has schema version {version}, newer than this Arbiter "
            f"understands ({EVENT_SCHEMA})"
        )
    while version < EVENT_SCHEMA:
        step = _UPCASTERS.get((event_type, version)) or _UPCASTERS.get(("*", version))
        if step is None:
            raise SchemaError(f"no upcaster for event {event_type!r} from version {version}")
        data = step(data)
        version += 1
    return data


def _written(value: Any) -> Any:
    """``value`` (a payload or part of one) with every :class:`Deferred` in it written out:
    ``value`` itself when it holds none, else a copy of what holds one."""
    kind = type(value)
    if kind is Deferred:
        return value.value()
    if kind is dict:
        items: Iterable[tuple[Any, Any]] = value.items()
    elif kind is list:
        items = enumerate(value)
    else:
        return value
    out: Any = None
    for key, item in items:
        written = _written(item)
        if written is not item:
            if out is None:
                out = kind(value)
            out[key] = written
    return value if out is None else out


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(slots=True)
class Event:
    """Something that happened. ``data`` is plain JSON-compatible values, or
    :class:`Deferred` ones that :meth:`to_json` writes out.

    Treat it as immutable: nothing assigns to an event's fields once it is made. It is not
    a frozen dataclass only because a frozen one is three times slower to build, and rules
    build hundreds of events per simulated encounter. For the same reason it is a native
    class in the compiled build, built by the ``__init__`` written out here (compiled; the
    one ``dataclasses`` writes is not) and read at fixed offsets (docs/performance.md, 34)."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)
    v: int = EVENT_SCHEMA

    def __init__(self, type: str, data: dict[str, Any] | None = None,
                 v: int = EVENT_SCHEMA) -> None:  # performance.md, 34
        self.type = type
        self.data = {} if data is None else data
        self.v = v

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle every field (reduce_fields)
        return reduce_fields(self)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = _written(self.data)
        return {"type": self.type, "v": self.v, "data": data}

    @classmethod
    def from_json(cls, payload: Mapping[str, Any]) -> Event:
        try:
            etype, version = payload["type"], int(payload.get("v", 1))
            data = dict(payload["data"])
        except (KeyError, TypeError, ValueError) as err:
            raise SchemaError(f"malformed event payload: {err}") from None
        if not isinstance(etype, str):
            raise SchemaError(f"malformed event payload: the type must be a name, not {etype!r}")
        if version == EVENT_SCHEMA:  # the common case: nothing to upcast
            return cls(etype, data, version)
        return cls(etype, upcast(etype, version, data))


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(slots=True)
class Command:
    """A request: ``name`` (the ``do`` of a scenario step), an acting entity, arguments.
    Treated as immutable, like :class:`Event` (and not frozen for the same reason); like it
    a native class in the compiled build, built by the ``__init__`` written out here (a
    simulated zones fight makes about 110, and the tactics read their fields at every
    check). Every way in from outside (``from_json``) checks the types first.

    >>> Command.from_json({"do": "attack", "actor": "nia", "target": "bandit"})
    Command(name='attack', actor='nia', args={'target': 'bandit'})
    """

    name: str
    actor: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    a: Any = field(default=None, compare=False, repr=False)
    """The arguments as the command's declaration types them (validated, defaulted, read
    by name: ``command.a.target``), set by ``Ruleset.bound`` before a handler, a check or
    the odds read them; ``None`` until then. ``args`` stays what was sent (the log keeps
    it)."""

    def __init__(self, name: str, actor: str | None = None, args: dict[str, Any] | None = None,
                 a: Any = None) -> None:  # performance.md, 34
        self.name = name
        self.actor = actor
        self.args = {} if args is None else args
        self.a = a

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle every field (reduce_fields)
        return reduce_fields(self)

    @classmethod
    def from_json(cls, payload: Mapping[str, Any]) -> Command:
        if not isinstance(payload, Mapping):
            raise InvalidCommand(f"a command is a mapping with a 'do' key, not {payload!r}")
        data = dict(payload)
        name = data.pop("do", None)
        if not isinstance(name, str) or not name:
            raise InvalidCommand("a command needs 'do': the name of the command")
        actor = data.pop("actor", None)
        if actor is not None and not isinstance(actor, str):
            raise InvalidCommand(f"'actor' must be a name, not {actor!r}")
        return cls(name, actor, data)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"do": self.name}
        if self.actor is not None:
            out["actor"] = self.actor
        out.update(self.args)
        return out

    def __str__(self) -> str:
        parts = [self.name]
        if self.actor:
            parts.append(f"actor={self.actor}")
        parts += [f"{k}={v}" for k, v in self.args.items()]
        return " ".join(parts)


@mypyc_attr(native_class=False)
@dataclass(slots=True)
class Entry:
    """One decided command in the log: the command, its events, and every die it rolled."""

    seq: int
    command: Command
    events: list[Event]
    dice: list[tuple[int, int]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "command": self.command.to_json(),
            "events": [e.to_json() for e in self.events],
            "dice": [list(d) for d in self.dice],
        }

    @classmethod
    def from_json(cls, payload: Mapping[str, Any]) -> Entry:
        return cls(
            seq=int(payload["seq"]),
            command=Command.from_json(payload["command"]),
            events=[Event.from_json(e) for e in payload["events"]],
            dice=[(int(f), int(v)) for f, v in payload.get("dice", [])],
        )
