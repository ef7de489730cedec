"""Campaign time in Polemos (docs/rulesets/polemos.md, "Time between encounters"): a
character wounded in one encounter carries its wounds into the next, then days pass on the
roster and the wounds heal as the seed says: the daily [endurance] roll (P-WND-4, POL-2),
fatigue wounds removed by an hour of relaxing (P-FAT-6), SP back by resting (P-FAT-5), and
vitality one a day (POL-10). Dice are forced."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.core import Command
from arbiter.rulesets.polemos.model import Creature
from arbiter.store import GameService

from ..conftest import creature_of, lasting_of

DAY = 28800  # rounds of 3 seconds


def creature(service: GameService, eid: str, who: str) -> Creature:
    return creature_of(service, eid, who, Creature)


def lasting(service: GameService, cid: str, who: str) -> dict[str, Any]:
    return lasting_of(service, cid, who)


def wounded(service: GameService) -> str:
    """A campaign whose soldier (endurance 2, SP 12) leaves a fight with a gash, a strain,
    a hurt leg and 5 SP lost, 100 rounds after the wounds."""
    campaign, _ = service.create_campaign("Undercity", "polemos")
    cid = campaign.id
    service.roster_submit(cid, Command("character_add", args={
        "id": "kit", "name": "Kit", "template": "soldier", "side": "crew"}))
    first = service.create_encounter(cid, "Alley", characters=["kit"])
    for command in (
        Command("damage", args={"target": "kit", "amount": 3, "area": "left_leg",
                                "armor": False}),
        Command("damage", args={"target": "kit", "amount": 5, "area": "chest",
                                "type": "bashing (stamina)", "armor": False}),
        Command("wound", args={"target": "kit", "name": "gash", "area": "left_arm",
                               "fatigue": 2, "tags": ["physical"], "max_days": 10}),
        Command("wound", args={"target": "kit", "name": "strain", "fatigue": 1,
                               "tags": ["fatigue"]}),
        Command("wait", args={"amount": 100}),
    ):
        service.submit(first.id, command)
    service.write_back(first.id)
    return cid


@pytest.mark.rules("P-WND-4", "P-FAT-5", "P-FAT-6", "P-FAT-9")
def test_wounds_carry_into_the_next_encounter_and_heal_as_days_pass(
        service: GameService) -> None:
    """Rule ids: P-WND-4, P-FAT-5, P-FAT-6, P-FAT-9"""
    cid = wounded(service)
    kept = lasting(service, cid, "kit")
    assert [(w["name"], w["age"]) for w in kept["wounds"]] == [("gash", 100), ("strain", 100)]
    assert kept["sp_now"] == 7 and kept["vitality_now"] == {"left_leg": 2}

    # the next encounter: the wounds came along (fatigue 3), and keep their age
    second = service.create_encounter(cid, "Roof", characters=["kit"])
    kit = creature(service, second.id, "kit")
    assert [w.name for w in kit.wounds] == ["gash", "strain"] and kit.fatigue == 3
    assert [w.received for w in kit.wounds] == [-100, -100]
    assert (kit.sp, kit.areas["left_leg"].vitality) == (7, 2)
    service.write_back(second.id)

    # a day of relaxing: SP back, the strain (a fatigue wound) gone in the first hour, the
    # gash rolls [endurance] once, 24 hours after it was received: 3 + 4 + 2 = 9 stays
    _, record = service.roster_submit(cid, Command("advance_time", args={
        "amount": 1, "unit": "days", "activity": "relax"}), dice=[3, 4])
    assert record.payload["dice"] == [[6, 3], [6, 4]]
    data = record.payload["events"][0]["data"]
    assert data["clock"] == 86400 and data["who"] == ["kit"]
    assert data["happened"]["kit"] == [
        "Kit: relax for a day, SP 12, FP 10; fatigue wounds removed: kit-w2.",
        "Kit's endurance roll for wound kit-w1: 9; it stays.",
        "Kit's body mends over 1 day(s): vitality left leg 3."]
    kept = lasting(service, cid, "kit")
    assert [(w["name"], w["level"], w["age"]) for w in kept["wounds"]] == [
        ("gash", 1, 100 + DAY)]
    assert "sp_now" not in kept and kept["vitality_now"] == {"left_leg": 3}

    # a night's sleep and the next day: 5 + 4 + 2 = 11 heals the gash
    service.roster_submit(cid, Command("advance_time", args={
        "amount": 1, "unit": "days", "activity": "sleep"}), dice=[5, 4])
    kept = lasting(service, cid, "kit")
    assert kept["wounds"] == [] and kept["vitality_now"] == {"left_leg": 4}
    third = service.create_encounter(cid, "Tunnels", characters=["kit"])
    kit = creature(service, third.id, "kit")
    assert (kit.wounds, kit.fatigue, kit.sp) == ([], 0, 12)
    assert service.roster(cid, lambda r: r.state.clock) == 2 * 86400


@pytest.mark.rules("P-WND-4")
def test_a_low_endurance_roll_worsens_a_wound_and_undo_takes_the_time_back(
        service: GameService) -> None:
    """Every wound rolls on its own day (a fatigue wound too).

    Rule ids: P-WND-4"""
    cid = wounded(service)
    service.roster_submit(cid, Command("advance_time", args={
        "amount": 30, "unit": "hours", "activity": "none"}), dice=[1, 2, 6, 6])
    kept = lasting(service, cid, "kit")  # gash 1 + 2 + 2 = 5: worse; strain 14: heals
    assert [(w["name"], w["level"]) for w in kept["wounds"]] == [("gash", 2)]
    assert kept["sp_now"] == 7  # no rest: no SP back
    service.roster_undo(cid)
    kept = lasting(service, cid, "kit")
    assert [(w["name"], w["level"], w["age"]) for w in kept["wounds"]] == [
        ("gash", 1, 100), ("strain", 1, 100)]
    assert service.roster(cid, lambda r: r.state.clock) == 0


@pytest.mark.rules("P-WND-5")
def test_a_wound_past_its_maximum_duration_heals_without_a_roll(
        service: GameService) -> None:
    """Rule ids: P-WND-5"""
    cid = wounded(service)
    # relaxing removes the strain; the gash rolls nine days (3 + 3 + 2 = 8 leaves it), and
    # its ten days are up before the tenth roll
    _, record = service.roster_submit(cid, Command("advance_time", args={
        "amount": 11, "unit": "days", "activity": "relax"}), dice=[3, 3] * 9)
    assert len(record.payload["dice"]) == 18
    assert lasting(service, cid, "kit")["wounds"] == []


@pytest.mark.rules("POL-10")
def test_vitality_stays_under_pol10_none(service: GameService) -> None:
    """Rule ids: POL-10"""
    cid = wounded(service)
    service.set_campaign_rulings(cid, {"POL-10": "none"})
    service.roster_submit(cid, Command("advance_time", args={
        "amount": 20, "unit": "hours", "activity": "rest"}))
    assert lasting(service, cid, "kit")["vitality_now"] == {"left_leg": 2}


def test_an_unknown_activity_is_refused_naming_the_choices(service: GameService) -> None:
    cid = wounded(service)
    with pytest.raises(Exception, match="rest, relax, sleep, none"):
        service.roster_submit(cid, Command("advance_time", args={
            "amount": 1, "activity": "dance"}))


@pytest.mark.rules("P-BLD-1", "P-CON-9", "P-BLD-3")
def test_bleeding_runs_on_while_time_passes_unless_bandaged(service: GameService) -> None:
    """An unbandaged bleeding wound bleeds on between encounters, every three seconds
    (P-BLD-1, P-CON-9); one bandaged in the fight was stopped and stays stopped (P-BLD-3).

    Rule ids: P-BLD-3"""
    campaign, _ = service.create_campaign("Undercity", "polemos")
    cid = campaign.id
    for ident in ("kit", "ava"):
        service.roster_submit(cid, Command("character_add", args={
            "id": ident, "name": ident.title(), "template": "soldier"}))
    fight = service.create_encounter(cid, "Alley", characters=["kit", "ava"])
    for who in ("kit", "ava"):
        service.submit(fight.id, Command("wound", args={"target": who, "name": "cut",
                                                        "area": "left_arm", "bleeding": 1}))
    service.submit(fight.id, Command("bandage", args={"target": "ava", "area": "left_arm"}))
    service.write_back(fight.id)
    full = creature(service, fight.id, "ava").areas["left_arm"].vitality_max
    service.roster_submit(cid, Command("advance_time", args={"amount": 1, "unit": "minutes",
                                                             "activity": "none"}))
    assert lasting(service, cid, "kit")["vitality_now"]["left_arm"] == 1  # at its minimum
    assert "vitality_now" not in lasting(service, cid, "ava")
    assert full > 1
