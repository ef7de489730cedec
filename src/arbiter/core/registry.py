"""Finding rulesets by name through the ``arbiter.rulesets`` entry-point group.

Core imports no ruleset: a fourth system registers itself in its own package metadata.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from .errors import InvalidCommand
from .ruleset import Ruleset

GROUP = "arbiter.rulesets"


def available() -> list[str]:
    """Names of every installed ruleset."""
    return sorted(ep.name for ep in entry_points(group=GROUP))


@cache
def load_ruleset(name: str) -> Ruleset:
    """The ruleset registered under ``name``."""
    for ep in entry_points(group=GROUP):
        if ep.name == name:
            obj = ep.load()
            ruleset = obj() if isinstance(obj, type) else obj
            if not isinstance(ruleset, Ruleset):
                raise InvalidCommand(f"entry point {name!r} is not a Ruleset")
            return ruleset
    raise InvalidCommand(f"unknown ruleset {name!r} (installed: {', '.join(available())})")
