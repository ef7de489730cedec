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

from ...core import Command, EncounterState, RulesError, Ruleset


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
