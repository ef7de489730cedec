"""Skill rolls, dice bonuses and penalties, exact odds (P-SKL-2, P-DICE-1..4, AP-1, AP-2)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from arbiter.core import Command, Encounter, InvalidCommand, load_ruleset
from arbiter.dice import ForcedDice, distribution
from arbiter.rulesets.polemos.checks import skill_pool
from arbiter.rulesets.polemos.cover import concealment_level

POLEMOS = load_ruleset("polemos")


def encounter(rulings: dict[str, str] | None = None) -> Encounter:
    enc = Encounter.create(POLEMOS, rulings)
    enc.execute({"do": "add", "id": "nia", "skills": {"firearm": 3, "athletics": 5},
                 "weapons": ["pistol"]}, ForcedDice([]))
    enc.execute({"do": "add", "id": "orc", "skills": {"firearm_defense": 1}}, ForcedDice([]))
    return enc


@pytest.mark.rules("P-DICE-1", "P-DICE-2", "P-DICE-3", "P-DICE-4")
@pytest.mark.parametrize(("bonus", "penalty", "pool"), [
    (0, 0, "2d6+5"), (1, 0, "3d6+5"), (0, 1, "1d6+5"), (0, 2, "5"), (0, 3, "5-1d6"),
    (0, 4, "5-2d6"), (2, 1, "3d6+5"), (1, 4, "5-1d6"),
])
def test_dice_bonuses_add_dice_and_penalties_remove_them(bonus: int, penalty: int,
                                                          pool: str) -> None:
    """P-DICE-1, P-DICE-2, P-DICE-3, P-DICE-4: the pool of a skill value of 5."""
    assert skill_pool(5, bonus, penalty) == pool


@pytest.mark.rules("AP-2")
def test_remove_then_add_differs_only_when_both_exceed_the_pool() -> None:
    """AP-2: the alternative reading keeps the bonus dice and subtracts the excess penalty."""
    assert skill_pool(5, 1, 4, rule="remove-then-add") == "1d6+5-2d6"
    assert skill_pool(5, 1, 1, rule="remove-then-add") == skill_pool(5, 1, 1) == "2d6+5"
    a = distribution(skill_pool(5, 1, 4))
    b = distribution(skill_pool(5, 1, 4, rule="remove-then-add"))
    assert a.mean == b.mean == Fraction(3, 2)
    assert a.variance < b.variance


@pytest.mark.rules("P-SKL-2")
def test_negative_skill_values_make_a_valid_pool() -> None:
    """P-SKL-2: a negative skill value is subtracted from the dice."""
    assert skill_pool(-2) == "2d6-2"
    assert skill_pool(0, 0, 2) == "0"


@pytest.mark.rules("P-SKL-2", "AP-1")
def test_skill_odds_are_exact_fractions() -> None:
    """P-SKL-2 and AP-1: 2D6 + 5 against 12 succeeds on 7 or more: 21/36."""
    enc = encounter()
    odds = POLEMOS.odds(enc.state, Command("skill", "nia", {"skill": "athletics",
                                                             "target": 12}))
    assert odds["success"] == Fraction(7, 12)
    assert odds["failure"] == Fraction(5, 12)
    assert odds["mean"] == 12
    harsh = POLEMOS.odds(enc.state, Command("skill", "nia", {"skill": "athletics",
                                                              "dice_mod": -3, "target": 1}))
    assert harsh["success"] == Fraction(2, 3)  # 5 - 1D6 >= 1 when the die shows 1 to 4
    tied = Encounter.create(POLEMOS, {"AP-1": "ties-fail"})
    strict = POLEMOS.odds(tied.state, Command("skill", None, {"value": 5, "target": 12}))
    assert strict["success"] == Fraction(15, 36)


@pytest.mark.rules("AP-1")
def test_attack_odds_match_every_roll_enumerated() -> None:
    """AP-1: the opposed roll's exact odds equal the count over all 6^4 dice."""
    enc = encounter()
    odds = POLEMOS.odds(enc.state, Command("attack", "nia", {"target": "orc"}))
    hits = sum(1 for a, b, c, d in product(range(1, 7), repeat=4) if a + b + 3 >= c + d + 1)
    assert odds["hit"] == Fraction(hits, 6 ** 4)
    assert odds["miss"] == 1 - odds["hit"]
    # pistol: 1D6 + 2 damage; 3-5 gives 1 point, 6-8 gives 2 points (P-CDP-1)
    # (no points is a miss, said once as "miss", not again as "critical points 0")
    assert odds["critical_points"] == {1: odds["hit"] / 2, 2: odds["hit"] / 2}
    assert odds["damage_mean"] == Fraction(11, 2)


@pytest.mark.rules("P-COV-2", "P-COV-4")
def test_attack_odds_count_concealment_and_flanking() -> None:
    """P-COV-2, P-COV-4: +4 behind total concealment, +2 when flanked to half."""
    enc = encounter()
    enc.execute({"do": "take_cover", "actor": "orc", "concealment": "total"}, ForcedDice([]))
    total = POLEMOS.odds(enc.state, Command("attack", "nia", {"target": "orc"}))["hit"]
    flank = POLEMOS.odds(enc.state, Command("attack", "nia", {"target": "orc",
                                                              "angle": "half"}))["hit"]
    margin = distribution("2d6+3") - distribution("2d6+5")
    assert total == margin.at_least(0)
    assert flank == (distribution("2d6+3") - distribution("2d6+3")).at_least(0)
    assert total < flank


@pytest.mark.rules("P-SKL-2")
def test_the_forced_skill_roll_adds_the_dice_to_the_value() -> None:
    """P-SKL-2: the total is the dice plus the skill value."""
    enc = encounter()
    entry = enc.execute({"do": "skill", "actor": "nia", "skill": "athletics"},
                        ForcedDice([6, 2]))
    assert entry.events[0].data["total"] == 13


@pytest.mark.rules("P-DICE-1")
def test_bad_dice_arguments_are_invalid() -> None:
    """P-DICE-1: dice modifiers are whole numbers."""
    enc = encounter()
    with pytest.raises(InvalidCommand, match="'bonus' must be a whole number"):
        enc.execute({"do": "skill", "actor": "nia", "skill": "athletics", "bonus": "lots"},
                    ForcedDice([]))
    with pytest.raises(InvalidCommand, match="give 'actor' and 'skill'"):
        enc.execute({"do": "skill"}, ForcedDice([]))


@pytest.mark.rules("AP-17")
def test_concealment_percentages_round_down_to_a_listed_level() -> None:
    """AP-17: 75% concealment is half; 24% is none."""
    assert [concealment_level(p) for p in (0, 24, 25, 49, 50, 99, 100)] == [
        "none", "none", "quarter", "quarter", "half", "half", "total"]
    with pytest.raises(InvalidCommand):
        concealment_level("most")


@pytest.mark.rules("P-STS-3", "P-WND-6")
def test_discipline_and_reveal_odds() -> None:
    """P-STS-3: the chance discipline avoids stress; P-WND-6: the reveal list's odds."""
    enc = Encounter.create(POLEMOS)
    enc.execute({"do": "add", "id": "nia", "skills": {"discipline": 2}}, ForcedDice([]))
    odds = POLEMOS.odds(enc.state, Command("stress", None, {"target": "nia", "amount": 3,
                                                             "discipline": 9}))
    assert odds["avoided"] == Fraction(21, 36)  # 2D6 >= 7
    reveal = POLEMOS.odds(enc.state, Command("reveal", None, {"target": "nia",
                                                               "wound": "w1"}))["results"]
    assert reveal["vital wound"] == Fraction(4, 216)  # 3 or 4 on 3D6
    assert sum(reveal.values()) == 1
