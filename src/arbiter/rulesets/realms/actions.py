"""The action economy of realms: Action Points (R-AP-1).

AP live on the creature and are regained at the end of its own turn (AR-21); what each
action costs is ``model.ap_costs`` (``actions.toml``, ruling RLM-3), what needs the arms
``model.needs_arms``; spending them is ``RealmsBase.pay`` and ``RealmsBase.buy_movement``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import ActionEconomy, EncounterState
from ...core import catalogue as args
from ...core.catalogue import event
from ...core.copying import peek
from ...core.model import entity_at
from . import payloads
from .base import RealmsBase
from .model import AP_PER_TURN, RealmsCreature


class RealmsEconomy(ActionEconomy):
    """Action Points (R-AP-1): AP live on the creature and are regained at the end of its
    own turn (AR-21), so reactions between turns spend the same pool. ``movement`` is what
    is left of bought movement this turn, in half spaces."""

    def fresh(self, state: Any, who: str) -> dict[str, Any]:
        entity = entity_at(state.entities, who)
        ap = entity.ap if isinstance(entity, RealmsCreature) else AP_PER_TURN
        return {"ap": ap, "movement": 0}

    def describe(self, economy: dict[str, Any]) -> str:
        return f"{economy.get('ap', 0)} AP, {Fraction(economy.get('movement', 0), 2)} spaces"


@mypyc_attr(allow_interpreted_subclasses=True)
class ActionRules(RealmsBase):
    """The AP each event leaves (a topic of ``RealmsRuleset``)."""

    def apply_economy_of(self, state: EncounterState, who: str, economy: Any) -> None:
        """The AP an event leaves its actor with are also the creature's ``ap``; an event
        outside turn-by-turn play (economy None) counts nothing."""
        if economy is None:
            state.economy.pop(who, None)
            return
        state.economy[who] = economy
        self._set_ap(state, who, int(economy["ap"]))

    @event("{target} regains {gained} AP ({ap} AP now).",
           target=args.creature("who"), gained=args.integer("AP regained"),
           ap=args.integer("AP after"))
    def apply_ap_gained(self, state: EncounterState, data: payloads.ApGained) -> None:
        self._store_ap(state, data["target"], data["ap"])
        me = peek(state.entities, data["target"])
        if isinstance(me, RealmsCreature) and me.stun_taken:
            self.creature(state, me.id).stun_taken = 0  # a new stun takes AP again

    @event("{target} loses {lost} AP ({ap} AP left).",
           target=args.creature("who"), lost=args.integer("AP lost"),
           ap=args.integer("AP after"),
           stun_taken=args.integer("the highest Stunned level whose AP are taken since the "
                                   "creature last gained AP"),
           optional=("stun_taken",))
    def apply_ap_lost(self, state: EncounterState, data: payloads.ApLost) -> None:
        self._store_ap(state, data["target"], data["ap"])
        stun_taken = data.get("stun_taken")
        if stun_taken is not None:
            self.creature(state, data["target"]).stun_taken = stun_taken
