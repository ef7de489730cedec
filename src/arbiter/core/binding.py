"""Binding a command's arguments to its declaration: :meth:`CommandSpec.parse
<arbiter.core.catalogue.CommandSpec.parse>` itself, in a module the compiled build compiles
(``catalogue.py`` builds msgspec types from typing forms at run time, and stays
interpreted). Every command the rules take is bound first (``Ruleset.bound``), so this runs
for each one: interpreted, it was 4-7% of a simulated encounter's time in the compiled
build."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import msgspec

from .catalogue import ID_PATTERN, InvalidArgument
from .events import Command

if TYPE_CHECKING:
    from .catalogue import CommandSpec

_ID = re.compile(ID_PATTERN)

_ACTORS: set[str] = set()
"""Actor ids already matched against :data:`ID_PATTERN` (the same few creatures act in
every command of an encounter). Bounded: emptied when it reaches :data:`_ACTORS_KEPT`."""
_ACTORS_KEPT = 4096


def _actor_id(actor: object) -> bool:
    """Whether ``actor`` is a creature id: a string matching :data:`ID_PATTERN`."""
    if type(actor) is not str:
        return False
    if actor in _ACTORS:
        return True
    if _ID.match(actor) is None:
        return False
    if len(_ACTORS) >= _ACTORS_KEPT:
        _ACTORS.clear()
    _ACTORS.add(actor)
    return True


_PARSED: dict[tuple[Any, ...], Any] = {}
"""Arguments already converted, by their struct and each argument's name, type and value
(an encounter's commands repeat the same few: a target, a weapon, a place). Only arguments
of small scalars are kept, and only a struct whose every field is one (it is frozen, so
commands may share it). Bounded: emptied when it reaches :data:`_PARSED_KEPT`."""
_PARSED_KEPT = 4096
_KEY_TEXT = 64
"""The longest string argument a key of :data:`_PARSED` holds."""
_KEY_ITEMS = 16
_SCALARS = frozenset({str, int, bool, float, type(None)})


def _key(struct: Any, given: object) -> tuple[Any, ...] | None:
    """The key of ``given`` in :data:`_PARSED`, or None when it is not kept there."""
    if type(given) is not dict or len(given) > _KEY_ITEMS:
        return None
    key: list[Any] = [struct]
    for name, value in given.items():
        kind = type(value)
        if kind is str:
            if len(value) > _KEY_TEXT:
                return None
        elif kind is not int and kind is not bool and value is not None:
            return None
        key += (name, kind, value)
    return tuple(key)


def _convert(struct: Any, given: object) -> Any:
    """``given`` converted to ``struct`` (strict), through :data:`_PARSED`."""
    key = _key(struct, given)
    if key is not None:
        found = _PARSED.get(key)
        if found is not None:
            return found
    made = msgspec.convert(given, struct, strict=True)
    if key is not None and all(type(getattr(made, field)) in _SCALARS
                               for field in struct.__struct_fields__):
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.clear()
        _PARSED[key] = made
    return made


def parse_args(spec: CommandSpec, command: Command) -> Any:
    """``command``'s arguments as ``spec`` types them (an instance of ``spec.struct``: each
    argument by name, validated, defaulted), or :class:`InvalidArgument` naming what breaks
    the declaration."""
    # read untyped: compiled, `command.actor` would raise TypeError on a non-str actor
    actor: object = getattr(command, "actor")  # noqa: B009
    if actor is None:
        if spec.actor == "required":
            raise InvalidArgument(f"{spec.name}: which creature acts? give 'actor'",
                                  "command.actor")
    else:
        if spec.actor == "none":
            raise InvalidArgument(f"{spec.name}: takes no 'actor' (it is not a creature's "
                                  "action)", "command.actor")
        if not _actor_id(actor):
            raise InvalidArgument(f"{spec.name}: 'actor' must be a creature id",
                                  "command.actor")
    try:
        struct = spec._struct or spec.struct  # made on first use (the property, interpreted)
        return _convert(struct, command.args)
    except msgspec.ValidationError as err:
        raise spec.explain(str(err)) from None
