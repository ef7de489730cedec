"""``arbiter rulings RULESET --coverage``: what counts as checking an inventory id (a
scenario's ``rules:``, a ruling's ``rules``, a test's ``Rule ids:`` line), what checks each id,
and a clear error when the inventory cannot be found or read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.coverage import (
    InventoryError,
    docstring_rule_ids,
    load_inventory,
    measure,
    named_by_rulings,
    named_by_scenarios,
    named_by_tests,
    parse_inventory,
)

runner = CliRunner()

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


def test_a_fresh_clone_without_the_inventory_gets_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's ``arbiter rulings zones --coverage`` in a clone with no
    ``shared/rules/inventory.md`` above it."""
    clone = project(tmp_path / "clone")
    monkeypatch.chdir(clone)
    monkeypatch.delenv("ARBITER_INVENTORY", raising=False)
    stderr = one_line_error(runner.invoke(app, ["rulings", "zones", "--coverage"]))
    assert "no rules inventory found: looked for shared/rules/inventory.md in" in stderr
    assert "not part of the repository" in stderr
    assert "--inventory FILE or set ARBITER_INVENTORY=FILE" in stderr


def test_the_inventory_beside_the_clone_is_found(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    clone = project(tmp_path / "work" / "main")
    beside = tmp_path / "work" / "shared" / "rules" / "inventory.md"
    beside.parent.mkdir(parents=True)
    beside.write_text(INVENTORY)
    monkeypatch.chdir(clone)
    monkeypatch.delenv("ARBITER_INVENTORY", raising=False)
    result = runner.invoke(app, ["rulings", "zones", "--coverage"])
    assert result.exit_code == 0, result.output
    assert "inventory coverage of zones" in result.stdout


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
        load_inventory(path, tmp_path)
    monkeypatch.setenv("ARBITER_INVENTORY", str(path))
    with pytest.raises(InventoryError, match=expected):
        load_inventory(None, tmp_path)
    stderr = one_line_error(runner.invoke(app, ["rulings", "zones", "--coverage",
                                                "--inventory", str(path)]))
    assert expected in stderr
