"""Structural copies and copy-on-write lookahead: independent of the state they came from."""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from arbiter.core import Command, Condition, Encounter, EncounterState, Entity, Event, load_ruleset
from arbiter.core.copying import (
    COPIED,
    KERNEL_EXTRA,
    SCRATCH,
    SHARED,
    BrokenPromise,
    CowEntities,
    apply_to_scratch,
    clone,
    own_fully,
    read_only,
    run_copy,
    scratch_copy,
    scratch_guard,
    scratch_promises,
)
from arbiter.core.model import entity_at
from arbiter.dice import SeededDice
from arbiter.rulesets.demo.rules import DemoCreature

from ..support import installed

DEMO = load_ruleset("demo")


def _fight() -> EncounterState:
    enc = Encounter.create(DEMO)
    dice = SeededDice(7)
    enc.execute({"do": "add", "id": "nia", "health": 20, "attack": 5, "defense": 12}, dice)
    enc.execute({"do": "add", "id": "orc", "health": 15, "attack": 3, "defense": 11}, dice)
    enc.execute({"do": "condition", "target": "orc", "name": "slowed", "rounds": 2}, dice)
    enc.execute({"do": "start"}, dice)
    return enc.state


def test_copy_is_structural_and_independent() -> None:
    state = _fight()
    copied = state.copy()
    assert copied == copy.deepcopy(state)
    copied.entities["orc"].conditions[0].level = 9
    copied.entities["nia"].stats["health"] = 1
    copied.order.append("ghost")
    assert state.entities["orc"].conditions[0].level == 1
    assert state.entities["nia"].stats.get("health") != 1
    assert "ghost" not in state.order
    assert clone(state) == state


def test_lookahead_shares_untouched_entities_and_never_changes_the_state() -> None:
    state = _fight()
    before = copy.deepcopy(state)
    cond = Condition("stunned")
    events = [Event("condition_added", {"target": "orc", "condition": cond.to_json()})]
    scratch = DEMO.lookahead(state, events)
    assert type(scratch.entities) is CowEntities
    assert scratch.entities["orc"].has("stunned")
    assert dict.__getitem__(scratch.entities, "nia") is state.entities["nia"]
    assert state == before
    further = DEMO.lookahead(scratch, [Event("condition_removed", {
        "target": "orc", "name": "slowed", "why": "removed"})])
    assert not further.entities["orc"].has("slowed")
    assert scratch.entities["orc"].has("slowed") and state == before
    assert DEMO.lookahead(state, []) is state


def test_an_entity_read_by_entity_at_while_a_scratch_is_written_is_its_own_copy() -> None:
    """``entity_at`` reads a scratch state's entities as their own class does: while
    ``evolve`` writes the scratch (``WritingEntities``) it hands out the scratch's own copy,
    so a change to it leaves the state the lookahead came from alone; a plain dict gives
    its entity, and an unknown id gives None (as ``get`` does)."""
    state = _fight()
    before = copy.deepcopy(state)
    seen: list[Entity | None] = []

    def rename(scratch: EncounterState, event: Event) -> EncounterState:
        found = entity_at(scratch.entities, "orc")
        assert found is not None
        found.name = "Grunt"
        seen.extend([found, entity_at(scratch.entities, "ghost")])
        return scratch

    scratch = apply_to_scratch(rename, scratch_copy(state), [Event("renamed", {})])
    assert seen[0] is not state.entities["orc"] and seen[1] is None
    assert scratch.entities["orc"].name == "Grunt" and state == before
    assert entity_at(state.entities, "orc") is state.entities["orc"]
    assert entity_at(state.entities, "ghost") is None
    # between events a scratch's map reads as a dict: an entity it has not written is shared
    assert entity_at(scratch.entities, "nia") is state.entities["nia"]


def test_lookahead_copies_everything_before_an_override() -> None:
    state = _fight()
    before = copy.deepcopy(state)
    path = "orc.conditions"
    scratch = DEMO.lookahead(state, [Event("overridden", {
        "path": path, "value": [], "old": None, "reason": "test"})])
    assert scratch.entities["orc"].conditions == []
    assert state == before


def _polemos_setup() -> tuple[Any, EncounterState]:
    from pathlib import Path

    from arbiter.sim import Simulator, load_encounter, prepare
    root = Path(__file__).resolve().parents[2]
    sim = Simulator(prepare(load_encounter(root / "scenarios/encounters/polemos-4v4.yaml")))
    return sim, sim.base


def test_a_run_copy_shares_only_what_evolve_never_changes_and_leaves_the_setup_alone() -> None:
    """The simulator's runs start from ``run_copy`` of the set-up state: whole fights
    played on such copies leave the set-up as it was, and each run equals one played on a
    full copy (the same outcome and final state)."""
    sim, base = _polemos_setup()
    before = copy.deepcopy(base)
    copied = run_copy(base)
    nia = next(iter(base.entities))
    mine, theirs = copied.entities[nia], base.entities[nia]
    assert getattr(mine, "areas") is getattr(theirs, "areas")  # noqa: B009 (SHARED)
    assert mine.conditions is not theirs.conditions  # COPIED
    assert copied == base
    from arbiter.sim.stats import Tally
    for index in range(3):
        ended = sim.play(index, Tally())
        assert base == before
        full = base.copy()
        for entry in sim.logged(index).log:  # the event-sourced run, on a full copy
            for event in entry.events:
                sim.ruleset.evolve(full, event)
        assert ended == full


def test_own_fully_leaves_a_run_copy_nothing_shared() -> None:
    _, base = _polemos_setup()
    copied = run_copy(base)
    own_fully(copied)
    for key, entity in copied.entities.items():
        assert entity == base.entities[key]
        for name in ("areas", "weapons"):  # what a run copy shares
            assert getattr(entity, name) is not getattr(base.entities[key], name)
    assert copied.extra is not base.extra and copied == base


def test_the_simulator_owns_its_copy_before_an_override(monkeypatch: pytest.MonkeyPatch) -> None:
    """An ``overridden`` event may change a value in place: the fast path
    (``Ruleset.advance``) makes its run copy share nothing first, so the set-up state stays
    as it was: both where ``next`` applies its events as it decides them and where a
    command's events are applied after it is decided."""
    import arbiter.core.ruleset as kernel
    sim, base = _polemos_setup()
    before = copy.deepcopy(base)
    owned: list[int] = []
    real = own_fully

    def counting(state: EncounterState) -> None:
        owned.append(1)
        real(state)

    monkeypatch.setattr(kernel, "own_fully", counting)
    who = next(iter(base.entities))

    def override(value: int) -> Event:
        return Event("overridden", {"path": f"{who}.areas.head.vitality", "value": value,
                                    "old": None, "reason": "test"})

    ending = sim.ruleset.turn_end_events  # a turn's end: ``next`` applies it in place
    monkeypatch.setattr(sim.ruleset, "turn_end_events",
                        lambda state, actor, dice: [override(-3), *ending(state, actor, dice)])
    from arbiter.core.invariants import checking
    from arbiter.sim.stats import Tally
    with checking(False):  # the planted override skips what the rules derive from it
        sim.play(0, Tally())
    assert owned and base == before
    owned.clear()
    monkeypatch.setitem(sim.ruleset._do_table, "note", lambda state, command, dice: [override(-5)])
    state = run_copy(base)
    sim.ruleset.advance(state, Command("note", args={"text": "x"}), SeededDice(1))
    assert owned and base == before
    assert getattr(state.entities[who], "areas")["head"].vitality == -5  # noqa: B009


# -- copy-on-write promises, declared on the fields -----------------------------------------
def test_promises_are_read_from_the_fields_metadata() -> None:
    from arbiter.rulesets.polemos.model import Creature as PolemosCreature
    from arbiter.rulesets.realms.model import RealmsCreature
    from arbiter.rulesets.zones.model import Creature as ZonesCreature

    assert scratch_promises(EncounterState) == (frozenset({"rulings"}), frozenset({"economy"}))
    for kind in (RealmsCreature, ZonesCreature, PolemosCreature):
        shared, copied = scratch_promises(kind)
        assert {"tags", "stats"} <= shared and copied == {"conditions"}, kind
    assert {"position", "dr_uses", "over_time_seen"} <= scratch_promises(RealmsCreature)[0]
    assert "health" not in scratch_promises(RealmsCreature)[0]
    assert scratch_promises(DemoCreature) == (frozenset(), frozenset())  # copied whole


def test_a_field_metadata_other_than_shared_or_copied_is_refused() -> None:
    @dataclass
    class Odd(Entity):
        trail: list[str] = field(default_factory=list, metadata={SCRATCH: "sharde"})

    with pytest.raises(ValueError, match=r"^Odd\.trail: metadata 'arbiter\.scratch' must be "
                                         r"'shared' or 'copied', not 'sharde'$"):
        scratch_promises(Odd)


@dataclass
class Marked(DemoCreature):
    conditions: list[Condition] = field(default_factory=list, metadata=COPIED)
    marks: list[str] = field(default_factory=list, metadata=SHARED)


class MarkingDemo(type(DEMO)):  # type: ignore[misc]
    """The demo with a shared ``marks`` field that ``apply_damaged`` replaces (keeping the
    promise), or, with ``broken``, appends to in place (breaking it)."""

    broken = False

    def make_entity(self, entity_id: str, spec: Mapping[str, Any]) -> Entity:
        made = super().make_entity(entity_id, spec)
        return Marked(**{f.name: getattr(made, f.name) for f in dataclasses.fields(made)})

    def apply_damaged(self, state: EncounterState, data: dict[str, Any]) -> None:
        super().apply_damaged(state, data)
        target = state.entities[data["target"]]
        assert isinstance(target, Marked)
        if self.broken:
            target.marks.append("hit")
        else:
            target.marks = [*target.marks, "hit"]


def _marked(ruleset: MarkingDemo) -> EncounterState:
    enc = Encounter.create(ruleset)
    enc.execute({"do": "add", "id": "nia", "health": 20}, SeededDice(1))
    enc.execute({"do": "condition", "target": "nia", "name": "slowed"}, SeededDice(1))
    return enc.state


HIT = [Event("damaged", {"target": "nia", "taken": 2, "pipeline": [], "health": 18})]


def test_a_scratch_copy_shares_the_shared_fields_and_copies_the_copied_ones() -> None:
    ruleset = MarkingDemo()
    state = _marked(ruleset)
    original = state.entities["nia"]
    assert isinstance(original, Marked)
    original.marks = ["old"]
    scratch = ruleset.lookahead(state, [Event("healed", {
        "target": "nia", "healed": 0, "health": 19})])
    mine = scratch.entities["nia"]
    assert isinstance(mine, Marked) and mine is not original and mine.health == 19
    assert mine.marks is original.marks  # shared
    assert mine.tags == original.tags and mine.tags is not original.tags  # no promise: copied
    assert mine.conditions == original.conditions and mine.conditions is not original.conditions
    assert mine.conditions[0] is original.conditions[0]  # copied: the list, not its items
    assert scratch.rulings is state.rulings and scratch.economy is not state.economy
    assert original.health == 20 and original.marks == ["old"]


def test_without_the_guard_a_broken_promise_silently_changes_the_original() -> None:
    ruleset = MarkingDemo()
    ruleset.broken = True
    state = _marked(ruleset)
    ruleset.lookahead(state, HIT)
    assert state.entities["nia"].marks == ["hit"]  # type: ignore[attr-defined]


def test_the_guard_makes_a_broken_promise_raise_where_it_happens() -> None:
    ruleset = MarkingDemo()
    ruleset.broken = True
    state = _marked(ruleset)
    before = copy.deepcopy(state)
    with scratch_guard(), pytest.raises(BrokenPromise, match=(
            r"^Marked nia\.marks is shared by a lookahead's scratch copy with the state it "
            r"was copied from, but was changed in place \(list\.append\): an apply_\* method "
            r"must assign a new value instead")):
        ruleset.lookahead(state, HIT)
    assert state == before
    ruleset.broken = False
    with scratch_guard():  # the promise kept: the same answer as without the guard
        guarded = ruleset.lookahead(state, HIT)
    assert guarded == ruleset.lookahead(state, HIT)
    assert guarded.entities["nia"].marks == ["hit"]


def test_the_guard_hands_out_read_only_copies_that_behave_as_the_values() -> None:
    from arbiter.rulesets.polemos.model import BodyArea

    area = BodyArea(3, 5, True, ["torso"])
    value = {"head": area, "list": [1, {"x": 2}], "tags": {"a"}, "pair": ([1],)}
    guarded = read_only(value, "it")
    assert guarded == value and value == guarded
    assert guarded["head"] == area and area == guarded["head"]
    changes: list[tuple[Callable[[], object], str]] = [
        (lambda: guarded.update(y=1), r"^it is shared .*\(dict\.update\)"),
        (lambda: guarded["list"][1].pop("x"), r"^it\['list'\]\[1\] is shared .*\(dict\.pop\)"),
        (lambda: guarded["tags"].add("b"), r"^it\['tags'\] is shared .*\(set\.add\)"),
        (lambda: guarded["pair"][0].append(2), r"^it\['pair'\]\[0\] is shared .*list\.append"),
        (lambda: setattr(guarded["head"], "vitality", 1),
         r"^it\['head'\] is shared .*\(vitality = 1\)"),
    ]
    for change, what in changes:
        with pytest.raises(BrokenPromise, match=what):
            change()
    assert value == {"head": BodyArea(3, 5, True, ["torso"]), "list": [1, {"x": 2}],
                     "tags": {"a"}, "pair": ([1],)}
    # what is built from a read-only value is the plain, changeable kind
    replaced = dataclasses.replace(guarded["head"], vitality=1)
    assert type(replaced) is BodyArea and replaced.vitality == 1
    for copied in (copy.deepcopy(guarded), pickle.loads(pickle.dumps(guarded)),
                   clone(guarded)):
        assert copied == value and type(copied) is dict
        assert type(copied["head"]) is BodyArea and type(copied["list"][1]) is dict
        copied["list"][1]["x"] = 3
        copied["head"].vitality = 0
    assert type(guarded["list"].copy()) is list and type(dict(guarded)) is dict
    assert read_only(guarded, "again") is guarded and read_only((1, "a"), "t") == (1, "a")


def test_the_guard_covers_the_states_shared_fields_and_extra_keys() -> None:
    zones = load_ruleset("zones")
    enc = Encounter.create(zones)
    enc.execute({"do": "add", "id": "kim", "health": 6}, SeededDice(1))
    state = enc.state
    state.extra["zones"] = {"here": {"lights": "dim"}}
    with scratch_guard():
        scratch = zones.lookahead(state, [Event("noted", {"text": "x"})])
    with pytest.raises(BrokenPromise, match=r"^state\.extra\['zones'\]\['here'\] is shared"):
        scratch.extra["zones"]["here"]["lights"] = "dark"
    with pytest.raises(BrokenPromise, match=r"^state\.rulings is shared"):
        scratch.rulings["ZR-1"] = "x"
    assert state.extra["zones"] == {"here": {"lights": "dim"}}


def test_the_environment_variable_turns_the_guard_on() -> None:
    script = ("from arbiter.core import Encounter, Event, load_ruleset\n"
              "from arbiter.dice import SeededDice\n"
              "realms = load_ruleset('realms')\n"
              "enc = Encounter.create(realms)\n"
              "enc.execute({'do': 'add', 'id': 'nia'}, SeededDice(1))\n"
              "scratch = realms.lookahead(enc.state, [Event('condition_added', {\n"
              "    'target': 'nia', 'condition': {'name': 'prone'}})])\n"
              "scratch.entities['nia'].tags.add('x')\n")
    for value, code in (("1", 1), ("0", 0)):
        env = {**os.environ, "ARBITER_SCRATCH_GUARD": value}
        run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, check=False)
        assert run.returncode == code, run.stderr
        if code:
            assert "BrokenPromise: RealmsCreature nia.tags is shared" in run.stderr


OWN_SHARED_EXTRA = {
    # zones' regions on the scene, Polemos' painted walls, realms' difficult terrain
    "zones": (Event("region_set", {"zone": "ford", "rect": [0, 0, 4, 4]}),
              Event("region_set", {"zone": "ford", "rect": None})),
    "polemos": (Event("terrain_set", {"squares": [[1, 1], [2, 1]], "what": "wall"}),
                Event("terrain_set", {"squares": [[1, 1]], "what": "clear"})),
    "realms": (Event("terrain_set", {"squares": [[1, 1], [2, 1]], "clear": False}),
               Event("terrain_set", {"squares": [[1, 1]], "clear": True})),
}


@pytest.mark.parametrize("name", installed())
def test_the_kernels_extra_keys_are_shared_and_replaced_whole(name: str) -> None:
    """The scene, the tokens' pictures, the fog and the staged creatures are shared by every
    ruleset's scratch states (``KERNEL_EXTRA``: a painted map's fog was copied by every
    lookahead): each event that changes one, applied to a scratch state under the guard,
    assigns a new value and leaves the state it was copied from as it was."""
    ruleset = load_ruleset(name)
    enc = Encounter.create(ruleset)
    dice = SeededDice(1)
    for who in ("kim", "ash"):
        enc.execute({"do": "add", "id": who}, dice)
    state = enc.state
    scene = {"image": "a" * 64, "width": 800, "height": 600, "square": 50, "offset_x": 0,
             "offset_y": 0}
    events = [
        Event("scene_set", scene),
        Event("token_set", {"target": "kim", "image": "b" * 64}),
        Event("fog_set", {"enabled": True, "squares": [[1, 2], [3, 4]], "zones": [],
                          "hide": False}),
        Event("staged", {"target": "ash", "ready": True}),
    ]
    own = OWN_SHARED_EXTRA.get(name)  # a ruleset's own shared key: set, then changed
    if own is not None:
        events.append(own[0])
    state = ruleset.lookahead(state, events)  # every key present before the guarded look
    assert state.extra.keys() >= KERNEL_EXTRA
    before = copy.deepcopy(state.extra)
    changes = [
        Event("scene_set", {**scene, "square": 70}),
        Event("token_set", {"target": "kim", "image": "c" * 64}),
        Event("fog_set", {"enabled": True, "squares": [[1, 2]], "zones": [], "hide": True}),
        Event("staged", {"target": "ash", "ready": False}),
        Event("entity_removed", {"id": "kim"}),  # its token goes with it
    ]
    if own is not None:
        changes.append(own[1])
    with scratch_guard():
        for change in changes:
            after = ruleset.lookahead(state, [change])
            assert after.extra != state.extra, change.type
            assert state.extra == before, change.type
    copied = scratch_copy(state)
    kernel = ("scene", "tokens", "fog", "staged")
    own_keys = {"zones": "regions", "polemos": "terrain", "realms": "difficult"}
    shared = (*kernel, own_keys[name]) if name in own_keys else kernel
    assert all(copied.extra[key] is state.extra[key] for key in shared)
