"""Polemos: 8th Age (seed 000).

The rooms: ``model.py`` (stat blocks and state), ``commands.py`` (skill-roll pools, argument
helpers), ``economy.py`` (the action economy), ``damage.py`` (the damage pipeline), and the rules
as a chain of layers, each on the one before: ``base.py`` (stat blocks, rulings, spending
actions, dealing damage and its consequences), ``injuries.py`` (wounds, bleeding, afflictions,
time, rest, stress), ``networks.py`` (systems, devices, networks, processes), ``targets.py``
(the grid, target kinds and requirements, detection, attitude; geometry in ``grid.py``),
``spheres.py`` (vehicles and combat spheres; ranges in ``spheres_math.py``) and ``rules.py``
(turns, actions, attacks, conditions, cover, odds). Data: ``conditions.toml``,
``rulings.toml``, ``templates.yaml``, ``body_plans.yaml``, ``weapons.toml``, ``armor.toml``,
``wounds.toml``, ``vehicles.toml``, ``networks.toml``.
"""

from .rules import PolemosRuleset

RULESET = PolemosRuleset()

__all__ = ["RULESET", "PolemosRuleset"]
