"""Rulings are read through the one accessor, with no default at the call site, and compared
only with choices the ruling lists; every choice is reachable."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from arbiter.core import RulingError
from arbiter.rulesets.zones import movement as zones_rules
from arbiter.rulesets.zones.model import RULINGS

from .helpers import ZONES

PACKAGE = Path(zones_rules.__file__).parent
SOURCES = [*sorted(PACKAGE.glob("*.py")), PACKAGE.parents[1] / "sim" / "tactics" / "zones.py"]
READERS = {"ruling": 1, "ruling_is": 1, "value": 1, "chosen": 1}
"""Accessor name -> the position of the ruling id among its arguments."""


def calls(path: Path) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


@pytest.mark.rules("AZ-1", "AZ-2", "AZ-3", "AZ-4")
def test_no_ruling_is_read_with_a_default_at_the_call_site() -> None:
    """No ``rulings.get(ID, DEFAULT)`` (nor ``rulings[ID]``) in the zones package or its
    tactics: defaults live in rulings.toml only.

    Rule ids: AZ-1, AZ-2, AZ-3, AZ-4
    """
    found = []
    for path in SOURCES:
        for node in calls(path):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "get" and node.args and \
                    (literal(node.args[0]) or "").startswith(("AZ-", "ZR-")):
                found.append(f"{path.name}:{node.lineno}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for sub in ast.walk(tree):
            if isinstance(sub, ast.Subscript) and (literal(sub.slice) or "").startswith(
                    ("AZ-", "ZR-")):
                found.append(f"{path.name}:{sub.lineno}")
    assert found == []


@pytest.mark.rules("AZ-1", "AZ-2", "AZ-3", "AZ-4")
def test_every_ruling_read_names_a_ruling_and_a_choice_it_lists() -> None:
    """Each ``ruling_is(state, ID, CHOICE)`` / ``RULINGS.chosen(chosen, ID, CHOICE)`` names a
    ruling of rulings.toml and one of its choices; ``ruling`` / ``RULINGS.value`` a ruling.

    Rule ids: AZ-1, AZ-2, AZ-3, AZ-4
    """
    seen = 0
    for path in SOURCES:
        for node in calls(path):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else None
            if name not in READERS or len(node.args) <= READERS[name]:
                continue
            rid = literal(node.args[READERS[name]])
            if rid is None or not rid.startswith(("AZ-", "ZR-")):
                continue
            seen += 1
            assert rid in RULINGS, f"{path.name}:{node.lineno}: no ruling {rid}"
            if name in ("ruling_is", "chosen"):
                choice = literal(node.args[READERS[name] + 1])
                assert choice in RULINGS.get(rid).choices, f"{path.name}:{node.lineno}"
    assert seen >= 29


@pytest.mark.rules("AZ-3")
def test_the_accessor_refuses_a_choice_the_ruling_does_not_list() -> None:
    """Rule ids: AZ-3"""
    assert ZONES.rulings is RULINGS
    assert RULINGS.value({}, "AZ-3") == "sum"
    assert RULINGS.chosen({"AZ-3": "keep-higher"}, "AZ-3", "keep-higher")
    with pytest.raises(RulingError, match="has no choice 'keep-highest'"):
        RULINGS.chosen({}, "AZ-3", "keep-highest")


@pytest.mark.rules("AZ-22", "Z-FLK-1", "Z-FLK-2")
def test_tables_keyed_by_a_ruling_list_its_choices() -> None:
    """The flanking cut-offs are keyed by the choices of AZ-22.

    Rule ids: AZ-22, Z-FLK-1, Z-FLK-2
    """
    assert set(zones_rules.FLANK_CUTOFFS) == set(RULINGS.get("AZ-22").choices)
