"""Who may set each argument of a zones player's command: a player chooses the target, the
weapon, where to move and the options the rules give the attacker; the game master alone
sets the numbers and facts the rules leave to them (a critical hit, Hindrance, the range
band, the cover's armor bonus, what protects the defender...). Left out of a player's
command, each has the default docs/rulesets/zones.md lists ("What the game master sets")."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from arbiter.core import Command, Encounter, IllegalCommand
from arbiter.core.catalogue import InvalidArgument, NotAllowed, authorize

from .helpers import ZONES, encounter, run

GM_ONLY = {
    "attack": {"range", "location_known", "spread", "critical", "defend_with",
               "group_defense", "cover_applies", "tall_cover", "hindrance",
               "defense_hindrance", "injury"},
    "melee": {"no_offense_roll", "hindrance"},
    "roll": {"expr", "hindrance", "melee_interference"},
    "cover": {"bonus"},
    "move": {"altitude"},
    "zaoe": set(),
    "touch": set(),
    "prioritize": set(),
    "leave_cover": set(),
    "next": set(),
}
"""The GM-only arguments of every player's command (docs/rulesets/zones.md)."""


def fight() -> Encounter:
    """sam (a sniper: DEX 15, a rifle) of the crew and bob (a bandit: DEX 11) of the gang,
    at short range in one zone; sam's turn; rex (a wolf) engaged with sam."""
    enc = encounter({
        "sam": {"template": "sniper", "side": "crew", "group": "crew"},
        "bob": {"template": "bandit", "side": "gang", "group": "gang", "health": 900},
        "rex": {"template": "wolf", "side": "gang", "group": "pack", "engagement": "crew"},
    })
    run(enc, {"do": "start", "initiative": {"sam": 20, "bob": 10, "rex": 5}})
    return enc


def as_player(command: dict[str, Any], actor: str = "sam") -> None:
    """Authorize ``command`` for the player of ``actor`` on its turn."""
    authorize(ZONES.catalogue, Command.from_json({"actor": actor, **command}),
              frozenset({actor}), current=actor, in_combat=True)


def test_the_gm_only_arguments_are_the_documented_ones() -> None:
    """Every player's command, and the arguments of it only the GM may set."""
    players = {name for name, spec in ZONES.catalogue.items() if spec.who == "player"}
    assert players == set(GM_ONLY)
    for name, expected in GM_ONLY.items():
        spec = ZONES.catalogue[name]
        assert {k for k, a in spec.args.items() if a.who == "gm"} == expected, name
        assert not any(spec.args[k].required for k in expected), name


def test_every_whole_number_is_bounded_by_its_rule() -> None:
    """No argument of a zones command is a whole number anywhere in -9999..9999."""
    for spec in ZONES.catalogue.values():
        for key, arg in spec.args.items():
            if arg.kind == "integer":
                assert (arg.lo, arg.hi) != (-9999, 9999), (spec.name, key)


@pytest.mark.rules("ZR-3", "ZR-4", "Z-COV-6")
@pytest.mark.parametrize(("command", "field"), [
    ({"do": "attack", "target": "bob", "critical": True}, "critical"),
    ({"do": "attack", "target": "bob", "hindrance": -5}, "hindrance"),
    ({"do": "attack", "target": "bob", "defense_hindrance": 3}, "defense_hindrance"),
    ({"do": "attack", "target": "bob", "range": "short"}, "range"),
    ({"do": "attack", "target": "bob", "defend_with": "shield"}, "defend_with"),
    ({"do": "attack", "target": "bob", "cover_applies": False}, "cover_applies"),
    ({"do": "attack", "target": "bob", "group_defense": False}, "group_defense"),
    ({"do": "attack", "target": "bob", "tall_cover": True}, "tall_cover"),
    ({"do": "attack", "target": "bob", "injury": "Head Injury"}, "injury"),
    ({"do": "attack", "blind": True, "engagement": "gang", "location_known": True},
     "location_known"),
    ({"do": "attack", "weapon": "rifle", "aoe": "spray", "spread": ["gang"]}, "spread"),
    ({"do": "melee", "target": "rex", "no_offense_roll": True}, "no_offense_roll"),
    ({"do": "melee", "target": "rex", "hindrance": -3}, "hindrance"),
    ({"do": "roll", "stat": "DEX", "expr": "1d1"}, "expr"),
    ({"do": "roll", "stat": "DEX", "hindrance": -20}, "hindrance"),
    ({"do": "roll", "stat": "DEX", "melee_interference": False}, "melee_interference"),
    ({"do": "cover", "environment": "light", "bonus": 50}, "bonus"),
    ({"do": "move", "zone": "here", "altitude": 4}, "altitude"),
])
def test_a_player_may_not_set_what_the_gm_sets(command: dict[str, Any], field: str) -> None:
    """A critical hit is the rules' or the GM's (ZR-3); Hindrance, the range band (ZR-4),
    the cover's bonus (Z-COV-6), what protects the defender and whether the attacker knows
    where an unseen enemy is are the GM's; a player's command carrying one is refused,
    naming it."""
    with pytest.raises(NotAllowed) as refused:
        as_player(command)
    assert refused.value.field == f"command.{field}"
    assert repr(field) in str(refused.value)


@pytest.mark.rules("Z-COV-14")
@pytest.mark.parametrize(("command", "field"), [
    ({"do": "attack", "target": "bob", "hindrance": -9999}, "hindrance"),
    ({"do": "attack", "target": "bob", "defense_hindrance": 9999}, "defense_hindrance"),
    ({"do": "melee", "target": "rex", "hindrance": 21}, "hindrance"),
    ({"do": "roll", "stat": "DEX", "hindrance": -21}, "hindrance"),
    ({"do": "cover", "bonus": 9999}, "bonus"),
    ({"do": "move", "altitude": 5}, "altitude"),
    ({"do": "roll", "stat": "LUCK"}, "stat"),
    ({"do": "cover", "environment": "jungle"}, "environment"),
])
def test_numbers_out_of_their_rule_are_refused_to_anyone(command: dict[str, Any],
                                                         field: str) -> None:
    """Hindrance within ±20, a cover bonus within improved cover's 100 (Z-COV-14), an
    altitude within long range, a stat of the four and an environment of the chart: out of
    them the command is malformed, for the player and the GM alike."""
    with pytest.raises(InvalidArgument) as player:
        as_player(command)
    assert player.value.field == f"command.{field}"
    with pytest.raises(InvalidArgument) as gm:
        ZONES.bound(Command.from_json({"actor": "sam", **command}))
    assert gm.value.field == f"command.{field}"


def test_what_a_player_chooses_stays_theirs() -> None:
    """The target, the one weapon, aiming or not, full-auto, an AoE with caution, one hand,
    a critical hit's option to deny cover, where to move, the stat, a voluntary failure."""
    for command in (
        {"do": "attack", "target": "bob", "weapon": "rifle", "unaimed": True,
         "one_handed": True, "ignore_cover": False, "marksmanship": ["Clear Shot"]},
        {"do": "attack", "weapon": "rifle", "blind": True, "engagement": "gang"},
        {"do": "attack", "group": "gang", "aoe": "burst", "caution": True, "full_auto": True,
         "targets": ["bob"]},
        {"do": "zaoe", "weapon": "rifle", "zone": "here", "group": "gang"},
        {"do": "melee", "target": "rex", "weapon": "knife"},
        {"do": "roll", "stat": "SPD", "voluntary_fail": True},
        {"do": "cover", "environment": "heavy", "improved": False},
        {"do": "move", "zone": "yard", "group": "crew", "engagement": "gang"},
        {"do": "touch", "target": "rex"},
        {"do": "prioritize", "groups": ["gang"]},
    ):
        as_player(command)


def test_the_gm_still_sets_them_through_decide() -> None:
    """The same commands from the GM are decided: a critical hit, Hindrance both ways, the
    range band, the cover's bonus, an altitude."""
    enc = fight()
    data = run(enc, {"do": "attack", "actor": "sam", "target": "bob", "critical": True,
                     "hindrance": -5, "defense_hindrance": 3, "range": "medium",
                     "injury": "Head Injury"}, [12, 10])
    assert data["critical"] is True and data["range"] == "medium"
    assert data["offense"]["hindrance"] == -5 and data["offense"]["success"]  # 12 - 5 ≤ 15
    assert data["defense"]["hindrance"] == 3 and not data["defense"]["success"]  # 13 > 11
    assert data["injury"] == {"type": "Head Injury", "roll": None}
    enc = fight()
    data = run(enc, {"do": "cover", "actor": "sam", "environment": "light", "bonus": 50})
    assert data["cover"]["bonus"] == 50
    enc = fight()
    data = run(enc, {"do": "roll", "actor": "sam", "stat": "DEX", "expr": "1d4",
                     "hindrance": -20}, [4])
    assert data["success"] is True
    enc = fight()
    data = run(enc, {"do": "move", "actor": "sam", "altitude": 3})
    assert data["altitude"] == 3


@pytest.mark.rules("ZR-3", "ZR-4", "ZR-5", "AZ-10")
def test_left_out_the_rules_defaults_apply() -> None:
    """A player's command without the GM's numbers: no critical hit but the GM's (ZR-3
    'gm', even on a natural 1), the band from the zone map (ZR-4: short in one zone), no
    other Hindrance, the injury the d20 gives (ZR-5), the chart's bonus (AZ-10)."""
    enc = fight()
    attack = {"do": "attack", "actor": "sam", "target": "bob"}
    as_player(attack)
    data = run(enc, attack, [1, 20, 17])
    assert data["critical"] is False and data["range"] == "short"
    assert data["offense"]["hindrance"] == 0 and data["defense"]["hindrance"] == 0
    assert data["injury"] == {"type": "Head Injury", "roll": 17}
    odds = ZONES.preview(fight().state, Command.from_json(attack))
    assert odds["offense"] == 1  # a d12 at short range on DEX 15
    assert odds["defense"] == Fraction(11, 20)  # d20 on DEX 11, no Hindrance
    cover = {"do": "cover", "actor": "sam", "environment": "moderate"}
    as_player(cover)
    enc = fight()
    assert run(enc, cover)["cover"]["bonus"] == 20


@pytest.mark.rules("Z-MI-3")
def test_a_roll_left_to_the_player_is_a_plain_d20() -> None:
    """Without the GM's dice, Hindrance or melee interference, a roll is a d20 on the stat,
    even while melee interference would apply (Z-MI-3 is the GM's word)."""
    enc = fight()
    run(enc, {"do": "next"})
    run(enc, {"do": "next"})
    run(enc, {"do": "melee", "actor": "rex", "target": "sam"}, [1, 20])
    roll = {"do": "roll", "actor": "sam", "stat": "DEX"}
    as_player(roll)
    odds = ZONES.preview(enc.state, Command.from_json(roll))
    assert odds["success"] == Fraction(15, 20)
    gm = ZONES.preview(enc.state, Command.from_json({**roll, "melee_interference": True}))
    assert gm["success"] == Fraction(13, 20)


@pytest.mark.rules("Z-COV-12", "Z-COV-15")
def test_the_defender_keeps_cover_unless_the_gm_says_otherwise() -> None:
    """defend_with, cover_applies and group_defense are the GM's: left out, a defender in
    cover uses its cover (Z-COV-12) and it protects (Z-COV-15)."""
    enc = fight()
    run(enc, {"do": "next"})
    run(enc, {"do": "cover", "actor": "bob", "environment": "heavy"})
    run(enc, {"do": "next"})
    run(enc, {"do": "next"})
    data = run(enc, {"do": "attack", "actor": "sam", "target": "bob"}, [2, 20])
    assert data["hit"] is False and data["stopped_by_cover"] is True  # 30 - 5 armor - 40
    enc2 = fight()
    run(enc2, {"do": "next"})
    run(enc2, {"do": "cover", "actor": "bob", "environment": "heavy"})
    run(enc2, {"do": "next"})
    run(enc2, {"do": "next"})
    data = run(enc2, {"do": "attack", "actor": "sam", "target": "bob",
                      "cover_applies": False}, [2, 20, 5])
    assert data["hit"] is True and data["taken"] == 30  # drive 25 beats armor 5 (ZR-2)


@pytest.mark.rules("Z-RA-7")
def test_one_weapon_only_stays_the_rules_refusal() -> None:
    """The weapon is the player's choice; naming several is refused by Z-RA-7 (not by the
    declaration), for the player and the GM."""
    as_player({"do": "attack", "target": "bob", "weapon": ["rifle", "knife"]})
    with pytest.raises(IllegalCommand, match="only one ranged weapon"):
        run(fight(), {"do": "attack", "actor": "sam", "target": "bob",
                      "weapon": ["rifle", "knife"]})
