"""What a command's consequences look at (P-FAT-2, P-FAT-3, P-STS-4, POL-1, P-CON-7): after a
lookahead, only the creatures it changed (``copying.touched``); the others are settled by the
invariant. These tests compare that narrow look with a look at every creature, at every call
of whole simulated fights, sustained conditions included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arbiter.core import Condition, Duration, EncounterState, Event, load_ruleset
from arbiter.core.copying import apply_to_scratch, scratch_copy, touched
from arbiter.rulesets.polemos import conditions
from arbiter.rulesets.polemos.model import Creature
from arbiter.sim import Simulator, load_encounter, prepare

ENCOUNTERS = Path(__file__).resolve().parents[3] / "scenarios" / "encounters"


def _full_look(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make every call of ``_consequences_in`` also look at every creature and compare; the
    count of calls whose narrow look was narrower than the whole (compared, and equal)."""
    narrow = conditions.ConditionRules._consequences_in
    counts = [0, 0]

    def both(self: Any, state: EncounterState, after: EncounterState,
             hit: dict[str, Any] | None = None, *, settled: bool = False) -> list[Event]:
        got = narrow(self, state, after, hit, settled=settled)
        with monkeypatch.context() as m:
            m.setattr(conditions, "touched", lambda _state: None)
            whole = narrow(self, state, after, hit, settled=False)
        counts[0] += 1
        counts[1] += touched(after) is not None or settled
        assert [(e.type, e.data) for e in got] == [(e.type, e.data) for e in whole]
        return got

    monkeypatch.setattr(conditions.ConditionRules, "_consequences_in", both)
    return counts


@pytest.mark.parametrize("name", sorted(p.name for p in ENCOUNTERS.glob("polemos-*.yaml")))
def test_the_narrow_look_finds_what_a_look_at_every_creature_finds(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _full_look(monkeypatch)
    sim = Simulator(prepare(load_encounter(ENCOUNTERS / name), seed=3))
    tally = sim.play_batch(0, 12)
    assert tally.runs == 12
    assert counts[1] > 100, counts  # the narrow look ran (the others: the invariant's own)


def test_a_sustainer_going_out_cold_ends_what_it_sustains_on_creatures_not_looked_at() -> None:
    """P-CON-7 through the narrow look: the sustainer is the only creature the lookahead
    changes, yet the sustained condition on another creature ends."""
    rules = load_ruleset("polemos")
    state = EncounterState("polemos")
    state.entities["ana"] = Creature("ana", side="a")
    held = Condition("grappled", 1, duration=Duration("sustained", by="ana"))
    state.entities["bo"] = Creature("bo", side="b", conditions=[held])
    knocked = Condition("unconscious", 1)
    after = apply_to_scratch(rules.evolve, scratch_copy(state), [
        Event("condition_added", {"target": "ana", "condition": knocked.to_json()})])
    assert touched(after) == {"ana"}
    found = rules._consequences_in(state, after)  # type: ignore[attr-defined]
    assert [(e.type, e.data["target"], e.data["name"]) for e in found] == [
        ("condition_removed", "bo", "grappled")]


def test_a_sustained_condition_given_by_one_already_out_cold_ends() -> None:
    """The other way round: the creature that gains a sustained condition is looked at, and
    its sustainer, not looked at, is already unconscious."""
    rules = load_ruleset("polemos")
    state = EncounterState("polemos")
    state.entities["ana"] = Creature("ana", side="a", conditions=[Condition("unconscious", 1)])
    state.entities["bo"] = Creature("bo", side="b")
    held = Condition("grappled", 1, duration=Duration("sustained", by="ana"))
    after = apply_to_scratch(rules.evolve, scratch_copy(state), [
        Event("condition_added", {"target": "bo", "condition": held.to_json()})])
    assert touched(after) == {"bo"}
    found = rules._consequences_in(state, after)  # type: ignore[attr-defined]
    assert [(e.type, e.data["target"], e.data["name"]) for e in found] == [
        ("condition_removed", "bo", "grappled")]
