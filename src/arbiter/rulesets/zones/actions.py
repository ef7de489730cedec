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
        strict = RULINGS.chosen(state.rulings, "ZR-7", "no-move")
        base, _, slowing = kind.partition("/")
        out = dict(economy)
        if base == "move":
            if out.get("moved"):
                raise IllegalCommand(f"{who} has already moved this turn", rule="ZR-7")
            if strict and out.get("slowed"):
                raise IllegalCommand(f"{who} took a slowing action and cannot move this turn",
                                     rule="ZR-7")
            out["moved"] = True
            return out
        if out.get(base, 0) < 1:
            raise IllegalCommand(f"{who} has no {base} action left this turn", rule="ZR-1")
        if slowing and strict and out.get("moved"):
            raise IllegalCommand(f"{who} has moved this turn, so cannot take a slowing action",
                                 rule="ZR-7")
        out[base] -= 1
        if slowing:
            out["slowed"] = True
        return out
