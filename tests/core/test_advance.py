"""``Ruleset.advance``: ``decide`` and then ``evolve``, for a caller that owns its state (the
simulator). ``next`` applies the events that end a turn and begin the next one as it
decides them; the events and the state are those of the two steps."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from arbiter.core import (
    Command,
    Condition,
    Encounter,
    EncounterState,
    Event,
    IllegalCommand,
    Ruleset,
    load_ruleset,
)
from arbiter.core.copying import run_copy
from arbiter.dice import DiceSource, ForcedDice, SeededDice
from arbiter.rulesets.demo.rules import DemoRuleset

DEMO = load_ruleset("demo")


def ambush() -> Encounter:
    """nia; a hidden imp, blessed for one round; an orc; nia's turn, revealing on a turn."""
    enc = Encounter.create(DEMO, reveal_on_turn=True)
    for spec in ({"id": "nia", "health": 10}, {"id": "imp", "health": 5, "hidden": True},
                 {"id": "orc", "health": 5}):
        enc.execute(Command("add", args=spec), ForcedDice([]))
    enc.execute(Command("start", args={"initiative": {"nia": 12, "imp": 8, "orc": 4}}),
                ForcedDice([]))
    return enc


def both_ways(ruleset: Ruleset, state: EncounterState, command: Command,
              seed: int) -> tuple[list[Event], EncounterState, list[Event], EncounterState]:
    """``advance`` on one copy of ``state``, ``decide`` and ``evolve`` on another, with the
    same dice."""
    owned, stepped = run_copy(state), state.copy()
    advanced = ruleset.advance(owned, command, SeededDice(seed))
    decided = ruleset.decide(stepped, command, SeededDice(seed))
    for event in decided:
        ruleset.evolve(stepped, event)
    return advanced, owned, decided, stepped


def test_next_advanced_in_place_gives_the_events_and_state_of_decide_then_evolve() -> None:
    enc = ambush()
    enc.execute(Command("condition", args={"target": "imp", "name": "blessed",
                                           "rounds": 1}), ForcedDice([]))
    assert DEMO._looking_past() == {"next"}
    kinds = []
    for turn in range(7):  # past the imp's reveal and the end of its condition
        before = enc.state.copy()
        advanced, owned, decided, stepped = both_ways(DEMO, enc.state, Command("next"), turn)
        assert advanced == decided and owned == stepped
        assert enc.state == before  # the state given is a run copy's original: untouched
        kinds.append([event.type for event in advanced])
        enc.execute(Command("next"), SeededDice(turn))
    assert ["turn_ended", "turn_started", "revealed"] in kinds
    assert any("condition_removed" in types for types in kinds)


def test_a_refused_command_leaves_the_owned_state_as_it_was() -> None:
    enc = Encounter.create(DEMO)
    enc.execute(Command("add", args={"id": "nia", "health": 10}), ForcedDice([]))
    owned = run_copy(enc.state)
    with pytest.raises(IllegalCommand, match="turn-by-turn play has not started"):
        DEMO.advance(owned, Command("next"), SeededDice(1))
    assert owned == enc.state
    enc.execute(Command("start"), SeededDice(1))
    owned = run_copy(enc.state)
    with pytest.raises(IllegalCommand, match="it is nia's turn, not orc's"):
        DEMO.advance(owned, Command("next", "orc"), SeededDice(1))
    assert owned == enc.state


class OwnNext(DemoRuleset):
    """A ruleset with its own ``do_next``: ``advance`` decides it whole."""

    def do_next(self, state: EncounterState, command: Command,
                dice: DiceSource) -> list[Event]:
        self.asked += 1
        return super().do_next(state, command, dice)

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0


def test_a_ruleset_with_its_own_next_is_decided_whole() -> None:
    own = OwnNext()
    assert own._looking_past() == set()
    enc = ambush()
    advanced, owned, decided, stepped = both_ways(own, enc.state, Command("next"), 3)
    assert own.asked == 2 and advanced == decided and owned == stepped


class Nested(DemoRuleset):
    """Conditions of one name add up their levels; ``condition`` looks past its events with
    ``past``; ``note`` decides a ``condition`` on the same state and looks past it (as
    ``batch`` does): the inner ``decide`` is pure under ``advance`` too, so ``note`` reads
    the condition added once."""

    def __init__(self) -> None:
        super().__init__()
        self.rulings, self.package_dir = DEMO.rulings, DEMO.package_dir  # the demo's files

    def _looking_past(self) -> frozenset[str]:  # both may apply in place under advance
        return frozenset({"condition", "note"})

    def stack_condition(self, existing: Condition | None, new: Condition) -> Condition:
        return new if existing is None else dataclasses.replace(
            new, level=existing.level + new.level)

    def do_condition(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        events = super().do_condition(state, command, dice)
        after = self.past(state, events)
        return [*events, Event("noted", {"text": f"{after.entity('imp').conditions}"})]

    def do_note(self, state: EncounterState, command: Command,
                dice: DiceSource) -> list[Event]:
        bless = Command("condition", args={"target": "imp", "name": "blessed", "level": 1})
        decided = self.decide(state, bless, dice)
        after = self.lookahead(state, decided)
        return [*decided, Event("noted", {"text": f"{after.entity('imp').conditions}"})]


def test_a_decide_inside_an_advanced_command_is_pure() -> None:
    nested = Nested()
    state = ambush().state
    for seed in range(3):  # the levels add up
        advanced, owned, decided, stepped = both_ways(
            nested, state, Command("note", args={"text": "x"}), seed)
        assert advanced == decided and owned == stepped
        assert not nested._owned
        blessed = stepped.entity("imp").condition("blessed")
        assert blessed is not None and blessed.level == seed + 1
        state = stepped


def test_the_commands_that_look_past_in_place_are_those_declared_so() -> None:
    from arbiter.core.registry import available
    looking = {name: load_ruleset(name)._looking_past() for name in available()}
    assert all("next" in found for found in looking.values())
    if "realms" in looking:
        assert looking["realms"] == {"next", "attack"}
    if "polemos" in looking:  # their consequences' tails (``_consequences``)
        assert looking["polemos"] == {"next", "attack", "critical"}


class Reordered(Nested):
    """``condition`` puts a note before the events it looked past: refused loudly."""

    def do_condition(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        events = super().do_condition(state, command, dice)
        return [events[-1], *events[:-1]]


def test_a_result_that_does_not_begin_with_what_it_looked_past_is_an_error() -> None:
    state = run_copy(ambush().state)
    bless = Command("condition", args={"target": "imp", "name": "blessed", "level": 1})
    with pytest.raises(RuntimeError, match="condition: its events do not begin with those"):
        Reordered().advance(state, bless, SeededDice(1))


def test_next_notes_what_it_touches_for_a_ruleset_that_reads_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Polemos reads ``copying.touched`` of the state a turn starts on: under ``advance`` it
    names the creatures the turn change touched, as the lookahead of ``decide`` does, and
    the run's entities are a plain dict again after."""
    from pathlib import Path

    from arbiter.core.copying import touched
    from arbiter.sim import Simulator, load_encounter, prepare
    root = Path(__file__).resolve().parents[2]
    sim = Simulator(prepare(load_encounter(root / "scenarios/encounters/polemos-4v4.yaml")))
    rules = sim.ruleset
    assert rules.reads_touched and not DEMO.reads_touched
    seen: list[object] = []
    starting = rules.turn_start_events

    def noting(state: EncounterState, who: str, dice: DiceSource) -> list[Event]:
        seen.append(touched(state))
        return starting(state, who, dice)

    monkeypatch.setattr(rules, "turn_start_events", noting)
    state = run_copy(sim.base)
    for event in rules.decide(state, Command("start"), SeededDice(1)):
        rules.evolve(state, event)
    for turn in range(12):
        stepped = state.copy()
        decided = rules.decide(stepped, Command("next"), SeededDice(turn))
        advanced = rules.advance(state, Command("next"), SeededDice(turn))
        assert advanced == decided and type(state.entities) is dict
        for event in decided:
            rules.evolve(stepped, event)
        assert state == stepped
        by_decide, by_advance = seen[-2:]
        assert isinstance(by_advance, set) and by_advance == by_decide


def test_polemos_tails_look_past_in_place_at_what_the_events_touched(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Polemos' ``attack`` and ``critical`` end with their consequences (``_consequences``),
    which under ``advance`` look past the handler's events in place: each command of a
    logged run gives the table's events and state, and the consequences look at the
    creatures the events touched (a set, not every creature: ``copying.touched``), at least
    those the lookahead of ``decide`` names."""
    from pathlib import Path

    from arbiter.core.copying import touched
    from arbiter.rulesets.polemos.base import PolemosBase
    from arbiter.sim import Simulator, load_encounter, prepare
    from arbiter.sim.engine import run_seed
    root = Path(__file__).resolve().parents[2]
    sim = Simulator(prepare(load_encounter(root / "scenarios/encounters/polemos-4v4.yaml")))
    rules = sim.ruleset
    assert isinstance(rules, PolemosBase)
    seen: list[tuple[set[str] | frozenset[str] | None, bool]] = []
    looking = rules._consequences_in

    def noting(state: EncounterState, after: EncounterState,
               hit: dict[str, Any] | None = None, *, settled: bool = False) -> list[Event]:
        seen.append((touched(after), after is state))
        return looking(state, after, hit, settled=settled)

    monkeypatch.setattr(rules, "_consequences_in", noting)
    tails = 0
    for index in range(3):
        table = sim.logged(index)
        state = run_copy(sim.base)
        dice = SeededDice(run_seed(sim.job.seed, index))
        for entry in table.log:
            before = state.copy()
            del seen[:]
            events = rules.advance(state, entry.command, dice)
            assert events == entry.events and type(state.entities) is dict
            if entry.command.name not in ("attack", "critical") or not seen:
                continue
            by_advance = seen[:]
            del seen[:]
            # the same command decided on a copy, with the dice the table rolled for it
            assert rules.decide(before, entry.command,
                                ForcedDice(value for _, value in entry.dice)) == events
            assert len(seen) == len(by_advance)
            for (ahead, in_place), (behind, _) in zip(by_advance, seen, strict=True):
                if behind is not None:  # a lookahead's (None: the state found, settled)
                    assert isinstance(ahead, set) and ahead >= behind, entry.command
                    assert in_place
                    tails += 1
        assert state == table.state
    assert tails  # some consequences were looked at in place


class Blessing(DemoRuleset):
    """At each turn start, the creature whose turn it is is blessed (levels add up) and a
    note says what it holds then, looked past in place under ``advance`` (``Ahead`` made
    ``in_place``); ``backwards`` puts the note first: refused loudly."""

    backwards = False
    starts_in_place = True

    def __init__(self) -> None:
        super().__init__()
        self.rulings, self.package_dir = DEMO.rulings, DEMO.package_dir

    def stack_condition(self, existing: Condition | None, new: Condition) -> Condition:
        return new if existing is None else dataclasses.replace(
            new, level=existing.level + new.level)

    def turn_start_events(self, state: EncounterState, who: str,
                          dice: DiceSource) -> list[Event]:
        from arbiter.core.ahead import Ahead
        bless = Condition("blessed", 1)
        events = [Event("condition_added", {"target": who, "condition": bless.to_json()})]
        after = Ahead(self, state, in_place=True).of(events)
        held = after.entity(who).conditions
        note = Event("noted", {"text": f"{who}: {[(c.name, c.level) for c in held]}"})
        return [note, *events] if self.backwards else [*events, note]


def test_a_turn_start_looks_past_its_own_events_in_place_under_advance(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``Ahead(in_place=True)`` in ``turn_start_events`` applies its events to the state
    ``advance`` owns (``Ruleset.started_past``), once: the events and the state are those
    of ``decide`` then ``evolve``, which looks ahead on a copy instead."""
    rules = Blessing()
    enc = Encounter.create(rules)
    for spec in ({"id": "nia", "health": 10}, {"id": "orc", "health": 5}):
        enc.execute(Command("add", args=spec), ForcedDice([]))
    enc.execute(Command("start", args={"initiative": {"nia": 12, "orc": 4}}), ForcedDice([]))
    applied: list[int] = []
    started = rules.started_past

    def counting(state: EncounterState, events: list[Event]) -> EncounterState | None:
        found = started(state, events)
        applied.append(0 if found is None else len(events))
        return found

    rules.started_past = counting  # type: ignore[method-assign]
    for turn in range(4):
        advanced, owned, decided, stepped = both_ways(rules, enc.state, Command("next"), turn)
        assert advanced == decided and owned == stepped and type(owned.entities) is dict
        enc.execute(Command("next"), SeededDice(turn))
    assert applied == [1, 0, 0] * 4  # advance in place; decide (twice) looked ahead
    levels = [e.data["text"] for e in enc.log[-1].events if e.type == "noted"]
    assert levels == ["nia: [('blessed', 3)]"]  # nia's third turn start (with start's): once each

    rules.backwards = True
    with pytest.raises(RuntimeError, match="turn_start_events: its events do not begin"):
        rules.advance(run_copy(enc.state), Command("next"), SeededDice(9))
    monkeypatch.setattr(Blessing, "starts_in_place", False)  # not declared: looked ahead
    del applied[:]
    rules.backwards = False
    rules.advance(run_copy(enc.state), Command("next"), SeededDice(9))
    assert applied == [0]
