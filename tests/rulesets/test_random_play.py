"""Random legal play (issue 32): for every installed ruleset with a demo encounter, a
hypothesis state machine plays long random sequences of commands (the legal options of the
creature whose turn it is, from ``Ruleset.options``, what the simulator's tactic for the
ruleset plays, and any command of the catalogue with
arguments drawn from their declarations: the GM's damage, conditions, adds, removals,
placements, overrides, time, rulings...) with random dice. After every step:

- the ruleset's invariants hold (checked after every event and command: ``tests/conftest.py``
  turns checking on, so a broken one fails here naming itself, the event and the rule);
- replaying the log from nothing gives the same state;
- undoing the last command (replaying all but it) and redoing it gives the same state.

A refused command is part of play (it changes nothing); an exception that is not a
RulesError is a defect. The short profile runs in ``make test``; ``make random-play`` runs the
long one (``ARBITER_RANDOM_PLAY=long``) and prints what it played.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from arbiter.core import Command, Encounter, EncounterState, RulesError, Ruleset, load_ruleset
from arbiter.core.catalogue import Arg, CommandSpec
from arbiter.core.registry import available
from arbiter.dice import SeededDice
from arbiter.sim.policy import get_policy
from tests.core.test_purity import differences

LONG = os.environ.get("ARBITER_RANDOM_PLAY") == "long"
RULESETS = [name for name in available() if load_ruleset(name).demo is not None]
SKIPPED = frozenset({"create", "batch", "note", "ruling"})
"""Commands the catalogue draw leaves out: ``create`` starts an encounter, ``batch`` holds
other commands (each drawn on its own), ``note`` changes nothing, ``ruling`` has a rule
of its own below (its value is one of the ruling's choices)."""
MOST_CREATURES = 12
TALLY: Counter[str] = Counter()
"""What the long profile played, printed at the end of the module."""


def _words(ruleset: Ruleset, state: EncounterState) -> list[str]:
    """Text arguments worth trying: the names the ruleset and the state use (conditions,
    templates, rulings, each creature's weapons, skills, body areas and groups...)."""
    words: set[str] = {"x", "cover", "down", "grappling", "dying", "prone"}
    words.update(ruleset.condition_texts)
    words.update(ruleset.templates)
    words.update(r.id for r in ruleset.rulings)
    for entity in state.entities.values():
        words.add(entity.id)
        for key in ("weapons", "skills", "areas", "ammo"):
            value = getattr(entity, key, None)
            if isinstance(value, dict):
                words.update(map(str, value))
        for key in ("weapon", "zone", "group", "engagement"):
            value = getattr(entity, key, None)
            if isinstance(value, str) and value:
                words.add(value)
    zones = state.extra.get("zones")
    if isinstance(zones, dict):
        words.update(map(str, zones))
    return sorted(words)


def _squares(state: EncounterState) -> list[tuple[int, int]]:
    """Squares near the creatures on the map (and the map's corner)."""
    out = {(0, 0), (1, 1)}
    for entity in state.entities.values():
        position = getattr(entity, "position", None)
        if isinstance(position, list) and len(position) == 2:
            x, y = position
            out.update((x + dx, y + dy) for dx in (-2, -1, 0, 1, 2) for dy in (-1, 0, 1))
    return sorted(out)


class Play(RuleBasedStateMachine):
    """One encounter of ``ruleset_name``, played at random."""

    ruleset_name = ""

    def __init__(self) -> None:
        super().__init__()
        self.ruleset = load_ruleset(self.ruleset_name)
        self.encounter = Encounter.create(self.ruleset)
        self.policy = get_policy(self.ruleset_name)
        self.added = 0

    # -- the commands ---------------------------------------------------------------------
    def run(self, command: Command, seed: int) -> bool:
        """Execute ``command`` with dice of ``seed``; whether the rules took it."""
        try:
            self.encounter.execute(command, SeededDice(seed))
        except RulesError:
            TALLY[f"{self.ruleset_name} refused"] += 1
            return False
        TALLY[f"{self.ruleset_name} {command.name}"] += 1
        return True

    def value(self, data: st.DataObject, arg: Arg) -> Any:
        """A value for ``arg`` drawn from its declaration (and the state's names)."""
        state = self.encounter.state
        ids = sorted(state.entities) or ["nobody"]
        kind = arg.kind
        if kind == "creature":
            return data.draw(st.sampled_from(ids))
        if kind == "creatures":
            return data.draw(st.lists(st.sampled_from(ids), max_size=3, unique=True))
        if kind in ("integer", "number"):
            lo = max(arg.lo, -5) if arg.lo is not None else -5
            hi = min(arg.hi, 30) if arg.hi is not None else 30
            return data.draw(st.integers(min(lo, hi), max(lo, hi)))
        if kind == "flag":
            return data.draw(st.booleans())
        if kind == "choice":
            return data.draw(st.sampled_from(arg.choices))
        if kind == "text":
            return data.draw(st.sampled_from(_words(self.ruleset, state)))
        if kind == "dice":
            return data.draw(st.sampled_from(["1d6", "2d6", "1d4+1", "3"]))
        if kind == "square":
            return list(data.draw(st.sampled_from(_squares(state))))
        if kind == "squares":
            return [list(s) for s in data.draw(
                st.lists(st.sampled_from(_squares(state)), min_size=1, max_size=3))]
        if kind == "mapping" and arg.keys:
            lo, hi = arg.lo or 0, min(arg.hi or 5, 5)
            return {k: data.draw(st.integers(lo, hi)) for k in arg.keys}
        return None  # lists, commands, free values: left out (the catalogue draw skips)

    def arguments(self, data: st.DataObject, spec: CommandSpec,
                  given: dict[str, Any]) -> dict[str, Any] | None:
        """Arguments for ``spec``: ``given``, every other required one, and some optional
        ones; None when a required one cannot be drawn."""
        out = dict(given)
        for name, arg in spec.args.items():
            if name in out or not (arg.required or data.draw(st.integers(0, 3)) == 0):
                continue
            value = self.value(data, arg)
            if value is None:
                if arg.required:
                    return None
                continue
            out[name] = value
        return out

    # -- the rules of the machine ---------------------------------------------------------
    @initialize(seed=st.integers(0, 2**32 - 1))
    def set_up(self, seed: int) -> None:
        """The ruleset's demo encounter, turn-by-turn play started."""
        demo = self.ruleset.demo
        assert demo is not None
        dice = SeededDice(seed)
        for actor_id, spec in demo[1]:
            self.encounter.execute({"do": "add", "id": actor_id, **spec}, dice)
        self.run(Command("start"), seed)

    @rule(data=st.data(), seed=st.integers(0, 2**32 - 1))
    def a_turn(self, data: st.DataObject, seed: int) -> None:
        """The creature whose turn it is takes up to three of its legal options."""
        for k in range(data.draw(st.integers(1, 3))):
            self.a_turn_option(data, seed + k)

    def a_turn_option(self, data: st.DataObject, seed: int) -> None:
        """The creature whose turn it is takes one of its legal options."""
        state = self.encounter.state
        actor = state.current
        if actor is None:
            return
        options = [o for o in self.ruleset.options(state, actor) if o.legal]
        if not options:
            return
        option = data.draw(st.sampled_from(options))
        given: dict[str, Any] = {}
        if option.target_arg is not None:
            targets = [t.id for t in option.targets if t.legal]
            if targets:
                given[option.target_arg] = data.draw(st.sampled_from(targets))
        spec = self.ruleset.catalogue[option.command]
        args = self.arguments(data, spec, given)
        if args is not None:
            self.run(Command(option.command, actor=actor, args=args), seed)

    @rule(seed=st.integers(0, 2**32 - 1))
    def a_tactic(self, seed: int) -> None:
        """The creature whose turn it is plays what the simulator's default tactic for the
        ruleset chooses (moves into reach, attacks, ...): the paths a fight takes most."""
        state = self.encounter.state
        actor = state.current
        if actor is None:
            return
        for k, command in enumerate(self.policy.choose(state, state.entities[actor],
                                                       self.ruleset)):
            if not self.run(command, seed + k):
                break

    @rule(seed=st.integers(0, 2**32 - 1))
    def next_turn(self, seed: int) -> None:
        """The GM ends the turn (or starts turn-by-turn play again)."""
        name = "next" if self.encounter.state.in_combat else "start"
        self.run(Command(name), seed)

    @rule(data=st.data(), seed=st.integers(0, 2**32 - 1))
    def any_command(self, data: st.DataObject, seed: int) -> None:
        """Any command of the catalogue (the GM's included), arguments from its declaration,
        for any creature."""
        state = self.encounter.state
        names = sorted(n for n in self.ruleset.catalogue if n not in SKIPPED)
        name = data.draw(st.sampled_from(names))
        spec = self.ruleset.catalogue[name]
        if name == "add":
            if len(state.entities) >= MOST_CREATURES or not self.ruleset.templates:
                return
            self.added += 1
            template = data.draw(st.sampled_from(sorted(self.ruleset.templates)))
            side = data.draw(st.sampled_from(sorted({e.side or "foes" for e in
                                                     state.entities.values()} | {"foes"})))
            args: dict[str, Any] | None = {"id": f"new{self.added}", "template": template,
                                           "side": side}
        else:
            args = self.arguments(data, spec, {})
        if args is None:
            return
        actor = None
        if spec.actor != "none" and state.entities:  # the creature whose turn it is, or any
            actor = state.current if state.current is not None and data.draw(
                st.booleans()) else data.draw(st.sampled_from(sorted(state.entities)))
        self.run(Command(name, actor=actor, args=args), seed)

    @rule(data=st.data(), seed=st.integers(0, 2**32 - 1))
    def a_ruling(self, data: st.DataObject, seed: int) -> None:
        """The GM changes a ruling mid-fight to one of its choices (one time in four)."""
        if data.draw(st.integers(0, 3)):
            return
        ruling = data.draw(st.sampled_from(sorted(self.ruleset.rulings, key=lambda r: r.id)))
        choice = data.draw(st.sampled_from(sorted(ruling.choices)))
        self.run(Command("ruling", args={"id": ruling.id, "value": choice}), seed)

    # -- what holds after every step ------------------------------------------------------
    @invariant()
    def replay_gives_the_same_state(self) -> None:
        if not LONG or len(self.encounter.log) % 5 == 0:
            again = Encounter.replay(self.ruleset, self.encounter.log)
            assert again.state == self.encounter.state, list(
                differences(self.encounter.state, again.state, "state"))[:5]

    @invariant()
    def undo_then_redo_gives_the_same_state(self) -> None:
        log = self.encounter.log
        if len(log) < 2:
            return
        undone = Encounter.replay(self.ruleset, log[:-1])
        undone.apply(log[-1])
        assert undone.state == self.encounter.state, list(
            differences(self.encounter.state, undone.state, "state"))[:5]


def _machine(name: str) -> type[Play]:
    return type(f"Play_{name}", (Play,), {"ruleset_name": name})


PROFILE = settings(
    max_examples=400 if LONG else 12,
    stateful_step_count=120 if LONG else 30,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=not LONG,
)


@pytest.mark.parametrize("name", RULESETS)
def test_random_play_keeps_the_invariants(name: str) -> None:
    machine = _machine(name)
    machine.TestCase.settings = PROFILE
    machine.TestCase().runTest()
    if LONG:
        played = {k: v for k, v in sorted(TALLY.items()) if k.startswith(name + " ")}
        print(f"\n{name}: {PROFILE.max_examples} sequences of up to "
              f"{PROFILE.stateful_step_count} steps; {played}")
