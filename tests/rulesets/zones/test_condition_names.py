"""The GM's ``condition`` command in zones: a name ``conditions.toml`` does not list is a typo
unless the GM marks it deliberate with ``custom: true``; each listed one is given, or the
command says how (cover); ``down`` takes a creature out of the fight. (What each condition
changes: ``condition_matrix.toml``, played by tests/rulesets/test_conditions.py.)"""

from __future__ import annotations

import re
from typing import Any

import pytest

from arbiter.core import Command, InvalidCommand, RulesError
from arbiter.rulesets.zones.model import condition_catalogue

from .helpers import ZONES, encounter, give, run, world
from .matrix import SHOT, creature


def test_an_unlisted_condition_is_refused_with_the_listed_names_nearest_first() -> None:
    enc = encounter({"nia": {"side": "crew"}})
    before = enc.state.copy()
    typo = {"do": "condition", "target": "nia", "name": "prne"}
    with pytest.raises(InvalidCommand) as refused:
        run(enc, typo)
    message = str(refused.value)
    assert message.startswith("condition: no condition 'prne' in zones's conditions.toml "
                              "(listed, nearest first: prone, ")
    listed = re.search(r"nearest first: ([^)]*)\)", message)
    assert listed is not None
    assert sorted(listed[1].split(", ")) == sorted(condition_catalogue())
    assert "custom: true" in message
    assert enc.state == before
    with pytest.raises(InvalidCommand, match="no condition 'sleepy'"):
        ZONES.check(enc.state, Command("condition", args={"target": "nia", "name": "sleepy"}))


def test_a_condition_of_the_gm_s_own_is_given_with_custom() -> None:
    enc = encounter({"nia": {"side": "crew"}})
    data = run(enc, {"do": "condition", "target": "nia", "name": "sleepy", "custom": True,
                     "rounds": 2})
    assert data["events"] == ["condition_added"]
    assert enc.state.entities["nia"].has("sleepy")
    # custom changes nothing for a listed name, and custom: false refuses as before
    run(enc, {"do": "condition", "target": "nia", "name": "prone", "custom": True})
    assert enc.state.entities["nia"].has("prone")
    with pytest.raises(InvalidCommand, match="no condition 'dizzy'"):
        run(enc, {"do": "condition", "target": "nia", "name": "dizzy", "custom": False})
    with pytest.raises(InvalidCommand, match="'custom' must be"):
        run(enc, {"do": "condition", "target": "nia", "name": "dizzy", "custom": "yes"})


def test_custom_is_declared_for_the_condition_command() -> None:
    spec = ZONES.catalogue["condition"]
    assert spec.args["custom"].kind == "flag"
    assert "custom" in spec.args["name"].help


@pytest.mark.rules("Z-COV-2", "Z-COV-5", "Z-RA-8")
def test_the_game_masters_condition_command_gives_each_condition_or_says_how() -> None:
    """Every catalogued condition can be given with ``condition``, except cover, which needs
    an armor bonus: it is refused with a pointer to the ``cover`` command. A grapple given
    that way has two sides, like ``grapple``, and ends cover; ``uncondition`` ends both.

    Rule ids: Z-COV-2, Z-COV-5, Z-RA-8
    """
    for name in condition_catalogue():
        enc = world()
        command: dict[str, Any] = {"do": "condition", "target": "nia", "name": name}
        if name == "grappling":
            command["source"] = "rex"
        if name == "cover":
            with pytest.raises(RulesError, match="the cover command"):
                run(enc, command)
            continue
        run(enc, command)
        assert creature(enc, "nia").has(name)
    enc = world()
    give(enc, "cover", "nia")
    with pytest.raises(RulesError, match="names its 'source'"):
        run(enc, {"do": "condition", "target": "nia", "name": "grappling"})
    data = run(enc, {"do": "condition", "target": "nia", "name": "grappling", "source": "rex"})
    assert data["events"] == ["condition_added", "condition_added", "cover_left"]
    assert creature(enc, "rex").grappling() == "nia"
    run(enc, {"do": "uncondition", "target": "rex", "name": "grappling"})
    assert not creature(enc, "nia").has("grappling") and not creature(enc, "rex").has(
        "grappling")


@pytest.mark.rules("ZR-2", "Z-RA-3")
def test_a_down_condition_takes_a_creature_out_of_the_fight() -> None:
    """A creature the GM marks ``down`` is down whatever its health (ruling ZR-2): it cannot
    act or be attacked, and the encounter ends when only one side stands.

    Rule ids: Z-RA-3
    """
    enc = world()
    give(enc, "down", "bob")
    give(enc, "down", "cal")
    assert creature(enc, "bob").down and creature(enc, "bob").health == 100
    assert "winner" not in enc.state.extra
    data = run(enc, {"do": "condition", "target": "rex", "name": "down"})
    assert data["events"] == ["condition_added", "side_won"]
    assert enc.state.extra["winner"] == "crew"
    with pytest.raises(RulesError, match="already down"):
        run(enc, {"do": "attack", "actor": "nia", **SHOT}, [])
    run(enc, {"do": "heal", "target": "bob", "amount": 0})
    assert not creature(enc, "bob").down
