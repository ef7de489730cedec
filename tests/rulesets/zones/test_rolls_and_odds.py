"""Roll-under checks and the exact odds of offense and defense rolls with any Hindrance."""

from __future__ import annotations

from fractions import Fraction

import pytest

from arbiter.core import Command
from arbiter.dice import ForcedDice
from arbiter.rulesets.zones.rolls import offense_expression, roll_check, success_odds

from .helpers import ZONES, encounter, run


@pytest.mark.rules("Z-RA-3", "Z-RA-4", "AZ-1", "AZ-2")
def test_roll_under_adds_hindrance_and_ties_succeed() -> None:
    """Z-RA-3, Z-RA-4 (AZ-1, AZ-2): dice + Hindrance <= stat succeeds.

    Rule ids: Z-RA-3, Z-RA-4, AZ-1, AZ-2
    """
    check = roll_check("1d20", "DEX", 12, {"x": 3}, ForcedDice([9]), {})
    assert (check["total"], check["success"]) == (12, True)
    check = roll_check("1d20", "DEX", 12, {"x": 3}, ForcedDice([9]), {"AZ-2": "failure"})
    assert check["success"] is False
    check = roll_check("1d20", "DEX", 12, {}, ForcedDice([1]), {}, voluntary_fail=True)
    assert check["success"] is False and "voluntarily failed" in check["text"]


@pytest.mark.rules("Z-RA-6", "AZ-3")
@pytest.mark.parametrize(
    ("expr", "stat", "hindrance", "rulings", "expected"),
    [
        ("1d20", 11, 0, {}, Fraction(11, 20)),
        ("1d20", 11, 3, {}, Fraction(8, 20)),
        ("1d20", 11, 3, {"AZ-2": "failure"}, Fraction(7, 20)),
        ("1d12", 13, 0, {}, Fraction(1)),
        ("1d12", 13, 4, {}, Fraction(9, 12)),
        ("2d20", 14, 0, {}, Fraction(91, 400)),  # 13 * 14 / 2 ways of 2..14 out of 400
        ("2d20", 14, 0, {"AZ-3": "keep-higher"}, Fraction(196, 400)),
        ("2d20", 14, 0, {"AZ-3": "keep-lower"}, Fraction(400 - 36, 400)),
        ("1d20", 5, 10, {}, Fraction(0)),
    ],
)
def test_success_odds_are_exact(expr: str, stat: int, hindrance: int,
                                rulings: dict[str, str], expected: Fraction) -> None:
    """Z-RA-6 (AZ-3): exact odds of every offense and defense roll with any Hindrance.

    Rule ids: Z-RA-6, AZ-3
    """
    assert success_odds(expr, stat, hindrance, rulings) == expected


@pytest.mark.rules("Z-RA-6", "AZ-3")
def test_two_d20_readings_follow_the_ruling() -> None:
    """Z-RA-6 (AZ-3): 2d20 is a sum by default.

    Rule ids: Z-RA-6, AZ-3
    """
    assert offense_expression("2d20", {}) == "2d20"
    assert offense_expression("2d20", {"AZ-3": "keep-higher"}) == "2d20kh1"
    assert offense_expression("1d12", {"AZ-3": "keep-higher"}) == "1d12"


@pytest.mark.rules("Z-RA-3", "Z-FLK-1")
def test_attack_odds_multiply_offense_and_failed_defense() -> None:
    """Z-RA-3, Z-FLK-1: odds of an attack, with flanking Hindrance on the defense roll.

    Rule ids: Z-RA-3, Z-FLK-1
    """
    enc = encounter({"sam": {"template": "sniper", "group": "a"},
                     "kim": {"template": "soldier", "group": "b"},
                     "bob": {"template": "bandit", "group": "gang"}})
    odds = ZONES.odds(enc.state, Command("attack", "sam", {"target": "bob", "range": "long"}))
    assert odds["offense"] == Fraction(15, 20)
    assert odds["defense"] == Fraction(11, 20)
    assert odds["hit"] == Fraction(15, 20) * Fraction(9, 20)
    assert odds["miss"] == 1 - odds["hit"]
    run(enc, {"do": "flank", "target": "bob", "angles": {"a": 0, "b": 100}})
    odds = ZONES.odds(enc.state, Command("attack", "sam", {"target": "bob", "range": "long"}))
    assert odds["defense"] == Fraction(10, 20)
    # thrown at medium range: 2d20 + one Hindrance... a knife is exempt from hands
    enc2 = encounter({"kit": {"DEX": 14, "STR": 10, "weapons": ["knife"],
                              "competent": ["knife"]},
                      "bob": {"template": "bandit"}})
    odds = ZONES.odds(enc2.state, Command("attack", "kit", {"target": "bob", "weapon": "knife",
                                                             "range": "medium"}))
    assert odds["offense"] == Fraction(91, 400)


@pytest.mark.rules("Z-MI-3", "Z-COV-9")
def test_roll_and_melee_odds() -> None:
    """Z-MI-3, Z-COV-9: odds of a roll subject to melee interference and of melee in cover.

    Rule ids: Z-MI-3, Z-COV-9
    """
    enc = encounter({"nia": {"template": "soldier", "group": "crew", "cover": "light"},
                     "rex": {"template": "wolf", "group": "gang", "engagement": "crew"}})
    run(enc, {"do": "melee", "actor": "rex", "target": "nia"}, [1, 1])
    odds = ZONES.odds(enc.state, Command("roll", "nia", {"stat": "SPD",
                                                         "melee_interference": True}))
    assert odds["success"] == Fraction(8, 20)
    odds = ZONES.odds(enc.state, Command("melee", "rex", {"target": "nia"}))
    assert odds["offense"] == Fraction(13, 20)
    assert odds["defense"] == Fraction(11, 20)  # DEX 13 - 2 degrees of disadvantage
    assert odds["hit"] == Fraction(13, 20) * Fraction(9, 20)


@pytest.mark.rules("Z-RA-5")
def test_odds_command_records_fractions() -> None:
    """Z-RA-5: the odds of an incompetent attack, recorded as an event for the GM.

    Rule ids: Z-RA-5
    """
    enc = encounter({"tom": {"DEX": 12, "weapons": ["rifle"]}, "bob": {"template": "bandit"}})
    data = run(enc, {"do": "odds", "of": {"do": "attack", "actor": "tom", "target": "bob"}})
    assert data["odds"] == {"offense": "3/5", "defense": "11/20", "hit": "27/100",
                            "miss": "73/100"}


@pytest.mark.rules("Z-AOE-6", "Z-AOE-8")
def test_aoe_inclusion_odds_weigh_offense_success_and_failure() -> None:
    """Z-AOE-6, Z-AOE-8: exact inclusion chances before the roll.

    Rule ids: Z-AOE-6, Z-AOE-8
    """
    enc = encounter({"nia": {"template": "soldier", "side": "crew", "group": "crew"},
                     "bob": {"template": "bandit", "side": "gang", "group": "gang"},
                     "cal": {"template": "bandit", "side": "gang", "group": "gang"},
                     "kim": {"template": "soldier", "side": "crew", "group": "kim",
                             "engagement": "gang"}})
    odds = ZONES.odds(enc.state, Command("attack", "nia", {"target": "bob",
                                                           "weapon": "grenade"}))
    assert odds["offense"] == 1  # d12 on DEX 13
    assert odds["inclusion"] == {"bob": 1, "cal": Fraction(4, 5), "kim": Fraction(4, 5)}
    odds = ZONES.odds(enc.state, Command("attack", "nia", {"target": "bob", "weapon": "grenade",
                                                           "caution": True, "hindrance": 7}))
    p = Fraction(6, 12)
    assert odds["offense"] == p
    assert odds["inclusion"]["cal"] == p * Fraction(3, 5) + (1 - p) * Fraction(3, 10)
    assert odds["inclusion"]["kim"] == Fraction(3, 10)
    assert odds["inclusion"]["bob"] == p + (1 - p) * Fraction(3, 10)


@pytest.mark.rules("Z-ZAO-5", "Z-ZAO-6", "Z-ZAO-8")
def test_zaoe_odds_of_high_damage() -> None:
    """Z-ZAO-5, Z-ZAO-6, Z-ZAO-8: exact chances of high damage from a ZAoE.

    Rule ids: Z-ZAO-5, Z-ZAO-6, Z-ZAO-8
    """
    enc = encounter({
        "pil": {"DEX": 11, "zone": "sky", "weapons": ["bomb", "rocket-pods", "blockbuster"]},
        "bob": {"template": "bandit", "group": "gang", "zone": "yard"},
        "dan": {"template": "bandit", "group": "pack", "zone": "yard"},
        "ugo": {"template": "ogre", "group": "pack", "zone": "yard"},
    })
    odds = ZONES.odds(enc.state, Command("zaoe", "pil", {"weapon": "bomb", "zone": "yard",
                                                         "group": "gang"}))
    assert odds["offense"] == Fraction(11, 12)
    # aimed at gang: success, or a failed roll then d6 <= 2 groups and the right d2
    assert odds["high"]["bob"] == Fraction(11, 12) + Fraction(1, 12) * Fraction(2, 6) / 2
    assert odds["high"]["dan"] == Fraction(1, 12) * Fraction(2, 6) / 2
    odds = ZONES.odds(enc.state, Command("zaoe", "pil", {"weapon": "rocket-pods",
                                                         "zone": "yard"}))
    assert odds["high"] == {"bob": Fraction(1, 3), "dan": Fraction(1, 3), "ugo": 1}
    odds = ZONES.odds(enc.state, Command("zaoe", "pil", {"weapon": "blockbuster",
                                                         "zone": "yard"}))
    assert odds["high"] == {"bob": 1, "dan": 1, "ugo": 1}


@pytest.mark.rules("Z-ZAO-2")
def test_zaoe_meets_kinetic_shielding_but_not_energy() -> None:
    """Z-ZAO-2: armor, cover and kinetic shielding are the only defences against a ZAoE.

    Rule ids: Z-ZAO-2
    """
    enc = encounter({"pil": {"DEX": 11, "zone": "sky",
                             "weapons": ["rocket-pods", "dragon-fire"]},
                     "ari": {"template": "arcanist", "zone": "yard", "health": 500}})
    data = run(enc, {"do": "zaoe", "actor": "pil", "weapon": "rocket-pods", "zone": "yard"},
               [1])
    assert data["pipeline"]["text"] == ("30 kinetic → kinetic shielding 40 spends 30: 0")
    data = run(enc, {"do": "zaoe", "actor": "pil", "weapon": "dragon-fire", "zone": "yard"},
               [1])
    assert data["pipeline"]["text"] == "25 energy → drive 25 beats armor 0: 25"
