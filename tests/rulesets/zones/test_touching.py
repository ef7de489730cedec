"""Touching is kept true wherever the state changes, not only checked as a touch is made
(Z-COV-3, Z-AOE-3, ruling ZR-10): every way cover ends or begins, every change of place.

Rule ids: Z-COV-3, Z-AOE-3, ZR-10
"""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.core import Encounter, IllegalCommand
from arbiter.dice import ForcedDice

from .helpers import ZONES, encounter, run


def gang(rulings: dict[str, str] | None = None) -> Encounter:
    return encounter({
        "nia": {"template": "soldier", "side": "crew", "group": "crew",
                "ammo": {"grenade": 9}},
        "bob": {"template": "bandit", "side": "gang", "group": "gang", "health": 900},
        "dan": {"template": "bandit", "side": "gang", "group": "gang", "health": 900},
        "rex": {"template": "soldier", "side": "crew", "group": "rex", "engagement": "gang"},
    }, rulings)


def touching(enc: Encounter, who: str) -> list[str]:
    touched: list[str] = enc.state.entities[who].touching  # type: ignore[attr-defined]
    return touched


def both_in_cover(enc: Encounter) -> None:
    """bob and dan in cover, dan touching bob (allowed: both in cover)."""
    run(enc, {"do": "cover", "actor": "bob", "environment": "light"})
    run(enc, {"do": "cover", "actor": "dan", "environment": "light"})
    run(enc, {"do": "touch", "actor": "dan", "target": "bob"})
    assert touching(enc, "dan") == ["bob"]


@pytest.mark.rules("Z-COV-3")
@pytest.mark.parametrize("command, dice, first", [
    ({"do": "leave_cover", "actor": "bob"}, [], "cover_left"),
    ({"do": "roll", "actor": "bob", "stat": "SPD"}, [3], "rolled"),
    ({"do": "grapple", "actor": "bob", "target": "rex"}, [], "condition_added"),
    ({"do": "uncondition", "target": "bob", "name": "cover"}, [], "condition_removed"),
    ({"do": "displace", "target": "bob", "distance": "short"}, [], "displaced"),
])
def test_the_touched_ally_leaving_cover_by_any_way_ends_the_touch(
        command: dict[str, Any], dice: list[int], first: str) -> None:
    """Z-COV-3: dan, in cover, may touch bob only while bob is in cover too: every way bob's
    cover ends also ends dan's touch, with an event that says why."""
    enc = gang()
    both_in_cover(enc)
    data = run(enc, command, dice)
    assert data["events"][0] == first and data["events"][-1] == "touch_ended"
    assert (data["actor"], data["target"]) == ("dan", "bob")  # the last event's, merged last
    assert touching(enc, "dan") == []
    assert enc.state.entities["bob"].cover() is None  # type: ignore[attr-defined]


def test_the_ended_touch_is_in_the_log_and_replays() -> None:
    """The touch's end is an event of the log: replay gives the same state, and the GM's and
    the player's sentence say it."""
    enc = gang()
    run(enc, {"do": "touch", "actor": "dan", "target": "bob"})
    entry = enc.execute({"do": "cover", "actor": "dan", "environment": "light"}, ForcedDice([]))
    ended = entry.events[-1]
    assert ended.type == "touch_ended" and ended.data["actor"] == "dan"
    assert touching(Encounter.replay(ZONES, enc.log), "dan") == []
    assert touching(enc, "dan") == []
    sentence = "Dan no longer touches bob (dan is in cover and bob, an ally, is not (Z-COV-3))."
    names = {"dan": "dan", "bob": "bob"}
    assert ZONES.describe("touch_ended", ended.data, names) == sentence
    assert ZONES.describe("touch_ended", ended.data, names, gm=False) == sentence


@pytest.mark.rules("Z-AOE-3")
def test_a_grenade_after_the_touch_ended_rolls_for_the_former_toucher() -> None:
    """Z-AOE-3 reads only touches that still hold: dan took cover (his touch of bob ended),
    so a burst at bob includes dan on the normal 80% roll, here 81: out."""
    enc = gang()
    run(enc, {"do": "touch", "actor": "dan", "target": "bob"})
    run(enc, {"do": "cover", "actor": "dan", "environment": "light"})
    data = run(enc, {"do": "attack", "actor": "nia", "target": "bob", "weapon": "grenade"},
               [5, 15, 81, 90, 7])
    assert data["inclusion"]["dan"] == {"chance": 80, "roll": 81, "included": False,
                                        "why": "80% (Z-AOE-6)"}
    assert "dan" not in data["effects"]


@pytest.mark.rules("ZR-10")
def test_zr10_engaged_refuses_a_touch_from_afar_and_ends_one_apart() -> None:
    """ZR-10 engaged (default): a touch needs one engagement; moving apart ends it, moving
    within the engagement keeps it."""
    enc = gang()
    with pytest.raises(IllegalCommand, match="not in bob's engagement") as err:
        enc.decide({"do": "touch", "actor": "nia", "target": "bob"}, ForcedDice([]))
    assert err.value.rule == "ZR-10"
    run(enc, {"do": "touch", "actor": "rex", "target": "bob"})
    assert run(enc, {"do": "move", "actor": "bob", "group": "gang"})["events"] == ["moved"]
    assert touching(enc, "rex") == ["bob"]
    data = run(enc, {"do": "disengage", "group": "rex"})
    assert data["events"] == ["engaged", "touch_ended"]
    assert data["why"] == "rex and bob are no longer in one engagement (ZR-10)"
    assert touching(enc, "rex") == []


@pytest.mark.rules("ZR-10", "Z-COV-3")
def test_zr10_gm_keeps_a_touch_at_any_distance_but_cover_still_ends_it() -> None:
    """ZR-10 gm: the GM's word on distance (a touch from afar, kept after moving); Z-COV-3
    holds under either choice."""
    enc = gang({"ZR-10": "gm"})
    run(enc, {"do": "touch", "actor": "nia", "target": "bob"})
    run(enc, {"do": "touch", "actor": "dan", "target": "bob"})
    assert run(enc, {"do": "move", "actor": "nia", "zone": "far"})["events"] == ["moved"]
    assert touching(enc, "nia") == ["bob"]
    data = run(enc, {"do": "cover", "actor": "dan", "environment": "light"})
    assert data["events"] == ["cover_taken", "touch_ended"]
    assert touching(enc, "dan") == [] and touching(enc, "nia") == ["bob"]
    data = run(enc, {"do": "ruling", "id": "ZR-10", "value": "engaged"})
    assert data["events"] == ["ruling_set", "touch_ended"] and data["actor"] == "nia"
    assert touching(enc, "nia") == []
