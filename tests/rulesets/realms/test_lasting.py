"""What lasts in realms (docs/rulesets/realms.md, "What lasts"): a roster character wounded,
drained and exhausted in one encounter carries Health, Energy and its lasting conditions into
the next after write-back; where it stood (prone) stays behind; a timed condition keeps the
rounds it had left."""

from __future__ import annotations

from arbiter.core import Command
from arbiter.rulesets.realms.model import RealmsCreature
from arbiter.store import GameService

from ..conftest import creature_of


def creature(service: GameService, eid: str, who: str) -> RealmsCreature:
    return creature_of(service, eid, who, RealmsCreature)


def test_a_wounded_character_carries_its_wounds_into_the_next_encounter(
        service: GameService) -> None:
    campaign, _ = service.create_campaign("Marches", "realms")
    cid = campaign.id
    service.roster_submit(cid, Command("character_add", args={
        "id": "ser", "name": "Ser Aldo", "template": "knight", "side": "heroes",
        "energy": 6, "owner": "Ann"}))
    service.roster_submit(cid, Command("creature_save", args={
        "id": "ghoul", "name": "Ghoul", "template": "wolf", "health": 18}))
    first = service.create_encounter(cid, "Barrow", characters=["ser"],
                                     creatures=[{"template": "ghoul", "side": "dead"}])
    service.submit(first.id, Command("start", args={"initiative": {"ser": 20, "ghoul": 5}}))
    play = [
        Command("damage", args={"target": "ser", "amount": 9, "type": "psychic"}),
        Command("spend_energy", actor="ser", args={"amount": 4}),
        Command("condition", args={"target": "ser", "name": "exhausted", "level": 2}),
        Command("condition", args={"target": "ser", "name": "prone"}),
        Command("condition", args={"target": "ser", "name": "weakened", "level": 1,
                                   "rounds": 3}),
        Command("next"), Command("next"),  # round 2: the weakness has two rounds left
        Command("end"),
    ]
    for command in play:
        service.submit(first.id, command)
    ser = creature(service, first.id, "ser")
    assert (ser.health, ser.health_max, ser.energy) == (17, 26, 2)
    _, record = service.write_back(first.id)
    lasting = record.payload["events"][0]["data"]["characters"]["ser"]
    assert lasting == {
        "health_now": 17, "energy_now": 2,
        "conditions": [{"name": "exhausted", "level": 2},
                       {"name": "weakened", "level": 1,
                        "duration": {"kind": "timed", "round": 2, "turn_of": "ser",
                                     "at": "start"}}]}

    second = service.create_encounter(cid, "Ford", characters=["ser"],
                                      creatures=[{"template": "ghoul", "side": "dead"}])
    ser = creature(service, second.id, "ser")
    assert (ser.health, ser.health_max, ser.energy, ser.energy_max) == (17, 26, 2, 6)
    assert [(c.name, c.level) for c in ser.conditions] == [("exhausted", 2), ("weakened", 1)]
    # the weakness ends at the start of Ser Aldo's own turn two rounds into the next fight
    service.submit(second.id, Command("start", args={"initiative": {"ser": 20, "ghoul": 5}}))
    service.submit(second.id, Command("next"))
    assert creature(service, second.id, "ser").has("weakened")
    service.submit(second.id, Command("next"))
    assert not creature(service, second.id, "ser").has("weakened")
    # healed in the next encounter and written back, the character is whole again
    service.submit(second.id, Command("heal", args={"target": "ser", "amount": 50}))
    service.write_back(second.id)
    third = service.create_encounter(cid, "Keep", characters=["ser"])
    ser = creature(service, third.id, "ser")
    assert ser.health == ser.health_max == 26 and ser.level("exhausted") == 2
