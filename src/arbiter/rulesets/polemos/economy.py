"""The Polemos action economy: a primary and a secondary action, minor, free and full actions.

P-ACT-2: each turn grants one primary and one secondary action, in any order, either skipped.
P-ACT-3: a primary may be replaced by a secondary, never the reverse.
P-ACT-4: any number of minor actions on your own turn (not while another action resolves:
checked by the ruleset, which knows what is pending).
P-ACT-5: free actions at any time, even on others' turns.
P-ACT-6: a full action takes the whole turn: nothing else that turn, minor and free included.
P-ACT-7: an "N full" action locks the following turns (``channel``).
"""

from __future__ import annotations

from typing import Any

from ...core import ActionEconomy, IllegalCommand
from ...core.economy import Economy


class PolemosEconomy(ActionEconomy):
    def fresh(self, state: Any, who: str) -> Economy:
        entity = state.entities.get(who) if state is not None else None
        if entity is not None and getattr(entity, "channel", None):
            # P-ACT-7: a multi-turn full action takes this whole turn too
            return {"primary": 0, "secondary": 0, "minor": 0, "free": 0, "full": True}
        return {"primary": 1, "secondary": 1, "minor": 0, "free": 0, "full": False}

    def spend(self, state: Any, who: str, kind: str, economy: Economy) -> Economy:
        out = dict(economy)
        own_turn = state.current == who
        if out.get("full") and (own_turn or kind != "free"):
            raise IllegalCommand(
                f"{who} is taking a full action, which takes the whole turn: no other "
                "action this turn, not even a minor or free one", rule="P-ACT-6")
        if kind == "primary":
            if out["primary"] < 1:
                raise IllegalCommand(
                    f"{who} has no primary action left this turn (a secondary action cannot "
                    "replace a primary one)", rule="P-ACT-3")
            out["primary"] -= 1
        elif kind == "secondary":
            if out["secondary"] >= 1:
                out["secondary"] -= 1
            elif out["primary"] >= 1:
                out["primary"] -= 1  # P-ACT-3: the primary is replaced by a secondary
            else:
                raise IllegalCommand(f"{who} has no secondary action left this turn",
                                     rule="P-ACT-2")
        elif kind == "minor":
            out["minor"] += 1
        elif kind == "free":
            out["free"] += 1
        elif kind == "full":
            if out["primary"] < 1 or out["secondary"] < 1 or out["minor"] or out["free"]:
                raise IllegalCommand(
                    f"{who} has already acted this turn; a full action takes the entire turn",
                    rule="P-ACT-6")
            out.update(primary=0, secondary=0, full=True)
        return out

    def describe(self, economy: Economy) -> str:
        if economy.get("full"):
            return "full action: nothing else this turn"
        return (f"primary {economy['primary']}, secondary {economy['secondary']}, "
                f"minor used {economy['minor']}, free used {economy['free']}")
