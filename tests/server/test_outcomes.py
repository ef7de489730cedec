"""What became of a creature is the ruleset's answer (``Ruleset.status``, ``is_down``,
``is_dead``), read alike by the simulator, its tactics and the console's state."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from arbiter.core import EncounterState, Entity, load_ruleset
from arbiter.core.outcomes import STANDING, STATUSES
from arbiter.core.registry import available
from arbiter.sim.hooks import outcomes_for

from .test_table_dice import Table


@pytest.mark.parametrize("name", sorted(available()))
def test_the_simulator_reads_the_rulesets_own_answer(name: str) -> None:
    ruleset = load_ruleset(name)
    outcomes = outcomes_for(name)
    assert outcomes.status == ruleset.status
    assert outcomes.defeated == ruleset.is_down
    assert ruleset.status(EncounterState(ruleset=name), Entity("x", kind="object")) in STATUSES


@pytest.mark.rules("R-DY-1", "R-DTH-1")
def test_the_state_says_what_became_of_a_creature_by_the_rules(client: TestClient) -> None:
    """realms: at 0 Health a creature is Dying (R-DY-1): its fate is ``dying``, which the
    console labels down; at −max Health it is dead (R-DTH-1). A player reads the fate of
    their own side's creatures; of a foe, its wounds only."""
    table = Table(client, "realms", [
        {"id": "nia", "template": "knight", "side": "heroes"},
        {"id": "bandit", "template": "bandit", "side": "raiders"}], ["nia"])
    seen = table.client.get(f"/api/encounters/{table.eid}", headers=table.gm).json()
    assert "fate" not in seen["entities"]["nia"]  # standing: nothing said
    for who in ("nia", "bandit"):
        r = table.post(table.gm, {"command": {"do": "override", "path": f"{who}.health",
                                              "value": 0, "reason": "a test"}})
        assert r.status_code == 201, r.text
    gm = table.client.get(f"/api/encounters/{table.eid}", headers=table.gm).json()
    assert gm["entities"]["nia"]["fate"] == "dying"
    assert gm["entities"]["bandit"]["fate"] == "dying"
    player = table.client.get(f"/api/encounters/{table.eid}", headers=table.player).json()
    assert player["entities"]["nia"]["fate"] == "dying"
    assert "fate" not in player["entities"]["bandit"]
    assert player["entities"]["bandit"]["status"] == "down"
    assert STANDING not in {gm["entities"][w]["fate"] for w in ("nia", "bandit")}
