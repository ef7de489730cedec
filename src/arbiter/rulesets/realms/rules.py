"""The realms ruleset (seed 003, "Encounters"): the topics composed into one ``Ruleset``.

Each topic is a class in a module of its own: ``turns``, ``actions``, ``attacks``, ``damage``
(with the pipeline in ``pipeline``), ``conditions``, ``movement``, ``checks``, ``odds``,
``lasting``, and the realms topics ``companions``, ``mounts`` and ``energy``. They form one
chain from ``RealmsBase`` (``base.py``), each extending the one below it in the order of the
imports (``actions`` first, ``turns`` last: docs/extending.md), and the ruleset extends the
last. ``do_*`` methods decide (pure, dice only from the argument);
``apply_*`` methods evolve and take every number from the event.
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from .actions import RealmsEconomy
from .model import RealmsCreature
from .turns import TurnRules


@mypyc_attr(allow_interpreted_subclasses=True)
class RealmsRuleset(TurnRules):
    """Realms: the chain of its topics (``TurnRules`` the last), and what names and
    describes it."""

    name = "realms"
    title = "Realms (seed 003): Action Points, armor and damage, dying, companions"
    seed = "003_c09b437c672869ab.txt"
    entity_type = RealmsCreature
    economy = RealmsEconomy()
    private_events = frozenset({"checked"})  # a creature's derived numbers (do_check)
    initiative_dice = "1d20"
    public_extra = frozenset({"difficult"})
    """The keys of ``state.extra`` every player sees on the map (server/views.py)."""
    concealing = frozenset({"hidden", "invisible", "undetected", "unnoticed"})
    """Hidden (R-C-HID) and Invisible (R-C-INV) of ``conditions.toml``, and the GM's own
    ``undetected`` and ``unnoticed``: they hide a creature from its enemies' players until
    one of their characters finds it (``search``, ``detect``; server/views.py)."""
    card_fields = ("ap", "armor", "shield", "evasion", "defenses", "attack", "damage", "weapon",
                   "dying_turns", "stabilized", "dead", "altitude")  # a card's first look
    card_quiet = frozenset({"dying_turns", "altitude"})


__all__ = ["RealmsEconomy", "RealmsRuleset"]
