"""An encounter being played: the state, the log, and the loop decide → append → evolve."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..dice import DiceSource, RecordingDice
from ..dice.sources import NoDice
from .events import Command, Entry, Event
from .invariants import CHECKING, apply_checked
from .model import EncounterState
from .ruleset import Ruleset


class Encounter:
    """The game state of one encounter and the log of every command that shaped it.

    >>> from arbiter.core.registry import load_ruleset
    >>> from arbiter.dice import ForcedDice
    >>> enc = Encounter.create(load_ruleset("demo"))
    >>> _ = enc.execute({"do": "add", "id": "nia", "stats": {"health": 10}}, ForcedDice([]))
    >>> enc.state.entity("nia").health
    10
    """

    def __init__(self, ruleset: Ruleset, state: EncounterState | None = None) -> None:
        self.ruleset = ruleset
        self.state = state or EncounterState(ruleset="")
        self.log: list[Entry] = []

    @classmethod
    def create(
        cls,
        ruleset: Ruleset,
        rulings: Mapping[str, str] | None = None,
        reveal_on_turn: bool = False,
    ) -> Encounter:
        """A new encounter under ``rulings``; with ``reveal_on_turn``, a creature the GM hid
        is revealed when its turn starts (``Ruleset.do_reveal_on_turn``)."""
        args: dict[str, Any] = {"rulings": dict(rulings or {})}
        if reveal_on_turn:
            args["reveal_on_turn"] = True
        encounter = cls(ruleset)
        encounter.execute(Command("create", args=args), NoDice("create"))
        return encounter

    def decide(self, command: Command | Mapping[str, Any], dice: DiceSource) -> Entry:
        """What the command would do, without changing anything."""
        cmd = command if isinstance(command, Command) else Command.from_json(command)
        recorder = RecordingDice(dice)
        events = self.ruleset.decide(self.state, cmd, recorder)
        return Entry(len(self.log) + 1, cmd, events, list(recorder.rolls))

    def odds(self, command: Command | Mapping[str, Any]) -> dict[str, Any]:
        """The exact odds of a command before it is rolled: ``Ruleset.preview``, the path
        the server takes too (its declaration, the rules' check, then the odds)."""
        cmd = command if isinstance(command, Command) else Command.from_json(command)
        return self.ruleset.preview(self.state, cmd)

    def execute(self, command: Command | Mapping[str, Any], dice: DiceSource) -> Entry:
        """Decide the command and apply its events; a RulesError leaves everything as it was."""
        entry = self.decide(command, dice)
        self.apply(entry)
        return entry

    def apply(self, entry: Entry) -> None:
        """Apply an entry's events; with invariant checking on (``core/invariants.py``),
        each event and then the whole command is checked against the ruleset's invariants."""
        if CHECKING.on:
            apply_checked(self.ruleset, self.state, entry)
        else:
            for event in entry.events:
                self.ruleset.evolve(self.state, event)
        self.log.append(entry)

    @classmethod
    def replay(cls, ruleset: Ruleset, entries: Iterable[Entry]) -> Encounter:
        """Rebuild an encounter from its log alone."""
        encounter = cls(ruleset)
        for entry in entries:
            encounter.apply(entry)
        return encounter

    def events(self) -> list[Event]:
        return [e for entry in self.log for e in entry.events]
