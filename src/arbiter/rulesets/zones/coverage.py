"""Which inventory ids (``inventory.toml``) scenarios and tests check.

An id counts as covered when a scenario names it in ``rules:`` or a test function's
docstring names it. Run ``python -m arbiter.rulesets.zones.coverage [ROOT]`` from the
repository for a report (a candidate for ``arbiter rulings zones --coverage``).
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ...core.content import read_content

HERE = Path(__file__).parent
RULE_ID = re.compile(r"\bZ-[A-Z]+-\d+\b")


def inventory() -> dict[str, str]:
    """Every zones rule id with its class (MECH, HOOK, NARR)."""
    rules = read_content(HERE / "inventory.toml")["rules"]
    return {str(k): str(v) for k, v in rules.items()}


@dataclass
class Coverage:
    named: dict[str, list[str]] = field(default_factory=dict)
    rules: dict[str, str] = field(default_factory=inventory)

    @property
    def unknown(self) -> list[str]:
        return sorted(set(self.named) - set(self.rules))

    def uncovered(self, kinds: tuple[str, ...] = ("MECH", "HOOK")) -> list[str]:
        return sorted(i for i, k in self.rules.items() if k in kinds and i not in self.named)

    def covered(self) -> list[str]:
        return sorted(i for i in self.rules if i in self.named)

    def report(self) -> str:
        lines = []
        for kind in ("MECH", "HOOK", "NARR"):
            ids = [i for i, k in self.rules.items() if k == kind]
            done = [i for i in ids if i in self.named]
            lines.append(f"{kind}: {len(done)}/{len(ids)} covered")
            missing = [i for i in ids if i not in self.named]
            if missing:
                lines.append(f"  not covered: {', '.join(missing)}")
        if self.unknown:
            lines.append(f"ids not in the inventory: {', '.join(self.unknown)}")
        return "\n".join(lines)


def collect(root: Path) -> Coverage:
    """Scan ``scenarios/zones``, ``scenarios/encounters/zones-*`` and ``tests/rulesets/zones``."""
    cov = Coverage()
    files = sorted((root / "scenarios" / "zones").rglob("*.yaml")) + sorted(
        (root / "scenarios" / "encounters").glob("zones-*.yaml"))
    for path in files:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for rid in data.get("rules", []):
            cov.named.setdefault(str(rid), []).append(path.name)
    for path in sorted((root / "tests" / "rulesets" / "zones").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                for rid in RULE_ID.findall(ast.get_docstring(node) or ""):
                    cov.named.setdefault(rid, []).append(f"{path.name}::{node.name}")
    return cov


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path.cwd()
    cov = collect(root)
    print(cov.report())
    return 1 if cov.uncovered() or cov.unknown else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv))
