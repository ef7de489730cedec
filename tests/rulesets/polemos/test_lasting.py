"""What lasts in Polemos (docs/rulesets/polemos.md, "What lasts"): a roster character hurt in
one encounter carries its body areas' vitality, SP, FP, stress, wounds (and so its fatigue)
and afflictions into the next after write-back; a wound still bleeding bleeds on."""

from __future__ import annotations

from arbiter.core import Command
from arbiter.rulesets.polemos.model import Creature
from arbiter.store import GameService

from ..conftest import creature_of


def creature(service: GameService, eid: str, who: str) -> Creature:
    return creature_of(service, eid, who, Creature)


def test_a_wounded_character_carries_its_wounds_into_the_next_encounter(
        service: GameService) -> None:
    campaign, _ = service.create_campaign("Undercity", "polemos")
    cid = campaign.id
    service.roster_submit(cid, Command("character_add", args={
        "id": "kit", "name": "Kit", "template": "soldier", "side": "crew"}))
    first = service.create_encounter(cid, "Alley", characters=["kit"],
                                     creatures=[{"template": "ganger", "side": "gang"}])
    for command in (
        Command("damage", args={"target": "kit", "amount": 3, "area": "chest",
                                "armor": False}),
        Command("damage", args={"target": "kit", "amount": 4, "area": "left_leg",
                                "type": "bashing (stamina)", "armor": False}),
        Command("wound", args={"target": "kit", "name": "cut", "area": "left_arm",
                               "fatigue": 2, "bleeding": 1}),
        Command("wound", args={"target": "kit", "name": "bruise", "area": "right_arm",
                               "fatigue": 1}),
        Command("afflict", args={"target": "kit", "name": "fever", "wound": True}),
        Command("stress", args={"target": "kit", "amount": 3}),
    ):
        service.submit(first.id, command)
    kit = creature(service, first.id, "kit")
    chest, sp, stress = kit.areas["chest"].vitality, kit.sp, kit.stress
    assert chest < kit.areas["chest"].vitality_max and sp < kit.sp_max
    assert kit.fatigue == 3 and [b.origin for b in kit.bleeding] == ["left_arm"]
    assert stress == 3
    _, record = service.write_back(first.id)
    lasting = record.payload["events"][0]["data"]["characters"]["kit"]
    assert lasting["vitality_now"] == {"chest": chest}
    assert lasting["sp_now"] == sp and "fp_now" not in lasting
    assert [(w["name"], w["area"], w["fatigue"], w["bleeding"]) for w in lasting["wounds"]] \
        == [("cut", "left_arm", 2, 1), ("bruise", "right_arm", 1, 0), ("fever", None, 0, 0)]
    assert [(a["name"], a["wound"]) for a in lasting["afflictions"]] == [("fever", True)]
    assert lasting["stress"] == 3

    second = service.create_encounter(cid, "Roof", characters=["kit"])
    kit = creature(service, second.id, "kit")
    assert kit.areas["chest"].vitality == chest
    assert kit.areas["chest"].vitality_max == creature(service, first.id, "kit").areas[
        "chest"].vitality_max
    assert (kit.sp, kit.stress, kit.fatigue) == (sp, stress, 3)
    assert [(w.name, w.area) for w in kit.wounds] == [("cut", "left_arm"),
                                                      ("bruise", "right_arm"), ("fever", None)]
    assert [b.origin for b in kit.bleeding] == ["left_arm"]  # the cut bleeds on
    assert [(a.name, a.wound) for a in kit.afflictions] == [("fever", True)]
    # wounds of the next encounter add to those it brought, and last in turn
    service.submit(second.id, Command("wound", args={"target": "kit", "name": "burn",
                                                     "area": "head", "fatigue": 1}))
    service.write_back(second.id)
    third = service.create_encounter(cid, "Tunnels", characters=["kit"])
    kit = creature(service, third.id, "kit")
    assert [w.name for w in kit.wounds] == ["cut", "bruise", "fever", "burn"]
    assert kit.fatigue == 4
