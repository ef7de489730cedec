"""The realms section of the rules inventory (../shared/rules/inventory.md), read from the
package's ``inventory.toml`` (every id with its kind and a one-line statement, the default
inventory of ``arbiter rulings realms --coverage``): every rule id with its class, and the
ambiguity ids, so coverage can be checked without the shared file."""

from __future__ import annotations

from pathlib import Path

from ...coverage import PACKAGE_INVENTORY, read_package_inventory

_INVENTORY = read_package_inventory(Path(__file__).with_name(PACKAGE_INVENTORY))

RULES: dict[str, str] = _INVENTORY.rules
"""Each R- rule id with its class (MECH, HOOK, NARR), in the inventory's order."""

AMBIGUITIES: tuple[str, ...] = tuple(_INVENTORY.ambiguities)
"""The AR-n ids, in order."""

TEXTS: dict[str, str] = _INVENTORY.texts
"""Each id's one-line statement."""

__all__ = ["AMBIGUITIES", "RULES", "TEXTS"]
