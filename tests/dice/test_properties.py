"""Random expressions over every operator: they print and parse back, never crash roll or
odds, and their exact odds are what icepool (an independent exact library, through
``icepool_model``) gives wherever it can express them."""

from __future__ import annotations

import json
import signal
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from arbiter.dice import (
    DiceError,
    DiceEvalError,
    DiceSource,
    NoExactOdds,
    SeededDice,
    distribution,
    estimate,
    parse,
    roll,
)
from arbiter.dice.ast import Node

from .icepool_model import Inexpressible, as_dict, model
from .strategies import any_dice, any_expressions, commented
from .test_bounds import UNFAIR, adversaries

everything = commented(any_expressions())
REFERENCE_SECONDS = 5.0
"""How long icepool may take to model one expression before the comparison is given up:
some generated keep/drop pools take it minutes and gigabytes (ours is bounded by
``arbiter.dice.limits`` and has already answered by then)."""


class _ReferenceTooSlow(Exception):
    pass


_ARMED: list[bool] = []
"""Not empty while icepool is timed (the alarm raises only then)."""


def _too_slow(signum: int, frame: FrameType | None) -> Any:
    if _ARMED:
        raise _ReferenceTooSlow


def _disarm() -> None:
    _ARMED.clear()
    signal.setitimer(signal.ITIMER_REAL, 0)


def _reference(node: Node) -> dict[int, Any]:
    """icepool's odds of ``node``, or :class:`_ReferenceTooSlow` after REFERENCE_SECONDS.
    The alarm repeats every quarter second until disarmed: one that strikes while a
    garbage-collector callback runs is swallowed there, and the next one is not."""
    before = signal.signal(signal.SIGALRM, _too_slow)
    _ARMED.append(True)
    signal.setitimer(signal.ITIMER_REAL, REFERENCE_SECONDS, 0.25)
    try:
        return as_dict(model(node))
    finally:
        _disarm()
        signal.signal(signal.SIGALRM, before)


small = any_expressions(any_dice(faces=6, count=3, keep=3, percentile=False), max_leaves=4)


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(everything)
def test_every_construct_prints_and_parses_back(node: Node) -> None:
    text = str(node)
    assert parse(text) == node, text
    assert str(parse(text)) == text


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(everything, st.lists(st.integers(0, 2**32), min_size=1, max_size=3))
def test_roll_and_odds_never_crash_and_always_agree(node: Node, seeds: list[int]) -> None:
    """Odds and roll raise nothing but a dice error; what odds accept rolls for every seed
    (and for dice that always show their worst faces) inside the support."""
    sources: list[DiceSource] = [*(SeededDice(seed) for seed in seeds), *adversaries()]
    try:
        dist = distribution(node)
    except NoExactOdds as err:
        event("no exact odds")
        assert str(err).startswith("no exact odds for ")
        try:
            guess = estimate(node, rolls=50, seed=seeds[0])
        except DiceEvalError:
            return  # a division by zero that happened to come up
        assert guess.rolls == 50 and sum(guess.counts.values()) == 50
        return
    except DiceError as err:
        event(f"odds refused: {type(err).__name__}")
        assert str(err)
        for source in sources:
            try:
                roll(node, source)
            except DiceError as rolled:
                assert str(rolled)
        return
    event("odds accepted")
    json.dumps(dist.to_json())
    for source in sources:
        try:
            result = roll(node, source)  # never raises: no limit, no division by zero
        except DiceError as err:  # ... but a reroll until that a constant source never stops
            assert not isinstance(source, SeededDice) and UNFAIR in str(err), str(err)
            continue
        assert dist.probability(result.total) > 0, (str(node), result.total)
        json.dumps(result.to_json())
        assert result.render()


# an alarm swallowed by a garbage-collector callback is reported as "unraisable"
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(small)
def test_exact_odds_are_what_icepool_gives(node: Node) -> None:
    try:
        ours = dict(distribution(node).items())
    except DiceError as err:
        event(f"odds refused: {type(err).__name__}")
        return
    try:
        theirs = _reference(node)
    except _ReferenceTooSlow:
        _disarm()  # (when it struck as _reference was disarming it)
        event("icepool too slow")
        return
    except (Inexpressible, ZeroDivisionError):
        event("icepool model has no spelling")
        return
    except RecursionError:  # icepool's pools recurse once per outcome
        event("too deep for icepool")
        return
    event("compared with icepool")
    assert ours == theirs, str(node)
