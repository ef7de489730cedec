"""The fast paths of the Polemos rules give the answers of the slow ones: a lookahead copy
shares what the apply methods only replace (SHARED in model.py) and still leaves the
state it came from alone; ``check`` refuses exactly what ``decide`` refuses."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

import pytest

from arbiter.core import Command, EncounterState, Event, RulesError, load_ruleset
from arbiter.dice import SeededDice
from arbiter.rulesets.polemos.model import Creature, DamageType, Wound, wound_of
from arbiter.rulesets.polemos.rules import PolemosRuleset
from arbiter.sim import load_encounter, prepare
from arbiter.sim.engine import Simulator

from ...support import Played

POLEMOS = load_ruleset("polemos")
ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = sorted((ROOT / "scenarios" / "polemos").glob("*.yaml")) + sorted(
    (ROOT / "scenarios" / "encounters").glob("polemos-*.yaml"))


def _deep_evolve(state: EncounterState, events: list[Event]) -> EncounterState:
    out = copy.deepcopy(state)
    for event in events:
        POLEMOS.evolve(out, event)
    return out


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_lookahead_leaves_the_state_alone_and_matches_a_deep_copy(path: Path,
                                                                  played: Played) -> None:
    """Every command's events of every Polemos scenario, applied to a lookahead in one go and
    split in two chained lookaheads: the same state as on a deep copy, and neither the
    state nor the first lookahead changes."""
    result = played(path)
    assert result.encounter is not None
    state = EncounterState(ruleset="")
    for entry in result.encounter.log:
        events = copy.deepcopy(list(entry.events))  # the session's log stays as played
        before = copy.deepcopy(state)
        expected = _deep_evolve(before, events)
        for split in range(len(events) + 1):
            first = POLEMOS.lookahead(state, events[:split])
            first_before = copy.deepcopy(first)
            second = POLEMOS.lookahead(first, events[split:])
            assert second == expected, f"{path.name}: entry {entry.seq}, split {split}"
            assert first == first_before
            assert state == before
        for event in events:
            POLEMOS.evolve(state, event)


def _refusal(ask: Callable[[EncounterState, Command], object], state: EncounterState,
             command: Command) -> tuple[type[RulesError], str] | None:
    try:
        ask(state, command)
    except RulesError as err:
        return type(err), str(err)
    return None


def _probes(state: EncounterState, who: str) -> list[Command]:
    """Attacks with every weapon and damage type on everyone (and a weapon that is not
    there), every critical effect, and moves of one to six squares."""
    me = state.entities[who]
    assert isinstance(me, Creature)
    out: list[Command] = []
    for target in state.entities:
        for name, weapon in me.weapons.items():
            out += [Command("attack", who, {"target": target, "weapon": name, "type": kind})
                    for kind in weapon.types()]
        out.append(Command("attack", who, {"target": target, "weapon": "sling"}))
    out += [Command("critical", who, {"effect": effect})
            for effect in ("daze", "fatigue-wounds", "unknown-wound", "spite")]
    if me.position is not None:
        x, y = me.position
        out += [Command("move", who, {"to": [x + n, y + n // 2]}) for n in range(1, 7)]
    return out


@pytest.mark.parametrize("name", ["polemos-4v4", "polemos-street-fight"])
def test_check_refuses_what_decide_refuses(name: str) -> None:
    """At every command of two simulated fights, ``check`` raises the error ``decide``
    raises (or none) for attacks, critical damage points and moves of whoever acts."""
    sim = Simulator(prepare(load_encounter(ROOT / "scenarios" / "encounters" / f"{name}.yaml")))
    ruleset = sim.ruleset
    assert isinstance(ruleset, PolemosRuleset)

    def decide(state: EncounterState, command: Command) -> object:
        return ruleset.decide(state, command, SeededDice(0))

    log = sim.logged(0).log
    state = sim.base.copy()
    checked = 0
    for entry in log:
        who = state.current
        if who is not None:
            for command in _probes(state, who):
                by_check = _refusal(ruleset.check, state, command)
                by_decide = _refusal(decide, state, command)
                assert by_check == by_decide, f"{command} at entry {entry.seq}"
                checked += by_check is None
        for event in entry.events:
            ruleset.evolve(state, event)
    assert checked > 20  # accepted ones too, not only refusals


@pytest.mark.parametrize("record", [
    {"id": "w1", "name": "Cut"},
    {"id": "w2", "name": "Gash", "area": "left arm", "tags": ["bleeding"], "fatigue": 2,
     "level": 3, "known": False, "cause": "w1", "received": 4, "max_days": 9,
     "conditions": ["stunned"], "bleeding": 2, "source": "orc"},
    {"id": "w3", "name": "Bruise", "bleeding": 0, "source": None},
], ids=["bare", "every field", "its own bleeding and source"])
def test_a_recorded_wound_is_what_the_keyword_call_made(record: dict[str, object]) -> None:
    """``wound_of`` (``apply_wound_added``'s fast path) builds the wound that
    ``Wound(**{"bleeding": ..., "source": ..., **record})`` built: the record's own bleeding
    and source first, the event's for a record written before it kept them."""
    for bleeding, source in ((0, None), (3, "nia")):
        assert wound_of(record, bleeding, source) == \
            Wound(**{"bleeding": bleeding, "source": source, **record})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        wound_of({**record, "colour": "red"}, 0, None)
    with pytest.raises(TypeError):
        wound_of({"name": "Cut"}, 0, None)


def test_a_damage_type_degrades_to_one_shared_type() -> None:
    kinetic = DamageType.parse("kinetic")
    stamina = kinetic.degraded()
    assert stamina == DamageType("kinetic", "stamina") and stamina is kinetic.degraded()
    assert stamina is not None and stamina.degraded() == DamageType("kinetic", "focus")
    assert DamageType("kinetic", "focus").degraded() is None
