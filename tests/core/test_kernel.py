"""The rules kernel: decide/evolve, replay, turns, conditions, overrides, rulings, schemas."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.core import (
    Command,
    Encounter,
    Entry,
    Event,
    IllegalCommand,
    InvalidCommand,
    RulesError,
    RulingError,
    SchemaError,
    UnknownEntity,
    load_ruleset,
)
from arbiter.core.events import upcaster
from arbiter.core.rounding import round_down, round_up
from arbiter.dice import ForcedDice, SeededDice

DEMO = load_ruleset("demo")


def fight(seed: int = 1) -> Encounter:
    enc = Encounter.create(DEMO)
    dice = SeededDice(seed)
    enc.execute({"do": "add", "id": "nia", "health": 20, "attack": 4, "defense": 13}, dice)
    enc.execute({"do": "add", "id": "orc", "health": 20, "attack": 3, "defense": 12}, dice)
    return enc


def test_initiative_orders_highest_first_and_rounds_advance() -> None:
    enc = fight()
    enc.execute({"do": "start"}, ForcedDice([4, 17]))
    assert enc.state.order == ["orc", "nia"]
    assert (enc.state.round, enc.state.current) == (1, "orc")
    enc.execute({"do": "next"}, ForcedDice([]))
    assert (enc.state.round, enc.state.current) == (1, "nia")
    enc.execute({"do": "next"}, ForcedDice([]))
    assert (enc.state.round, enc.state.current) == (2, "orc")


def test_initiative_can_change_mid_combat() -> None:
    enc = fight()
    enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5}}, ForcedDice([]))
    enc.execute({"do": "initiative", "target": "orc", "value": 15}, ForcedDice([]))
    assert enc.state.order == ["orc", "nia"]
    assert enc.state.current == "nia"


def test_a_removed_creature_never_comes_back_into_the_order() -> None:
    """Its initiative goes with it: a creature joining later, or an initiative change,
    sorts every initiative the state holds, and the removed one is not among them."""
    enc = fight()
    enc.execute({"do": "add", "id": "elf", "health": 9}, ForcedDice([]))
    enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5, "elf": 7}}, ForcedDice([]))
    enc.execute({"do": "remove", "target": "elf"}, ForcedDice([]))
    assert "elf" not in enc.state.initiative
    enc.execute({"do": "add", "id": "imp", "health": 3, "initiative": 6}, ForcedDice([]))
    enc.execute({"do": "initiative", "target": "orc", "value": 15}, ForcedDice([]))
    assert enc.state.order == ["orc", "nia", "imp"]


def test_acting_out_of_turn_is_refused_with_the_reason() -> None:
    enc = fight()
    enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5}}, ForcedDice([]))
    with pytest.raises(IllegalCommand, match="it is nia's turn, not orc's"):
        enc.execute({"do": "attack", "actor": "orc", "target": "nia"}, ForcedDice([10]))


def test_a_refused_command_changes_nothing() -> None:
    enc = fight()
    before = enc.state.copy()
    with pytest.raises(RulesError):
        enc.execute({"do": "attack", "actor": "nia", "target": "nobody"}, ForcedDice([10]))
    assert enc.state == before
    assert len(enc.log) == 3


def test_unknown_names_and_commands_say_what_exists() -> None:
    enc = fight()
    known = r"no creature or object named 'bob' here \(known: nia, orc\)"
    with pytest.raises(UnknownEntity, match=known):
        enc.execute({"do": "attack", "actor": "bob", "target": "orc"}, ForcedDice([]))
    with pytest.raises(InvalidCommand, match="demo has no command 'fly'"):
        enc.execute({"do": "fly"}, ForcedDice([]))
    with pytest.raises(InvalidCommand, match="'amount' must be a whole number from 0 to 9999"):
        enc.execute({"do": "damage", "target": "orc", "amount": "lots"}, ForcedDice([]))
    with pytest.raises(InvalidCommand, match="unknown stat-block key"):
        enc.execute({"do": "add", "id": "x", "wings": 2}, ForcedDice([]))


def test_a_misspelt_argument_is_refused_with_the_nearest_name_not_ignored() -> None:
    """Ignoring ``weapn`` would roll the default weapon's damage; nothing is decided."""
    realms = load_ruleset("realms")
    enc = Encounter.create(realms)
    for actor in ("nia", "orc"):
        enc.execute({"do": "add", "id": actor, "health": 20}, ForcedDice([]))
    with pytest.raises(InvalidCommand,
                       match=r"attack: no argument 'weapn' \(did you mean 'weapon'\?\)"):
        enc.execute({"do": "attack", "actor": "nia", "target": "orc", "weapn": "bow"},
                    ForcedDice([20, 6]))
    with pytest.raises(InvalidCommand, match=r"no argument 'qzxv' \(it takes: text\)$"):
        enc.execute({"do": "note", "text": "x", "qzxv": 1}, ForcedDice([]))
    assert len(enc.log) == 3 and enc.state.entity("orc").health == 20  # type: ignore[attr-defined]
    entry = enc.execute({"do": "attack", "actor": "nia", "target": "orc", "weapon": "bow"},
                        ForcedDice([20, 6, 6]))
    assert entry.events[0].data["hit"]
    # a stat block's keys are the stat block's to check (``add``)
    with pytest.raises(InvalidCommand, match="unknown stat-block key"):
        enc.execute({"do": "add", "id": "x", "wings": 2}, ForcedDice([]))


def test_conditions_keep_the_higher_level_and_expire_at_their_end_point() -> None:
    enc = fight()
    enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5}}, ForcedDice([]))
    enc.execute({"do": "condition", "target": "orc", "name": "dazed", "level": 2, "rounds": 2},
                ForcedDice([]))
    enc.execute({"do": "condition", "target": "orc", "name": "dazed", "level": 1}, ForcedDice([]))
    dazed = enc.state.entity("orc").condition("dazed")
    assert dazed is not None and dazed.level == 2
    assert dazed.duration.remaining_rounds(enc.state) == 2
    for _ in range(3):
        enc.execute({"do": "next"}, ForcedDice([]))
    assert enc.state.entity("orc").has("dazed")
    enc.execute({"do": "next"}, ForcedDice([]))  # start of nia's turn in round 3
    assert (enc.state.round, enc.state.current) == (3, "nia")
    assert not enc.state.entity("orc").has("dazed")


def test_override_is_an_event_with_its_reason() -> None:
    enc = fight()
    entry = enc.execute({"do": "override", "path": "orc.health", "value": 3,
                         "reason": "wounded earlier"}, ForcedDice([]))
    assert entry.events[0].data == {"path": "orc.health", "value": 3, "old": 20,
                                    "reason": "wounded earlier"}
    assert enc.state.entity("orc").health == 3  # type: ignore[attr-defined]
    with pytest.raises(InvalidCommand, match="give a 'reason'"):
        enc.execute({"do": "override", "path": "orc.health", "value": 1}, ForcedDice([]))
    with pytest.raises(InvalidCommand, match="nothing named 'mana'"):
        enc.execute({"do": "override", "path": "orc.mana", "value": 1, "reason": "x"},
                    ForcedDice([]))


@pytest.mark.parametrize(("value", "expected"), [
    ("abc", "Expected `int`, got `str`"), (2.5, "Expected `int`, got `float`"),
    (None, "Expected `int`, got `null`"), (True, "Expected `int`, got `bool`"),
    ([1], "Expected `int`, got `array`")])
def test_an_override_of_the_wrong_type_is_refused_and_changes_nothing(
        value: Any, expected: str) -> None:
    """A value must have the type its field declares: a Health of "abc" would break every
    rule that reads it (and a native class of the compiled build cannot even hold it)."""
    enc = fight()
    before = len(enc.log)
    with pytest.raises(InvalidCommand, match=f"cannot override 'orc.health': {expected}"):
        enc.execute({"do": "override", "path": "orc.health", "value": value, "reason": "x"},
                    ForcedDice([]))
    assert enc.state.entity("orc").health == 20  # type: ignore[attr-defined]
    assert len(enc.log) == before


def test_an_override_takes_the_type_of_its_field_and_of_a_mapping_s_items() -> None:
    enc = fight()
    enc.execute({"do": "add", "id": "ogre", "health": 9, "stats": {"STR": 4}}, ForcedDice([]))
    enc.execute({"do": "override", "path": "orc.tags", "value": ["brute", "brute"],
                 "reason": "x"}, ForcedDice([]))
    assert enc.state.entity("orc").tags == {"brute"}  # a set, as the field says
    enc.execute({"do": "override", "path": "ogre.stats.STR", "value": 3, "reason": "x"},
                ForcedDice([]))
    assert enc.state.entity("ogre").stats["STR"] == 3
    with pytest.raises(InvalidCommand, match=r"'ogre.stats.STR': Expected `int`, got `str`"):
        enc.execute({"do": "override", "path": "ogre.stats.STR", "value": "3", "reason": "x"},
                    ForcedDice([]))


def test_an_override_of_a_derived_value_says_it_cannot_be_set() -> None:
    """``down`` is worked out from Health, not stored: setting it is refused, not a crash."""
    enc = fight()
    with pytest.raises(InvalidCommand, match=r"cannot override 'orc.down': .*no setter"):
        enc.execute({"do": "override", "path": "orc.down", "value": True, "reason": "x"},
                    ForcedDice([]))
    assert not enc.state.entity("orc").down  # type: ignore[attr-defined]


def test_rulings_resolve_defaults_and_validate_overrides() -> None:
    assert DEMO.rulings.resolve() == {"DEMO-1": "double-dice"}
    enc = Encounter.create(DEMO, {"DEMO-1": "max-damage"})
    assert enc.state.rulings == {"DEMO-1": "max-damage"}
    with pytest.raises(RulingError, match="has no choice 'triple'"):
        Encounter.create(DEMO, {"DEMO-1": "triple"})
    with pytest.raises(RulingError, match="unknown ruling 'X-9'"):
        DEMO.rulings.resolve({"X-9": "a"})


def test_rounding_helpers() -> None:
    assert (round_down(7, 2), round_up(7, 2), round_down(-1, 2), round_up(-1, 2)) == (3, 4, -1, 0)


def test_entries_round_trip_through_json() -> None:
    enc = fight()
    enc.execute({"do": "attack", "actor": "nia", "target": "orc"}, ForcedDice([15, 4]))
    entry = enc.log[-1]
    again = Entry.from_json(entry.to_json())
    assert again == entry
    assert again.dice == [(20, 15), (6, 4)]


def test_old_event_versions_are_upcast() -> None:
    @upcaster("noted", 0)
    def _v0(data: dict[str, Any]) -> dict[str, Any]:
        return {"text": data["message"]}

    event = Event.from_json({"type": "noted", "v": 0, "data": {"message": "hello"}})
    assert event == Event("noted", {"text": "hello"})
    with pytest.raises(SchemaError, match="newer than this Arbiter understands"):
        Event.from_json({"type": "noted", "v": 99, "data": {}})


def test_an_event_payload_whose_type_is_not_a_name_is_refused() -> None:
    for bad in (7, None, ["noted"], {"t": 1}):
        with pytest.raises(SchemaError, match="the type must be a name"):
            Event.from_json({"type": bad, "data": {}})
    with pytest.raises(SchemaError, match="malformed event payload"):
        Event.from_json({"data": {}})
    for bad_data in (5, "ab", [1], None):
        with pytest.raises(SchemaError, match="malformed event payload"):
            Event.from_json({"type": "noted", "data": bad_data})


ACTIONS = st.sampled_from(["attack", "next", "damage", "heal", "condition", "uncondition"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ACTIONS, st.sampled_from(["nia", "orc"]), st.integers(0, 9)),
                max_size=25), st.integers(0, 1000))
def test_replaying_the_log_gives_the_identical_state(
    script: list[tuple[str, str, int]], seed: int
) -> None:
    enc = fight(seed)
    dice = SeededDice(seed)
    enc.execute({"do": "start"}, dice)
    for action, who, n in script:
        other = "orc" if who == "nia" else "nia"
        commands: dict[str, dict[str, Any]] = {
            "attack": {"do": "attack", "actor": enc.state.current, "target": other},
            "next": {"do": "next"},
            "damage": {"do": "damage", "target": who, "amount": n},
            "heal": {"do": "heal", "target": who, "amount": n},
            "condition": {"do": "condition", "target": who, "name": "dazed", "level": n,
                          "rounds": n % 3},
            "uncondition": {"do": "uncondition", "target": who, "name": "dazed"},
        }
        command = commands[action]
        with contextlib.suppress(RulesError):
            enc.execute(command, dice)
    replayed = Encounter.replay(DEMO, [Entry.from_json(e.to_json()) for e in enc.log])
    assert replayed.state == enc.state


def test_commands_carry_their_canonical_text() -> None:
    cmd = Command.from_json({"do": "attack", "actor": "nia", "target": "orc"})
    assert str(cmd) == "attack actor=nia target=orc"
    assert Command.from_json(cmd.to_json()) == cmd


def test_a_creature_added_mid_combat_joins_the_order_by_its_initiative() -> None:
    """It keeps its place after another initiative change, and takes its turn: later this
    round when its initiative is below the current creature's, else from the next round."""
    enc = fight()
    enc.execute({"do": "start", "initiative": {"nia": 20, "orc": 5}}, ForcedDice([]))
    enc.execute({"do": "add", "id": "wolf", "health": 9, "initiative": 10}, ForcedDice([]))
    assert enc.state.order == ["nia", "wolf", "orc"] and enc.state.current == "nia"
    enc.execute({"do": "add", "id": "hawk", "health": 3}, ForcedDice([20]))  # 1d20 + 0
    assert enc.state.initiative["hawk"] == 20
    assert enc.state.order == ["nia", "hawk", "wolf", "orc"] and enc.state.current == "nia"
    enc.execute({"do": "initiative", "target": "orc", "value": 30}, ForcedDice([]))
    assert enc.state.order == ["orc", "nia", "hawk", "wolf"]
    turns = []
    for _ in range(4):
        enc.execute({"do": "next"}, ForcedDice([]))
        turns.append((enc.state.round, enc.state.current))
    assert turns == [(1, "hawk"), (1, "wolf"), (2, "orc"), (2, "nia")]


def test_a_batch_is_one_entry_and_refused_whole() -> None:
    """Apply to many: the GM's commands at once, one log entry (so one undo)."""
    enc = fight()
    entry = enc.execute({"do": "batch", "commands": [
        {"do": "damage", "target": "nia", "amount": 3},
        {"do": "damage", "target": "orc", "amount": 4},
        {"do": "condition", "target": "orc", "name": "prone"}]}, ForcedDice([]))
    assert [e.type for e in entry.events] == ["damaged", "damaged", "condition_added"]
    health = {e.id: getattr(e, "health", None) for e in enc.state.entities.values()}
    assert health == {"nia": 17, "orc": 16}
    before = enc.state.copy()
    with pytest.raises(InvalidCommand, match=r"batch: command 2 \(damage\): no creature"):
        enc.execute({"do": "batch", "commands": [{"do": "damage", "target": "nia", "amount": 1},
                                                 {"do": "damage", "target": "zz", "amount": 1}]},
                    ForcedDice([]))
    assert enc.state == before
    with pytest.raises(InvalidCommand, match="cannot be a 'batch'"):
        enc.execute({"do": "batch", "commands": [{"do": "batch", "commands": []}]},
                    ForcedDice([]))


def test_a_condition_read_back_shares_one_duration_for_each_value() -> None:
    """``Condition.from_json`` reads its duration through ``duration_of``: one object for
    each value (a Duration never changes), equal to ``Duration(**data)``; ``1`` and
    ``True`` are kept apart, and a key no field has is refused as the call refuses it."""
    from arbiter.core.model import Condition, Duration, duration_of
    data = {"kind": "timed", "round": 3, "turn_of": "nia", "at": "start"}
    first = Condition.from_json({"name": "dazed", "duration": dict(data)}).duration
    second = Condition.from_json({"name": "blessed", "duration": dict(data)}).duration
    assert first is second and first == Duration(**data)  # type: ignore[arg-type]
    assert duration_of({"kind": "timed", "round": True}).round is True
    assert duration_of({"kind": "timed", "round": 1}).round == 1
    assert type(duration_of({"kind": "timed", "round": 1}).round) is int
    with pytest.raises(TypeError, match="unexpected keyword argument 'lasts'"):
        duration_of({"kind": "timed", "lasts": 2})
    unhashable = duration_of({"kind": "caused", "cause": ["a list"]})  # made, not kept
    assert unhashable.cause == ["a list"]  # type: ignore[comparison-overlap]
