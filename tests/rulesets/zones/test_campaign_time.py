"""Campaign time in zones (docs/rulesets/zones.md, "Time between encounters"): a character
shot in one encounter carries its Health and spent ammunition into the next; as days of rest
pass on the roster it regains Health as ruling ZR-9 says; ammunition never comes back by
itself."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.core import Command
from arbiter.rulesets.zones.model import Creature
from arbiter.store import GameService

from ..conftest import lasting_of


def lasting(service: GameService, cid: str, who: str) -> dict[str, Any]:
    return lasting_of(service, cid, who)


def shot(service: GameService, rulings: dict[str, str] | None = None) -> str:
    campaign, _ = service.create_campaign("Ridge", "zones", rulings)
    cid = campaign.id
    service.roster_submit(cid, Command("character_add", args={
        "id": "vee", "name": "Vee", "side": "crew", "health": 40, "armor": 0,
        "ammo": {"rifle": 12}}))
    fight = service.create_encounter(cid, "Yard", characters=["vee"])
    service.submit(fight.id, Command("damage", args={"target": "vee", "amount": 25}))
    service.submit(fight.id, Command("override", args={"path": "vee.ammo.rifle", "value": 5,
                                                       "reason": "shots fired"}))
    service.write_back(fight.id)
    return cid


@pytest.mark.rules("ZR-9")
def test_health_comes_back_a_tenth_a_day_and_ammunition_does_not(
        service: GameService) -> None:
    """Rule ids: ZR-9"""
    cid = shot(service)
    assert lasting(service, cid, "vee") == {"ammo": {"rifle": 5}, "health_now": 15}
    second = service.create_encounter(cid, "Ridge", characters=["vee"])
    vee = service.read(second.id, lambda ld: ld.state.entities["vee"])
    assert isinstance(vee, Creature) and (vee.health, vee.ammo) == (15, {"rifle": 5})
    service.write_back(second.id)
    # 47 hours: one complete day, 4 Health (a tenth of 40)
    _, record = service.roster_submit(cid, Command("advance_time", args={"amount": 47}))
    assert record.payload["events"][0]["data"]["happened"]["vee"] == [
        "Vee rests and regains 4 Health (now 19)."]
    assert lasting(service, cid, "vee") == {"ammo": {"rifle": 5}, "health_now": 19}
    # no rest: nothing
    service.roster_submit(cid, Command("advance_time", args={
        "amount": 3, "unit": "days", "activity": "none"}))
    assert lasting(service, cid, "vee")["health_now"] == 19
    # six more days of rest: 24 more, capped at 40
    service.roster_submit(cid, Command("advance_time", args={"amount": 6, "unit": "days"}))
    assert lasting(service, cid, "vee") == {"ammo": {"rifle": 5}}


@pytest.mark.rules("ZR-9")
def test_zr9_full_a_night_and_none(service: GameService) -> None:
    """Rule ids: ZR-9"""
    cid = shot(service, {"ZR-9": "full-a-night"})
    service.roster_submit(cid, Command("advance_time", args={"amount": 7}))
    assert lasting(service, cid, "vee")["health_now"] == 15
    service.roster_submit(cid, Command("advance_time", args={"amount": 8}))
    assert "health_now" not in lasting(service, cid, "vee")
    other = shot(service, {"ZR-9": "none"})
    service.roster_submit(other, Command("advance_time", args={"amount": 9, "unit": "days"}))
    assert lasting(service, other, "vee")["health_now"] == 15
