"""Polemos: 8th Age (seed 000), part 1: rolls, turns, conditions, injuries, damage and armor.

The rooms: ``model.py`` (stat blocks and state), ``commands.py`` (skill-roll pools, argument
helpers), ``economy.py`` (the action economy), ``rules.py`` (decide/evolve: turns, actions,
attacks, conditions, cover, odds) on ``injuries.py`` (wounds, bleeding, afflictions, time,
rest, stress) on ``base.py`` (stat blocks, rulings, spending actions, dealing damage and its
consequences), ``damage.py`` (the damage pipeline), and the data files ``conditions.toml``,
``rulings.toml``, ``templates.yaml``, ``body_plans.yaml``, ``weapons.toml``, ``armor.toml``,
``wounds.toml``.
"""

from .rules import PolemosRuleset

RULESET = PolemosRuleset()

__all__ = ["RULESET", "PolemosRuleset"]
