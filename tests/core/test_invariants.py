"""The invariants (``core/invariants.py``): declared once per ruleset with their rule ids,
listed in docs/rulesets/*.md, checked after every event and command while checking is on,
and a broken one named with its rule, command and event; the simulator's ``--check``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from arbiter.core import Command, Encounter, EncounterState, Entry, Event, load_ruleset
from arbiter.core.catalogue import with_table
from arbiter.core.invariants import (
    CHECKING,
    MARKERS,
    InvariantBroken,
    checking,
    invariant,
    invariants_of,
    markdown,
    violations,
)
from arbiter.core.registry import available
from arbiter.dice import ForcedDice
from arbiter.rulesets.zones.rules import ZonesRuleset
from arbiter.sim.cli import sim_command

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTED = [n for n in available() if (ROOT / "docs" / "rulesets" / f"{n}.md").exists()]


@pytest.mark.parametrize("name", DOCUMENTED)
def test_the_docs_invariant_table_is_the_declared_one(name: str) -> None:
    path = ROOT / "docs" / "rulesets" / f"{name}.md"
    document = path.read_text(encoding="utf-8")
    table = markdown(load_ruleset(name).invariants)
    assert with_table(document, table, MARKERS) == document, (
        f"{path} is out of date: run arbiter invariants {name} --write {path}")


@pytest.mark.parametrize("name", available())
def test_every_ruleset_keeps_the_kernels_invariants_and_each_names_a_rule(name: str) -> None:
    invariants = load_ruleset(name).invariants
    names = {inv.name for inv in invariants}
    assert {"turn_order", "turn_taker", "initiative_of_present", "conditions_once"} <= names
    for inv in invariants:
        assert inv.rule and inv.text, inv


def test_the_suite_checks_invariants() -> None:
    assert CHECKING.on  # tests/conftest.py


def test_a_broken_invariant_names_itself_its_rule_the_command_and_the_event() -> None:
    enc = Encounter.create(load_ruleset("zones"))
    enc.execute({"do": "add", "id": "nia", "DEX": 12}, ForcedDice([]))
    bad = Event("combat_started", {"initiative": {"nia": 3}, "order": ["nia", "ghost"],
                                   "rolls": {}})
    with pytest.raises(InvariantBroken) as caught:
        enc.apply(Entry(3, Command("start"), [bad], []))
    message = str(caught.value)
    assert "invariant 'turn_order' (CORE-TURN" in message
    assert "after command 'start', event 'combat_started'" in message
    assert "'ghost' is in the turn order but not in the encounter" in message


def test_without_checking_nothing_is_checked() -> None:
    enc = Encounter.create(load_ruleset("zones"))
    bad = Event("combat_started", {"initiative": {}, "order": ["ghost"], "rolls": {}})
    with checking(False):
        enc.apply(Entry(2, Command("start"), [bad], []))
    broken = {inv.name for inv, _ in violations(enc.ruleset, enc.state)}
    assert broken == {"turn_order", "a_turn_in_play"}  # a ghost in the order, no turn begun


def test_a_holds_method_needs_its_declaration() -> None:
    with pytest.raises(TypeError, match="named holds_"):
        invariant("X-1", "x")(lambda self, state: iter(()))

    class Undeclared(ZonesRuleset):
        def holds_nothing(self, state: EncounterState) -> Iterator[str]:
            yield from ()

    with pytest.raises(TypeError, match="has no @invariant declaration"):
        invariants_of(Undeclared)


@pytest.mark.rules("P-FAT-3")
def test_command_invariants_wait_for_the_commands_last_event() -> None:
    """A status condition follows the damage in the same entry: checked after the command,
    not between its events (P-FAT-3)."""
    enc = Encounter.create(load_ruleset("polemos"))
    enc.execute({"do": "add", "id": "nia", "sp": 2}, ForcedDice([]))
    entry = enc.execute({"do": "damage", "target": "nia", "amount": 2,
                         "type": "bashing (stamina)", "area": "chest"}, ForcedDice([]))
    assert [e.type for e in entry.events][-1] == "condition_added"
    assert enc.state.entity("nia").has("physical fatigue")


def test_the_simulators_check_mode_plays_with_the_invariants(tmp_path: Path) -> None:
    app = typer.Typer(pretty_exceptions_enable=False)
    app.command("sim")(sim_command)
    encounter = ROOT / "scenarios" / "encounters" / "zones-4v4.yaml"
    ok = CliRunner().invoke(app, [str(encounter), "--runs", "20", "--seed", "3", "--check"])
    assert ok.exit_code == 0, ok.stdout
    assert "wins" in ok.stdout


def test_the_simulators_check_mode_stops_at_a_broken_invariant(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A defect planted in the rules (an initiative value for a creature not there) stops
    the run with the invariant's name and rule, exit status 2."""
    rules = load_ruleset("zones")
    original = type(rules).apply_combat_started

    def planted(self: ZonesRuleset, state: EncounterState, data: Any) -> None:
        original(self, state, data)
        state.initiative = {**state.initiative, "ghost": 1}

    monkeypatch.setattr(type(rules), "apply_combat_started", planted)
    monkeypatch.setattr(rules, "_apply_table", {})
    app = typer.Typer(pretty_exceptions_enable=False)
    app.command("sim")(sim_command)
    encounter = ROOT / "scenarios" / "encounters" / "zones-4v4.yaml"
    with checking(False):
        broken = CliRunner().invoke(app, [str(encounter), "--runs", "5", "--check"])
    assert broken.exit_code == 2
    assert "invariant 'initiative_of_present' (CORE-INIT" in broken.stderr
