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


def parse_args(spec: CommandSpec, command: Command) -> Any:
    """``command``'s arguments as ``spec`` types them (an instance of ``spec.struct``: each
    argument by name, validated, defaulted), or :class:`InvalidArgument` naming what breaks
    the declaration."""
    actor = command.actor
    if actor is None:
        if spec.actor == "required":
            raise InvalidArgument(f"{spec.name}: which creature acts? give 'actor'",
                                  "command.actor")
    else:
        if spec.actor == "none":
            raise InvalidArgument(f"{spec.name}: takes no 'actor' (it is not a creature's "
                                  "action)", "command.actor")
        if not isinstance(actor, str) or not _ID.match(actor):
            raise InvalidArgument(f"{spec.name}: 'actor' must be a creature id",
                                  "command.actor")
    try:
        return msgspec.convert(command.args, spec.struct, strict=True)
    except msgspec.ValidationError as err:
        raise spec.explain(str(err)) from None
