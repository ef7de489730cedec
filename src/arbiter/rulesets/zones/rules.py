"""The zones ruleset (seed 002, "Back in Combat"), composed of its topics.

Offense and defense rolls are roll-under checks (ruling AZ-1, :mod:`.rolls`). A ranged
attack is resolved in the order of Z-RA-3: abilities, ammunition, offense roll, the target's
defense roll on DEX, then damage and drive through :mod:`.damage`. Each topic is a module
with one class, the classes one chain from :class:`.base.ZonesBase` (each extends the one
below it in the order of the imports; docs/extending.md): :mod:`.turns`, :mod:`.actions`,
:mod:`.attacks` (planned by :mod:`.shots`), :mod:`.aoe`, :mod:`.damage`, :mod:`.conditions`,
:mod:`.cover`, :mod:`.movement`, :mod:`.checks`, :mod:`.odds` and :mod:`.lasting`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from mypy_extensions import mypyc_attr

from .actions import ZonesEconomy
from .model import Creature
from .odds import Odds


@mypyc_attr(allow_interpreted_subclasses=True)
class ZonesRuleset(Odds):
    name = "zones"
    title = "Zones (seed 002: Back in Combat): roll-under offense and defense"
    seed = "002_f87c09dfc02f1736.txt"
    entity_type = Creature
    economy = ZonesEconomy()
    initiative_dice = "1d20"
    concealing = frozenset({"unseen", "hidden", "invisible", "undetected", "unnoticed"})
    """``unseen`` of ``conditions.toml`` (Z-RA-2: its enemies cannot see it), and the GM's own
    (``custom``) ``hidden``, ``invisible``, ``undetected`` and ``unnoticed``: they hide a
    creature from its enemies' players until one of their characters detects it."""
    card_fields = ("armor", "shield", "damage", "DEX", "STR", "SPD", "zone", "group", "ammo",
                   "weapon", "down", "altitude")  # a card's first look (docs/web.md)
    card_quiet = frozenset({"altitude"})
    # the weapons that make an area, and what it is aimed at (the map's area template)
    area_weapons: ClassVar[Mapping[str, str]] = {"aoe": "creature", "zaoe": "zone"}
