"""Campaign time in realms (docs/rulesets/realms.md, "Time between encounters"): a character
hurt, drained and exhausted in one encounter carries it into the next; as time passes on the
roster its timed conditions run out (10 s a round), and each 8 hours of rest are a full
recovery (R-OVH-2, R-C-EXH; RLM-10); Bleed and Dying are settled first (RLM-9)."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.core import Command, IllegalCommand
from arbiter.rulesets.realms.model import RealmsCreature
from arbiter.store import GameService

from ..conftest import creature_of, lasting_of


def creature(service: GameService, eid: str, who: str) -> RealmsCreature:
    return creature_of(service, eid, who, RealmsCreature)


def lasting(service: GameService, cid: str, who: str) -> dict[str, Any]:
    return lasting_of(service, cid, who)


def hurt(service: GameService, *extra: Command) -> str:
    campaign, _ = service.create_campaign("Marches", "realms")
    cid = campaign.id
    service.roster_submit(cid, Command("character_add", args={
        "id": "ser", "name": "Ser Aldo", "template": "knight", "side": "heroes",
        "energy": 6}))
    fight = service.create_encounter(cid, "Barrow", characters=["ser"])
    for command in (
        Command("damage", args={"target": "ser", "amount": 9, "type": "psychic"}),
        Command("spend_energy", actor="ser", args={"amount": 4}),
        Command("condition", args={"target": "ser", "name": "exhausted", "level": 2}),
        Command("condition", args={"target": "ser", "name": "weakened", "level": 1,
                                   "rounds": 30}),
        *extra,
    ):
        service.submit(fight.id, command)
    service.write_back(fight.id)
    return cid


@pytest.mark.rules("R-OVH-2", "R-C-EXH")
def test_time_runs_out_conditions_and_rest_is_a_full_recovery(service: GameService) -> None:
    """Rule ids: R-OVH-2, R-C-EXH"""
    cid = hurt(service)
    kept = lasting(service, cid, "ser")
    assert (kept["health_now"], kept["energy_now"]) == (17, 2)
    assert [c["name"] for c in kept["conditions"]] == ["exhausted", "weakened"]
    # the next encounter: all of it comes along; written back unchanged
    second = service.create_encounter(cid, "Ford", characters=["ser"])
    ser = creature(service, second.id, "ser")
    assert (ser.health, ser.energy, ser.level("exhausted")) == (17, 2, 2)
    service.write_back(second.id)

    # 2 minutes (12 rounds) without rest: the weakness has 18 rounds left, nothing heals
    _, record = service.roster_submit(cid, Command("advance_time", args={
        "amount": 2, "unit": "minutes", "activity": "none"}))
    kept = lasting(service, cid, "ser")
    assert kept["health_now"] == 17
    weak = [c for c in kept["conditions"] if c["name"] == "weakened"]
    assert weak[0]["duration"]["round"] == 18
    # 3 more minutes: it runs out
    _, record = service.roster_submit(cid, Command("advance_time", args={
        "amount": 3, "unit": "minutes", "activity": "none"}))
    assert record.payload["events"][0]["data"]["happened"]["ser"] == [
        "Ser Aldo is no longer weakened (its time ran out)."]
    assert [c["name"] for c in lasting(service, cid, "ser")["conditions"]] == ["exhausted"]

    # 7 hours of rest are no full recovery; 8 are: Health and Energy back, Exhaustion 1
    service.roster_submit(cid, Command("advance_time", args={"amount": 7}))
    assert lasting(service, cid, "ser")["health_now"] == 17
    _, record = service.roster_submit(cid, Command("advance_time", args={"amount": 8}))
    assert record.payload["events"][0]["data"]["happened"]["ser"] == [
        "Ser Aldo completes a full recovery: Health 26, Exhausted 1.",
        "Ser Aldo has 6 Energy now (deficit 0)."]
    kept = lasting(service, cid, "ser")
    assert "health_now" not in kept and "energy_now" not in kept
    assert kept["conditions"] == [{"name": "exhausted", "level": 1}]
    # two days of rest: Exhaustion gone (one recovery was enough)
    service.roster_submit(cid, Command("advance_time", args={"amount": 2, "unit": "days"}))
    assert lasting(service, cid, "ser")["conditions"] == []
    third = service.create_encounter(cid, "Keep", characters=["ser"])
    ser = creature(service, third.id, "ser")
    assert (ser.health, ser.energy, ser.conditions) == (26, 6, [])


@pytest.mark.rules("R-C-EXH")
def test_rlm10_excerpt_only_recovers_no_health(service: GameService) -> None:
    """Rule ids: R-C-EXH"""
    cid = hurt(service)
    service.set_campaign_rulings(cid, {"RLM-10": "excerpt-only"})
    service.roster_submit(cid, Command("advance_time", args={"amount": 16}))
    kept = lasting(service, cid, "ser")
    assert (kept["health_now"], kept["energy_now"]) == (17, 2)
    assert [c["name"] for c in kept["conditions"]] == []  # Exhausted 2 - 2, weakness over


@pytest.mark.rules("R-C-BLE")
def test_rlm9_bleeding_is_settled_first_or_tended(service: GameService) -> None:
    """Rule ids: R-C-BLE"""
    cid = hurt(service, Command("condition", args={"target": "ser", "name": "bleed",
                                                   "level": 2}))
    with pytest.raises(IllegalCommand, match=r"ser is Bleeding 2: heal or stabilize"):
        service.roster_submit(cid, Command("advance_time", args={"amount": 1}))
    assert service.roster(cid, lambda r: r.state.clock) == 0
    service.set_campaign_rulings(cid, {"RLM-9": "tended"})
    service.roster_submit(cid, Command("advance_time", args={"amount": 1,
                                                             "activity": "none"}))
    kept = lasting(service, cid, "ser")
    assert kept["health_now"] == 17
    assert "bleed" not in [c["name"] for c in kept["conditions"]]
