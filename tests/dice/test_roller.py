"""Rolling: forced and seeded dice, every die's fate, rendering and JSON."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.dice import (
    DiceEvalError,
    DiceLimitError,
    ForcedDice,
    ForcedDiceError,
    RecordingDice,
    SeededDice,
    distribution,
    roll,
)


def test_keep_highest_renders_dropped_dice_struck() -> None:
    result = roll("4d6kh3", ForcedDice([6, 5, 3, 1]))
    assert result.total == 14
    assert str(result) == "4d6kh3 (6, 5, 3, ~~1~~) = 14"
    assert [d.fate for d in result.dice()] == ["kept", "kept", "kept", "dropped"]


def test_keep_lowest_and_drop() -> None:
    assert roll("2d20kl1", ForcedDice([17, 4])).total == 4
    assert roll("5d6dl2", ForcedDice([1, 6, 2, 5, 4])).total == 15
    assert roll("5d6dh1", ForcedDice([1, 6, 2, 5, 4])).total == 12


def test_arithmetic_and_both_roundings() -> None:
    assert roll("1d20+5", ForcedDice([13])).total == 18
    assert str(roll("1d20+5", ForcedDice([13]))) == "1d20 (13) + 5 = 18"
    assert roll("7/2", ForcedDice([])).total == 3
    assert roll("7/^2", ForcedDice([])).total == 4
    assert roll("-7/2", ForcedDice([])).total == -4
    assert roll("(1d4+1)*3", ForcedDice([2])).total == 9
    assert roll("d%", ForcedDice([100])).total == 100


def test_exploding_dice_add_dice_to_the_pool() -> None:
    result = roll("2d6!", ForcedDice([6, 6, 2, 3]))
    assert result.total == 17
    assert [(d.value, d.exploded) for d in result.dice()] == [
        (6, True), (6, True), (2, False), (3, False)
    ]
    assert str(result) == "2d6! (6!, 6!, 2, 3) = 17"
    assert roll("d6!>4", ForcedDice([5, 6, 1])).total == 12


def test_compounding_explosion_is_one_die() -> None:
    result = roll("d6!!", ForcedDice([6, 6, 2]))
    assert result.total == 14
    (die,) = result.dice()
    assert die.parts == (6, 6, 2)
    assert die.to_json() == {
        "value": 14, "faces": 6, "fate": "kept", "exploded": True, "parts": [6, 6, 2]
    }


def test_explosions_stop_after_the_limit() -> None:
    # a d2 exploding on 2 explodes up to 39 times: 2**-40 < 1e-12 <= 2**-39
    result = roll("d2!", ForcedDice([2] * 40 + [1]))
    assert result.total == 80
    assert len(result.dice()) == 40
    assert [d.exploded for d in result.dice()] == [True] * 39 + [False]
    # a d6 on 6 up to 20 times, as before: (1/6)**21 is far below 1e-12
    result = roll("d6!", ForcedDice([6] * 21 + [1]))
    assert result.total == 126
    assert len(result.dice()) == 21


def test_reroll_always_and_once() -> None:
    result = roll("d20r1", ForcedDice([1, 1, 7]))
    assert result.total == 7
    assert [d.fate for d in result.dice()] == ["rerolled", "rerolled", "kept"]
    assert roll("d20ro1", ForcedDice([1, 1])).total == 1
    assert roll("d20r<3", ForcedDice([2, 1, 3])).total == 3


def test_success_counting_counts_dice_meeting_the_target() -> None:
    result = roll("5d10>=7", ForcedDice([7, 6, 10, 1, 9]))
    assert result.total == 3
    assert [d.success for d in result.dice()] == [True, False, True, False, True]
    assert str(result) == "5d10>=7 (**7**, 6, **10**, 1, **9**) = 3"


def test_json_has_total_expression_and_every_die() -> None:
    data = roll("4d6kh3+1", ForcedDice([6, 5, 3, 1])).to_json()
    assert data["total"] == 15
    assert data["expression"] == "4d6kh3+1"
    assert [d["value"] for d in data["dice"]] == [6, 5, 3, 1]
    assert data["dice"][3]["fate"] == "dropped"


def test_forced_dice_run_out_with_a_clear_error() -> None:
    with pytest.raises(ForcedDiceError, match=r"roll number 3 \(a d6\) has no value"):
        roll("3d6", ForcedDice([1, 2]))


def test_forced_value_impossible_on_the_die() -> None:
    with pytest.raises(ForcedDiceError, match="forced value 7 cannot occur on a d6"):
        roll("1d6", ForcedDice([7]))


def test_division_by_zero() -> None:
    with pytest.raises(DiceEvalError, match="division by zero"):
        roll("1/(1d2-1)", ForcedDice([1]))


def test_roll_budget_bounds_rerolls() -> None:
    with pytest.raises(DiceLimitError, match="more than 10,000 dice"):
        roll("+".join(["1000d6"] * 11), SeededDice(1))


def test_seeded_dice_are_reproducible() -> None:
    a = [roll("10d10kh5+2", SeededDice(42)).total for _ in range(3)]
    b = [roll("10d10kh5+2", SeededDice(42)).total for _ in range(3)]
    assert a == b
    source = SeededDice(5)
    totals = {roll("1d6", source).total for _ in range(200)}
    assert totals == {1, 2, 3, 4, 5, 6}


def test_recording_dice_keep_every_roll() -> None:
    recorder = RecordingDice(ForcedDice([1, 4, 6]))
    roll("d6r1+d6", recorder)
    assert recorder.rolls == [(6, 1), (6, 4), (6, 6)]
    assert recorder.values() == [1, 4, 6]


EXPRESSIONS = [
    "1d20+5", "2d6+3", "4d6kh3", "3d6+2d4-1", "2d20kl1", "5d6dl2", "d6!", "3d6!!",
    "d20r1", "d20ro1", "6d10>=7", "3d6!>=6", "(1d6+1)*2", "1d8/2", "1d8/^2", "-d4",
    "2d6!!kh1", "4d6r1kh3", "1d6*1d6", "3d6!6>=5",
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(EXPRESSIONS), st.integers(0, 2**32))
def test_every_rolled_total_lies_in_the_exact_support(expr: str, seed: int) -> None:
    total = roll(expr, SeededDice(seed)).total
    assert distribution(expr).probability(total) > 0
