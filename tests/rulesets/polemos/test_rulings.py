"""Every ruling's alternative changes what the rules do (the code reads ``state.rulings``)."""

from __future__ import annotations

import pytest

from arbiter.core import Encounter, IllegalCommand, InvalidCommand, load_ruleset
from arbiter.dice import ForcedDice
from arbiter.rulesets.polemos.model import Creature

POLEMOS = load_ruleset("polemos")
NONE = ForcedDice([])


def make(rulings: dict[str, str], **actors: dict[str, object]) -> Encounter:
    enc = Encounter.create(POLEMOS, rulings)
    for name, spec in actors.items():
        enc.execute({"do": "add", "id": name, **spec}, NONE)
    return enc


def creature(enc: Encounter, name: str) -> Creature:
    found = enc.state.entity(name)
    assert isinstance(found, Creature)
    return found


@pytest.mark.rules("AP-3")
def test_ap3_listed_order_ignores_the_initiative_skill() -> None:
    """AP-3: ties go to the higher [initiative] skill by default, else the order added."""
    for ruling, first in (("skill-then-listed", "kim"), ("listed", "nia")):
        enc = make({"AP-3": ruling}, nia={"skills": {"initiative": 0}},
                   kim={"skills": {"initiative": 3}})
        enc.execute({"do": "start", "initiative": {"nia": 9, "kim": 9}}, NONE)
        assert enc.state.order[0] == first


@pytest.mark.rules("AP-6", "P-ACT-1")
def test_ap6_own_turn_only_lets_a_free_action_repeat_on_others_turns() -> None:
    """AP-6, P-ACT-1: by default a free action used on another's turn counts for the round."""
    for ruling, allowed in (("every-use", False), ("own-turn-only", True)):
        enc = make({"AP-6": ruling}, nia={}, orc={})
        enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5}}, NONE)
        enc.execute({"do": "next"}, NONE)
        enc.execute({"do": "act", "actor": "nia", "ability": "warn", "kind": "free"}, NONE)
        if allowed:
            enc.execute({"do": "act", "actor": "nia", "ability": "warn", "kind": "free"}, NONE)
        else:
            with pytest.raises(IllegalCommand, match="already used 'warn' this round"):
                enc.execute({"do": "act", "actor": "nia", "ability": "warn", "kind": "free"},
                            NONE)


@pytest.mark.rules("AP-7", "P-CDP-2")
def test_ap7_extra_counts_armor_damage_for_critical_points() -> None:
    """AP-7, P-CDP-2: armor damage earns points only under the 'extra' ruling."""
    armor = [{"name": "vest", "areas": ["chest"], "value": 20, "ratings": {"kinetic": 5}}]
    for ruling, points in (("no-extra", 2), ("extra", 3)):
        enc = make({"AP-7": ruling}, nia={}, orc={"armor": armor})
        enc.execute({"do": "damage", "target": "orc", "amount": 6, "area": "chest",
                     "source": "nia"}, NONE)
        assert creature(enc, "nia").critical_points == points


@pytest.mark.rules("AP-9")
def test_ap9_negative_lets_vitality_fall_below_the_minimum() -> None:
    """AP-9: clamped at 1 for a non-vital area by default."""
    for ruling, vitality in (("clamp", 1), ("negative", -3)):
        enc = make({"AP-9": ruling}, nia={})
        enc.execute({"do": "damage", "target": "nia", "amount": 7, "area": "left_arm"}, NONE)
        assert creature(enc, "nia").areas["left_arm"].vitality == vitality


@pytest.mark.rules("AP-11", "P-BLD-5")
def test_ap11_healed_does_not_reset_bleeding_when_the_wound_lands() -> None:
    """AP-11, P-BLD-5."""
    for ruling, areas in (("applied", ["left_arm"]), ("healed", ["left_arm", "chest"])):
        enc = make({"AP-11": ruling}, nia={})
        enc.execute({"do": "bleed", "target": "nia", "area": "left_arm"}, NONE)
        enc.execute({"do": "override", "path": "nia.bleeding.0.areas",
                     "value": ["left_arm", "chest"], "reason": "it spread"}, NONE)
        enc.execute({"do": "wound", "target": "nia", "name": "vital wound", "area": "chest"},
                    NONE)
        assert creature(enc, "nia").bleeding[0].areas == areas


@pytest.mark.rules("AP-12", "P-DMG-4")
def test_ap12_gm_chooses_requires_an_area() -> None:
    """AP-12, P-DMG-4."""
    enc = make({"AP-12": "gm-chooses"}, nia={"weapons": ["pistol"]}, orc={})
    with pytest.raises(InvalidCommand, match="name the body area"):
        enc.execute({"do": "attack", "actor": "nia", "target": "orc"}, ForcedDice([6, 6, 1, 1]))


@pytest.mark.rules("AP-15", "P-FAT-6")
def test_ap15_oldest_removes_the_first_fatigue_wound() -> None:
    """AP-15, P-FAT-6."""
    for ruling, left in (("most-points", ["fatigue"]), ("oldest", ["strain"])):
        enc = make({"AP-15": ruling}, nia={})
        enc.execute({"do": "wound", "target": "nia", "name": "fatigue"}, NONE)
        enc.execute({"do": "wound", "target": "nia", "name": "strain", "fatigue": 3,
                     "tags": ["fatigue"]}, NONE)
        enc.execute({"do": "rest", "target": "nia", "activity": "relax", "amount": 1,
                     "unit": "hour"}, NONE)
        assert [w.name for w in creature(enc, "nia").wounds] == left


@pytest.mark.rules("AP-16", "P-STS-4", "P-STS-5")
def test_ap16_higher_thresholds() -> None:
    """AP-16, P-STS-4, P-STS-5."""
    enc = make({"AP-16": "10-20-30"}, nia={})
    enc.execute({"do": "stress", "target": "nia", "amount": 15}, NONE)
    nia = creature(enc, "nia")
    assert nia.has("stress 1") and not nia.has("stress 2") and nia.stress == 15
    enc.execute({"do": "stress", "target": "nia", "amount": 15}, NONE)
    assert creature(enc, "nia").stress == 0
    assert creature(enc, "nia").afflictions[0].tags == ["corruption"]


@pytest.mark.rules("AP-29", "P-FAT-9")
def test_ap29_started_hours_heal_fp_for_a_part_hour() -> None:
    """AP-29, P-FAT-9."""
    for ruling, fp in (("full-hours", 6), ("started-hours", 7)):
        enc = make({"AP-29": ruling}, nia={"fp": 10})
        enc.execute({"do": "override", "path": "nia.fp", "value": 5, "reason": "tired"}, NONE)
        enc.execute({"do": "rest", "target": "nia", "activity": "sleep", "amount": 90,
                     "unit": "minutes"}, NONE)
        assert creature(enc, "nia").fp == fp


@pytest.mark.rules("AP-31", "P-WND-6")
def test_ap31_gm_decides_the_reveal() -> None:
    """AP-31, P-WND-6."""
    enc = make({"AP-31": "gm-decides"}, nia={})
    enc.execute({"do": "wound", "target": "nia", "name": "unknown", "known": False,
                 "area": "chest"}, NONE)
    with pytest.raises(InvalidCommand, match="the GM names the 'result'"):
        enc.execute({"do": "reveal", "target": "nia", "wound": "w1"}, ForcedDice([3, 3, 3]))
    enc.execute({"do": "reveal", "target": "nia", "wound": "w1", "result": "cut"}, NONE)
    assert creature(enc, "nia").wounds[0].name == "cut"


@pytest.mark.rules("AP-33", "P-ORD-6")
def test_ap33_fresh_roll_ignores_current_initiative() -> None:
    """AP-33, P-ORD-6."""
    enc = make({"AP-33": "fresh-roll"}, nia={}, orc={})
    enc.execute({"do": "start", "initiative": {"nia": 12, "orc": 2}}, NONE)
    entry = enc.execute({"do": "simultaneous", "actors": ["nia", "orc"]},
                        ForcedDice([1, 1, 6, 6]))
    assert entry.events[0].data["order"] == ["orc", "nia"]


@pytest.mark.rules("POL-2", "P-WND-4")
def test_pol2_endurance_thresholds() -> None:
    """POL-2, P-WND-4: a total of 11 heals at 10-6 but not at 12-7."""
    for ruling, healed in (("10-6", True), ("12-7", False)):
        enc = make({"POL-2": ruling}, nia={"skills": {"endurance": 3}})
        enc.execute({"do": "wound", "target": "nia", "name": "fracture", "area": "left_leg"},
                    NONE)
        enc.execute({"do": "wait", "amount": 1, "unit": "day"}, ForcedDice([4, 4]))
        assert (creature(enc, "nia").wounds == []) is healed
