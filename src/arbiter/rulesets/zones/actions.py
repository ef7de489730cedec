"""The action economy of zones: a major action, a minor action and a movement each turn
(ruling ZR-1); a slowing action and movement exclude each other (ZR-7)."""

from __future__ import annotations

from typing import Any

from ...core import ActionEconomy, IllegalCommand
from .model import RULINGS


class ZonesEconomy(ActionEconomy):
    """A major action, a minor action and a movement each turn (ruling ZR-1).

    A *slowing* action and movement exclude each other in one turn (ruling ZR-7,
    ``no-move``); with ``record-only`` slowing is only recorded.
    """

    def fresh(self, state: Any, who: str) -> dict[str, Any]:
        return {"major": 1, "minor": 1, "moved": False, "slowed": False}

    def spend(self, state: Any, who: str, kind: str, economy: dict[str, Any]) -> dict[str, Any]:
        if kind == "free":
            return dict(economy)
        # ZR-7 is read only where it decides something (most actions spend nothing it
        # restricts)
        base, _, slowing = kind.partition("/")
        if base == "move":
            if economy.get("moved"):
                raise IllegalCommand(f"{who} has already moved this turn", rule="ZR-7")
            if economy.get("slowed") and RULINGS.chosen(state.rulings, "ZR-7", "no-move"):
                raise IllegalCommand(f"{who} took a slowing action and cannot move this turn",
                                     rule="ZR-7")
            out = dict(economy)
            out["moved"] = True
            return out
        if economy.get(base, 0) < 1:
            raise IllegalCommand(f"{who} has no {base} action left this turn", rule="ZR-1")
        if slowing and economy.get("moved") and RULINGS.chosen(state.rulings, "ZR-7",
                                                                "no-move"):
            raise IllegalCommand(f"{who} has moved this turn, so cannot take a slowing action",
                                 rule="ZR-7")
        out = dict(economy)
        out[base] -= 1
        if slowing:
            out["slowed"] = True
        return out
