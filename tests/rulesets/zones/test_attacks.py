"""Ranged attacks, AoEs and rulings alternatives, with forced dice."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from arbiter.core import Command, Encounter, IllegalCommand, InvalidCommand
from arbiter.dice import ForcedDice, SeededDice, distribution
from arbiter.rulesets.zones import aoe as area
from arbiter.rulesets.zones.model import Creature, counts_for_group_defense, outnumbering

from .helpers import ZONES, encounter, run, world


def crew_and_gang(rulings: dict[str, str] | None = None) -> Encounter:
    return encounter({
        "nia": {"template": "soldier", "side": "crew", "group": "crew",
                "ammo": {"grenade": 9}},
        "bob": {"template": "bandit", "side": "gang", "group": "gang", "health": 900},
        "cal": {"template": "bandit", "side": "gang", "group": "gang", "health": 900},
    }, rulings)


@pytest.mark.rules("Z-BLI-7", "Z-FA-1", "Z-COV-2")
def test_illegal_attacks_are_refused_with_the_rule() -> None:
    """Z-BLI-7, Z-FA-1, Z-COV-2: blind and unaimed, full-auto at long range without the
    skill, cover while flying.

    Rule ids: Z-BLI-7, Z-FA-1, Z-COV-2
    """
    enc = encounter({
        "fay": {"DEX": 13, "weapons": ["assault-rifle"], "competent": ["assault-rifle"]},
        "fly": {"template": "bandit", "altitude": "short"},
        "bob": {"template": "bandit"},
    })
    with pytest.raises(IllegalCommand) as err:
        run(enc, {"do": "attack", "actor": "fay", "engagement": "bob", "blind": True,
                  "unaimed": True})
    assert err.value.rule == "Z-BLI-7"
    with pytest.raises(IllegalCommand) as err:
        run(enc, {"do": "attack", "actor": "fay", "target": "bob", "full_auto": True,
                  "range": "long"})
    assert err.value.rule == "Z-FA-1"
    assert "without Full-Auto Skill, full-auto is only possible at short range" in str(err.value)
    with pytest.raises(IllegalCommand) as err:
        run(enc, {"do": "cover", "actor": "fly", "environment": "light"})
    assert err.value.rule == "Z-COV-2"


@pytest.mark.rules("Z-RA-6")
def test_malformed_commands_say_what_is_accepted() -> None:
    """Z-RA-6: a range band must be one of the four; unknown weapons and keys are named.

    Rule ids: Z-RA-6
    """
    enc = crew_and_gang()
    with pytest.raises(InvalidCommand, match="must be one of engagement, short, medium, long"):
        run(enc, {"do": "attack", "actor": "nia", "target": "bob", "range": "far"})
    with pytest.raises(IllegalCommand, match="nia has no weapon 'bow'"):
        run(enc, {"do": "attack", "actor": "nia", "target": "bob", "weapon": "bow"})
    with pytest.raises(InvalidCommand, match="unknown stat-block key"):
        run(enc, {"do": "add", "id": "x", "wings": 2})
    with pytest.raises(InvalidCommand, match="no weapon named 'bow'"):
        run(enc, {"do": "add", "id": "x", "weapons": ["bow"]})
    with pytest.raises(InvalidCommand, match="not on the chart"):
        run(enc, {"do": "add", "id": "x", "cover": "jungle"})


@pytest.mark.rules("Z-AOE-3")
def test_a_grapple_partner_takes_the_area_effect_guaranteed() -> None:
    """Z-AOE-3: anyone grappling the burst's direct target is guaranteed the area effect.

    Rule ids: Z-AOE-3
    """
    enc = crew_and_gang()
    run(enc, {"do": "grapple", "actor": "cal", "target": "bob"})
    data = run(enc, {"do": "attack", "actor": "nia", "target": "bob", "weapon": "grenade"},
               [5, 15, 7])
    assert data["effects"] == {"bob": "impact", "cal": "area"}
    assert data["inclusion"]["cal"]["roll"] is None


@pytest.mark.rules("Z-AOE-2", "Z-AOE-3", "AZ-16")
def test_direct_target_after_a_failed_offense_roll_follows_az16() -> None:
    """Z-AOE-2, Z-AOE-3 (AZ-16): guaranteed area even after a failed roll, if so ruled.

    Rule ids: Z-AOE-2, Z-AOE-3, AZ-16
    """
    enc = crew_and_gang({"AZ-16": "guaranteed"})
    run(enc, {"do": "touch", "actor": "cal", "target": "bob"})
    data = run(enc, {"do": "attack", "actor": "nia", "target": "bob", "weapon": "grenade",
                     "hindrance": 5}, [12])
    assert data["effects"] == {"bob": "area", "cal": "area"}
    assert data["inclusion"]["bob"]["roll"] is None
    enc = crew_and_gang()
    run(enc, {"do": "touch", "actor": "cal", "target": "bob"})
    data = run(enc, {"do": "attack", "actor": "nia", "target": "bob", "weapon": "grenade",
                     "hindrance": 5}, [12, 90, 30])
    assert data["effects"] == {"cal": "area"}


@pytest.mark.rules("Z-AOE-6", "Z-AOE-8", "Z-AOE-11")
@pytest.mark.parametrize(("chance", "plan_kw"), [
    (80, {}),
    (30, {"offense_success": False}),
    (60, {"caution": True}),
    (50, {"spread": True}),
    (20, {"spread": True, "offense_success": False}),
])
def test_aoe_inclusion_matches_the_stated_percentages(chance: int,
                                                      plan_kw: dict[str, bool]) -> None:
    """Z-AOE-6, Z-AOE-8, Z-AOE-11: seeded d100 inclusion converges on the exact chance.

    Rule ids: Z-AOE-6, Z-AOE-8, Z-AOE-11
    """
    enc = crew_and_gang()
    state = enc.state
    nia, bob = state.entities["nia"], state.entities["bob"]
    assert isinstance(nia, Creature) and isinstance(bob, Creature)
    kwargs: dict[str, bool] = {"offense_success": True, "caution": False, "spread": False}
    kwargs.update(plan_kw)
    plan = area.AoePlan(attacker=nia, kind="spray", direct=None, engagements=("gang",),
                        zone="here", beneficial=False, altitude=0, **kwargs)
    got, why = area.chance_for(state, plan, bob, {})
    assert got == chance, why
    assert distribution("1d100").at_most(chance) == Fraction(chance, 100)
    dice = SeededDice(chance)
    trials = 20000
    hits = sum(area.roll_inclusion(state, plan, [bob], dice, {})["bob"]["included"]
               for _ in range(trials))
    # 5 standard deviations of a binomial count
    p = chance / 100
    assert abs(hits - trials * p) < 5 * (trials * p * (1 - p)) ** 0.5


@pytest.mark.rules("Z-AOE-12", "AZ-20")
def test_mount_and_rider_roll_separately_when_ruled() -> None:
    """Z-AOE-12 (AZ-20): mount and rider share one cluster d6 by default; two if 'separate'.

    Rule ids: Z-AOE-12, AZ-20
    """
    actors: dict[str, dict[str, Any]] = {
              "nia": {"template": "soldier", "side": "crew", "group": "crew", "zone": "sky",
                      "weapons": ["rocket-pods"]},
              "hor": {"template": "wolf", "side": "gang", "group": "gang"},
              "rid": {"template": "bandit", "side": "gang", "group": "gang", "mount": "hor"}}
    enc = encounter(actors)
    data = run(enc, {"do": "zaoe", "actor": "nia", "weapon": "rocket-pods", "zone": "here"},
               [6])
    assert data["values"] == {"hor": "high", "rid": "high"}
    enc = encounter(actors, {"AZ-20": "separate"})
    data = run(enc, {"do": "zaoe", "actor": "nia", "weapon": "rocket-pods", "zone": "here"},
               [6, 1])
    assert data["values"] == {"hor": "high", "rid": "low"}


@pytest.mark.rules("Z-MI-2", "AZ-8")
def test_melee_interference_per_source_when_ruled() -> None:
    """Z-MI-2 (AZ-8): a melee attack and a grapple give 4 Hindrance under 'per-source'.

    Rule ids: Z-MI-2, AZ-8
    """
    actors: dict[str, dict[str, Any]] = {"nia": {"template": "soldier", "group": "crew"},
              "rex": {"template": "wolf", "group": "gang", "engagement": "crew"}}
    for ruling, expected in (("flat", 2), ("per-source", 4)):
        enc = encounter(actors, {"AZ-8": ruling})
        run(enc, {"do": "melee", "actor": "rex", "target": "nia"}, [1, 1])
        run(enc, {"do": "grapple", "actor": "nia", "target": "rex"})
        data = run(enc, {"do": "roll", "actor": "nia", "stat": "DEX",
                         "melee_interference": True}, [1])
        assert data["roll"]["hindrance"] == expected


@pytest.mark.rules("Z-COV-9")
def test_cover_excludes_group_defense_and_outnumbering() -> None:
    """Z-COV-9: in cover, a creature defends nobody in group defense nor counts for
    outnumbering dice.

    Rule ids: Z-COV-9
    """
    enc = encounter({"a": {"template": "bandit", "group": "g", "cover": "light"},
                     "b": {"template": "bandit", "group": "g"},
                     "c": {"template": "bandit", "group": "g"}})
    a = enc.state.entities["a"]
    assert isinstance(a, Creature)
    assert not counts_for_group_defense(a)
    assert outnumbering(enc.state, "g") == 2


@pytest.mark.rules("Z-THR-4", "Z-FA-4", "ZR-6")
def test_thrown_weapons_meet_no_kinetic_shielding() -> None:
    """Z-THR-4, Z-FA-4 (ruling ZR-6): kinetic shielding soaks non-thrown kinetic attacks.

    Rule ids: Z-THR-4, Z-FA-4
    """
    enc = encounter({"kit": {"DEX": 14, "STR": 10, "weapons": ["knife", "pistol"],
                             "competent": ["knife", "pistol"]},
                     "ari": {"template": "arcanist"}})
    data = run(enc, {"do": "attack", "actor": "kit", "target": "ari", "weapon": "knife"},
               [1, 20, 10])
    assert data["taken"] == 22 and data["kinetic_shielding"] == 40
    data = run(enc, {"do": "attack", "actor": "kit", "target": "ari", "weapon": "pistol"},
               [1, 20])
    assert data["pipeline"]["text"] == "18 kinetic → kinetic shielding 40 spends 18: 0"
    assert enc.state.entities["ari"].kinetic_shielding == 22  # type: ignore[attr-defined]


@pytest.mark.rules("Z-RA-6", "AZ-5", "AZ-7", "Z-RA-2", "AZ-26")
@pytest.mark.parametrize(("rulings", "command", "dice", "check"), [
    ({"AZ-7": "not-allowed"}, {"target": "eng"}, [], "no ranged attack at engagement range"),
    ({"AZ-5": "d20-fallback"}, {"target": "bob", "weapon": "pistol", "range": "long"},
     [3, 20, 5], "1d20"),
    ({"AZ-26": "grapple-only"}, {"engagement": "fight", "blind": True}, [],
     "blind attacks are not allowed"),
])
def test_rulings_change_ranged_attacks(rulings: dict[str, str], command: dict[str, object],
                                       dice: list[int], check: str) -> None:
    """Z-RA-6 (AZ-5, AZ-7), Z-RA-2 (AZ-26): the code honours the chosen rulings.

    Rule ids: Z-RA-6, AZ-5, AZ-7, Z-RA-2, AZ-26
    """
    enc = encounter({"nia": {"template": "bandit", "group": "crew", "side": "crew",
                             "weapons": {"pistol": {"offense": {"short": "1d10"}}},
                             "competent": ["pistol"]},
                     "eng": {"template": "bandit", "group": "x", "engagement": "crew"},
                     "bob": {"template": "bandit", "group": "gang"}}, rulings)
    if dice:
        data = run(enc, {"do": "attack", "actor": "nia", **command}, dice)
        assert data["offense"]["dice"] == check
    else:
        with pytest.raises(IllegalCommand, match=check):
            run(enc, {"do": "attack", "actor": "nia", **command})


@pytest.mark.rules("Z-EAO-1", "AZ-13")
def test_thresholds_use_damage_after_modifiers() -> None:
    """Z-EAO-1 (AZ-13): a thrown energy weapon's STR counts towards the 40 threshold.

    Rule ids: Z-EAO-1, AZ-13
    """
    spec: dict[str, Any] = {"DEX": 14, "STR": 10, "weapons": {"spark": {
        "kind": "melee", "type": "energy", "damage": 35, "tags": ["Throwing"]}},
        "competent": ["spark"]}
    for ruling, allowed in (("after-modifiers", True), ("listed", False)):
        enc = encounter({"ari": spec, "bob": {"template": "bandit"}}, {"AZ-13": ruling})
        cmd = {"do": "attack", "actor": "ari", "target": "bob", "weapon": "spark", "aoe": "burst"}
        if allowed:
            data = run(enc, cmd, [1, 20, 1])
            assert data["impact"] == {"damage": 33, "drive": 33}  # 3/4 of 45
        else:
            with pytest.raises(IllegalCommand, match="cannot make an AoE"):
                run(enc, cmd)


@pytest.mark.rules("Z-OVR-1", "AZ-14")
def test_mixed_damage_overeffect_follows_az14() -> None:
    """Z-OVR-1 (AZ-14): mixed damage makes no overeffect unless ruled 'any-damage'.

    Rule ids: Z-OVR-1, AZ-14
    """
    railgun = {"kind": "ranged", "type": "mixed", "damage": 150, "drive": 90,
               "offense": {"short": "1d10"}}
    spec: dict[str, Any] = {"DEX": 14, "weapons": {"railgun": railgun},
                            "competent": ["railgun"]}
    enc = encounter({"a": spec, "bob": {"template": "bandit"}})
    assert "aoe" not in run(enc, {"do": "attack", "actor": "a", "target": "bob"}, [1, 1])
    enc = encounter({"a": spec, "bob": {"template": "bandit"}}, {"AZ-14": "any-damage"})
    data = run(enc, {"do": "attack", "actor": "a", "target": "bob"}, [1, 1])
    assert data["aoe_source"] == "overeffect" and data["area"]["damage"] == 25


@pytest.mark.rules("Z-FLK-1", "Z-FLK-2", "AZ-22", "Z-AOE-2", "AZ-23")
def test_flanking_cutoffs_and_burst_defense_follow_rulings() -> None:
    """Z-FLK-1, Z-FLK-2 (AZ-22), Z-AOE-2 (AZ-23).

    Rule ids: Z-FLK-1, Z-FLK-2, AZ-22, Z-AOE-2, AZ-23
    """
    actors: dict[str, dict[str, Any]] = {
              "ann": {"template": "soldier", "group": "n", "ammo": {"grenade": 5}},
              "bea": {"template": "soldier", "group": "e"},
              "bob": {"template": "bandit", "group": "gang", "health": 900}}
    for ruling, expected in (("80-160", 3), ("90-170", 1)):
        enc = encounter(actors, {"AZ-22": ruling})
        run(enc, {"do": "flank", "target": "bob", "angles": {"n": 0, "e": 165}})
        data = run(enc, {"do": "attack", "actor": "ann", "target": "bob"}, [1, 1])
        assert data["defense"]["hindrance"] == expected
    enc = encounter(actors, {"AZ-23": "not-applies"})
    run(enc, {"do": "flank", "target": "bob", "angles": {"n": 0, "e": 180}})
    data = run(enc, {"do": "attack", "actor": "ann", "target": "bob", "weapon": "grenade"},
               [1, 1])
    assert data["defense"]["hindrance"] == 0


@pytest.mark.rules("Z-COV-7", "ZR-3")
def test_critical_on_natural_ones_when_ruled() -> None:
    """Z-COV-7 (ruling ZR-3): a natural 1 is critical and shoots past cover.

    Rule ids: Z-COV-7
    """
    actors: dict[str, dict[str, Any]] = {"nia": {"template": "soldier"},
              "bob": {"template": "bandit", "cover": "heavy", "health": 900}}
    enc = encounter(actors)
    assert run(enc, {"do": "attack", "actor": "nia", "target": "bob"}, [1, 20])["hit"] is False
    enc = encounter(actors, {"ZR-3": "natural-1"})
    data = run(enc, {"do": "attack", "actor": "nia", "target": "bob"}, [1, 20, 5])
    assert data["critical"] is True and data["taken"] == 26


@pytest.mark.rules("ZR-2")
def test_damage_and_drive_rulings() -> None:
    """Ruling ZR-2: drive above armor lets everything through; 'subtract' ignores drive."""
    enc = encounter({"bob": {"template": "knight"}})
    data = run(enc, {"do": "damage", "target": "bob", "amount": 40, "drive": 30})
    assert data["pipeline"]["text"] == "40 kinetic → drive 30 beats armor 25: 40"
    enc = encounter({"bob": {"template": "knight"}}, {"ZR-2": "subtract"})
    data = run(enc, {"do": "damage", "target": "bob", "amount": 40, "drive": 30})
    assert data["pipeline"]["text"] == "40 kinetic → armor 25: 15"


@pytest.mark.rules("Z-RA-1", "Z-COV-1", "ZR-7")
def test_slowing_and_movement_follow_zr7() -> None:
    """Z-RA-1, Z-COV-1 (ruling ZR-7): slowing actions and movement.

    Rule ids: Z-RA-1, Z-COV-1
    """
    actors: dict[str, dict[str, Any]] = {"nia": {"template": "soldier"},
                                         "bob": {"template": "bandit", "health": 900}}
    enc = encounter(actors)
    run(enc, {"do": "start", "initiative": {"nia": 10, "bob": 1}})
    run(enc, {"do": "move", "actor": "nia", "group": "x"})
    with pytest.raises(IllegalCommand, match="has moved this turn, so cannot take a slowing"):
        run(enc, {"do": "attack", "actor": "nia", "target": "bob"}, [1, 1])
    run(enc, {"do": "attack", "actor": "nia", "target": "bob", "unaimed": True}, [20])
    enc = encounter(actors, {"ZR-7": "record-only"})
    run(enc, {"do": "start", "initiative": {"nia": 10, "bob": 1}})
    run(enc, {"do": "move", "actor": "nia", "group": "x"})
    data = run(enc, {"do": "attack", "actor": "nia", "target": "bob"}, [1, 1])
    assert data["economy"]["slowed"] is True


@pytest.mark.rules("Z-COV-5", "Z-COV-6", "AZ-10")
def test_cover_chart_or_gm_only() -> None:
    """Z-COV-5, Z-COV-6 (AZ-10): the chart by default; the GM's bonus under 'gm-only'.

    Rule ids: Z-COV-5, Z-COV-6, AZ-10
    """
    enc = encounter({"sam": {"template": "sniper"}}, {"AZ-10": "gm-only"})
    with pytest.raises(InvalidCommand, match="give the armor 'bonus'"):
        run(enc, {"do": "cover", "actor": "sam", "environment": "light"})
    run(enc, {"do": "cover", "actor": "sam", "bonus": 7})
    assert enc.state.entities["sam"].cover() == {  # type: ignore[attr-defined]
        "environment": "custom", "bonus": 7, "improved": False, "roofed": False}


@pytest.mark.rules("Z-AOE-11")
def test_an_aoe_may_spread_over_engagements_in_two_zones() -> None:
    """Z-AOE-11: the GM lets an AoE reach engagements within short range of each other, even
    across a zone border; everyone has 50%, with exact odds before the roll.

    Rule ids: Z-AOE-11
    """
    enc = encounter({"nia": {"template": "soldier", "side": "crew", "group": "crew",
                             "zone": "yard"},
                     "bob": {"template": "bandit", "side": "gang", "group": "gang",
                             "zone": "yard"},
                     "cal": {"template": "bandit", "side": "gang", "group": "pack",
                             "zone": "lane"}})
    cmd = {"do": "attack", "actor": "nia", "weapon": "grenade", "spread": ["gang", "pack"]}
    odds = ZONES.odds(enc.state, Command.from_json(cmd))
    assert odds["inclusion"] == {"bob": Fraction(1, 2), "cal": Fraction(1, 2)}
    data = run(enc, cmd, [5, 50, 51])
    assert data["effects"] == {"bob": "area"}
    with pytest.raises(InvalidCommand, match="nobody standing is in group 'nobody'"):
        run(enc, {**cmd, "spread": ["nobody"]})


@pytest.mark.rules("Z-RA-6", "AZ-6")
def test_offense_stat_follows_az6() -> None:
    """Z-RA-6 (AZ-6): a weapon may name its offense stat; 'always-dex' ignores it.

    Rule ids: Z-RA-6, AZ-6
    """
    spec: dict[str, Any] = {"DEX": 5, "STR": 15, "weapons": {"sling": {
        "kind": "ranged", "damage": 10, "drive": 5, "offense_stat": "STR",
        "offense": {"short": "1d12"}}}, "competent": ["sling"]}
    enc = encounter({"a": spec, "bob": {"template": "bandit"}})
    data = run(enc, {"do": "attack", "actor": "a", "target": "bob"}, [10, 1])
    assert data["offense"]["text"] == "1d12 (10) = 10 vs STR 15: success"
    enc = encounter({"a": spec, "bob": {"template": "bandit"}}, {"AZ-6": "always-dex"})
    data = run(enc, {"do": "attack", "actor": "a", "target": "bob"}, [10])
    assert data["offense"]["text"] == "1d12 (10) = 10 vs DEX 5: failure"


@pytest.mark.rules("Z-COV-3", "Z-AOE-3")
def test_a_creature_neither_strikes_nor_touches_itself() -> None:
    """Engaged with its own group, a creature is still no target of its own melee, and a
    touch (Z-COV-3, Z-AOE-3) is of another creature: the legal options offered both."""
    enc = world()
    with pytest.raises(IllegalCommand, match="cannot attack itself"):
        enc.decide({"do": "melee", "actor": "rex", "target": "rex"}, ForcedDice([10, 10]))
    with pytest.raises(IllegalCommand, match="cannot touch itself"):
        enc.decide({"do": "touch", "actor": "nia", "target": "nia"}, ForcedDice([]))
    assert enc.decide({"do": "touch", "actor": "nia", "target": "kim"},
                      ForcedDice([])).events[0].type == "touched"
