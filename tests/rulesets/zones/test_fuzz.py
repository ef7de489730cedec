"""Whatever the arguments, a command is decided or refused with a RulesError: never a
traceback, and a refused command changes nothing."""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.core import Encounter, Entry, RulesError
from arbiter.dice import SeededDice

from .helpers import ZONES, encounter

NAMES = ["attack", "zaoe", "melee", "roll", "cover", "leave_cover", "move", "displace", "zone",
         "engage", "grapple", "release", "touch", "flank", "prioritize", "damage", "heal",
         "odds", "next", "add"]
KEYS = ["target", "weapon", "range", "unaimed", "blind", "engagement", "full_auto", "targets",
        "aoe", "group", "spread", "caution", "one_handed", "critical", "defend_with", "stat",
        "zone", "environment", "bonus", "improved", "angles", "type", "groups", "amount",
        "drive", "of", "id", "distance", "hindrance", "health", "cover", "with", "DEX"]
VALUES = st.one_of(
    st.sampled_from(["nia", "bob", "ugo", "grenade", "assault-rifle", "laser-rifle", "bomb",
                     "short", "medium", "long", "burst", "spray", "gang", "crew", "here",
                     "DEX", "SPD", "light", "x", ""]),
    st.integers(-5, 200), st.booleans(), st.none(),
    st.lists(st.sampled_from(["bob", "gang", "crew", 3]), max_size=3),
    st.dictionaries(st.sampled_from(["crew", "gang", "do"]),
                    st.one_of(st.integers(0, 360), st.just("attack"), st.just("x")),
                    max_size=2),
)
COMMANDS = st.tuples(st.sampled_from(NAMES), st.sampled_from(["nia", "bob", "ugo", None]),
                     st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5))


@settings(max_examples=150, deadline=None)
@given(st.lists(COMMANDS, max_size=12), st.integers(0, 1000))
def test_any_command_is_decided_or_refused(script: list[tuple[str, str | None,
                                                              dict[str, Any]]],
                                           seed: int) -> None:
    enc = encounter({
        "nia": {"template": "soldier", "side": "crew", "group": "crew"},
        "bob": {"template": "bandit", "side": "gang", "group": "gang"},
        "ugo": {"template": "ogre", "side": "gang", "group": "gang", "engagement": "crew"},
    })
    dice = SeededDice(seed)
    if seed % 2:
        enc.execute({"do": "start"}, dice)
    for name, actor, args in script:
        command: dict[str, Any] = {"do": name, **args}
        if actor is not None:
            command["actor"] = actor
        before = enc.state.copy()
        try:
            enc.execute(command, dice)
        except RulesError:
            assert enc.state == before
    replayed = Encounter.replay(ZONES, [Entry.from_json(e.to_json()) for e in enc.log])
    assert replayed.state == enc.state
    with contextlib.suppress(RulesError):
        ZONES.odds(enc.state, enc.log[-1].command)
