"""The GM's ``condition`` command in zones: a name ``conditions.toml`` does not list is a typo
unless the GM marks it deliberate with ``custom: true``."""

from __future__ import annotations

import re

import pytest

from arbiter.core import Command, InvalidCommand
from arbiter.rulesets.zones.model import condition_catalogue

from .helpers import ZONES, encounter, run


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
