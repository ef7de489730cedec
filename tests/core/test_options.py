"""The legal options of a turn agree with the rules: for random states of every installed
ruleset's demo encounter, each target ``options`` offers is accepted by ``decide`` (with
dice of its own), and each it refuses is refused by ``decide`` with the same reason.

The states come from playing the demo: at each step the acting creature takes one of the
legal options (chosen by the example's seed), or ends its turn.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.core import Command, Encounter, RulesError, load_ruleset
from arbiter.core.options import MAX_TARGETS, legal_options, relation
from arbiter.dice import SeededDice
from arbiter.web.demo import demo_rulesets, table_of

RULESETS = demo_rulesets()
STEPS = 12


def _demo(name: str, seed: int) -> Encounter:
    ruleset = load_ruleset(name)
    encounter = Encounter.create(ruleset)
    dice = SeededDice(seed)
    for actor, spec in table_of(name)[1]:
        encounter.execute({"do": "add", "id": actor, **{k: v for k, v in spec.items()
                                                         if k != "hidden"}}, dice)
    encounter.execute({"do": "start"}, dice)
    return encounter


def _agrees(encounter: Encounter, actor: str, seed: int) -> list[Command]:
    """Check every target of every option against ``decide``; the legal commands found."""
    ruleset, state = encounter.ruleset, encounter.state
    legal: list[Command] = []
    for option in legal_options(ruleset, state, actor):
        if option.target_arg is None or option.needs:
            continue
        for target in option.targets:
            command = Command(option.command, actor, {option.target_arg: target.id})
            try:
                ruleset.decide(state, command, SeededDice(seed))
            except RulesError as err:
                assert target.refusal is not None, (
                    f"{option.command} {actor} -> {target.id}: offered, but decide says {err}")
                assert target.refusal.reason in str(err), (target.refusal, str(err))
            else:
                assert target.refusal is None, (
                    f"{option.command} {actor} -> {target.id}: refused "
                    f"({target.refusal.reason}) but decide accepts it")
                legal.append(command)
    return legal


@pytest.mark.parametrize("name", RULESETS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_options_agree_with_decide(name: str, seed: int) -> None:
    encounter = _demo(name, seed)
    pick = random.Random(seed)
    dice = SeededDice(seed)
    for _ in range(STEPS):
        state = encounter.state
        actor = state.current
        if actor is None or encounter.ruleset.outcome(state)[0]:
            break
        legal = _agrees(encounter, actor, seed)
        if legal and pick.random() < 0.7:
            encounter.execute(pick.choice(legal), dice)
        else:
            try:
                encounter.execute({"do": "next", "actor": actor}, dice)
            except RulesError:
                break


@pytest.mark.parametrize("name", RULESETS)
def test_default_target_is_never_an_ally_or_self(name: str) -> None:
    encounter = _demo(name, 7)
    state = encounter.state
    for actor in state.order:
        me = state.entity(actor)
        for option in legal_options(encounter.ruleset, state, actor):
            suggested = option.suggested
            if suggested is not None:
                assert relation(me, state.entity(suggested)) == "enemy"
            assert len(option.targets) <= MAX_TARGETS


def test_a_player_sees_only_their_candidates() -> None:
    encounter = _demo("demo", 3) if "demo" in RULESETS else _demo(RULESETS[0], 3)
    state = encounter.state
    actor = state.order[0]
    only = [actor]
    for option in legal_options(encounter.ruleset, state, actor, candidates=only):
        assert {t.id for t in option.targets} <= set(only)
