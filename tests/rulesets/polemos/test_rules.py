"""Refusals a game master can act on, stat blocks, the damage pipeline, the catalogues."""

from __future__ import annotations

import re
from typing import Any

import pytest

from arbiter.core import Encounter, IllegalCommand, InvalidCommand, load_ruleset
from arbiter.dice import ForcedDice
from arbiter.rulesets.polemos.damage import resolve_damage
from arbiter.rulesets.polemos.model import (
    Creature,
    DamageType,
    body_plans,
    condition_catalogue,
    reveal_table,
    rounds_in,
    wound_catalogue,
)

from ...support import templates_in_file

POLEMOS = load_ruleset("polemos")
NONE = ForcedDice([])


def fight() -> Encounter:
    enc = Encounter.create(POLEMOS)
    enc.execute({"do": "add", "id": "nia", "template": "soldier"}, NONE)
    enc.execute({"do": "add", "id": "orc", "template": "ganger"}, NONE)
    enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5}}, NONE)
    return enc


@pytest.mark.rules("P-TGT-4")
def test_an_unknown_body_area_is_refused_with_the_areas_listed() -> None:
    """P-TGT-4: a body-area target must be one of the creature's areas."""
    enc = fight()
    with pytest.raises(InvalidCommand, match=r"orc has no body area 'tail' \(body areas: head"):
        enc.execute({"do": "attack", "actor": "nia", "target": "orc", "area": "tail"},
                    ForcedDice([6, 6, 1, 1, 3]))


@pytest.mark.rules("P-ACT-2", "P-ACT-3")
def test_a_second_primary_action_is_refused_with_the_rule() -> None:
    """P-ACT-2, P-ACT-3: one primary action; a secondary never replaces it."""
    enc = fight()
    enc.execute({"do": "attack", "actor": "nia", "target": "orc", "area": "chest"},
                ForcedDice([1, 1, 6, 6]))
    with pytest.raises(IllegalCommand) as err:
        enc.execute({"do": "act", "actor": "nia", "ability": "shove", "kind": "primary"}, NONE)
    assert err.value.rule == "P-ACT-3"
    assert "no primary action left" in str(err.value)


@pytest.mark.rules("P-DTY-2")
def test_a_damage_type_the_weapon_cannot_deal_is_refused_with_its_rule() -> None:
    """A weapon deals only its own damage types: another is refused naming them, citing the
    rule (the mutation run found the citation unchecked).

    Rule ids: P-DTY-2
    """
    enc = fight()
    weapon = next(iter(enc.state.entities["nia"].weapons))  # type: ignore[attr-defined]
    with pytest.raises(IllegalCommand) as err:
        enc.execute({"do": "attack", "actor": "nia", "target": "orc", "type": "psychic"},
                    NONE)
    assert err.value.rule == "P-DTY-2"
    assert str(err.value).startswith(f"{weapon} cannot deal psychic damage (types: ")


@pytest.mark.rules("P-ACT-4")
def test_a_minor_action_during_another_resolution_is_refused() -> None:
    """P-ACT-4: minor actions wait until the declared action has resolved."""
    enc = fight()
    enc.execute({"do": "declare", "actor": "nia",
                 "action": {"do": "attack", "target": "orc", "area": "chest"}}, NONE)
    with pytest.raises(IllegalCommand) as err:
        enc.execute({"do": "act", "actor": "nia", "ability": "reload", "kind": "minor"}, NONE)
    assert err.value.rule == "P-ACT-4"
    enc.execute({"do": "withdraw", "actor": "nia"}, NONE)
    enc.execute({"do": "act", "actor": "nia", "ability": "reload", "kind": "minor"}, NONE)


@pytest.mark.rules("P-ACT-5")
def test_a_declared_action_that_cannot_resolve_says_why() -> None:
    """P-ACT-5: resolution refuses as a whole, naming the declarer."""
    enc = fight()
    enc.execute({"do": "declare", "actor": "nia",
                 "action": {"do": "act", "ability": "yell", "kind": "primary"}}, NONE)
    enc.execute({"do": "act", "actor": "nia", "ability": "yell2", "kind": "primary"}, NONE)
    with pytest.raises(IllegalCommand, match="nia's declared act cannot resolve: nia has no "
                                             "primary action left"):
        enc.execute({"do": "resolve"}, NONE)
    with pytest.raises(IllegalCommand, match="no action has been declared"):
        fight().execute({"do": "resolve"}, NONE)


def test_stat_blocks_refuse_unknown_keys_weapons_armor_and_plans() -> None:
    """Stat blocks are validated when a creature is added, naming what would be accepted."""
    enc = Encounter.create(POLEMOS)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"wings": 2}, "unknown stat-block key"),
        ({"weapons": ["laser"]}, "no weapon 'laser' (weapons: fists"),
        ({"armor": ["cape"]}, "no armor 'cape'"),
        ({"body": "snake"}, "no body plan 'snake' (body plans: human"),
        ({"vitality": {"tail": 3}}, "vitality for unknown body area 'tail'"),
        ({"body": "quadruped", "armor": ["ballistic_vest"]}, "covers 'chest'"),
        ({"critical_threshold": 0}, "critical_threshold must be at least 1"),
    ]
    for spec, message in cases:
        with pytest.raises(InvalidCommand, match=re.escape(message)):
            enc.execute({"do": "add", "id": "x", **spec}, NONE)


@pytest.mark.rules("P-TGT-4", "P-DMG-4")
def test_a_stat_block_builds_areas_pools_weapons_and_armor() -> None:
    """P-TGT-4, P-DMG-4: a human has 12 body areas, four of them vital."""
    enc = Encounter.create(POLEMOS)
    enc.execute({"do": "add", "id": "nia", "template": "soldier",
                 "wounds": [{"name": "fracture", "area": "left_leg"}],
                 "afflictions": ["paranoia"]}, NONE)
    nia = enc.state.entity("nia")
    assert isinstance(nia, Creature)
    assert len(nia.areas) == 12
    assert [a for a, area in nia.areas.items() if area.vital] == ["head", "neck", "chest",
                                                                   "abdomen"]
    assert nia.weapons["rifle"].damage == {"kinetic": 3}
    assert [p.name for p in nia.armor] == ["ballistic_vest", "combat_helmet"]
    assert nia.wounds[0].conditions == ["limping"]
    assert nia.afflictions[0].name == "paranoia"


def test_every_template_of_the_file_loads() -> None:
    assert POLEMOS.templates == templates_in_file(POLEMOS)
    enc = Encounter.create(POLEMOS)
    for name in POLEMOS.templates:
        enc.execute({"do": "add", "id": name, "template": name}, NONE)
    assert list(enc.state.entities) == list(POLEMOS.templates)
    assert all(isinstance(e, Creature) for e in enc.state.entities.values())


@pytest.mark.rules("P-ARM-6", "P-ARM-8", "P-ARM-10", "P-ARM-11")
def test_the_pipeline_records_every_step() -> None:
    """P-ARM-6, P-ARM-8, P-ARM-10, P-ARM-11: the seed's ten-armor-value example, step by
    step."""
    enc = Encounter.create(POLEMOS)
    enc.execute({"do": "add", "id": "nia", "armor": [{"name": "vest", "areas": ["chest"],
                 "value": 10, "ratings": {"kinetic": 4, "kinetic (stamina)": 4}}]}, NONE)
    nia = enc.state.entity("nia")
    assert isinstance(nia, Creature)
    result = resolve_damage(nia, "chest", DamageType.parse("kinetic"), 6, 4)
    assert [i["text"] for i in result["instances"]] == [
        "6 kinetic → vest armor value 10 → 4: 0 → chest vitality → 6: 0",
        "3 kinetic (stamina) → vest armor value 4 → 1: 0 → SP → 10: 0",
    ]
    assert result["armor"] == {"0": 1}
    assert nia.armor[0].value == 10  # calculation is pure


@pytest.mark.rules("P-DTY-3", "P-DTY-4")
def test_damage_types_degrade_one_measure_at_a_time() -> None:
    """P-DTY-3, P-DTY-4: vitality → stamina → focus → nothing."""
    bashing = DamageType.parse("bashing")
    assert bashing.measure == "vitality"
    stamina = bashing.degraded()
    assert stamina is not None and str(stamina) == "bashing (stamina)"
    focus = stamina.degraded()
    assert focus is not None and str(focus) == "bashing (focus)"
    assert focus.degraded() is None
    with pytest.raises(InvalidCommand):
        DamageType.parse("")


@pytest.mark.rules("P-TIM-1", "P-TIM-2", "P-TIM-3", "AP-30")
def test_time_units_in_rounds() -> None:
    """P-TIM-1, P-TIM-2, P-TIM-3, AP-30."""
    assert rounds_in(1, "minute") == 20
    assert rounds_in(1, "hour") == 1200
    assert rounds_in(1, "month") == 28 * rounds_in(1, "day")
    assert rounds_in(1, "year") == 336 * rounds_in(1, "day")
    assert rounds_in(1, "year", "calendar-365") == 365 * rounds_in(1, "day")
    assert rounds_in(7, "seconds") == 2


def test_catalogues_are_consistent() -> None:
    """The data files agree with each other: adjacency is symmetric, the reveal list covers
    3 to 18 with known wounds, caused conditions are in the catalogue."""
    for plan in body_plans().values():
        for name, area in plan.items():
            for other in area["adjacent"]:
                assert name in plan[other]["adjacent"], (name, other)
    rows = reveal_table()
    assert rows[-1]["upto"] == 18
    assert all(r["wound"] in wound_catalogue() for r in rows)
    for wound in wound_catalogue().values():
        for cond in wound.get("conditions", []):
            assert cond in condition_catalogue()


def test_rulings_cite_the_seed_and_have_alternatives() -> None:
    """Every ruling cites seed 000 and lists what it rules on."""
    ids = {r.id for r in POLEMOS.rulings}
    part_one = {f"AP-{n}" for n in [*range(1, 22), 29, 30, 31, 32, 33]}
    assert part_one <= ids
    for ruling in POLEMOS.rulings:
        assert "seed 000" in ruling.citation
        assert ruling.rules


@pytest.mark.rules("P-ACT-2", "P-FAT-8")
def test_out_of_turn_and_rest_in_combat_are_refused() -> None:
    """P-ACT-2: only the current creature spends actions; P-FAT-8: no rest in turn-by-turn
    play."""
    enc = fight()
    with pytest.raises(IllegalCommand, match="it is nia's turn, not orc's"):
        enc.execute({"do": "act", "actor": "orc", "ability": "wave"}, NONE)
    with pytest.raises(IllegalCommand, match="not possible in turn-by-turn play"):
        enc.execute({"do": "rest", "target": "nia", "amount": 1}, NONE)
    with pytest.raises(IllegalCommand, match="use 'next'"):
        enc.execute({"do": "wait", "amount": 1}, NONE)
