"""Finding rulesets by name through the ``arbiter.rulesets`` entry-point group.

Core imports no ruleset: a fourth system registers itself in its own package metadata.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from .errors import InvalidCommand
from .ruleset import Ruleset

GROUP = "arbiter.rulesets"
REGISTERED: dict[str, Ruleset] = {}
"""Rulesets registered in this process by :func:`register`, beside the entry points."""


def register(ruleset: Ruleset) -> None:
    """Register ``ruleset`` under its name in this process, as its entry point would: the
    test hook that loads a package made by ``arbiter new-ruleset`` without installing it.
    Registering a second one of that name replaces the first."""
    REGISTERED[ruleset.name] = ruleset
    load_ruleset.cache_clear()


def unregister(name: str) -> None:
    """Forget a ruleset :func:`register` registered."""
    REGISTERED.pop(name, None)
    load_ruleset.cache_clear()


def available() -> list[str]:
    """Names of every installed ruleset."""
    return sorted({ep.name for ep in entry_points(group=GROUP)} | set(REGISTERED))


@cache
def load_ruleset(name: str) -> Ruleset:
    """The ruleset registered under ``name``."""
    if name in REGISTERED:
        return REGISTERED[name]
    for ep in entry_points(group=GROUP):
        if ep.name == name:
            obj = ep.load()
            ruleset = obj() if isinstance(obj, type) else obj
            if not isinstance(ruleset, Ruleset):
                raise InvalidCommand(f"entry point {name!r} is not a Ruleset")
            return ruleset
    raise InvalidCommand(f"unknown ruleset {name!r} (installed: {', '.join(available())})")
