"""The zones rules of the inventory with their class (``inventory.toml``).

The shared rules inventory (``../shared/rules/inventory.md``) is not part of the repository;
the package's own ``inventory.toml`` (every zones id with its kind and a one-line statement,
read by :func:`arbiter.coverage.read_package_inventory`, the default of ``arbiter rulings
zones --coverage``) lets ``tests/rulesets/zones`` measure, in any clone, that every MECH and
HOOK id is checked, with the one counting rule of :mod:`arbiter.coverage`: a scenario's
``rules:``, a ruling's ``rules``, or the ``Rule ids:`` line of a test's docstring
(docs/scenarios.md).
"""

from __future__ import annotations

from pathlib import Path

from ...coverage import PACKAGE_INVENTORY, read_package_inventory

HERE = Path(__file__).parent


def inventory() -> dict[str, str]:
    """Every zones rule id with its class (MECH, HOOK, NARR); the ambiguities (AZ-n) are
    the rulings'."""
    return read_package_inventory(HERE / PACKAGE_INVENTORY).rules
