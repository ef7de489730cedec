"""The meaning of every dice construct written out again in icepool, an independent exact
library, straight from the rules in docs/dice.md (not from ``exact.py``): the oracle the
exact odds are checked against.

``model(node)`` gives an icepool ``Die``, or raises :class:`Inexpressible` for what this
model does not write out. Keeping dice that explode into separate dice is written as
icepool's mixture of pools (as its ``explode_to_pool`` does), over how many rolls of each
kind the chains leave on the table.
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
    """One physical roll, with its rerolls: until one stops (icepool's reroll with depth
    "inf": the die conditioned on the faces that stop it), or once (``ro``: the reroll
    stands)."""
    die = icepool.Die(node.face_values())
    rerolls = rerolls_allowed(node)
    point = node.reroll
    if rerolls and point is not None:
        die = die.reroll(point.matches, depth=1 if node.reroll_once else "inf")
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
    """docs/dice.md: a success counts 1; a failure -1 (minus its value with ``sf``); any
    other die 0 when successes are counted, else its value."""
    select = node.select if isinstance(node, Dice) else None
    subtract = isinstance(node, Dice) and node.subtract
    success, failure = node.success, node.failure
    if success is not None or failure is not None:
        def count(v: Any) -> int:
            if select is not None and not select.kept(v):
                return 0
            if success is not None and success.matches(v):
                return 1
            if failure is not None and failure.matches(v):
                return -int(v) if subtract else -1
            return 0 if success is not None else int(v)

        return count
    if select is not None:
        return lambda v: v if select.kept(v) else 0
    return None


def exploding_pool(node: Dice) -> Any:
    """The dice on the table for a term that explodes into separate dice: a mixture, over
    how many rolls of each kind its chains leave (the first roll or a later one, exploding
    or not), of pools of those rolls. A chain is some exploding rolls then one that stops,
    or, at the bound, one more roll than it may explode."""
    assert node.explode is not None
    roll = one_roll(node)
    depth = explosions_allowed(node)
    pen = 1 if node.penetrate else 0
    booms = {int(v): int(q) for v, q in roll.items() if node.explode.matches(v)}
    stops = {int(v): int(q) for v, q in roll.items() if not node.explode.matches(v)}
    a, b = sum(booms.values()), sum(stops.values())
    s = a + b
    chains: dict[Any, int] = {}

    def add(key: tuple[int, int, int, int], weight: int) -> None:
        if weight:
            vector = icepool.Vector(key)
            chains[vector] = chains.get(vector, 0) + weight

    for i in range(depth + 1):  # i exploding rolls, then one that stops
        add((0, 1, 0, 0) if i == 0 else (1, 0, i - 1, 1), a**i * b * s ** (depth - i))
    add((1, 0, depth, 0), a ** (depth + 1))
    counts = node.count @ icepool.Die(chains)

    def kind(faces: dict[int, int], shown: Callable[[int], int]) -> Any:
        return icepool.Die(faces).map(shown) if faces else None

    first, later = node.clamp, (lambda v: node.clamp(v - pen))
    kinds = [kind(booms, first), kind(stops, first), kind(booms, later), kind(stops, later)]

    def pool(*numbers: int) -> list[Any]:
        return [die for die, k in zip(kinds, numbers, strict=True) for _ in range(k)]

    return counts.map_to_pool(pool, star=True)


def kept_from_any(pool: Any, node: Dice | RollGroup) -> Any:
    """Keep from a pool of any size: ``kh``/``kl`` keep that many at most, ``dh``/``dl``
    drop that many at most (so a pool of fewer dice keeps none)."""
    assert node.keep is not None
    kind, k = node.keep.kind, node.keep.count
    if kind == "kh":
        kept = pool.highest(k)
    elif kind == "kl":
        kept = pool.lowest(k)
    elif kind == "dl":
        kept = pool.lowest(None, k)
    else:
        kept = pool.highest(None, k)
    count = counting(node)
    if count is None:
        return kept.sum()
    return kept.expand().map(lambda values: sum(count(v) for v in values))


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
            if node.keep.count == 0:
                raise Inexpressible(str(node))  # icepool keeps no dice of an empty count
            return kept_from_any(exploding_pool(node), node)
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
                if node.keep.count == 0 or not any(t.count for t in parts):
                    raise Inexpressible(str(node))
                pools = [exploding_pool(t) if explosions_allowed(t) and t.separate
                         else icepool.Pool([one_die(t)] * t.count) for t in parts if t.count]
                union = pools[0]
                for p in pools[1:]:
                    union = union + p
                return kept_from_any(union, node)
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
