"""The GM's ``condition`` command in Polemos: a name ``conditions.toml`` does not list is a
typo unless the GM marks it deliberate with ``custom: true``."""

from __future__ import annotations

import re

import pytest

from arbiter.core import Command, Encounter, InvalidCommand, load_ruleset
from arbiter.dice import ForcedDice
from arbiter.rulesets.polemos.model import condition_catalogue

POLEMOS = load_ruleset("polemos")
NONE = ForcedDice([])


def fresh() -> Encounter:
    enc = Encounter.create(POLEMOS)
    enc.execute({"do": "add", "id": "nia"}, NONE)
    return enc


def test_an_unlisted_condition_is_refused_with_the_listed_names_nearest_first() -> None:
    enc = fresh()
    before = enc.state.copy()
    with pytest.raises(InvalidCommand) as refused:
        enc.execute({"do": "condition", "target": "nia", "name": "dazed"}, NONE)
    message = str(refused.value)
    assert message.startswith("condition: no condition 'dazed' in polemos's conditions.toml "
                              "(listed, nearest first: daze, ")
    listed = re.search(r"nearest first: ([^)]*)\)", message)
    assert listed is not None
    assert sorted(listed[1].split(", ")) == sorted(condition_catalogue())
    assert "custom: true" in message
    assert enc.state == before
    with pytest.raises(InvalidCommand, match="no condition 'sleepy'"):
        POLEMOS.check(enc.state, Command("condition", args={"target": "nia",
                                                            "name": "sleepy"}))


@pytest.mark.rules("P-CON-11")
def test_a_condition_of_the_gm_s_own_is_given_with_custom() -> None:
    """P-CON-11: one of the GM's own conditions may still name what it excludes."""
    enc = fresh()
    enc.execute({"do": "condition", "target": "nia", "name": "shaken"}, NONE)
    enc.execute({"do": "condition", "target": "nia", "name": "calm", "custom": True,
                 "excludes": ["shaken"]}, NONE)
    nia = enc.state.entities["nia"]
    assert [c.name for c in nia.conditions] == ["calm"]
    calm = nia.condition("calm")
    assert calm is not None and calm.tags == ()  # not in the catalogue: no tags of its own
    with pytest.raises(InvalidCommand, match="'custom' must be"):
        enc.execute({"do": "condition", "target": "nia", "name": "calm", "custom": 1}, NONE)


def test_custom_is_declared_for_the_condition_command() -> None:
    spec = POLEMOS.catalogue["condition"]
    assert spec.args["custom"].kind == "flag"
    assert "custom" in spec.args["name"].help
