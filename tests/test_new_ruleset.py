"""``arbiter new-ruleset NAME``, as docs/extending.md walks through it: the package it writes
in a temporary folder, loaded as its entry point would load it (the registry's test hook),
passes the guard tests, called on it unedited: the shape, the catalogue, the inventory and
its coverage, the invariants and its own scenario."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.core import load_ruleset
from arbiter.core.invariants import invariants_of
from arbiter.core.registry import available, register, unregister
from arbiter.coverage import PACKAGE_INVENTORY, measure, read_package_inventory
from arbiter.scenario import run_file, scenario_files
from arbiter.server import create_app

from .core import test_catalogue as catalogue
from .core import test_invariants as invariants
from .core import test_payloads as payloads
from .rulesets.test_shape import check_core_modules, check_module_sizes
from .server import test_authority as authority
from .sim import test_winner as winner
from .support import Played
from .test_coverage import check_inventory

runner = CliRunner()
NAME = "duel"


@pytest.fixture
def duel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The doc's steps: ``arbiter new-ruleset duel`` in a folder, the folder on the path and
    the package registered as its entry point line says; the folder it was made in."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["new-ruleset", NAME, "--dir", "pkgs"])
    assert result.exit_code == 0, result.output
    assert 'duel = "duel:RULESET"' in result.stdout
    (tmp_path / "printed.txt").write_text(result.stdout)
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    module = importlib.import_module(NAME)
    register(module.RULESET)
    try:
        yield tmp_path
    finally:
        unregister(NAME)
        for loaded in [m for m in sys.modules if m == NAME or m.startswith(f"{NAME}.")]:
            del sys.modules[loaded]


def test_the_new_ruleset_passes_every_guard(duel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert NAME in available()
    ruleset = load_ruleset(NAME)
    package = duel / "pkgs" / NAME
    assert ruleset.package_dir == package
    check_core_modules(NAME)
    check_module_sizes(package)
    catalogue.test_every_command_and_event_is_declared(NAME)
    check_inventory(NAME, monkeypatch)
    catalogue.check_scenario_events(NAME, duel / "scenarios" / NAME, Played())
    inventory = read_package_inventory(package / PACKAGE_INVENTORY)
    assert list(inventory.rules) == ["DUEL-ATK-1", "DUEL-DMG-1", "DUEL-HP-1", "DUEL-CON-1",
                                     "DUEL-GM-1"]
    assert inventory.ambiguities == ["ADUEL-1"]
    coverage = measure(NAME, inventory, duel, package)
    assert coverage.by_class["MECH"][1] == [] and coverage.by_class["HOOK"][1] == []
    assert coverage.by_class["ambiguity"][1] == []
    assert "DUEL-HP-1" in [i.rule for i in invariants_of(type(ruleset))]
    invariants.test_every_ruleset_keeps_the_kernels_invariants_and_each_names_a_rule(NAME)
    page = duel / "docs" / "rulesets" / f"{NAME}.md"
    with pytest.raises(AssertionError, match="out of date: run arbiter commands duel --write"):
        catalogue.check_docs_table(NAME, page)
    written = runner.invoke(app, ["commands", NAME, "--write", str(page)])
    assert written.exit_code == 0, written.output
    catalogue.check_docs_table(NAME, page)
    with pytest.raises(AssertionError, match="out of date: run arbiter payloads --write"):
        payloads.check_payloads(NAME)
    typed = runner.invoke(app, ["payloads", "--write"])
    assert typed.exit_code == 0 and typed.output == f"wrote {package / 'payloads.py'}\n"
    payloads.check_payloads(NAME)
    winner.test_side_won_is_the_kernels_event_in_every_ruleset(NAME)
    assert ruleset.demo is not None and set(ruleset.templates) == {"fencer", "brute"}
    assert ruleset.condition_texts == {"dazed": "Attacks at 2 less (DUEL-CON-1)."}


def test_its_scenario_passes_and_it_shows_in_arbiter_commands(duel: Path) -> None:
    files = list(scenario_files([duel / "scenarios" / NAME]))
    assert [f.name for f in files] == ["duel.yaml"]
    result = run_file(files[0])
    assert result.passed, result.failures
    assert result.steps > 0
    listed = runner.invoke(app, ["commands", NAME])
    assert listed.exit_code == 0, listed.output
    assert "attack" in listed.stdout and "damage" in listed.stdout
    played = runner.invoke(app, ["run", str(files[0])])
    assert played.exit_code == 0, played.output


def test_the_server_answers_its_players_as_its_catalogue_says(duel: Path) -> None:
    """The authority guards (tests/server/test_authority.py) on a campaign of the new
    ruleset: each command and argument answers a player as its declaration says."""
    with TestClient(create_app(db=duel / "arbiter.db")) as client:
        games = {NAME: authority.Game(client, NAME)}
        authority.test_every_command_answers_a_player_as_the_catalogue_says(games, NAME)
        authority.test_every_argument_of_a_player_command_answers_as_declared(games, NAME)


@pytest.mark.parametrize(("name", "says"), [
    ("Duel", "give 2 to 11 lowercase letters"),
    ("d", "give 2 to 11 lowercase letters"),
    ("duel_two", "give 2 to 11 lowercase letters"),
    ("zones", "a ruleset named 'zones' is already installed"),
])
def test_a_bad_name_is_refused_and_nothing_is_written(
        name: str, says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["new-ruleset", name, "--dir", "pkgs"])
    assert result.exit_code == 2, result.output
    assert says in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_file_already_there_is_not_overwritten(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkgs" / NAME).mkdir(parents=True)
    (tmp_path / "pkgs" / NAME / "rules.py").write_text("# mine\n")
    result = runner.invoke(app, ["new-ruleset", NAME, "--dir", "pkgs"])
    assert result.exit_code == 2, result.output
    assert "rules.py already exists: nothing written" in result.stderr.replace("\n", "")
    assert [p.name for p in (tmp_path / "pkgs" / NAME).iterdir()] == ["rules.py"]
    assert not (tmp_path / "scenarios").exists() and not (tmp_path / "docs").exists()


def test_a_house_rule_has_its_namespace_and_is_covered_like_any_id(
        duel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``HOUSE-DUEL-1`` in the ruleset's inventory: the guard accepts it beside the
    ruleset's own prefix, and coverage counts it once a scenario names it."""
    package = duel / "pkgs" / NAME
    with (package / PACKAGE_INVENTORY).open("a", encoding="utf-8") as file:
        file.write('"HOUSE-DUEL-1" = { kind = "MECH", text = "A fencer may parry once." }\n')
    check_inventory(NAME, monkeypatch)
    inventory = read_package_inventory(package / PACKAGE_INVENTORY)
    assert measure(NAME, inventory, duel, package).by_class["MECH"][1] == ["HOUSE-DUEL-1"]
    (duel / "scenarios" / NAME / "parry.yaml").write_text(
        f"ruleset: {NAME}\nrules: [HOUSE-DUEL-1]\nactors: {{ada: {{template: fencer}}}}\n"
        "steps: []\n")
    coverage = measure(NAME, inventory, duel, package)
    assert coverage.by_class["MECH"][1] == []
    assert coverage.checked_by["HOUSE-DUEL-1"] == ["scenarios/duel/parry.yaml"]


DOC = Path(__file__).resolve().parents[1] / "docs" / "extending.md"
BLOCK = re.compile(
    r"^( *)```[a-z]*\n\1# (?P<what>duel/[\w.]+|the entry point)\n(?P<body>.*?)^\1```", re.M | re.S)


def test_the_docs_steps_are_the_commands_and_the_code_they_show_is_written(duel: Path) -> None:
    """docs/extending.md's walk through ``new-ruleset``: the command it gives is the one run
    above, and each block marked ``# duel/FILE`` is a slice of that generated file (the
    entry point's block, the line the command printed)."""
    text = DOC.read_text(encoding="utf-8")
    assert ".venv/bin/arbiter new-ruleset duel --dir pkgs\n" in text
    blocks = list(BLOCK.finditer(text))
    assert {m["what"] for m in blocks} >= {"duel/inventory.toml", "duel/rulings.toml",
                                           "duel/attacks.py", "the entry point"}
    printed = (duel / "printed.txt").read_text()
    for m in blocks:
        indent = len(m.group(1))
        body = "".join(line[indent:] for line in m["body"].splitlines(keepends=True))
        source = printed if m["what"] == "the entry point" else (
            duel / "pkgs" / m["what"]).read_text(encoding="utf-8")
        assert body.strip("\n") in source, f"docs/extending.md's {m['what']} block is not the code"
