"""The tactics of the three seed rulesets: their 4-against-4 encounters play to the end under
the rulesets' own policies, deterministically, and the rules never refuse what they choose."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.core import Command, load_ruleset
from arbiter.dice import SeededDice
from arbiter.scenario import run_scenario
from arbiter.scenario.loader import load_yaml
from arbiter.sim import (
    Policy,
    Simulator,
    Tally,
    get_policy,
    load_encounter,
    policy_names,
    prepare,
    simulate,
)
from arbiter.sim.hooks import health_of, outcomes_for
from arbiter.sim.policy import default_policy_name
from arbiter.sim.stats import DRAW, UNFINISHED

from ..support import installed, seeds
from .conftest import ROOT

ENCOUNTERS = ROOT / "scenarios" / "encounters"
RUNS = {"realms": 12, "zones": 4, "polemos": 3}
"""Runs to play of a ruleset's 4v4 in the tests, where more than two (its speed allows)."""
FOUR = {name: (default_policy_name(name), RUNS.get(name, 2)) for name in installed()
        if (ENCOUNTERS / f"{name}-4v4.yaml").exists()}
"""Each installed ruleset that ships a 4v4 encounter: (its default policy, as its tactics
module declares it, runs to play in the tests)."""
POLICIES = {"realms": "skirmish", "zones": "cover", "polemos": "aim"}
"""The seeds' default policies by name, as their tactics modules declare them today."""


def four_v_four(ruleset: str) -> Path:
    return ENCOUNTERS / f"{ruleset}-4v4.yaml"


@pytest.mark.parametrize("ruleset", sorted(FOUR))
def test_the_4v4_has_four_creatures_a_side_playing_the_rulesets_policy(ruleset: str) -> None:
    job = prepare(load_encounter(four_v_four(ruleset)))
    sides = [side for _, side in job.sides]
    assert sorted(sides.count(s) for s in set(sides)) == [4, 4]
    policy, _ = FOUR[ruleset]
    assert policy == POLICIES.get(ruleset, policy)
    assert {name for _, name in job.policies} == {policy}


@pytest.mark.parametrize("ruleset", sorted(FOUR))
@pytest.mark.parametrize("seed", [1, 2])
def test_the_4v4_plays_to_the_end_without_refusals(ruleset: str, seed: int) -> None:
    _, runs = FOUR[ruleset]
    job = prepare(load_encounter(four_v_four(ruleset)), seed=seed)
    tally = simulate(job, runs, workers=1).tally
    assert tally.runs == runs
    assert tally.outcomes[UNFINISHED] == 0
    assert tally.refused == 0, tally.first_refusal
    winners = {o for o in tally.outcomes if o not in (UNFINISHED, DRAW)}
    assert winners <= {side for _, side in job.sides}
    assert sum(tally.dealt.values()) > 0


@pytest.mark.parametrize("ruleset", sorted(set(FOUR) & set(seeds())))
def test_a_run_ends_with_one_side_standing_by_the_rulesets_own_word(ruleset: str) -> None:
    """The ruleset's ``extra.winner`` names the side the simulator's outcome names (each
    ruleset of the one shape; the demo never says, and the simulator's outcomes hooks judge
    its fights: docs/extending.md)."""
    sim = Simulator(prepare(load_encounter(four_v_four(ruleset))))
    defeated = outcomes_for(ruleset).defeated
    for index in range(2):
        tally = Tally()
        state = sim.play(index, tally)
        standing = {e.side for e in state.entities.values()
                    if e.kind == "creature" and not defeated(state, e)}
        assert len(standing) == 1
        winner = next(iter(standing))
        assert winner is not None and state.extra.get("winner") == winner
        assert tally.outcomes[winner] == 1


def test_realms_4v4_same_numbers_with_one_and_two_workers() -> None:
    job = prepare(load_encounter(four_v_four("realms")))
    one = simulate(job, 60, workers=1)
    two = simulate(job, 60, workers=2, batch=9)
    assert one.tally == two.tally
    assert one.summary()["win_probability"] == two.summary()["win_probability"]


@pytest.mark.parametrize("path", sorted(ENCOUNTERS.glob("*-*.yaml")),
                         ids=lambda p: p.name)
def test_the_rulesets_policies_get_no_refusals_on_the_shipped_encounters(path: Path) -> None:
    """Each policy only offers commands its ruleset accepts (the simulator counts every
    refusal; none is swallowed)."""
    encounter = load_encounter(path)
    if encounter.ruleset not in FOUR:
        pytest.skip("not one of the three seed rulesets")
    job = prepare(encounter, max_rounds=30)
    tally = simulate(job, 3, workers=1).tally
    assert tally.refused == 0, tally.first_refusal


@pytest.mark.parametrize("ruleset", sorted(FOUR))
def test_the_4v4_passes_as_a_scenario(ruleset: str) -> None:
    path = four_v_four(ruleset)
    data = load_yaml(path.read_text(encoding="utf-8"), str(path))
    result = run_scenario(data, str(path))
    assert result.passed, result.failures


def test_realms_stabilizes_a_dying_ally_before_attacking() -> None:
    sim = Simulator(prepare(load_encounter(four_v_four("realms"))))
    ruleset = sim.ruleset
    state = sim.base.copy()
    state = ruleset.lookahead(state, ruleset.decide(
        state, Command("start", None, {"initiative": {"ada": 30}}), _dice()))
    for event in ruleset.decide(state, Command("override", None, {
            "path": "sel.health", "value": -3, "reason": "test"}), _dice()):
        ruleset.evolve(state, event)
    for event in ruleset.decide(state, Command("condition", None, {
            "target": "sel", "name": "dying"}), _dice()):
        ruleset.evolve(state, event)
    assert state.current == "ada"
    chosen = get_policy("realms").choose(state, state.entities["ada"], ruleset)
    first = next(iter(chosen))
    assert (first.name, first.args) == ("stabilize", {"target": "sel"})


def test_zones_shooters_take_cover_then_shoot() -> None:
    sim = Simulator(prepare(load_encounter(four_v_four("zones"))))
    ruleset = sim.ruleset
    state = sim.base.copy()
    state = ruleset.lookahead(state, ruleset.decide(
        state, Command("start", None, {"initiative": {"kim": 40}}), _dice()))
    assert state.current == "kim"
    chosen = list(get_policy("zones").choose(state, state.entities["kim"], ruleset))
    assert [c.name for c in chosen] == ["cover", "attack"]
    assert chosen[1].args["weapon"] == "rifle"


def test_polemos_walks_into_reach_before_a_melee_attack() -> None:
    sim = Simulator(prepare(load_encounter(four_v_four("polemos"))))
    ruleset = sim.ruleset
    state = sim.base.copy()
    state = ruleset.lookahead(state, ruleset.decide(
        state, Command("start", None, {}), _dice()))
    bruiser = next(who for who in state.order if who in ("bo", "moe"))
    while state.current != bruiser:
        state = ruleset.lookahead(state, ruleset.decide(state, Command("next"), _dice()))
    chosen = get_policy("polemos").choose(state, state.entities[bruiser], ruleset)
    first = next(iter(chosen))
    assert first.name == "move"


def _dice() -> SeededDice:
    return SeededDice(3)


@pytest.mark.parametrize("ruleset", sorted(FOUR))
def test_policies_are_registered_for_their_rulesets(ruleset: str) -> None:
    """The ruleset's policy is its own (its tactics module's, registered under its name, not
    a generic one), a Policy, listed with a description, and what its sides play by
    default."""
    name, _ = FOUR[ruleset]
    load_ruleset(ruleset)
    policy = get_policy(ruleset, name)
    assert isinstance(policy, Policy)
    assert type(policy).__module__ == f"arbiter.sim.tactics.{ruleset}"
    assert type(get_policy(ruleset)) is type(policy)  # the default
    assert policy_names(ruleset)[name]
    with pytest.raises(KeyError, match=f"no policy 'nope' for {ruleset}"):
        get_policy(ruleset, "nope")


@pytest.mark.parametrize("ruleset", ["realms", "zones"])
def test_damage_taken_is_the_health_lost(ruleset: str) -> None:
    """Each hit counts once (an ``attacked`` event that repeats the amount is not counted
    again); realms' dying damage counts too."""
    sim = Simulator(prepare(load_encounter(four_v_four(ruleset))))
    for index in range(2):
        tally = Tally()
        state = sim.play(index, tally)
        for who, start in sim.base.entities.items():
            before, after = health_of(start), health_of(state.entities[who])
            assert before is not None and after is not None
            lost = before - after
            assert tally.taken[who] == lost, who
