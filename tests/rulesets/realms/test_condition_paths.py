"""One path for every condition that comes to a creature (``RealmsRuleset.gain``): a
condition removed and given again leaves the same state as given once (R-CON-4: one
instance, levels never combine; R-CON-5; R-C-STU; R-C-DYI; R-DY-1; R-MNT-3; R-FLY-2), and
the conditions the rules give (Dying at 0 Health, a fall, an unseating) play as the GM's
``condition`` does."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.core import Encounter, EncounterState, RulesError, load_ruleset
from arbiter.dice import ForcedDice
from arbiter.rulesets.realms.model import RealmsCreature, conditions_catalogue

REALMS = load_ruleset("realms")
NAMES = sorted(conditions_catalogue())


class SameDice:
    """Every die shows the same face (at most its number of faces): a roll made again
    comes out as the first one did."""

    def __init__(self, face: int) -> None:
        self.face = face

    def roll(self, faces: int) -> int:
        return min(self.face, faces)


def play(enc: Encounter, command: dict[str, Any], face: int) -> bool:
    try:
        enc.execute(command, SameDice(face))
    except RulesError:
        return False
    return True


def comparable(state: EncounterState) -> EncounterState:
    """The state without its version (the number of entries that led to it)."""
    return replace(state, version=0)


@st.composite
def scenes(draw: st.DrawFn, name: str) -> dict[str, Any]:
    leveled = bool(conditions_catalogue()[name].leveled)
    others = draw(st.lists(st.sampled_from([n for n in NAMES if n != name]), max_size=3,
                           unique=True))
    return {
        "name": name,
        "level": draw(st.integers(1, 12)) if leveled else 1,
        "source": draw(st.sampled_from([None, "foe", "me"])),
        "rounds": draw(st.integers(0, 3)),
        "potency": draw(st.integers(0, 3)),
        "others": [(n, draw(st.integers(1, 4)), draw(st.sampled_from([None, "foe"])))
                   for n in others],
        "combat": draw(st.booleans()),
        "turn": draw(st.sampled_from(["me", "foe", "rider"])),
        "spent": draw(st.integers(0, 4)),
        "damage": draw(st.sampled_from([0, 5, 39, 45])),
        "ridden": draw(st.booleans()),
        "flying": draw(st.sampled_from([0, 0, 3])),
        "face": draw(st.integers(1, 20)),
    }


def build(scene: dict[str, Any]) -> Encounter | None:
    """``me`` (a war horse, perhaps ridden, perhaps flying) with other conditions, hurt,
    in or out of turn-by-turn play, AP spent; None when the scene cannot be set up."""
    face = scene["face"]
    enc = Encounter.create(REALMS)
    me: dict[str, Any] = {"template": "war_horse", "side": "a", "position": [0, 0]}
    if scene["flying"]:
        me.update(flying=True, altitude=scene["flying"])
    enc.execute({"do": "add", "id": "me", **me}, ForcedDice([]))
    enc.execute({"do": "add", "id": "foe", "health": 30, "side": "b", "position": [5, 5]},
                ForcedDice([]))
    enc.execute({"do": "add", "id": "rider", "template": "knight", "side": "a",
                 "position": [3, 3]}, ForcedDice([]))
    if scene["ridden"]:
        enc.execute({"do": "mount", "actor": "rider", "target": "me"}, ForcedDice([]))
    if scene["combat"]:
        enc.execute({"do": "start", "initiative": {"me": 20, "foe": 10, "rider": 5}},
                    ForcedDice([]))
        for _ in range(["me", "foe", "rider"].index(scene["turn"])):
            if not play(enc, {"do": "next"}, face):
                return None
        if enc.state.current == "me" and scene["spent"]:
            assert play(enc, {"do": "override", "path": "economy.me.ap",
                              "value": max(4 - scene["spent"], 0), "reason": "spent"}, face)
    for other, level, source in scene["others"]:
        args: dict[str, Any] = {"target": "me", "name": other}
        if conditions_catalogue()[other].leveled:
            args["level"] = level
        if source:
            args["source"] = source
        play(enc, {"do": "condition", **args}, face)
    if scene["damage"]:
        play(enc, {"do": "damage", "target": "me", "amount": scene["damage"]}, face)
    return enc


def condition(scene: dict[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {"do": "condition", "target": "me", "name": scene["name"],
                            "level": scene["level"], "rounds": scene["rounds"]}
    if scene["source"]:
        args["source"] = scene["source"]
    if scene["potency"]:
        args["potency"] = scene["potency"]
    return args


@pytest.mark.rules("R-CON-4", "R-CON-5")
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_condition_removed_and_given_again_is_as_given_once(name: str,
                                                              data: st.DataObject) -> None:
    """R-CON-4, R-CON-5 and every condition's side effects (Stunned's AP, Dying's AP and
    prone, a mount's riders, a flyer's fall): give the condition once; or give it, remove
    it and give it again; the states are the same."""
    scene = data.draw(scenes(name))
    once = build(scene)
    again = build(scene)
    if once is None or again is None:
        return
    face = scene["face"]
    had = once.state.entity("me").has(name)
    assert play(once, condition(scene), face) == play(again, condition(scene), face)
    if had or not again.state.entity("me").has(name):
        return  # it did not come to the creature (a flyer falls instead of lying prone)
    assert play(again, {"do": "uncondition", "target": "me", "name": name}, face)
    assert play(again, condition(scene), face)
    assert comparable(again.state) == comparable(once.state)


@pytest.mark.rules("R-DY-1", "R-DY-2", "R-C-DYI", "AR-6", "R-MNT-3")
def test_dying_at_zero_health_is_the_gms_dying() -> None:
    """R-DY-1, R-DY-2, R-C-DYI: falling to 0 Health and the GM's `condition dying` give the
    same Dying: 1 AP (AR-6), prone, and a mount's rider rolls to stay on (R-MNT-3)."""
    states = []
    for how in ("damage", "condition"):
        enc = Encounter.create(REALMS)
        enc.execute({"do": "add", "id": "horse", "template": "war_horse", "health": 10},
                    ForcedDice([]))
        enc.execute({"do": "add", "id": "nia", "template": "knight"}, ForcedDice([]))
        enc.execute({"do": "mount", "actor": "nia", "target": "horse"}, ForcedDice([]))
        enc.execute({"do": "start", "initiative": {"horse": 20, "nia": 10}}, ForcedDice([]))
        if how == "damage":
            enc.execute({"do": "damage", "target": "horse", "amount": 10}, ForcedDice([5]))
        else:
            enc.execute({"do": "condition", "target": "horse", "name": "dying",
                         "source": "horse"}, ForcedDice([5]))
        horse = enc.state.entity("horse")
        nia = enc.state.entity("nia")
        assert isinstance(horse, RealmsCreature) and isinstance(nia, RealmsCreature)
        states.append((horse.ap, [c.name for c in horse.conditions], nia.mounted_on,
                       [c.name for c in nia.conditions]))
    assert states[0] == states[1] == (1, ["prone", "dying"], None, ["prone"])
