"""A tiny built-in ruleset that exercises the kernel: d20 attacks against a defense value.

It is not one of the seed systems; it exists so the kernel, the scenario runner and
``arbiter demo`` can be tested on their own.
"""

from .rules import DemoRuleset

RULESET = DemoRuleset()

__all__ = ["RULESET", "DemoRuleset"]
