"""Which rules of the inventory a ruleset covers, and what checks each one.

The inventory lists every rule with an id and a class (MECH, HOOK, NARR), then the
ambiguities. By default it is the ruleset's own, ``inventory.toml`` in its package (each id
with its kind and a one-line statement, read by :func:`read_package_inventory`), so the report
works in a clone of the repository alone; the shared inventory
(``../shared/rules/inventory.md``, every ruleset's section) or another file is read only when
given, with ``--inventory`` or ``$ARBITER_INVENTORY``. An id counts only where it is named on
purpose (docs/scenarios.md, "Rule ids"):

- a scenario's ``rules:`` list (``scenarios/**/*.yaml``);
- a ruling's ``rules`` list in the ruleset's ``rulings.toml``; an ambiguity (``AZ-3``) by the
  ruling of that id;
- a test function's ``rules`` marker (``tests/**/test_*.py``), its ids written out::

      @pytest.mark.rules("Z-COV-2", "Z-COV-4")
      def test_cover_is_refused_to_a_flyer() -> None:
          \"\"\"A flyer cannot begin the fight in cover.\"\"\"

  or the ``Rule ids:`` line of its docstring (``Rule ids: Z-COV-2, Z-COV-4``);

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

from .core.content import read_content
from .core.errors import SchemaError
from .scenario.loader import LineDict, load_yaml

RULE_LINE = re.compile(
    r"^- `(?P<id>[A-Z]+-[A-Z]+-[A-Z0-9]+[a-z]?)` \*\*(?P<cls>MECH|HOOK|NARR)\*\*"
)
AMBIGUITY_LINE = re.compile(r"^- \*\*(?P<id>A[A-Z]-\d+)[:.]")
ID = re.compile(r"\b[A-Z]{1,12}-[A-Z]{1,12}-[A-Z0-9]{1,4}[a-z]?\b|\bA[A-Z]{1,12}-\d+\b")
"""An inventory id: a seed's (``Z-COV-3``, ambiguity ``AZ-3``), a new ruleset's namespaced
one (``DUEL-ATK-1``, ambiguity ``ADUEL-1``) or a house rule's (``HOUSE-ZONES-1``)."""
RULE_IDS_LINE = re.compile(r"^\s*Rule ids:(?P<ids>.*)$")
"""The line of a test's docstring that names the inventory ids it checks."""
INVENTORY = Path("shared") / "rules" / "inventory.md"
"""Where the shared inventory lives, beside the project (in a folder above it)."""
PACKAGE_INVENTORY = "inventory.toml"
"""A ruleset's own inventory, in its package: its section of the shared one."""
KINDS = ("MECH", "HOOK", "NARR", "AMBIGUITY")
"""The kinds of a package inventory's ids: the inventory's three classes, and its ambiguities
(``AZ-3``), each settled by the ruling of that id."""
HOUSE = "HOUSE"
"""The namespace of house rules' ids: ``HOUSE-<RULESET>-<n>`` (docs/extending.md)."""
AMBIGUITY_ID = re.compile(r"A[A-Z]{1,12}-\d+")
ENV = "ARBITER_INVENTORY"


class InventoryError(ValueError):
    """The rules inventory cannot be found or read; the message says where it looked and
    what to do."""


@dataclass
class Inventory:
    rules: dict[str, str] = field(default_factory=dict)  # id -> class
    ambiguities: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    """Each id's one-line statement (a package inventory's; none from the shared file)."""


def parse_inventory(text: str) -> Inventory:
    inventory = Inventory()
    for line in text.splitlines():
        if m := RULE_LINE.match(line):
            inventory.rules[m["id"]] = m["cls"]
        elif m := AMBIGUITY_LINE.match(line):
            inventory.ambiguities.append(m["id"])
    return inventory


def read_package_inventory(path: Path) -> Inventory:
    """A ruleset's ``inventory.toml`` (a content file: ``schema = 1``), whose ``[rules]``
    table gives each id, in the shared inventory's order, its kind (:data:`KINDS`) and a
    one-line ``text``::

        [rules]
        "Z-RA-1" = { kind = "MECH", text = "Shooting takes a major action that slows the shooter." }
        "AZ-2" = { kind = "AMBIGUITY", text = "A total equal to the stat succeeds (configurable)." }

    Raises :class:`InventoryError` naming the file and the id when it is wrong."""
    try:
        data = read_content(path)
    except SchemaError as err:
        raise InventoryError(str(err)) from None
    table = data.get("rules")
    if not isinstance(table, dict) or not table:
        raise InventoryError(f"{path}: no [rules] table of ids (\"Z-RA-1\" = {{ kind = "
                             "\"MECH\", text = \"...\" }): is it a rules inventory?")
    inventory = Inventory()
    for rid, entry in table.items():
        kind = entry.get("kind") if isinstance(entry, dict) else None
        text = entry.get("text") if isinstance(entry, dict) else None
        if kind not in KINDS:
            raise InventoryError(f"{path}: {rid}: kind is one of {', '.join(KINDS)}")
        if not isinstance(text, str) or not text.strip() or "\n" in text:
            raise InventoryError(f"{path}: {rid}: give its statement as one line of text")
        if (kind == "AMBIGUITY") != bool(AMBIGUITY_ID.fullmatch(rid)):
            raise InventoryError(f"{path}: {rid}: an ambiguity id (AZ-3) is of kind "
                                 "AMBIGUITY, and only an ambiguity id")
        if kind == "AMBIGUITY":
            inventory.ambiguities.append(rid)
        else:
            inventory.rules[rid] = kind
        inventory.texts[rid] = text
    return inventory


def find_inventory(start: Path) -> Path | None:
    """The shared inventory: ``$ARBITER_INVENTORY``, else ``shared/rules/inventory.md`` in
    ``start`` or a folder above it; None when there is none. :func:`load_inventory` does not
    look for it (a ruleset's own inventory is the default); tests that compare with the
    shared file do."""
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


def load_inventory(given: Path | None, package: Path | None = None
                   ) -> tuple[Path, Inventory]:
    """The inventory file and what it lists: ``given`` (``--inventory``), else
    ``$ARBITER_INVENTORY``, else the ruleset's own ``inventory.toml`` in ``package``. A file
    given may be the shared ``inventory.md`` or a package's ``inventory.toml``; a folder is
    searched for ``inventory.md``. Raises :class:`InventoryError` with a sentence saying what
    was looked for and what to do: never a traceback."""
    env = os.environ.get(ENV)
    if given is None and not env:
        own = package / PACKAGE_INVENTORY if package is not None else None
        if own is None or not own.is_file():
            where = f"{package.name} has no {PACKAGE_INVENTORY} in its package ({package})" \
                if package is not None else "no ruleset package to look in"
            raise InventoryError(
                f"no rules inventory: {where}; give one with --inventory FILE or set "
                f"{ENV}=FILE (the shared one is ../{INVENTORY})")
        return own, read_package_inventory(own)
    source = "--inventory" if given is not None else f"${ENV}"
    path = given if given is not None else Path(str(env))
    if path.is_dir():
        inside = _in_folder(path)
        if inside is None:
            raise InventoryError(
                f"{source} is {path}, a folder without an inventory in it (looked for "
                f"inventory.md, rules/inventory.md and {INVENTORY}): give the inventory "
                "file itself")
        path = inside
    elif not path.exists():
        raise InventoryError(f"{source} {path}: no such file")
    if path.suffix == ".toml":
        return path, read_package_inventory(path)
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
                ids = [*docstring_rule_ids(ast.get_docstring(node) or ""), *marked_rule_ids(node)]
                for rid in dict.fromkeys(ids):
                    found.setdefault(rid, []).append(
                        f"{path.relative_to(root).as_posix()}::{node.name}")
    return found


def marked_rule_ids(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The ids of a test function's ``@pytest.mark.rules("Z-COV-3", ...)`` markers, as
    written (string literals: ``rules(*names)`` of a computed list counts for nothing)."""
    out: list[str] = []
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) \
                and decorator.func.attr == "rules" \
                and isinstance(decorator.func.value, ast.Attribute) \
                and decorator.func.value.attr == "mark":
            out += [arg.value for arg in decorator.args
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                    and ID.fullmatch(arg.value)]
    return out


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


def house_prefix(ruleset: str) -> str:
    """How the ids of a table's house rules for ``ruleset`` begin (``HOUSE-ZONES-``)."""
    return f"{HOUSE}-{ruleset.upper()}-"


def id_prefix(package: Path, ruleset: str) -> str:
    """The letter that starts the ruleset's rule ids (``R`` of ``R-DY-5``), as its own
    inventory spells them: core knows no ruleset's ids. Without an inventory in the package,
    the ruleset name's first letter."""
    own = package / PACKAGE_INVENTORY
    if own.is_file():
        heads = {rid.split("-", 1)[0] for rid in read_package_inventory(own).rules} - {HOUSE}
        if len(heads) == 1:
            return heads.pop()
    return ruleset[:1].upper()


def measure(ruleset: str, inventory: Inventory, root: Path,
            package: Path | None = None) -> Coverage:
    """Coverage of ``ruleset``'s inventory ids by the project at ``root`` (its package
    ``src/arbiter/rulesets/RULESET`` there unless ``package`` says where it is)."""
    package = package or root / "src" / "arbiter" / "rulesets" / ruleset
    prefix = id_prefix(package, ruleset)
    by_rulings, ruling_ids = named_by_rulings(package)
    named: dict[str, list[str]] = {}
    for source in (named_by_scenarios(root), by_rulings, named_by_tests(root)):
        for rid, where in source.items():
            named.setdefault(rid, []).extend(where)
    by_class: dict[str, tuple[list[str], list[str]]] = {}
    for cls in ("MECH", "HOOK", "NARR"):
        ids = [i for i, c in inventory.rules.items() if c == cls
               and i.startswith((f"{prefix}-", house_prefix(ruleset)))]
        by_class[cls] = ([i for i in ids if i in named], [i for i in ids if i not in named])
    amb = [a for a in inventory.ambiguities if a.startswith(f"A{prefix}-")]
    for rid in amb:
        if rid in ruling_ids:
            named.setdefault(rid, []).insert(0, f"rulings.toml {rid}")
    by_class["ambiguity"] = ([a for a in amb if a in ruling_ids],
                             [a for a in amb if a not in ruling_ids])
    listed = {i for c, u in by_class.values() for i in (*c, *u)}
    return Coverage(ruleset, by_class, {k: v for k, v in named.items() if k in listed})
