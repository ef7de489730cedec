"""A whole fight: replay gives the identical state; turns skip the fallen; the fight ends
(P-ORD-2, P-ORD-4, POL-1)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.core import Encounter, Entry, RulesError, load_ruleset
from arbiter.dice import ForcedDice, SeededDice
from arbiter.rulesets.polemos.model import Creature

from ...support import Played

POLEMOS = load_ruleset("polemos")
ROOT = Path(__file__).resolve().parents[3]
FIGHT = ROOT / "scenarios" / "encounters" / "polemos-street-fight.yaml"


@pytest.mark.rules("P-ORD-3", "P-ORD-4")
def test_the_encounter_scenario_plays_to_the_end_and_replays_identically(
        played: Played) -> None:
    """P-ORD-3, P-ORD-4: the seeded fight ends with one side standing; its log replays."""
    result = played(FIGHT)
    assert result.passed, result.failures
    enc = result.encounter
    assert enc is not None
    assert not enc.state.in_combat
    assert enc.state.extra["winner"] == "gang"
    replayed = Encounter.replay(POLEMOS, [Entry.from_json(e.to_json()) for e in enc.log])
    assert replayed.state == enc.state


@pytest.mark.rules("POL-1", "P-ORD-4")
def test_turns_skip_fallen_creatures_and_the_fight_ends_with_one_side() -> None:
    """POL-1: a vital area at 0 vitality downs a creature; P-ORD-4 skips it."""
    enc = Encounter.create(POLEMOS)
    none = ForcedDice([])
    enc.execute({"do": "add", "id": "nia", "side": "a"}, none)
    enc.execute({"do": "add", "id": "orc", "side": "b"}, none)
    enc.execute({"do": "add", "id": "kim", "side": "b"}, none)
    enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 8, "kim": 5}}, none)
    enc.execute({"do": "damage", "target": "orc", "amount": 9, "area": "neck"}, none)
    orc = enc.state.entity("orc")
    assert isinstance(orc, Creature) and orc.down and orc.has("unconscious")
    assert orc.areas["neck"].vitality == 0
    enc.execute({"do": "next"}, none)
    assert enc.state.current == "kim"
    entry = enc.execute({"do": "damage", "target": "kim", "amount": 9, "area": "head"}, none)
    assert [e.type for e in entry.events][-2:] == ["side_won", "combat_ended"]
    assert enc.state.extra["winner"] == "a" and not enc.state.in_combat


@pytest.mark.rules("POL-1")
def test_a_down_creature_cannot_act() -> None:
    """POL-1: a downed creature's commands are refused."""
    enc = Encounter.create(POLEMOS)
    none = ForcedDice([])
    enc.execute({"do": "add", "id": "nia"}, none)
    enc.execute({"do": "damage", "target": "nia", "amount": 9, "area": "head"}, none)
    try:
        enc.execute({"do": "act", "actor": "nia", "ability": "crawl"}, none)
    except RulesError as err:
        assert "is down" in str(err)
    else:
        raise AssertionError("a down creature acted")


@pytest.mark.rules("POL-1")
def test_the_gm_ruling_never_downs_automatically() -> None:
    """POL-1 alternative: only the GM decides when a creature is out."""
    enc = Encounter.create(POLEMOS, {"POL-1": "gm"})
    enc.execute({"do": "add", "id": "nia"}, ForcedDice([]))
    enc.execute({"do": "damage", "target": "nia", "amount": 9, "area": "head"},
                ForcedDice([]))
    nia = enc.state.entity("nia")
    assert isinstance(nia, Creature) and not nia.down


ACTIONS = st.sampled_from(["attack", "next", "damage", "bleed", "wound", "critical",
                           "condition", "cover", "bandage", "stress", "declare", "resolve"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(ACTIONS, st.sampled_from(["nia", "orc"]), st.integers(0, 9)),
                max_size=30), st.integers(0, 1000))
def test_replaying_any_log_gives_the_identical_state(
    script: list[tuple[str, str, int]], seed: int
) -> None:
    """Rules are pure: replaying the log rebuilds the same state, whatever happened."""
    enc = Encounter.create(POLEMOS)
    dice = SeededDice(seed)
    enc.execute({"do": "add", "id": "nia", "template": "soldier", "side": "a"}, dice)
    enc.execute({"do": "add", "id": "orc", "template": "ganger", "side": "b"}, dice)
    enc.execute({"do": "start"}, dice)
    for action, who, n in script:
        other = "orc" if who == "nia" else "nia"
        current = enc.state.current or who
        foe = "orc" if current == "nia" else "nia"
        commands: dict[str, dict[str, Any]] = {
            "attack": {"do": "attack", "actor": current, "target": foe},
            "next": {"do": "next"},
            "damage": {"do": "damage", "target": who, "amount": n, "source": other},
            "bleed": {"do": "bleed", "target": who, "area": "left_arm", "source": other},
            "wound": {"do": "wound", "target": who, "name": "deep cut", "area": "right_leg"},
            "critical": {"do": "critical", "actor": who, "effect": "fatigue-wounds"},
            "condition": {"do": "condition", "target": who, "name": "burning", "level": 1,
                          "damage": n % 3, "source": other, "rounds": n % 4},
            "cover": {"do": "take_cover", "actor": current, "concealment": "half",
                      "areas": ["left_leg"]},
            "bandage": {"do": "bandage", "target": who, "area": "left_arm", "rounds": n % 3},
            "stress": {"do": "stress", "target": who, "amount": n},
            "declare": {"do": "declare", "actor": who,
                        "action": {"do": "act", "ability": f"a{n}", "kind": "free"}},
            "resolve": {"do": "resolve"},
        }
        with contextlib.suppress(RulesError):
            enc.execute(commands[action], dice)
    replayed = Encounter.replay(POLEMOS, [Entry.from_json(e.to_json()) for e in enc.log])
    assert replayed.state == enc.state


FREE_FORM = st.sampled_from(["wait", "tick", "rest", "relax", "wound", "unknown", "reveal",
                             "afflict", "cure", "heal", "uncondition", "stress", "indulge",
                             "enter", "bleed", "bandage", "caused"])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(FREE_FORM, st.integers(0, 9)), max_size=25), st.integers(0, 1000))
def test_replaying_free_form_play_gives_the_identical_state(
    script: list[tuple[str, int]], seed: int
) -> None:
    """Time, wounds, afflictions, bleeding and rest replay to the same state."""
    enc = Encounter.create(POLEMOS)
    dice = SeededDice(seed)
    enc.execute({"do": "add", "id": "nia", "template": "medic", "tags": ["cursed"]}, dice)
    enc.execute({"do": "field", "location": "cellar", "conditions": ["low light"]}, dice)
    for action, n in script:
        commands: dict[str, dict[str, Any]] = {
            "wait": {"do": "wait", "amount": n, "unit": "day"},
            "tick": {"do": "tick", "rounds": n + 1},
            "rest": {"do": "rest", "target": "nia", "amount": n * 100},
            "relax": {"do": "rest", "target": "nia", "activity": "relax", "amount": n,
                      "unit": "hour"},
            "wound": {"do": "wound", "target": "nia", "name": "cut", "area": "left_arm",
                      "max_days": n},
            "unknown": {"do": "wound", "target": "nia", "name": "unknown", "known": False},
            "reveal": {"do": "reveal", "target": "nia", "wound": f"w{n}"},
            "afflict": {"do": "afflict", "target": "nia", "name": "hex", "cause": "cursed",
                        "wound": True},
            "cure": {"do": "cure", "target": "nia", "affliction": f"a{n}"},
            "heal": {"do": "heal", "target": "nia", "wound": f"w{n}"},
            "uncondition": {"do": "uncondition", "target": "nia", "name": "limping",
                            "rounds": n},
            "stress": {"do": "stress", "target": "nia", "amount": n, "discipline": 8},
            "indulge": {"do": "indulge", "target": "nia", "amount": n},
            "enter": {"do": "enter", "actor": "nia", "location": "cellar" if n % 2 else None},
            "bleed": {"do": "bleed", "target": "nia", "area": "right_leg"},
            "bandage": {"do": "bandage", "target": "nia", "area": "right_leg", "rounds": n},
            "caused": {"do": "wound", "target": "nia", "name": "fracture", "area": "left_leg",
                       "cause": "cursed"},
        }
        with contextlib.suppress(RulesError):
            enc.execute(commands[action], dice)
    replayed = Encounter.replay(POLEMOS, [Entry.from_json(e.to_json()) for e in enc.log])
    assert replayed.state == enc.state
