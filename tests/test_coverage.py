"""``arbiter rulings RULESET --coverage``: what counts as checking an inventory id (a
scenario's ``rules:``, a ruling's ``rules``, a test's ``Rule ids:`` line), what checks each id,
each ruleset's own inventory (``inventory.toml`` in its package, the default, so a clone of
the repository alone can report), and a clear error when an inventory cannot be found or
read."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.core import load_ruleset
from arbiter.coverage import (
    HOUSE,
    PACKAGE_INVENTORY,
    Inventory,
    InventoryError,
    docstring_rule_ids,
    house_prefix,
    id_prefix,
    load_inventory,
    measure,
    named_by_rulings,
    named_by_scenarios,
    named_by_tests,
    parse_inventory,
    read_package_inventory,
)

from .support import marked_rules, seeds

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
SEEDS = seeds()


def counts(inventory: Inventory) -> tuple[int, int, int, int]:
    """How many MECH, HOOK and NARR ids and ambiguities ``inventory`` holds."""
    kinds = list(inventory.rules.values())
    return (kinds.count("MECH"), kinds.count("HOOK"), kinds.count("NARR"),
            len(inventory.ambiguities))


def own_counts(ruleset: str) -> tuple[int, int, int, int]:
    """The counts of ``ruleset``'s own ``inventory.toml``, read from the file."""
    package = load_ruleset(ruleset).package_dir
    assert package is not None
    return counts(read_package_inventory(package / PACKAGE_INVENTORY))

INVENTORY = """\
## 2. Zones
- `Z-RA-1` **MECH**: A ranged attack is a slowing major action.
- `Z-RA-2` **MECH**: A ranged attack needs a target the attacker can see.
- `Z-RA-3` **MECH**: The order of resolution.
- `Z-COV-4` **HOOK**: The GM may let characters start in cover.
- `Z-COV-18` **NARR**: Cover is everywhere.
### ambiguities
- **AZ-1: The roll.** text
- **AZ-2: Ties.** text
"""

TEST_FILE = '''\
"""Z-RA-3 in a module docstring counts for nothing."""

# Z-RA-3 in a comment counts for nothing


def helper() -> None:
    """Rule ids: Z-RA-3 (not a test function)"""


def test_shooting() -> None:
    """A slowing major action (Z-RA-3 named in passing counts for nothing).

    Rule ids: Z-RA-1,
        Z-COV-4
    """
    assert "Z-RA-3"


class TestNested:
    def test_sight(self) -> None:
        """Rule ids: Z-RA-2"""
'''


def project(tmp_path: Path) -> Path:
    """A project folder: one scenario, one rulings.toml, one test file."""
    (tmp_path / "scenarios" / "zones").mkdir(parents=True)
    (tmp_path / "scenarios" / "zones" / "a.yaml").write_text(
        "# Z-RA-3 in a comment counts for nothing\nruleset: zones\nrules: [Z-RA-1]\n")
    (tmp_path / "scenarios" / "broken.yaml").write_text("rules: [Z-RA-3\n")
    package = tmp_path / "src" / "arbiter" / "rulesets" / "zones"
    package.mkdir(parents=True)
    (package / "rulings.toml").write_text(
        '# Z-RA-3\n[[ruling]]\nid = "AZ-2"\nrules = ["Z-RA-2"]\nquestion = "Z-RA-3?"\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_z.py").write_text(TEST_FILE)
    return tmp_path


def test_only_rules_lists_and_rule_ids_lines_count(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert named_by_scenarios(root) == {"Z-RA-1": ["scenarios/zones/a.yaml"]}
    assert named_by_rulings(root / "src" / "arbiter" / "rulesets" / "zones") == (
        {"Z-RA-2": ["rulings.toml AZ-2"]}, {"AZ-2"})
    assert named_by_tests(root) == {
        "Z-RA-1": ["tests/test_z.py::test_shooting"],
        "Z-COV-4": ["tests/test_z.py::test_shooting"],
        "Z-RA-2": ["tests/test_z.py::test_sight"],
    }
    report = measure("zones", parse_inventory(INVENTORY), root).to_json()
    assert report["classes"] == {
        "MECH": {"covered": 2, "uncovered": ["Z-RA-3"], "total": 3},
        "HOOK": {"covered": 1, "uncovered": [], "total": 1},
        "NARR": {"covered": 0, "uncovered": ["Z-COV-18"], "total": 1},
        "ambiguity": {"covered": 1, "uncovered": ["AZ-1"], "total": 2},
    }
    assert report["ids"] == {
        "Z-RA-1": {"class": "MECH", "checked_by": ["scenarios/zones/a.yaml",
                                                   "tests/test_z.py::test_shooting"]},
        "Z-RA-2": {"class": "MECH", "checked_by": ["rulings.toml AZ-2",
                                                   "tests/test_z.py::test_sight"]},
        "Z-RA-3": {"class": "MECH", "checked_by": []},
        "Z-COV-4": {"class": "HOOK", "checked_by": ["tests/test_z.py::test_shooting"]},
        "Z-COV-18": {"class": "NARR", "checked_by": []},
        "AZ-2": {"class": "ambiguity", "checked_by": ["rulings.toml AZ-2"]},
        "AZ-1": {"class": "ambiguity", "checked_by": []},
    }


MARKED_FILE = '''\
import pytest

IDS = ["Z-RA-3"]


@pytest.mark.rules("Z-RA-1", "Z-COV-4")
@pytest.mark.parametrize("n", [1, 2])
def test_marked(n: int) -> None:
    """Rule ids: Z-RA-2"""


@pytest.mark.rules(*IDS)
def test_computed() -> None:
    """A computed marker counts for nothing: the report reads the ids as written."""


@pytest.mark.rules("Z-RA-3", "not an id")
def helper() -> None:
    """Not a test function."""


@pytest.mark.rules("DUEL-ATK-1", "ADUEL-2", "HOUSE-ZONES-1")
def test_namespaced() -> None:
    """A new ruleset's ids and a house rule's."""
'''


def test_a_rules_marker_counts_with_its_ids_written_out(tmp_path: Path) -> None:
    """``@pytest.mark.rules("Z-RA-1", ...)`` on a test function names those ids, beside its
    docstring's ``Rule ids:`` line; a computed list or a helper's marker names none."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_marked.py").write_text(MARKED_FILE)
    assert named_by_tests(tmp_path) == {
        "Z-RA-2": ["tests/test_marked.py::test_marked"],
        "Z-RA-1": ["tests/test_marked.py::test_marked"],
        "Z-COV-4": ["tests/test_marked.py::test_marked"],
        "DUEL-ATK-1": ["tests/test_marked.py::test_namespaced"],
        "ADUEL-2": ["tests/test_marked.py::test_namespaced"],
        "HOUSE-ZONES-1": ["tests/test_marked.py::test_namespaced"],
    }


@pytest.mark.rules("HOUSE-TEST-1")
def test_the_marker_is_registered_and_kept_on_the_function() -> None:
    """pytest runs with --strict-markers: ``rules`` is declared in pyproject.toml, and the
    ids are on the function for a test to read (tests/support.py ``marked_rules``)."""
    marked = marked_rules(test_the_marker_is_registered_and_kept_on_the_function)
    assert marked == {"HOUSE-TEST-1"}  # an id of no ruleset: this test checks no rule


def test_a_rule_ids_line_ends_at_the_first_line_that_is_not_ids() -> None:
    doc = "Cover.\n\nRule ids: Z-COV-1, Z-COV-2,\n  Z-COV-3\nSee Z-COV-4 too.\n"
    assert docstring_rule_ids(doc) == ["Z-COV-1", "Z-COV-2", "Z-COV-3"]
    assert docstring_rule_ids("Z-COV-1: cover (no Rule ids line)") == []


def test_the_json_report_lists_what_checks_each_id(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "repo")
    inventory = tmp_path / "inventory.md"
    inventory.write_text(INVENTORY)
    monkeypatch.chdir(root)
    monkeypatch.delenv("ARBITER_INVENTORY", raising=False)
    result = runner.invoke(app, ["rulings", "zones", "--coverage", "--json",
                                 "--inventory", str(inventory)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["ids"]["Z-RA-1"]["checked_by"] == ["scenarios/zones/a.yaml",
                                                   "tests/test_z.py::test_shooting"]
    assert data["classes"]["MECH"]["uncovered"] == ["Z-RA-3"]


def one_line_error(result: object) -> str:
    exit_code, stderr, output = (getattr(result, k) for k in ("exit_code", "stderr", "output"))
    assert exit_code == 2
    assert "Traceback" not in output
    assert stderr.startswith("arbiter: error: ")
    assert len(stderr.strip().splitlines()) == 1
    return str(stderr)


def test_a_fresh_clone_reports_with_the_ruleset_s_own_inventory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's ``arbiter rulings zones --coverage`` in a clone with no
    ``shared/rules/inventory.md`` anywhere and no ``$ARBITER_INVENTORY``: the inventory is
    the ruleset's ``inventory.toml``, and the clone's scenarios, rulings and tests are
    counted."""
    clone = project(tmp_path / "clone")
    monkeypatch.chdir(clone)
    monkeypatch.delenv("ARBITER_INVENTORY", raising=False)
    assert not any((folder / "shared").exists() for folder in (clone, *clone.parents))
    result = runner.invoke(app, ["rulings", "zones", "--coverage", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    mech, hook, narr, ambiguities = own_counts("zones")
    assert {cls: c["total"] for cls, c in data["classes"].items()} == {
        "MECH": mech, "HOOK": hook, "NARR": narr, "ambiguity": ambiguities}
    assert data["ids"]["Z-RA-1"]["checked_by"] == ["scenarios/zones/a.yaml",
                                                   "tests/test_z.py::test_shooting"]
    assert data["ids"]["AZ-2"]["checked_by"] == ["rulings.toml AZ-2"]
    assert data["ids"]["Z-RA-3"]["checked_by"] == []
    table = runner.invoke(app, ["rulings", "zones", "--coverage"])
    assert table.exit_code == 0, table.output
    assert "inventory coverage of zones" in table.stdout
    assert PACKAGE_INVENTORY in table.stdout.replace("\n", "")
    for ruleset in ("polemos", "realms"):
        result = runner.invoke(app, ["rulings", ruleset, "--coverage", "--json"])
        assert result.exit_code == 0, result.output
        classes = json.loads(result.stdout)["classes"]
        assert tuple(classes[k]["total"] for k in ("MECH", "HOOK", "NARR", "ambiguity")) \
            == own_counts(ruleset)


def test_a_ruleset_without_an_inventory_of_its_own_gets_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo ruleset has no ``inventory.toml``: the shared one must be given."""
    monkeypatch.chdir(project(tmp_path / "clone"))
    monkeypatch.delenv("ARBITER_INVENTORY", raising=False)
    stderr = one_line_error(runner.invoke(app, ["rulings", "demo", "--coverage"]))
    assert "no rules inventory: demo has no inventory.toml in its package" in stderr
    assert "--inventory FILE or set ARBITER_INVENTORY=FILE" in stderr


def test_the_shared_inventory_is_read_only_when_given(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """An inventory beside the clone is not looked for: the ruleset's own is the default;
    ``--inventory`` or ``$ARBITER_INVENTORY`` gives another."""
    clone = project(tmp_path / "work" / "main")
    beside = tmp_path / "work" / "shared" / "rules" / "inventory.md"
    beside.parent.mkdir(parents=True)
    beside.write_text(INVENTORY)
    monkeypatch.chdir(clone)
    monkeypatch.delenv("ARBITER_INVENTORY", raising=False)

    def mech_total(*options: str) -> int:
        result = runner.invoke(app, ["rulings", "zones", "--coverage", "--json", *options])
        assert result.exit_code == 0, result.output
        return int(json.loads(result.stdout)["classes"]["MECH"]["total"])

    assert mech_total() == own_counts("zones")[0]
    assert mech_total("--inventory", str(beside)) == 3
    monkeypatch.setenv("ARBITER_INVENTORY", str(beside))
    assert mech_total() == 3
    own = load_ruleset("zones").package_dir
    assert own is not None
    assert mech_total("--inventory", str(own / PACKAGE_INVENTORY)) == own_counts("zones")[0]


@pytest.mark.parametrize("ruleset", SEEDS)
def test_each_ruleset_ships_its_inventory_with_a_statement_per_id(
        ruleset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every id with its kind and a one-line statement, all of one prefix (checked in any
    clone; that the ids are the shared inventory's, no more and no fewer, is the next test)."""
    check_inventory(ruleset, monkeypatch)


def check_inventory(ruleset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard: ``ruleset`` ships its inventory, each id with a kind and a statement, every
    rule id starting with one prefix and every ambiguity with ``A`` and that prefix."""
    monkeypatch.delenv("ARBITER_INVENTORY", raising=False)
    package = load_ruleset(ruleset).package_dir
    assert package is not None
    path, inventory = load_inventory(None, package)
    assert path == package / PACKAGE_INVENTORY
    assert inventory.rules, f"{ruleset}: {path} names no rule"
    heads = {rid.split("-", 1)[0] for rid in inventory.rules} - {HOUSE}
    assert len(heads) == 1, f"{ruleset}: rule ids of several prefixes {sorted(heads)}"
    prefix = heads.pop()
    assert id_prefix(package, ruleset) == prefix  # coverage reads it from the package
    assert all(rid.startswith((f"{prefix}-", house_prefix(ruleset))) for rid in inventory.rules)
    assert all(rid.startswith(f"A{prefix}-") for rid in inventory.ambiguities)
    assert set(inventory.texts) == {*inventory.rules, *inventory.ambiguities}
    assert all(text.strip() and "\n" not in text for text in inventory.texts.values())


SHARED_LINE = re.compile(r"^- (?:`(?P<id>[A-Z]+-[A-Z0-9-]+?[a-z]?)` \*\*[A-Z]+\*\*: "
                         r"|\*\*(?P<aid>A[A-Z]-\d+)[:.])(?P<says>.*)$", re.M)


def shared_inventory() -> Path | None:
    """The shared inventory beside the project (``../shared``, here ``/work/shared``)."""
    for folder in (ROOT.parent / "shared", Path("/work/shared")):
        if (folder / "rules" / "inventory.md").is_file():
            return folder / "rules" / "inventory.md"
    return None


@pytest.mark.parametrize("ruleset", SEEDS)
def test_each_package_inventory_lists_exactly_the_shared_ids(ruleset: str) -> None:
    """The package's inventory lists the ids of the shared inventory's section for its
    ruleset, no more and no fewer, in the same order and with the same kinds; its
    statements are its own (none is the shared sentence copied)."""
    shared = shared_inventory()
    if shared is None:
        pytest.skip("the shared rules inventory is not beside the project")
    text = shared.read_text(encoding="utf-8")
    whole = parse_inventory(text)
    package = load_ruleset(ruleset).package_dir
    assert package is not None
    prefix = id_prefix(package, ruleset)
    if not any(rid.startswith(f"{prefix}-") for rid in whole.rules):
        pytest.skip(f"{ruleset} is not a ruleset of the shared inventory")
    own = read_package_inventory(package / PACKAGE_INVENTORY)
    expected = {rid: cls for rid, cls in whole.rules.items() if rid.startswith(f"{prefix}-")}
    assert list(own.rules.items()) == list(expected.items())
    assert own.ambiguities == [a for a in whole.ambiguities if a.startswith(f"A{prefix}-")]
    lines = {m["id"] or m["aid"]: m["says"] for m in SHARED_LINE.finditer(text)}
    copied = [rid for rid, statement in own.texts.items()
              if statement.casefold() in lines[rid].casefold()]
    assert copied == [], f"statements copied from the shared inventory: {copied}"


@pytest.mark.parametrize(("content", "expected"), [
    ('[rules]\n"Z-RA-1" = { kind = "MECH", text = "x" }\n', "no schema version"),
    ("schema = 1\n", "no [rules] table"),
    ('schema = 1\n[rules]\n"Z-RA-1" = "MECH"\n', "Z-RA-1: kind is one of"),
    ('schema = 1\n[rules]\n"Z-RA-1" = { kind = "RULE", text = "x" }\n', "kind is one of"),
    ('schema = 1\n[rules]\n"Z-RA-1" = { kind = "MECH" }\n', "one line of text"),
    ('schema = 1\n[rules]\n"Z-RA-1" = { kind = "MECH", text = "a\\nb" }\n',
     "one line of text"),
    ('schema = 1\n[rules]\n"AZ-1" = { kind = "MECH", text = "x" }\n', "AZ-1: an ambiguity id"),
    ('schema = 1\n[rules]\n"Z-RA-1" = { kind = "AMBIGUITY", text = "x" }\n',
     "Z-RA-1: an ambiguity id"),
])
def test_a_wrong_package_inventory_is_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str, expected: str) -> None:
    path = tmp_path / PACKAGE_INVENTORY
    path.write_text(content)
    monkeypatch.delenv("ARBITER_INVENTORY", raising=False)
    with pytest.raises(InventoryError, match=re.escape(expected)):
        load_inventory(None, tmp_path)
    with pytest.raises(InventoryError, match=re.escape(expected)):
        load_inventory(path)
    stderr = one_line_error(runner.invoke(app, ["rulings", "zones", "--coverage",
                                                "--inventory", str(path)]))
    assert expected in stderr


def test_arbiter_inventory_naming_a_folder_is_a_clear_error_or_is_searched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = project(tmp_path / "clone")
    monkeypatch.chdir(clone)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("ARBITER_INVENTORY", str(empty))
    stderr = one_line_error(runner.invoke(app, ["rulings", "zones", "--coverage"]))
    assert f"$ARBITER_INVENTORY is {empty}, a folder without an inventory in it" in stderr
    # a folder that holds rules/inventory.md (the shared folder) is searched
    shared = tmp_path / "shared"
    (shared / "rules").mkdir(parents=True)
    (shared / "rules" / "inventory.md").write_text(INVENTORY)
    monkeypatch.setenv("ARBITER_INVENTORY", str(shared))
    result = runner.invoke(app, ["rulings", "zones", "--coverage"])
    assert result.exit_code == 0, result.output
    assert str(shared / "rules" / "inventory.md") in result.stdout.replace("\n", "")


@pytest.mark.parametrize(("content", "expected"), [
    (None, "no such file"),
    (b"# notes\nnothing here\n", "lists no rule ids"),
    (b"\xff\xfe\x00bad", "cannot read the rules inventory"),
])
def test_a_missing_or_wrong_inventory_file_is_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes | None,
        expected: str) -> None:
    path = tmp_path / "inventory.md"
    if content is not None:
        path.write_bytes(content)
    monkeypatch.delenv("ARBITER_INVENTORY", raising=False)
    with pytest.raises(InventoryError, match=expected):
        load_inventory(path)
    monkeypatch.setenv("ARBITER_INVENTORY", str(path))
    with pytest.raises(InventoryError, match=expected):
        load_inventory(None)
    stderr = one_line_error(runner.invoke(app, ["rulings", "zones", "--coverage",
                                                "--inventory", str(path)]))
    assert expected in stderr
