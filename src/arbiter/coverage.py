"""Which rules of the inventory a ruleset covers: the checklist made measurable.

The inventory (``shared/rules/inventory.md`` beside the project) lists every rule with an id
and a class (MECH, HOOK, NARR), then the ambiguities. A rule counts as covered when:

- MECH: a scenario lists its id under ``rules:``, or a test under ``tests/`` names it;
- HOOK: the same, or the ruleset's own code or data names it (where the hook lives);
- NARR: always reported, never required;
- an ambiguity: the ruleset's ``rulings.toml`` cites its id.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .scenario.loader import LineDict, load_yaml

RULE_LINE = re.compile(
    r"^- `(?P<id>[A-Z]+-[A-Z]+-[A-Z0-9]+[a-z]?)` \*\*(?P<cls>MECH|HOOK|NARR)\*\*"
)
AMBIGUITY_LINE = re.compile(r"^- \*\*(?P<id>A[A-Z]-\d+)[:.]")
ID = re.compile(r"\b[A-Z]-[A-Z]{1,5}-[A-Z0-9]{1,4}[a-z]?\b|\bA[A-Z]-\d+\b")
PREFIX = {"polemos": "P", "zones": "Z", "realms": "R"}


@dataclass
class Inventory:
    rules: dict[str, str] = field(default_factory=dict)  # id -> class
    ambiguities: list[str] = field(default_factory=list)


def parse_inventory(text: str) -> Inventory:
    inventory = Inventory()
    for line in text.splitlines():
        if m := RULE_LINE.match(line):
            inventory.rules[m["id"]] = m["cls"]
        elif m := AMBIGUITY_LINE.match(line):
            inventory.ambiguities.append(m["id"])
    return inventory


def find_inventory(start: Path) -> Path | None:
    """``$ARBITER_INVENTORY``, else ``shared/rules/inventory.md`` in a parent folder."""
    env = os.environ.get("ARBITER_INVENTORY")
    if env:
        return Path(env)
    for folder in [start, *start.parents]:
        candidate = folder / "shared" / "rules" / "inventory.md"
        if candidate.exists():
            return candidate
    return None


@dataclass
class Coverage:
    ruleset: str
    by_class: dict[str, tuple[list[str], list[str]]]  # class -> (covered, uncovered)

    def to_json(self) -> dict[str, object]:
        return {
            "ruleset": self.ruleset,
            "classes": {cls: {"covered": len(c), "uncovered": u, "total": len(c) + len(u)}
                        for cls, (c, u) in self.by_class.items()},
        }


def _ids_in(paths: list[Path]) -> set[str]:
    found: set[str] = set()
    for path in paths:
        try:
            found.update(ID.findall(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return found


def _scenario_ids(root: Path) -> set[str]:
    found: set[str] = set()
    for path in sorted((root / "scenarios").rglob("*.y*ml")):
        try:
            data = load_yaml(path.read_text(encoding="utf-8"), str(path))
        except Exception:  # a broken scenario covers nothing; `arbiter run` reports it
            continue
        if isinstance(data, LineDict) and isinstance(data.get("rules"), list):
            found.update(str(r) for r in data["rules"])
    return found


def measure(ruleset: str, inventory: Inventory, root: Path) -> Coverage:
    """Coverage of ``ruleset``'s inventory ids by the project at ``root``."""
    prefix = PREFIX.get(ruleset, ruleset[:1].upper())
    tests = _ids_in(sorted((root / "tests").rglob("*.py")))
    scenarios = _scenario_ids(root)
    package = root / "src" / "arbiter" / "rulesets" / ruleset
    code = _ids_in(sorted(p for p in package.rglob("*") if p.suffix in (".py", ".toml", ".yaml")))
    rulings = _ids_in([package / "rulings.toml"])
    checked = tests | scenarios
    by_class: dict[str, tuple[list[str], list[str]]] = {}
    for cls in ("MECH", "HOOK", "NARR"):
        ids = [i for i, c in inventory.rules.items() if c == cls and i.startswith(prefix + "-")]
        seen = checked | code if cls == "HOOK" else checked
        by_class[cls] = ([i for i in ids if i in seen], [i for i in ids if i not in seen])
    amb = [a for a in inventory.ambiguities if a.startswith(f"A{prefix}-")]
    by_class["ambiguity"] = ([a for a in amb if a in rulings], [a for a in amb if a not in rulings])
    return Coverage(ruleset, by_class)
