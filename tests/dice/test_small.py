"""``exact.small`` widened (issue 35): dice with rerolls, the rounding functions with the
exact division inside them, and tens dice (d20's ``d%``) skip the estimate too.

Whatever ``small`` accepts, ``check`` must accept far inside the work limit (so skipping
it changes nothing but the time), and the distribution must be icepool's and the full
path's (``check`` then ``_eval``); a big expression with rerolls must still be checked.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.dice import DiceLimitError, distribution, exact, limits
from arbiter.dice.ast import BinOp, Func, Group, Node, Num
from arbiter.dice.parser import parse_uncached

from .icepool_model import as_dict, model
from .strategies import any_dice, any_expressions

WIDENED = [
    ("1d10r1r3", "roll20"), ("4d6r1kh3", "arbiter"), ("2d20ro1", "arbiter"),
    ("10d100r<=97", "arbiter"), ("3d6ro<3+1d8r1", "arbiter"), ("8d10ro<=2k>5", "arbiter"),
    ("d%+d%+d%", "d20"), ("1d20/2+1d6/3", "d20"), ("floor(3d6/2)+ceil(2d8/3)", "arbiter"),
    ("round(2d6/4)", "arbiter"), ("trunc(-3d6/4)", "arbiter"), ("ceil(1d100/3/5/7)", "arbiter"),
    ("floor((1d100/3)%(1d10/7))", "arbiter"), ("round(1d100/(1d10/7))", "arbiter"),
    ("floor(1d100/3>=1d10/7)", "arbiter"), ("abs(floor(2d6r1/3)-3)", "arbiter"),
    ("floor(10d100ro1/7)", "arbiter"), ("1d20mi10+5", "d20"), ("4dFr=-1", "arbiter"),
    ("{4d6+3d8}kh4", "arbiter"), ("{1d4+1d6+1d8+1d10+1d12}kh2", "arbiter"),
    ("{2d6+1d8}dl1+3", "arbiter"), ("{3d20+3d12}kl2", "roll20"), ("{4d6+4d6}kh3", "arbiter"),
]


def full_path(node: Node) -> exact.Distribution:
    exact.check(node)
    result = exact._eval(node)
    assert isinstance(result, exact.Distribution)
    return result


@pytest.mark.parametrize(("text", "dialect"), WIDENED)
def test_widened_cases_are_small_and_exact(text: str, dialect: str) -> None:
    node = parse_uncached(text, dialect)
    assert exact.small(node)
    assert exact.check(node) <= limits.MAX_EXACT_WORK // 20
    exact.clear_cache()
    got = distribution(text, dialect)
    assert got == full_path(node)
    assert dict(got.items()) == as_dict(model(node))


@pytest.mark.parametrize("text", [
    "200d100r1",  # too many dice for a small expression, rerolled or not
    "11d6r1",  # one term too many
    "1d101r1",  # a die too big
    "3d6!r1",  # explosions still decline
    "10d100r<=99",  # every die counted with its rerolls: past MAX_ROLLS
    "floor(10d100/3+1d100/7)",  # too many pairs of fractions
    "floor(1d100/(1d10/(1d9/(1d3/7))))",
    "floor(1d1000/3)",
    "{4d6r1+3d8}kh4",  # a group's dice with any modifier decline
    "{4d6+3d8}>=4",  # counting successes in a group declines
    "{7d6+6d8}kh4",  # too many dice in one group
    "{1d21+3d8}kh4",  # a die too big for a group
    "{1d4+1d6+1d8+1d10+1d12+1d20+1d2}kh2",  # 128 states of the keep
    "{1d4,1d6}kh1",  # a group of members, not of dice
])
def test_big_cases_are_not_small(text: str) -> None:
    assert not exact.small(parse_uncached(text))


def test_a_reroll_past_the_dice_budget_is_still_refused() -> None:
    """``10d100r<=99`` counts 10 times thousands of rerolls for the dice budget: not small,
    so ``distribution`` refuses it as ``check`` does."""
    with pytest.raises(DiceLimitError):
        exact.check(parse_uncached("10d100r<=99"))
    exact.clear_cache()
    with pytest.raises(DiceLimitError):
        distribution("10d100r<=99")


# -- whatever small accepts, check accepts: trees with rerolls and rounding functions -------

_base = any_expressions(any_dice(faces=100, count=10, keep=10), max_leaves=10)
_rounded = st.builds(lambda name, x: Func(name, (x,)),
                     st.sampled_from(["floor", "ceil", "round", "trunc"]), _base)
_quotients = st.builds(lambda name, x, k: Func(name, (BinOp("/", Group(x), Num(k)),)),
                       st.sampled_from(["floor", "ceil", "round", "trunc"]), _base,
                       st.integers(1, 12_000))
_trees = _base | _rounded | _quotients | st.builds(
    lambda op, x, v: BinOp(op, Group(x), Num(v)),
    st.sampled_from(["+", "-", "*", "%", "/", "/^"]), _base | _rounded, st.integers(1, 12_000))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_trees)
def test_check_accepts_every_small_tree_with_rerolls_and_rounding(node: Node) -> None:
    if exact.small(node):
        assert exact.check(node) <= limits.MAX_EXACT_WORK // 2


def _counts(total: int, largest: int) -> list[tuple[int, ...]]:
    """Every way to write ``total`` dice as counts of kinds, largest first."""
    if total == 0:
        return [()]
    return [(first, *rest) for first in range(min(total, largest), 0, -1)
            for rest in _counts(total - first, first)]


def test_check_accepts_every_small_group_far_inside_the_limit() -> None:
    """Every group ``small`` takes, at its biggest (faces of 20, 19, 18...: the most bits
    and the widest span), every keep and drop: ``check`` finds it far inside the limit, so
    skipping the estimate changes nothing but the time."""
    seen = 0
    for n in range(1, exact.SMALL_GROUP_DICE + 1):
        for counts in _counts(n, n):
            if math.prod(c + 1 for c in counts) > exact.SMALL_GROUP_STATES:
                continue
            dice = "+".join(f"{c}d{exact.SMALL_GROUP_FACES - i}" for i, c in enumerate(counts))
            for how, k in itertools.product(("kh", "kl", "dh", "dl"), range(n + 1)):
                node = parse_uncached(f"{{{dice}}}{how}{k}")
                assert exact.small(node)
                assert exact.check(node) <= limits.MAX_EXACT_WORK // 20
                seen += 1
    assert seen > 1000
