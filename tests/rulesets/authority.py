"""What the rulesets' authority tests share: a player of some characters sending a
command, refused for an argument the rules leave to the game master (``NotAllowed``
naming it), or for a value nobody may send (``InvalidArgument`` naming it, for the game
master too)."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.core import Command, Ruleset
from arbiter.core.catalogue import InvalidArgument, NotAllowed, authorize


class Player:
    """The player of ``characters`` in an encounter of ``ruleset``, in turn-by-turn play."""

    def __init__(self, ruleset: Ruleset, characters: frozenset[str]) -> None:
        self.ruleset = ruleset
        self.characters = characters

    def send(self, payload: dict[str, Any], current: str = "nia") -> None:
        """Authorize ``payload`` on ``current``'s turn (raises what the server would)."""
        authorize(self.ruleset.catalogue, Command.from_json(payload), self.characters,
                  current=current, in_combat=True)

    def refused(self, payload: dict[str, Any], field: str) -> None:
        """The player may not set ``field``: NotAllowed, naming it."""
        with pytest.raises(NotAllowed) as info:
            self.send(payload)
        assert info.value.field == f"command.{field}"
        assert repr(field) in str(info.value)

    def invalid(self, payload: dict[str, Any], field: str) -> None:
        """Refused for the player and for the game master alike: a value beyond what the
        rule could give, or a word the rules do not know."""
        with pytest.raises(InvalidArgument) as info:
            self.send(payload)
        assert info.value.field == f"command.{field}"
        with pytest.raises(InvalidArgument) as again:
            self.ruleset.validate(Command.from_json(payload))
        assert again.value.field == f"command.{field}"
