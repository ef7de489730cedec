"""The realms ruleset (seed 003, "Encounters"): Action Points, movement, armor and damage,
dying, companions and conditions. Commands and state fields: docs/rulesets/realms.md."""

from .rules import RealmsRuleset

RULESET = RealmsRuleset()

__all__ = ["RULESET", "RealmsRuleset"]
