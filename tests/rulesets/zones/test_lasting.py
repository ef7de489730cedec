"""What lasts in zones (docs/rulesets/zones.md, "What lasts"): a roster character shot in one
encounter carries its Health and the rounds it fired into the next after write-back."""

from __future__ import annotations

from arbiter.core import Command
from arbiter.rulesets.zones.model import Creature
from arbiter.store import GameService

from ..conftest import creature_of


def creature(service: GameService, eid: str, who: str) -> Creature:
    return creature_of(service, eid, who, Creature)


def test_a_wounded_character_carries_its_wounds_into_the_next_encounter(
        service: GameService) -> None:
    campaign, _ = service.create_campaign("Salt flats", "zones")
    cid = campaign.id
    service.roster_submit(cid, Command("character_add", args={
        "id": "kit", "name": "Kit", "template": "soldier", "side": "crew", "group": "crew"}))
    first = service.create_encounter(cid, "Yard", characters=["kit"], creatures=[
        {"template": "bandit", "id": "bob", "side": "gang"}])
    # Kit fires twice (a hit, then a miss); Bob's pistol hits Kit
    service.submit(first.id, Command("attack", actor="kit", args={
        "target": "bob", "weapon": "assault-rifle"}), dice=[1, 20, 10])
    service.submit(first.id, Command("attack", actor="kit", args={
        "target": "bob", "weapon": "assault-rifle"}), dice=[12, 1])
    service.submit(first.id, Command("attack", actor="bob", args={
        "target": "kit", "weapon": "pistol"}), dice=[1, 20, 10])
    kit = creature(service, first.id, "kit")
    assert kit.ammo == {"assault-rifle": 28, "grenade": 2}
    assert 0 < kit.health < kit.health_max == 80
    hurt = kit.health
    _, record = service.write_back(first.id)
    assert record.payload["events"][0]["data"]["characters"] == {
        "kit": {"health_now": hurt, "ammo": {"assault-rifle": 28, "grenade": 2}}}

    second = service.create_encounter(cid, "Bridge", characters=["kit"])
    kit = creature(service, second.id, "kit")
    assert (kit.health, kit.health_max) == (hurt, 80)
    assert kit.ammo == {"assault-rifle": 28, "grenade": 2}
    assert not kit.down
    # a character written back at 0 Health joins the next encounter down
    service.submit(second.id, Command("damage", args={"target": "kit", "amount": 500,
                                                      "drive": 500}))
    service.write_back(second.id)
    third = service.create_encounter(cid, "Tower", characters=["kit"])
    assert creature(service, third.id, "kit").down
