"""The realms ruleset (seed 003): replay, exact odds, gear rules, refusals and coverage."""

from __future__ import annotations

import contextlib
import re
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.core import (
    Command,
    Encounter,
    Entry,
    IllegalCommand,
    InvalidCommand,
    RulesError,
    load_ruleset,
)
from arbiter.dice import ForcedDice, SeededDice
from arbiter.rulesets.realms.model import RealmsCreature, conditions_catalogue

from ...support import Played, templates_in_file

REALMS = load_ruleset("realms")
ROOT = Path(__file__).resolve().parents[3]
ENCOUNTERS = sorted((ROOT / "scenarios" / "encounters").glob("realms-*.yaml"))
PACKAGE = ROOT / "src" / "arbiter" / "rulesets" / "realms"

RULES = load_ruleset("realms").inventory.rules
AMBIGUITIES = tuple(load_ruleset("realms").inventory.ambiguities)


def encounter(*actors: tuple[str, dict[str, Any]], rulings: dict[str, str] | None = None,
              ) -> Encounter:
    enc = Encounter.create(REALMS, rulings)
    for name, spec in actors:
        enc.execute({"do": "add", "id": name, **spec}, ForcedDice([]))
    return enc


def creature(enc: Encounter, name: str) -> RealmsCreature:
    entity = enc.state.entity(name)
    assert isinstance(entity, RealmsCreature)
    return entity


# -- replay ----------------------------------------------------------------------------------
def test_there_are_whole_encounters() -> None:
    assert len(ENCOUNTERS) >= 2


@pytest.mark.rules("R-AP-1", "R-DY-1")
@pytest.mark.parametrize("path", ENCOUNTERS, ids=[p.name for p in ENCOUNTERS])
def test_replaying_an_encounter_log_gives_the_identical_state(path: Path,
                                                             played: Played) -> None:
    """A whole seeded encounter (R-AP-1, R-DY-1) replays from its log alone, to its winner."""
    result = played(path)
    assert result.passed, result.failures
    assert result.encounter is not None
    log = [Entry.from_json(e.to_json()) for e in result.encounter.log]
    replayed = Encounter.replay(REALMS, log)
    assert replayed.state == result.encounter.state
    assert replayed.state.extra["winner"] in ("bandits", "heroes")


ACTIONS = st.sampled_from(["attack", "next", "damage", "heal", "stun", "bleed", "move",
                           "drain", "defend"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(ACTIONS, st.sampled_from(["nia", "orc"]), st.integers(0, 12)),
                max_size=30), st.integers(0, 1000))
def test_replay_of_random_scripts_gives_the_identical_state(
    script: list[tuple[str, str, int]], seed: int
) -> None:
    enc = encounter(("nia", {"template": "knight", "side": "a", "position": [0, 0]}),
                    ("orc", {"template": "bandit", "side": "b", "position": [1, 0],
                             "shield": "buckler"}))
    dice = SeededDice(seed)
    enc.execute({"do": "start"}, dice)
    for action, who, n in script:
        other = "orc" if who == "nia" else "nia"
        commands: dict[str, dict[str, Any]] = {
            "attack": {"do": "attack", "actor": enc.state.current, "target": other},
            "defend": {"do": "attack", "actor": enc.state.current, "target": other,
                       "defend": True},
            "next": {"do": "next"},
            "damage": {"do": "damage", "target": who, "amount": n, "type": "slashing"},
            "heal": {"do": "heal", "target": who, "amount": n},
            "stun": {"do": "condition", "target": who, "name": "stunned", "level": 1 + n % 5},
            "bleed": {"do": "condition", "target": who, "name": "bleed", "level": 1 + n % 3},
            "move": {"do": "move", "actor": enc.state.current, "spaces": 1 + n % 4},
            "drain": {"do": "drain_energy", "target": who, "amount": n},
        }
        with contextlib.suppress(RulesError):
            enc.execute(commands[action], dice)
    replayed = Encounter.replay(REALMS, [Entry.from_json(e.to_json()) for e in enc.log])
    assert replayed.state == enc.state


# -- exact odds --------------------------------------------------------------------------------
@pytest.mark.rules("RLM-1", "R-ARM-8")
def test_attack_odds_are_exact_fractions_of_each_critical_level() -> None:
    """RLM-1, R-ARM-8: d20 + 5 against Evasion 12; a Critical Level from a margin of 10."""
    enc = encounter(("ava", {"attack": 5, "weapon": "sword"}), ("bo", {"evasion": 12}))
    odds = REALMS.odds(enc.state, Command("attack", "ava", {"target": "bo"}))
    # hits on 7..20 (14 faces); margin >= 10 on totals >= 22, i.e. naturals 17..20
    rolls = {k: odds[k] for k in ("miss", "hit", "normal_hit", "critical_1")}
    assert rolls == {"miss": Fraction(6, 20), "hit": Fraction(14, 20),
                     "normal_hit": Fraction(10, 20), "critical_1": Fraction(4, 20)}
    assert set(odds) - set(rolls) == {"damage_mean", "down", "dead"}


@pytest.mark.rules("RLM-2", "R-DTH-1")
def test_attack_odds_say_what_the_hit_does_to_the_target() -> None:
    """A dagger (1d4) at d20 + 0 against Evasion 10, critical range 10: a normal hit on
    10..19 (1d4), Critical Level 1 on a 20 (2d4, RLM-2). The target has 2 Health of 2: it
    goes down on 2 or more, dies on 4 or more (R-DTH-1: -2)."""
    enc = encounter(("ava", {"attack": 0, "weapon": "dagger"}),
                    ("bo", {"evasion": 10, "health": 2}))
    odds = REALMS.odds(enc.state, Command("attack", "ava", {"target": "bo"}))
    assert odds["normal_hit"] == Fraction(10, 20) and odds["critical_1"] == Fraction(1, 20)
    assert odds["damage_mean"] == Fraction(10, 20) * Fraction(5, 2) + Fraction(1, 20) * 5
    assert odds["down"] == Fraction(10, 20) * Fraction(3, 4) + Fraction(1, 20)
    assert odds["dead"] == Fraction(10, 20) * Fraction(1, 4) + Fraction(1, 20) * Fraction(13, 16)


@pytest.mark.rules("R-SHD-1", "R-CMP-10")
@pytest.mark.parametrize("case", ["leather", "shield", "companion"])
def test_attack_damage_odds_are_what_decide_does_over_every_roll(case: str) -> None:
    """Every d20 and every damage (and shield) die, forced through ``decide``: the Health
    lost, going down and dying happen exactly as often as the odds say, armour's DR, a
    Defend with a shield (R-SHD-1) and a companion's death at 0 (R-CMP-10) included."""
    target: dict[str, Any] = {"evasion": 12, "health": 5, "armor": "leather"}
    args: dict[str, Any] = {"target": "bo"}
    if case == "shield":
        target["shield"] = "round_shield"
        args["defend"] = True
    if case == "companion":
        target = {"template": "hound", "companion_of": "ava", "health": 5}
    enc = encounter(("ava", {"attack": 3, "weapon": "sword"}), ("bo", target))
    command = Command("attack", "ava", args)
    odds = REALMS.odds(enc.state, command)
    sword = 8  # 1d8 slashing
    shield = 6 if case == "shield" else 1
    lost = down = dead = Fraction(0)
    for d20 in range(1, 21):
        events = REALMS.decide(enc.state, command, ForcedDice([d20] + [1] * 8))
        level = events[0].data["critical_level"]
        if not events[0].data["hit"]:
            continue
        count = 1 + level
        combos: list[list[int]] = [[]]  # every sequence of damage dice
        for _ in range(count):
            combos = [[*c, f] for c in combos for f in range(1, sword + 1)]
        for dice in combos:
            for s in range(1, shield + 1):
                p = Fraction(1, 20) / sword ** count / shield
                events = REALMS.decide(enc.state, command,
                                       ForcedDice([d20, *dice] + ([s] if shield > 1 else [])))
                hurt = next(e for e in events if e.type == "damaged").data
                lost += p * hurt["taken"]
                down += p * (hurt["health"] <= 0)
                dead += p * any(e.type == "died" for e in events)
    assert odds["damage_mean"] == lost and odds["dead"] == dead
    assert odds["down"] == down


@pytest.mark.rules("R-C-HID")
def test_a_search_without_a_target_has_the_odds_of_finding_each_hider() -> None:
    """R-C-HID: Perceive +1 against the scores 16 and 18; allies and the found are left."""
    enc = encounter(("hal", {"template": "bandit", "side": "watch"}),
                    ("ava", {"side": "thieves"}), ("ivy", {"side": "thieves"}),
                    ("pal", {"side": "watch"}))
    for who, score in (("ava", 16), ("ivy", 18), ("pal", 10)):
        enc.execute({"do": "condition", "target": who, "name": "hidden", "score": score},
                    ForcedDice([]))
    sweep = Command("search", "hal", {})
    assert REALMS.odds(enc.state, sweep) == {"found": {"ava": Fraction(6, 20),
                                                       "ivy": Fraction(4, 20)}}
    enc.execute(sweep, ForcedDice([17]))  # 18: both
    assert REALMS.odds(enc.state, sweep) == {"found": {}}


@pytest.mark.rules("R-STB-1", "R-CON-1", "R-MNT-5", "R-MNT-6")
def test_odds_of_stabilizing_overcoming_and_handling_a_mount() -> None:
    """R-STB-1 (Medicine +2 against DS 10), R-CON-1 (Might +4 against 15), R-MNT-5 and
    R-MNT-6 (Animal Handling +1 against 10 + the mount's level 2)."""
    enc = encounter(("nia", {"skills": {"medicine": 2, "animal_handling": 1},
                             "defenses": {"might": 4}}),
                    ("bo", {"health": 10, "health_now": -1}),
                    ("nag", {"template": "war_horse", "willing": False, "saddled": False}))
    assert enc.state.entity("bo").has("dying")  # added at -1 Health: Dying (R-DY-1)
    enc.execute({"do": "condition", "target": "nia", "name": "grappled"}, ForcedDice([]))
    stabilize = REALMS.odds(enc.state, Command("stabilize", "nia", {"target": "bo"}))
    assert stabilize == {"success": Fraction(13, 20), "failure": Fraction(7, 20)}
    assert REALMS.odds(enc.state, Command("stabilize", "nia", {
        "target": "bo", "method": "bandage"}))["success"] == 1
    overcome = REALMS.odds(enc.state, Command("overcome", "nia", {"name": "grappled",
                                                                   "ds": 15}))
    assert overcome["success"] == Fraction(10, 20)
    mount = REALMS.odds(enc.state, Command("mount", "nia", {"target": "nag"}))
    assert mount["success"] == Fraction(10, 20)
    with pytest.raises(IllegalCommand, match="not Dying"):
        REALMS.odds(enc.state, Command("stabilize", "nia", {"target": "nag"}))
    with pytest.raises(IllegalCommand, match="not mounted"):
        REALMS.odds(enc.state, Command("control", "nia", {}))


@pytest.mark.rules("R-ARM-8", "R-C-GRA")
def test_attack_odds_follow_armor_critical_range_and_conditions() -> None:
    """R-ARM-8 (+1 makes +11), R-C-GRA (+2 to be hit)."""
    enc = encounter(("ava", {"attack": 5}), ("bo", {"evasion": 12, "strength": 1,
                                                    "armor": "chain"}))
    enc.execute({"do": "condition", "target": "bo", "name": "grappled"}, ForcedDice([]))
    odds = REALMS.odds(enc.state, Command("attack", "ava", {"target": "bo"}))
    # d20 + 7 >= 12 on 5..20; critical on d20 + 7 >= 23, i.e. 16..20
    assert odds["hit"] == Fraction(16, 20)
    assert odds["critical_1"] == Fraction(5, 20)


@pytest.mark.rules("R-CMP-2", "RLM-5")
def test_skill_odds_with_help_rolled_twice() -> None:
    """R-CMP-2 with RLM-5 roll-twice: 1 - (7/20)^2 to reach 12 with +4."""
    enc = encounter(("nia", {"skills": {"perceive": 4}}),
                    ("rook", {"template": "hound", "companion_of": "nia"}),
                    rulings={"RLM-5": "roll-twice"})
    odds = REALMS.odds(enc.state, Command("skill", "nia", {"skill": "perceive", "ds": 12,
                                                            "helper": "rook"}))
    assert odds["success"] == 1 - Fraction(7, 20) ** 2
    plain = REALMS.odds(enc.state, Command("skill", "nia", {"skill": "perceive", "ds": 12}))
    assert plain == {"success": Fraction(13, 20), "failure": Fraction(7, 20)}


@pytest.mark.rules("AR-16")
def test_skill_odds_beat_ruling_needs_one_more() -> None:
    """AR-16 beat: a roll must exceed the DS."""
    enc = encounter(("nia", {"skills": {"athletics": 0}}), rulings={"AR-16": "beat"})
    odds = REALMS.odds(enc.state, Command("skill", "nia", {"skill": "athletics", "ds": 15}))
    assert odds["success"] == Fraction(5, 20)


@pytest.mark.rules("R-C-BLI")
def test_a_blinded_sight_roll_has_no_chance() -> None:
    """R-C-BLI: sight-based Acuity rolls fail automatically."""
    enc = encounter(("nia", {"skills": {"acuity": 9}}))
    enc.execute({"do": "condition", "target": "nia", "name": "blinded"}, ForcedDice([]))
    odds = REALMS.odds(enc.state, Command("skill", "nia", {"skill": "acuity", "ds": 5,
                                                            "sense": "sight"}))
    assert odds["success"] == 0


# -- gear and stat blocks ------------------------------------------------------------------
@pytest.mark.rules("R-ARM-9")
def test_armor_needs_its_strength_and_lowers_agility() -> None:
    """R-ARM-9: plate needs Strength 2 and costs 1 Agility (so 1 Speed at Agility 2)."""
    with pytest.raises(InvalidCommand, match="plate needs Strength 2, and weak has 1"):
        encounter(("weak", {"strength": 1, "armor": "plate"}))
    enc = encounter(("nia", {"strength": 2, "agility": 2, "armor": "plate"}),
                    ("ola", {"strength": 2, "agility": 2}))
    speeds = [enc.execute({"do": "check", "target": who}, ForcedDice([])).events[0].data["speed"]
              for who in ("nia", "ola")]
    assert speeds == [6, 7]


def test_malformed_stat_blocks_and_commands_say_what_is_accepted() -> None:
    with pytest.raises(InvalidCommand, match="unknown stat-block key"):
        encounter(("x", {"wings": 2}))
    with pytest.raises(InvalidCommand, match="no weapon 'laser'"):
        encounter(("x", {"weapon": "laser"}))
    with pytest.raises(InvalidCommand, match="size 'enormous'"):
        encounter(("x", {"size": "enormous"}))
    with pytest.raises(InvalidCommand, match="no defense 'will'"):
        encounter(("x", {"defenses": {"will": 2}}))
    enc = encounter(("nia", {}))
    with pytest.raises(InvalidCommand, match="'name' must be one of bleed, blinded"):
        enc.execute({"do": "condition", "target": "nia", "name": "sleepy"}, ForcedDice([]))
    with pytest.raises(InvalidCommand, match="blinded takes no level"):
        enc.execute({"do": "condition", "target": "nia", "name": "blinded", "level": 2},
                    ForcedDice([]))


def test_every_template_of_the_file_loads() -> None:
    assert REALMS.templates == templates_in_file(REALMS)
    enc = encounter(*[(name, {"template": name}) for name in REALMS.templates])
    assert creature(enc, "war_horse").size == "large"  # R-SIZ-2 from its length
    assert creature(enc, "ogre").spaces == 4  # R-SIZ-1


@pytest.mark.rules("R-AP-1")
def test_a_refused_command_leaves_the_state_untouched() -> None:
    """R-AP-1: an attack without the AP for it changes nothing."""
    enc = encounter(("nia", {"attack": 3}), ("orc", {"evasion": 30}))
    enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5}}, ForcedDice([]))
    enc.execute({"do": "attack", "actor": "nia", "target": "orc"}, ForcedDice([10]))
    enc.execute({"do": "attack", "actor": "nia", "target": "orc"}, ForcedDice([10]))
    before = enc.state.copy()
    with pytest.raises(IllegalCommand) as info:
        enc.execute({"do": "attack", "actor": "nia", "target": "orc"}, ForcedDice([10]))
    assert info.value.rule == "R-AP-1"
    assert enc.state == before


@pytest.mark.rules("R-DY-2", "AR-6")
def test_dying_at_zero_ap_stays_at_zero_and_the_alternative_sets_one() -> None:
    """R-DY-2 with AR-6: AP = min(current, 1) on entering Dying; set-to-one gives 1."""
    for ruling, expected in (("min-current", 0), ("set-to-one", 1)):
        enc = encounter(("nia", {"health": 10}), ("orc", {}), rulings={"AR-6": ruling})
        enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5}}, ForcedDice([]))
        enc.execute({"do": "condition", "target": "nia", "name": "stunned", "level": 4,
                     "keep": "new"}, ForcedDice([]))
        enc.execute({"do": "override", "path": "nia.ap", "value": 0, "reason": "spent"},
                    ForcedDice([]))
        enc.execute({"do": "override", "path": "economy.nia.ap", "value": 0,
                     "reason": "spent"}, ForcedDice([]))
        enc.execute({"do": "damage", "target": "nia", "amount": 12}, ForcedDice([]))
        assert creature(enc, "nia").ap == expected


# -- rulings and coverage -------------------------------------------------------------------
def test_every_ambiguity_is_a_ruling_citing_the_seed() -> None:
    """Every AR-n of the inventory is in rulings.toml with a citation of seed 003."""
    data = tomllib.loads((PACKAGE / "rulings.toml").read_text(encoding="utf-8"))
    by_id = {r["id"]: r for r in data["ruling"]}
    assert set(AMBIGUITIES) <= set(by_id)
    for rid in AMBIGUITIES:
        assert "003_c09b437c672869ab.txt" in by_id[rid]["citation"]
        assert by_id[rid]["default"] in by_id[rid]["choices"]


def _named_ids() -> set[str]:
    named: set[str] = set()
    for path in (ROOT / "scenarios").rglob("*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if data.get("ruleset") == "realms":
            named |= set(data.get("rules") or [])
    for path in Path(__file__).parent.glob("test_*.py"):
        named |= set(re.findall(r"R-[A-Z]+(?:-[A-Z0-9]+)+", path.read_text(encoding="utf-8")))
    return named


def test_coverage_of_the_inventory() -> None:
    """Every MECH and HOOK id of the realms inventory is named by a scenario or a test;
    the report lists what is not (NARR only)."""
    named = _named_ids()
    missing = sorted(rid for rid, kind in RULES.items() if kind != "NARR" and rid not in named)
    assert missing == []
    narrative = sorted(rid for rid, kind in RULES.items() if kind == "NARR")
    assert narrative == ["R-CMP-12", "R-CMP-13", "R-GEN-1", "R-MOV-2"]


def test_the_inventory_copy_matches_the_shared_file() -> None:
    shared = ROOT.parent / "shared" / "rules" / "inventory.md"
    if not shared.exists():
        pytest.skip("the shared inventory is not next to the repository")
    text = shared.read_text(encoding="utf-8")
    section = text[text.index('## 3. "Realms"'):text.index("## 4. Count")]
    ids = dict(re.findall(r"`(R-[A-Z0-9-]+)` \*\*(MECH|HOOK|NARR)\*\*", section))
    assert ids == RULES
    assert tuple(re.findall(r"\*\*(AR-\d+):", section)) == AMBIGUITIES


@pytest.mark.rules("R-JMP-2", "R-CLB-1", "R-SWM-1")
def test_jump_climb_and_swim_odds() -> None:
    """R-JMP-2: one space over needs DS 15 (Athletics +4: 10/20); R-CLB-1 with a Climb Speed
    needs no roll; R-SWM-1 DS 10 with Acrobatics +3 (14/20)."""
    enc = encounter(("nia", {"strength": 3, "skills": {"athletics": 4, "acrobatics": 3}}),
                    ("gecko", {"climb_speed": 4}))
    jump = REALMS.odds(enc.state, Command("jump", "nia", {"spaces": 4}))
    assert jump == {"success": Fraction(1, 2), "failure": Fraction(1, 2)}
    within = REALMS.odds(enc.state, Command("jump", "nia", {"spaces": 3}))
    assert within["success"] == 1
    climb = REALMS.odds(enc.state, Command("climb", "gecko", {"spaces": 4}))
    assert climb["success"] == 1
    swim = REALMS.odds(enc.state, Command("swim", "nia", {"spaces": 1, "skill": "acrobatics"}))
    assert swim["success"] == Fraction(14, 20)


def test_the_condition_catalogue_names_every_listed_condition_with_valid_numbers() -> None:
    """Every R-C-* condition of the inventory is in conditions.toml, with a text, and every
    modifier is an integer or a level expression (the one schema, core/conditions.py, checks
    the rest: tests/rulesets/test_conditions.py)."""
    catalogue = conditions_catalogue()
    rules = {rid for entry in catalogue.values() for rid in entry.rules}
    listed = {rid for rid in RULES if rid.startswith("R-C-")}
    assert listed <= rules
    for name, entry in catalogue.items():
        assert entry.text, name
        for key, value in entry.modifiers.items():
            assert isinstance(value, int) or value in ("level", "+level", "-level",
                                                       "-half-level"), (name, key)
