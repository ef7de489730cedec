"""The action economy of a turn, as a policy each ruleset supplies.

The economy of a creature is a small JSON-compatible dict (what is left this turn). Decide
computes the new dict and puts it in the event, so replay never re-derives it.
"""

from __future__ import annotations

from typing import Any

from .errors import IllegalCommand

Economy = dict[str, Any]


class ActionEconomy:
    """One action per turn: the simplest policy (used by the demo ruleset)."""

    def fresh(self, state: Any, who: str) -> Economy:
        """What a creature has at the start of its turn."""
        return {"actions": 1}

    def spend(self, state: Any, who: str, kind: str, economy: Economy) -> Economy:
        """The economy after spending an action of ``kind``; IllegalCommand if not possible."""
        if kind == "free":
            return dict(economy)
        if economy.get("actions", 0) < 1:
            raise IllegalCommand(f"{who} has no action left this turn")
        return {**economy, "actions": economy["actions"] - 1}

    def describe(self, economy: Economy) -> str:
        return ", ".join(f"{k} {v}" for k, v in economy.items())
