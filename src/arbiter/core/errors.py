"""Errors of the rules kernel. Each carries a sentence a game master can act on."""

from __future__ import annotations

from collections.abc import Sequence


class RulesError(Exception):
    """Base class for every refusal by the rules kernel or a ruleset."""


class IllegalCommand(RulesError):
    """The command is well formed but the rules forbid it here.

    ``rule`` is the inventory id of the rule that forbids it (``P-ACT-3``), when there is one;
    ``remedy`` what would make it legal: the command that would (or ``None`` when it is a
    matter of waiting) and a phrase for a person (``("move", "move within reach")``).
    """

    def __init__(self, message: str, rule: str | None = None,
                 remedy: tuple[str | None, str] | None = None) -> None:
        self.rule = rule
        self.reason = message
        self.remedy = remedy
        super().__init__(f"{message} [{rule}]" if rule else message)


class NoOdds(IllegalCommand):
    """The ruleset computes no odds for this command (it may still be legal): the server
    answers ``"odds": null`` with the reason, never an error a client must tell apart from a
    refusal by its words."""


class InvalidCommand(RulesError):
    """The command itself is malformed: unknown name, missing or wrong argument."""


class UnknownEntity(InvalidCommand):
    """A command names an entity that is not in the encounter."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        shown = ", ".join(sorted(known)[:20]) or "none"
        super().__init__(f"no creature or object named {name!r} here (known: {shown})")


class AmbiguousCommand(RulesError):
    """The command could mean several things; ``candidates`` lists them."""

    def __init__(self, message: str, candidates: Sequence[str]) -> None:
        self.candidates = list(candidates)
        super().__init__(f"{message}: one of {', '.join(self.candidates)}")


class RulingError(RulesError):
    """An unknown ruling id, or a value that is not one of the ruling's choices."""


class SchemaError(RulesError):
    """A stored payload has an unknown type or a version that cannot be upcast."""
