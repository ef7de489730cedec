"""``ZonesRuleset.check`` gives the answer of ``decide``, rolling nothing where it can: the same
commands are refused, with the same error, and the same commands accepted."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.core import Command, EncounterState, RulesError
from arbiter.dice import SeededDice
from arbiter.rulesets.zones.model import Creature
from arbiter.rulesets.zones.rules import ZonesRuleset
from arbiter.sim import load_encounter, prepare
from arbiter.sim.engine import Simulator

from .helpers import ZONES, encounter
from .test_fuzz import COMMANDS

ROOT = Path(__file__).resolve().parents[3]
ENCOUNTERS = sorted((ROOT / "scenarios" / "encounters").glob("zones-*.yaml"))
assert isinstance(ZONES, ZonesRuleset)
RULES: ZonesRuleset = ZONES


def verdict(fn: Any) -> str | None:
    """None when ``fn`` runs, else the type and message of the RulesError it raises."""
    try:
        fn()
    except RulesError as err:
        return f"{type(err).__name__}: {err}"
    return None


def same_answer(state: EncounterState, command: Command, seed: int = 0) -> None:
    """``check`` and ``decide`` agree; an accepted command decided right after its check
    (which may reuse the check's plan) gives the events of one decided afresh."""
    fresh = Command(command.name, command.actor, dict(command.args))
    checked = verdict(lambda: RULES.check(state, command))
    decided = verdict(lambda: ZONES.decide(state, fresh, SeededDice(seed)))
    assert checked == decided, command
    if checked is None:
        RULES.check(state, command)
        reused = ZONES.decide(state, command, SeededDice(seed))
        assert reused == ZONES.decide(state, fresh, SeededDice(seed)), command


def probes(state: EncounterState, me: Creature) -> list[Command]:
    """What a tactic might ask for ``me``: every weapon at every other creature, as an attack
    (plain, at each range band, unaimed) and as a melee attack; cover and a move."""
    out = [Command("cover", me.id, {"environment": "moderate"}),
           Command("move", me.id, {"zone": me.zone, "group": me.id})]
    for other in state.entities.values():
        for weapon in me.weapons:
            plain = {"target": other.id, "weapon": weapon}
            out += [Command("attack", me.id, plain), Command("melee", me.id, plain),
                    Command("attack", me.id, {**plain, "unaimed": True}),
                    Command("attack", me.id, {**plain, "full_auto": True})]
            out += [Command("attack", me.id, {**plain, "range": band})
                    for band in ("engagement", "short", "medium", "long")]
        out.append(Command("attack", me.id, {"target": other.id}))
        out.append(Command("melee", me.id, {"target": other.id}))
    return out


@pytest.mark.parametrize("path", ENCOUNTERS, ids=[p.name for p in ENCOUNTERS])
def test_check_agrees_with_decide_along_played_encounters(path: Path) -> None:
    sim = Simulator(prepare(load_encounter(path), max_rounds=5))
    for index in range(2):
        log = sim.logged(index)
        state = sim.base.copy()
        for entry in log.log:
            me = state.entities.get(state.current or "")
            if isinstance(me, Creature) and entry.command.name != "next":
                before = state.copy()
                for command in probes(state, me):
                    same_answer(state, command, entry.seq)
                assert state == before  # neither changes the state
            for event in entry.events:
                ZONES.evolve(state, event)


@settings(max_examples=150, deadline=None)
@given(st.lists(COMMANDS, max_size=12), st.integers(0, 1000))
def test_check_agrees_with_decide_on_any_command(script: list[tuple[str, str | None,
                                                                     dict[str, Any]]],
                                                 seed: int) -> None:
    enc = encounter({
        "nia": {"template": "soldier", "side": "crew", "group": "crew"},
        "bob": {"template": "bandit", "side": "gang", "group": "gang", "zone": "yard"},
        "ugo": {"template": "ogre", "side": "gang", "group": "gang", "engagement": "crew"},
        "ari": {"template": "arcanist", "side": "crew", "group": "crew"},
    })
    dice = SeededDice(seed)
    if seed % 2:
        enc.execute({"do": "start"}, dice)
    for name, actor, args in script:
        command = Command(name, actor, dict(args))
        before = enc.state.copy()
        same_answer(enc.state, command, seed)
        assert enc.state == before
        with contextlib.suppress(RulesError):
            enc.execute(command, dice)
