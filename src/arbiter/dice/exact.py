"""Exact probability distributions of dice expressions, as integer counts.

A :class:`Distribution` is a run of integer weights over consecutive outcomes; the
probability of an outcome is its weight over the sum of weights, an exact fraction.
Sums of dice are polynomial products, computed by Kronecker substitution: the weights are
packed into one big integer, so a product of polynomials is one big-integer product
(``gmpy2`` for big products, Python's own integers for the rest). Small cases are worked out
in plain lists instead, which costs less than packing.

The model follows the roller exactly (the same reroll and explosion rules, from
:mod:`arbiter.dice.bounds`: a reroll until is the distribution conditioned on the faces
that stop it, as the roller rerolls until one shows), so every total the roller can
produce lies in the support of the distribution and nowhere else.

Before any of the work, :func:`check` walks the tree once and estimates every step: how
wide each intermediate distribution is, how many bits its weights need, and what computing
it costs, down to writing every outcome of the result as an exact fraction (which every
caller does). An expression over a limit is refused with :class:`DistributionTooLarge`
naming it, in microseconds; one within the limits takes about a second at the most.
A construct with no exact model here (keeping dice that explode into separate dice, say) is
refused the same way with :class:`NoExactOdds`.

Inside ``floor()``, ``ceil()``, ``round()`` and ``trunc()``, where ``/`` divides exactly,
outcomes may be fractions: those steps keep their weights by outcome (``_Fractions``)
until the function rounds them.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import fields, replace
from fractions import Fraction
from typing import Any

from . import limits, pools
from .ast import (
    WRAPPERS,
    BinOp,
    Compare,
    Comparison,
    Dice,
    Func,
    Group,
    Keep,
    Label,
    Neg,
    Node,
    Num,
    Points,
    RollGroup,
    _run,
    children,
)
from .bounds import _interval, check_rolls, explosions_allowed, rerolls_allowed
from .dialects import Dialect
from .dialects import dialect as _dialect
from .errors import DiceError, DiceEvalError, DistributionTooLarge, NoExactOdds
from .parser import parse_uncached, quick_tree
from .roller import FUNCTIONS, RELATIONS, Value, _modulo, _remainder, _terms

try:  # gmpy2 multiplies big integers with FFT: much faster for large pools
    from gmpy2 import mpz as _big
except ImportError:  # pragma: no cover - gmpy2 is a declared dependency
    _big = int

Counts = list[int]
_GROUP_OR_LABEL = (Group, Label)
_new = object.__new__

_GMP_BITS = 1 << 18
"""Below about this many bits of packed weights, Python's own integers are faster than
gmpy2 (whose first use in a process costs more than a small product)."""


_KEEP_GMP_BITS = 1 << 10
"""Above about this many bits of packed polynomial, keeping dice works in gmpy2 integers."""

_PLAIN_WORK = 1024
"""Up to about this many multiplications, weights are convolved in plain lists."""


def _int_type(bits: int) -> Callable[..., Any]:
    """The big-integer type for products of about ``bits`` bits."""
    return _big if bits > _GMP_BITS else int


class Distribution:
    """Exact distribution over integers ``lo, lo+1, ...`` with weights ``counts``.

    >>> d = distribution("2d6")
    >>> d.probability(7), d.at_least(10), d.mean
    (Fraction(1, 6), Fraction(1, 6), Fraction(7, 1))
    """

    __slots__ = ("counts", "denominator", "lo")

    def __init__(self, lo: int, counts: Counts) -> None:
        start = 0
        while start < len(counts) - 1 and counts[start] == 0:
            start += 1
        end = len(counts)
        while end > start + 1 and counts[end - 1] == 0:
            end -= 1
        counts = counts[start:end]
        g = counts[0] if counts else 0
        if g != 1:  # (a weight of 1 leaves nothing to divide out: the usual case)
            g = 0
            for c in counts:
                g = math.gcd(g, c)
                if g == 1:
                    break
        if g > 1:
            counts = [c // g for c in counts]
        self.lo = lo + start
        self.counts = [int(c) for c in counts]
        self.denominator = sum(self.counts)
        if self.denominator == 0:
            raise DiceError("a distribution needs at least one possible outcome")

    @classmethod
    def point(cls, value: int) -> Distribution:
        dist: Distribution = _new(cls)
        dist.lo = value
        dist.counts = [1]
        dist.denominator = 1
        return dist

    @property
    def hi(self) -> int:
        return self.lo + len(self.counts) - 1

    def items(self) -> Iterator[tuple[int, Fraction]]:
        """Each possible outcome with its probability, lowest first."""
        den = self.denominator
        for i, c in enumerate(self.counts):
            if c:
                yield self.lo + i, Fraction(c, den)

    def support(self) -> list[int]:
        return [self.lo + i for i, c in enumerate(self.counts) if c]

    def probability(self, value: int) -> Fraction:
        i = value - self.lo
        if 0 <= i < len(self.counts):
            return Fraction(self.counts[i], self.denominator)
        return Fraction(0)

    def at_least(self, k: int) -> Fraction:
        """P(outcome ≥ k)."""
        i = max(k - self.lo, 0)
        return Fraction(sum(self.counts[i:]), self.denominator)

    def at_most(self, k: int) -> Fraction:
        """P(outcome ≤ k)."""
        i = k - self.lo + 1
        return Fraction(sum(self.counts[: max(i, 0)]), self.denominator)

    @property
    def mean(self) -> Fraction:
        return Fraction(sum((self.lo + i) * c for i, c in enumerate(self.counts)), self.denominator)

    @property
    def variance(self) -> Fraction:
        mean = self.mean
        second = Fraction(
            sum((self.lo + i) ** 2 * c for i, c in enumerate(self.counts)), self.denominator
        )
        return second - mean * mean

    @property
    def stdev(self) -> float:
        return math.sqrt(self.variance)

    def map(self, fn: Callable[[int], int]) -> Distribution:
        """The distribution of ``fn(outcome)``."""
        weights: dict[int, int] = {}
        for i, c in enumerate(self.counts):
            if c:
                v = fn(self.lo + i)
                weights[v] = weights.get(v, 0) + c
        return _from_weights(weights)

    def __add__(self, other: Distribution) -> Distribution:
        return _distribution(self.lo + other.lo, _convolve(self.counts, other.counts))

    def __neg__(self) -> Distribution:
        return _distribution(-self.hi, self.counts[::-1])

    def __sub__(self, other: Distribution) -> Distribution:
        return self + (-other)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        return self.lo == other.lo and self.counts == other.counts

    def __hash__(self) -> int:
        return hash((self.lo, tuple(self.counts)))

    def __repr__(self) -> str:
        return f"Distribution(lo={self.lo}, counts={self.counts!r})"

    def to_json(self) -> dict[str, Any]:
        """Probabilities as exact fraction strings such as ``"1/6"``."""
        return {
            "min": self.lo,
            "max": self.hi,
            "mean": str(self.mean),
            "stdev": self.stdev,
            "outcomes": {str(v): str(p) for v, p in self.items()},
        }


def _distribution(lo: int, counts: Counts) -> Distribution:
    """``Distribution(lo, counts)`` for a fresh list of Python ints, which it may keep.

    Weights that already start and end with a non-zero weight, the first being 1, need
    no trimming and no common factor taken out: the usual case, made without copying.
    """
    if counts[0] == 1 and counts[-1]:
        dist = _new(Distribution)
        dist.lo = lo
        dist.counts = counts
        dist.denominator = sum(counts)
        return dist
    return Distribution(lo, counts)


def _from_weights(weights: dict[int, int]) -> Distribution:
    lo, hi = min(weights), max(weights)
    if hi - lo + 1 > limits.MAX_EXACT_OUTCOMES:
        raise DistributionTooLarge(
            f"the exact distribution would span {hi - lo + 1:,} outcomes; "
            f"the limit is {limits.MAX_EXACT_OUTCOMES:,}"
        )
    counts = [0] * (hi - lo + 1)
    for v, c in weights.items():
        counts[v - lo] += c
    return Distribution(lo, counts)


# -- polynomial arithmetic on weight lists --------------------------------------------------


def _check_size(width: int, bits: int) -> None:
    """A last guard before a step allocates ``width`` weights of ``bits`` bits.

    :func:`check` has already refused every expression whose steps could come near this,
    so it never fires for a checked tree; it stays as a guard for the helpers alone.
    """
    if width > limits.MAX_EXACT_OUTCOMES:
        raise DistributionTooLarge(
            f"the exact distribution would span {width:,} outcomes; "
            f"the limit is {limits.MAX_EXACT_OUTCOMES:,}"
        )
    if width * bits > limits.MAX_EXACT_WORK:
        raise DistributionTooLarge(
            f"the exact distribution would need about {width * bits // 8_000_000:,} MB of "
            "exact weights; that is too large to compute"
        )


def _pack(counts: Counts, hex_digits: int, big: Callable[..., Any]) -> Any:
    return big("".join([f"{c:0{hex_digits}x}" for c in reversed(counts)]) or "0", 16)


def _unpack(value: Any, hex_digits: int, length: int) -> Counts:
    if length <= 64 and type(value) is int:  # few weights: shifting is cheaper than text
        shift = 4 * hex_digits
        mask = (1 << shift) - 1
        return [(value >> (i * shift)) & mask for i in range(length)]
    if hex_digits % 2 == 0:  # whole bytes a weight: cut the bytes, no text (1000d6: 17 -> 4 ms)
        size = hex_digits // 2
        raw = memoryview(int(value).to_bytes(size * length, "little"))
        take = int.from_bytes
        return [take(raw[i : i + size], "little") for i in range(0, size * length, size)]
    text = format(value, "x").rjust(hex_digits * length, "0")
    out = [int(text[i : i + hex_digits], 16) for i in range(0, hex_digits * length, hex_digits)]
    out.reverse()
    return out


def _stride(counts: Counts) -> int:
    """The greatest common divisor of the places of ``counts``' weights (1 at once for the
    usual dense weights)."""
    if len(counts) < 2 or counts[1]:
        return 1 if len(counts) >= 2 else 0
    first, size = 2, len(counts)
    while first < size and not counts[first]:
        first += 1
    if first < size and sum(counts[::first]) == sum(counts):
        return first  # the usual strided weights (tens dice): every weight on a multiple
        # of the first place after 0 (weights are never negative), summed in C
    g = 0
    for i in range(1, len(counts)):
        if counts[i]:
            g = math.gcd(g, i)
            if g == 1:
                return 1
    return g


def _convolve(a: Counts, b: Counts) -> Counts:
    la, lb = len(a), len(b)
    if la == 1:
        return [a[0] * c for c in b]
    if lb == 1:
        return [b[0] * c for c in a]
    width = la + lb - 1
    bits = max(a).bit_length() + max(b).bit_length() + min(la, lb).bit_length() + 1
    _check_size(width, bits)
    g = _stride(a)
    if g > 1:
        g = math.gcd(g, _stride(b))
    if g > 1:  # 3dT, 2d6*10: every weight on a multiple of g, counted without the gaps
        out = [0] * width
        part = _convolve(a[::g], b[::g])
        out[: len(part) * g : g] = part
        return out
    if la * lb <= 36:
        out = [0] * width
        for i, x in enumerate(a):
            if x:
                for j, y in enumerate(b):
                    out[i + j] += x * y
        return out
    h = (bits + 7) // 8 * 2  # whole bytes, for _unpack
    if width <= 64:  # packed by shifts, one product, cut by shifts (half a plain loop's time)
        shift = 4 * h
        pa = pb = 0
        for c in reversed(a):
            pa = (pa << shift) | c
        for c in reversed(b):
            pb = (pb << shift) | c
        return _unpack(pa * pb, h, width)
    big = _int_type(width * bits)
    return _unpack(_pack(a, h, big) * _pack(b, h, big), h, width)


def _uniform_power(faces: int, n: int) -> Counts:
    """Weights of the sum of ``n`` dice whose ``faces`` weights are all 1 (a running sum)."""
    out = [1] * faces
    for _ in range(n - 1):
        size = len(out)
        new = [0] * (size + faces - 1)
        run = 0
        for i in range(size + faces - 1):
            if i < size:
                run += out[i]
            if i >= faces:
                run -= out[i - faces]
            new[i] = run
        out = new
    return out


def _power(a: Counts, n: int) -> Counts:
    """Weights of the sum of ``n`` independent copies."""
    if n == 0:
        return [1]
    if n == 1 or len(a) == 1:
        return [c**n for c in a] if len(a) == 1 else list(a)
    width = n * (len(a) - 1) + 1
    bits = n * sum(a).bit_length() + 1
    _check_size(width, bits)
    step = _stride(a) if a[0] and 0 in a else 1
    if step > 1:  # weights on every g-th value only (tens dice), as in ``_convolve``
        out = [0] * width
        part = _power(a[::step], n)
        out[: len(part) * step : step] = part
        return out
    # Small pools are cheaper in plain lists than packed into one big integer (whose
    # packing and unpacking cost about a microsecond per weight).
    w = a[0]
    if n * width <= 8 * (len(a) + width) and a.count(w) == len(a):
        out = _uniform_power(len(a), n)
        if w != 1:
            scale = w**n
            out = [c * scale for c in out]
        return out
    if n * width * len(a) <= _PLAIN_WORK:
        out = a
        for _ in range(n - 1):
            out = _convolve(out, a)
        return out
    if a.count(w) == len(a):
        out = _uniform_recurrence(len(a), n)
        if w != 1:
            scale = w**n
            out = [c * scale for c in out]
        return out
    h = (bits + 7) // 8 * 2  # whole bytes, for _unpack
    return _unpack(_pack(a, h, _int_type(width * bits)) ** n, h, width)


def _uniform_recurrence(faces: int, n: int) -> Counts:
    """Weights of the sum of ``n`` dice of ``faces`` faces weighted alike, coefficient by
    coefficient: ``P = U**n`` with ``U = (1 - x**f) / (1 - x)`` has ``P' U = n U' P``,
    which gives each weight from three before it (one exact division), and the weights are
    symmetric, so half of them are worked out. Far cheaper than one big power of the
    packed weights (1000d6: 75 -> 7 ms)."""
    width = n * (faces - 1) + 1
    c = [0] * width
    c[0] = 1
    half = (width - 1) // 2
    nf = n * faces
    for m in range(half):
        v = (m + n) * c[m]
        j = m - faces + 1
        if j >= 0:
            v += (j - nf) * c[j]
            if j >= 1:
                v += (nf - n - m + faces) * c[j - 1]
        c[m + 1] = v // (m + 1)
    for k in range(half + 1, width):
        c[k] = c[width - 1 - k]
    return c


# -- single dice ---------------------------------------------------------------------------


def _single_die(node: Dice) -> tuple[int, Counts]:
    """One physical roll of the die after its reroll rule, as (lo, weights over the values
    ``lo, lo+1, ...``; a tens die has zero weights between its faces).

    A reroll until (``r``; :mod:`arbiter.dice.bounds`) stops on a face that does not
    match: each of those has weight 1 and each face that matches weight 0 (the
    distribution conditioned on the faces that stop it). ``ro`` rerolls once: with ``m`` of
    ``F`` faces matching, out of ``F**2`` equally likely pairs a face that matches stands
    only as the reroll (``m`` ways) and one that does not either way (``F + m`` ways).
    """
    lo = node.lowest
    point = node.reroll
    if not node.kind:  # faces 1..F: each point matches a run of them (no call a face)
        faces = node.faces
        stand = [1] * faces  # 1: a face that stands, 0: one rerolled
        if point is None:
            return lo, stand
        runs = []
        for p in point.points if isinstance(point, Points) else (point,):
            r_lo, r_hi = _run(p, faces)
            if r_hi >= r_lo:
                runs.append((r_lo, r_hi))
                stand[r_lo - 1 : r_hi] = [0] * (r_hi - r_lo + 1)
        m = faces - sum(stand)  # (every face matching is refused before: parser, check)
        if not m or not node.reroll_once:
            return lo, stand
        counts = [faces + m] * faces
        for r_lo, r_hi in runs:
            counts[r_lo - 1 : r_hi] = [m] * (r_hi - r_lo + 1)
        return lo, counts
    m = node.count_matching(point) if point is not None else 0
    values = node.face_values()
    counts = [0] * (node.highest - lo + 1)
    if point is None or not m:
        for v in values:
            counts[v - lo] = 1
        return lo, counts
    if node.reroll_once:
        stays, last = len(values) + m, m
    else:
        stays, last = 1, 0
    for v in values:
        counts[v - lo] = last if point.matches(v) else stays
    return lo, counts


def _dense(weights: dict[int, int]) -> tuple[int, Counts]:
    """Weights by outcome as (lo, a list over ``lo..hi``)."""
    if not weights:
        return 0, []
    lo, hi = min(weights), max(weights)
    counts = [0] * (hi - lo + 1)
    for v, c in weights.items():
        counts[v - lo] += c
    return lo, counts


def _mapped(lo: int, counts: Counts, fn: Callable[[int], int]) -> tuple[int, Counts]:
    """The weights of ``fn(outcome)``."""
    weights: dict[int, int] = {}
    for i, c in enumerate(counts):
        if c:
            v = fn(lo + i)
            weights[v] = weights.get(v, 0) + c
    return _dense(weights)


def _clamped(lo: int, counts: Counts, clamp: Callable[[int], int]) -> tuple[int, Counts]:
    """The weights of ``clamp(outcome)`` for a die's minimum and maximum
    (:meth:`~arbiter.dice.ast.Dice.clamp`), by slices: a clamp sends every outcome at or
    below its lowest result there, every one at or above its highest there, and keeps
    those between (``_mapped`` does the same a value at a time)."""
    low, high = clamp(lo), clamp(lo + len(counts) - 1)
    if low == high:
        return low, [sum(counts)]
    i, j = low - lo, high - lo  # (0 <= i < j < len(counts): see above)
    out = counts[i : j + 1]
    out[0] = sum(counts[: i + 1])
    out[-1] = sum(counts[j:])
    return low, out


def _counting(node: Dice | RollGroup) -> Callable[[Any], int] | None:
    """What one standing die of value ``v`` adds to the total once it is settled: 0 when a
    select drops it, 1 for a success, -1 for a failure (``-v`` when failures are
    subtracted), 0 for neither when successes are counted, else ``v``; None when that is
    ``v`` itself."""
    select = node.select if isinstance(node, Dice) else None
    subtract = node.subtract if isinstance(node, Dice) else False
    success, failure = node.success, node.failure
    if success is not None or failure is not None:
        hit = success.matches if success is not None else None
        miss = failure.matches if failure is not None else None
        other = 0 if hit is not None else None  # neither: 0, or (None) the die's value

        def count(v: int) -> int:
            if select is not None and not select.kept(v):
                return 0
            if hit is not None and hit(v):
                return 1
            if miss is not None and miss(v):
                return -v if subtract else -1
            return v if other is None else other

        return count
    if select is not None:
        kept = select.kept
        return lambda v: v if kept(v) else 0
    return None


def _chain(
    lo: int,
    base: Counts,
    explodes: Callable[[int], bool],
    first: Callable[[int], int],
    later: Callable[[int], int],
    explosions: int,
) -> tuple[int, Counts]:
    """The sum over one die's explosion chain of what each roll adds: ``first(face)`` for
    the first roll and ``later(face)`` for the others (a penetrating die's are one lower),
    with at most ``explosions`` explosions.

    A chain allowed ``k + 1`` explosions stops at its first roll (a face that does not
    explode) or explodes and goes on as a chain allowed ``k``: one convolution a step.
    """

    def split(fn: Callable[[int], int]) -> tuple[tuple[int, Counts], tuple[int, Counts]]:
        steady: dict[int, int] = {}
        boom: dict[int, int] = {}
        for i, c in enumerate(base):
            if c:
                v = lo + i
                side = boom if explodes(v) else steady
                k = fn(v)
                side[k] = side.get(k, 0) + c
        return _dense(steady), _dense(boom)

    (s1_lo, s1), (b1_lo, b1) = split(first)
    if not b1 or not explosions:  # an explosion that can never happen never happens
        return _mapped(lo, base, first)
    (s2_lo, s2), (b2_lo, b2) = split(later)
    cur_lo, cur = _mapped(lo, base, later)  # the last roll of a full chain
    for _ in range(explosions - 1):
        cur_lo, cur = _chain_step(s2_lo, s2, b2_lo, b2, cur_lo, cur, sum(base))
    return _chain_step(s1_lo, s1, b1_lo, b1, cur_lo, cur, sum(base))


def _chain_step(
    s_lo: int, steady: Counts, b_lo: int, boom: Counts, c_lo: int, cur: Counts, one: int
) -> tuple[int, Counts]:
    """``steady * total(cur) + boom ⊗ cur``: a roll that stops, or explodes into ``cur``."""
    den = sum(cur)
    tail = _convolve(boom, cur)
    t_lo = b_lo + c_lo
    lo = min(s_lo, t_lo) if steady else t_lo
    hi = t_lo + len(tail) - 1
    if steady:
        hi = max(hi, s_lo + len(steady) - 1)
    _check_size(hi - lo + 1, den.bit_length() + one.bit_length())
    out = [0] * (hi - lo + 1)
    shift = s_lo - lo
    for i, c in enumerate(steady):
        if c:
            out[shift + i] = c * den
    shift = t_lo - lo
    for i, c in enumerate(tail):
        if c:
            out[shift + i] += c
    return lo, out


def _separate_chain_successes(node: Dice, lo: int, base: Counts, explosions: int
                              ) -> tuple[int, Counts]:
    """What one chain of separately exploding dice (``!``, ``!p``, ``!o``) adds when its
    dice are counted: each roll a die that may be a success (1), a failure (-1) or
    neither (0), as (lo, weights)."""
    count = _counting(node)
    assert count is not None and node.explode is not None
    pen = 1 if node.penetrate else 0
    clamp = node.clamp
    return _chain(
        lo, base, node.explode.matches, lambda v: count(clamp(v)),
        lambda v: count(clamp(v - pen)), explosions,
    )


def _keep_values(
    lo: int, weights: Counts, n: int, highest: bool, keep: int, value: Callable[[int], int]
) -> tuple[int, Counts]:
    """:func:`_keep` for values that may be negative: shifted up, then back."""
    low = min(value(lo + i) for i, w in enumerate(weights) if w)
    if low >= 0:
        return _keep(lo, weights, n, highest, keep, value)
    k_lo, counts = _keep(lo, weights, n, highest, keep, lambda v: value(v) - low)
    return k_lo + keep * low, counts


def _keep(
    lo: int, weights: Counts, n: int, highest: bool, keep: int, value: Callable[[int], int]
) -> tuple[int, Counts]:
    """Sum of ``value(face)`` over the ``keep`` highest (or lowest) of ``n`` iid dice."""
    faces = [(lo + i, w) for i, w in enumerate(weights) if w]
    if highest:
        faces.reverse()
    den = sum(weights)
    top = keep * max((value(v) for v, _ in faces), default=0)
    bits = n * den.bit_length() + 1
    _check_size(top + 1, bits)
    h = (bits + 3) // 4
    shift = 4 * h
    binom = [[math.comb(r, j) for j in range(r + 1)] for r in range(n + 1)]
    # Each step multiplies a polynomial by a binomial of up to n bits: gmpy2 is faster than
    # Python's integers at that from about a thousand bits on (and several times faster for
    # big pools of few faces).
    big = _big if (top + 1) * shift > _KEEP_GMP_BITS else int
    zero = big(0)
    state: list[Any] = [zero] * (n + 1)
    state[0] = big(1)
    for v, w in faces:
        step = shift * value(v)  # one kept die showing v moves a polynomial this far
        powers = [w**j for j in range(n + 1)]
        new: list[Any] = [zero] * (n + 1)
        for a in range(n + 1):
            poly = state[a]
            if not poly:
                continue
            room = keep - a if a < keep else 0  # how many of the next dice are kept
            row = binom[n - a]
            for j in range(n - a + 1):
                term = poly * (row[j] * powers[j])
                if step and j and room:
                    term <<= step * (j if j < room else room)
                new[a + j] += term
        state = new
    return 0, _unpack(state[n], h, top + 1)


def _keep_uniform(kinds: list[tuple[int, int]], keep: int) -> tuple[int, Counts]:
    """The sum of the ``keep`` highest of plain dice of several sizes, ``n`` dice of ``f``
    faces for each ``(f, n)``, as (lowest total, ways of each total).

    Going down the faces, a plain die not yet placed shows the face or one below it alike
    whatever its size (each face weighs 1), so the dice of every size at least the face
    are alike there: a state is how many dice are placed, not how many of each kind
    (``_keep_mixed``'s states, the product of each kind's dice plus one: 32 for
    ``{1d4+1d6+1d8+1d10+1d12}kh2``, 3 here). A state that places its last kept die is
    finished at once: the dice not placed show a lower face, each its size's way.
    """
    if keep == 0:  # the sum of no dice, in every way the dice can show
        return 0, [math.prod(f**n for f, n in kinds)]
    top_face = max(f for f, _ in kinds)
    bits = math.prod(f**n for f, n in kinds).bit_length() + 1
    h = (bits + 7) // 8 * 2  # whole bytes a weight, for _unpack
    shift = 4 * h
    top = keep * top_face
    big = _big if (top + 1) * shift > _KEEP_GMP_BITS else int
    joining: dict[int, int] = {}  # dice of each size
    for f, n in kinds:
        joining[f] = joining.get(f, 0) + n
    waiting = math.prod(f**n for f, n in joining.items())  # ways of the dice below the face
    states: list[Any] = [big(1)] + [0] * (keep - 1)  # by dice placed
    rows: dict[int, list[int]] = {}  # Pascal's triangle, by row
    done: Any = big(0)
    active = 0  # dice whose size is at least the face
    for v in range(top_face, 0, -1):
        n_here = joining.get(v, 0)
        if n_here:
            active += n_here
            waiting //= v**n_here
        new: list[Any] = [0] * keep
        step = shift * v
        for placed, poly in enumerate(states):
            if not poly:
                continue
            u = active - placed  # dice that may show this face or a lower one
            room = keep - placed
            row = rows.get(u)
            if row is None:
                row = rows[u] = [math.comb(u, j) for j in range(u + 1)]
            new[placed] += poly
            for j in range(1, min(u, room - 1) + 1):  # fewer than room here: still open
                new[placed + j] += (poly * row[j]) << (step * j)
            if u >= room:  # room or more here: finished, the rest below this face
                below = v - 1
                ways = 0
                for j in range(room, u + 1):
                    ways += row[j] * below ** (u - j)
                done += (poly * (ways * waiting)) << (step * room)
        states = new
    return 0, _unpack(done, h, top + 1)


def _keep_mixed(
    kinds: list[tuple[int, Counts, int]], highest: bool, keep: int, value: Callable[[int], int]
) -> tuple[int, Counts]:
    """Sum of ``value(face)`` over the ``keep`` highest (or lowest) of dice of several
    kinds, ``n`` of each kind ``(lo, weights, n)``: :func:`_keep` with one count of dice
    placed per kind. Going down the faces (up, for the lowest), each kind in turn places
    ``j`` of its dice not yet placed on the face, in ``C(left, j)`` ways; the first
    ``keep`` dice placed are kept, whatever their kinds (dice on one face are alike)."""
    faces = sorted({lo + i for lo, weights, _ in kinds for i, w in enumerate(weights) if w},
                   reverse=highest)
    if keep == 0:  # the sum of no dice, in every way the dice can show
        return 0, [math.prod(sum(weights) ** n for _, weights, n in kinds)]
    plain = value is _same  # (the usual case: each face counts itself, no call a face)
    values = faces if plain else [value(v) for v in faces]
    low = min(values)
    shift_back = keep * low if low < 0 else 0
    base_value = min(low, 0)
    top = keep * (max(values) - base_value)
    bits = sum(n * sum(w).bit_length() for _, w, n in kinds) + 1
    _check_size(top + 1, bits)
    h = (bits + 3) // 4
    shift = 4 * h
    biggest = max(n for _, _, n in kinds)
    binom = [[math.comb(r, j) for j in range(r + 1)] for r in range(biggest + 1)]
    big = _big if (top + 1) * shift > _KEEP_GMP_BITS else int
    # A state is how many dice of each kind are placed, written as one number (each kind a
    # digit of base n + 1): cheaper to build and to hash than a tuple in the inner loop.
    strides: list[int] = []
    size = 1
    for _, _, n in kinds:
        strides.append(size)
        size *= n + 1
    states: dict[int, Any] = {0: big(1)}
    placed_of: dict[int, int] = {0: 0}  # how many dice a state has placed, all kinds
    # A state with ``keep`` dice placed is finished at once: its sum is settled, and each
    # die not yet placed shows one of the faces still to come (issue 35: with few dice
    # kept, most states are finished early: {1d4+1d6+1d8+1d10+1d12}kh2's first call
    # 1.19 -> 0.6 ms, and 5.9 -> 0.73 ms warm, on a busy machine).
    later: list[list[int]] = []  # per face, each kind's weight on the faces after it
    to_come = [0] * len(kinds)
    for v in reversed(faces):
        later.append(list(to_come))
        for t, (lo, weights, _) in enumerate(kinds):
            i = v - lo
            if 0 <= i < len(weights):
                to_come[t] += weights[i]
    later.reverse()
    zero = big(0)
    done: Any = zero
    for f, v in enumerate(faces):
        step = shift * (values[f] - base_value)
        # the weight each kind's dice not yet placed may still show: the faces after this
        # one once the kind has placed its dice on it, and this one too before
        rests = [rest + (weights[v - lo] if 0 <= v - lo < len(weights) else 0)
                 for rest, (lo, weights, _) in zip(later[f], kinds, strict=True)]
        for t, (lo, weights, n) in enumerate(kinds):
            rests[t] = later[f][t]
            i = v - lo
            w = weights[i] if 0 <= i < len(weights) else 0
            if not w:
                continue
            powers = [w**j for j in range(n + 1)]
            stride, base, rest = strides[t], n + 1, rests[t]
            new: dict[int, Any] = {}
            closed: dict[tuple[int, int], int] = {}  # see below, by (m, room)
            others = [(strides[u], other + 1, rests[u])
                      for u, (_, _, other) in enumerate(kinds) if u != t]
            for state, poly in states.items():
                placed = placed_of[state]
                room = keep - placed  # (a state with every kept die placed is finished)
                m = n - state // stride % base  # this kind's dice not yet placed
                row = binom[m]
                # j of them on this face: fewer than ``room`` leave the state open...
                got = new.get(state)
                if got is None:
                    new[state] = poly
                    placed_of[state] = placed
                else:
                    new[state] = got + poly
                for j in range(1, m + 1 if m < room else room):
                    term = poly * (row[j] * powers[j])
                    if step:
                        term <<= step * j
                    key = state + j * stride
                    got = new.get(key)
                    if got is None:
                        new[key] = term
                        placed_of[key] = placed + j
                    else:
                        new[key] = got + term
                if room <= m:
                    # ...and ``room`` or more finish it, each keeping ``room`` of them: their
                    # ways summed at once, each kind's dice left showing the faces to come
                    ways = closed.get((m, room), 0)
                    if not ways:
                        for j in range(room, m + 1):
                            ways += row[j] * powers[j] * rest ** (m - j)
                        closed[m, room] = ways
                    for other_stride, other_base, other_rest in others:
                        left = other_base - 1 - state // other_stride % other_base
                        if left:
                            ways *= other_rest ** left
                    term = poly * ways
                    if step:
                        term <<= step * room
                    done += term
            states = new
    if not done:
        done = zero
    return shift_back, _unpack(done, h, top + 1)


def _unsupported(node: Node, why: str = "") -> NoExactOdds:
    what = why or (
        "keeping or dropping dice that explode into separate dice has no exact model here "
        "(compounding explosions, '!!', have one)"
    )
    return NoExactOdds(f"no exact odds for {_short(node)}: {what}; a Monte-Carlo estimate "
                       "gives them approximately")


def _plain_dice(lo: int, count: int, size: int) -> Distribution:
    """The sum of ``count`` dice of ``size`` faces weighted alike, the lowest ``lo``."""
    if count > 12:
        counts = _power([1] * size, count)
    else:
        # (1 + x + ... + x^(size-1))^count at x = 2^shift, one integer power in C: every
        # weight is below size^count, so ``shift`` bits keep them apart; then cut up
        # (10d6's first call 40 -> 22 µs, 8dF 26 -> 17 µs)
        hex_digits = 2 * (((size**count).bit_length() + 7) // 8)  # (whole bytes)
        shift = 4 * hex_digits
        row = ((1 << (shift * size)) - 1) // ((1 << shift) - 1)
        counts = _unpack(row**count, hex_digits, count * (size - 1) + 1)
    dist: Distribution = _new(Distribution)
    dist.lo = lo
    dist.counts = counts
    dist.denominator = size**count
    return dist


def _dice(node: Dice) -> Distribution:
    n = node.count
    if (node.reroll is None and not node.kind and node.minimum is None
            and node.maximum is None and node.explode is None and node.keep is None
            and node.success is None and node.failure is None and node.select is None
            and n <= 12 and n * node.faces <= QUICK_WIDTH):
        return _plain_dice(n, n, node.faces)  # NdX, the commonest term, in one power
    lo, base = _single_die(node)
    if (node.explode is None and node.keep is None and node.success is None
            and node.failure is None and node.select is None):
        # the usual term: its dice summed, each rerolled or clamped (the rest below, which
        # it would take the same way, asks a helper for each thing it has not)
        if node.minimum is not None or node.maximum is not None:
            lo, base = _clamped(lo, base, node.clamp)
        if n != 1:
            base = _power(base, n)
        if base[0] == 1 and base[-1]:
            return _distribution(lo * n, base)
        return Distribution(lo * n, base)
    explosions = explosions_allowed(node)  # 0 when no face can explode
    count = _counting(node)
    clamp = node.clamp
    clamps = node.minimum is not None or node.maximum is not None
    if explosions and node.separate:
        if node.keep is not None:
            return _pool_keep(node, node.keep, [node])
        assert node.explode is not None
        if count is not None and node.success is not None:
            c_lo, per = _separate_chain_successes(node, lo, base, explosions)
            return Distribution(c_lo * n, _power(per, n))
        pen = 1 if node.penetrate else 0
        first = (lambda v: count(clamp(v))) if count is not None else clamp
        c_lo, per = _chain(lo, base, node.explode.matches, first,
                           lambda v: first(v - pen), explosions)
        return Distribution(c_lo * n, _power(per, n))
    if explosions:
        assert node.explode is not None
        lo, base = _chain(lo, base, node.explode.matches, _same, _same, explosions)
    if clamps:
        lo, base = _clamped(lo, base, clamp)
    if node.keep is not None:
        highest, keep = node.keep.kept_highest(n)
        k_lo, counts = _keep_values(lo, base, n, highest, keep, count or _same)
        return Distribution(k_lo, counts)
    if count is not None:
        lo, base = _mapped(lo, base, count)
    if base[0] == 1:
        return _distribution(lo * n, _power(base, n))
    return Distribution(lo * n, _power(base, n))


def _same(v: int) -> int:
    return v


# -- exact values: whole numbers, or fractions inside rounding functions ------------------------


class _Fractions:
    """A distribution whose outcomes may be fractions (inside ``floor()`` and the other
    rounding functions, where ``/`` divides exactly): weights by outcome."""

    __slots__ = ("weights",)

    def __init__(self, weights: dict[Value, int]) -> None:
        self.weights = weights


Exact = Distribution | _Fractions


def _items(x: Exact) -> list[tuple[Value, int]]:
    if isinstance(x, Distribution):
        lo = x.lo
        return [(lo + i, c) for i, c in enumerate(x.counts) if c]
    return list(x.weights.items())


def _settled(weights: dict[Value, int]) -> Exact:
    """Whole numbers as a :class:`Distribution`, anything else as :class:`_Fractions`."""
    if all(type(v) is int or v.denominator == 1 for v in weights):
        return _from_weights({int(v): c for v, c in weights.items()})
    if len(weights) > limits.MAX_EXACT_OUTCOMES:
        raise DistributionTooLarge(
            f"the exact distribution would have {len(weights):,} outcomes; "
            f"the limit is {limits.MAX_EXACT_OUTCOMES:,}"
        )
    return _Fractions(weights)


def _map(x: Exact, fn: Callable[[Value], Value]) -> Exact:
    weights: dict[Value, int] = {}
    for v, c in _items(x):
        k = fn(v)
        weights[k] = weights.get(k, 0) + c
    return _settled(weights)


def _combine(a: Exact, b: Exact, op: Callable[[Value, Value], Value]) -> Exact:
    left, right = _items(a), _items(b)
    pairs = len(left) * len(right)
    if pairs > limits.MAX_EXACT_OUTCOMES:
        raise DistributionTooLarge(
            f"combining these distributions takes {pairs:,} pairs of outcomes; "
            f"the limit is {limits.MAX_EXACT_OUTCOMES:,}"
        )
    weights: dict[Value, int] = {}
    get = weights.get
    for x, cx in left:
        for y, cy in right:
            v = op(x, y)
            weights[v] = get(v, 0) + cx * cy
    return _settled(weights)


def _point(x: Exact) -> Value | None:
    """The one outcome of ``x``, or None when it has several."""
    if isinstance(x, Distribution):
        return x.lo if len(x.counts) == 1 else None
    return next(iter(x.weights)) if len(x.weights) == 1 else None


def _may_be_zero(x: Exact) -> bool:
    if isinstance(x, Distribution):
        i = -x.lo
        return 0 <= i < len(x.counts) and x.counts[i] != 0
    return 0 in x.weights


def _floor_div(x: Value, y: Value) -> int:
    return int(x // y)


def _ceil_div(x: Value, y: Value) -> int:
    return int(-((-x) // y))


def _exact_div(x: Value, y: Value) -> Value:
    q = Fraction(x) / y
    return q.numerator if q.denominator == 1 else q


def _eval(node: Node, exact: bool = False) -> Exact:
    if isinstance(node, Num):
        return Distribution.point(node.value)
    if isinstance(node, Dice):
        return _dice(node)
    if isinstance(node, WRAPPERS):
        return _eval(node.inner, exact)
    if isinstance(node, Neg):
        inner = _eval(node.operand, exact)
        return -inner if isinstance(inner, Distribution) else _map(inner, _negative)
    if isinstance(node, Func):
        return _function(node, exact)
    if isinstance(node, RollGroup):
        return _group(node, exact)
    if isinstance(node, Comparison):
        holds = RELATIONS[node.op]
        first, second = _eval(node.left, exact), _eval(node.right, exact)
        if isinstance(first, Distribution) and isinstance(second, Distribution):
            return _compared(first, second, node.op)
        point = _point(second)
        if point is not None:
            c = point
            return _map(first, lambda v: int(holds(v, c)))
        return _combine(first, second, lambda x, y: int(holds(x, y)))
    assert isinstance(node, BinOp)
    op = node.op
    if op == "+" and type(node.right) is Dice and type(node.left) is not Num:
        repeated = _repeated_sum(node)  # d%+d%+d%: one power, not two products
        if repeated is not None:
            return repeated
    right: Exact
    if (op == "+" or op == "-") and type(node.right) is Num:  # (1d20+5: the same weights)
        left = _eval(node.left, exact)
        if isinstance(left, Distribution):
            add = node.right.value
            return _shifted(left, add if op == "+" else -add)
        right = Distribution.point(node.right.value)
    else:
        left, right = _eval(node.left, exact), _eval(node.right, exact)
    if op in ("+", "-"):
        if isinstance(left, Distribution) and isinstance(right, Distribution):
            return left + right if op == "+" else left - right
        sign = 1 if op == "+" else -1
        return _combine(left, right, lambda x, y: x + sign * y)
    if op == "*":
        r, lf = _point(right), _point(left)
        if r is not None:
            rk = r
            return _map(left, lambda v: v * rk)
        if lf is not None:
            lk = lf
            return _map(right, lambda v: v * lk)
        return _combine(left, right, lambda x, y: x * y)
    if _may_be_zero(right):
        raise DiceEvalError(f"division by zero is possible in {node}")
    if op == "%":
        fn: Callable[[Value, Value], Value] = _modulo
    elif op == "/^":
        fn = _ceil_div
    elif exact:
        fn = _exact_div
    else:
        fn = _floor_div
    k = _point(right)
    if k is not None:
        if isinstance(left, Distribution) and type(k) is int and fn is not _exact_div:
            return _whole_map(left, op, k)
        return _map(left, lambda v: fn(v, k))
    return _combine(left, right, fn)


def _compared(a: Distribution, b: Distribution, op: str) -> Distribution:
    """1 where ``a op b`` holds, else 0, for independent whole ``a`` and ``b``: for each
    outcome of ``b``, the weight of ``a``'s outcomes on either side of it, from running
    sums (the pairs one at a time, ``_combine``: the same weights)."""
    counts, lo = a.counts, a.lo
    below = [0]  # below[i]: weight of a's outcomes under lo + i
    run = 0
    for c in counts:
        run += c
        below.append(run)
    total = run
    n = len(counts)
    ways = 0  # of the relation holding
    for j, w in enumerate(b.counts):
        if not w:
            continue
        i = b.lo + j - lo  # b's outcome as a place among a's
        under = below[min(max(i, 0), n)]  # a < b
        at = counts[i] if 0 <= i < n else 0  # a == b
        if op == ">=":
            ways += w * (total - under)
        elif op == ">":
            ways += w * (total - under - at)
        elif op == "<=":
            ways += w * (under + at)
        elif op == "<":
            ways += w * under
        elif op == "=":
            ways += w * at
        else:  # "<>"
            ways += w * (total - at)
    fails = total * b.denominator - ways
    return Distribution(0, [fails, ways])


def _repeated_sum(node: BinOp) -> Distribution | None:
    """A sum of dice terms some of which are written alike (``1d6+1d6+1d6``), each kind's
    distribution taken to the power of its count; None when ``node`` is another sum or no
    term repeats (the usual products then)."""
    terms: list[Dice] = []
    while True:
        right = node.right
        if node.op != "+" or type(right) is not Dice:
            return None
        terms.append(right)
        left = node.left
        if type(left) is Dice:
            terms.append(left)
            break
        if type(left) is not BinOp:
            return None
        node = left
    kinds: list[list[Any]] = []  # [term, count]
    for t in terms:
        for kind in kinds:
            if kind[0] == t:
                kind[1] += 1
                break
        else:
            kinds.append([t, 1])
    if len(kinds) == len(terms):
        return None
    total: Distribution | None = None
    for t, m in kinds:
        one = _dice(t)
        part = one if m == 1 else Distribution(one.lo * m, _power(one.counts, m))
        total = part if total is None else total + part
    return total


def _whole_map(dist: Distribution, op: str, k: int) -> Distribution:
    """Each whole outcome ``v`` of ``dist`` taken to ``v op k`` for a whole ``k`` (not 0):
    ``%`` (the divisor's sign), ``rem`` (the dividend's), ``/`` (rounded down) or ``/^``
    (rounded up), in one pass with no call an outcome (``_modulo``, ``_remainder``,
    ``_floor_div``, ``_ceil_div`` on each: the same)."""
    out: dict[int, int] = {}
    get = out.get
    lo = dist.lo
    m = -k if k < 0 else k
    for i, c in enumerate(dist.counts):
        if c:
            v = lo + i
            if op == "%":
                r = v % k
            elif op == "rem":
                r = v % m if v >= 0 else -(-v % m)
            elif op == "/":
                r = v // k
            else:  # "/^"
                r = -(-v // k)
            out[r] = get(r, 0) + c
    return _from_weights(out)


def _shifted(dist: Distribution, k: int) -> Distribution:
    """``dist`` with ``k`` added to every outcome (its weights shared, never changed)."""
    out: Distribution = _new(Distribution)
    out.lo = dist.lo + k
    out.counts = dist.counts
    out.denominator = dist.denominator
    return out


def _negative(v: Value) -> Value:
    return -v


def _function(node: Func, exact: bool) -> Exact:
    if node.name == "rem":
        left = _eval(node.args[0], exact)
        divisor = node.args[1]
        if type(divisor) is Num and divisor.value and isinstance(left, Distribution):
            return _whole_map(left, "rem", divisor.value)  # rem(2d6-9,4): by a number
        right = _eval(divisor, exact)
        if _may_be_zero(right):
            raise DiceEvalError(f"division by zero is possible in {node}")
        k = _point(right)
        if k is not None:
            if isinstance(left, Distribution) and type(k) is int:
                return _whole_map(left, "rem", k)
            return _map(left, lambda v: _remainder(v, k))
        return _combine(left, right, _remainder)
    if node.name != "abs":
        arg = node.args[0]
        while isinstance(arg, _GROUP_OR_LABEL):
            arg = arg.inner
        if (isinstance(arg, BinOp) and arg.op == "/" and type(arg.right) is Num
                and arg.right.value):  # floor(3d6/2): whole numbers over a number
            whole = _eval(arg.left, True)
            if isinstance(whole, Distribution):
                return _rounded_quotient(node.name, whole, arg.right.value)
        scale = _scale(node.args[0])
        if scale is not None and scale > 1 and _outcomes_bound(node.args[0]) <= \
                limits.MAX_EXACT_OUTCOMES:
            return _rounded(node.name, _scaled(node.args[0], scale).items(), scale)
    fn = FUNCTIONS[node.name]
    return _map(_eval(node.args[0], exact or node.name != "abs"), fn)


# -- rounding a sum of dice divided by numbers, in integers -----------------------------------
#
# Inside a rounding function ``/`` divides exactly. When every division inside is by a
# number (``floor(3d6/2)+ceil(2d8/3)``, d20's ``trunc(1d20/2+1d6/3)``), each value is a
# whole number once multiplied by one scale (the divisors' product, through sums by their
# least common multiple), so the weights are kept by that whole number instead of by a
# ``Fraction``: the same outcomes and weights, in integer arithmetic (issue 35: a
# ``Fraction`` sum costs microseconds; this took d20's ``1d20/2+1d6/3`` from 0.69 ms to
# about 0.1 ms). Only where no step can exceed the outcome limit (the product of the dice
# terms' widths is below it), so no step refuses what the fraction path accepts.


def _number(node: Node) -> int | None:
    while isinstance(node, _GROUP_OR_LABEL):
        node = node.inner
    return node.value if isinstance(node, Num) else None


def _scale(node: Node) -> int | None:
    """The least scale the walk below uses for ``node`` (every value of it times the scale
    is whole), or None when ``node`` has a part it does not cover."""
    if isinstance(node, Num):
        return 1
    if isinstance(node, Dice):
        return 1 if node.plain else None
    if isinstance(node, _GROUP_OR_LABEL):
        return _scale(node.inner)
    if isinstance(node, Neg):
        return _scale(node.operand)
    if not isinstance(node, BinOp):
        return None
    if node.op == "+" or node.op == "-":
        left, right = _scale(node.left), _scale(node.right)
        return None if left is None or right is None else math.lcm(left, right)
    k = _number(node.right)
    if node.op == "*":
        if k is not None:
            return _scale(node.left)
        return _scale(node.right) if _number(node.left) is not None else None
    if node.op == "/" and k:
        left = _scale(node.left)
        return None if left is None else left * abs(k)
    return None


def _outcomes_bound(node: Node) -> int:
    """At least the number of outcomes of any step under ``node`` (one :func:`_scale`
    covers): the product of its plain dice terms' widths."""
    if isinstance(node, Dice):
        return node.count * (node.faces - 1) + 1
    if isinstance(node, Num):
        return 1
    bound = 1
    for child in children(node):
        bound *= _outcomes_bound(child)
    return bound


def _scaled(node: Node, scale: int) -> dict[int, int]:
    """The weights of ``scale`` times the exact value of ``node`` (a whole number for the
    scale :func:`_scale` gives it, or any multiple of that)."""
    if isinstance(node, Num):
        return {node.value * scale: 1}
    if isinstance(node, Dice) or _scale(node) == 1:
        # (whole numbers all through: sums of them convolved, as the fraction path does)
        dist = _dice(node) if isinstance(node, Dice) else _eval(node)
        assert isinstance(dist, Distribution)
        lo = dist.lo
        return {(lo + i) * scale: c for i, c in enumerate(dist.counts) if c}
    if isinstance(node, _GROUP_OR_LABEL):
        return _scaled(node.inner, scale)
    if isinstance(node, Neg):
        return {-v: c for v, c in _scaled(node.operand, scale).items()}
    assert isinstance(node, BinOp)
    if node.op == "+" or node.op == "-":
        left, right = _scaled(node.left, scale), _scaled(node.right, scale)
        sign = 1 if node.op == "+" else -1
        weights: dict[int, int] = {}
        get = weights.get
        for x, cx in left.items():
            for y, cy in right.items():
                v = x + sign * y
                weights[v] = get(v, 0) + cx * cy
        return weights
    k = _number(node.right)
    if node.op == "*":
        if k is None:  # a number times the rest
            k = _number(node.left)
            assert k is not None
            inner = _scaled(node.right, scale)
        else:
            inner = _scaled(node.left, scale)
        out: dict[int, int] = {}
        for v, c in inner.items():
            out[v * k] = out.get(v * k, 0) + c
        return out
    assert node.op == "/" and k
    # (each value is a multiple of k: the scale holds k for this division)
    out = {}
    for v, c in _scaled(node.left, scale).items():
        q = v // k
        out[q] = out.get(q, 0) + c
    return out


def _rounded_quotient(name: str, dist: Distribution, k: int) -> Distribution:
    """``name`` (a rounding function) of each outcome of ``dist`` divided exactly by ``k``
    (not 0), in integers, one pass (``FUNCTIONS`` on each ``Fraction(v, k)``: the same)."""
    sign = 1
    if k < 0:  # v / k = (-v) / (-k)
        sign, k = -1, -k
    lo = dist.lo
    return _rounded(name, ((sign * (lo + i), c) for i, c in enumerate(dist.counts) if c), k)


def _rounded(name: str, weights: Iterable[tuple[int, int]], scale: int) -> Distribution:
    """``name`` (a rounding function) of values given times ``scale`` (> 0), with their
    weights."""
    out: dict[int, int] = {}
    get = out.get
    for v, c in weights:
        if name == "floor":
            r = v // scale
        elif name == "ceil":
            r = -(-v // scale)
        elif name == "trunc":
            r = v // scale if v >= 0 else -(-v // scale)
        else:  # round: halves up
            r = (2 * v + scale) // (2 * scale)
        out[r] = get(r, 0) + c
    return _from_weights(out)


# -- groups ---------------------------------------------------------------------------------


_SORT = operator.attrgetter(*[f.name for f in fields(Dice) if f.name != "count"])
"""A die's sort: every field of its term but the count (terms of one sort are alike)."""


def _alike(terms: list[Dice]) -> bool:
    first = _SORT(terms[0])
    return all(_SORT(t) == first for t in terms[1:])


def _members_as_dice(node: RollGroup) -> list[Dice] | None:
    """The members of a group that keeps some of them, when each is one die whose roll is
    its total (``{1d100,1d90,1d80}kh2``: no count of successes, no explosion into separate
    dice): keeping members is then keeping dice, as a group of dice keeps them
    (``{1d100+1d90+1d80}kh2``, one state per count of dice placed for plain ones; folding
    seven different members took 128 states and was refused). None for any other group."""
    if node.dice_level or node.keep is None:
        return None
    terms: list[Dice] = []
    for m in node.members:
        if (type(m) is not Dice or m.count != 1 or m.keep is not None or m.select is not None
                or m.success is not None or m.failure is not None
                or (m.explode is not None and not m.compound)):
            return None
        terms.append(m)
    return terms


def _as_dice(node: RollGroup) -> list[Dice] | None:
    """The dice terms a group keeps or counts as dice: a group of dice's own
    (``{4d6+3d8}kh4``), or members of one die each (:func:`_members_as_dice`); None for a
    group of members (``_group`` and the estimate read it alike)."""
    if node.dice_level and (node.keep is not None or node.success is not None):
        return _terms(node.members[0])
    return _members_as_dice(node)


def _group(node: RollGroup, exact: bool) -> Exact:
    terms = _as_dice(node)
    if terms is not None:
        if _alike(terms):
            merged = replace(terms[0], count=sum(t.count for t in terms), keep=node.keep,
                             success=node.success, failure=node.failure)
            return _dice(merged)
        if node.keep is not None:
            return _mixed_keep(node, terms)
        total = Distribution.point(0)
        for t in terms:
            total = total + _dice(replace(t, success=node.success, failure=node.failure))
        return total
    members = [_eval(m, exact) for m in node.members]
    m = len(members)
    count = _counting(node)
    if node.keep is not None:
        highest, keep = node.keep.kept_highest(m)
        if keep == 0:
            return Distribution.point(0)
        if keep < m:
            if keep == 1:
                best = _extreme(members, highest)
                return _map(best, count) if count is not None else best
            kinds = _member_kinds(members)
            if kinds is not None:
                k_lo, counts = _keep_mixed(kinds, highest, keep, count or _same)
                return Distribution(k_lo, counts)
            return _fold_keep(members, highest, keep, count)
    if count is not None:
        members = [_map(x, count) for x in members]
    out = members[0]
    for x in members[1:]:
        if isinstance(out, Distribution) and isinstance(x, Distribution):
            out = out + x
        else:
            out = _combine(out, x, lambda a, b: a + b)
    return out


def _one_die(node: Dice) -> tuple[int, Counts]:
    """One die of a term that explodes only by compounding, as (lo, weights)."""
    lo, base = _single_die(node)
    explosions = explosions_allowed(node)
    if explosions:
        assert node.explode is not None
        lo, base = _chain(lo, base, node.explode.matches, _same, _same, explosions)
    if node.minimum is not None or node.maximum is not None:
        lo, base = _clamped(lo, base, node.clamp)
    return lo, base


def _kinds(terms: list[Dice]) -> list[tuple[Dice, int]]:
    """The terms of a group that keeps dice, alike ones together (the first of each sort
    stands for them), with their counts."""
    kinds: list[tuple[Dice, int]] = []
    sorts: list[Any] = []
    for t in terms:
        sort = _SORT(t)
        for i, known in enumerate(sorts):
            if known == sort:
                kinds[i] = (kinds[i][0], kinds[i][1] + t.count)
                break
        else:
            sorts.append(sort)
            kinds.append((t, t.count))
    return kinds


def _chains(term: Dice) -> pools.Chains:
    """The dice of one term as :mod:`~arbiter.dice.pools` takes them: chains of rolls
    when they explode into separate dice, else one kind of die (compounded, clamped)."""
    explosions = explosions_allowed(term)
    if explosions and term.separate:
        assert term.explode is not None
        lo, base = _single_die(term)
        pen = 1 if term.penetrate else 0
        clamp = term.clamp
        return pools.exploding(term.count, lo, base, term.explode.matches, clamp,
                               lambda v: clamp(v - pen), explosions, term.penetrate)
    lo, base = _one_die(term)
    return pools.plain(term.count, lo, base)


def _pool_keep(node: Dice | RollGroup, keep: Keep, terms: list[Dice]) -> Distribution:
    """Keeping or dropping from a pool of dice some of which explode into separate dice,
    so that its size is random (:func:`arbiter.dice.pools.keep`)."""
    terms = [t for t in terms if t.count]
    most = sum(t.count * (1 + explosions_allowed(t) if t.separate else 1) for t in terms)
    keeping = keep.kind in ("kh", "kl")
    c = keep.count
    if (c == 0 and keeping) or (c >= most and not keeping) or not terms:
        return Distribution.point(0)  # nothing kept
    count = _counting(node)
    if c == 0 or c >= most:  # everything kept
        total = Distribution.point(0)
        for t in terms:
            total = total + _dice(replace(t, keep=None, success=node.success,
                                          failure=node.failure))
        return total
    weights = pools.keep([_chains(t) for t in terms], keep.kind in ("kh", "dh"), keeping, c,
                         count or _same)
    return _from_weights(weights)


def _mixed_keep(node: RollGroup, terms: list[Dice]) -> Distribution:
    """``{4d6+3d8}kh4``: keep from dice of several kinds (:func:`_keep_mixed`)."""
    assert node.keep is not None
    if any(explosions_allowed(t) and t.separate for t in terms):
        return _pool_keep(node, node.keep, terms)
    kinds = [(*_one_die(k), n) for k, n in _kinds(terms) if n]
    total = sum(n for _, _, n in kinds)
    if not kinds:
        return Distribution.point(0)
    highest, keep = node.keep.kept_highest(total)
    count = _counting(node)
    if highest and count is None and all(lo == 1 and weights.count(1) == len(weights)
                                         for lo, weights, _ in kinds):
        k_lo, counts = _keep_uniform([(len(weights), n) for _, weights, n in kinds], keep)
    else:
        k_lo, counts = _keep_mixed(kinds, highest, keep, count or _same)
    return Distribution(k_lo, counts)


def _extreme(members: list[Exact], highest: bool) -> Exact:
    """The highest (or lowest) of independent members, from their cumulative weights:
    the weight of "the highest is at most v" is the product of each member's."""
    items = [_items(x) for x in members]
    outcomes = sorted({v for its in items for v, _ in its}, reverse=not highest)
    tables = []
    for its in items:
        table = dict(its)
        tables.append(table)
    running = [0] * len(members)
    weights: dict[Value, int] = {}
    previous = 0
    for v in outcomes:
        product = 1
        for i, table in enumerate(tables):
            running[i] += table.get(v, 0)
            product *= running[i]
        if product != previous:
            weights[v] = product - previous
            previous = product
    return _settled(weights)


_MEMBER_KIND_STATES = 64
"""Most states of :func:`_keep_mixed` (the product of each kind's members plus one) for a
group's members kept through it rather than folded in (:func:`_fold_keep`)."""


def _member_kinds(members: list[Exact]) -> list[tuple[int, Counts, int]] | None:
    """The members of a group that keeps several of them as kinds of "dice" for
    :func:`_keep_mixed` (``{4d6, 4d6, 4d6}kh2``: three of one kind, each weighted as 4d6
    is), or None when a member has fractions or there are too many kinds: then
    :func:`_fold_keep` folds them in. The same answer either way (tests/dice/
    test_cold_paths.py); :func:`check` prices the fold, which costs more."""
    found: dict[tuple[int, tuple[int, ...]], int] = {}
    for x in members:
        if not isinstance(x, Distribution):
            return None
        key = (x.lo, tuple(x.counts))
        found[key] = found.get(key, 0) + 1
    states = 1
    for n in found.values():
        states *= n + 1
    if states > _MEMBER_KIND_STATES:
        return None
    return [(lo, list(counts), n) for (lo, counts), n in found.items()]


def _member_kind_shapes(nodes: tuple[Node, ...], shapes: list[_Shape]
                        ) -> list[tuple[_Shape, int]] | None:
    """The estimate's view of :func:`_member_kinds`: members written alike (equal trees)
    have equal distributions, so there are at most this many kinds (and
    :func:`_member_kinds`, which also joins members written differently whose
    distributions are equal, finds at most as many states). None when a member may have
    fractions or the states are too many: then the fold is priced."""
    found: dict[Node, list[Any]] = {}
    for tree, shape in zip(nodes, shapes, strict=True):
        if shape.den > 1:
            return None
        seen = found.get(tree)
        if seen is None:
            found[tree] = [shape, 1]
        else:
            seen[1] += 1
    if math.prod(n + 1 for _, n in found.values()) > _MEMBER_KIND_STATES:
        return None
    return [(shape, n) for shape, n in found.values()]


def _fold_keep(members: list[Exact], highest: bool, keep: int,
               count: Callable[[Any], int] | None) -> Exact:
    """Keep several of the members: fold them in, one at a time, keeping the best
    ``keep`` outcomes so far (bounded by :func:`check` before any of it)."""
    states: dict[tuple[Value, ...], int] = {(): 1}
    for x in members:
        its = _items(x)
        new: dict[tuple[Value, ...], int] = {}
        for state, w in states.items():
            for v, c in its:
                s = sorted((*state, v), reverse=highest)[:keep]
                key = tuple(s)
                new[key] = new.get(key, 0) + w * c
        states = new
    weights: dict[Value, int] = {}
    for state, w in states.items():
        total: Value = sum(count(v) for v in state) if count is not None else sum(state)
        weights[total] = weights.get(total, 0) + w
    return _settled(weights)


# -- the estimate, made before any of the work -------------------------------------------
#
# ``check`` walks the tree as ``_eval`` would and, for every step, bounds the result (the
# range of its outcomes, how many of them can occur, and the bits of its weights' total,
# which bounds every weight) and adds up what making it costs. The costs are in units of
# about a nanosecond of one core, measured on the machine the limits were tuned on (two
# cores; see docs/dice.md): each step is priced by the work of the helper that does it.

_PER_WEIGHT = 200
"""A weight handled in Python: formatted, parsed, added, compared, trimmed or reduced."""
_PER_BIT = 5
"""A bit of a big-integer product (``gmpy2``), packed into or unpacked from hex text."""
_PER_PAIR = 400
"""A pair of outcomes combined by ``*`` or ``/``: a product, a call and a dictionary update."""
_KEEP_STEP = 1000
"""One step of the keep/drop programme (a polynomial times a binomial, shifted and added)..."""
_KEEP_STEP_PER_DIE = 3
"""...plus this much per die of the pool (the binomial has about as many bits)..."""
_KEEP_BITS_PER_UNIT = 70
"""...plus a unit per this many bits of the polynomials moved..."""
_KEEP_MULTIPLIER = 80_000
"""...plus, for big weights (rerolls, explosions), a unit per this many of bits moved times
bits of the multiplier (a binomial times a weight to the power of the dice showing a face)."""
_FRACTION = 2500
"""Writing one outcome as an exact fraction (``Fraction``, ``str``, ``float``)..."""
_FRACTION_BIT = 8
"""...plus this much per bit of the weights' total..."""
_FRACTION_QUADRATIC = 250
"""...plus ``bits**2 / _FRACTION_QUADRATIC`` for the quadratic ``gcd`` and ``str`` of
Python's integers."""


_PER_FRACTION = 3000
"""An outcome that is a fraction, worked out (``Fraction`` arithmetic and a dictionary
update, whose hashing of a fraction costs about a microsecond), inside a rounding
function..."""
_PER_FRACTION_PAIR = 6000
"""...and a pair of outcomes combined when either is a fraction."""
_FOLD_STEP = 1000
"""One step of keeping several members of a group: a sorted tuple made and counted."""


class _Shape:
    """What the estimate knows of a distribution before it is computed: its outcomes lie in
    ``lo..hi``, at most ``count`` of them can occur, and its weights total ``2**log``
    before common factors are taken out (so ``bits`` bounds the bit length of each).
    Outcomes that may be fractions (inside a rounding function) have denominators of at
    most ``den``; whole numbers have ``den == 1``."""

    __slots__ = ("count", "den", "hi", "lo", "log")

    def __init__(self, lo: int, hi: int, count: int, log: float, den: int = 1) -> None:
        self.lo = lo
        self.hi = hi
        self.den = den
        self.count = min(count, (hi - lo + 1) * den)
        self.log = log

    @property
    def width(self) -> int:
        return self.hi - self.lo + 1

    @property
    def bits(self) -> int:
        return int(self.log * (1 + 1e-12)) + 1  # the margin covers the float's rounding

    @property
    def largest(self) -> int:
        return max(-self.lo, self.hi)


def _convolve_cost(wa: int, ba: int, wb: int, bb: int) -> int:
    """What ``_convolve`` costs for ``wa`` weights of ``ba`` bits and ``wb`` of ``bb``."""
    width = wa + wb - 1
    bits = ba + bb + min(wa, wb).bit_length() + 1
    if min(wa, wb) == 1:  # every weight times one number
        return (_PER_WEIGHT + bits) * width
    return _PER_WEIGHT * (wa + wb + width) + _PER_BIT * (wa * ba + wb * bb + width * bits)


def _power_cost(w: int, b: int, n: int) -> int:
    """What ``_power`` costs for ``n`` copies of ``w`` weights totalling ``b`` bits."""
    width = n * (w - 1) + 1
    return _PER_WEIGHT * (w + width) + _PER_BIT * width * (n * b + 1)


def _fraction_cost(bits: int) -> int:
    """Writing one outcome of a distribution whose weights total ``bits`` bits."""
    return _FRACTION + _FRACTION_BIT * bits + bits * bits // _FRACTION_QUADRATIC


def _product_range(a: _Shape, b: _Shape) -> tuple[int, int]:
    corners = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
    return min(corners), max(corners)


def _quotient_range(a: _Shape, b: _Shape, up: bool) -> tuple[int, int]:
    """The range of ``a / b`` rounded down (or up), over the non-zero divisors of ``b``
    (a quotient is monotonic in each operand while the divisor keeps its sign)."""
    if b.den > 1 or a.den > 1:  # fractions: as far as the smallest divisor allows
        most = (a.largest + 1) * b.den
        return -most, most
    divisors = [d for d in (b.lo, b.hi, -1, 1) if b.lo <= d <= b.hi and d]
    if not divisors:  # b is always 0: _eval says so; any range will do
        return 0, 0
    divide = _ceil_div if up else _floor_div
    values = [divide(x, d) for x in (a.lo, a.hi) for d in divisors]
    return min(values), max(values)


class _Estimate:
    """The work of one exact distribution, added up step by step before any is done."""

    __slots__ = ("work",)

    def __init__(self) -> None:
        self.work = 0

    def made(self, shape: _Shape, what: Node | str) -> _Shape:
        """Check a step's result against the size limits and count making it (trimming,
        summing and reducing its weights)."""
        if shape.den > 1:
            if shape.count > limits.MAX_EXACT_OUTCOMES:
                raise DistributionTooLarge(
                    f"the exact distribution of {_short(what)} would have up to "
                    f"{shape.count:,} outcomes; the limit is {limits.MAX_EXACT_OUTCOMES:,} "
                    "outcomes"
                )
        elif shape.width > limits.MAX_EXACT_OUTCOMES:
            raise DistributionTooLarge(
                f"the exact distribution of {_short(what)} would span {shape.width:,} "
                f"outcomes; the limit is {limits.MAX_EXACT_OUTCOMES:,} outcomes"
            )
        largest = shape.largest
        # a probability's numerator and denominator have at most ``bits`` bits; the mean's
        # numerator, a sum of outcomes times weights, those of the largest outcome more
        bits = shape.bits + largest.bit_length() + shape.den.bit_length() - 1
        if bits > limits.MAX_EXACT_BITS:
            digits = int(bits * 0.30103) + 1
            raise DistributionTooLarge(
                f"the exact odds of {_short(what)} would be fractions of up to {digits:,} "
                f"digits ({bits:,} bits); the limit is {limits.MAX_EXACT_BITS:,} bits "
                "(about 4,200 digits)"
            )
        if largest > limits.MAX_EXACT_MAGNITUDE:
            raise DistributionTooLarge(
                f"the exact distribution of {_short(what)} would have outcomes of "
                f"{len(str(largest)):,} digits; the limit for exact odds is "
                f"±10^{len(str(limits.MAX_EXACT_MAGNITUDE)) - 1}"
            )
        if shape.den > 1:
            self.work += shape.count * (_PER_FRACTION + shape.bits)
        else:
            self.work += _PER_WEIGHT * shape.width + shape.width * shape.bits
        return shape

    def mapped(self, a: _Shape) -> None:
        """A map over ``a``'s outcomes (``Distribution.map``, ``_map``)."""
        per = _PER_FRACTION if a.den > 1 else _PER_WEIGHT
        self.work += per * a.count + _PER_WEIGHT * a.width // max(a.den, 1)

    def paired(self, a: _Shape, b: _Shape, node: Node) -> int:
        """Every pair of outcomes of ``a`` and ``b`` combined (``_combine``)."""
        pairs = a.count * b.count
        if pairs > limits.MAX_EXACT_OUTCOMES:
            raise DistributionTooLarge(
                f"combining the distributions of {_short(node)} takes up to {pairs:,} pairs "
                f"of outcomes; the limit is {limits.MAX_EXACT_OUTCOMES:,} pairs"
            )
        per = _PER_FRACTION_PAIR if a.den > 1 or b.den > 1 else _PER_PAIR
        self.work += pairs * (per + a.bits * b.bits // 2048) + _PER_WEIGHT * (a.count + b.count)
        return pairs

    def walk(self, node: Node, exact: bool = False) -> _Shape:
        if isinstance(node, Num):  # one weight of 1
            return self.made(_Shape(node.value, node.value, 1, 0.0), node)
        if isinstance(node, Dice):
            return self.dice(node)
        if isinstance(node, WRAPPERS):
            return self.walk(node.inner, exact)
        if isinstance(node, Neg):
            a = self.walk(node.operand, exact)
            return self.made(_Shape(-a.hi, -a.lo, a.count, a.log, a.den), node)
        if isinstance(node, Func):
            return self.function(node, exact)
        if isinstance(node, RollGroup):
            return self.group(node, exact)
        a, b = self.walk(node.left, exact), self.walk(node.right, exact)
        if isinstance(node, Comparison):
            if b.count == 1:
                self.mapped(a)
            else:
                self.paired(a, b, node)
            return self.made(_Shape(0, 1, 2, a.log + b.log), node)
        assert isinstance(node, BinOp)
        den = a.den * b.den
        if node.op in ("+", "-"):
            if node.op == "-":
                lo, hi = a.lo - b.hi, a.hi - b.lo
            else:
                lo, hi = a.lo + b.lo, a.hi + b.hi
            if den > 1:
                pairs = self.paired(a, b, node)
                return self.made(_Shape(lo, hi, pairs, a.log + b.log, den), node)
            if node.op == "-":  # left + (-right)
                self.work += _PER_WEIGHT * b.width + b.width * b.bits
            self.work += _convolve_cost(a.width, a.bits, b.width, b.bits)
            return self.made(_Shape(lo, hi, a.count * b.count, a.log + b.log), node)
        if node.op == "*":
            lo, hi = _product_range(a, b)
            if a.count == 1 or b.count == 1:  # a map
                many = a if b.count == 1 else b
                out = _Shape(lo, hi, many.count, many.log, den)
                if out.den > 1 or out.width <= limits.MAX_EXACT_OUTCOMES:
                    self.mapped(many)
                    self.work += _PER_WEIGHT * out.width // max(out.den, 1)
                return self.made(out, node)
            pairs = self.paired(a, b, node)
            out = _Shape(lo, hi, pairs, a.log + b.log, den)
            if out.den == 1 and out.width <= limits.MAX_EXACT_OUTCOMES:
                self.work += _PER_BIT * pairs * out.bits + _PER_WEIGHT * out.width
            return self.made(out, node)
        if node.op == "%":
            most = max(abs(b.lo), abs(b.hi)) + 1
            lo, hi = -most, most
        elif node.op == "/" and exact:
            lo, hi = _quotient_range(a, b, False)
            lo, hi = lo - 1, hi + 1
            den = a.den * max(abs(b.lo), abs(b.hi), 1) * b.den
        else:
            lo, hi = _quotient_range(a, b, node.op == "/^")
            den = 1
        if b.count == 1:
            self.mapped(a)
            count = a.count
        else:
            count = self.paired(a, b, node)
        out = _Shape(lo, hi, count, a.log + b.log, den)
        if out.den == 1 and out.width <= limits.MAX_EXACT_OUTCOMES:
            self.work += _PER_BIT * count * out.bits + _PER_WEIGHT * out.width
        return self.made(out, node)

    def function(self, node: Func, exact: bool) -> _Shape:
        if node.name == "rem":
            a, b = self.walk(node.args[0], exact), self.walk(node.args[1], exact)
            most = max(abs(b.lo), abs(b.hi)) + 1
            count = a.count if b.count == 1 else self.paired(a, b, node)
            if b.count == 1:
                self.mapped(a)
            return self.made(_Shape(-most, most, count, a.log + b.log, a.den * b.den), node)
        a = self.walk(node.args[0], exact or node.name != "abs")
        self.mapped(a)
        if node.name == "abs":
            lo = 0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi))
            return self.made(_Shape(lo, max(abs(a.lo), abs(a.hi)), a.count, a.log, a.den), node)
        return self.made(_Shape(a.lo, a.hi, a.count, a.log), node)

    def group(self, node: RollGroup, exact: bool) -> _Shape:
        """Mirrors ``_group``."""
        terms = _as_dice(node)
        if terms is not None:
            if _alike(terms):
                return self.dice(replace(terms[0], count=sum(t.count for t in terms),
                                         keep=node.keep, success=node.success,
                                         failure=node.failure))
            if node.keep is not None:
                return self.mixed_keep(node, terms)
            shapes = [self.dice(replace(t, success=node.success, failure=node.failure))
                      for t in terms]
            return self.sum(shapes, node)
        members = [self.walk(m, exact) for m in node.members]
        m = len(members)
        if node.success is not None:
            c_lo = -1 if node.failure is not None else 0
        if node.keep is not None:
            _, keep = node.keep.kept_highest(m)
            if keep == 0:
                return self.made(_Shape(0, 0, 1, 0.0), node)
            if keep < m:
                log = sum(x.log for x in members)
                den = math.prod(x.den for x in members)
                total_bits = sum(x.bits for x in members)
                kinds = _member_kind_shapes(node.members, members) if keep > 1 else None
                if kinds is not None:  # as _member_kinds will find them, or fewer
                    return self.made(self.keep_kinds(kinds, keep, node), node)
                if keep == 1:
                    union = sum(x.count for x in members)
                    self.work += union * m * (_PER_WEIGHT + _PER_BIT * total_bits // 16)
                    out = _Shape(min(x.lo for x in members), max(x.hi for x in members),
                                 union, log, den)
                else:
                    # the states are the best ``keep`` outcomes so far: at most every
                    # combination of the members folded in, and at most every multiset of
                    # ``keep`` of the outcomes any member can show
                    union = min(sum(x.count for x in members),
                                (max(x.hi for x in members) - min(x.lo for x in members) + 1)
                                * math.prod(x.den for x in members))
                    multisets = math.comb(union + keep - 1, keep)
                    steps = 0
                    states = 1
                    for x in members:
                        steps += states * x.count
                        states = min(states * x.count, multisets)
                    if steps > limits.MAX_EXACT_OUTCOMES:
                        raise _unsupported(
                            node, f"keeping {keep} of {m} members takes up to {steps:,} "
                            f"steps, more than the {limits.MAX_EXACT_OUTCOMES:,} worked out "
                            "exactly"
                        )
                    self.work += steps * (_FOLD_STEP + keep * _PER_WEIGHT)
                    combos = min(math.prod(x.count for x in members), multisets)
                    out = _Shape(keep * min(x.lo for x in members),
                                 keep * max(x.hi for x in members), combos, log, den)
                out = self.made(out, node)
                if node.success is None:
                    return out
                self.mapped(out)
                return self.made(_Shape(keep * c_lo, keep, out.count, out.log), node)
        if node.success is not None:
            self.work += sum(x.count for x in members) * _PER_FRACTION
            members = [self.made(_Shape(c_lo, 1, 3, x.log), node) for x in members]
        return self.sum(members, node)

    def mixed_keep(self, node: RollGroup, terms: list[Dice]) -> _Shape:
        """Keeping from dice of several kinds (``_keep_mixed``): for each face and each
        kind, every state (a count of dice placed per kind) meets every count of that
        kind's dice showing the face, each step moving a polynomial as long as the kept
        dice can show, of slots as wide as a weight of all the dice."""
        assert node.keep is not None
        if any(explosions_allowed(t) and t.separate for t in terms):
            return self.pool_keep(node, node.keep, terms)
        kinds = [(k, n) for k, n in _kinds(terms) if n]
        if not kinds:
            return self.made(_Shape(0, 0, 1, 0.0), node)
        shapes = [(self.die_shape(k), n) for k, n in kinds]
        _, keep = node.keep.kept_highest(sum(n for _, n in kinds))
        return self.made(self.keep_kinds(shapes, keep, node), node)

    def keep_kinds(self, kinds: list[tuple[_Shape, int]], keep: int, node: RollGroup
                   ) -> _Shape:
        """``_keep_mixed`` over ``n`` "dice" of each shape: for each face and each kind,
        every state (a count of dice placed per kind) meets every count of that kind's
        dice showing the face, each step moving a polynomial as long as the kept dice can
        show, of slots as wide as a weight of all the dice."""
        total = sum(n for _, n in kinds)
        lo = min(s.lo for s, _ in kinds)
        hi = max(s.hi for s, _ in kinds)
        if node.success is not None:
            c_lo, c_hi = (-1 if node.failure is not None else 0), 1
        else:
            c_lo, c_hi = lo, hi
        top = keep * (c_hi - min(c_lo, 0))
        log = sum(s.log * n for s, n in kinds)
        out = _Shape(keep * c_lo, keep * c_hi, (c_hi - c_lo) * keep + 1, log)
        if top + 1 <= limits.MAX_EXACT_OUTCOMES and out.bits <= limits.MAX_EXACT_BITS:
            states = math.prod(n + 1 for _, n in kinds)
            steps = (hi - lo + 1) * states * sum(n + 1 for _, n in kinds)
            slot = 4 * ((out.bits + 4) // 4)
            self.work += steps * (_KEEP_STEP + _KEEP_STEP_PER_DIE * total)
            self.work += steps * (top + 1) * slot // _KEEP_BITS_PER_UNIT
            self.work += _PER_WEIGHT * (top + 1) + _PER_BIT * (top + 1) * slot
        return out

    def die_shape(self, node: Dice) -> _Shape:
        """One die of a term that explodes only by compounding (``_one_die``)."""
        one = self.dice(replace(node, count=1, keep=None, select=None, success=None,
                                failure=None))
        return one

    def sum(self, shapes: list[_Shape], node: Node) -> _Shape:
        out = shapes[0]
        for x in shapes[1:]:
            den = out.den * x.den
            if den > 1:
                pairs = self.paired(out, x, node)
                out = _Shape(out.lo + x.lo, out.hi + x.hi, pairs, out.log + x.log, den)
            else:
                self.work += _convolve_cost(out.width, out.bits, x.width, x.bits)
                out = _Shape(out.lo + x.lo, out.hi + x.hi, out.count * x.count,
                             out.log + x.log)
            out = self.made(out, node)
        return out

    def dice(self, node: Dice) -> _Shape:
        """Mirrors ``_dice``, step by step."""
        n = node.count
        explosions = explosions_allowed(node)
        size = 3 if node.kind == "F" else 10 if node.kind == "T" else node.faces
        log = _roll_weights(node) * math.log2(size)  # one roll's total weight
        bits = int(log * (1 + 1e-12)) + 1
        lo_v, hi_v = node.lowest, node.highest
        values = hi_v - lo_v + 1
        self.work += _PER_WEIGHT * values  # _single_die
        clamp = node.clamp
        clamps = node.minimum is not None or node.maximum is not None
        if explosions and node.separate:
            if node.keep is not None:
                return self.pool_keep(node, node.keep, [node])
            assert node.explode is not None
            pen = 1 if node.penetrate else 0
            e_lo, e_hi = _face_range(node, node.explode)

            def adds(low: int, high: int, shift: int) -> tuple[int, int]:
                """What a roll showing ``low..high`` can add (a bound)."""
                a, b = clamp(low - shift), clamp(high - shift)
                return _count_range(node, min(a, b), max(a, b))

            # _chain: as many steps as explosions, each convolving what an exploding roll
            # adds with the chain so far, which grows by that much a step
            self.work += 4 * _PER_WEIGHT * values  # splitting and mapping the faces
            cur = adds(lo_v, hi_v, pen)
            for k in range(explosions):
                shift = pen if k < explosions - 1 else 0
                steady, boom = adds(lo_v, hi_v, shift), adds(e_lo, e_hi, shift)
                booms, width = boom[1] - boom[0] + 1, cur[1] - cur[0] + 1
                self.work += _convolve_cost(booms, bits, width, (k + 1) * bits)
                cur = (min(steady[0], boom[0] + cur[0]), max(steady[1], boom[1] + cur[1]))
                self.work += (_PER_WEIGHT + (k + 2) * bits) * (cur[1] - cur[0] + 1 + booms)
            per = _Shape(cur[0], cur[1], cur[1] - cur[0] + 1, log * (explosions + 1))
            return self.pool(per, n, node)
        lo, hi = lo_v, hi_v
        if explosions and node.explode is not None:
            # _chain: a step convolves the exploding faces (a run of them, up to ``top``)
            # with the chain so far, which reaches ``k * top + faces`` after k explosions
            point = node.explode
            booms = node.count_matching(point)
            if node.kind:
                top = hi_v - lo_v + 1
            else:
                top = point.value if point.op == "=" else node.faces if point.op[0] == ">" \
                    else booms
            self.work += 4 * _PER_WEIGHT * values
            for k in range(explosions):
                width = k * top + values
                self.work += _convolve_cost(min(booms, top), bits, width, (k + 1) * bits)
                self.work += (_PER_WEIGHT + (k + 2) * bits) * (width + top)
            lo = min(lo_v, (explosions + 1) * lo_v)
            hi = explosions * top + hi_v if not node.kind else (explosions + 1) * hi_v
            log *= explosions + 1
        one = _Shape(lo, hi, hi - lo + 1, log)
        if clamps:
            self.work += _PER_WEIGHT * one.width
            lo, hi = min(clamp(lo), clamp(hi)), max(clamp(lo), clamp(hi))
            one = _Shape(lo, hi, hi - lo + 1, log)
        weight_bits = one.bits if explosions or rerolls_allowed(node) else 0
        c_lo, c_hi = _count_range(node, one.lo, one.hi)
        if node.keep is not None:
            return self.keep(one, node, weight_bits, c_lo, c_hi)
        if node.success is not None or node.failure is not None or node.select is not None:
            self.work += _PER_WEIGHT * one.width
            return self.pool(_Shape(c_lo, c_hi, c_hi - c_lo + 1, log), n, node)
        return self.pool(one, n, node)

    def pool_keep(self, node: Dice | RollGroup, keep: Keep, terms: list[Dice]) -> _Shape:
        """Keeping from a pool whose dice explode into separate dice (``_pool_keep``)."""
        terms = [t for t in terms if t.count]
        most = sum(t.count * (1 + explosions_allowed(t) if t.separate else 1) for t in terms)
        keeping = keep.kind in ("kh", "kl")
        c = keep.count
        if (c == 0 and keeping) or (c >= most and not keeping) or not terms:
            return self.made(_Shape(0, 0, 1, 0.0), node)
        if c == 0 or c >= most:  # everything kept: the sum of the terms
            return self.sum([self.dice(replace(t, keep=None, success=node.success,
                                               failure=node.failure)) for t in terms], node)
        spec: list[tuple[int, int, int, int, int]] = []
        lo: int | None = None
        hi: int | None = None
        log = 0.0
        for t in terms:
            size = 3 if t.kind == "F" else 10 if t.kind == "T" else t.faces
            roll_log = _roll_weights(t) * math.log2(size)
            explosions = explosions_allowed(t)
            self.work += _PER_WEIGHT * (t.highest - t.lowest + 1) * 4
            if explosions and t.separate:
                degree = explosions + 1
                kinds = 4 if t.penetrate else 2
                low = t.lowest - (1 if t.penetrate else 0)
                a, b = t.clamp(low), t.clamp(t.highest)
                t_lo, t_hi = min(a, b), max(a, b)
                # the kinds that can show one face: exploding faces and others are apart
                # unless a minimum, maximum or penetration brings them together
                apart = t.minimum is None and t.maximum is None and not t.penetrate
                spec.append((t.count, kinds, degree, int(roll_log) + 1, 1 if apart else kinds))
                log += t.count * degree * roll_log
            else:  # one kind: the die as one value (compounded, clamped)
                one = self.die_shape(t)
                t_lo, t_hi = one.lo, one.hi
                spec.append((t.count, 1, 1, one.bits, 1))
                log += t.count * one.log
            lo = t_lo if lo is None else min(lo, t_lo)
            hi = t_hi if hi is None else max(hi, t_hi)
        assert lo is not None and hi is not None
        if isinstance(node, Dice):
            c_lo, c_hi = _count_range(node, lo, hi)
        elif node.success is not None:
            c_lo, c_hi = (-1 if node.failure is not None else 0), 1
        else:
            c_lo, c_hi = lo, hi
        # exponents: value - lowest for kh/kl; value, or value + |lowest| when it is
        # negative, for dh/dl
        spread = c_hi - c_lo if keeping else c_hi - min(c_lo, 0)
        if keeping:
            out = _Shape(min(c * c_lo, 0), max(c * c_hi, 0), c * (c_hi - c_lo) + 1, log)
        else:
            out = _Shape(min(most * c_lo, 0), max(most * c_hi, 0),
                         most * (c_hi - c_lo) + 1, log)
        out = self.made(out, node)
        states = math.comb(c - 1 + sum(k for _, k, _, _, _ in spec),
                           sum(k for _, k, _, _, _ in spec))
        if states > limits.MAX_EXACT_OUTCOMES:
            raise DistributionTooLarge(
                f"the exact distribution of {_short(node)} would keep track of {states:,} "
                f"ways to have placed the {c} dice {'kept' if keeping else 'dropped'}; the "
                f"limit is {limits.MAX_EXACT_OUTCOMES:,}"
            )
        self.work += int(pools.cost(spec, c, keeping, hi - lo + 1, spread,
                                    sum(kv for _, _, _, _, kv in spec)))
        return out

    def pool(self, one: _Shape, n: int, node: Dice) -> _Shape:
        """The sum of ``n`` dice like ``one`` (``_power``)."""
        if n == 0:
            return self.made(_Shape(0, 0, 1, 0.0), node)
        out = _Shape(one.lo * n, one.hi * n, one.width * n, one.log * n)
        if out.width <= limits.MAX_EXACT_OUTCOMES:
            self.work += _power_cost(one.width, one.bits, n)
        return self.made(out, node)

    def keep(self, one: _Shape, node: Dice, weight_bits: int, c_lo: int, c_hi: int) -> _Shape:
        """Keeping or dropping (``_keep``), of dice adding ``c_lo..c_hi`` each.

        For each face, every count ``a`` of dice placed so far meets every count ``j`` of
        dice showing that face: a step each. A step moves the polynomial of ``a`` dice and
        adds into that of ``a + j``, and the polynomial of ``b`` dice placed is as long as
        the most ``min(b, kept)`` kept dice can show, each slot as wide as a weight of
        ``n`` dice; ``moved`` adds those lengths up over every step. A polynomial is
        multiplied by a weight (of ``weight_bits``) to the power of the dice showing the
        face, which costs more as that grows.
        """
        assert node.keep is not None
        n = node.count
        _, kept = node.keep.kept_highest(n)
        top_face = c_hi - min(c_lo, 0)  # _keep_values shifts negative values up
        out = _Shape(c_lo * kept, c_hi * kept, (c_hi - c_lo) * kept + 1, n * one.log)
        top = kept * top_face
        if top + 1 <= limits.MAX_EXACT_OUTCOMES and out.bits <= limits.MAX_EXACT_BITS:
            slot = 4 * ((n * one.bits + 4) // 4)
            m = min(kept, n)
            squares = m * (m + 1) * (2 * m + 1) // 6
            # sum over a of (n - a + 1) * min(a, kept): the polynomials moved ...
            moved = (n + 1) * m * (m + 1) // 2 - squares + kept * (n - m) * (n - m + 1) // 2
            # ... and sum over b of (b + 1) * min(b, kept): those added into
            moved += squares + m * (m + 1) // 2
            moved += kept * ((n + 1) * (n + 2) // 2 - (m + 1) * (m + 2) // 2)
            moved *= one.width * top_face * slot
            steps = one.width * (n + 1) * (n + 2) // 2
            self.work += steps * (_KEEP_STEP + _KEEP_STEP_PER_DIE * n)
            self.work += moved // _KEEP_BITS_PER_UNIT
            self.work += moved * n * weight_bits // _KEEP_MULTIPLIER
            self.work += _PER_WEIGHT * (top + 1) + _PER_BIT * (top + 1) * slot
        return self.made(out, node)


def _count_range(node: Dice, lo: int, hi: int) -> tuple[int, int]:
    """What one die showing ``lo..hi`` adds once it is settled (``_counting``): a bound."""
    if node.success is None and node.failure is None:
        c_lo, c_hi = lo, hi
    else:
        c_lo, c_hi = (0, 1) if node.success is not None else (lo, hi)
        if node.failure is not None:
            neg_lo, neg_hi = (-hi, -lo) if node.subtract else (-1, -1)
            c_lo, c_hi = min(c_lo, neg_lo), max(c_hi, neg_hi)
    if node.select is not None:
        c_lo, c_hi = min(c_lo, 0), max(c_hi, 0)
    return c_lo, c_hi


def _face_range(node: Dice, point: Compare) -> tuple[int, int]:
    """The lowest and highest face that ``point`` matches (it matches at least one)."""
    if node.kind:
        matching = [v for v in node.face_values() if point.matches(v)]
        return min(matching), max(matching)
    lo, hi = _interval(point)
    return int(max(lo, 1)), int(min(hi, node.faces))


def _roll_weights(node: Dice) -> int:
    """One roll's total weight is at most ``size ** this`` (:func:`_single_die`)."""
    return 2 if node.reroll_once and rerolls_allowed(node) else 1


def _short(what: Node | str) -> str:
    text = str(what)
    return repr(text if len(text) <= 40 else text[:39] + "…")


def check(node: Node) -> int:
    """Refuse ``node`` before any work if rolling it could exceed ``MAX_ROLLS`` dice, or
    its exact distribution any of the ``MAX_EXACT_*`` limits; else the estimated work.

    Raises :class:`DiceLimitError` (:class:`DistributionTooLarge` for the exact limits)
    naming the limit, or :class:`NoExactOdds` for a construct with no exact model.
    """
    check_rolls(node)
    estimate = _Estimate()
    shape = estimate.walk(node)
    work = estimate.work + shape.count * _fraction_cost(shape.bits)
    if work > limits.MAX_EXACT_WORK:
        raise DistributionTooLarge(
            f"the exact distribution of {_short(node)} would take about {work / 1e9:.1f} s "
            f"of work ({work:,} units, estimated); the limit is about "
            f"{limits.MAX_EXACT_WORK / 1e9:.1f} s ({limits.MAX_EXACT_WORK:,} units): "
            "roll it instead, or ask for fewer or smaller dice"
        )
    return work


# -- small expressions, known to be inside every limit without the estimate ----------------
#
# Profiled for issue 35 (first calls in a fresh process): the estimate (``check``) cost
# 35-150 µs of a small expression's 0.2-0.35 ms, the first run of a few hundred lines of
# code. An expression small enough that no step of it can come near any limit needs none of
# it: no explosions or groups, at most ``SMALL_DICE`` dice of at most ``SMALL_FACES`` faces
# (``SMALL_TERM`` a term; a die rerolled once counts twice, its weights having twice the
# bits), ``SMALL_NODES`` nodes, every value within ``±SMALL_MAGNITUDE``, and, counting
# every reroll as ``check_rolls`` does, at most ``MAX_ROLLS`` physical dice. A walk mirroring
# the estimate's bounds each step's range ``lo..hi``, a count of its outcomes at least the
# estimate's (the range's width for whole numbers, 1 for a number), and the denominators of
# its outcomes (above 1 only inside a rounding function, where ``/`` divides exactly), so
# that each step pairs at most ``SMALL_PAIRS`` outcomes, or ``SMALL_FRACTION_PAIRS`` where
# either side or the result may be fractions (a pair of those costs fifteen times as much).
# A reroll never widens a die's range: only which faces stand and their weights change.
# Those bounds keep the estimate's work under half of ``MAX_EXACT_WORK`` (about 4e8 units
# at the most: ``SMALL_NODES`` steps of ``SMALL_PAIRS`` pairs of 266-bit weights, and as
# many outcomes written as fractions) and far from the other limits;
# tests/dice/test_cold_paths.py and tests/dice/test_small.py check that ``check`` accepts
# every such tree they draw.

SMALL_DICE = 40
SMALL_TERM = 10
SMALL_FACES = 100
SMALL_NODES = 24
SMALL_MAGNITUDE = 10_000
SMALL_PAIRS = 20_000
SMALL_FRACTION_PAIRS = 1000


def small(node: Node) -> bool:
    """Whether ``node`` is small in the sense above (``check`` would accept it)."""
    sizes = [0, 0, 0]  # nodes, dice (a die rerolled once twice), physical dice
    return _small(node, sizes, False) is not None


_Bound = tuple[int, int, int, int]
"""(lo, hi, count, den) of :func:`_small`."""


def _small(node: Node, sizes: list[int], exact: bool) -> _Bound | None:
    """(bounds ``lo..hi`` on every value of ``node``, a bound on the estimate's count of
    its outcomes, a bound on their denominators), or None when ``node`` is not small.
    ``exact``: inside a rounding function (``/`` divides exactly)."""
    sizes[0] += 1
    if sizes[0] > SMALL_NODES:
        return None
    if isinstance(node, Num):
        v = node.value
        return (v, v, 1, 1) if -SMALL_MAGNITUDE <= v <= SMALL_MAGNITUDE else None
    if isinstance(node, Dice):
        return _small_dice(node, sizes)
    if isinstance(node, WRAPPERS):
        return _small(node.inner, sizes, exact)
    if isinstance(node, Neg):
        a = _small(node.operand, sizes, exact)
        return None if a is None else (-a[1], -a[0], a[2], a[3])
    if isinstance(node, RollGroup):
        return _small_group(node, sizes)
    if isinstance(node, Func):
        name = node.name
        if name != "rem":
            a = _small(node.args[0], sizes, exact or name != "abs")
            if a is None:
                return None
            lo, hi, count, den = a
            if name == "abs":
                return (max(lo, -hi, 0), max(-lo, hi), count, den)
            # rounded: whole numbers within the same (whole) bounds
            return lo, hi, min(count, hi - lo + 1), 1
        a, b = _small(node.args[0], sizes, exact), _small(node.args[1], sizes, exact)
        if a is None or b is None:
            return None
        most = max(-b[0], b[1]) + 1
        lo, hi, den = -most, most, a[3] * b[3]
    else:  # BinOp | Comparison
        a, b = _small(node.left, sizes, exact), _small(node.right, sizes, exact)
        if a is None or b is None:
            return None
        den = a[3] * b[3]
        if isinstance(node, Comparison):
            lo, hi, den = 0, 1, 1
        elif node.op == "+":
            lo, hi = a[0] + b[0], a[1] + b[1]
        elif node.op == "-":
            lo, hi = a[0] - b[1], a[1] - b[0]
        elif node.op == "*":
            corners = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
            lo, hi = min(corners), max(corners)
        elif node.op == "%":
            most = max(-b[0], b[1]) + 1
            lo, hi = -most, most
        else:  # a quotient is no bigger than the dividend over the least divisor, 1 / den
            most = (max(-a[0], a[1]) + 1) * b[3]
            if node.op == "/" and exact:  # divides exactly
                most += 1
                den *= max(-b[0], b[1], 1)
            else:  # rounded: whole numbers
                den = 1
            lo, hi = -most, most
    pairs = a[2] * b[2]
    if pairs > (SMALL_FRACTION_PAIRS if den > 1 or a[3] > 1 or b[3] > 1 else SMALL_PAIRS):
        return None
    if lo < -SMALL_MAGNITUDE or hi > SMALL_MAGNITUDE:
        return None
    return lo, hi, pairs if den > 1 else min(pairs, hi - lo + 1), den


def _small_dice(node: Dice, sizes: list[int]) -> _Bound | None:
    n = node.count
    if node.explode is not None or n > SMALL_TERM or node.faces > SMALL_FACES:
        return None
    rerolls = rerolls_allowed(node) if node.reroll is not None else 0
    sizes[1] += 2 * n if rerolls and node.reroll_once else n
    sizes[2] += n * (1 + rerolls)
    if sizes[1] > SMALL_DICE or sizes[2] > limits.MAX_ROLLS:
        return None
    if node.success is not None or node.failure is not None or node.select is not None:
        # counts of successes and failures, values and their negatives, and zeros
        most = max(abs(node.lowest), abs(node.highest), abs(node.minimum or 0),
                   abs(node.maximum or 0), 1) * n
        lo, hi = -most, most
    else:  # sums of faces, clamped (clamping keeps the order); kept dice are fewer
        clamp = node.clamp
        lo, hi = clamp(node.lowest) * n, clamp(node.highest) * n
        if node.keep is not None:
            lo, hi = min(lo, 0), max(hi, 0)
    if lo < -SMALL_MAGNITUDE or hi > SMALL_MAGNITUDE:
        return None
    return lo, hi, hi - lo + 1, 1


SMALL_GROUP_DICE = 12
SMALL_GROUP_FACES = 20
SMALL_GROUP_STATES = 64


def _small_group(node: RollGroup, sizes: list[int]) -> _Bound | None:
    """Keeping from plain dice of a few kinds (``{4d6+3d8}kh4``): at most
    ``SMALL_GROUP_DICE`` dice of at most ``SMALL_GROUP_FACES`` faces, whose kinds give
    ``_keep_mixed`` at most ``SMALL_GROUP_STATES`` states (the product of each kind's dice
    plus one). Its estimate is then at most 20 faces x 64 states x 18 steps of a 241-weight
    polynomial of 56-bit slots, about 3e7 units: far inside the limits."""
    if not node.dice_level or node.keep is None or node.success is not None:
        return None
    dice: dict[int, int] = {}  # dice by faces
    for t in _terms(node.members[0]):
        sizes[0] += 1
        if (t.faces > SMALL_GROUP_FACES or t.reroll is not None or t.explode is not None
                or t.keep is not None or t.select is not None or t.success is not None
                or t.failure is not None or t.kind or t.minimum is not None
                or t.maximum is not None or t.subtract):
            return None
        dice[t.faces] = dice.get(t.faces, 0) + t.count
    n = sum(dice.values())
    sizes[1] += n
    sizes[2] += n
    if (sizes[0] > SMALL_NODES or n > SMALL_GROUP_DICE or sizes[1] > SMALL_DICE
            or math.prod(k + 1 for k in dice.values()) > SMALL_GROUP_STATES):
        return None
    hi = n * max(dice)
    return 0, hi, hi + 1, 1


# -- the cache -----------------------------------------------------------------------------

_CACHE: dict[str | Node | tuple[str, str], Distribution] = {}
"""Distributions already computed, by text (which needs neither parsing nor hashing a tree)
and by tree."""
_CACHE_SIZE = 256
_CACHE_BITS = 1 << 26
"""Bits of weights the cache may hold in all; a distribution above a sixteenth of this is
not kept, so hostile expressions cannot fill memory through it."""
_cached_bits = [0]


def _remember(key: str | Node | tuple[str, str], dist: Distribution) -> None:
    size = len(dist.counts) * dist.denominator.bit_length()
    if size > _CACHE_BITS // 16:
        return
    if len(_CACHE) >= _CACHE_SIZE or _cached_bits[0] + size > _CACHE_BITS:
        clear_cache()
    _CACHE[key] = dist
    _cached_bits[0] += size


# -- small plain sums, read and counted in one pass -----------------------------------------
#
# Profiled for issue 35 (first call in a fresh process, ``distribution("2d6")``, µs):
# parsing 26, the roll budget (``check_rolls``) 7, the exact estimate (``check``) 31, the
# distribution 21: the checks in front cost more than the answer, and every helper run for
# the first time in a process costs a few µs of its own. A sum of a few plain dice and
# numbers, with at most one keep or drop, inside the bounds below is read by one regular
# expression and counted in one function: its budget is known in closed form (every such
# sum is far inside every ``MAX_EXACT_*`` limit and ``MAX_ROLLS``; tests/dice/test_exact.py
# checks the corners with :func:`check`), and the answer is the full path's
# (the same test compares the two on a grid). Anything else takes the full path.

_QUICK_TERM = re.compile(
    r"([-+]?)(?:([0-9]{1,3})?[dD]([0-9]{1,4}|[fF])(?:([kK][hHlL]?|[dD][hHlL])([0-9]{1,3})?)?"
    r"|([0-9]{1,6}))",
    re.ASCII,
)
QUICK_DICE = 100
"""Dice in all of a quick sum."""
QUICK_WIDTH = 10_000
"""Outcomes one quick sum's plain dice may span (``sum of N * (X - 1)``)."""
QUICK_KEEP_DICE = 20
QUICK_KEEP_FACES = 100
"""The one keep or drop of a quick sum: at most this many dice of at most this many faces."""
QUICK_TERMS = 8
_QUICK_KEEP = {"k": "kh", "kh": "kh", "kl": "kl", "dh": "dh", "dl": "dl"}
_QUICK_LETTERS = str.maketrans("", "", "0123456789dDkKhHlLfF+-")
"""Deletes every character a quick sum may hold: what is left of a text means the full path."""


def quick(text: str) -> Distribution | None:
    """The exact distribution of a small plain sum such as ``2d6``, ``4d6kh3+2`` or
    ``3d8+1d6-2``, or None when ``text`` is anything else (the full path then reads it).

    Same answer as :func:`distribution` gives through the parser, :func:`check` and
    :func:`_eval`, which none of these sums could fail.
    """
    # The commonest of all, NdX, without the regular expression or any helper: each
    # helper run for the first time in a process costs a few µs.
    n_text, d, f_text = text.partition("d")
    fudge = f_text == "F" or f_text == "f"  # NdF: counted as Nd3, less 2 a die
    if (
        d and text.isascii() and (fudge or (f_text.isdigit() and len(f_text) <= 4))
        and (not n_text or (n_text.isdigit() and len(n_text) <= 3))
    ):
        count = int(n_text) if n_text else 1
        size = 3 if fudge else int(f_text)
        if count < 1 or size < 1 or count > QUICK_DICE or count * (size - 1) > QUICK_WIDTH:
            return None
        return _plain_dice(-count if fudge else count, count, size)
    if text.translate(_QUICK_LETTERS):
        return None  # a character no quick sum has (r, !, %, (...): the full path, at once
    return _quick_sum(text)


def _quick_sum(text: str) -> Distribution | None:
    """:func:`quick` for a sum of several terms (``4d6kh3+2``, ``3d8+1d6-2``)."""
    # read the whole text first: no work starts on an expression the full path must read
    pos, end = 0, len(text)
    lo = 0
    dice = width = terms = 0
    kept = False
    match = _QUICK_TERM.match
    read: list[tuple[str | None, int, int, str | None, int]] = []
    while pos < end:
        m = match(text, pos)
        if m is None:
            return None
        sign, n, faces, how, k, number = m.groups()
        if (not sign) != (pos == 0):
            return None
        pos = m.end()
        terms += 1
        if terms > QUICK_TERMS:
            return None
        if number is not None:
            lo += -int(number) if sign == "-" else int(number)
            continue
        count = int(n) if n is not None else 1
        fate = not faces.isdigit()  # dF: counted as a d3, less 2 a die
        size = 3 if fate else int(faces)
        dice += count
        if count < 1 or size < 1 or dice > QUICK_DICE:
            return None
        if how is None:
            width += count * (size - 1)
            if width > QUICK_WIDTH:
                return None
        elif kept or count > QUICK_KEEP_DICE or size > QUICK_KEEP_FACES:
            return None
        else:
            kept = True
        read.append((sign, count, -3 if fate else size, how,
                     int(k) if k is not None else 1))
    counts = [1]
    for sign, count, size, how, many in read:
        fate = size < 0  # -3: Fudge dice, faces -1, 0, 1
        if fate:
            size = 3
        if how is None:
            term_lo, term = count, _power([1] * size, count)
            if fate:
                term_lo -= 2 * count
        else:
            kind = _QUICK_KEEP[how.lower()]
            if kind == "kh" or kind == "kl":
                highest, keep = kind == "kh", min(many, count)
            else:
                highest, keep = kind == "dl", max(count - many, 0)
            if keep == 0:
                term_lo, term = 0, [1]
            elif keep == 1:  # the highest (lowest) of n dice: v**n - (v-1)**n ways to show v
                term_lo = 1 - 2 if fate else 1
                term = [v**count - (v - 1) ** count for v in range(1, size + 1)]
                if not highest:
                    term.reverse()
            else:
                term_lo, term = _keep(1, [1] * size, count, highest, keep, _same)
                if fate:
                    term_lo -= 2 * keep
        if sign == "-":
            term_lo, term = -(term_lo + len(term) - 1), term[::-1]
        lo += term_lo
        counts = _convolve(counts, term) if len(counts) > 1 else term
    return Distribution(lo, counts)


def distribution(expression: str | Node, dialect: str | Dialect = "arbiter") -> Distribution:
    """The exact distribution of an expression's total (text read in ``dialect``, or a
    parsed tree).

    Refused before any work, with :class:`DiceLimitError` naming the limit, when rolling it
    could exceed the dice limit or its exact distribution would be too large (:func:`check`),
    and with :class:`NoExactOdds` when it has no exact model here.

    >>> distribution("4d6kh3").probability(18)
    Fraction(7, 432)
    """
    key: str | Node | tuple[str, str] = expression
    if isinstance(expression, str) and dialect != "arbiter":
        key = (dialect if isinstance(dialect, str) else dialect.name, expression)
    dist = _CACHE.get(key)
    if dist is not None:
        return dist
    node, bounded = expression, False
    if isinstance(expression, str):
        spec = _dialect(dialect)
        if not (spec.tens_percentile or spec.k_selects):  # (else d% and k3 differ)
            dist = quick(expression)
        if dist is None:
            # a short expression read without the parser (quick_tree); one inside its
            # bounds needs no estimate (tests/dice/test_cold_paths.py)
            read = quick_tree(expression, spec)
            node, bounded = read if read is not None else (parse_uncached(expression, spec),
                                                           False)
    if dist is None:
        assert not isinstance(node, str)
        if not bounded and not small(node):
            check(node)
        result = _eval(node)
        assert isinstance(result, Distribution)  # fractions only inside rounding functions
        dist = result
    _remember(key, dist)
    return dist


def clear_cache() -> None:
    """Forget every distribution computed (for measuring first calls)."""
    _CACHE.clear()
    _cached_bits[0] = 0
