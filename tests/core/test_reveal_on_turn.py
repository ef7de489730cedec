"""The kernel's reveal at a hidden creature's turn, its setting, the concealing names each
ruleset declares, and the throw-away dice sources."""

from __future__ import annotations

import pytest

from arbiter.core import Command, Encounter, IllegalCommand, InvalidCommand, Ruleset, load_ruleset
from arbiter.dice import DiceError, ForcedDice
from arbiter.dice.sources import NoDice, ProbeDice, SeededDice

DEMO = load_ruleset("demo")


def ambush(reveal_on_turn: bool) -> Encounter:
    """nia, then a hidden imp, then a visible orc, in turn-by-turn play (nia's turn)."""
    enc = Encounter.create(DEMO, reveal_on_turn=reveal_on_turn)
    for spec in (
        {"id": "nia", "health": 10},
        {"id": "imp", "health": 5, "hidden": True},
        {"id": "orc", "health": 5},
    ):
        enc.execute(Command("add", args=spec), ForcedDice([]))
    enc.execute(
        Command("start", args={"initiative": {"nia": 12, "imp": 8, "orc": 4}}), ForcedDice([])
    )
    return enc


def play_rounds(enc: Encounter, turns: int) -> list[list[str]]:
    """The event types of each of ``turns`` ``next`` entries."""
    out = []
    for _ in range(turns):
        entry = enc.execute(Command("next"), ForcedDice([]))
        out.append([e.type for e in entry.events])
    return out


def test_a_hidden_creature_is_revealed_once_as_its_first_turn_starts() -> None:
    enc = ambush(reveal_on_turn=True)
    assert enc.log[0].events[0].data["reveal_on_turn"] is True
    assert enc.state.reveal_on_turn is True
    assert enc.state.entity("imp").hidden
    turns = play_rounds(enc, 9)  # three rounds
    assert turns[0] == ["turn_ended", "turn_started", "revealed"]  # the imp's first turn
    assert enc.log[-9].events[2].data == {"target": "imp"}
    assert all("revealed" not in t for t in turns[1:])
    assert enc.state.round == 4 and not enc.state.entity("imp").hidden
    assert [e.type for e in enc.events()].count("revealed") == 1


def test_with_the_setting_off_it_stays_hidden_on_every_turn() -> None:
    enc = ambush(reveal_on_turn=False)
    assert "reveal_on_turn" not in enc.log[0].events[0].data  # the logs made before it
    turns = play_rounds(enc, 9)
    assert all("revealed" not in t for t in turns)
    assert enc.state.entity("imp").hidden and not enc.state.reveal_on_turn


def test_the_first_in_the_order_is_revealed_by_start() -> None:
    enc = Encounter.create(DEMO, reveal_on_turn=True)
    enc.execute(Command("add", args={"id": "imp", "health": 5, "hidden": True}), ForcedDice([]))
    enc.execute(Command("add", args={"id": "nia", "health": 10}), ForcedDice([]))
    entry = enc.execute(Command("start", args={"initiative": {"imp": 9, "nia": 3}}), ForcedDice([]))
    assert [e.type for e in entry.events] == ["combat_started", "turn_started", "revealed"]
    assert not enc.state.entity("imp").hidden


def test_the_gm_turns_it_on_and_off_and_the_log_replays_it() -> None:
    enc = ambush(reveal_on_turn=False)
    entry = enc.execute(Command("reveal_on_turn", args={"enabled": True}), ForcedDice([]))
    assert [(e.type, e.data) for e in entry.events] == [("reveal_on_turn_set", {"enabled": True})]
    assert DEMO.describe("reveal_on_turn_set", entry.events[0].data, {}) == (
        "A creature the GM hid is now revealed when its turn starts."
    )
    assert DEMO.describe("reveal_on_turn_set", entry.events[0].data, {}, gm=False) == (
        "The game master changes a setting."
    )
    with pytest.raises(IllegalCommand, match="already revealed when its turn starts"):
        enc.execute(Command("reveal_on_turn", args={"enabled": True}), ForcedDice([]))
    assert play_rounds(enc, 1) == [["turn_ended", "turn_started", "revealed"]]
    enc.execute(
        Command("override", args={"path": "imp.hidden", "value": True, "reason": "it slips away"}),
        ForcedDice([]),
    )
    enc.execute(Command("reveal_on_turn", args={"enabled": False}), ForcedDice([]))
    assert all("revealed" not in t for t in play_rounds(enc, 3))
    assert enc.state.entity("imp").hidden
    again = Encounter.replay(DEMO, enc.log)
    assert again.state == enc.state


def test_the_setting_is_a_gm_command_with_a_required_flag() -> None:
    spec = DEMO.spec("reveal_on_turn")
    assert spec.who == "gm"
    enc = ambush(reveal_on_turn=False)
    with pytest.raises(InvalidCommand, match="enabled"):
        enc.execute(Command("reveal_on_turn"), ForcedDice([]))
    with pytest.raises(InvalidCommand, match="enabled"):
        enc.execute(Command("reveal_on_turn", args={"enabled": "yes"}), ForcedDice([]))


def test_a_lookahead_reveals_on_its_copy_only() -> None:
    enc = ambush(reveal_on_turn=True)
    events = DEMO.decide(enc.state, Command("next"), ForcedDice([]))
    after = DEMO.lookahead(enc.state, events)
    assert not after.entity("imp").hidden
    assert enc.state.entity("imp").hidden


def test_the_kernel_names_no_concealing_condition_and_each_ruleset_its_own() -> None:
    assert Ruleset.concealing == frozenset()
    common = {"hidden", "invisible", "undetected", "unnoticed"}
    assert {
        name: set(load_ruleset(name).concealing) for name in ("demo", "realms", "polemos", "zones")
    } == {"demo": common, "realms": common, "polemos": common, "zones": common | {"unseen"}}


def test_the_visible_to_hook_leaves_it_to_the_kernel_by_default() -> None:
    enc = ambush(reveal_on_turn=False)
    assert DEMO.visible_to(enc.state, enc.state.entity("imp"), frozenset({"nia"})) is None


def test_no_dice_names_the_command_that_tried_to_roll() -> None:
    with pytest.raises(DiceError, match=r"'add' rolls no dice here \(it asked for a d20\)"):
        NoDice("add").roll(20)
    enc = ambush(reveal_on_turn=False)
    with pytest.raises(InvalidCommand, match="'add' rolls no dice here"):
        DEMO.decide(enc.state, Command("add", args={"id": "late", "health": 3}), NoDice("add"))


def test_probe_dice_roll_the_same_every_time() -> None:
    assert [ProbeDice().roll(20) for _ in range(3)] == [SeededDice(0).roll(20)] * 3
    assert ProbeDice().roll_many(4, 6) == SeededDice(0).roll_many(4, 6)
