"""Keeping the highest or lowest of dice of several kinds (``{4d6+3d8}kh4``), exactly:
:func:`arbiter.dice.exact._keep_mixed` against every roll of small pools. The function
folds the states that keep their last die in closed form; these cases reach that fold from
every state (few or many dice kept, either end, faces with uneven weights, values below
zero, no die kept)."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from arbiter.dice import distribution
from arbiter.dice.exact import _keep_mixed, _keep_uniform

Kind = tuple[int, list[int], int]  # lowest face, weight of each face, number of dice


def every_roll(kinds: list[Kind], highest: bool, keep: int, shift: int) -> Counter[int]:
    """Ways of each kept total, by listing every roll of every die."""
    dice: list[list[tuple[int, int]]] = []
    for lo, weights, n in kinds:
        faces = [(lo + i, w) for i, w in enumerate(weights) if w]
        dice.extend([faces] * n)
    out: Counter[int] = Counter()
    for roll in itertools.product(*dice):
        values = sorted((v for v, _ in roll), reverse=highest)
        ways = 1
        for _, w in roll:
            ways *= w
        out[sum(v + shift for v in values[:keep])] += ways
    return out


kinds_strategy = st.lists(
    st.tuples(st.integers(0, 3), st.lists(st.integers(0, 3), min_size=1, max_size=5),
              st.integers(0, 3)),
    min_size=1, max_size=3,
).filter(lambda ks: 0 < sum(n for _, w, n in ks if any(w)) <= 6
         and all(any(w) for _, w, n in ks))


@settings(max_examples=150, deadline=None)
@given(kinds=kinds_strategy, highest=st.booleans(), data=st.data(),
       shift=st.integers(-4, 2))
@example(kinds=[(1, [1] * 6, 4), (1, [1] * 8, 3)], highest=True, data=None, shift=0)
def test_every_kept_total_has_the_ways_of_every_roll(
        kinds: list[Kind], highest: bool, data: st.DataObject | None, shift: int) -> None:
    kinds = [(lo, weights, n) for lo, weights, n in kinds if n]
    total = sum(n for _, _, n in kinds)
    keep = 4 if data is None else data.draw(st.integers(0, total))
    lo, counts = _keep_mixed(kinds, highest, keep, lambda v: v + shift)
    got = {lo + i: c for i, c in enumerate(counts) if c}
    assert got == {v: c for v, c in every_roll(kinds, highest, keep, shift).items() if c}


def test_the_bench_pool_matches_its_listed_rolls() -> None:
    """{4d6+3d8}kh4 through the parser: 6^4 * 8^3 rolls, the most likely total 21."""
    dist = distribution("{4d6+3d8}kh4")
    rolls = every_roll([(1, [1] * 6, 4), (1, [1] * 8, 3)], True, 4, 0)
    total = sum(rolls.values())
    assert total == 6**4 * 8**3
    assert sum(rolls.values()) == total and sum(dist.probability(v) for v in rolls) == 1
    assert all(dist.probability(v) * total == ways for v, ways in rolls.items())


@settings(max_examples=150, deadline=None)
@given(sizes=st.lists(st.tuples(st.integers(1, 7), st.integers(1, 3)), min_size=1,
                      max_size=4).filter(lambda ks: sum(n for _, n in ks) <= 6),
       data=st.data())
@example(sizes=[(6, 4), (8, 3)], data=None)
def test_keeping_the_highest_plain_dice_has_the_ways_of_every_roll(
        sizes: list[tuple[int, int]], data: st.DataObject | None) -> None:
    """``_keep_uniform``: the state is how many dice are placed, whatever their sizes."""
    total = sum(n for _, n in sizes)
    keep = 4 if data is None else data.draw(st.integers(0, total))
    lo, counts = _keep_uniform(sizes, keep)
    got = {lo + i: c for i, c in enumerate(counts) if c}
    kinds: list[Kind] = [(1, [1] * f, n) for f, n in sizes]
    assert got == {v: c for v, c in every_roll(kinds, True, keep, 0).items() if c}


def test_plain_dice_kept_highest_take_the_uniform_keep(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain dice kept from the top (or dropped from the bottom) take ``_keep_uniform``;
    the lowest, weighted faces and counted dice take ``_keep_mixed``, each as every roll."""
    from arbiter.dice import exact

    calls: list[str] = []
    uniform, mixed = exact._keep_uniform, exact._keep_mixed
    def counted(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            calls.append(name)
            return fn(*args)
        return call

    monkeypatch.setattr(exact, "_keep_uniform", counted("uniform", uniform))
    monkeypatch.setattr(exact, "_keep_mixed", counted("mixed", mixed))
    for text, path in [("{4d6+3d8}kh4", "uniform"), ("{2d4+1d6}dl1", "uniform"),
                       ("{4d6+3d8}kl4", "mixed"), ("{4d6r1+3d8}kh4", "mixed"),
                       ("{4d6+3d8}>=5kh4", "mixed"), ("{2dF+1d6}kh2", "mixed")]:
        exact.clear_cache()
        calls.clear()
        distribution(text)
        assert calls == [path], text


_ONE_DIE = ["1d4", "1d6", "1d8", "1d10", "d12", "1d6r1", "1d8mi3", "1d10ma7", "1d6!!", "1dF",
            "1d4ro4", "1D6"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_ONE_DIE), min_size=2, max_size=4),
       st.sampled_from(["kh", "kl", "dh", "dl"]), st.integers(0, 4),
       st.sampled_from(["", ">4", "<=2", ">=3f1", "=1"]))
@example(["1d4", "1d6", "1d8", "1d10"], "kh", 2, "")
@example(["1d6", "1d6", "1d6"], "kh", 2, ">4")
def test_members_of_one_die_keep_as_their_dice(members: list[str], how: str, count: int,
                                               success: str) -> None:
    """``{1d100,1d90,...}kh2`` keeps members that are one die each as a group of dice keeps
    dice (the seven of the bench were refused before: 128 states folded in): the ways of
    each total are those of every roll of the members, the kept ones summed or counted."""
    from arbiter.dice import parse
    from arbiter.dice.ast import RollGroup

    text = "{" + ",".join(members) + "}" + how + str(count) + success
    node = parse(text)
    assert isinstance(node, RollGroup) and node.keep is not None
    faces = [list(distribution(m).items()) for m in members]
    assume(math.prod(len(f) for f in faces) <= 20_000)  # (1d6!! shows 120 totals)
    highest, keep = node.keep.kept_highest(len(members))
    want: dict[int, Fraction] = {}
    for roll in itertools.product(*faces):
        values = sorted((v for v, _ in roll), reverse=highest)[:keep]
        ways = Fraction(1)
        for _, p in roll:
            ways *= p
        if node.success is None:
            total = sum(values)
        else:
            total = sum(1 for v in values if node.success.matches(v)) - sum(
                1 for v in values if node.failure is not None and node.failure.matches(v))
        want[total] = want.get(total, Fraction(0)) + ways
    got = distribution(text)
    assert {v: p for v, p in got.items()} == {v: p for v, p in want.items() if p}, text


def test_seven_different_dice_kept_highest_are_exact() -> None:
    """The bench's ``{1d100,1d90,...,1d40}kh2``: exact (it was a Monte-Carlo estimate),
    and the same as keeping the same dice of one group."""
    members = "1d100,1d90,1d80,1d70,1d60,1d50,1d40"
    got = distribution("{" + members + "}kh2")
    assert got == distribution("{" + members.replace(",", "+") + "}kh2")
    assert got.mean == Fraction(160081693, 1280000)
