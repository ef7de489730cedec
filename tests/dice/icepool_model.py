"""The meaning of every dice construct written out again in icepool, an independent exact
library, straight from the rules in docs/dice.md (not from ``exact.py``): the oracle the
exact odds are checked against.

``model(node)`` gives an icepool ``Die``, or raises :class:`Inexpressible` for what this
model does not write out (keeping dice that explode into separate dice).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import icepool

from arbiter.dice.ast import (
    BinOp,
    Comment,
    Comparison,
    Dice,
    Func,
    Group,
    Label,
    Neg,
    Node,
    Num,
    RollGroup,
)
from arbiter.dice.bounds import explosions_allowed, rerolls_allowed


class Inexpressible(Exception):
    """This model has no icepool spelling for the construct."""


RELATIONS: dict[str, Callable[[Any, Any], bool]] = {
    "=": lambda a, b: a == b, "<>": lambda a, b: a != b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
}


def as_dict(die: Any) -> dict[int, Fraction]:
    den = die.denominator()
    return {int(k): Fraction(int(v), den) for k, v in die.items() if v}


def one_roll(node: Dice) -> Any:
    """One physical roll, with its rerolls (the last reroll stands)."""
    die = icepool.Die(node.face_values())
    rerolls = rerolls_allowed(node)
    point = node.reroll
    if rerolls and point is not None:
        die = die.reroll(point.matches, depth=rerolls)
    return die


def chain(roll: Any, explodes: Callable[[int], bool], first: Callable[[int], Any],
          later: Callable[[int], Any], depth: int) -> Any:
    """What one die's chain adds: ``first(face)`` for its first roll, ``later(face)`` for
    the others, a face that explodes adding a chain one shorter."""
    def go(k: int, fn: Callable[[int], Any]) -> Any:
        if k == 0:
            return roll.map(fn)
        rest = go(k - 1, later)
        return roll.map(lambda v: fn(v) + rest if explodes(v) else fn(v))

    return go(depth, first)


def counting(node: Dice | RollGroup) -> Callable[[Any], int] | None:
    select = node.select if isinstance(node, Dice) else None
    success, failure = node.success, node.failure
    if success is not None:
        def count(v: Any) -> int:
            if select is not None and not select.kept(v):
                return 0
            if success.matches(v):
                return 1
            return -1 if failure is not None and failure.matches(v) else 0

        return count
    if select is not None:
        return lambda v: v if select.kept(v) else 0
    return None


def kept_total(pool: Any, node: Dice | RollGroup, n: int) -> Any:
    """Keep from an icepool pool, then add up (or count) what was kept."""
    assert node.keep is not None
    highest, keep = node.keep.kept_highest(n)
    kept = pool.highest(keep) if highest else pool.lowest(keep)
    count = counting(node)
    if count is None:
        return kept.sum()
    return kept.expand().map(lambda values: sum(count(v) for v in values))


def one_die(node: Dice) -> Any:
    """One die's value after its explosions (compounded) and its minimum and maximum."""
    roll = one_roll(node)
    depth = explosions_allowed(node)
    if depth and node.explode is not None:
        roll = chain(roll, node.explode.matches, lambda v: v, lambda v: v, depth)
    return roll.map(node.clamp)


def dice(node: Dice) -> Any:
    if node.count == 0:
        return icepool.Die([0])
    depth = explosions_allowed(node)
    count = counting(node)
    if depth and node.separate:
        if node.keep is not None:
            raise Inexpressible(str(node))
        assert node.explode is not None
        pen = 1 if node.penetrate else 0
        clamp = node.clamp

        def first(v: int) -> int:
            value = clamp(v)
            return count(value) if count is not None else value

        per = chain(one_roll(node), node.explode.matches, first, lambda v: first(v - pen),
                    depth)
        return node.count @ per
    die = one_die(node)
    if node.keep is not None:
        return kept_total(icepool.Pool([die] * node.count), node, node.count)
    if count is not None:
        die = die.map(count)
    return node.count @ die


def terms(member: Node) -> list[Dice]:
    if isinstance(member, Dice):
        return [member]
    assert isinstance(member, BinOp)
    return terms(member.left) + terms(member.right)


def group(node: RollGroup, exact: bool) -> Any:
    if node.dice_level and (node.keep is not None or node.success is not None):
        parts = terms(node.members[0])
        if any(explosions_allowed(t) and t.separate for t in parts):
            if node.keep is not None:
                raise Inexpressible(str(node))
            total = icepool.Die([0])
            for t in parts:
                from dataclasses import replace

                total = total + dice(replace(t, success=node.success, failure=node.failure))
            return total
        pool = [one_die(t) for t in parts for _ in range(t.count)]
        if not pool:
            return icepool.Die([0])
        if node.keep is not None:
            return kept_total(icepool.Pool(pool), node, len(pool))
        count = counting(node)
        assert count is not None
        out = icepool.Die([0])
        for die in pool:
            out = out + die.map(count)
        return out
    members = [model(m, exact) for m in node.members]
    count = counting(node)
    if node.keep is not None:
        return kept_total(icepool.Pool(members), node, len(members))
    if count is not None:
        members = [m.map(count) for m in members]
    out = members[0]
    for m in members[1:]:
        out = out + m
    return out


def _round(x: Any) -> int:
    rounded: int = math.floor(x + Fraction(1, 2))
    return rounded


ROUNDING: dict[str, Callable[[Any], Any]] = {
    "floor": math.floor, "ceil": math.ceil, "trunc": math.trunc, "abs": abs, "round": _round,
}


def _nonzero(die: Any, node: Node) -> None:
    if any(v == 0 for v in die.outcomes()):
        raise ZeroDivisionError(str(node))


def model(node: Node, exact: bool = False) -> Any:
    """The icepool die of ``node``'s total; ``exact`` inside a rounding function."""
    if isinstance(node, Num):
        return icepool.Die([node.value])
    if isinstance(node, Dice):
        return dice(node)
    if isinstance(node, Group | Label | Comment):
        return model(node.inner, exact)
    if isinstance(node, Neg):
        return model(node.operand, exact).map(lambda v: -v)
    if isinstance(node, Comparison):
        holds = RELATIONS[node.op]
        return icepool.map(lambda a, b: int(holds(a, b)), model(node.left, exact),
                           model(node.right, exact))
    if isinstance(node, Func):
        if node.name == "rem":
            a, b = model(node.args[0], exact), model(node.args[1], exact)
            _nonzero(b, node)
            return icepool.map(lambda x, y: x - y * math.trunc(Fraction(x) / y), a, b)
        inner = model(node.args[0], exact or node.name != "abs")
        return inner.map(ROUNDING[node.name])
    if isinstance(node, RollGroup):
        return group(node, exact)
    assert isinstance(node, BinOp)
    a, b = model(node.left, exact), model(node.right, exact)
    op = node.op
    if op == "+":
        return icepool.map(lambda x, y: x + y, a, b)
    if op == "-":
        return icepool.map(lambda x, y: x - y, a, b)
    if op == "*":
        return icepool.map(lambda x, y: x * y, a, b)
    _nonzero(b, node)
    if op == "%":
        return icepool.map(lambda x, y: x % y, a, b)
    if op == "/^":
        return icepool.map(lambda x, y: -((-x) // y), a, b)
    if exact:
        return icepool.map(lambda x, y: Fraction(x) / y, a, b).map(
            lambda q: q.numerator if q.denominator == 1 else q)
    return icepool.map(lambda x, y: x // y, a, b)
