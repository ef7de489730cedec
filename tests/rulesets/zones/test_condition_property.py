"""Removing a zones condition and giving it again leaves the encounter as giving it once."""

from __future__ import annotations

import contextlib
import dataclasses

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arbiter.core import Encounter, EncounterState, RulesError
from arbiter.rulesets.zones.model import condition_catalogue

from .helpers import ORDER, WORLD, give, run, world

CONDITIONS = sorted(condition_catalogue())
HOLDERS = sorted(WORLD)


def remove(enc: Encounter, name: str, holder: str) -> None:
    """Take a condition away as the game master does (cover: ``leave_cover``)."""
    if name == "cover":
        run(enc, {"do": "leave_cover", "actor": holder})
    else:
        run(enc, {"do": "uncondition", "target": holder, "name": name})


def setup(before: list[tuple[str, str]], combat: bool) -> Encounter:
    enc = world()
    for name, holder in before:
        with contextlib.suppress(RulesError):  # cover while grappling, say: refused
            give(enc, name, holder)
    if combat:
        run(enc, {"do": "start", "initiative": ORDER})
    return enc


def plain(state: EncounterState) -> EncounterState:
    """The state without its version (one command more was played to reach it)."""
    return dataclasses.replace(state.copy(), version=0)


@pytest.mark.rules("Z-COV-1", "Z-COV-2", "Z-COV-10", "Z-RA-8")
@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(CONDITIONS), holder=st.sampled_from(HOLDERS),
       before=st.lists(st.tuples(st.sampled_from(CONDITIONS), st.sampled_from(HOLDERS)),
                       max_size=4),
       level=st.integers(1, 3), rounds=st.integers(0, 3), combat=st.booleans())
def test_removing_and_giving_a_condition_again_is_giving_it_once(
        name: str, holder: str, before: list[tuple[str, str]], level: int, rounds: int,
        combat: bool) -> None:
    """For any zones condition, holder and conditions already given (out of or in turn-by-turn
    play; cover, whose taking costs an action, out of it): give it once; or give it, remove
    it and give it again. The two encounters are in the same state.

    Rule ids: Z-COV-1, Z-COV-2, Z-COV-10, Z-RA-8
    """
    assume(not (combat and name == "cover"))
    once = setup(before, combat)
    try:
        give(once, name, holder, level, rounds)
    except RulesError:
        assume(False)  # refused (cover while grappling...): nothing to compare
    twice = setup(before, combat)
    give(twice, name, holder, level, rounds)
    remove(twice, name, holder)
    assert not twice.state.entities[holder].has(name)
    give(twice, name, holder, level, rounds)
    assert plain(twice.state) == plain(once.state)


@pytest.mark.rules("Z-RA-8", "Z-COV-2")
def test_a_grapple_removed_from_either_side_and_given_again() -> None:
    """The grapple, given by ``condition`` and taken away from the partner's side, comes back
    whole: both sides, cover gone.

    Rule ids: Z-RA-8, Z-COV-2
    """
    once = setup([("cover", "nia")], False)
    give(once, "grappling", "nia")
    twice = setup([("cover", "nia")], False)
    give(twice, "grappling", "nia")
    remove(twice, "grappling", "rex")
    give(twice, "grappling", "nia")
    assert plain(twice.state) == plain(once.state)
    assert twice.state.entities["rex"].has("grappling")
