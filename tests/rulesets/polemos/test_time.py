"""Per-round effects while time passes outside turn-by-turn play (P-CON-9, P-TIM-1): 'wait'
plays them every three seconds, as 'tick' does round by round, and stops playing rounds one
by one only once they can change nothing more."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.core import Encounter, IllegalCommand, load_ruleset
from arbiter.dice import ForcedDice, SeededDice
from arbiter.rulesets.polemos.model import body_plans

POLEMOS = load_ruleset("polemos")
NONE = ForcedDice([])
AREAS = list(body_plans()["human"])

EFFECT = st.one_of(
    st.fixed_dictionaries({"do": st.just("bleed"), "area": st.sampled_from(AREAS),
                           "damage": st.integers(1, 3)}),
    st.fixed_dictionaries({"do": st.just("condition"), "name": st.just("burning"),
                           "level": st.integers(1, 2)},
                          optional={"area": st.sampled_from(AREAS)}),
    st.fixed_dictionaries({"do": st.just("bandage"), "area": st.sampled_from(AREAS),
                           "rounds": st.integers(1, 30)}),
    st.fixed_dictionaries({"do": st.just("condition"), "name": st.just("shaken"),
                           "rounds": st.integers(1, 40)}),
)


def setup(effects: list[tuple[str, dict[str, Any]]]) -> Encounter:
    enc = Encounter.create(POLEMOS)
    for name in ("nia", "orc"):
        enc.execute({"do": "add", "id": name}, NONE)
    for who, effect in effects:
        enc.execute({**effect, "target": who}, SeededDice(3))
    return enc


def comparable(enc: Encounter) -> tuple[Any, Any]:
    extra = {k: v for k, v in enc.state.extra.items() if k != "critical_area_hit"}
    return enc.state.entities, extra


@pytest.mark.rules("P-CON-9")
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["nia", "orc"]), EFFECT), max_size=4),
       st.integers(1, 100))
def test_waiting_fires_the_per_round_effects_of_every_round(
        effects: list[tuple[str, dict[str, Any]]], rounds: int) -> None:
    """P-CON-9: 'wait N' ends where N single ticks end (bleeding, burning, bandages and
    timed conditions ending, every creature); the rounds it skips change nothing. Burning
    on a random area rolls a die a round: compared only without it."""
    random_area = any(e.get("name") == "burning" and "area" not in e for _, e in effects)
    ticked, waited = setup(effects), setup(effects)
    dice = SeededDice(7)
    for _ in range(rounds):
        ticked.execute({"do": "tick"}, dice)
    waited.execute({"do": "wait", "amount": rounds}, SeededDice(7))
    if random_area:
        assert waited.state.extra["clock"] == ticked.state.extra["clock"] == rounds
        return
    assert comparable(waited) == comparable(ticked)


@pytest.mark.rules("P-CON-9", "P-TIM-3")
def test_a_long_wait_is_bounded_when_nothing_changes_any_more() -> None:
    """P-CON-9, P-TIM-3: a caused cut that bleeds forever, burning on random areas: a
    century passes at once, once every area is at its minimum."""
    enc = Encounter.create(POLEMOS)
    enc.execute({"do": "add", "id": "nia", "tags": ["cursed"]}, NONE)
    enc.execute({"do": "wound", "target": "nia", "name": "cut", "area": "left_arm",
                 "cause": "cursed"}, NONE)
    enc.execute({"do": "condition", "target": "nia", "name": "burning"}, NONE)
    entry = enc.execute({"do": "wait", "amount": 100, "unit": "years"}, SeededDice(1))
    assert len(entry.events) < 2000
    nia = enc.state.entities["nia"]
    assert all(area.vitality == area.minimum for area in nia.areas.values())  # type: ignore[attr-defined]


@pytest.mark.rules("P-FAT-4", "P-CON-9")
def test_effects_that_never_settle_are_refused_past_an_hour() -> None:
    """P-FAT-4, P-CON-9: zero SP adds a fatigue wound every three seconds; more than 1,200
    such rounds at once are refused, naming the limit and the effect."""
    enc = Encounter.create(POLEMOS)
    enc.execute({"do": "add", "id": "sam", "sp": 1}, NONE)
    enc.execute({"do": "damage", "target": "sam", "amount": 1, "type": "bashing (stamina)",
                 "area": "chest"}, NONE)
    enc.execute({"do": "wait", "amount": 1, "unit": "hour"}, NONE)
    assert enc.state.entities["sam"].fatigue == 1200  # type: ignore[attr-defined]
    with pytest.raises(IllegalCommand, match=r"1200 rounds.*sam \(physical fatigue\)") as err:
        enc.execute({"do": "wait", "amount": 1201}, NONE)
    assert err.value.rule == "P-CON-9"
