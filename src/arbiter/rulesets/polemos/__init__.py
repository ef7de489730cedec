"""Polemos: 8th Age (seed 000).

One shape, as every ruleset package: ``model.py`` (stat blocks, state, the data files and
the numbers derived from them), ``base.py`` (``PolemosBase``: building a creature, rulings,
the clock, spending actions, where things are and whether they can be reached, wounds and
afflictions given, the consequences of any change), one class per topic, the classes one chain
from it, and ``rules.py`` (``PolemosRuleset``, extending the last). The common topics: ``turns.py``,
``actions.py`` (the action economy), ``attacks.py``, ``damage.py`` (the damage pipeline),
``conditions.py``, ``movement.py``, ``checks.py`` (skill rolls), ``odds.py``, ``lasting.py``
(what outlasts an encounter, time passing); Polemos's own: ``injuries.py`` (wounds, bleeding,
afflictions, stress), ``cover.py``, ``targets.py`` (target kinds and requirements),
``stealth.py``, ``social.py``, ``networks.py``, ``devices.py`` (processes, devices),
``spheres.py`` (vehicles and combat spheres), with the pure geometry of ``grid.py`` and
``spheres_math.py``. Data: ``conditions.toml``, ``rulings.toml``, ``templates.yaml``,
``body_plans.yaml``, ``weapons.toml``, ``armor.toml``, ``wounds.toml``, ``vehicles.toml``,
``networks.toml``.
"""

from .rules import PolemosRuleset

RULESET = PolemosRuleset()

__all__ = ["RULESET", "PolemosRuleset"]
