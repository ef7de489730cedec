"""Ruleset-specific tactics: one module per ruleset, ``arbiter.sim.tactics.<ruleset>``.

A module registers its policies (``register_policy(name, ruleset=...)``) and, where the
generic answers do not fit, its outcomes (``register_outcomes``). It is imported the first
time the simulator meets that ruleset. A package outside Arbiter can do the same through the
``arbiter.tactics`` entry-point group (name: the ruleset, value: the module to import).
"""

from __future__ import annotations

import importlib
import importlib.util
from importlib.metadata import entry_points

GROUP = "arbiter.tactics"
_LOADED: set[str] = set()


def load_tactics(ruleset: str) -> None:
    """Import the tactics of ``ruleset`` once (this package's module, then entry points)."""
    if ruleset in _LOADED:
        return
    _LOADED.add(ruleset)
    if ruleset.isidentifier():
        module = f"{__name__}.{ruleset}"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)
    for ep in entry_points(group=GROUP):
        if ep.name == ruleset:
            ep.load()
