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
        return msgspec.convert(command.args, struct, strict=True)
    except msgspec.ValidationError as err:
        raise spec.explain(str(err)) from None
