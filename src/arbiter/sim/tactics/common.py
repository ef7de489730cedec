"""Helpers shared by the rulesets' tactics: asking the rules whether a command would be
accepted, without playing it.

:func:`accepted` runs the ruleset's own ``decide`` on the current state with dice of their
own (a fixed seed, so the run's dice are untouched and the answer is deterministic) and
throws the events away: ``decide`` never changes state, so this is a question, not a move.
A policy that offers only commands that pass it gets no refusals, and needs no second
implementation of the rules to know what is legal.
"""

from __future__ import annotations

from ...core import Command, EncounterState, RulesError, Ruleset
from ...dice import SeededDice

PROBE_SEED = 0


def accepted(ruleset: Ruleset, state: EncounterState, command: Command) -> bool:
    """Whether the rules accept ``command`` now (decided with throw-away dice)."""
    try:
        ruleset.decide(state, command, SeededDice(PROBE_SEED))
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
