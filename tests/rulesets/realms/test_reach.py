"""RLM-11: a melee attack needs its target within the weapon's reach, between the nearest
squares of the two footprints, whenever both creatures are on the map; the odds, the legal
options, the map and the simulator's tactic all agree with the command."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.core import Command, Encounter, IllegalCommand, InvalidCommand, load_ruleset
from arbiter.core.options import legal_options
from arbiter.dice import ForcedDice, SeededDice
from arbiter.rulesets.realms.model import RealmsCreature
from arbiter.sim.policy import get_policy

REALMS = load_ruleset("realms")
FAR = "ogre is 5 spaces from nia, beyond the reach of its sword (1 space)"


def fight(rulings: dict[str, str] | None = None, **extra: dict[str, Any]) -> Encounter:
    """nia (a sword) at (0, 0), the Huge ogre (2 x 2, a slam) at (5, 0), started."""
    enc = Encounter.create(REALMS, rulings)
    actors = {"nia": {"health": 30, "attack": 5, "weapon": "sword", "side": "heroes",
                      "position": [0, 0]},
              "ogre": {"health": 60, "evasion": 10, "size": "huge", "weapon": "slam",
                       "side": "monsters", "position": [5, 0]}, **extra}
    for name, spec in actors.items():
        enc.execute({"do": "add", "id": name, **spec}, ForcedDice([]))
    order = {name: 30 - i for i, name in enumerate(actors)}
    enc.execute({"do": "start", "initiative": order}, ForcedDice([]))
    return enc


def attack(target: str = "ogre", **args: Any) -> Command:
    return Command("attack", "nia", {"target": target, **args})


def test_the_odds_refuse_an_attack_out_of_reach_as_the_attack_does() -> None:
    enc = fight()
    with pytest.raises(IllegalCommand) as refused:
        enc.execute(attack(), ForcedDice([15]))
    with pytest.raises(IllegalCommand) as asked:
        enc.odds(attack())
    for err in (refused.value, asked.value):
        assert FAR in str(err)
        assert err.rule == "RLM-11"
        assert err.remedy == ("move", "move within reach")
    enc.execute({"do": "place", "target": "nia", "at": [4, 1]}, ForcedDice([]))
    assert enc.odds(attack())["hit"] == pytest.approx(0.8)


def test_the_options_give_footprint_distances_and_the_reach_refusal() -> None:
    """The Huge ogre at (5, 0) fills (5..6, 0..1): from (7, 2) it is 1 space away (its
    position is 2); from (0, 0) 5, and the attack is refused with the remedy to move."""
    enc = fight(imp={"health": 5, "side": "monsters"})  # off the map: no distance, no check
    (option,) = [o for o in legal_options(REALMS, enc.state, "nia") if o.command == "attack"]
    by_id = {t.id: t for t in option.targets}
    assert by_id["ogre"].distance == 5
    refusal = by_id["ogre"].refusal
    assert refusal is not None and refusal.rule == "RLM-11" and FAR in refusal.reason
    assert (refusal.remedy, refusal.remedy_command) == ("move within reach", "move")
    assert by_id["imp"].distance is None and by_id["imp"].refusal is None
    assert option.suggested == "imp"
    enc.execute({"do": "place", "target": "nia", "at": [7, 2]}, ForcedDice([]))
    (option,) = [o for o in legal_options(REALMS, enc.state, "nia") if o.command == "attack"]
    ogre = next(t for t in option.targets if t.id == "ogre")
    assert ogre.distance == 1 and ogre.refusal is None
    nia, big = enc.state.entity("nia"), enc.state.entity("ogre")
    assert REALMS.distance(enc.state, nia, big) == 1


def test_a_reach_weapon_reaches_two_spaces_and_the_map_draws_it() -> None:
    enc = fight(pike={"health": 10, "weapon": "glaive", "side": "heroes",
                      "position": [8, 0]})
    view = REALMS.map_view(enc.state, ["nia", "ogre", "pike"])  # type: ignore[attr-defined]
    assert view["reach"] == {"nia": 1, "ogre": 1, "pike": 2}
    # the actor's own sword, and another weapon named on the command, each with its reach
    enc.execute({"do": "place", "target": "nia", "at": [8, 1]}, ForcedDice([]))
    with pytest.raises(IllegalCommand, match="its sword"):
        REALMS.check(enc.state, attack())
    REALMS.check(enc.state, attack(weapon="glaive"))
    enc.execute({"do": "place", "target": "nia", "at": [9, 1]}, ForcedDice([]))
    with pytest.raises(IllegalCommand, match="beyond the reach of its glaive"):
        REALMS.check(enc.state, attack(weapon="glaive"))
    while enc.state.current != "pike":
        enc.execute({"do": "next"}, ForcedDice([]))
    REALMS.check(enc.state, Command("attack", "pike", {"target": "ogre"}))  # 2 spaces: in reach
    enc.execute({"do": "place", "target": "pike", "at": [9, 0]}, ForcedDice([]))
    with pytest.raises(IllegalCommand, match="3 spaces from pike, beyond the reach of its "
                                             "glaive"):
        REALMS.check(enc.state, Command("attack", "pike", {"target": "ogre"}))


def test_a_weapon_s_reach_is_a_whole_number_of_spaces() -> None:
    enc = Encounter.create(REALMS)
    bad = {"range": "melee", "reach": 0, "damage": [{"dice": "1d6", "type": "piercing"}]}
    with pytest.raises(InvalidCommand, match="reach is a whole number"):
        enc.execute({"do": "add", "id": "x", "weapon": bad}, ForcedDice([]))
    enc.execute({"do": "add", "id": "y", "weapon": {**bad, "reach": 3}}, ForcedDice([]))
    who = enc.state.entity("y")
    assert isinstance(who, RealmsCreature) and who.weapon_reach == 3


def test_ranged_attacks_and_the_gm_ruling_check_no_reach() -> None:
    enc = fight()
    REALMS.check(enc.state, attack(weapon="bow"))
    gm = fight({"RLM-11": "gm"})
    REALMS.check(gm.state, attack())


def _turn(enc: Encounter, who: str) -> list[Command]:
    """Play ``who``'s turn with the realms tactic; the commands it gave (all accepted)."""
    played = []
    for command in get_policy("realms").choose(enc.state, enc.state.entities[who], REALMS):
        enc.execute(command, SeededDice(1))  # a refusal raises and fails the test
        played.append(command)
    return played


def test_the_tactic_walks_into_reach_and_never_attacks_out_of_it() -> None:
    """A walk that falls short ends the turn rather than attack from afar; a glaive stops
    2 spaces away; an enemy within reach is attacked when the wounded one is not."""
    enc = fight(wolf={"health": 12, "weapon": "bite", "side": "heroes",
                      "position": [30, 0]})
    while enc.state.current != "ogre":
        enc.execute({"do": "next"}, ForcedDice([]))
    played = _turn(enc, "ogre")  # the wolf (least Health) is far: the ogre walks, no attack
    assert [c.name for c in played] and all(c.name == "move" for c in played)
    enc = fight(pike={"health": 10, "weapon": "glaive", "side": "heroes",
                      "position": [12, 0]})
    while enc.state.current != "pike":
        enc.execute({"do": "next"}, ForcedDice([]))
    played = _turn(enc, "pike")
    assert played[0].name == "move" and played[0].args["path"][-1] == [8, 0]
    assert [c.name for c in played[1:]] == ["attack"]
    # an Immobile ogre cannot walk to the wolf (least Health): it attacks nia, beside it
    enc = fight(wolf={"health": 12, "weapon": "bite", "side": "heroes", "position": [30, 9]})
    enc.execute({"do": "place", "target": "nia", "at": [4, 0]}, ForcedDice([]))
    enc.execute({"do": "condition", "target": "ogre", "name": "immobile"}, ForcedDice([]))
    while enc.state.current != "ogre":
        enc.execute({"do": "next"}, ForcedDice([]))
    played = _turn(enc, "ogre")
    assert [(c.name, c.args["target"]) for c in played] == [("attack", "nia")] * 2
