"""Explanations written only when read (issue 22): a dice breakdown or a pipeline's text is a
:class:`Deferred` payload value, built by ``Event.to_json`` (the store, the API, the log),
never by a simulated fight that only decides and evolves."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from arbiter.core import Command, Deferred, EncounterState, Event, load_ruleset
from arbiter.dice import ForcedDice
from arbiter.dice.roller import RollResult
from arbiter.rulesets.zones.rolls import roll_check
from arbiter.sim import Simulator, load_encounter, prepare

ROOT = Path(__file__).resolve().parents[2]


class Counted:
    def __init__(self, value: dict[str, Any]) -> None:
        self.value = value
        self.calls = 0

    def build(self) -> dict[str, Any]:
        self.calls += 1
        return dict(self.value)


def test_a_deferred_value_is_built_once_and_only_when_read() -> None:
    source = Counted({"total": 7, "text": "2d6 (3, 4) = 7"})
    value = Deferred(source.build, {"bonus": 1})
    assert source.calls == 0
    assert value["text"] == "2d6 (3, 4) = 7" and value["bonus"] == 1
    assert list(value) == ["total", "text", "bonus"] and len(value) == 3
    assert source.calls == 1


def test_known_fields_are_read_without_building_and_come_first() -> None:
    source = Counted({"text": "1d20 (4) = 4 vs DEX 12: success"})
    value = Deferred(source.build, known={"total": 4, "success": True})
    assert value["success"] is True and value["total"] == 4 and bool(value)
    assert source.calls == 0
    assert list(value.items()) == [("total", 4), ("success", True),
                                   ("text", "1d20 (4) = 4 vs DEX 12: success")]
    with pytest.raises(KeyError):
        value["missing"]


def test_it_equals_copies_and_pickles_as_the_dict_it_stands_for() -> None:
    plain = {"total": 7, "text": "x"}
    value = Deferred(lambda: dict(plain))
    assert value == plain and plain == value and value != {"total": 8, "text": "x"}
    for twin in (copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
        assert type(twin) is dict and twin == plain


def test_event_to_json_writes_out_every_deferred_value_at_any_depth() -> None:
    roll = Deferred(lambda: {"total": 3})
    event = Event("x", {"a": 1, "roll": roll, "hits": [{"pipeline": roll}, 2]})
    out = event.to_json()["data"]
    assert out == {"a": 1, "roll": {"total": 3}, "hits": [{"pipeline": {"total": 3}}, 2]}
    assert type(out["roll"]) is dict and type(out["hits"][0]["pipeline"]) is dict
    assert json.loads(json.dumps(out)) == out
    assert event.data["roll"] is roll  # the event itself is not changed
    plain = Event("y", {"a": [1, 2]})
    assert plain.to_json()["data"] is plain.data  # nothing to write: no copy


def test_a_zones_check_reads_its_numbers_without_its_text() -> None:
    check = roll_check("1d20", "DEX", 12, {"cover": 2}, ForcedDice([10]), {})
    assert check["success"] is True and check["total"] == 12
    assert check["text"] == "1d20 (10) + 2 Hindrance = 12 vs DEX 12: success"


def test_deciding_an_attack_renders_no_dice_and_storing_it_renders_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Realms: the attack's rolls and the damage pipeline are rendered by ``to_json`` only."""
    rendered: list[str] = []
    original = RollResult.render

    def counting(self: RollResult) -> str:
        text = original(self)
        rendered.append(text)
        return text

    monkeypatch.setattr(RollResult, "render", counting)
    job = prepare(load_encounter(ROOT / "scenarios" / "encounters" / "realms-4v4.yaml"))
    result = Simulator(job).logged(0)
    assert rendered == []  # a whole fight decided and evolved: no breakdown written
    stored = [event for entry in result.log for event in entry.to_json()["events"]]
    assert rendered, "writing the log out renders the dice breakdowns"
    pipelines = [e["data"]["pipeline"] for e in stored if e["type"] == "damaged"]
    assert pipelines and all(type(p) is dict and isinstance(p["text"], str) for p in pipelines)


def test_the_kernel_initiative_roll_is_written_out_in_the_stored_event() -> None:
    ruleset = load_ruleset("demo")
    state = EncounterState("demo")
    for name in ("nia", "ogre"):
        for event in ruleset.decide(state, Command("add", args={"id": name, "name": name}),
                                    ForcedDice([])):
            ruleset.evolve(state, event)
    [started, *_] = ruleset.decide(state, Command("start"), ForcedDice([15, 4, 1, 1, 1, 1]))
    rolls = started.to_json()["data"]["rolls"]
    assert {k: type(v) for k, v in rolls.items()} == {"nia": dict, "ogre": dict}
    assert rolls["nia"]["text"].startswith("1d20") and rolls["nia"]["total"] >= 15


def test_it_reads_as_a_mapping_without_being_a_subclass_of_one() -> None:
    """``Deferred`` writes out what a ``Mapping`` reads (the compiled build cannot compile a
    subclass of one) and is registered as one: what the mixins gave, it gives, with the
    known fields read without building the rest."""
    source = Counted({"text": "2d6 (3, 4) = 7"})
    value = Deferred(source.build, {"bonus": 1}, known={"total": 7})
    assert isinstance(value, Mapping) and not issubclass(Deferred, dict)
    assert value.get("total") == 7 and "total" in value and source.calls == 0
    assert value.get("missing") is None and value.get("missing", 3) == 3
    assert "text" in value and "missing" not in value and 7 not in value
    assert list(value.keys()) == ["total", "text", "bonus"]
    assert list(value.values()) == [7, "2d6 (3, 4) = 7", 1]
    assert dict(value.items()) == {**value} == dict(value)
    same = Deferred(lambda: {"total": 7, "text": "2d6 (3, 4) = 7", "bonus": 1})
    assert value == same and (value != same) is False
    assert value != {"total": 7} and value != [("total", 7)] and value != 7
    with pytest.raises(TypeError):
        hash(value)
    assert source.calls == 1
