"""Which rules of the inventory a ruleset covers, and what checks each one.

The inventory (``shared/rules/inventory.md`` beside the project, or the file given with
``--inventory`` or ``$ARBITER_INVENTORY``) lists every rule with an id and a class (MECH,
HOOK, NARR), then the ambiguities. An id counts only where it is named on purpose
(docs/scenarios.md, "Rule ids"):

- a scenario's ``rules:`` list (``scenarios/**/*.yaml``);
- a ruling's ``rules`` list in the ruleset's ``rulings.toml``; an ambiguity (``AZ-3``) by the
  ruling of that id;
- the ``Rule ids:`` line of a test function's docstring (``tests/**/test_*.py``)::

      def test_cover_is_refused_to_a_flyer() -> None:
          \"\"\"A flyer cannot begin the fight in cover.

          Rule ids: Z-COV-2, Z-COV-4
          \"\"\"

An id anywhere else (a comment, a string, the code) counts for nothing. MECH and HOOK ids
should all be covered; NARR is reported, never required. The report says, for each id, which
scenarios, rulings and tests name it.
"""

from __future__ import annotations

import ast
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .scenario.loader import LineDict, load_yaml

RULE_LINE = re.compile(
    r"^- `(?P<id>[A-Z]+-[A-Z]+-[A-Z0-9]+[a-z]?)` \*\*(?P<cls>MECH|HOOK|NARR)\*\*"
)
AMBIGUITY_LINE = re.compile(r"^- \*\*(?P<id>A[A-Z]-\d+)[:.]")
ID = re.compile(r"\b[A-Z]-[A-Z]{1,5}-[A-Z0-9]{1,4}[a-z]?\b|\bA[A-Z]-\d+\b")
RULE_IDS_LINE = re.compile(r"^\s*Rule ids:(?P<ids>.*)$")
"""The line of a test's docstring that names the inventory ids it checks."""
PREFIX = {"polemos": "P", "zones": "Z", "realms": "R"}
INVENTORY = Path("shared") / "rules" / "inventory.md"
"""Where the inventory lives, beside the project (in a folder above it)."""
ENV = "ARBITER_INVENTORY"


class InventoryError(ValueError):
    """The rules inventory cannot be found or read; the message says where it looked and
    what to do."""


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
    """``$ARBITER_INVENTORY``, else ``shared/rules/inventory.md`` in ``start`` or a folder
    above it; None when there is none (:func:`load_inventory` says why in words)."""
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    for folder in [start, *start.parents]:
        candidate = folder / INVENTORY
        if candidate.is_file():
            return candidate
    return None


def _in_folder(folder: Path) -> Path | None:
    """The inventory inside a folder given for it: ``inventory.md``, ``rules/inventory.md``
    or ``shared/rules/inventory.md``."""
    for candidate in (folder / "inventory.md", folder / "rules" / "inventory.md",
                      folder / INVENTORY):
        if candidate.is_file():
            return candidate
    return None


def load_inventory(given: Path | None, start: Path) -> tuple[Path, Inventory]:
    """The inventory file and what it lists: ``given`` (``--inventory``), else
    ``$ARBITER_INVENTORY``, else ``shared/rules/inventory.md`` in ``start`` or a folder above.
    A folder is searched for the file. Raises :class:`InventoryError` with a sentence saying
    what was looked for and what to do: never a traceback."""
    env = os.environ.get(ENV)
    source = "--inventory" if given is not None else f"${ENV}" if env else None
    path = given if given is not None else Path(env) if env else find_inventory(start)
    if path is None:
        raise InventoryError(
            f"no rules inventory found: looked for {INVENTORY} in {start} and every folder "
            f"above it. The inventory is not part of the repository (it lives beside the "
            f"project, as ../{INVENTORY}); give --inventory FILE or set {ENV}=FILE")
    if path.is_dir():
        inside = _in_folder(path)
        if inside is None:
            raise InventoryError(
                f"{source} is {path}, a folder without an inventory in it (looked for "
                f"inventory.md, rules/inventory.md and {INVENTORY}): give the inventory "
                "file itself")
        path = inside
    elif not path.exists():
        raise InventoryError(f"{source or 'the inventory'} {path}: no such file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InventoryError(f"{path}: cannot read the rules inventory: {err}") from None
    inventory = parse_inventory(text)
    if not inventory.rules:
        raise InventoryError(f"{path} lists no rule ids (lines such as "
                             "\"- `Z-RA-1` **MECH**: ...\"): is it the rules inventory?")
    return path, inventory


# -- what names an id ---------------------------------------------------------------------


def named_by_scenarios(root: Path) -> dict[str, list[str]]:
    """Each id named by a scenario's ``rules:`` list, with the scenarios naming it."""
    found: dict[str, list[str]] = {}
    for path in sorted((root / "scenarios").rglob("*.y*ml")):
        try:
            data = load_yaml(path.read_text(encoding="utf-8"), str(path))
        except Exception:  # a broken scenario covers nothing; `arbiter run` reports it
            continue
        if isinstance(data, LineDict) and isinstance(data.get("rules"), list):
            for rid in dict.fromkeys(str(r) for r in data["rules"]):
                found.setdefault(rid, []).append(path.relative_to(root).as_posix())
    return found


def named_by_rulings(package: Path) -> tuple[dict[str, list[str]], set[str]]:
    """Each id named by a ruling's ``rules`` in ``package/rulings.toml`` (with the rulings
    naming it), and the ids of the rulings themselves."""
    path = package / "rulings.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}, set()
    found: dict[str, list[str]] = {}
    ids: set[str] = set()
    for ruling in data.get("ruling", []):
        if not isinstance(ruling, dict) or "id" not in ruling:
            continue
        ids.add(str(ruling["id"]))
        for rid in dict.fromkeys(str(r) for r in ruling.get("rules", [])):
            found.setdefault(rid, []).append(f"rulings.toml {ruling['id']}")
    return found, ids


def docstring_rule_ids(docstring: str) -> list[str]:
    """The ids of a docstring's ``Rule ids:`` line (and the lines of ids right after it)."""
    out: list[str] = []
    lines = docstring.splitlines()
    for i, line in enumerate(lines):
        m = RULE_IDS_LINE.match(line)
        if m is None:
            continue
        out += ID.findall(m["ids"])
        for more in lines[i + 1:]:  # continued on lines of nothing but ids and commas
            if not ID.search(more) or ID.sub("", more).strip(" ,\t"):
                break
            out += ID.findall(more)
    return list(dict.fromkeys(out))


def named_by_tests(root: Path) -> dict[str, list[str]]:
    """Each id named by the ``Rule ids:`` line of a test function's docstring, with the
    tests (``path::name``) naming it."""
    found: dict[str, list[str]] = {}
    for path in sorted((root / "tests").rglob("test_*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) \
                    and node.name.startswith("test"):
                for rid in docstring_rule_ids(ast.get_docstring(node) or ""):
                    found.setdefault(rid, []).append(
                        f"{path.relative_to(root).as_posix()}::{node.name}")
    return found


@dataclass
class Coverage:
    ruleset: str
    by_class: dict[str, tuple[list[str], list[str]]]  # class -> (covered, uncovered)
    checked_by: dict[str, list[str]] = field(default_factory=dict)
    """Each id of the ruleset's inventory -> the scenarios, rulings and tests naming it."""

    def to_json(self) -> dict[str, object]:
        classes = {cls: {"covered": len(c), "uncovered": u, "total": len(c) + len(u)}
                   for cls, (c, u) in self.by_class.items()}
        ids = {rid: {"class": cls, "checked_by": self.checked_by.get(rid, [])}
               for cls, (c, u) in self.by_class.items() for rid in (*c, *u)}
        return {"ruleset": self.ruleset, "classes": classes, "ids": ids}


def measure(ruleset: str, inventory: Inventory, root: Path) -> Coverage:
    """Coverage of ``ruleset``'s inventory ids by the project at ``root``."""
    prefix = PREFIX.get(ruleset, ruleset[:1].upper())
    package = root / "src" / "arbiter" / "rulesets" / ruleset
    by_rulings, ruling_ids = named_by_rulings(package)
    named: dict[str, list[str]] = {}
    for source in (named_by_scenarios(root), by_rulings, named_by_tests(root)):
        for rid, where in source.items():
            named.setdefault(rid, []).extend(where)
    by_class: dict[str, tuple[list[str], list[str]]] = {}
    for cls in ("MECH", "HOOK", "NARR"):
        ids = [i for i, c in inventory.rules.items() if c == cls and i.startswith(prefix + "-")]
        by_class[cls] = ([i for i in ids if i in named], [i for i in ids if i not in named])
    amb = [a for a in inventory.ambiguities if a.startswith(f"A{prefix}-")]
    for rid in amb:
        if rid in ruling_ids:
            named.setdefault(rid, []).insert(0, f"rulings.toml {rid}")
    by_class["ambiguity"] = ([a for a in amb if a in ruling_ids],
                             [a for a in amb if a not in ruling_ids])
    listed = {i for c, u in by_class.values() for i in (*c, *u)}
    return Coverage(ruleset, by_class, {k: v for k, v in named.items() if k in listed})
