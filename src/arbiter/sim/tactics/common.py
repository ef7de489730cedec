"""Helpers shared by the rulesets' tactics: asking the rules whether a command would be
accepted, without playing it.

:func:`accepted` asks the ruleset's own ``check``: by default ``decide`` on the current state
with throw-away dice (a fixed seed, so the run's dice are untouched and the answer is
deterministic), the events thrown away; Polemos and zones stop before the first die.
``decide`` never changes state, so this is a question, not a move. A policy that offers only
commands that pass it gets no refusals, and needs no second implementation of the rules to
know what is legal.
"""

from __future__ import annotations

from typing import Any

from ...core import Command, EncounterState, RulesError, Ruleset

_MADE: dict[tuple[Any, ...], Command] = {}
"""The commands the tactics made, by their name, actor and arguments (at most
:data:`MADE_LIMIT`): one object for each, bound once."""
MADE_LIMIT = 4096


def made(name: str, actor: str, args: dict[str, str]) -> Command:
    """The command ``name`` of ``actor`` with ``args`` (text values), the same object each
    time it is asked for: a command is never changed once made, and ``Ruleset.bound`` keeps
    its typed arguments on it, so a tactic's command is bound once, not at every check and
    every turn (a zones attack's arguments are converted by msgspec each time: 9% of a
    compiled zones run)."""
    key = (name, actor, *args.items())
    found = _MADE.get(key)
    if found is None:
        if len(_MADE) >= MADE_LIMIT:
            _MADE.clear()
        found = _MADE[key] = Command(name, actor, args)
    return found


def accepted(ruleset: Ruleset, state: EncounterState, command: Command) -> bool:
    """Whether the rules accept ``command`` now (``Ruleset.check``)."""
    try:
        ruleset.check(state, command)
    except RulesError:
        return False
    return True


def first_accepted(ruleset: Ruleset, state: EncounterState,
                   commands: list[Command]) -> Command | None:
    """The first of ``commands`` the rules accept now, or None."""
    for command in commands:
        if accepted(ruleset, state, command):
            return command
    return None


def sign(value: int) -> int:
    return (value > 0) - (value < 0)
