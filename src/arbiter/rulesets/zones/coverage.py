"""The zones rules of the inventory with their class (``inventory.toml``).

The rules inventory (``../shared/rules/inventory.md``) is not part of the repository; this
copy of its zones section lets ``tests/rulesets/zones`` measure, in any clone, that every MECH
and HOOK id is checked, with the one counting rule of ``arbiter rulings zones --coverage``
(:mod:`arbiter.coverage`): a scenario's ``rules:``, a ruling's ``rules``, or the ``Rule ids:``
line of a test's docstring (docs/scenarios.md).
"""

from __future__ import annotations

from pathlib import Path

from ...core.content import read_content

HERE = Path(__file__).parent


def inventory() -> dict[str, str]:
    """Every zones rule id with its class (MECH, HOOK, NARR)."""
    rules = read_content(HERE / "inventory.toml")["rules"]
    return {str(k): str(v) for k, v in rules.items()}
