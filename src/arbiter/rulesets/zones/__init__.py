"""The zones ruleset (seed 002, "Back in Combat"): roll-under offense and defense rolls,
Hindrance, ranged attacks, AoE and zonewide AoE, cover and ranged flanking."""

from .rules import ZonesRuleset

RULESET = ZonesRuleset()

__all__ = ["RULESET", "ZonesRuleset"]
