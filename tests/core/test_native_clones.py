"""The copying functions written for the compiled build's native classes
(``tools/native_clones.py`` into ``arbiter/native_clones.py``) copy as the pure build does.

They run only in the compiled build, where those classes have no ``__dict__``; here, in the
pure build, the same functions are compared with the pure copies (``clone``,
``scratch_clone``) on the creatures and states of played encounters: equal values, and the
same fields shared with the original and the same ones copied.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arbiter.core import EncounterState, Entity
from arbiter.core.copying import _fields_of, clone, native, scratch_clone, scratch_copy
from arbiter.native_clones import COPIERS
from arbiter.sim import Simulator, load_encounter, prepare
from arbiter.sim.stats import Tally

from ..support import script

ROOT = Path(__file__).resolve().parents[2]
PURE = not native(Entity)
"""This is the pure build (the tests also run under the compiled one: ``PYTHONPATH=build/
fast``, where the file is compared by ``tests/sim/test_compiled.py`` instead)."""
ENCOUNTERS = sorted((ROOT / "scenarios" / "encounters").glob("*.yaml"))


def _tool() -> ModuleType:
    return script("tools/native_clones.py")


@pytest.mark.skipif(not PURE, reason="written from the pure build's classes")
def test_the_written_file_is_current() -> None:
    tool = _tool()
    assert (ROOT / "src" / "arbiter" / "native_clones.py").read_text(encoding="utf-8") \
        == tool.source(), "run: python tools/native_clones.py"


def test_every_native_class_of_the_searched_modules_has_its_copiers() -> None:
    found = {name for _, name in _tool().native_classes()}
    assert {kind.__name__ for kind in COPIERS} == found
    assert {"Entity", "EncounterState", "Condition", "RealmsCreature", "Creature"} <= found


@pytest.fixture(scope="module")
def states() -> list[EncounterState]:
    """The end state of one played run of every shipped encounter."""
    out = []
    for path in ENCOUNTERS:
        sim = Simulator(prepare(load_encounter(path), seed=3))
        out.append(sim.play(0, Tally()))
    return out


def _sharing(copy: Any, original: Any) -> list[tuple[str, bool]]:
    """Which fields of ``copy`` are the very objects of ``original``'s (mutable ones only:
    a number or a text is shared either way)."""
    return [(f.name, getattr(copy, f.name) is getattr(original, f.name))
            for f in dataclasses.fields(original)
            if not isinstance(getattr(original, f.name), int | str | float | type(None))]


def test_the_copies_of_played_creatures_and_conditions_are_the_pure_copies(
        states: list[EncounterState]) -> None:
    seen: set[type] = set()
    for state in states:
        values: list[Any] = list(state.entities.values())
        values += [cond for entity in state.entities.values() for cond in entity.conditions]
        for value in values:
            copiers = COPIERS.get(type(value))
            if copiers is None:
                continue
            seen.add(type(value))
            full, scratch, fields, build = copiers
            assert full(value) == clone(value) == value
            assert _sharing(full(value), value) == _sharing(clone(value), value)
            assert scratch(value) == value
            if isinstance(value, Entity):
                assert _sharing(scratch(value), value) == \
                    _sharing(scratch_clone(value), value)
            assert fields(value) == _fields_of(value)
            assert build(fields(value)) == value
    assert len(seen) >= 4, seen  # the three rulesets' creatures and conditions at least


def test_the_state_reads_and_builds_as_its_fields(states: list[EncounterState]) -> None:
    full, _, fields, build = COPIERS[EncounterState]
    for state in states:
        assert fields(state) == _fields_of(state)
        rebuilt = build(fields(state))
        assert rebuilt == state and rebuilt.entities is state.entities
        assert full(state) == clone(state)
        assert scratch_copy(state) == state


@pytest.mark.skipif(not PURE, reason="the compiled build")
def test_the_pure_build_has_no_native_class() -> None:
    assert not any(native(kind) for kind in COPIERS)
