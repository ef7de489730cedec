"""Who may set each argument of a Polemos player's command (actions, attacks, skill rolls,
targets, movement, cover, spheres): a player names the ability, the weapon and its damage
type, the target, where to move and which checks to make; the game master alone sets the
numbers and facts the rules leave to them (an ability's cost, range, kind of action and
shape, a skill value or target number, bonus and penalty dice, whether a target is
willing, the cover a place gives, and every ruling on the world: valid, in range, a key, a
permission, a path, a carrier). Left out of a player's command, each has the default
docs/rulesets/polemos.md lists ("What the game master sets")."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.core import Command, Encounter, IllegalCommand, load_ruleset
from arbiter.core.catalogue import InvalidArgument, NotAllowed, authorize
from arbiter.dice import ForcedDice, SeededDice
from arbiter.rulesets.polemos.model import Creature

POLEMOS = load_ruleset("polemos")

RULINGS_ON_THE_WORLD = {"valid", "in_range", "key", "permission", "communicable", "exclude",
                        "carrier_allows", "path_blocked", "sphere_range", "edge"}
THE_ABILITYS_NUMBERS = {"range", "nearest", "size", "arc"}

GM_ONLY = {
    "act": {"kind", "turns", "willing", "affects", "effects", "cost",
            *THE_ABILITYS_NUMBERS, *RULINGS_ON_THE_WORLD},
    "target": {*THE_ABILITYS_NUMBERS, *RULINGS_ON_THE_WORLD},
    "attack": {"angle", "kind", "willing", "defense_penalty", "bonus", "penalty", "dice_mod",
               "carrier_allows", "path_blocked", "sphere_range", "edge"},
    "critical": {"area", "relevant"},
    "skill": {"value", "target", "against_skill", "bonus", "penalty", "dice_mod"},
    "take_cover": {"concealment", "areas", "kind"},
    "enter": {"allowed"},
    "move": set(),
    "sphere_move": set(),
    "declare": set(),
    "withdraw": set(),
    "cancel": set(),
}
"""The GM-only arguments of the player's commands of actions.py, attacks.py, checks.py,
cover.py, movement.py, targets.py and spheres.py (docs/rulesets/polemos.md)."""


def fight(rulings: dict[str, str] | None = None) -> Encounter:
    """nia (firearm 3, athletics 5, a pistol and a knife; 10 SP and FP) and orc (firearm
    defense 1), both on the grid a square apart; nia's turn."""
    enc = Encounter.create(POLEMOS, rulings)
    enc.execute({"do": "add", "id": "nia", "side": "crew", "position": [0, 0],
                 "skills": {"firearm": 3, "athletics": 5}, "weapons": ["pistol", "knife"]},
                ForcedDice([]))
    enc.execute({"do": "add", "id": "orc", "side": "gang", "position": [1, 0],
                 "skills": {"firearm_defense": 1}}, ForcedDice([]))
    enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5}}, ForcedDice([]))
    return enc


def as_player(command: dict[str, Any], actor: str = "nia") -> None:
    """Authorize ``command`` for the player of ``actor`` on its turn."""
    authorize(POLEMOS.catalogue, Command.from_json({"actor": actor, **command}),
              frozenset({actor}), current=actor, in_combat=True)


def test_the_gm_only_arguments_are_the_documented_ones() -> None:
    """Each of these player's commands, and the arguments of it only the GM may set; none
    of them is required (a player leaves it out)."""
    for name, expected in GM_ONLY.items():
        spec = POLEMOS.catalogue[name]
        assert spec.who == "player", name
        assert {k for k, a in spec.args.items() if a.who == "gm"} == expected, name
        assert not any(spec.args[k].required for k in expected), name


def test_every_whole_number_of_these_commands_is_bounded_by_its_rule() -> None:
    """No whole number of these commands is anywhere in -9999..9999, and no cost or
    modifier dice count is negative."""
    for name in GM_ONLY:
        for key, arg in POLEMOS.catalogue[name].args.items():
            if arg.kind == "integer":
                assert (arg.lo, arg.hi) != (-9999, 9999), (name, key)
                assert arg.lo is not None and arg.lo >= -99, (name, key)
    cost = POLEMOS.catalogue["act"].args["cost"]
    assert (cost.keys, cost.lo) == (("sp", "fp"), 0)
    for key in ("bonus", "penalty", "defense_penalty"):
        assert POLEMOS.catalogue["attack"].args[key].lo == 0


@pytest.mark.parametrize(("command", "field"), [
    ({"do": "act", "ability": "drain", "cost": {"sp": -1000000, "fp": -1000000}}, "cost"),
    ({"do": "skill", "skill": "athletics", "value": 9999, "target": -9999}, "value"),
    ({"do": "skill", "skill": "athletics", "target": -9999}, "target"),
])
def test_the_issues_abuses_are_refused(command: dict[str, Any], field: str) -> None:
    """The numbers the issue sent are out of the rule's bounds, so the command's shape is
    refused first, naming the argument; within them, the argument is still the GM's."""
    with pytest.raises((InvalidArgument, NotAllowed)) as refused:
        as_player(command)
    assert isinstance(refused.value, (InvalidArgument, NotAllowed))
    assert str(refused.value.field).startswith(f"command.{field}")


@pytest.mark.parametrize(("command", "field"), [
    # the issue's abuses, within the bounds
    ({"do": "act", "ability": "drain", "cost": {"sp": 0, "fp": 0}}, "cost"),
    ({"do": "skill", "skill": "athletics", "value": 99, "target": -99}, "value"),
    ({"do": "skill", "skill": "athletics", "target": -99}, "target"),
    ({"do": "attack", "target": "orc", "dice_mod": 20}, "dice_mod"),
    ({"do": "attack", "target": "orc", "bonus": 20}, "bonus"),
    ({"do": "attack", "target": "orc", "penalty": 0}, "penalty"),
    ({"do": "attack", "target": "orc", "defense_penalty": 20}, "defense_penalty"),
    # an attack's other facts
    ({"do": "attack", "target": "orc", "willing": True}, "willing"),
    ({"do": "attack", "target": "orc", "angle": "none"}, "angle"),
    ({"do": "attack", "target": "orc", "kind": "free"}, "kind"),
    ({"do": "attack", "target": "orc", "carrier_allows": True}, "carrier_allows"),
    ({"do": "critical", "effect": "unknown-wound", "area": "head"}, "area"),
    ({"do": "critical", "effect": "daze", "relevant": True}, "relevant"),
    ({"do": "skill", "skill": "athletics", "against": "orc", "against_skill": "nothing"},
     "against_skill"),
    ({"do": "skill", "skill": "athletics", "dice_mod": 3}, "dice_mod"),
    ({"do": "take_cover", "concealment": "total"}, "concealment"),
    ({"do": "take_cover", "areas": ["chest"]}, "areas"),
    ({"do": "take_cover", "kind": "free"}, "kind"),
    ({"do": "enter", "location": "palace", "allowed": True}, "allowed"),
    # an ability's own facts
    ({"do": "act", "ability": "blast", "kind": "minor"}, "kind"),
    ({"do": "act", "ability": "ritual", "kind": "full", "turns": 2}, "kind"),
    ({"do": "act", "ability": "ritual", "turns": 2}, "turns"),
    ({"do": "act", "ability": "shove", "target": "orc", "willing": True}, "willing"),
    ({"do": "act", "ability": "shove", "target": "orc", "affects": False}, "affects"),
    ({"do": "act", "ability": "flurry", "effects": 3}, "effects"),
])
def test_a_player_may_not_set_what_the_rules_leave_to_the_gm(command: dict[str, Any],
                                                             field: str) -> None:
    """Refused with NotAllowed naming the argument, before anything is decided."""
    with pytest.raises(NotAllowed) as refused:
        as_player(command)
    assert refused.value.field == f"command.{field}"
    assert repr(field) in str(refused.value)


@pytest.mark.parametrize("name", ["act", "target"])
@pytest.mark.parametrize(("field", "value"), [
    ("valid", True), ("in_range", True), ("path_blocked", False), ("carrier_allows", True),
    ("permission", True), ("key", True), ("communicable", True), ("sphere_range", 0),
    ("edge", "east"), ("range", 200_000), ("exclude", ["orc"]), ("nearest", 3),
    ("size", 9), ("arc", 360),
])
def test_a_targets_facts_are_the_gms(name: str, field: str, value: Any) -> None:
    """An ability's range and shape, and every ruling on the world a target check reads."""
    command = {"do": name, "target_kind": "creature", "target": "orc", field: value}
    if name == "act":
        command["ability"] = "zap"
    with pytest.raises(NotAllowed) as refused:
        as_player(command)
    assert refused.value.field == f"command.{field}"


def test_a_player_still_chooses_the_ability_the_target_and_the_weapon() -> None:
    """What the rules let the player choose passes."""
    as_player({"do": "act", "ability": "zap", "target_kind": "body_area", "target": "orc",
               "area": "chest", "requires": ["visible", "reachable"], "combo": "one-two"})
    as_player({"do": "target", "target_kind": "angle", "direction": "e"})
    as_player({"do": "attack", "target": "orc", "weapon": "knife", "type": "slashing",
               "area": "chest", "ability": "attack"})
    as_player({"do": "skill", "skill": "athletics", "against": "orc"})
    as_player({"do": "critical", "effect": "daze", "target": "orc"})
    as_player({"do": "move", "to": [2, 0]})
    as_player({"do": "take_cover"})
    as_player({"do": "enter", "location": "palace"})
    as_player({"do": "sphere_move", "to": "battle", "quadrant": "east"})
    as_player({"do": "declare", "action": {"do": "attack", "target": "orc"}})


def test_a_gm_number_nested_in_a_declared_action_is_refused_too() -> None:
    """``declare`` checks the declared command as if the player issued it directly."""
    with pytest.raises(NotAllowed) as refused:
        as_player({"do": "declare", "action": {"do": "attack", "target": "orc",
                                                "dice_mod": 20}})
    assert refused.value.field == "command.dice_mod"


def test_the_gms_cost_is_paid_and_a_negative_cost_is_refused_even_for_the_gm() -> None:
    """The abuse took SP 12/12 to 1,000,012: a cost is a whole number from 0 up, in SP and
    FP only; the GM's cost of an ability is paid."""
    enc = fight()
    for cost in ({"sp": -1000000, "fp": -1000000}, {"sp": 2, "mp": 1}):
        with pytest.raises(InvalidArgument) as refused:
            enc.execute({"do": "act", "actor": "nia", "ability": "drain", "cost": cost},
                        ForcedDice([]))
        assert "cost" in str(refused.value)
    nia = enc.state.entity_of("nia", Creature)
    assert (nia.sp, nia.fp) == (10, 10)
    enc.execute({"do": "act", "actor": "nia", "ability": "drain", "cost": {"sp": 3, "fp": 1}},
                ForcedDice([]))
    assert (nia.sp, nia.fp) == (7, 9)


def test_a_players_ability_left_without_a_cost_costs_nothing() -> None:
    """Left out, the cost is nothing: the GM sends the act of an ability with a cost."""
    enc = fight()
    command = {"do": "act", "ability": "drain"}
    as_player(command)
    entry = enc.execute({"actor": "nia", **command}, ForcedDice([]))
    assert entry.events[0].data["cost"] == {}
    nia = enc.state.entity_of("nia", Creature)
    assert (nia.sp, nia.fp) == (10, 10)


def test_the_gms_skill_value_and_target_number_still_work() -> None:
    """The GM may roll a value of their own against their target number; out of what the
    rules could give, even the GM's is refused."""
    enc = fight()
    entry = enc.execute({"do": "skill", "actor": "nia", "value": 9, "target": 12},
                        ForcedDice([1, 2]))
    assert entry.events[0].data["total"] == 12 and entry.events[0].data["success"] is True
    with pytest.raises(InvalidArgument):
        enc.execute({"do": "skill", "actor": "nia", "value": 9999, "target": -9999},
                    ForcedDice([1, 2]))


def test_a_players_skill_roll_is_the_sheets_value_and_its_total_only() -> None:
    """Left out: the value is the sheet's (athletics 5), no target number is met or missed
    (the GM reads the total against theirs), no bonus or penalty dice (2D6)."""
    enc = fight()
    command = {"do": "skill", "skill": "athletics"}
    as_player(command)
    data = enc.execute({"actor": "nia", **command}, ForcedDice([3, 4])).events[0].data
    assert (data["value"], data["total"], data["bonus"], data["penalty"]) == (5, 12, 0, 0)
    assert "target" not in data and "success" not in data
    odds = POLEMOS.odds(enc.state, Command("skill", "nia", {"skill": "athletics"}))
    assert odds["mean"] == 12 and "success" not in odds


def test_the_gms_dice_on_an_attack_still_roll() -> None:
    """The GM's +20D6 attack rolls 22 dice; their defense penalty is kept."""
    enc = fight()
    entry = enc.execute({"do": "attack", "actor": "nia", "target": "orc", "weapon": "pistol",
                         "dice_mod": 20, "defense_penalty": 1}, SeededDice(3))
    data = entry.events[0].data
    assert data["attack_roll"]["expression"] == "22d6+3"
    assert data["defense_penalty"] == 1


def test_a_players_attack_has_no_modifier_dice() -> None:
    """Left out: no bonus, penalty or defense penalty dice, and the action is a primary
    one: the odds equal the GM's with each at 0, and differ from a GM's +2D6."""
    enc = fight()
    given = {"target": "orc", "weapon": "pistol"}
    as_player({"do": "attack", **given})
    player = POLEMOS.odds(enc.state, Command("attack", "nia", given))
    zero = POLEMOS.odds(enc.state, Command("attack", "nia", {
        **given, "bonus": 0, "penalty": 0, "defense_penalty": 0, "kind": "primary"}))
    helped = POLEMOS.odds(enc.state, Command("attack", "nia", {**given, "dice_mod": 2}))
    assert player == zero
    assert helped["hit"] > player["hit"]
    entry = enc.execute({"do": "attack", "actor": "nia", **given},
                        ForcedDice([3, 3, 3, 3, 1, 1]))
    assert entry.events[0].data["kind"] == "primary"
    assert enc.state.economy["nia"]["primary"] == 0


def test_a_players_willing_target_is_the_gms_to_say() -> None:
    """Left out, the target is unwilling: attacked, and it rolls its defense."""
    enc = fight()
    command = {"do": "attack", "target": "orc", "weapon": "pistol"}
    data = enc.execute({"actor": "nia", **command}, ForcedDice([1, 1, 6, 6])).events[0].data
    assert data["attack"] is True and "defense_total" in data and data["hit"] is False


def test_a_players_cover_gives_no_concealment_until_the_gm_says_how_much() -> None:
    """Left out: concealment none, no body area in cover; the GM's take_cover sets both."""
    enc = fight()
    as_player({"do": "take_cover"})
    enc.execute({"do": "take_cover", "actor": "nia"}, ForcedDice([]))
    cond = enc.state.entity_of("nia", Creature).condition("concealed")
    assert cond is not None and cond.data == {"concealment": "none", "areas": []}
    enc.execute({"do": "next"}, ForcedDice([]))
    enc.execute({"do": "take_cover", "actor": "orc", "concealment": "half",
                 "areas": ["chest"]}, ForcedDice([]))
    cond = enc.state.entity_of("orc", Creature).condition("concealed")
    assert cond is not None and cond.data == {"concealment": "half", "areas": ["chest"]}


@pytest.mark.rules("P-RNG-2")
def test_a_players_ability_has_no_range_until_the_gm_gives_it() -> None:
    """Left out, an ability's range is 0 (P-RNG-2): its own square only; the GM's range
    reaches further."""
    enc = fight()
    command = {"do": "act", "ability": "zap", "target_kind": "creature", "target": "orc"}
    as_player(command)
    with pytest.raises(IllegalCommand, match="without a range reaches only its own square"):
        enc.execute({"actor": "nia", **command}, ForcedDice([]))
    entry = enc.execute({"actor": "nia", **command, "range": 1}, ForcedDice([]))
    assert entry.events[0].data["targets"]["distance"] == 1


@pytest.mark.rules("P-WND-7")
def test_a_players_unknown_wound_lands_where_the_attack_aimed() -> None:
    """Left out, an unknown wound's area is the body area the attack aimed at (P-WND-7)."""
    enc = fight()
    enc.execute({"do": "attack", "actor": "nia", "target": "orc", "weapon": "pistol",
                 "area": "left_arm"}, ForcedDice([6, 6, 1, 1, 6]))
    assert enc.state.entity_of("nia", Creature).critical_points >= 1
    command = {"do": "critical", "effect": "unknown-wound"}
    as_player(command)
    entry = enc.execute({"actor": "nia", **command}, ForcedDice([]))
    wound = next(e for e in entry.events if e.type == "wound_added")
    assert wound.data["wound"]["area"] == "left_arm"
