"""The bounds on one die's rerolls and explosions, shared by the roller and exact odds.

One rule for both, so that whatever :func:`~arbiter.dice.exact.distribution` accepts can
be rolled for every seed and every rolled total lies in its support:

* ``r`` (and every spelling of "reroll until": Roll20's ``r``, Foundry's and d20's
  ``rr``) rerolls a roll until it shows a face that does not match, however many rerolls
  that takes: its value is a face that does not match, each as likely as the others (the
  distribution conditioned on the stopping faces; issue 35 replaced a bound of 20 rerolls
  after which the last one stood). A reroll that matches every face could never stop and
  is refused. For the dice budget a roll counts ``max(MAX_REROLLS, k)`` rerolls, ``k`` the
  least with ``q ** (k + 1) < 1e-12`` for ``q`` the share of faces that match; a source
  that still matches after them (a fair die does so with a chance below 10⁻¹²) gets a
  clear error, not a value the rule does not allow. ``ro`` rerolls once: the second roll
  stands whatever it shows.
* ``!``, ``!!`` and ``!p`` explode a die at most
  :data:`~arbiter.dice.limits.EXPLOSIONS` (20) times in a chain, or more when a longer
  chain would still have a chance of 10⁻¹² or more: at most ``max(20, k)`` times, ``k``
  the least with ``p ** (k + 1) < 1e-12``, ``p`` the chance that one roll (after its
  rerolls) explodes. So the chance that a chain would have gone on past its bound is below
  10⁻¹² for every die: a d2 exploding on 2 explodes up to 39 times, a d6 exploding on 4 or
  more up to 39, a d4 or bigger on its highest face up to 20. The last roll of a full chain
  does not explode, whatever it shows. A die that would need more than
  :data:`~arbiter.dice.limits.MAX_EXPLOSIONS` is refused. ``!o`` explodes at most once.
* A reroll or explosion point that matches no face never happens.

So one die rolls at most ``(1 + rerolls) * (1 + explosions)`` physical dice (each roll of a
chain has its own rerolls), and :func:`check_rolls` refuses, before anything is rolled or
computed, an expression whose dice could together exceed
:data:`~arbiter.dice.limits.MAX_ROLLS`.
"""

from __future__ import annotations

import math
from functools import lru_cache

from . import limits
from .ast import Compare, Dice, DieKind, Node, Point, Points, children
from .errors import DiceLimitError


def _interval(point: Compare) -> tuple[float, float]:
    v = point.value
    if point.op == "=":
        return v, v
    if point.op == ">":
        return v + 1, math.inf
    if point.op == ">=":
        return v, math.inf
    if point.op == "<":
        return -math.inf, v - 1
    return -math.inf, v


def _count_both(faces: int, kind: DieKind, a: Point, b: Point) -> int:
    """How many faces match both points."""
    if kind or isinstance(a, Points) or isinstance(b, Points):
        values = [-1, 0, 1] if kind == "F" else range(0, 100, 10) if kind else \
            range(1, faces + 1)
        return sum(1 for v in values if a.matches(v) and b.matches(v))
    lo_a, hi_a = _interval(a)
    lo_b, hi_b = _interval(b)
    lo, hi = max(lo_a, lo_b, 1), min(hi_a, hi_b, faces)
    return int(hi - lo + 1) if hi >= lo else 0


def rerolls_allowed(node: Dice) -> int:
    """How many rerolls one roll of this die is counted with: 0 when no face matches, 1
    for ``ro``, and for a reroll until (``r``) the budget of the module's docstring."""
    point = node.reroll
    if point is None:
        return 0
    m = node.count_matching(point)
    if not m:
        return 0
    if node.reroll_once:
        return 1
    return _until_bound(3 if node.kind == "F" else 10 if node.kind == "T" else node.faces, m)


def reroll_until(node: Dice) -> bool:
    """Whether a roll of this die is rerolled until it stops (a reroll that can happen,
    not ``ro``)."""
    return node.reroll is not None and not node.reroll_once and rerolls_allowed(node) > 0


@lru_cache(maxsize=4096)
def _until_bound(size: int, m: int) -> int:
    """``max(MAX_REROLLS, k)``, ``k`` the least with ``(m / size) ** (k + 1) < 10**-12``."""
    if m >= size:  # the parser refuses these; a tree built by hand is refused here
        raise DiceLimitError(
            f"a reroll that matches every face of a d{size} would never stop"
        )
    scale = 10**limits.EXPLOSION_TAIL_DIGITS
    rate = math.log(size) - math.log(m)
    t = max(int(limits.EXPLOSION_TAIL_DIGITS * math.log(10) / rate) - 1, 1)
    while m**t * scale >= size**t:  # decided with integers
        t += 1
    while t > 1 and m ** (t - 1) * scale < size ** (t - 1):
        t -= 1
    return max(t - 1, limits.MAX_REROLLS)


def explosions_allowed(node: Dice) -> int:
    """How many times one die of this term may explode in a chain (see the module's
    docstring); :class:`DiceLimitError` if it would need more than ``MAX_EXPLOSIONS``."""
    explode = node.explode
    if explode is None:
        return 0
    if node.reroll is None and not node.explode_once and not node.kind:
        booms = explode.count_matching(node.faces)  # the usual case, worked out at once
        if not booms:
            return 0
        if 4 * booms <= node.faces:
            return limits.EXPLOSIONS  # p <= 1/4: (1/4) ** 21 < 1e-12 already
    reroll = node.reroll
    if isinstance(reroll, Points):
        return _explosions(node.faces, node.kind, "", 0, _weight_rerolls(node), explode.op,
                           explode.value, node.explode_once, reroll)
    return _explosions(  # (by plain values: they hash faster than the nodes)
        node.faces, node.kind, reroll.op if reroll is not None else "",
        reroll.value if reroll is not None else 0, _weight_rerolls(node), explode.op,
        explode.value, node.explode_once,
    )


def explosion_chance(node: Dice) -> float:
    """The chance that one roll of this die (after its rerolls) explodes."""
    if node.explode is None:
        return 0.0
    a, total = _weights(node.faces, node.kind, node.reroll, _weight_rerolls(node),
                        node.explode)
    return a / total


def _weight_rerolls(node: Dice) -> int:
    """What :func:`_weights` takes as ``rerolls``: 1 for ``ro``, -1 for a reroll until, 0
    for none."""
    if not rerolls_allowed(node):
        return 0
    return 1 if node.reroll_once else -1


@lru_cache(maxsize=4096)
def _weights(
    faces: int, kind: DieKind, reroll: Point | None, rerolls: int, explode: Compare
) -> tuple[int, int]:
    """The weight of the faces that explode, and of all faces, of one roll after its
    rerolls. ``rerolls`` 1 (``ro``): out of ``size ** 2`` sequences, a face the reroll
    matches stands only after the reroll (``m`` ways), any other either way
    (``size + m`` ways). ``rerolls`` -1 (until): only the ``size - m`` faces that do not
    match stand, each once."""
    size = 3 if kind == "F" else 10 if kind == "T" else faces
    booms = _count_both(faces, kind, explode, explode)
    if reroll is None or not rerolls:
        return booms, size
    m = _count_both(faces, kind, reroll, reroll)
    if not m:
        return booms, size
    both = _count_both(faces, kind, explode, reroll)
    if rerolls < 0:
        return booms - both, size - m
    return (booms - both) * (size + m) + both * m, size * size


@lru_cache(maxsize=4096)
def _explosions(
    faces: int, kind: DieKind, reroll_op: str, reroll_value: int, rerolls: int,
    explode_op: str, explode_value: int, once: bool, several: Points | None = None,
) -> int:
    reroll: Point | None = several
    if reroll_op:
        reroll = Compare(reroll_op, reroll_value)  # type: ignore[arg-type]
    explode = Compare(explode_op, explode_value)  # type: ignore[arg-type]
    size = 3 if kind == "F" else 10 if kind == "T" else faces
    if not rerolls and not once and size >= 4 * _count_both(faces, kind, explode, explode) > 0:
        return limits.EXPLOSIONS  # p <= 1/4: (1/4) ** 21 < 1e-12 already
    a, total = _weights(faces, kind, reroll, rerolls, explode)
    if not a:
        return 0
    if once:
        return 1
    if a >= total:  # the parser refuses these; a tree built by hand is refused here
        stands = f" that a reroll until on {reroll.short()} lets stand" \
            if reroll is not None and rerolls < 0 else ""
        raise DiceLimitError(
            f"an explosion on {explode} matches every face of a d{size}{stands}: it would "
            "never stop"
        )
    # the least k with (a / total) ** (k + 1) < 10**-12
    # ln(1 / p), to a float's precision whatever the size of p
    rate = math.log(total) - math.log(a) if 2 * a < total else -math.log1p(-(total - a) / total)
    ceiling = limits.MAX_EXPLOSIONS
    if rate <= 0 or limits.EXPLOSION_TAIL_DIGITS * math.log(10) / rate > ceiling + 2:
        raise _too_many(faces, kind, reroll if rerolls else None, explode, ceiling)
    x = limits.EXPLOSION_TAIL_DIGITS * math.log(10) / rate
    t = math.floor(x) + 1  # the least t > x: k + 1
    if abs(x - round(x)) < 1e-6:  # near a whole number: decide with integers
        t = max(round(x) - 1, 1)
        scale = 10**limits.EXPLOSION_TAIL_DIGITS
        while a**t * scale >= total**t:
            t += 1
    if t - 1 > ceiling:
        raise _too_many(faces, kind, reroll if rerolls else None, explode, ceiling)
    return max(t - 1, limits.EXPLOSIONS)


def _too_many(faces: int, kind: DieKind, reroll: Point | None, explode: Compare,
              ceiling: int) -> DiceLimitError:
    die = f"d{kind or faces}" + (f" rerolled on {reroll.short()}" if reroll is not None else "")
    return DiceLimitError(
        f"a {die} explodes on {explode.short()} so often that a chain would need more than "
        f"{ceiling:,} explosions for the chance of going on past them to fall below "
        f"10^-{limits.EXPLOSION_TAIL_DIGITS}; the limit is {ceiling:,} explosions per die"
    )


def rolls_per_die(node: Dice) -> int:
    """The most physical dice one die of this term can take."""
    return (1 + rerolls_allowed(node)) * (1 + explosions_allowed(node))


def most_rolls(node: Node) -> int:
    """The most physical dice rolling ``node`` can take, whatever the dice show."""
    if isinstance(node, Dice):
        return node.count * rolls_per_die(node)
    return sum(most_rolls(child) for child in children(node))


def _rerolling(node: Node) -> list[Dice]:
    if isinstance(node, Dice):
        return [node] if rerolls_allowed(node) else []
    return [d for child in children(node) for d in _rerolling(child)]


def _reroll_bound(node: Node) -> str:
    """How many rerolls a roll is counted with, for a message."""
    worst = max(_rerolling(node), key=rerolls_allowed, default=None)
    if worst is None or rerolls_allowed(worst) <= limits.MAX_REROLLS:
        return f"at most {limits.MAX_REROLLS} per roll"
    return (
        f"up to {rerolls_allowed(worst):,} per roll of {worst}, which rerolls until it stops "
        f"and needs that many for the chance of going on to fall below "
        f"10^-{limits.EXPLOSION_TAIL_DIGITS}"
    )


def _exploding(node: Node) -> list[Dice]:
    if isinstance(node, Dice):
        return [node] if explosions_allowed(node) else []
    return [d for child in children(node) for d in _exploding(child)]


def check_rolls(node: Node) -> int:
    """:func:`most_rolls`, or :class:`DiceLimitError` when it exceeds ``MAX_ROLLS``."""
    most = most_rolls(node)
    if most > limits.MAX_ROLLS:
        bound = f"at most {limits.EXPLOSIONS} per die"
        exploding = _exploding(node)
        if exploding:
            worst = max(exploding, key=explosions_allowed)
            if explosions_allowed(worst) > limits.EXPLOSIONS:
                bound = f"at most {explosions_allowed(worst)} per die of {worst}"
        raise DiceLimitError(
            f"the expression rolls up to {most:,} dice, more than {limits.MAX_ROLLS:,} dice "
            f"in one expression (counting every reroll, {_reroll_bound(node)}, and every "
            f"explosion, {bound})"
        )
    return most
