"""The browser code's unit tests and what they read from the catalogue.

``tests/js/*.test.mjs`` (Node's own test runner: the map's geometry, the roles it reads, the
pages' state updates, target ranking, the ruler) run here, by ``node --test tests/js/``, so
``make test`` and a plain ``pytest`` both run them; skipped only when Node is missing. Their
types are checked by ``make types`` (tsc over the JSDoc; docs/web.md). Then the declarations
the front end reads instead of guessing: each installed ruleset's command roles and cards."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arbiter.core import catalogue as args
from arbiter.core.catalogue import ROLE_ARGS, ROLES, command
from arbiter.core.registry import available, load_ruleset
from arbiter.server import create_app

ROOT = Path(__file__).resolve().parents[2]


def test_the_javascript_unit_tests_pass() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is missing: the JavaScript unit tests (tests/js) need `node`")
    run = subprocess.run([node, "--test", "tests/js/"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout


@pytest.mark.parametrize("name", available())
def test_the_map_roles_are_declared_once_each(name: str) -> None:
    """``move`` and ``place`` go to one command each, ``area`` to one per aim (a ``target``
    creature, a ``zone``), each with the argument the map fills in (board.js roleCommand);
    the game master's map tools (``paint``, ``zone``, ``region``) are the GM's, with the
    arguments the map fills in (board.js toolCommand)."""
    catalogue = load_ruleset(name).catalogue
    roles = {k: c.role for k, c in catalogue.items() if c.role}
    assert set(roles.values()) <= set(ROLES), roles
    counts = Counter(v for v in roles.values() if v != "area")
    assert all(n == 1 for n in counts.values()), roles
    aims = Counter("zone" if "zone" in catalogue[k].args else "target"
                   for k, v in roles.items() if v == "area")
    assert all(n == 1 for n in aims.values()), roles
    for k, role in roles.items():
        spec = catalogue[k]
        kinds = {a.kind for a in spec.args.values()}
        if role in ("move", "place"):
            assert kinds & {"square", "squares"} or "zone" in spec.args, (k, "no location")
            assert spec.who == ("player" if role == "move" else "gm"), (k, spec.who)
        if role == "place":
            assert any(a.kind == "creature" and a.required for a in spec.args.values()), k
        if role == "area":
            assert "weapon" in spec.args and spec.actor == "required", k
        if role in ROLE_ARGS:  # the GM's map tools (board.js toolCommand; their arguments are
            # checked when declared, catalogue.command)
            assert spec.who == "gm", (k, spec.who)


def test_a_map_tool_without_the_arguments_the_map_fills_is_refused() -> None:
    """A command declaring a map role without the arguments of ROLE_ARGS fails when its
    ruleset is imported, naming the role and the missing arguments."""
    with pytest.raises(TypeError, match=r"'terrain': role 'paint' needs the arguments "
                                        r"squares \(squares\)"):
        command("Mark squares.", squares=args.square("one square"), role="paint")(
            do_terrain)
    with pytest.raises(TypeError, match=r"role 'region' needs the arguments "
                                        r"x \(integer\), y \(integer\)$"):
        command("Draw a zone.", zone=args.text("the zone"), width=args.integer("w"),
                height=args.integer("h"), role="region")(do_terrain)


def do_terrain() -> None:
    """A handler for the refused declarations above."""


@pytest.mark.parametrize("name", available())
def test_the_card_fields_and_area_weapons_are_declared(name: str) -> None:
    ruleset = load_ruleset(name)
    shown = ruleset.display()
    assert shown["card"] == list(ruleset.card_fields)
    assert len(set(shown["card"])) == len(shown["card"]), "a card field twice"
    assert set(shown["quiet"]) <= set(shown["card"]), "a quiet field the card does not show"
    assert set(shown["area_weapons"].values()) <= {"creature", "zone"}
    aims = {"zone" if "zone" in c.args else "creature"
            for c in ruleset.catalogue.values() if c.role == "area"}
    assert set(shown["area_weapons"].values()) == aims, (shown["area_weapons"], aims)


def test_the_server_sends_the_roles_and_the_display_to_both_pages(tmp_path: Path) -> None:
    """What board.js and ui.js read: each command's ``role`` (left out when it has none) and
    each ruleset's ``display``, by GET /api/rulesets (the console) and an encounter's
    GET .../commands (the player page, which gets the player's commands only)."""
    with TestClient(create_app(db=tmp_path / "a.db")) as client:
        listed = {r["name"]: r for r in client.get("/api/rulesets").json()["rulesets"]}
        for name, entry in listed.items():
            ruleset = load_ruleset(name)
            assert entry["display"] == ruleset.display()
            roles = {k: c["role"] for k, c in entry["commands"].items() if "role" in c}
            assert roles == {k: c.role for k, c in ruleset.catalogue.items() if c.role}
        zones = listed["zones"]
        assert zones["display"]["area_weapons"] == {"aoe": "creature", "zaoe": "zone"}
        assert {k: c.get("role") for k, c in zones["commands"].items() if c.get("role")} == {
            "attack": "area", "zaoe": "area", "move": "move", "place": "place",
            "zone": "zone", "region": "region"}
        made = client.post("/api/campaigns", json={"name": "t", "ruleset": "zones"}).json()
        gm = {"Authorization": f"Bearer {made['gm_token']}"}
        cid = made["campaign"]["id"]
        enc = client.post(f"/api/campaigns/{cid}/encounters", json={"name": "e"}, headers=gm)
        assert enc.status_code == 201, enc.text
        eid = enc.json()["encounter"]["id"]
        out = client.get(f"/api/encounters/{eid}/commands", headers=gm).json()
        assert out["display"] == load_ruleset("zones").display()
        assert out["commands"]["place"]["role"] == "place"
