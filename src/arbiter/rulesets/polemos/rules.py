"""Polemos (8th Age): the ruleset, composed of its topics.

Every ``do_*`` reads the state and rolls only from ``dice``; every ``apply_*`` writes exactly
what its event says. Rule ids (P-..., AP-...) refer to ``shared/rules/inventory.md``; the
rulings (AP-n, POL-n) are in ``rulings.toml`` and read from ``state.rulings``.

The topics, each one class, the classes one chain from ``PolemosBase`` (``base.py``; each
extends the one below it in the order of the imports, docs/extending.md): ``turns.py``,
``actions.py``, ``attacks.py``, ``damage.py``, ``conditions.py``, ``movement.py``,
``checks.py``, ``odds.py``, ``lasting.py``, and Polemos's own ``injuries.py``, ``cover.py``,
``targets.py``, ``stealth.py``, ``social.py``, ``networks.py``, ``devices.py`` and
``spheres.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from mypy_extensions import mypyc_attr

from .actions import PolemosEconomy
from .model import Creature, body_plans
from .odds import OddsRules


@mypyc_attr(allow_interpreted_subclasses=True)
class PolemosRuleset(OddsRules):
    name = "polemos"
    title = "Polemos: 8th Age"
    seed = "000_415f966c2cbdbe2b"
    # P-DMG-4: the body area a hit lands on is a 1D<number of the body plan's areas>
    dice_names: ClassVar[Mapping[int, str]] = {
        len(areas): "location" for areas in body_plans().values()}
    entity_type = Creature
    economy = PolemosEconomy()
    concealing = frozenset({"hidden", "invisible", "undetected", "unnoticed"})
    unseen_doer_events = frozenset({"condition_added", "damaged"})
    doer_gains = frozenset({"critical_points"})
    """``hidden`` of ``conditions.toml`` (P-STL-1, P-STL-2), and the GM's own ``invisible``,
    ``undetected`` and ``unnoticed``: they hide a creature from its enemies' players until
    one of their characters detects it (its searches, ``detect``; ``detected``)."""
    card_fields = ("armor", "damage", "stress", "fatigue", "critical_points", "weapon", "down",
                   "location")  # a card's first look (docs/web.md)
    card_quiet = frozenset({"critical_points"})
